"""Hand-computed library values on the hand-made cases of ``fixtures/beyond_cases.py`` and
``fixtures/make_beyond_findings.py``, read from the libraries' fixtures (MS Recommenders,
Evidently and Elliot ran them) and from the written definitions (RecBole's, checked live by
``test_conv_beyond_recbole.py``).

``edge-mixed``: train u0 {1, 2}, u1 {1, 3, 5}, u3 {4} (6 rows, 3 users; item 1 has 2 rows,
items 2-5 one each, item 6 none); top 3 by score: u0 [3, 4, 6], u1 [2], u2 [1, 5] (u2 has no
training row). ``edge-same-lists``: every user gets [4, 5, 6]; train u0 {1}, u1 {2},
u2 {1, 2, 3}; 6 catalog items.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from tests.conformance._data import load_fixture
from tests.conformance.conventions._beyond_defs import cases_module, recbole_defs
from tests.conformance.conventions.test_conv_beyond_fixtures import (
    ELLIOT,
    EVIDENTLY,
    FIXTURES,
    MSR,
)

pytestmark = pytest.mark.conformance

FINDINGS = FIXTURES / "beyond_findings.json.gz"
#: the features of beyond_findings' cases (fixtures/make_beyond_findings.py)
FEATS_FINDINGS = load_fixture(FINDINGS)["cases"][0]["features"]

LOG2_3, LOG2_5, LOG2_6 = math.log2(3), math.log2(5), math.log2(6)


def _case(path: Any, name: str) -> dict[str, Any]:
    return next(c for c in load_fixture(path)["cases"] if c["name"] == name)


def test_ms_recommenders_edge_mixed() -> None:
    """MS Recommenders at k = 3.

    novelty: rows 3, 4, 2, 5 have -log2(1/6) = log2 6, row 1 -log2(2/6) = log2 3, row 6 (not
    in train) 0; six rows: (4 log2 6 + log2 3) / 6 = 1.98747. catalog_coverage: 6 distinct
    recommended / 5 training items = 1.2 (above 1: item 6 is not in train).
    distributional_coverage: six rows, six items, p = 1/6: log2 6. user_diversity
    (co-occurrence): u0's pairs (3, 4), (3, 6), (4, 6) never co-occur: 1 - 0 = 1; u2's pair
    (1, 5) co-occurs once (u1): 1 - 1 / sqrt(2 * 1) = 0.29289; u1 (one item) is left out;
    diversity = (1 + 0.29289) / 2.
    """
    msr = _case(MSR, "edge-mixed")["msr"]["3"]
    assert math.isclose(msr["novelty"], (4 * LOG2_6 + LOG2_3) / 6, rel_tol=1e-12)
    assert msr["catalog_coverage"] == 1.2
    assert math.isclose(msr["distributional_coverage"], LOG2_6, rel_tol=1e-12)
    div = 1 - 1 / math.sqrt(2)
    assert msr["user_diversity_cooc"] == pytest.approx({"u0": 1.0, "u2": div}, abs=1e-12)
    assert math.isclose(msr["diversity_cooc"], (1 + div) / 2, rel_tol=1e-12)


def test_evidently_edge_mixed() -> None:
    """Evidently at k = 3 (three training users).

    Novelty: u0 [3, 4] (6 dropped): -log2(1/3) = log2 3 each; u1 [2]: log2 3; u2 [1, 5]:
    (-log2(2/3) + log2 3) / 2 = log2 3 - 1/2; mean (3 log2 3 - 1/2) / 3. Personalization:
    every item once, sum c^2 = 6, n = 3, k = 3: 1 - (6 - 9) / (3 * 6) = 7/6, above 1
    because u1 and u2 have fewer than k items.
    """
    ev = _case(EVIDENTLY, "edge-mixed")["evidently"]["3"]
    assert ev["per_user"]["novelty"] == pytest.approx(
        {"u0": LOG2_3, "u1": LOG2_3, "u2": LOG2_3 - 0.5}, abs=1e-12)
    assert math.isclose(ev["report"]["novelty"], (3 * LOG2_3 - 0.5) / 3, rel_tol=1e-12)
    assert math.isclose(ev["report"]["personalization"], 7 / 6, rel_tol=1e-12)


def test_elliot_edge_mixed() -> None:
    """Elliot at k = 3, pop_ratio 0.8: lists of training items u0 [3, 4], u1 [2], u2 [1, 5].

    Short head: 0.8 * 6 = 4.8; item 1 (2) leaves 2.8, items 2, 3, 4 (1 each) leave -0.2:
    head {1, 2, 3, 4}, tail {5}. ARP: u0 1, u1 1, u2 (2 + 1) / 2 = 1.5; mean 3.5 / 3. APLT:
    0, 0, 1/2, mean 1/6; ACLT: 0, 0, 1, mean 1/3. Gini: N = 5 training items, five items
    recommended once: sum_j (2 (j + 1) - 6) / 5 = (-4 - 2 + 0 + 2 + 4) / 5 = 0, Elliot's
    value 1 - 0 = 1. SEntropy: weights 1/2, 1/2 (u0), 1 (u1), 1/2, 1/2 (u2) sum to 3, each
    item -log2(1/5): 3 log2 5 / 3 users = log2 5. ItemCoverage: 5 items.
    """
    el = _case(ELLIOT, "edge-mixed")["elliot"]["0.8"]["3"]
    assert el["ARP"]["per_user"] == pytest.approx({"u0": 1.0, "u1": 1.0, "u2": 1.5})
    assert math.isclose(el["ARP"]["mean"], 3.5 / 3, rel_tol=1e-12)
    assert math.isclose(el["APLT"]["mean"], 1 / 6, rel_tol=1e-12)
    assert math.isclose(el["ACLT"]["mean"], 1 / 3, rel_tol=1e-12)
    assert el["Gini"] == 1.0
    assert math.isclose(el["SEntropy"], LOG2_5, rel_tol=1e-12)
    assert el["ItemCoverage"] == 5.0


def test_recbole_edge_same_lists() -> None:
    """RecBole at k = 3: items 4, 5, 6 three times each, num_items = 6 + 1 ([PAD]) = 7.

    ItemCoverage 3 / 7. GiniIndex: counts [3, 3, 3] at places 5, 6, 7 of 7:
    ((10 - 8) 3 + (12 - 8) 3 + (14 - 8) 3) / 9 / 7 = 36 / 63. ShannonEntropy: p = 1/3 each,
    ln 3, divided by 3 items. AveragePopularity: items 4-6 have no training row: 0.
    TailPercentage (0.1): training counts 1: 2, 2: 2, 3: 1; max(int(0.3), 1) = 1 item, the
    least popular: {3}; no list holds it: 0.
    """
    rb = recbole_defs(cases_module().edge_cases()[1], 3, 0.1)
    assert math.isclose(rb["itemcoverage"], 3 / 7, rel_tol=1e-12)
    assert math.isclose(rb["giniindex"], 36 / 63, rel_tol=1e-12)
    assert math.isclose(rb["shannonentropy"], math.log(3) / 3, rel_tol=1e-12)
    assert rb["averagepopularity"][0] == 0.0
    assert rb["tailpercentage"][0] == 0.0


def _cos(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True)) / math.sqrt(
        sum(x * x for x in a) * sum(y * y for y in b))


def test_ms_recommenders_feature_similarity_by_hand() -> None:
    """beyond_findings' msr-features (features 1 (1, 0, .5), 2 (.5, 1, 0), 3 (0, 1, 1),
    4 (1, 1, -.5), 5 (-1, .25, 0)), item_feature_vector.

    u2's list [1, 4]: cos = (1 + 0 - .25) / (sqrt 1.25 * sqrt 2.25) = .75 / 1.67705 =
    .44721, diversity 1 - .44721 = .55279. u1 (train 1, 2) recommended 3: unexp = 1 -
    (cos(3, 1) + cos(3, 2)) / 2 = 1 - (.5 / 1.58114 + 1 / 1.58114) / 2 = 1 - .47434 =
    .52566. With item 5 missing from item_feature_df (MSR fills the pair with 0), u1's list
    [3, 4, 5] has one pair left: 1 - (cos(3, 4) + 0 + 0) / 3 = 1 - (.5 / (sqrt 2 * 1.5)) / 3.
    """
    f = {int(i): v for i, v in FEATS_FINDINGS.items()}
    stored = load_fixture(FINDINGS)["cases"]
    base = next(c for c in stored if c["name"] == "msr-features")["values"]["feat"]
    assert math.isclose(base["diversity"]["per_user"]["u2"], 1 - _cos(f[1], f[4]),
                        rel_tol=1e-12)
    assert math.isclose(_cos(f[1], f[4]), 0.75 / math.sqrt(1.25 * 2.25), rel_tol=1e-12)
    unexp_3 = 1 - (_cos(f[3], f[1]) + _cos(f[3], f[2])) / 2
    assert math.isclose(unexp_3, 1 - (0.5 + 1) / math.sqrt(2 * 1.25) / 2, rel_tol=1e-12)
    missing = next(c for c in stored if c["name"] == "msr-recommended-item-without-features")
    assert math.isclose(missing["values"]["feat"]["diversity"]["per_user"]["u1"],
                        1 - _cos(f[3], f[4]) / 3, rel_tol=1e-12)


def test_evidently_serendipity_by_hand() -> None:
    """beyond_findings' evidently-full-lists at k = 3: u1 trained on 1 and 2, its relevant
    top-3 items are 3 and 5. cos(3, 1) = .5 / 1.58114 = .31623, cos(3, 2) = 1 / 1.58114 =
    .63246 (mean .47434); cos(5, 1) = -1 / (1.03078 * 1.11803) = -.86772, cos(5, 2) = -.25 /
    1.15244 = -.21693 (mean -.54233). Evidently sums over the relevant items: 1 - (.47434 -
    .54233) = 1.06799, above 1. With the row (u1, 1) twice the means are over three rows:
    1 - ((2 * .31623 + .63246) / 3 + (2 * -.86772 - .21693) / 3) = 1.22915."""
    f = {int(i): v for i, v in FEATS_FINDINGS.items()}
    stored = load_fixture(FINDINGS)["cases"]
    full = next(c for c in stored if c["name"] == "evidently-full-lists")["values"]
    u1 = 1 - ((_cos(f[3], f[1]) + _cos(f[3], f[2])) / 2 + (_cos(f[5], f[1])
                                                          + _cos(f[5], f[2])) / 2)
    assert math.isclose(full["serendipity"]["per_user"]["u1"], u1, rel_tol=1e-9)
    assert math.isclose(u1, 1.06798, abs_tol=1e-5)
    dup = next(c for c in stored if c["name"] == "evidently-duplicate-training-row")["values"]
    u1_rows = 1 - ((2 * _cos(f[3], f[1]) + _cos(f[3], f[2])) / 3
                   + (2 * _cos(f[5], f[1]) + _cos(f[5], f[2])) / 3)
    assert math.isclose(dup["serendipity"]["per_user"]["u1"], u1_rows, rel_tol=1e-9)


def test_evidently_personalization_and_coverage_by_hand() -> None:
    """evidently-short-lists (k = 3: u1 [3, 4, 5], u2 [1], u3 [2, 5]): c_5 = 2, the others
    1: sum c^2 = 4 + 4 = 8, n = 3: 1 - (8 - 9) / (3 * 6) = 19/18. evidently-items-outside-
    train: top-3 items 1, 2, 3, 4, 5, 7, 8; the training items are 1..6; in both: 1..5:
    5 / 6."""
    stored = load_fixture(FINDINGS)["cases"]
    short = next(c for c in stored if c["name"] == "evidently-short-lists")["values"]
    assert math.isclose(short["report"]["personalization"], 19 / 18, rel_tol=1e-12)
    outside = next(c for c in stored if c["name"] == "evidently-items-outside-train")
    assert math.isclose(outside["values"]["report"]["coverage"], 5 / 6, rel_tol=1e-12)
