"""Conformance of ``convention="ms_recommenders"`` with Microsoft Recommenders 1.2.1.

Definitions matched (``recommenders.evaluation.python_evaluation``; each function ranks every
user's predictions with ``get_top_k_items``, a stable sort by prediction, so tied scores keep
their input order, receval's default ``ties='stable'``):

* ``precision_at_k(k)``: hits in the top k / k (k even for a shorter list) == ``precision@k``;
* ``recall_at_k(k)``: hits / the user's truth rows == ``recall@k``;
* ``map_at_k(k)``: sum of the precision at each hit in the top k / min(|R|, k) == ``ap@k``
  (``denominator='min_k_relevant'``);
* ``map(k)``: the same over |R|; it also reads only the top k (default k=10), so
  ``map(k)`` == ``ap(denominator=relevant)@k`` and receval's ``ap`` (no cutoff, |R|) is
  ``map`` with k at least every list's length;
* ``ndcg_at_k(k, score_type=...)``: gain 1 (``binary``), the rating (``raw``) or
  2^rating - 1 (``exp``), discount 1/ln(1 + rank) (``discfun_type='loge'``), ideal = the user's
  truth rows by decreasing rating, top k == ``ndcg@k`` with ``gain`` binary / linear /
  exponential and ``discount='ln'``; without a cutoff, ``ndcg`` == ``ndcg_at_k`` with k at
  least every list's and every truth's size (no list and no ideal cut);
* ``rmse`` / ``mae``: sklearn's errors on the inner join of truth and predictions ==
  ``rmse`` / ``mae`` (micro, ``missing_predictions='skip'``).

Settings of the preset: every truth row is relevant (no rating threshold:
``relevance_threshold=0.0``; grade 0 is relevant, with gain 0 under raw and exp);
``precision_at_k``, ``recall_at_k``, ``map_at_k`` and ``map`` average over the users present
in both frames (``missing_recs='skip'``), ``ndcg_at_k`` over every truth user, a user without
predictions scoring 0 (the preset's nDCG rule sets ``missing_recs='zero'``); users with
predictions and no truth are left out by every function (``recs_without_truth='ignore'``).

The functions return only the mean over users and each call costs tens of milliseconds of
pandas work, so the live random test compares the means (200 cases, distinct and tied
scores); every user's value is compared on the 220 stored cases of
``fixtures/ms_recommenders.json.gz`` (each function called on one user's rows, by
``fixtures/make_ms_recommenders.py`` with recommenders 1.2.1) and live on hand-made cases.
The preset's three differences (no common user, ``map`` reading the top k, no uncut nDCG)
each have a test below.
"""

from __future__ import annotations

import gzip
import json
import math
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from recommenders.evaluation import python_evaluation as pe

import receval as rv
from receval.exceptions import TiesAtCutoffWarning
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

FIXTURE = Path(__file__).with_name("fixtures") / "ms_recommenders.json.gz"
COLS = {"col_user": "user", "col_item": "item", "col_prediction": "score"}
GAINS = {"binary": "", "raw": "(gain=linear)", "exp": "(gain=exponential)"}


def receval_name(function: str, k: int | str, score_type: str | None, whole: bool) -> str:
    """The receval metric (read in the convention) that reproduces one MSR call."""
    at = "" if whole else f"@{k}"
    if function == "ndcg_at_k":
        return f"ndcg{GAINS[score_type or 'binary']}{at}"
    if function == "map" and not whole:
        return f"ap(denominator=relevant){at}"  # map reads the top k: a cutoff
    return {"precision_at_k": "precision", "recall_at_k": "recall", "map_at_k": "ap",
            "map": "ap"}[function] + at


def msr(function: str, truth: pd.DataFrame, recs: pd.DataFrame, k: int,
        score_type: str | None = None) -> float:
    """One MS Recommenders ranking function on receval-shaped frames (keywords only)."""
    extra = {"score_type": score_type, "col_rating": "rating"} if score_type else {}
    ids = {"user": str, "item": str}  # MSR requires the same id dtypes in both frames
    return float(getattr(pe, function)(rating_true=truth.astype(ids),
                                       rating_pred=recs.astype(ids), **COLS,
                                       relevancy_method="top_k", k=k, **extra))


@contextmanager
def quiet() -> Iterator[None]:
    """receval's expected warnings: undefined users, ties across a cutoff (the stable order
    is MS Recommenders' rule here)."""
    with undefined_warnings_ignored(), warnings.catch_warnings():
        warnings.simplefilter("ignore", TiesAtCutoffWarning)
        yield


def _evaluate(recs: pd.DataFrame, truth: pd.DataFrame, names: list[str]) -> rv.EvaluationResult:
    with quiet():
        return rv.evaluate(recs, truth, names, convention="ms_recommenders")


