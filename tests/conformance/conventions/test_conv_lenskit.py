"""Conformance of ``convention="lenskit"`` with LensKit 2025.8.1, from stored LensKit values.

LensKit needs pandas 2 and the main test environment has pandas 3, so here the values come
from ``fixtures/lenskit.json.gz`` (``test_conv_lenskit_live.py`` runs LensKit live in CI's
pandas-2 environment), written by ``fixtures/make_lenskit.py`` (its header records the
LensKit, Python, numpy and pandas versions and the command). The script ran LensKit's
``RunAnalysis`` on 220 seeded random cases (up to 8 users, lists up to 12 items with distinct
scores, up to 8 truth items graded 1..5, users without recommendations, users with
recommendations and no truth, lists shorter than k, 1-3 cutoffs in 1..10 and no cutoff) and
on hand-made cases; each case stores its inputs, LensKit's per-user values
(``list_metrics(fill_missing=False)``) and means (``list_summary()["mean"]``). Here receval
evaluates the same inputs with ``convention="lenskit"`` and nothing else.

Definitions matched (``lenskit.metrics``; ``n=k`` truncates the list, no ``n`` reads all):

* ``Precision(n=k)``: hits / length of the truncated list == ``precision@k``
  (``denominator='list_length'``);
* ``Recall(n=k)``: hits / min(|truth|, k) == ``recall@k`` (``min_k_relevant``);
  ``Recall()``: hits / |truth| == ``recall``;
* ``AveragePrecision(n=k)`` (``lenskit.metrics.ranking``): sum of P@i at the hits / min(|truth|,
  length of the truncated list) == ``ap@k`` (``min_relevant_list``);
* ``NDCG(n=k)``: binary gain, weight 1/log2(max(i, 2)) (``LogRankWeight``), ideal
  min(|truth|, k) ones == ``ndcg@k`` (``gain='binary'``, ``discount='breese'``);
  ``NDCG(n=k, gain='rating')``: the rating as gain, ideal the k largest truth ratings ==
  ``ndcg(gain=linear)@k``; ``DCG`` likewise == ``dcg@k`` / ``dcg(gain=linear)@k``;
* ``Hit(n=k)`` == ``hit_rate@k``; ``RecipRank(n=k)`` == ``mrr@k``;
* ``RMSE()`` and ``MAE()`` per list, averaged over the lists == ``rmse`` / ``mae``
  (``aggregation='macro'``); every truth rating has a prediction (``missing_scores`` and
  ``missing_truth`` are ``"error"`` in LensKit).

Settings of the preset: ``RunAnalysis.measure`` iterates over the recommendation lists, so
truth users without recommendations are not measured (``missing_recs='skip'``); a list
without truth gets NaN, which ``list_summary`` fills with the metric default 0
(``recs_without_truth='zero'``); every truth row is relevant, grade 0 included
(``relevance_threshold=0.0``); LensKit reads the list order, which the script derives from
the scores by a stable sort (ties keep the input order: receval's ``ties='stable'``).
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import receval as rv
from receval.exceptions import TiesAtCutoffWarning
from tests.conformance._data import (
    assert_close,
    close,
    fixture_case,
    fixture_cases,
    load_fixture,
    undefined_warnings_ignored,
)

pytestmark = pytest.mark.conformance

FIXTURE = Path(__file__).parent / "fixtures" / "lenskit.json.gz"
NAMES = {"Precision": "precision", "Recall": "recall", "NDCG": "ndcg", "DCG": "dcg",
         "Hit": "hit_rate", "RecipRank": "mrr", "AveragePrecision": "ap"}
GROUPS = ("ranking", "ap", "dcg_rating")


def _fixture() -> dict[str, Any]:
    return load_fixture(FIXTURE)


def _cases(prefix: str) -> list[str]:
    return fixture_cases(FIXTURE, prefix)


def _case(name: str) -> dict[str, Any]:
    return fixture_case(FIXTURE, name)


def _spec(label: str) -> str:
    """receval's metric for a fixture label: ``NDCG@5[rating]`` -> ``ndcg(gain=linear)@5``."""
    base, _, variant = label.partition("[")
    name, _, k = base.partition("@")
    return NAMES[name] + ("(gain=linear)" if variant else "") + (f"@{k}" if k else "")


def _frames(case: dict[str, Any]) -> tuple[pd.DataFrame, pd.DataFrame]:
    recs = pd.DataFrame(case["recs"], columns=["user", "item", "score"])
    truth = pd.DataFrame(case["truth"], columns=["user", "item", "rating"])
    return recs, truth


