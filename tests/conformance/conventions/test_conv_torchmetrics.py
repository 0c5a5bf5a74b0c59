"""Conformance of ``convention="torchmetrics"`` with torchmetrics' retrieval metrics.

torchmetrics (1.9, ``torchmetrics.functional.retrieval`` and the modular
``torchmetrics.retrieval`` classes) sees one query at a time as the recommended rows only:
``preds`` (the scores, read as float32) and ``target`` (the truth grade of each recommended
item, 0 when it is not in the truth). Definitions matched:

* ``retrieval_precision(top_k=k)`` / ``RetrievalPrecision(top_k=k)``: hits in the top k over
  k (k nominal, also for a shorter list) == ``precision@k``; with ``adaptive_k=True`` over
  min(k, list length) == ``precision(denominator=list_length)@k``; without ``top_k`` over
  the list length == ``precision``;
* ``retrieval_recall`` / ``RetrievalRecall``: hits in the top k over the positive targets,
  i.e. the relevant items *among the recommended rows* == ``recall@k`` under
  ``truth_scope='recommended'``;
* ``retrieval_hit_rate`` / ``RetrievalHitRate`` == ``hit_rate@k``;
* ``retrieval_reciprocal_rank`` / ``RetrievalMRR`` == ``mrr@k``;
* ``retrieval_average_precision`` / ``RetrievalMAP``: the mean of P@i over the hits in the
  top k == ``ap(denominator=hits)@k``;
* ``retrieval_normalized_dcg`` / ``RetrievalNormalizedDCG``: gain = the target (linear),
  discount 1/log2(i+1), ideal = the recommended rows' targets sorted, tied scores averaged
  (scikit-learn's tie-averaged DCG) == ``ndcg(ties=expected)@k`` under
  ``truth_scope='recommended'``.

Settings of the preset: ``truth_scope='recommended'`` (above); ``score_precision='float32'``
(``preds`` become float32, so scores equal in single precision are tied);
``no_relevant='zero'`` and ``recs_without_truth='zero'`` (a query whose targets are all 0
scores 0 in the functions, and the modular classes' default ``empty_target_action='neg'``
scores it 0 and keeps it in the mean); ``missing_recs='skip'`` (a truth user without
recommendations has no rows, so torchmetrics never sees it). The preset has no relevance
level: a grade > 0 is relevant. The binary metrics need 0/1 targets (torchmetrics raises on
others), so they get ``grade > 0``; nDCG gets the grade.

Values are compared at 1e-6 relative (torchmetrics computes in float32), nDCG at 1e-5: its
DCG and ideal DCG are float32 sums of up to 30 discounted gains (with a cumulative sum of the
discounts for the tie average), whose rounding bound is about 2 * 30 * 2**-24 = 3.6e-6
relative; 1.5e-6 was seen on random lists. The random scores
are distinct, single-precision exact and all > 0: since 1.7.4 torchmetrics' precision,
recall, AP and MRR count an item scored <= 0 as not relevant (a listed difference, shown
below). torch's sort and topk do not keep the input order of tied scores, so ties are drawn
only for nDCG, which averages over them in both libraries (the other listed difference;
shown below on the torch build where its order can be observed).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torchmetrics import retrieval as tmr
from torchmetrics.functional import retrieval as tmf
from torchmetrics.retrieval.base import RetrievalMetric

import receval as rv
from receval.exceptions import TiesAtCutoffWarning
from tests.conformance._data import Case, cases, undefined_warnings_ignored

pytestmark = pytest.mark.conformance

REL_TOL = 1e-6
NDCG_REL_TOL = 1e-5  # float32 sums over up to 30 places (module docstring)
ABS_TOL = 1e-9

Functional = Callable[..., torch.Tensor]


def _precision_adaptive(preds: torch.Tensor, target: torch.Tensor,
                        top_k: int | None = None) -> torch.Tensor:
    return tmf.retrieval_precision(preds, target, top_k=top_k, adaptive_k=True)


# receval name (without the cutoff), functional, modular class, extra class kwargs, graded
METRICS: list[tuple[str, Functional, type[RetrievalMetric], dict[str, Any], bool]] = [
    ("precision", tmf.retrieval_precision, tmr.RetrievalPrecision, {}, False),
    ("precision(denominator=list_length)", _precision_adaptive, tmr.RetrievalPrecision,
     {"adaptive_k": True}, False),
    ("recall", tmf.retrieval_recall, tmr.RetrievalRecall, {}, False),
    ("hit_rate", tmf.retrieval_hit_rate, tmr.RetrievalHitRate, {}, False),
    ("mrr", tmf.retrieval_reciprocal_rank, tmr.RetrievalMRR, {}, False),
    ("ap", tmf.retrieval_average_precision, tmr.RetrievalMAP, {}, False),
    ("ndcg", tmf.retrieval_normalized_dcg, tmr.RetrievalNormalizedDCG, {}, True),
]
NDCG = [m for m in METRICS if m[0] == "ndcg"]

random_ks = st.lists(st.one_of(st.none(), st.integers(1, 35)), min_size=1, max_size=3,
                     unique=True)


def _close(ours: float, theirs: float, rel_tol: float = REL_TOL) -> bool:
    return math.isclose(float(ours), float(theirs), rel_tol=rel_tol, abs_tol=ABS_TOL)


def _label(name: str, k: int | None) -> str:
    return name if k is None else f"{name}@{k}"


def _positive(case: Case, shift: float) -> Case:
    """The same case with every score moved up by ``shift`` (order and ties unchanged)."""
    return Case(case.recs.assign(score=case.recs["score"] + shift), case.truth)


def _tensors(case: Case, user: str, graded: bool) -> tuple[torch.Tensor, torch.Tensor]:
    grades, scores, _ = case.candidates(user)
    target = grades if graded else (grades > 0).astype(np.float64)
    return (torch.tensor(scores, dtype=torch.float32),
            torch.tensor(target, dtype=torch.long))


def _modular_mean(case: Case, cls: type[RetrievalMetric], kwargs: dict[str, Any],
                  k: int | None, graded: bool) -> float:
    """The modular class over every user with recommendations (index = the user's number)."""
    metric = cls(top_k=k, **kwargs)
    for index, user in enumerate(sorted(case.recs_users)):
        preds, target = _tensors(case, user, graded)
        metric.update(preds, target, indexes=torch.full_like(target, index))
    return float(metric.compute())


def _evaluate(case: Case, labels: list[str]) -> rv.EvaluationResult:
    with undefined_warnings_ignored(), warnings.catch_warnings():
        warnings.simplefilter("ignore", TiesAtCutoffWarning)
        return rv.evaluate(case.recs, case.truth, labels, convention="torchmetrics")


def _compare(case: Case, ks: list[int | None],
             metrics: list[tuple[str, Functional, type[RetrievalMetric],
                                 dict[str, Any], bool]]) -> None:
    """Per user (the functional API) and the mean (the modular classes)."""
    pairs = [(name, k, fn, cls, kw, graded) for k in ks for name, fn, cls, kw, graded in metrics
             if not (k is None and name.startswith("precision(denominator"))]
    ev = _evaluate(case, [_label(name, k) for name, k, *_ in pairs])
    users = sorted(case.recs_users)
    # truth users without recommendations are never seen; users without truth score 0
    assert sorted(ev.per_user.index) == users
    tensors = {(u, g): _tensors(case, u, g) for u in users for g in (False, True)}
    for (name, k, fn, cls, kw, graded), label in zip(pairs, ev.labels, strict=True):
        column = ev.per_user[label]
        tol = NDCG_REL_TOL if name == "ndcg" else REL_TOL
        for user in users:
            theirs = float(fn(*tensors[user, graded], top_k=k))
            assert _close(column[user], theirs, tol), (
                f"{_label(name, k)}, user {user}: receval {column[user]!r} != "
                f"torchmetrics {theirs!r}")
        mean = _modular_mean(case, cls, kw, k, graded)
        assert _close(ev[label], mean, tol), f"{_label(name, k)}: mean {ev[label]!r} != {mean!r}"


@settings(max_examples=200, deadline=None)
@given(case=cases(ties=False), ks=random_ks)
def test_distinct_positive_scores_match_torchmetrics(case: Case, ks: list[int | None]) -> None:
    """Every metric, per user and mean, on distinct scores all > 0, graded or binary truth.

    The random scores (multiples of 1/16 in [-2**19, 2**19)) are moved up by 2**19 + 1/16,
    which keeps them distinct, > 0 and exact in float32.
    """
    _compare(_positive(case, 2.0**19 + 1.0 / 16), ks, METRICS)


@settings(max_examples=200, deadline=None)
@given(case=cases(ties=True, graded=True), ks=random_ks)
def test_tied_scores_ndcg_is_tie_averaged_in_both(case: Case, ks: list[int | None]) -> None:
    """nDCG on few score levels (many ties) and grades 0..4: both average over tied blocks.

    The preset's nDCG rule reads ``ties='expected'`` (the exact mean over the orders of each
    tied block), which is torchmetrics' ``_tie_average_dcg``, also for a block straddling k.
    """
    _compare(_positive(case, 1.0), ks, NDCG)


# -- hand-made edge cases -----------------------------------------------------------------


def _frames(recs: list[tuple[str, str, float]],
            truth: list[tuple[str, str, int]]) -> Case:
    return Case(pd.DataFrame(recs, columns=["user", "item", "score"]),
                pd.DataFrame(truth, columns=["user", "item", "rating"]))


EDGE = _frames(
    recs=[
        # a: ranked b, c, a; truth b (3) and z (not recommended: outside torchmetrics' view)
        ("a", "a1", 0.25), ("a", "b1", 4.0), ("a", "c1", 2.0),
        # b: two recommendations, neither relevant (one judged 0): scores 0, counted
        ("b", "a1", 1.0), ("b", "b1", 2.0),
        # c: recommendations and no truth row at all: all-zero target, scores 0, counted
        ("c", "a1", 3.0), ("c", "d1", 1.0),
        # e: one recommendation, relevant (list shorter than every k)
        ("e", "x1", 0.5),
        # f: graded, relevant items at places 2 and 3
        ("f", "p", 5.0), ("f", "q", 4.0), ("f", "r", 3.0), ("f", "s", 2.0),
    ],
    truth=[
        ("a", "b1", 3), ("a", "z1", 4),
        ("b", "a1", 0),
        ("d", "a1", 1),  # d: truth and no recommendation: torchmetrics never sees it
        ("e", "x1", 1),
        ("f", "q", 1), ("f", "r", 4), ("f", "zz", 2),
    ])


@pytest.mark.parametrize("k", [None, 1, 2, 3, 5])
def test_edge_cases_match_torchmetrics(k: int | None) -> None:
    """Lists shorter than k, a relevant item not recommended, users without relevant items,
    a user with recommendations and no truth, a truth user without recommendations, grades.
    """
    _compare(EDGE, [k], METRICS)


def test_edge_case_values() -> None:
    """The edge cases' numbers, spelled out: what each preset setting does."""
    ev = _evaluate(EDGE, ["recall@3", "precision@5", "precision(denominator=list_length)@5",
                          "ap@3", "ndcg@2"])
    per_user = ev.per_user
    # d is left out (missing_recs='skip'); b and c are in, with 0 (no_relevant and
    # recs_without_truth 'zero')
    assert list(per_user.index) == ["a", "b", "c", "e", "f"]
    assert (per_user.loc[["b", "c"]] == 0.0).all().all()
    # truth_scope='recommended': z1 is not recommended, so a's recall is 1/1, not 1/2
    assert per_user.loc["a", "Recall@3"] == 1.0
    # k nominal, or adaptive (the list length)
    assert per_user.loc["e", "Precision@5"] == pytest.approx(1 / 5)
    assert per_user.loc["e", "Precision(denominator='list_length')@5"] == 1.0
    # AP over the hits: f ranks p, q, r -> (1/2 + 2/3) / 2
    assert per_user.loc["f", "MAP(denominator='hits')@3"] == pytest.approx((1 / 2 + 2 / 3) / 2)
    # graded nDCG, ideal over the recommended grades (4, 1): f ranks p(0), q(1)
    ideal = 4 + 1 / math.log2(3)
    assert per_user.loc["f", "NDCG(ties='expected')@2"] == pytest.approx((1 / math.log2(3))
                                                                         / ideal)
    convention = rv.conventions.get("torchmetrics")
    adaptive = convention.metric("precision(denominator=list_length)@5")
    assert convention.library_name(adaptive) == "RetrievalPrecision(top_k=5, adaptive_k=True)"
    # the modular classes count b and c as 0 (empty_target_action='neg')
    assert _close(ev["recall@3"], _modular_mean(EDGE, tmr.RetrievalRecall, {}, 3, False))


def test_float32_scores_tie_for_ndcg() -> None:
    """``score_precision='float32'``: 1 + 1e-9 and 1 are one score for torchmetrics.

    The nDCG of the two tied items (only the second relevant) is tie-averaged in both:
    (1 + 1/log2(3)) / 2 at k = 2 over the ideal 1, and 1/2 at k = 1.
    """
    case = _frames(recs=[("q", "a", 1.0 + 1e-9), ("q", "b", 1.0)], truth=[("q", "b", 1)])
    preds = torch.tensor([1.0 + 1e-9, 1.0], dtype=torch.float32)
    target = torch.tensor([0, 1])
    for k, expected in ((1, 0.5), (2, (1 + 1 / math.log2(3)) / 2)):
        theirs = float(tmf.retrieval_normalized_dcg(preds, target, top_k=k))
        ours = _evaluate(case, [f"ndcg@{k}"])[f"ndcg@{k}"]
        assert _close(theirs, expected, NDCG_REL_TOL)
        assert _close(ours, expected)


def test_tied_ndcg_at_cutoff() -> None:
    """A tie straddling k: both average the tied block's gains over its places."""
    case = _frames(recs=[("q", "a", 2.0), ("q", "b", 1.0), ("q", "c", 1.0), ("q", "d", 1.0)],
                   truth=[("q", "a", 1), ("q", "d", 3)])
    preds = torch.tensor([2.0, 1.0, 1.0, 1.0])
    target = torch.tensor([1, 0, 0, 3])
    for k in (1, 2, 3, 4):
        theirs = float(tmf.retrieval_normalized_dcg(preds, target, top_k=k))
        ours = _evaluate(case, [f"ndcg@{k}"])[f"ndcg@{k}"]
        assert _close(ours, theirs, NDCG_REL_TOL), f"ndcg@{k}: {ours} != torchmetrics {theirs}"


# -- differences listed in the preset -----------------------------------------------------


def test_difference_nonpositive_scores_are_not_relevant_in_torchmetrics() -> None:
    """Difference: since 1.7.4 a score <= 0 makes an item non-relevant for precision,
    recall, AP and MRR (``torch.where(preds > 0, target, 0)``), not for hit rate or nDCG.

    receval takes relevance from the truth alone: the relevant item scored -1 (placed 2nd)
    is a hit at k = 2 for every metric.
    """
    case = _frames(recs=[("q", "a", 2.0), ("q", "b", -1.0)], truth=[("q", "b", 1)])
    preds = torch.tensor([2.0, -1.0])
    target = torch.tensor([0, 1])
    ev = _evaluate(case, ["precision@2", "recall@2", "ap@2", "mrr@2", "hit_rate@2", "ndcg@2"])
    assert float(tmf.retrieval_precision(preds, target, top_k=2)) == 0.0
    assert ev["precision@2"] == 0.5
    assert float(tmf.retrieval_recall(preds, target, top_k=2)) == 0.0
    assert ev["recall@2"] == 1.0
    assert float(tmf.retrieval_average_precision(preds, target, top_k=2)) == 0.0
    assert ev["ap@2"] == 0.5
    assert float(tmf.retrieval_reciprocal_rank(preds, target, top_k=2)) == 0.0
    assert ev["mrr@2"] == 0.5
    # hit rate and nDCG do not filter: the two agree
    assert float(tmf.retrieval_hit_rate(preds, target, top_k=2)) == ev["hit_rate@2"] == 1.0
    assert _close(float(tmf.retrieval_normalized_dcg(preds, target, top_k=2)), ev["ndcg@2"],
                  NDCG_REL_TOL)


def test_difference_tie_order_is_torchs() -> None:
    """Difference: torch's ``topk`` (precision, MRR, AP) and ``argsort`` (recall, hit rate)
    do not keep the input order of tied scores; receval does (``ties='stable'``).

    Seventeen tied items, the first (in input order) relevant: receval places it first. The
    order torch picks is an implementation detail of the build: on torch 2.13 CPU (the
    version the ``conformance`` extra pins) neither ``topk`` nor ``argsort`` of 17 equal
    values starts with index 0.
    """
    n = 17
    preds = torch.ones(n)
    target = torch.zeros(n, dtype=torch.long)
    target[0] = 1
    topk_first = int(preds.topk(1)[1][0])
    argsort_first = int(torch.argsort(preds, descending=True)[0])
    assert (topk_first, argsort_first) != (0, 0), "this torch build keeps the input order"
    case = _frames(recs=[("q", f"i{j}", 1.0) for j in range(n)], truth=[("q", "i0", 1)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TiesAtCutoffWarning)
        ev = rv.evaluate(case.recs, case.truth, ["precision@1", "mrr@1", "recall@1"],
                         convention="torchmetrics")
    assert ev["precision@1"] == ev["mrr@1"] == ev["recall@1"] == 1.0
    if topk_first != 0:
        assert float(tmf.retrieval_precision(preds, target, top_k=1)) == 0.0
        assert float(tmf.retrieval_reciprocal_rank(preds, target, top_k=1)) == 0.0
    if argsort_first != 0:
        assert float(tmf.retrieval_recall(preds, target, top_k=1)) == 0.0
