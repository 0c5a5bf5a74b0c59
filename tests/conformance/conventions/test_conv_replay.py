"""Conformance of ``convention="replay"`` with RePlay's offline metrics (pandas input).

RePlay (replay-rec 0.22, ``replay.metrics``) takes a recommendations frame (``query_id``,
``item_id``, ``rating`` = the score) and a ground-truth frame (``query_id``, ``item_id``);
each metric is called with a list of cutoffs, ``mode=PerUser()`` gives the per-user values.
Definitions matched (``_get_metric_value_by_user`` of each class):

* ``Precision(k)``: hits in the top k over k (k nominal, also for a shorter list) ==
  ``precision@k``;
* ``Recall(k)``: hits over the number of ground-truth items == ``recall@k``;
* ``HitRate(k)`` == ``hit_rate@k``; ``MRR(k)`` == ``mrr@k``;
* ``MAP(k)``: the sum of P@i at the hits in the top k over min(k, |R|) ==
  ``ap(denominator=min_k_relevant)@k``;
* ``NDCG(k)``: binary gain, 1/log2(i+1), ideal = min(k, |R|) hits ==
  ``ndcg(gain=binary)@k``.

Settings of the preset:

* ``ties='item_desc'``: RePlay orders a pandas frame with
  ``sort_values([rating, item_id], ascending=False, kind="stable")``, so tied scores go by
  item id descending, by value: numeric for integer ids, code-point order for string ids
  (``"i9"`` before ``"i10"``, ``"é"`` before ``"a"`` before ``"Z"``), which is receval's
  ``item_desc`` on the same ids;
* ``relevance_threshold=0.0``: RePlay reads no grade, every ground-truth row is relevant
  (grade 0 included);
* the users are the ground-truth users: a ground-truth user without recommendations scores
  0 and counts in the mean (receval's default ``missing_recs='zero'``), users with
  recommendations and no ground truth are ignored (default ``recs_without_truth='ignore'``).

The preset lists no differences. The random data have frequent ties and string ids (whose
string and numeric orders differ) or integer ids.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from replay.metrics import MAP, MRR, NDCG, HitRate, Precision, Recall
from replay.metrics.base_metric import Metric
from replay.metrics.descriptors import PerUser

import receval as rv
from tests.conformance._data import Case, assert_close, cases, close

pytestmark = pytest.mark.conformance

# receval metric name, RePlay class
PAIRS: list[tuple[str, type[Metric]]] = [
    ("precision", Precision),
    ("recall", Recall),
    ("hit_rate", HitRate),
    ("mrr", MRR),
    ("ap", MAP),
    ("ndcg", NDCG),
]

random_ks = st.lists(st.integers(1, 35), min_size=1, max_size=4, unique=True)


def _int_ids(case: Case) -> Case:
    """The same case with integer ids (``u12`` -> 12, ``i7`` -> 7)."""
    def ints(frame: pd.DataFrame) -> pd.DataFrame:
        return frame.assign(user=frame["user"].str[1:].astype("int64"),
                            item=frame["item"].str[1:].astype("int64"))
    return Case(ints(case.recs), ints(case.truth))


def _replay(case: Case, ks: list[int]) -> dict[str, tuple[float, dict[Any, float]]]:
    """RePlay's mean and per-user values, by receval label (``"ndcg@5"``)."""
    recs = case.recs.rename(columns={"user": "query_id", "item": "item_id", "score": "rating"})
    truth = case.truth[["user", "item"]].rename(columns={"user": "query_id",
                                                         "item": "item_id"})
    out = {}
    for name, cls in PAIRS:
        means = cls(ks)(recs, truth)
        per_user = cls(ks, mode=PerUser())(recs, truth)
        for k in ks:
            out[f"{name}@{k}"] = (means[f"{cls.__name__}@{k}"],
                                  per_user[f"{cls.__name__}-PerUser@{k}"])
    return out


def _compare(case: Case, ks: list[int]) -> rv.EvaluationResult:
    labels = [f"{name}@{k}" for k in ks for name, _ in PAIRS]
    ev = rv.evaluate(case.recs, case.truth, labels, convention="replay")
    theirs = _replay(case, ks)
    for label, column in zip(labels, ev.labels, strict=True):
        mean, per_user = theirs[label]
        # the users: every ground-truth user, with recommendations or not
        assert set(per_user) == set(ev.per_user.index) == case.truth_users
        for user, value in per_user.items():
            assert_close(ev.per_user.loc[user, column], value, f"{label}, user {user}")
        assert close(ev[label], mean), f"{label}: mean {ev[label]!r} != RePlay {mean!r}"
    return ev


