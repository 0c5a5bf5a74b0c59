"""Conformance of ``convention="sklearn"`` with scikit-learn's metrics.

Every receval metric is written without parameters: the preset alone chooses the variant.
Ranking metrics are called per user, the user's recommended items being one row of
sklearn's ``y_true`` (their grades, 0 when not judged) and ``y_score``; definitions matched
(scikit-learn 1.9):

* ``sklearn.metrics.ndcg_score(y_true, y_score, k=k)`` == ``ndcg@k``,
  ``dcg_score(y_true, y_score, k=k)`` == ``dcg@k``, and without ``k`` the whole row: linear
  gain, 1/log2(i+1), tied scores averaged (``ignore_ties=False``: the preset's
  ``ties='expected'``). sklearn's ideal is built from the row, i.e. from the recommended
  items only: the preset's ``truth_scope='recommended'`` (relevant items that were not
  recommended are not in the row, so they count in neither the ideal nor AP's |R|);
* ``average_precision_score(y_true > 0, y_score)`` == ``ap`` (no cutoff; the preset's
  ``denominator='relevant'``, |R| the relevant items of the row), with distinct scores
  (with ties sklearn makes one threshold of a tied block: see the difference test);
* ``mean_absolute_error``, ``mean_squared_error``, ``root_mean_squared_error`` over every
  (user, item) pair == ``mae``, ``mse``, ``rmse`` (micro).

Settings of the preset: ``ties='expected'``, ``no_relevant='zero'`` (a row without a
positive grade: ``ndcg_score`` / ``dcg_score`` give 0 and ``average_precision_score`` gives 0
with a UserWarning "No positive class found in y_true" in scikit-learn 1.9) and
``recs_without_truth='zero'`` (a user with recommendations but no truth is a row of zeros
for sklearn: 0), ``missing_recs='skip'`` (a truth user without recommendations has no row,
so no value in the mean) and ``truth_scope='recommended'``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as sk  # type: ignore[import-untyped]

import receval as rv
from receval.exceptions import InvalidParameterError
from tests.conformance._data import (
    Case,
    RatingCase,
    assert_close,
    cases,
    close,
    rating_cases,
)

pytestmark = pytest.mark.conformance

cutoffs = st.one_of(st.none(), st.integers(1, 35))
# sklearn is called once per user and metric (about a millisecond a call): the per-user
# ranking tests draw up to 12 users per example.


def _row(case: Case, user: str) -> tuple[np.ndarray, np.ndarray]:
    """sklearn's (1, n) arrays for a user, n >= 2.

    ``ndcg_score`` refuses a single column; a one-item row is padded with an item of grade 0
    scored below it, which changes neither the DCG nor the ideal DCG.
    """
    y_true, y_score, _ = case.candidates(user)
    if len(y_true) == 1:
        y_true = np.append(y_true, 0.0)
        y_score = np.append(y_score, y_score[0] - 1.0)
    return y_true[None, :], y_score[None, :]


def _sklearn_ap(y_true: np.ndarray, y_score: np.ndarray) -> float:
    """``average_precision_score``; its warning for a row without a positive is expected."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = float(sk.average_precision_score(y_true > 0, y_score))
    messages = [str(w.message) for w in caught]
    if (y_true > 0).any():
        assert not messages
    else:
        assert any("No positive class found in y_true" in m for m in messages)
    return value


