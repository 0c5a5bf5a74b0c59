"""Conformance with trec_eval (through pytrec_eval) on random data.

Definitions matched (trec_eval 9.x, as wrapped by pytrec_eval-terrier):

* ``map_cut_k``  == receval ``ap(denominator=relevant)@k`` (sum of P@i at hits within k over
  the number of judged relevant documents); ``map`` == the same without a cutoff, and also
  receval's plain ``map`` (whole-list AP divides by |R| by default).
* ``ndcg_cut_k`` == receval ``ndcg@k``: gain = the qrels grade (linear), discount
  1/log2(i+1), ideal = every judged relevant document by decreasing grade, cut at k;
  ``ndcg`` == receval ``ndcg`` (no cutoff: whole run, ideal over all relevant documents).
* ``P_k`` == ``precision@k`` (divides by k even when the run is shorter), ``recall_k`` ==
  ``recall@k``, ``success_k`` == ``hit_rate@k``, ``recip_rank`` == ``mrr`` (no cutoff).

trec_eval conventions reproduced on the receval side:

* it evaluates only the queries present in both qrels and run: receval
  ``missing_recs='skip'`` (and users with recommendations but no truth are ignored by
  default in both);
* a query whose judged documents all have grade 0 is evaluated and scores 0 on every
  measure here: receval ``no_relevant='zero'``;
* grade 0 is judged non-relevant (relevance level 1);
* equal scores are ordered by docno *descending* (string comparison): rows are given to
  receval sorted by (score desc, item desc) and ranked with ``ties='stable'``;
* scores are stored as C ``float``: the random scores are single-precision exact.

Besides the cutoffs that trec_eval reports by default (5, 10, 15, 20, 30, 100, ...),
pytrec_eval accepts explicit cutoffs (``"P.3,7"``), so random k are compared too.
"""

from __future__ import annotations

import warnings

import pandas as pd
import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
from receval.exceptions import TiesAtCutoffWarning
from tests.conformance._data import Case, assert_close, cases, close

pytestmark = pytest.mark.conformance

STANDARD_KS = (5, 10, 15, 20, 30, 100)
random_ks = st.lists(st.integers(1, 40), min_size=0, max_size=3, unique=True)


def _pairs(ks: tuple[int, ...]) -> list[tuple[str, str]]:
    """(receval metric, trec_eval measure) pairs."""
    # plain `map` (no cutoff) divides by |R| under receval's defaults, as trec_eval's map does
    out = [("map", "map"), ("ap(denominator=relevant)", "map"), ("ndcg", "ndcg"),
           ("mrr", "recip_rank")]
    for k in ks:
        out += [(f"ap(denominator=relevant)@{k}", f"map_cut_{k}"), (f"ndcg@{k}", f"ndcg_cut_{k}"),
                (f"precision@{k}", f"P_{k}"), (f"recall@{k}", f"recall_{k}"),
                (f"hit_rate@{k}", f"success_{k}")]
    return out


def _trec_eval(case: Case, ks: tuple[int, ...]) -> dict[str, dict[str, float]]:
    cut = ",".join(str(k) for k in ks)
    measures = {"map", "ndcg", "recip_rank", f"map_cut.{cut}", f"ndcg_cut.{cut}", f"P.{cut}",
                f"recall.{cut}", f"success.{cut}"}
    return pytrec_eval.RelevanceEvaluator(case.qrels(), measures).evaluate(case.run())


def _compare(case: Case, recs: pd.DataFrame, ks: tuple[int, ...], ties: str = "stable") -> None:
    pairs = _pairs(ks)
    with warnings.catch_warnings():
        # ties straddling a cutoff are intended here: the tie rule is trec_eval's
        warnings.simplefilter("ignore", TiesAtCutoffWarning)
        ev = rv.evaluate(recs, case.truth, [m for m, _ in pairs], no_relevant="zero",
                         missing_recs="skip", ties=ties)
    trec = _trec_eval(case, ks)
    # the same users: truth users that have recommendations, relevant item or not
    assert set(ev.per_user.index) == set(trec) == case.truth_users & case.recs_users
    for (metric, measure), label in zip(pairs, ev.labels, strict=True):
        column = ev.per_user[label]
        for user, values in trec.items():
            assert_close(column[user], values[measure], f"{metric} vs {measure}, user {user}")
        # trec_eval's summary line ("all") is the arithmetic mean over the evaluated queries
        mean = sum(v[measure] for v in trec.values()) / len(trec)
        assert close(ev[label], mean), f"{metric}: mean {ev[label]} != {mean}"


