"""Conformance of ``convention="evidently"`` with Evidently 0.7.23, from stored Evidently values.

Evidently needs pandas < 3 and the main test environment has pandas 3, so here the values
come from ``fixtures/evidently.json.gz`` (``test_conv_evidently_live.py`` runs Evidently live
in CI's pandas-2 environment), written by ``fixtures/make_evidently.py`` (its header records
the Evidently, Python, numpy and pandas versions and the command). The script ran the Report
API on 210 seeded random cases (up to 8 users, lists up to 12 items with distinct scores, up
to 8 truth items graded 1..5, users without recommendations, users with recommendations and
no truth, lists shorter than k, 1-3 cutoffs in 1..10) and on hand-made cases. Evidently's
input is one frame of the recommended rows ``user, item, score, target`` (target = the truth
grade, 0 when the item is not in the truth), ``Recsys(recommendations_type="score")``; the
fixture stores the inputs, the Report's value table for the whole frame, and each user's
values (the Report on that user's rows alone). Here receval evaluates the same recs and the
*whole* truth with ``convention="evidently"`` and nothing else.

Definitions matched (``evidently.metrics``; ``legacy/metrics/recsys/``):

* ``PrecisionTopK(k)``: hits within k / min(k, rows of the user) == ``precision@k``
  (``denominator='list_length'``);
* ``RecallTopK(k)``: hits within k / relevant rows supplied == ``recall@k`` with
  ``truth_scope='recommended'`` (relevant items that were not recommended are not in the
  frame, so they do not count);
* ``MAP(k)``: sum over j <= k of P@j times the target of the row at rank j, over the relevant
  rows supplied == ``ap(denominator=relevant)@k`` (recommended scope), where every list is at
  least k long and the frame is sorted by rank (see the differences);
* ``NDCG(k)``: the target as linear gain, 1/log2(rank + 1), ideal = the supplied targets in
  decreasing order == ``ndcg@k`` (linear gain, recommended scope);
* ``HitRate(k)`` == ``hit_rate@k``; ``MRR(k)`` == ``mrr@k``.

Settings of the preset: ranks are ``groupby.rank`` of the score (distinct scores here); the
target is relevant when > 0 (grade as gain for NDCG): receval's default threshold; users
without a positive target are dropped (``no_feedback_users=False``): ``no_relevant='skip'``
after ``truth_scope='recommended'``, and users with recommendations and no truth are
ignored; truth users without recommendations are not in the frame: ``missing_recs='skip'``;
means are over the users kept.

The Report's table rows for NDCG and MRR are labelled one place off (the row labelled k
holds the value at k - 1); these tests read the value at k in the row labelled k + 1.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import receval as rv
from receval.exceptions import TiesAtCutoffWarning, UnknownMetricError
from tests.conformance._data import (
    assert_close,
    close,
    fixture_case,
    fixture_cases,
    load_fixture,
    undefined_warnings_ignored,
)

pytestmark = pytest.mark.conformance

FIXTURE = Path(__file__).parent / "fixtures" / "evidently.json.gz"
NAMES = {"PrecisionTopK": "precision", "RecallTopK": "recall", "MAP": "ap", "NDCG": "ndcg",
         "HitRate": "hit_rate", "MRR": "mrr"}
SHIFTED = {"NDCG", "MRR"}


def _fixture() -> dict[str, Any]:
    return load_fixture(FIXTURE)


def _cases(prefix: str) -> list[str]:
    return fixture_cases(FIXTURE, prefix)


def _case(name: str) -> dict[str, Any]:
    return fixture_case(FIXTURE, name)


def _frames(case: dict[str, Any]) -> tuple[pd.DataFrame, pd.DataFrame]:
    recs = pd.DataFrame(case["recs"], columns=["user", "item", "score"])
    truth = pd.DataFrame(case["truth"], columns=["user", "item", "rating"])
    return recs, truth


def _row(case: dict[str, Any], name: str, k: int, label: int) -> float | None:
    """The Report table's value in the row labelled ``label``, for the metric at ``k``."""
    value: float | None = case["tables"][f"{name}@{k}"].get(str(label))
    return value


def _cell(case: dict[str, Any], name: str, k: int, label: int) -> float:
    """Like ``_row``, for a row that exists and holds a number."""
    value = _row(case, name, k, label)
    assert value is not None, f"{case['name']}: {name}@{k} has no number in row {label}"
    return value


def _library(case: dict[str, Any], name: str, k: int) -> float:
    """Evidently's whole-frame value at k (NDCG and MRR: the row labelled k + 1)."""
    return _cell(case, name, k, k + 1 if name in SHIFTED else k)


def _evaluate(case: dict[str, Any], specs: list[str], **options: Any) -> rv.EvaluationResult:
    recs, truth = _frames(case)
    with undefined_warnings_ignored(), warnings.catch_warnings():
        warnings.simplefilter("ignore", TiesAtCutoffWarning)  # only in the tie cases
        return rv.evaluate(recs, truth, specs, convention="evidently", **options)


