"""Conformance with scikit-learn on random data.

Ranking (per user, the user's recommended items being sklearn's row of candidates):

* ``sklearn.metrics.ndcg_score(y_true, y_score, k=k)`` / ``dcg_score`` average the gain over
  every block of tied scores (McSherry & Najork, 2008, ``ignore_ties=False``): receval
  ``ndcg(ties=expected)@k`` / ``dcg(ties=expected)@k`` (linear gain, 1/log2(i+1)). sklearn's
  ideal is computed from the row itself, i.e. from the recommended items only: it equals
  receval's default ideal (all of the user's relevant items) when every relevant item is
  recommended, and receval's ``ideal=list`` in general.
* ``average_precision_score`` on binary y_true with distinct scores is the non-interpolated
  AP over the whole ranked row, divided by the number of positives in the row: receval
  ``ap(denominator=relevant)`` without cutoff when every relevant item is recommended.

Rating metrics, pooled over every (user, item) pair (``aggregation='micro'``, the default)
and, for ``macro``, averaged over users of sklearn's per-user value:
``mean_absolute_error``, ``mean_squared_error``, its square root, and ``precision_score``,
``recall_score``, ``f1_score`` of (predicted >= t) against (true >= t).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as sklearn_metrics

import receval as rv
from tests.conformance._data import (
    Case,
    RatingCase,
    assert_close,
    cases,
    close,
    rating_cases,
    undefined_warnings_ignored,
)

pytestmark = pytest.mark.conformance

cutoffs = st.one_of(st.none(), st.integers(1, 35))
# sklearn is called once per user and metric, and its input validation costs about a
# millisecond a call: the per-user ranking tests draw up to 12 users (not 30) per example.


def _row(case: Case, user: str) -> tuple[np.ndarray, np.ndarray]:
    """sklearn's (1, n) arrays for a user, n >= 2.

    sklearn refuses a single candidate (nDCG "is only meaningful when there is more than 1
    document", and a 1-column y_true is seen as binary); a one-item row is padded with a
    non-relevant item scored below it, which changes neither the DCG nor the ideal DCG.
    """
    y_true, y_score, _ = case.candidates(user)
    if len(y_true) == 1:
        y_true = np.append(y_true, 0.0)
        y_score = np.append(y_score, y_score[0] - 1.0)
    return y_true[None, :], y_score[None, :]


def _check_ndcg(case: Case, k: int | None, ideal: str) -> None:
    at = "" if k is None else f"@{k}"
    ideal_param = "" if ideal == "truth" else ", ideal=list"
    metrics = [f"ndcg(ties=expected{ideal_param}){at}", f"dcg(ties=expected){at}"]
    ev = rv.evaluate(case.recs, case.truth, metrics, no_relevant="zero", missing_recs="skip")
    ndcg_col, dcg_col = (ev.per_user[label] for label in ev.labels)
    assert set(ev.per_user.index) == case.truth_users & case.recs_users
    for user in ev.per_user.index:
        y_true, y_score = _row(case, user)
        ref_ndcg = sklearn_metrics.ndcg_score(y_true, y_score, k=k)
        ref_dcg = sklearn_metrics.dcg_score(y_true, y_score, k=k)
        assert_close(ndcg_col[user], ref_ndcg, f"{metrics[0]} vs ndcg_score, user {user}")
        assert_close(dcg_col[user], ref_dcg, f"{metrics[1]} vs dcg_score, user {user}")


@settings(max_examples=200, deadline=None)
@given(case=cases(ties=True, relevant_in_recs=True, missing_recs=False, max_users=12),
       k=cutoffs)
def test_ndcg_expected_ties_matches_sklearn(case: Case, k: int | None) -> None:
    """Tie-averaged nDCG/DCG with every relevant item recommended: same ideal as sklearn.

    Scores come from 1-4 integer levels, so ties are frequent (all equal with one level).
    Users whose judged items are all grade 0 score 0 in sklearn (zero ideal DCG) and with
    ``no_relevant='zero'`` in receval.
    """
    _check_ndcg(case, k, ideal="truth")


@settings(max_examples=200, deadline=None)
@given(case=cases(ties=True, max_users=12), k=cutoffs)
def test_ndcg_expected_ties_list_ideal_matches_sklearn(case: Case, k: int | None) -> None:
    """Tie-averaged nDCG with relevant items possibly missing from the list.

    sklearn's ideal is the candidate row reordered by grade, cut at k: receval
    ``ideal=list``. A user whose relevant items are all missing from the list scores 0 in
    both (zero ideal). Truth users without recommendations have no sklearn row: skipped.
    """
    _check_ndcg(case, k, ideal="list")


@settings(max_examples=200, deadline=None)
@given(case=cases(ties=False, relevant_in_recs=True, missing_recs=False, max_users=12))
def test_average_precision_matches_sklearn(case: Case) -> None:
    """AP over the whole list, distinct scores, every relevant item recommended.

    sklearn's AP = sum over thresholds of (R_n - R_(n-1)) P_n; with distinct scores each
    threshold adds one item, so it is sum_i rel_i P@i / |relevant in row|. Users without a
    relevant item are undefined in sklearn; receval skips them (default
    ``no_relevant='skip'``, with an UndefinedMetricWarning).
    """
    with undefined_warnings_ignored():
        ev = rv.evaluate(case.recs, case.truth, ["ap(denominator=relevant)"])
    column = ev.per_user[ev.labels[0]]
    assert set(column.index) == case.relevant_users() & case.recs_users
    for user in column.index:
        y_true, y_score, _ = case.candidates(user)
        ref = sklearn_metrics.average_precision_score(y_true > 0, y_score)
        assert_close(column[user], ref, f"AP vs average_precision_score, user {user}")


def test_average_precision_with_ties_differs_from_sklearn() -> None:
    """sklearn's AP on tied scores is not receval's tie-averaged (expected) AP.

    sklearn treats a block of tied scores as one threshold, crediting each relevant item of
    the block with the precision at the end of the block; receval's ``ties='expected'`` is
    the exact mean of AP over every order of the block (McSherry & Najork), and
    ``pessimistic`` puts the relevant items last. For the block [rel, rel, non-rel]:
    sklearn 2/3, pessimistic (1/2 + 2/3)/2 = 7/12, expected 29/36.
    """
    recs = pd.DataFrame({"user": "u", "item": ["a", "b", "c"], "score": 1.0})
    truth = pd.DataFrame({"user": "u", "item": ["a", "b", "c"], "rating": [1, 1, 0]})
    ref = sklearn_metrics.average_precision_score([1, 1, 0], [1.0, 1.0, 1.0])
    ours = rv.evaluate(recs, truth, ["ap(denominator=relevant, ties=expected)",
                                     "ap(denominator=relevant, ties=pessimistic)"])
    expected, pessimistic = (ours[label] for label in ours.labels)
    assert ref == pytest.approx(2 / 3)
    # orders abc/bac: AP 1; acb/bca: (1 + 2/3)/2; cab/cba: (1/2 + 2/3)/2
    assert expected == pytest.approx((2 * 1 + 2 * 5 / 6 + 2 * 7 / 12) / 6)
    assert expected == pytest.approx(29 / 36)
    assert pessimistic == pytest.approx(7 / 12)


# -- rating metrics ------------------------------------------------------------------------

ERRORS = {
    "mae": lambda t, p: sklearn_metrics.mean_absolute_error(t, p),
    "mse": lambda t, p: sklearn_metrics.mean_squared_error(t, p),
    "rmse": lambda t, p: math.sqrt(sklearn_metrics.mean_squared_error(t, p)),
}
DECISIONS = {
    "rating_precision": sklearn_metrics.precision_score,
    "rating_recall": sklearn_metrics.recall_score,
    "rating_f1": sklearn_metrics.f1_score,
}
thresholds = st.sampled_from([1.0, 2.5, 3.0, 3.5, 4.0, 5.0])


def _rating_metrics(threshold: float, aggregation: str) -> dict[str, Any]:
    """receval metric -> sklearn function of (true, pred)."""
    out: dict[str, Any] = {}
    for name, fn in ERRORS.items():
        out[f"{name}(aggregation={aggregation})"] = fn
    for name, sk in DECISIONS.items():
        def decide(t: np.ndarray, p: np.ndarray, sk: Any = sk) -> float:
            return float(sk(t >= threshold, p >= threshold, zero_division=np.nan))

        out[f"{name}(threshold={threshold}, aggregation={aggregation})"] = decide
    return out


def _check_rating(case: RatingCase, threshold: float, aggregation: str,
                  missing_predictions: str = "error") -> None:
    metrics = _rating_metrics(threshold, aggregation)
    with undefined_warnings_ignored():
        ev = rv.evaluate(case.recs, case.truth, list(metrics),
                         missing_predictions=missing_predictions)
    pairs = case.pairs()
    assert len(pairs) == len(case.truth) - len(case.dropped)
    by_user = {u: (g["rating"].to_numpy(), g["score"].to_numpy())
               for u, g in pairs.groupby("user")}
    assert set(ev.per_user.index) == set(by_user)
    for (metric, fn), label in zip(metrics.items(), ev.labels, strict=True):
        if aggregation == "micro":
            ref = fn(pairs["rating"].to_numpy(), pairs["score"].to_numpy())
        else:
            values = {u: fn(t, p) for u, (t, p) in by_user.items()}
            for user, value in values.items():
                assert_close(ev.per_user.loc[user, label], value, f"{metric}, user {user}")
            defined = [v for v in values.values() if not math.isnan(v)]
            ref = float(np.mean(defined)) if defined else math.nan
        assert close(ev[label], ref), f"{metric}: receval {ev[label]} != sklearn {ref}"


@settings(max_examples=200, deadline=None)
@given(case=rating_cases(), threshold=thresholds)
def test_rating_metrics_micro_match_sklearn(case: RatingCase, threshold: float) -> None:
    """MAE/MSE/RMSE and decision precision/recall/F1 at t, pooled over all pairs (micro).

    Decision support: an item is predicted good when its predicted rating is >= t and truly
    good when its true rating is >= t (sklearn on the two boolean vectors). Where sklearn
    divides by zero (``zero_division=nan``) receval's value is undefined (NaN) too: no
    predicted-good item for precision, no truly-good item for recall, neither for F1.
    Predictions are often rounded to half stars, so predictions equal to t occur.
    """
    _check_rating(case, threshold, "micro")


@settings(max_examples=100, deadline=None)
@given(case=rating_cases(max_users=8), threshold=thresholds)
def test_rating_metrics_macro_match_sklearn_per_user(case: RatingCase,
                                                      threshold: float) -> None:
    """``aggregation='macro'``: sklearn on each user's pairs, then the mean over users.

    Per-user values are compared too; users where sklearn's decision metric is undefined
    (zero division) are NaN in receval and left out of both means (RMSE macro is the mean of
    per-user RMSEs).
    """
    _check_rating(case, threshold, "macro")


@settings(max_examples=100, deadline=None)
@given(case=rating_cases(allow_missing=True), threshold=thresholds)
def test_rating_metrics_on_common_subset_match_sklearn(case: RatingCase,
                                                       threshold: float) -> None:
    """``missing_predictions='skip'``: sklearn on the (user, item) inner join (micro).

    Users all of whose ratings lack a prediction drop out of both.
    """
    _check_rating(case, threshold, "micro", missing_predictions="skip")