def _evaluate(recs: pd.DataFrame, truth: pd.DataFrame, specs: list[str]) -> rv.EvaluationResult:
    with undefined_warnings_ignored(), warnings.catch_warnings():
        warnings.simplefilter("ignore", TiesAtCutoffWarning)  # hand-made ties, input order
        return rv.evaluate(recs, truth, specs, convention="lenskit")


def _filled(value: float | None) -> float:
    """list_summary's reading of a per-list value: NaN (null) is the default 0."""
    return 0.0 if value is None else value


def _check(case: dict[str, Any], groups: tuple[str, ...] = GROUPS) -> rv.EvaluationResult:
    """Every metric of the groups, in one evaluation: per user (1e-12) and the mean."""
    recs, truth = _frames(case)
    labels = [(group, label) for group in groups for label in case[group]]
    ev = _evaluate(recs, truth, [_spec(label) for _, label in labels])
    recs_users = set(recs["user"])
    for (group, label), column in zip(labels, ev.labels, strict=True):
        ours = ev.per_user[column]
        theirs = case[group][label]["per_user"]
        for user, value in theirs.items():
            assert_close(ours[user], _filled(value), f"{case['name']} {label}, user {user}")
        scored = set(ours.dropna().index)
        assert scored == recs_users, f"{case['name']} {label}: users {scored} != {recs_users}"
        if case.get(f"{group}_users", "all") == "all":
            assert set(theirs) == recs_users  # RunAnalysis measures every list
            mean = case[group][label]["mean"]
        else:
            # LensKit raised for the users without truth and measured the others alone; the
            # convention scores those users 0, as list_summary does for a NaN
            skipped = recs_users - set(theirs)
            assert skipped == recs_users - set(truth["user"])
            assert all(ours[u] == 0.0 for u in skipped)
            mean = sum(_filled(v) for v in theirs.values()) / len(recs_users)
        assert close(ev[_spec(label)], mean), \
            f"{case['name']} {label}: mean {ev[_spec(label)]} != LensKit {mean}"
    return ev


def _check_ratings(case: dict[str, Any]) -> None:
    preds = pd.DataFrame(case["ratings"]["recs"], columns=["user", "item", "score"])
    _, truth = _frames(case)
    ev = _evaluate(preds, truth, ["rmse", "mae"])
    for label, spec, column in zip(("RMSE", "MAE"), ("rmse", "mae"), ev.labels, strict=True):
        theirs = case["ratings"]["values"][label]
        assert set(ev.per_user[column].dropna().index) == set(theirs["per_user"])
        for user, value in theirs["per_user"].items():
            assert_close(ev.per_user[column][user], value, f"{case['name']} {label}, user {user}")
        assert close(ev[spec], theirs["mean"]), f"{case['name']} {label} mean"


def test_fixture_header() -> None:
    """The fixture says which LensKit produced it and how."""
    header = _fixture()["header"]
    assert header["library"] == "lenskit"
    assert header["version"] == "2025.8.1"
    assert "make_lenskit.py" in header["command"]
    assert {"python", "numpy", "pandas", "seed"} <= set(header)
    assert len(_cases("random-")) >= 200


@pytest.mark.parametrize("name", _cases("random-"))
def test_random_cases_match_lenskit(name: str) -> None:
    """Precision, Recall, AP, NDCG, DCG (binary and rating gain), Hit and RecipRank at every
    k of the case and without a cutoff, then RMSE and MAE, per user and mean."""
    case = _case(name)
    _check(case)
    _check_ratings(case)


def test_edge_probe_tie_short_list_missing_user() -> None:
    """u1 has a tie (i2, i3 at 0.8), kept in input order; u2's list (2) is shorter than k=3,
    so Precision@3 is 1/2; u3 has truth and no recommendations and is not measured.

    u2's only relevant item is at rank 2, which weighs as much as rank 1 (1/log2(max(2, 2))):
    NDCG@3 is 1.
    """
    case = _case("edge-probe")
    ev = _check(case)
    _check_ratings(case)
    assert "u3" not in set(ev.per_user.dropna(how="all").index)
    recs, truth = _frames(case)
    ev = _evaluate(recs, truth, ["precision@3", "ndcg@3"])
    assert ev.per_user.loc["u2"].tolist() == [0.5, 1.0]


def test_edge_ties_follow_input_order() -> None:
    """Tied scores: LensKit reads its list in the order given (here the input order after a
    stable sort by score), receval keeps the input order of a tie (``ties='stable'``)."""
    case = _case("edge-ties-input-order")
    _check(case)
    _check_ratings(case)


def test_edge_grade_zero_is_relevant() -> None:
    """A truth row with grade 0 is still relevant in LensKit (every truth row is): the preset's
    ``relevance_threshold=0.0``; with ``gain='rating'`` its gain is 0."""
    case = _case("edge-grade-zero")
    _check(case)
    assert case["ranking"]["Hit@1"]["per_user"]["a"] == 1.0  # x1, grade 0, at rank 1
    _check_ratings(case)