def _k_all(case: Case) -> int:
    """A cutoff that cuts no list and no ideal: MSR's reading of a metric without @k."""
    return int(max([*case.recs.groupby("user").size(), *case.truth.groupby("user").size()]))


# -- live: means on random cases ----------------------------------------------------------

RANDOM_CALLS = [("precision_at_k", None), ("recall_at_k", None), ("map_at_k", None),
                ("map", None), ("ndcg_at_k", "binary"), ("ndcg_at_k", "raw"),
                ("ndcg_at_k", "exp")]


@settings(max_examples=200, deadline=None)
@given(case=st.one_of(cases(ties=False), cases(ties=True)),
       k=st.one_of(st.none(), st.integers(1, 35)),
       call=st.sampled_from(RANDOM_CALLS))
def test_random_means_match_ms_recommenders(case: Case, k: int | None,
                                            call: tuple[str, str | None]) -> None:
    """One function's mean at a random k (or none: k beyond every list and truth).

    One function per case (each call costs tens of milliseconds). Distinct or frequently
    tied scores (input order in both); truth users without predictions (left out of P/R/MAP,
    0 in nDCG), users with predictions and no truth, lists shorter than k, grades 0..4 or
    0/1 (every row relevant). ``precision_at_k`` has no uncut reading (it divides every user
    by the same k), so it is compared with a cutoff only. For raw and exp gains, users whose
    truth ratings are all 0 are left out of the mean (0/0) in both.
    """
    function, score_type = call
    if k is None and function == "precision_at_k":
        k = 10
    whole = k is None
    kk = _k_all(case) if k is None else k
    truth = case.truth
    name = receval_name(function, kk, score_type, whole)
    ours = _evaluate(case.recs, truth, [name])[name]
    theirs = msr(function, truth, case.recs, kk, score_type)
    assert close(ours, theirs), f"{name} vs {function}(k={kk}): {ours} != {theirs}"


# -- stored: every user's value -----------------------------------------------------------

@cache
def _fixture() -> dict[str, Any]:
    with gzip.open(FIXTURE, "rt", encoding="utf-8") as f:
        data: dict[str, Any] = json.load(f)
    return data


def test_fixture_header() -> None:
    """The stored values come from recommenders 1.2.1, on at least 200 cases."""
    header = _fixture()["header"]
    assert header["library"].startswith("recommenders 1.2.1")
    assert len(_fixture()["cases"]) >= 200
    assert {"python", "numpy", "pandas", "command", "seed"} <= set(header)


def _case_frames(case: dict[str, Any]) -> tuple[pd.DataFrame, pd.DataFrame]:
    recs = pd.DataFrame(case["recs"], columns=["user", "item", "score"])
    truth = pd.DataFrame(case["truth"], columns=["user", "item", "rating"])
    return recs.astype({"score": np.float64}), truth.astype({"rating": np.int64})


def test_stored_per_user_values_match_ms_recommenders() -> None:
    """Every user's value (the function on that user alone) and the mean, stored cases.

    The users compared are those MS Recommenders averages over: common users for
    precision, recall and MAP, every truth user for nDCG; receval leaves the others out
    (NaN). ``precision_at_k`` with k = the user's list length is receval's ``precision``
    without @k (per user only: MS Recommenders has one k for every user). The raw and exp
    nDCG of a user whose ratings are all 0 is 0/0: MS Recommenders leaves the user out of
    its mean, and so does the preset (``zero_ideal='skip'``, NaN per user).
    """
    compared = 0
    for case in _fixture()["cases"]:
        recs, truth = _case_frames(case)
        entries = case["values"]
        names = [receval_name(e["function"], e["k"], e["score_type"], e["whole"])
                 for e in entries]
        unique = list(dict.fromkeys(names))  # map and map_at_k without a cutoff are both ap
        ev = _evaluate(recs, truth, unique)
        labels = dict(zip(unique, ev.labels, strict=True))
        top = truth.groupby("user")["rating"].max()
        zero_ideal = set(top.index[top == 0])
        for e, name in zip(entries, names, strict=True):
            label = labels[name]
            column = ev.per_user[label].dropna()
            what = f"case {case['id']}: {name} vs {e['function']}(k={e['k']}, {e['score_type']})"
            # raw/exp nDCG of a user whose ratings are all 0: left out of MSR's mean (0/0);
            # alone NaN (or 0.0 when the user has no hit: MSR's early return); receval: NaN
            left_out = zero_ideal if e["score_type"] in ("raw", "exp") else set()
            assert set(column.index) == set(e["per_user"]) - left_out, what
            assert all(math.isnan(e["per_user"][u]) or e["per_user"][u] == 0.0
                       for u in left_out & set(e["per_user"])), what
            for user, value in e["per_user"].items():
                if user not in left_out:
                    assert_close(column[user], value, f"{what}, user {user}")
                    compared += 1
            if e["mean"] is not None:
                assert close(ev[label], e["mean"]), f"{what}: mean {ev[label]} != {e['mean']}"
    assert compared > 10_000