def _check_ndcg(case: Case, k: int | None) -> None:
    at = "" if k is None else f"@{k}"
    ev = rv.evaluate(case.recs, case.truth, [f"ndcg{at}", f"dcg{at}"], convention="sklearn")
    # every user with recommendations: with truth (relevant or not) or without
    assert set(ev.per_user.index) == case.recs_users
    ndcg, dcg = (ev.per_user[label].to_dict() for label in ev.labels)
    ref_ndcg, ref_dcg = {}, {}
    for user in ev.per_user.index:
        y_true, y_score = _row(case, user)
        ref_ndcg[user] = sk.ndcg_score(y_true, y_score, k=k)
        ref_dcg[user] = sk.dcg_score(y_true, y_score, k=k)
        assert_close(ndcg[user], ref_ndcg[user], f"ndcg{at} vs ndcg_score, user {user}")
        assert_close(dcg[user], ref_dcg[user], f"dcg{at} vs dcg_score, user {user}")
    for label, ref in zip(ev.labels, (ref_ndcg, ref_dcg), strict=True):
        mean = float(np.mean(list(ref.values())))
        assert close(ev[label], mean), f"{label}: mean {ev[label]} != {mean}"


@settings(max_examples=200, deadline=None)
@given(case=cases(ties=True, max_users=12), k=cutoffs)
def test_ndcg_and_dcg_match_sklearn(case: Case, k: int | None) -> None:
    """Tie-averaged nDCG/DCG; rows in random order; judged items recommended or not.

    Scores come from 1-4 integer levels, so ties are frequent (all equal with one level).
    Users whose recommended items are all grade 0 or not judged, and users without truth,
    score 0 in both; truth users without recommendations have no row and are left out.
    """
    _check_ndcg(case, k)


@settings(max_examples=200, deadline=None)
@given(case=cases(ties=False, max_users=12))
def test_average_precision_matches_sklearn(case: Case) -> None:
    """AP over the whole list, distinct scores, judged items recommended or not (|R| counts
    the relevant items of the row: those recommended).

    sklearn's AP = sum over thresholds of (R_n - R_(n-1)) P_n; with distinct scores each
    threshold adds one item: sum_i rel_i P@i / |relevant in row|. A row without a positive
    (all judged grades 0, or no truth) gives 0 with a UserWarning; receval scores it 0.
    """
    ev = rv.evaluate(case.recs, case.truth, "ap", convention="sklearn")
    assert set(ev.per_user.index) == case.recs_users
    column = ev.per_user[ev.labels[0]].to_dict()
    refs = []
    for user in column:
        y_true, y_score, _ = case.candidates(str(user))
        refs.append(_sklearn_ap(y_true, y_score))
        assert_close(column[user], refs[-1], f"ap vs average_precision_score, user {user}")
    assert close(ev["ap"], float(np.mean(refs)))


@settings(max_examples=200, deadline=None)
@given(case=rating_cases())
def test_rating_errors_match_sklearn(case: RatingCase) -> None:
    """MAE, MSE and RMSE over every (user, item) pair, and per user on the user's pairs.

    Predictions for items without a truth rating are ignored by both.
    """
    ev = rv.evaluate(case.recs, case.truth, ["mae", "mse", "rmse"], convention="sklearn")
    pairs = case.pairs()
    functions = (sk.mean_absolute_error, sk.mean_squared_error, sk.root_mean_squared_error)
    for label, fn in zip(ev.labels, functions, strict=True):
        ref = float(fn(pairs["rating"], pairs["score"]))
        assert close(ev[label], ref), f"{label}: receval {ev[label]} != sklearn {ref}"
        column = ev.per_user[label].to_dict()
        for user, group in pairs.groupby("user"):
            assert_close(column[user], float(fn(group["rating"], group["score"])),
                         f"{label}, user {user}")


# -- hand-made edge cases ---------------------------------------------------------------------