@settings(max_examples=200, deadline=None)
@given(case=cases(ties=True), ks=random_ks)
def test_tied_scores_string_ids_match_replay(case: Case, ks: list[int]) -> None:
    """Few score levels (many ties), string ids ``i<n>``: ties by id descending as text.

    Truth users without recommendations, users with recommendations only, grade-0 rows
    (relevant for RePlay, which reads no grade) and lists shorter than k are all drawn.
    """
    _compare(case, ks)


@settings(max_examples=200, deadline=None)
@given(case=cases(ties=True), ks=random_ks)
def test_tied_scores_integer_ids_match_replay(case: Case, ks: list[int]) -> None:
    """The same with integer ids: ties by id descending as numbers (9 after 10)."""
    _compare(_int_ids(case), ks)


@settings(max_examples=100, deadline=None)  # the tied tests above hold the 2 x 200 cases
@given(case=cases(ties=False), ks=random_ks, integer_ids=st.booleans())
def test_distinct_scores_match_replay(case: Case, ks: list[int], integer_ids: bool) -> None:
    """Distinct scores: the ranking is the score order, no tie rule involved."""
    _compare(_int_ids(case) if integer_ids else case, ks)


# -- hand-made edge cases -----------------------------------------------------------------


def _frames(recs: Sequence[tuple[Any, Any, float]],
            truth: Sequence[tuple[Any, Any, int]]) -> Case:
    return Case(pd.DataFrame(recs, columns=["user", "item", "score"]),
                pd.DataFrame(truth, columns=["user", "item", "rating"]))


def test_tie_order_integer_versus_string_ids() -> None:
    """Items 2 and 10 tied, 2 relevant: integer ids put 10 first, string ids put "2" first.

    RePlay sorts the frame's item column descending, by number or by text; receval's
    ``item_desc`` compares the ids by value in the same way.
    """
    ints = _frames(recs=[(1, 2, 1.0), (1, 10, 1.0)], truth=[(1, 2, 1)])
    strs = _frames(recs=[("1", "2", 1.0), ("1", "10", 1.0)], truth=[("1", "2", 1)])
    assert _compare(ints, [1, 2])["mrr@2"] == 0.5
    assert _compare(strs, [1, 2])["mrr@2"] == 1.0


@pytest.mark.parametrize("dtype", ["object", "str"])
def test_tie_order_unicode_string_ids(dtype: str) -> None:
    """Tied string ids go by code point descending: é (U+E9), ab, a, Z (U+5A), for the
    Python-object and the pandas string columns alike.
    """
    items = ["Z", "a", "é", "ab"]
    case = _frames(recs=[("u", i, 1.0) for i in items] + [("u", "top", 2.0)],
                   truth=[("u", "a", 1), ("u", "Z", 1)])
    case = Case(case.recs.astype({"user": dtype, "item": dtype}),
                case.truth.astype({"user": dtype, "item": dtype}))
    ev = _compare(case, [1, 2, 3, 4, 5])
    # ranking: top, é, ab, a, Z
    assert ev["mrr@5"] == 0.25
    assert ev["precision@5"] == 0.4


EDGE = _frames(
    recs=[
        # a: 3 recommendations, ground truth b, z (z not recommended); lists shorter than k
        ("a", "a1", 1.0), ("a", "b1", 3.0), ("a", "c1", 2.0),
        # b: its only ground-truth row has grade 0: still relevant for RePlay
        ("b", "a1", 1.0), ("b", "b1", 2.0),
        # c: recommendations and no ground truth: ignored by both
        ("c", "a1", 3.0), ("c", "d1", 1.0),
        # e: one recommendation, not relevant, and 6 ground-truth items
        ("e", "x1", 0.5),
    ],
    truth=[
        ("a", "b1", 3), ("a", "z1", 4),
        ("b", "a1", 0),
        ("d", "a1", 1),  # d: ground truth and no recommendation: 0, counted
        *(("e", f"y{j}", 1) for j in range(6)),
    ])


@pytest.mark.parametrize("ks", [[1], [2, 3], [5, 10]])
def test_edge_cases_match_replay(ks: list[int]) -> None:
    """Lists shorter than k, grade-0 ground truth, users missing on either side."""
    _compare(EDGE, ks)


def test_edge_case_values() -> None:
    """The edge cases' numbers, spelled out: what each preset setting does."""
    ev = _compare(EDGE, [2, 5])
    per_user = ev.per_user
    assert list(per_user.index) == ["a", "b", "d", "e"]  # c ignored, d kept
    assert (per_user.loc["d"] == 0.0).all()
    # b's grade-0 row is relevant (relevance_threshold=0.0): b ranks b1, a1
    assert per_user.loc["b", "MRR@2"] == 0.5
    # MAP over min(k, |R|) = 2 and binary nDCG with min(k, |R|) ideal places
    assert per_user.loc["a", "MAP@5"] == 0.5
    assert per_user.loc["a", "Precision@5"] == 0.2
    assert per_user.loc["a", "Recall@5"] == 0.5