def _short(case: dict[str, Any], k: int) -> bool:
    """Whether a user Evidently measures has a list shorter than k."""
    return any(u["length"] < k for u in case["users"].values())


def _check(case: dict[str, Any], names: tuple[str, ...] = tuple(NAMES),
           ndcg: str = "ndcg", **options: Any) -> rv.EvaluationResult:
    """Every metric at every k: per user (1e-12) and the whole frame's value.

    MAP is compared only where every list is at least k long (and the frame is sorted by
    rank, as the script writes it unless a case says otherwise).
    """
    pairs = [(name, k) for k in case["ks"] for name in names]
    specs = [f"{ndcg if name == 'NDCG' else NAMES[name]}@{k}" for name, k in pairs]
    ev = _evaluate(case, specs, **options)
    for (name, k), spec, label in zip(pairs, specs, ev.labels, strict=True):
        ours = ev.per_user[label]
        assert set(ours.dropna().index) == set(case["users"]), f"{case['name']} {spec}: users"
        for user, record in case["users"].items():
            if name == "MAP" and record["length"] < k:
                continue
            assert_close(ours[user], record["values"][f"{name}@{k}"],
                         f"{case['name']} {spec}, user {user}")
        if name == "MAP" and _short(case, k):
            continue
        assert close(ev[spec], _library(case, name, k)), \
            f"{case['name']} {spec}: {ev[spec]} != Evidently {_library(case, name, k)}"
    return ev


def test_fixture_header() -> None:
    """The fixture says which Evidently produced it and how."""
    header = _fixture()["header"]
    assert header["library"] == "evidently"
    assert header["version"] == "0.7.23"
    assert header["pandas"].startswith("2.")
    assert "make_evidently.py" in header["command"]
    assert {"python", "numpy", "seed"} <= set(header)
    assert len(_cases("random-")) >= 200


@pytest.mark.parametrize("name", _cases("random-"))
def test_random_cases_match_evidently(name: str) -> None:
    """PrecisionTopK, RecallTopK, MAP, NDCG, HitRate and MRR at every k of the case."""
    _check(_case(name))


def test_edge_short_list_and_users_left_out() -> None:
    """u2's list (2 rows) is shorter than k = 3, 4: precision divides by 2; u3 (truth, no
    recommendations) is not in the frame; u4 (recommendations, no truth) and u5 (only
    non-relevant recommended rows; its relevant i8 was not recommended) have no positive
    target and are dropped; u1's relevant i9 was not recommended and does not count."""
    case = _case("edge-short-list")
    ev = _check(case)
    assert list(ev.users.evaluated) == ["u1", "u2"]
    assert case["users"]["u2"]["values"]["PrecisionTopK@3"] == 0.5  # 1 / min(3, 2)
    ev = _evaluate(case, ["precision@3"])
    assert ev.per_user.loc["u2", ev.labels[0]] == 0.5


def test_edge_graded_target_is_the_ndcg_gain() -> None:
    """Graded targets: NDCG's gain is the grade (linear), the other metrics read target > 0."""
    _check(_case("edge-graded"))


def test_edge_threshold_min_rel_score() -> None:
    """Evidently's ``min_rel_score=3`` makes the target ``target >= 3`` (0/1) for every metric,
    NDCG included: receval's ``relevance_threshold=3`` with binary nDCG gain. (This case sets
    a library option, so receval gets the matching options besides the convention.)"""
    case = _case("edge-threshold")
    assert case["min_rel_score"] == 3
    ev = _check(case, ndcg="ndcg(gain=binary)", relevance_threshold=3)
    assert list(ev.users.evaluated) == ["a", "b"]  # c has grades 2 and 1 only


def test_difference_ties_share_a_rank() -> None:
    """Difference (preset): Evidently ranks scores with ``groupby.rank`` (average) truncated
    to an integer, so tied items share a rank and a top k can hold more than k items.

    a: x1 (3.0, not relevant), then x2, x3, x4 tied at 2.0 (all relevant), x5: the three tied
    items get rank int(3.0) = 3, so Evidently's top 2 holds x1 only (P@2 = 0) and its top 3
    holds four items (P@3 = 3 / 3 = 1); receval ranks each item on its own place (input
    order for ties): P@2 = 1/2, P@3 = 2/3.
    """
    case = _case("edge-ties")
    assert _library(case, "PrecisionTopK", 2) == 0.0
    assert _library(case, "PrecisionTopK", 3) == 1.0
    ev = _evaluate(case, ["precision@2", "precision@3"])
    assert ev["precision@2"] == 0.5
    assert ev["precision@3"] == pytest.approx(2 / 3)
    # the probe's tie (u1: i2, i3 at 0.8, both rank 2) puts three items in u1's top 2
    probe = _case("edge-probe")
    assert _library(probe, "PrecisionTopK", 2) == 0.75  # u1: 2 / 2, u2: 1 / 2
    assert _evaluate(probe, ["precision@2"])["precision@2"] == 0.5


