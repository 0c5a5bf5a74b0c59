"""Conformance of ``convention="recbole"`` with RecBole 1.2.1, run live.

Definitions matched (``recbole.evaluator.metrics``): each top-k metric's ``metric_info``
takes ``pos_index`` (users x max(topk) booleans: is the item at rank j a test positive) and
``pos_len`` (each user's number of test positives) and returns every user's value at every
rank; ``calculate_metric`` (through ``TopkMetric.topk_result``) averages each column over
the rows, every user alike.

* ``Precision``: ``cumsum(hits) / j`` (empty places are misses) == ``precision@k``;
* ``Recall``: ``cumsum(hits) / pos_len`` == ``recall@k``;
* ``Hit``: 1 once a hit is seen == ``hit_rate@k``;
* ``MRR``: 1 / rank of the first hit, 0 when it is past k == ``mrr@k``;
* ``MAP``: sum of P@j at hits over ``min(j, pos_len)`` == ``ap@k``
  (``denominator='min_k_relevant'``);
* ``NDCG``: binary gain, discount ``1/log2(j + 1)``, ideal ``min(k, pos_len)`` hits on top
  == ``ndcg@k`` with binary gain;
* ``MAE`` / ``RMSE`` (``LossMetric``): sklearn's ``mean_absolute_error`` / the square root
  of ``mean_squared_error`` over every (prediction, label) pair == ``mae`` / ``rmse`` (micro).

Settings of the preset: every test interaction is a positive (RecBole's dataset
``threshold`` is None by default): ``relevance_threshold=0.0``, grade-0 rows included; every
test user is a row of ``pos_index``, a user without recommendations has no hit and scores 0
(receval's default ``missing_recs='zero'``); users with recommendations but no test
interaction are not evaluated (``recs_without_truth='ignore'``); every metric needs a cutoff.

RecBole's metrics see only ``pos_index``: the order of tied scores is decided before them by
``torch.topk`` in ``Collector.eval_batch_collect`` (unspecified), so the random scores are
distinct and ``pos_index`` is built from each user's recommendations sorted by score. The
scores are float64 here (RecBole's models produce float32; the rating metrics would then
differ by float32 rounding). ``MRR``, ``MAP`` and ``NDCG`` use ``np.float``, removed in
NumPy 1.24: the test sets ``np.float = float`` (and ``np.bool = bool``) while it calls them.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import numpy as np
import pandas as pd
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from recbole.evaluator import metrics as rm
from recbole.evaluator.collector import DataStruct

import receval as rv
from receval.exceptions import TiesAtCutoffWarning
from tests.conformance._data import (
    Case,
    RatingCase,
    assert_close,
    cases,
    close,
    rating_cases,
)

pytestmark = pytest.mark.conformance

# receval metric name -> (RecBole class, its result key)
TOPK = [("precision", rm.Precision, "precision"), ("recall", rm.Recall, "recall"),
        ("hit_rate", rm.Hit, "hit"), ("mrr", rm.MRR, "mrr"), ("ap", rm.MAP, "map"),
        ("ndcg", rm.NDCG, "ndcg")]
NEEDS_POS_LEN = (rm.Recall, rm.MAP, rm.NDCG)


@contextmanager
def numpy_aliases() -> Iterator[None]:
    """``np.float`` and ``np.bool`` for RecBole 1.2.1 under NumPy 2, restored afterwards."""
    with mock.patch.object(np, "float", float, create=True), \
            mock.patch.object(np, "bool", bool, create=True):
        yield


def recbole_inputs(case: Case, width: int) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Every truth user, ``pos_index`` (users x width) and ``pos_len``.

    Each user's recommendations sorted by score (distinct scores); a list shorter than the
    width is padded with misses, as RecBole's full ranking would rank other items there.
    """
    users = sorted(case.truth_users)
    pos_index = np.zeros((len(users), width), dtype=bool)
    pos_len = np.zeros(len(users), dtype=np.int64)
    for row, user in enumerate(users):
        positives = set(case.truth.loc[case.truth["user"] == user, "item"])
        _, scores, items = case.candidates(user)
        ranked = [items[j] for j in np.argsort(-scores, kind="stable")][:width]
        pos_index[row, :len(ranked)] = [item in positives for item in ranked]
        pos_len[row] = len(positives)
    return users, pos_index, pos_len


def _config(ks: list[int]) -> dict[str, Any]:
    return {"topk": ks, "metric_decimal_place": 15}


def recbole_values(case: Case, ks: list[int]
                   ) -> tuple[list[str], dict[str, np.ndarray], dict[str, float]]:
    """Per-user values (``metric_info``) and means (``calculate_metric``) for every
    ``metric@k``."""
    users, pos_index, pos_len = recbole_inputs(case, max(ks))
    data = DataStruct()
    data.update_tensor("rec.topk", torch.cat([torch.from_numpy(pos_index.astype(np.int64)),
                                              torch.from_numpy(pos_len)[:, None]], dim=1))
    config = _config(ks)
    per_user: dict[str, np.ndarray] = {}
    means: dict[str, float] = {}
    with numpy_aliases():
        for name, cls, key in TOPK:
            metric = cls(config)
            info = (metric.metric_info(pos_index, pos_len) if cls in NEEDS_POS_LEN
                    else metric.metric_info(pos_index))
            result = metric.calculate_metric(data)
            for k in ks:
                per_user[f"{name}@{k}"] = info[:, k - 1]
                means[f"{name}@{k}"] = float(result[f"{key}@{k}"])
    return users, per_user, means


