"""The ``ms_recommenders`` and ``evidently`` conventions on hand-made cases that decide how
they read item features, items without features, lists shorter than k, items outside train
and repeated training rows (issue 22), against the values MS Recommenders 1.2.1 and
Evidently 0.7.23 produced (``fixtures/beyond_findings.json.gz``, written by
``fixtures/make_beyond_findings.py``, which ``test_conv_beyond_live.py`` runs again under
pandas 2). Each behaviour receval does not copy has its test here, with the reason.
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import receval as rv
from receval.exceptions import DataWarning, UndefinedMetricWarning
from tests.conformance._data import load_fixture

pytestmark = pytest.mark.conformance

FINDINGS = Path(__file__).parent / "fixtures" / "beyond_findings.json.gz"
TOL = 1e-9
MSR_METRICS = ("diversity", "serendipity", "unexpectedness")


def case_of(name: str) -> dict[str, Any]:
    """One stored case, by name."""
    return next(c for c in load_fixture(FINDINGS)["cases"] if c["name"] == name)


def names_of(prefix: str) -> list[str]:
    """The stored cases whose name starts with ``prefix``."""
    return [c["name"] for c in load_fixture(FINDINGS)["cases"] if c["name"].startswith(prefix)]


def evaluate(case: dict[str, Any], metrics: list[str], *, features: bool = True,
             **kwargs: Any) -> rv.EvaluationResult:
    """The case under its library's convention: recs in rank order (scores k, k - 1, ...),
    truth, train and the features as a wide table."""
    recs = pd.DataFrame([(u, i, float(len(items) - r)) for u, items in case["recs"].items()
                         for r, i in enumerate(items)], columns=["user", "item", "score"])
    feats = pd.DataFrame([[int(i), *v] for i, v in case["features"].items()],
                         columns=["item", "f0", "f1", "f2"])
    return rv.evaluate(recs, pd.DataFrame(case["truth"], columns=["user", "item", "rating"]),
                       metrics, convention=case["library"],
                       train=pd.DataFrame(case["train"], columns=["user", "item"]),
                       item_features=feats if features else None, **kwargs)


def close(a: float, b: float | str | None) -> bool:
    if b is None:
        return math.isnan(a)
    return math.isclose(a, float(b), rel_tol=TOL, abs_tol=TOL)


def same(ev: rv.EvaluationResult, label: str, theirs: dict[str, Any], users: set[str] | None,
         what: str) -> None:
    """receval's per-user values (and mean) equal the library's, over ``users`` if given."""
    per_user = {u: v for u, v in theirs["per_user"].items() if users is None or u in users}
    column = ev.per_user[label].dropna()
    assert set(column.index) == set(per_user), f"{what}: {sorted(column.index)}"
    for user, value in per_user.items():
        assert close(float(column[user]), value), f"{what} {user}: {column[user]} != {value}"
    mean = theirs["mean"] if users is None else sum(per_user.values()) / len(per_user)
    assert close(ev[label], mean), f"{what}: mean {ev[label]} != {mean}"


# -- MS Recommenders: features when given, co-occurrence without ------------------------------
@pytest.mark.parametrize("name", ["msr-features", "msr-recommended-item-without-features",
                                  "msr-training-item-without-features"])
@pytest.mark.parametrize("features", [True, False])
def test_msr_similarity_follows_the_inputs(name: str, features: bool) -> None:
    """With item_features= the convention is item_sim_measure='item_feature_vector' (an item
    without a feature row has similarity 0: item_features_missing='zero'), without it
    'item_cooccurrence_count'. Serendipity over the users with truth (u3 has none: MS
    Recommenders scores it 0, a listed difference)."""
    case = case_of(name)
    theirs = case["values"]["feat" if features else "cooc"]
    k = case["k"]
    ev = evaluate(case, [f"{m}@{k}" for m in MSR_METRICS], features=features)
    judged = {u for u, _, _ in case["truth"]}
    for metric, label in zip(MSR_METRICS, ev.labels, strict=True):
        users = judged if metric == "serendipity" else None
        same(ev, label, theirs[metric], users, f"{name} {metric} (features: {features})")


def test_msr_items_without_features_are_counted() -> None:
    """The two cases' items without features (5 recommended, 2 in histories) are recorded."""
    for name in ("msr-recommended-item-without-features", "msr-training-item-without-features"):
        case = case_of(name)
        ev = evaluate(case, [f"unexpectedness@{case['k']}"])
        assert ev.settings["beyond"]["item_features_missing"] == "zero"
        assert ev.settings["beyond"]["items_without_features"] == 1