# -- live: hand-made cases, per user --------------------------------------------------------

def _frame(rows: list[tuple[str, str, float]], value: str) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["user", "item", value])


EDGE_RECS = _frame([
    ("ties", "a", 1.0), ("ties", "b", 2.0), ("ties", "c", 2.0), ("ties", "d", 2.0),
    ("ties", "e", 0.0),                                            # b, c, d tied: input order
    ("short", "a", 0.5), ("short", "b", 0.25),                     # shorter than k
    ("graded", "a", 4.0), ("graded", "b", 3.0), ("graded", "c", 2.0), ("graded", "d", 1.0),
    ("no_truth", "a", 1.0), ("no_truth", "b", 0.5),                # predictions, no truth
], "score")
EDGE_TRUTH = _frame([
    ("ties", "d", 1), ("ties", "a", 1), ("ties", "x", 1),
    ("short", "b", 2), ("short", "z", 3),
    ("graded", "a", 0), ("graded", "c", 4), ("graded", "d", 2), ("graded", "y", 3),
    ("missing", "a", 2), ("missing", "b", 1),                      # truth, no predictions
], "rating")
EDGE_CALLS = [("precision_at_k", None), ("recall_at_k", None), ("map_at_k", None),
              ("map", None), ("ndcg_at_k", "binary"), ("ndcg_at_k", "raw"),
              ("ndcg_at_k", "exp")]


@pytest.mark.parametrize("k", [1, 2, 3, 5, 10])
def test_edge_cases_match_ms_recommenders(k: int) -> None:
    """Hand-made users, each MSR function called on every user alone and on all users.

    Ties kept in input order (b, c, d), a list shorter than k, a grade-0 truth row (relevant;
    gain 0 under raw and exp), a truth user without predictions (left out of P/R/MAP, 0 in
    nDCG), a user with predictions and no truth (left out everywhere).
    """
    names = [receval_name(f, k, s, False) for f, s in EDGE_CALLS]
    ev = _evaluate(EDGE_RECS, EDGE_TRUTH, names)
    for (function, score_type), name, label in zip(EDGE_CALLS, names, ev.labels, strict=True):
        column = ev.per_user[label].dropna()
        users = {"ties", "short", "graded"} | ({"missing"} if function == "ndcg_at_k" else set())
        assert set(column.index) == users, name
        for user in users:
            theirs = msr(function, EDGE_TRUTH[EDGE_TRUTH["user"] == user],
                         EDGE_RECS[EDGE_RECS["user"] == user], k, score_type)
            assert_close(column[user], theirs, f"{name}, user {user}")
        assert close(ev[label], msr(function, EDGE_TRUTH, EDGE_RECS, k, score_type)), name


def test_ties_follow_input_order() -> None:
    """Reversing the input order of tied rows changes MSR's value and receval's alike."""
    reordered = pd.concat([EDGE_RECS.iloc[[0, 3, 2, 1, 4]], EDGE_RECS.iloc[5:]])
    for recs in (EDGE_RECS, reordered):
        ev = _evaluate(recs, EDGE_TRUTH, ["ap@2", "ndcg@2"])
        assert close(ev["ap@2"], msr("map_at_k", EDGE_TRUTH, recs, 2))
        assert close(ev["ndcg@2"], msr("ndcg_at_k", EDGE_TRUTH, recs, 2, "binary"))
    assert _evaluate(EDGE_RECS, EDGE_TRUTH, ["ap@2"])["ap@2"] != _evaluate(
        reordered, EDGE_TRUTH, ["ap@2"])["ap@2"]


def test_map_reads_only_the_top_k() -> None:
    """``map`` is averaged over |R| but reads only the top k (default 10): a hit at rank 12
    counts only when k >= 12. receval's ``ap`` (no cutoff) is ``map`` with k at least the
    list length; ``map(k=10)`` is ``ap(denominator=relevant)@10``.
    """
    recs = _frame([("u", f"i{j}", float(20 - j)) for j in range(1, 13)], "score")
    truth = _frame([("u", "i1", 1), ("u", "i12", 1)], "rating")
    default = float(pe.map(truth, recs, **COLS))  # k=10
    ev = _evaluate(recs, truth, ["ap", "ap(denominator=relevant)@10"])
    assert default == 0.5
    assert ev["ap(denominator=relevant)@10"] == default
    assert close(ev["ap"], msr("map", truth, recs, 12))
    assert ev["ap"] == pytest.approx((1 + 2 / 12) / 2)