def _compare(case: Case, ks: list[int]) -> None:
    names = [f"{name}@{k}" for k in ks for name, _, _ in TOPK]
    ev = rv.evaluate(case.recs, case.truth, names, convention="recbole")
    users, per_user, means = recbole_values(case, ks)
    assert list(ev.per_user.index.sort_values()) == users
    for name, label in zip(names, ev.labels, strict=True):
        column = ev.per_user[label]
        for user, value in zip(users, per_user[name], strict=True):
            assert_close(column[user], float(value), f"{name}, user {user}")
        # means are rounded to metric_decimal_place=15 digits by RecBole
        assert close(ev[label], means[name]), f"{name}: mean {ev[label]} != {means[name]}"


@settings(max_examples=200, deadline=None)
@given(case=cases(ties=False),
       ks=st.lists(st.integers(1, 35), min_size=1, max_size=3, unique=True))
def test_random_rankings_match_recbole(case: Case, ks: list[int]) -> None:
    """Every metric per user and on the mean, distinct scores, random cutoffs.

    Includes truth users without recommendations (0 in both), users with recommendations and
    no truth (not evaluated), lists shorter than k and grade-0 truth rows (positive).
    """
    _compare(case, ks)


def _frame(rows: list[tuple[str, str, float]], value: str) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["user", "item", value])


def test_edge_cases_match_recbole() -> None:
    """Hand-made users: a list shorter than k, a test item rated 0 (still positive: RecBole
    has no threshold by default), more positives than k, a test user without
    recommendations (a row of misses) and a user with recommendations and no test data.
    """
    recs = _frame([
        ("short", "a", 2.0), ("short", "b", 1.0),
        ("zero", "a", 3.0), ("zero", "b", 2.0), ("zero", "c", 1.0),
        ("many", "a", 5.0), ("many", "b", 4.0), ("many", "c", 3.0), ("many", "d", 2.0),
        ("no_truth", "a", 1.0),
    ], "score")
    truth = _frame([
        ("short", "b", 1), ("short", "x", 4),
        ("zero", "c", 0), ("zero", "a", 0),
        ("many", "a", 1), ("many", "c", 2), ("many", "e", 1), ("many", "f", 1),
        ("many", "g", 1),
        ("missing", "a", 3),
    ], "rating")
    case = Case(recs, truth)
    _compare(case, [1, 2, 3, 5, 10])
    ev = rv.evaluate(recs, truth, ["recall@3", "hit_rate@1"], convention="recbole")
    assert ev.per_user.loc["zero"].tolist() == [1.0, 1.0]  # grade 0 counts as positive
    assert list(ev.users.recs_without_truth) == ["no_truth"]


@settings(max_examples=200, deadline=None)
@given(case=rating_cases())
def test_rating_errors_match_recbole(case: RatingCase) -> None:
    """MAE and RMSE over every (prediction, label) pair, through ``calculate_metric``."""
    pairs = case.pairs()
    data = DataStruct()  # columns of shape (n, 1): used_info squeezes the last axis
    data.update_tensor("rec.score", torch.tensor(pairs[["score"]].to_numpy(np.float64)))
    data.update_tensor("data.label", torch.tensor(pairs[["rating"]].to_numpy(np.float64)))
    config = _config([1])
    theirs = {**rm.MAE(config).calculate_metric(data), **rm.RMSE(config).calculate_metric(data)}
    ev = rv.evaluate(case.recs, case.truth, ["mae", "rmse"], convention="recbole")
    assert_close(ev["mae"], theirs["mae"], "mae")
    assert_close(ev["rmse"], theirs["rmse"], "rmse")


def test_difference_tied_scores_follow_torch_topk() -> None:
    """Difference (preset): RecBole ranks each user's scores with ``torch.topk``
    (``Collector.eval_batch_collect``) before its metrics see ``pos_index``; among equal
    scores topk's order is not the input order. Five tied items, the first (in input order)
    relevant: receval (``ties='stable'``) puts it first, Hit@1 = 1; the ranking topk makes
    does not, and RecBole's Hit@1 is 0."""
    order = torch.topk(torch.ones(5), 5).indices.tolist()
    assert order != [0, 1, 2, 3, 4]  # torch 2.13 CPU: [2, 4, 3, 0, 1]
    pos_index = np.array([[j == 0 for j in order]])  # item 0 is the relevant one
    with numpy_aliases():
        theirs = rm.Hit(_config([1])).metric_info(pos_index)[0, 0]
    recs = pd.DataFrame([("u", f"i{j}", 1.0) for j in range(5)],
                        columns=["user", "item", "score"])
    truth = pd.DataFrame([("u", "i0", 1)], columns=["user", "item", "rating"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TiesAtCutoffWarning)
        ours = rv.evaluate(recs, truth, "hit_rate@1", convention="recbole")["hit_rate@1"]
    assert (ours, theirs) == (1.0, 0)