def test_difference_msr_duplicate_training_rows() -> None:
    """Difference (ms_recommenders): MS Recommenders counts training rows: with (u1, 1)
    twice, u1's feature unexpectedness is a mean over 3 history rows (0.7991 -> 0.8776) and
    the co-occurrence counts change (u2's diversity 0.2929 -> 0.4226); receval counts a
    (user, item) pair once, so both cases give the values without the repeated row."""
    base, dup = case_of("msr-features"), case_of("msr-duplicate-training-row")
    k = base["k"]
    theirs_base, theirs_dup = base["values"], dup["values"]
    u1 = theirs_dup["feat"]["unexpectedness"]["per_user"]["u1"]
    assert not close(u1, theirs_base["feat"]["unexpectedness"]["per_user"]["u1"])
    u2 = theirs_dup["cooc"]["diversity"]["per_user"]["u2"]
    assert not close(u2, theirs_base["cooc"]["diversity"]["per_user"]["u2"])
    with_dup = evaluate(dup, [f"unexpectedness@{k}"])
    same(with_dup, with_dup.labels[0], theirs_base["feat"]["unexpectedness"], None,
         "unexpectedness, (u1, 1) twice")
    cooc = evaluate(dup, [f"diversity@{k}"], features=False)
    same(cooc, cooc.labels[0], theirs_base["cooc"]["diversity"], None,
         "co-occurrence diversity, (u1, 1) twice")


def test_difference_msr_zero_vector() -> None:
    """Difference (ms_recommenders): a zero feature vector anywhere in item_feature_df (item
    7, in no list) raises ZeroDivisionError in item_feature_vector (every pair's cosine is
    computed); receval's cosine of a zero vector is 0, so item 7 changes nothing."""
    case = case_of("msr-zero-vector")
    assert case["values"]["feat"] == {"error": "ZeroDivisionError"}
    ev = evaluate(case, [f"diversity@{case['k']}"])
    same(ev, ev.labels[0], case_of("msr-features")["values"]["feat"]["diversity"], None,
         "diversity with a zero vector on item 7")


# -- Evidently: summed serendipity, k_full personalization, coverage over train ----------------
EVIDENTLY_CASES = ["evidently-full-lists", "evidently-short-lists",
                   "evidently-items-outside-train", "evidently-close-relevant-items"]


@pytest.mark.parametrize("name", EVIDENTLY_CASES)
def test_evidently_report(name: str) -> None:
    """Serendipity (per user and mean), Personalization and the PopularityBiasMetric
    coverage of each case equal Evidently's Report."""
    case = case_of(name)
    k = case["k"]
    names = [f"serendipity@{k}", f"personalization@{k}", f"catalog_coverage@{k}"]
    short = any(len(items) < k for items in case["recs"].values())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore" if short else "error", DataWarning)
        ev = evaluate(case, names)
    report = case["values"]["report"]
    same(ev, ev.labels[0], case["values"]["serendipity"], None, f"{name} serendipity")
    assert close(ev[ev.labels[0]], report["serendipity"])
    assert close(ev[ev.labels[1]], report["personalization"]), name
    assert close(ev[ev.labels[2]], report["coverage"]), name


def test_evidently_min_rel_score_is_the_relevance_threshold() -> None:
    """The legacy SerendipityMetric(min_rel_score=4) is relevant = target >= 4: the
    convention with relevance_threshold=4 (u1's items 3 and 5, rated 4 and 5; u2's item 4 is
    rated 3 and u3's item 2 rated 1, so only u1 is left)."""
    case = case_of("evidently-min-rel-score")
    ev = evaluate(case, [f"serendipity@{case['k']}"], relevance_threshold=4)
    same(ev, ev.labels[0], case["values"]["serendipity"], None, "min_rel_score=4")


def test_difference_evidently_duplicate_training_rows() -> None:
    """Difference (evidently): the history mean counts training rows, (u1, 1) twice moves
    u1 from 1.0680 to 1.2292; receval counts the pair once and gives 1.0680."""
    dup = case_of("evidently-duplicate-training-row")
    base = case_of("evidently-full-lists")["values"]["serendipity"]
    assert not close(dup["values"]["serendipity"]["per_user"]["u1"], base["per_user"]["u1"])
    ev = evaluate(dup, [f"serendipity@{dup['k']}"])
    same(ev, ev.labels[0], base, None, "serendipity, (u1, 1) twice")


@pytest.mark.parametrize(("name", "theirs"), [("evidently-one-full-list", None),
                                              ("evidently-one-short-list", "inf")])
def test_difference_evidently_personalization_of_one_list(name: str, theirs: Any) -> None:
    """Difference (evidently): one list has no pair: Evidently divides by k U (U - 1) = 0,
    NaN for a list of k items, infinite for a shorter one; receval gives NaN with an
    UndefinedMetricWarning."""
    case = case_of(name)
    assert case["values"]["report"]["personalization"] == theirs
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        with pytest.warns(UndefinedMetricWarning, match="one"):
            ev = evaluate(case, [f"personalization@{case['k']}"])
    assert math.isnan(ev[ev.labels[0]])