@settings(max_examples=200, deadline=None)
@given(case=cases(ties=False), extra_ks=random_ks)
def test_distinct_scores_match_trec_eval(case: Case, extra_ks: list[int]) -> None:
    """Distinct scores: the ranking is the score order, no tie rule involved.

    Rows are given in random order; truth users without recommendations are skipped on both
    sides and users with only grade-0 judgments score 0 on both sides.
    """
    ks = tuple(sorted(set(STANDARD_KS) | set(extra_ks)))
    _compare(case, case.recs, ks)


@settings(max_examples=200, deadline=None)
@given(case=cases(ties=True), extra_ks=random_ks)
def test_tied_scores_match_trec_eval_docno_order(case: Case, extra_ks: list[int]) -> None:
    """Frequent ties, broken by trec_eval's rule: score desc, then docno desc (strcmp).

    receval reproduces it with rows pre-sorted by (score desc, item desc) and
    ``ties='stable'`` (input order within a tie), which warns (TiesAtCutoffWarning,
    silenced here) when a tie straddles a cutoff. Item ids are unpadded strings (``i10`` <
    ``i9``), so string and numeric orders differ.
    """
    ks = tuple(sorted(set(STANDARD_KS) | set(extra_ks)))
    _compare(case, case.recs_trec_order(), ks)


@settings(max_examples=200, deadline=None)
@given(case=cases(ties=True), extra_ks=random_ks)
def test_item_desc_ties_match_trec_eval(case: Case, extra_ks: list[int]) -> None:
    """``ties='item_desc'`` on string ids is trec_eval's rule (score desc, docno desc).

    Rows in random order this time: receval orders the ties itself.
    """
    ks = tuple(sorted(set(STANDARD_KS) | set(extra_ks)))
    _compare(case, case.recs, ks, ties="item_desc")


def test_trec_eval_rounds_scores_to_single_precision() -> None:
    """Documented trec_eval quirk that receval does not copy: scores are C ``float``.

    trec_eval stores each run score in single precision, so 1 + 1e-9 and 1 are a tie for it
    (then broken by docno descending: ``b`` before ``a``); receval compares the scores as
    given, in double precision, and ranks ``a`` first.
    """
    qrels = {"q": {"a": 1, "b": 0}}
    run = {"q": {"a": 1.0 + 1e-9, "b": 1.0}}
    trec = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run)
    recs = pd.DataFrame({"user": ["q", "q"], "item": ["a", "b"], "score": [1.0 + 1e-9, 1.0]})
    truth = pd.DataFrame({"user": ["q", "q"], "item": ["a", "b"], "rating": [1, 0]})
    ours = rv.evaluate(recs, truth, ["mrr"])["mrr"]
    assert trec["q"]["recip_rank"] == 0.5
    assert ours == 1.0
    # at single-precision resolution both agree again
    run32 = {"q": {"a": 1.0 + 2**-20, "b": 1.0}}
    assert pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run32)["q"][
        "recip_rank"] == 1.0


def test_item_tie_policy_is_ascending_unlike_trec_eval() -> None:
    """receval ``ties='item'`` breaks ties by ascending item id; trec_eval by docno descending.

    The two are deliberate, documented choices; trec_eval's order is reproduced by sorting
    the rows by (score desc, item desc) and ``ties='stable'`` (as the random test does).
    """
    qrels = {"q": {"a": 1, "b": 0, "c": 0}}
    run = {"q": {"a": 1.0, "b": 1.0, "c": 1.0}}
    trec = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run)["q"]
    recs = pd.DataFrame({"user": "q", "item": ["a", "b", "c"], "score": 1.0})
    truth = pd.DataFrame({"user": "q", "item": ["a", "b", "c"], "rating": [1, 0, 0]})
    assert trec["recip_rank"] == pytest.approx(1 / 3)  # c, b, a
    assert rv.evaluate(recs, truth, "mrr", ties="item")["mrr"] == 1.0  # a, b, c
    trec_order = Case(recs, truth).recs_trec_order()
    assert rv.evaluate(trec_order, truth, "mrr", ties="stable")["mrr"] == pytest.approx(1 / 3)