def test_without_cutoff_needs_k_beyond_lists_and_truth() -> None:
    """MSR has no uncut nDCG or precision: k is one number for every user and cuts the ideal.

    ``ndcg_at_k(k=2)`` on a 2-item list with 4 truth rows cuts the ideal at 2, which is
    receval's ``ndcg@2``; receval's ``ndcg`` (ideal over all 4) is ``ndcg_at_k`` with k >= 4.
    ``precision_at_k(k)`` divides every user by the same k, so receval's ``precision`` (each
    user's list length) is MSR's only user by user.
    """
    recs = _frame([("u", "a", 2.0), ("u", "b", 1.0),
                   ("v", "a", 3.0), ("v", "c", 2.0), ("v", "d", 1.0)], "score")
    truth = _frame([("u", "a", 1), ("u", "x", 1), ("u", "y", 1), ("u", "z", 1),
                    ("v", "c", 1)], "rating")
    ev = _evaluate(recs, truth, ["ndcg", "ndcg@2", "precision"])
    u_truth, u_recs = truth[truth["user"] == "u"], recs[recs["user"] == "u"]
    uncut, cut = (float(ev.per_user[label]["u"]) for label in ev.labels[:2])
    at_2 = msr("ndcg_at_k", u_truth, u_recs, 2, "binary")
    assert close(cut, at_2)
    assert not close(uncut, at_2)
    assert close(uncut, msr("ndcg_at_k", u_truth, u_recs, 4, "binary"))
    assert close(ev["precision"], (1 / 2 + 1 / 3) / 2)
    assert not any(close(ev["precision"], msr("precision_at_k", truth, recs, k))
                   for k in range(1, 6))


def test_no_common_user_is_zero_in_msr_undefined_in_receval() -> None:
    """In the preset's differences: with no user in both frames, ``precision_at_k``
    (and recall, MAP) return 0.0 (``if df_hit.shape[0] == 0: return 0.0``); receval has no
    user to average (``missing_recs='skip'``) and gives NaN. nDCG agrees (every truth user
    scored 0).
    """
    recs = _frame([("a", "x", 1.0)], "score")
    truth = _frame([("b", "x", 1)], "rating")
    ev = _evaluate(recs, truth, ["precision@3", "ndcg@3"])
    assert msr("precision_at_k", truth, recs, 3) == 0.0
    assert math.isnan(ev["precision@3"])
    assert ev["ndcg@3"] == msr("ndcg_at_k", truth, recs, 3, "binary") == 0.0


@settings(max_examples=200, deadline=None)
@given(case=rating_cases(allow_missing=True))
def test_rating_errors_match_ms_recommenders(case: RatingCase) -> None:
    """``rmse`` and ``mae`` on the inner join: truth ratings without a prediction and
    predictions without a truth rating are left out (``missing_predictions='skip'``)."""
    with undefined_warnings_ignored():
        ev = rv.evaluate(case.recs, case.truth, ["rmse", "mae"], convention="ms_recommenders")
    kw = {"col_user": "user", "col_item": "item", "col_rating": "rating",
          "col_prediction": "score"}
    assert_close(ev["rmse"], float(pe.rmse(case.truth, case.recs, **kw)), "rmse")
    assert_close(ev["mae"], float(pe.mae(case.truth, case.recs, **kw)), "mae")


# -- mismatch found ---------------------------------------------------------------------------

@pytest.mark.parametrize("score_type", ["raw", "exp"])
def test_zero_ideal_users_left_out(score_type: str) -> None:
    """u1's only truth row has rating 0: relevant under the preset (every row is), gain 0.

    MS Recommenders: u0 scores 1, u1 is NaN (0/0) and pandas' ``mean`` skips it: 1.0.
    The preset's nDCG has ``zero_ideal='skip'``: u1 is left out and counted, 1 / 1 = 1.0
    (receval's default, ``zero_ideal='zero'``, would give (1 + 0) / 2 = 0.5). The binary
    score_type is not affected (every truth row has gain 1).
    """
    recs = _frame([("u0", "i0", 3.0), ("u1", "i0", 2.0)], "score")
    truth = _frame([("u0", "i0", 1), ("u1", "i0", 0)], "rating")
    name = receval_name("ndcg_at_k", 1, score_type, False)
    theirs = msr("ndcg_at_k", truth, recs, 1, score_type)
    assert theirs == 1.0
    ev = _evaluate(recs, truth, [name])
    label = ev.labels[0]
    assert close(ev[name], theirs), f"{name}: receval {ev[name]} != ndcg_at_k {theirs}"
    assert ev.per_user[label].isna().tolist() == [False, True]
    assert ev.summaries[label].n_excluded == 1
    assert ev.summaries[label].n_users == 1
    scored = f"ndcg({GAINS[score_type][1:-1]}, zero_ideal=zero)@1"
    assert close(_evaluate(recs, truth, [scored])[scored], (1 + 0) / 2)