def test_edge_cases_match_sklearn() -> None:
    """Ties, a list shorter than k, no relevant item, no truth, no recommendations.

    * ``tie``: grades [3, 0, 1] all tied: every place gets the mean gain (sklearn's
      ``ignore_ties=False``);
    * ``short``: 2 items at k = 5;
    * ``zero``: judged items all grade 0: ndcg_score, dcg_score and AP 0;
    * ``no_truth``: recommendations without truth: a row of zeros for sklearn, 0;
    * ``no_recs``: truth only: no sklearn row, left out of the mean;
    * ``short``'s relevant item ``z`` is not recommended: not in sklearn's row, so neither
      in the ideal DCG nor in AP's |R|.
    """
    recs = pd.DataFrame([("tie", "a", 1.0), ("tie", "b", 1.0), ("tie", "c", 1.0),
                         ("short", "a", 2.0), ("short", "b", 1.0),
                         ("zero", "a", 2.0), ("zero", "b", 1.0),
                         ("no_truth", "a", 2.0), ("no_truth", "b", 1.0)],
                        columns=["user", "item", "score"])
    truth = pd.DataFrame([("tie", "a", 3), ("tie", "b", 0), ("tie", "c", 1),
                          ("short", "b", 2), ("short", "z", 4),
                          ("zero", "a", 0), ("zero", "b", 0),
                          ("no_recs", "a", 1)],
                         columns=["user", "item", "rating"])
    case = Case(recs, truth)
    ev = rv.evaluate(recs, truth, ["ndcg@5", "dcg@5", "ndcg@2", "ap"], convention="sklearn")
    assert set(ev.per_user.dropna().index) == {"tie", "short", "zero", "no_truth"}
    values = {label: ev.per_user[label].to_dict() for label in ev.labels}
    for user in ("tie", "short", "zero", "no_truth"):
        y_true, y_score = _row(case, user)
        refs = (sk.ndcg_score(y_true, y_score, k=5), sk.dcg_score(y_true, y_score, k=5),
                sk.ndcg_score(y_true, y_score, k=2))
        for label, ref in zip(ev.labels[:3], refs, strict=True):
            assert_close(values[label][user], ref, f"{label}, user {user}")
    # the tie: DCG@5 = mean gain 4/3 at every place
    assert ev.per_user.loc["tie", ev.labels[1]] == pytest.approx(
        4 / 3 * (1 + 1 / np.log2(3) + 1 / 2))
    for user in ("short", "zero", "no_truth"):  # distinct scores
        y_true, y_score, _ = case.candidates(user)
        assert_close(values[ev.labels[3]][user], _sklearn_ap(y_true, y_score), f"ap, {user}")
    assert "no_recs" in ev.users.skipped_missing_recs
    refs = [sk.ndcg_score(*_row(case, u), k=5) for u in ("tie", "short", "zero", "no_truth")]
    assert close(ev["ndcg@5"], float(np.mean(refs)))
    with pytest.raises(InvalidParameterError, match="whole list"):
        rv.evaluate(recs, truth, "ap@5", convention="sklearn")


# -- differences listed in the preset ---------------------------------------------------------

def test_average_precision_with_ties_differs_from_sklearn() -> None:
    """Tied scores: sklearn makes one threshold of the block, receval averages its orders.

    For the block [relevant, relevant, not relevant] all at one score, sklearn credits each
    relevant item with the precision at the end of the block: AP = 2/3. The preset's
    ``ties='expected'`` is the exact mean of AP over the 6 orders of the block:
    orders abc/bac: 1; acb/bca: (1 + 2/3)/2; cab/cba: (1/2 + 2/3)/2; mean 29/36.
    """
    recs = pd.DataFrame({"user": "u", "item": ["a", "b", "c"], "score": 1.0})
    truth = pd.DataFrame({"user": "u", "item": ["a", "b", "c"], "rating": [1, 1, 0]})
    theirs = sk.average_precision_score([1, 1, 0], [1.0, 1.0, 1.0])
    ours = rv.evaluate(recs, truth, "ap", convention="sklearn")["ap"]
    assert theirs == pytest.approx(2 / 3)
    assert ours == pytest.approx(29 / 36)
    # with distinct scores (one order of the block) both agree
    theirs_distinct = sk.average_precision_score([1, 0, 1], [3.0, 2.0, 1.0])
    distinct = recs.assign(score=[3.0, 1.0, 2.0])
    assert rv.evaluate(distinct, truth, "ap", convention="sklearn")["ap"] == pytest.approx(
        theirs_distinct)