def test_difference_fbeta_of_the_means() -> None:
    """Difference (preset): ``FBetaTopK`` is the F of the averaged precision and recall, not
    a mean of per-user F; the convention does not offer F.

    edge-short-list: at every k Evidently's value is 2PR / (P + R) of receval's mean P and
    mean R. At k = 2, u1 has P = 1/2, R = 1/2 and u2 P = 1/2, R = 1: F(mean P, mean R) =
    F(1/2, 3/4) = 0.6, the mean of the per-user F is (1/2 + 2/3) / 2.
    """
    case = _case("edge-short-list")
    for k in case["ks"]:
        ev = _evaluate(case, [f"precision@{k}", f"recall@{k}"])
        p, r = ev[f"precision@{k}"], ev[f"recall@{k}"]
        assert close(_library(case, "FBetaTopK", k), 2 * p * r / (p + r))
    k = 2  # u1: P 1/2, R 1/2; u2: P 1/2, R 1 -> per-user F 1/2 and 2/3
    per_user_f = (0.5 + 2 / 3) / 2
    assert close(_library(case, "FBetaTopK", k), 0.6)
    assert not close(_library(case, "FBetaTopK", k), per_user_f)
    recs, truth = _frames(case)
    with pytest.raises(UnknownMetricError):
        rv.evaluate(recs, truth, f"f1@{k}", convention="evidently")


def test_difference_map_short_lists() -> None:
    """Difference (preset): at each j <= k Evidently's MAP multiplies P@j by the target of the
    last row ranked <= j, so past the end of a list shorter than k it counts the last item
    again (MAP can exceed 1); receval computes the AP it documents.

    edge-short-list, u2 = [i5 (not relevant), i6 (relevant)], k = 3: Evidently adds P@3 =
    1/2 a second time, AP = (1/2 + 1/2) / 1 = 1, receval 1/2. The probe case reaches 1.17.
    Over the random cases with a list shorter than k, Evidently's MAP is never below
    receval's and is above it in most.
    """
    case = _case("edge-short-list")
    assert case["users"]["u2"]["length"] == 2
    ev = _evaluate(case, ["ap@3"])
    assert ev.per_user.loc["u2", ev.labels[0]] == 0.5
    u1 = ev.per_user[ev.labels[0]]["u1"]
    assert close(_library(case, "MAP", 3), (u1 + 1.0) / 2)
    assert _library(_case("edge-probe"), "MAP", 3) > 1.0
    above = same = 0
    for name in _cases("random-"):
        random_case = _case(name)
        for k in random_case["ks"]:
            if not _short(random_case, k):
                continue
            ours = _evaluate(random_case, [f"ap@{k}"])[f"ap@{k}"]
            theirs = _library(random_case, "MAP", k)
            assert theirs >= ours - 1e-12
            above += theirs > ours + 1e-12
            same += close(theirs, ours)
    assert above > same > 0


def test_difference_map_row_order() -> None:
    """Difference (preset): the "last row ranked <= j" is taken in frame order, so Evidently's
    MAP depends on the order of the rows. The same rows as edge-short-list's u1, in the order
    i3, i1, i4, i2: at j = 3 and 4 the last row is i2 (not relevant) instead of i3 and i4,
    MAP@3 = (1 + 0 + 0) / 2 = 0.5 instead of (1 + 2/3) / 2; the other metrics agree."""
    case = _case("edge-row-order")
    _check(case, tuple(n for n in NAMES if n != "MAP"))
    assert _library(case, "MAP", 3) == 0.5
    assert case["users"]["u1"]["values"]["MAP@3"] == 0.5
    assert _evaluate(case, ["ap@3"])["ap@3"] == pytest.approx((1 + 2 / 3) / 2)
    # u1's rows sorted by rank (edge-short-list) give the AP receval computes
    sorted_u1 = _case("edge-short-list")["users"]["u1"]["values"]["MAP@3"]
    assert sorted_u1 == pytest.approx((1 + 2 / 3) / 2)


def test_difference_report_rows_one_place_off() -> None:
    """Difference (preset): the Report API builds its table as ``rank = index + 1``, right for
    the 0-based precision/recall/MAP/hit-rate series and one off for NDCG and MRR, whose
    series are already indexed 1..k: the row labelled k holds the value at k - 1 (and there
    is no row labelled 1). receval's ``ndcg@k`` and ``mrr@k`` are at k."""
    case = _case("edge-short-list")
    ev = _evaluate(case, ["ndcg@1", "ndcg@2", "mrr@1", "mrr@2"])
    for name, spec in (("NDCG", "ndcg"), ("MRR", "mrr")):
        assert _row(case, name, 2, 1) is None
        assert close(_cell(case, name, 2, 2), ev[f"{spec}@1"])  # labelled 2, value at 1
        assert not close(_cell(case, name, 2, 2), ev[f"{spec}@2"])
        assert close(_cell(case, name, 2, 3), ev[f"{spec}@2"])
    # precision's row labelled k is the value at k
    precision = _evaluate(case, ["precision@2"])["precision@2"]
    assert close(_cell(case, "PrecisionTopK", 2, 2), precision)