def test_edge_rank_two_and_no_hits() -> None:
    """The clipped discount (rank 2 weighs 1) and a long list without a hit (all zero)."""
    for name in ("edge-rank-two", "edge-no-hits"):
        case = _case(name)
        _check(case)
        _check_ratings(case)
    assert _case("edge-rank-two")["ranking"]["NDCG@2"]["per_user"]["a"] == 1.0


def test_edge_recs_without_truth_scored_zero() -> None:
    """u4 has recommendations and no truth: LensKit's per-list value is NaN (Precision 0),
    which ``list_summary`` fills with 0, as the convention's ``recs_without_truth='zero'``."""
    case = _case("edge-recs-without-truth")
    ev = _check(case)
    assert case["ranking"]["Recall@3"]["per_user"]["u4"] is None
    assert ev.per_user.loc["u4"].eq(0.0).all()


def test_difference_average_precision_raises_for_recs_without_truth() -> None:
    """Difference (preset): LensKit's AveragePrecision divides by min(|truth|, list length)
    in Python floats, so a user with recommendations and no truth raises ZeroDivisionError
    and stops ``RunAnalysis.measure``; receval scores that user 0, as ``list_summary`` does
    with the NaN the other metrics give.

    The script recorded the error and measured AP again without that user.
    """
    case = _case("edge-recs-without-truth")
    assert case["ap_error"] == "ZeroDivisionError: float division by zero"
    assert case["ap_users"] == "with_truth"
    assert "u4" not in case["ap"]["AveragePrecision@3"]["per_user"]
    recs, truth = _frames(case)
    ev = _evaluate(recs, truth, ["ap@3"])
    assert ev.per_user.loc["u4", ev.labels[0]] == 0.0
    assert math.isfinite(ev["ap@3"])
    random_errors = [_case(n)["ap_error"] for n in _cases("random-")]
    with_error = [e for e in random_errors if e is not None]
    assert with_error
    assert set(with_error) == {"ZeroDivisionError: float division by zero"}


def test_difference_global_metrics_nan() -> None:
    """Difference (preset): ``global_metrics()`` averages with ``np.mean``, so one list
    without truth (NaN) makes Recall, NDCG, Hit and RecipRank NaN, although its docstring
    says NaN is ignored; the convention follows ``list_summary()`` (NaN filled with 0).
    """
    case = _case("edge-recs-without-truth")
    recs, truth = _frames(case)
    ev = _evaluate(recs, truth, ["recall@3", "ndcg@3", "hit_rate@3", "mrr@3", "precision@3"])
    for label, spec in (("Recall@3", "recall@3"), ("NDCG@3", "ndcg@3"), ("Hit@3", "hit_rate@3"),
                        ("RecipRank@3", "mrr@3")):
        recorded = case["ranking"][label]
        assert recorded["global"] is None  # NaN
        assert math.isfinite(ev[spec])
        assert close(ev[spec], recorded["mean"])
    # Precision is 0 (not NaN) for the list without truth: there the two summaries agree
    assert close(case["ranking"]["Precision@3"]["global"], ev["precision@3"])


def test_difference_graded_dcg_raises_for_recs_without_truth() -> None:
    """Difference (preset): ``DCG(gain='rating')`` raises ``KeyError`` for a user with
    recommendations and no truth (the empty truth list has no rating field; NDCG returns NaN
    first), which stops ``RunAnalysis.measure``; receval scores that user 0."""
    case = _case("edge-recs-without-truth")
    assert case["dcg_rating_error"] == "KeyError: 'test items have no field rating'"
    recs, truth = _frames(case)
    ev = _evaluate(recs, truth, ["dcg(gain=linear)@3"])
    assert ev.per_user.loc["u4", ev.labels[0]] == 0.0


def test_rating_user_without_predictions_is_skipped() -> None:
    """u2 has a truth rating and no prediction list: LensKit measures u1 only (RMSE, MAE are
    u1's values); the preset's missing_recs='skip' leaves u2 out of the rating metrics too."""
    case = _case("edge-rating-user-without-predictions")
    assert set(case["ratings"]["values"]["RMSE"]["per_user"]) == {"u1"}
    _check_ratings(case)
    preds = pd.DataFrame(case["ratings"]["recs"], columns=["user", "item", "score"])
    ev = _evaluate(preds, _frames(case)[1], ["rmse"])
    assert list(ev.users.rating_skipped) == ["u2"]
    assert list(ev.users.rating_evaluated) == ["u1"]
