"""Conformance of ``convention="trec_eval"`` with trec_eval (through pytrec_eval-terrier).

Every receval metric is written without parameters: the preset alone chooses the variant.
Definitions matched (trec_eval measure names, as pytrec_eval reports them):

* ``P_k`` == ``precision@k`` (divides by k: missing places are misses), ``set_P`` ==
  ``precision`` (relevant retrieved / retrieved);
* ``recall_k`` == ``recall@k``, ``set_recall`` == ``recall``;
* ``set_F`` (parameter 1) == ``fbeta`` (F1); ``set_F`` with parameter 4 (= beta squared) ==
  ``fbeta(beta=2)``;
* ``success_k`` == ``hit_rate@k``;
* ``recip_rank`` == ``mrr`` (no cutoff); ``mrr@k`` / ``fbeta@k`` are ``recip_rank`` /
  ``set_F`` with ``-M k`` (the run cut to its top k, emulated here by cutting the run given to
  pytrec_eval, which has no ``-M``);
* ``map`` == ``ap`` (the preset's ``denominator='relevant'``), ``map_cut_k`` == ``ap@k``;
* ``ndcg`` == ``ndcg``, ``ndcg_cut_k`` == ``ndcg@k``: linear gain = the judged grade of every
  judged document, also below the relevance level (the preset's ``grades='judged'``).

Settings of the preset, each exercised here: ``ties='item_str_desc'`` (trec_eval sorts equal
scores by docno descending as text; rows are given in random order), ``no_relevant='zero'``
(a query whose judged documents are all grade 0 scores 0 and is counted),
``missing_recs='skip'`` (only queries in both qrels and run are evaluated; run-only queries
are ignored as by default), ``relevance_threshold=1`` (grade >= 1 is relevant, trec_eval's
default ``-l 1``) and ``score_precision='float32'`` (trec_eval stores scores as C ``float``).
``evaluate(..., relevance_threshold=t)`` is ``RelevanceEvaluator(..., relevance_level=t)``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pandas as pd
import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
from receval.exceptions import InvalidGradeError, TiesAtCutoffWarning
from tests.conformance._data import Case, assert_close, cases, close

pytestmark = pytest.mark.conformance

STANDARD_KS = (5, 10, 20, 100)
random_ks = st.lists(st.integers(1, 35), min_size=0, max_size=3, unique=True)


@contextmanager
def _tie_warnings_ignored() -> Iterator[None]:
    """Ties straddling a cutoff are intended: the tie rule is trec_eval's."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TiesAtCutoffWarning)
        yield


def _pairs(ks: tuple[int, ...]) -> list[tuple[str, str]]:
    """(receval metric read in the convention, trec_eval measure) pairs."""
    out = [("mrr", "recip_rank"), ("ap", "map"), ("ndcg", "ndcg"), ("precision", "set_P"),
           ("recall", "set_recall"), ("fbeta", "set_F")]
    for k in ks:
        out += [(f"precision@{k}", f"P_{k}"), (f"recall@{k}", f"recall_{k}"),
                (f"hit_rate@{k}", f"success_{k}"), (f"ap@{k}", f"map_cut_{k}"),
                (f"ndcg@{k}", f"ndcg_cut_{k}")]
    return out


def _measures(ks: tuple[int, ...]) -> set[str]:
    cut = ",".join(str(k) for k in ks)
    return {"recip_rank", "map", "ndcg", "set_P", "set_recall", "set_F", f"P.{cut}",
            f"recall.{cut}", f"success.{cut}", f"map_cut.{cut}", f"ndcg_cut.{cut}"}


def _compare(recs: pd.DataFrame, truth: pd.DataFrame, qrels: dict[str, dict[str, int]],
             run: dict[str, dict[str, float]], ks: tuple[int, ...],
             level: int | None = None) -> None:
    """Per user and mean, every pair, on the users trec_eval evaluates."""
    pairs = _pairs(ks)
    with _tie_warnings_ignored():
        ev = rv.evaluate(recs, truth, [m for m, _ in pairs] + ["fbeta(beta=2)"],
                         convention="trec_eval", relevance_threshold=level)
    trec_level = 1 if level is None else level  # trec_eval's default -l 1
    trec = pytrec_eval.RelevanceEvaluator(qrels, _measures(ks),
                                          relevance_level=trec_level).evaluate(run)
    # beta = 2 is set_F's parameter 4 (beta squared); one set_F per evaluator
    trec_f2 = pytrec_eval.RelevanceEvaluator(qrels, {"set_F.4"},
                                             relevance_level=trec_level).evaluate(run)
    # the same users: truth users with recommendations, relevant item or not
    assert set(ev.per_user.index) == set(trec) == set(trec_f2) == set(qrels) & set(run)
    checks = [(label, metric, trec, measure)
              for (metric, measure), label in zip(pairs, ev.labels[:-1], strict=True)]
    checks.append((ev.labels[-1], "fbeta(beta=2)", trec_f2, "set_F"))
    for label, metric, values, measure in checks:
        column = ev.per_user[label].to_dict()
        for user, scores in values.items():
            assert_close(column[user], scores[measure], f"{metric} vs {measure}, user {user}")
        # trec_eval's "all" line is the arithmetic mean over the evaluated queries
        mean = sum(v[measure] for v in values.values()) / len(values)
        assert close(ev[label], mean), f"{metric}: mean {ev[label]} != {mean}"


def _perturbed(case: Case, seed: int) -> Case:
    """Scores 1..4 plus noise below 1e-9: distinct in double, tied again in single precision."""
    rng = np.random.default_rng(seed)
    recs = case.recs.copy()
    recs["score"] = recs["score"] + 1.0 + rng.uniform(0.0, 1e-9, size=len(recs))
    return Case(recs, case.truth)


@settings(max_examples=200, deadline=None)
@given(case=cases(ties=False), extra_ks=random_ks)
def test_distinct_scores_match_trec_eval(case: Case, extra_ks: list[int]) -> None:
    """Distinct scores, rows in random order, graded or binary qrels.

    Truth users without recommendations are left out on both sides, users whose judged
    documents are all grade 0 score 0 on both sides, run-only users are ignored.
    """
    ks = tuple(sorted(set(STANDARD_KS) | set(extra_ks)))
    _compare(case.recs, case.truth, case.qrels(), case.run(), ks)


@settings(max_examples=200, deadline=None)
@given(case=cases(ties=True), extra_ks=random_ks, below_float32=st.booleans(),
       seed=st.integers(0, 2**32 - 1))
def test_tied_scores_match_trec_eval(case: Case, extra_ks: list[int], below_float32: bool,
                                     seed: int) -> None:
    """Frequent ties in random row order: trec_eval breaks them by docno descending as text.

    The preset's ``ties='item_str_desc'`` does the same (ids are unpadded, ``i10`` <
    ``i9``, so text and numeric orders differ). With ``below_float32`` the tied scores get
    noise below 1e-9: distinct doubles, but ties again for trec_eval's C ``float``, which the
    preset's ``score_precision='float32'`` reproduces.
    """
    if below_float32:
        case = _perturbed(case, seed)
    ks = tuple(sorted(set(STANDARD_KS) | set(extra_ks)))
    _compare(case.recs, case.truth, case.qrels(), case.run(), ks)


@settings(max_examples=200, deadline=None)
@given(case=cases(graded=True, ties=True), level=st.sampled_from([2, 2, 3, 4]),
       extra_ks=random_ks)
def test_relevance_level_matches_trec_eval(case: Case, level: int, extra_ks: list[int]) -> None:
    """``relevance_threshold=t`` under the convention is trec_eval's ``-l t``.

    map, P, recall, success, recip_rank and set_* count grade >= t as relevant; ndcg keeps
    the raw grade of every judged document as gain (grade 1 below level 2 included), so a
    query without a document at the level still has an nDCG (and scores 0 on the rest).
    """
    ks = tuple(sorted(set(STANDARD_KS) | set(extra_ks)))
    _compare(case.recs, case.truth, case.qrels(), case.run(), ks, level=level)


def _top(run: dict[str, dict[str, float]], k: int) -> dict[str, dict[str, float]]:
    """The run cut to its top k in trec_eval's order (float score desc, docno desc)."""
    out = {}
    for user, docs in run.items():
        ranked = sorted(docs.items(), key=lambda d: (np.float32(d[1]), d[0]), reverse=True)
        out[user] = dict(ranked[:k])
    return out


@settings(max_examples=200, deadline=None)
@given(case=cases(ties=True), k=st.integers(1, 12))
def test_mrr_and_f_at_k_match_trec_eval_on_top_k(case: Case, k: int) -> None:
    """``mrr@k`` and ``fbeta@k`` are recip_rank and set_F of the run cut to its top k.

    trec_eval does this with ``-M k``; pytrec_eval has no such option, so the run given to
    it is cut here to its top k in trec_eval's order (ties by docno descending). Short runs
    included: the preset's ``fbeta(denominator='list_length')`` divides by the documents
    retrieved, as set_F does.
    """
    with _tie_warnings_ignored():
        ev = rv.evaluate(case.recs, case.truth, [f"mrr@{k}", f"fbeta@{k}"],
                         convention="trec_eval")
    run = case.run()
    trec = pytrec_eval.RelevanceEvaluator(case.qrels(), {"recip_rank", "set_F"}).evaluate(
        _top(run, k))
    assert set(ev.per_user.index) == set(trec)
    mrr, f1 = (ev.per_user[label].to_dict() for label in ev.labels)
    for user, values in trec.items():
        assert_close(mrr[user], values["recip_rank"], f"mrr@{k} vs recip_rank -M {k}, {user}")
        assert_close(f1[user], values["set_F"], f"fbeta@{k} vs set_F -M {k}, {user}")


def test_f_at_k_short_run_matches_set_f_with_m() -> None:
    """A run of 1 relevant document, k = 2: set_F -M 2 is 1 (P = 1/1, R = 1).

    receval's default F@k is 2 hits / (|R| + k) = 2/3 (precision P@k, nominal k); set_F's
    precision is relevant retrieved / retrieved, which the preset selects with
    ``fbeta(denominator='list_length')``: 2 hits / (|R| + min(k, n)) = 1.
    """
    run = {"q": {"a": 1.0}}
    qrels = {"q": {"a": 1}}
    recs, truth = _frames(run, qrels)
    trec = pytrec_eval.RelevanceEvaluator(qrels, {"set_F"}).evaluate(_top(run, 2))["q"]
    assert trec["set_F"] == 1.0
    ev = rv.evaluate(recs, truth, "fbeta@2", convention="trec_eval")
    assert_close(ev["fbeta@2"], trec["set_F"], "fbeta@2 vs set_F -M 2")


# -- hand-made edge cases ---------------------------------------------------------------------

def _frames(run: dict[str, dict[str, float]],
            qrels: dict[str, dict[str, int]]) -> tuple[pd.DataFrame, pd.DataFrame]:
    recs = pd.DataFrame([(u, i, s) for u, d in run.items() for i, s in d.items()],
                        columns=["user", "item", "score"])
    truth = pd.DataFrame([(u, i, g) for u, d in qrels.items() for i, g in d.items()],
                         columns=["user", "item", "rating"])
    return recs, truth


def test_edge_cases_match_trec_eval() -> None:
    """Ties by docno text order, a short list, users on one side only, all grade 0.

    * ``tie``: i10, i9, i2 tied; trec_eval ranks i9, i2, i10 (text descending), the
      relevant i10 comes third; numerically descending would put it first;
    * ``short``: 2 documents, P_5 divides by 5;
    * ``zero``: judged documents all grade 0, scored 0 and counted;
    * ``no_run``: in the qrels only, left out; ``no_qrels``: in the run only, ignored.
    """
    run = {"tie": {"i10": 1.0, "i9": 1.0, "i2": 1.0, "i1": 0.5},
           "short": {"a": 2.0, "b": 1.0},
           "zero": {"a": 2.0, "b": 1.0},
           "no_qrels": {"a": 1.0}}
    qrels = {"tie": {"i10": 1, "i1": 2, "i7": 3},
             "short": {"b": 1, "c": 2},
             "zero": {"a": 0, "b": 0},
             "no_run": {"a": 4}}
    recs, truth = _frames(run, qrels)
    _compare(recs, truth, qrels, run, (1, 3, 5))
    with _tie_warnings_ignored():
        ev = rv.evaluate(recs, truth, ["mrr", "precision@5", "ndcg"], convention="trec_eval")
    assert ev.per_user.loc["tie", ev.labels[0]] == pytest.approx(1 / 3)
    assert ev.per_user.loc["short", ev.labels[1]] == pytest.approx(1 / 5)
    assert ev.per_user.loc["zero"].tolist() == [0.0, 0.0, 0.0]
    assert set(ev.per_user.index) == {"tie", "short", "zero"}


def test_relevance_level_2_hand_made() -> None:
    """Level 2: grade-1 documents are not relevant for map/P but keep gain 1 in ndcg.

    ``q`` has only grade-1 documents: map 0, ndcg 1 (its ideal is made of grade-1 gains).
    """
    run = {"q": {"a": 1.0, "b": 0.5, "c": 0.2}, "p": {"b": 1.0, "a": 0.5, "c": 0.1}}
    qrels = {"q": {"a": 1, "b": 1, "c": 0}, "p": {"a": 2, "b": 1, "c": 4}}
    recs, truth = _frames(run, qrels)
    _compare(recs, truth, qrels, run, (1, 2, 3), level=2)
    ev = rv.evaluate(recs, truth, ["ap", "ndcg"], convention="trec_eval",
                     relevance_threshold=2)
    assert ev.per_user.loc["q"].tolist() == [0.0, 1.0]


def test_scores_are_read_in_single_precision_like_trec_eval() -> None:
    """1 + 1e-9 and 1 are one float32 value: a tie, broken by docno descending (b, a).

    trec_eval stores scores as C ``float``; the preset's ``score_precision='float32'``
    does the same, so the relevant ``a`` is second in both. receval's own default
    (double precision) ranks ``a`` first.
    """
    run = {"q": {"a": 1.0 + 1e-9, "b": 1.0}}
    qrels = {"q": {"a": 1, "b": 0}}
    recs, truth = _frames(run, qrels)
    trec = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank", "P.1"}).evaluate(run)["q"]
    ev = rv.evaluate(recs, truth, ["mrr", "precision@1"], convention="trec_eval")
    assert (trec["recip_rank"], trec["P_1"]) == (0.5, 0.0)
    assert ev["mrr"] == 0.5
    assert ev["precision@1"] == 0.0
    assert rv.evaluate(recs, truth, "mrr")["mrr"] == 1.0


# -- differences listed in the preset ---------------------------------------------------------

_NEGATIVE_SCRIPT = """
import json, sys
import pytrec_eval
qrels, run = json.loads(sys.stdin.read())
print(json.dumps(pytrec_eval.RelevanceEvaluator(
    qrels, {"ndcg", "ndcg_cut.1,2", "map"}).evaluate(run)))
"""


def test_negative_judgements_are_refused_or_gain_zero() -> None:
    """Negative judgements: trec_eval accepts them, receval refuses them by default.

    The preset's text said trec_eval uses a negative grade as a negative nDCG gain; it does not:
    pytrec_eval-terrier 0.5.11 does not: its default gain table holds the grades 0..max
    only, so a negative grade has gain 0 (ndcg_cut_1 is 0, not -1, with the grade -2
    document first) and is never relevant. receval refuses negative grades
    (InvalidGradeError); with ``negative_grades='allow'`` they have gain 0 and are never
    relevant, which gives trec_eval's numbers here.

    pytrec_eval runs in a subprocess: after an evaluation with negative grades, a later
    RelevanceEvaluator in the same process was seen to hang (state left behind by the
    negative grades), which must not reach the rest of the session.
    """
    run = {"q": {"a": 1.0, "b": 0.5, "c": 0.2}}
    qrels = {"q": {"a": -2, "b": 1, "c": 2}}
    recs, truth = _frames(run, qrels)
    done = subprocess.run([sys.executable, "-c", _NEGATIVE_SCRIPT],
                          input=json.dumps([qrels, run]), capture_output=True, text=True,
                          timeout=60, check=True)
    trec = json.loads(done.stdout)["q"]
    # gain 0 for a: ideal c, b = 2 + 1/log2(3); run a, b, c = 0 + 1/log2(3) + 2/2
    ideal = 2 + 1 / np.log2(3)
    assert trec["ndcg_cut_1"] == 0.0
    assert trec["ndcg"] == pytest.approx((1 / np.log2(3) + 1) / ideal)
    with pytest.raises(InvalidGradeError):
        rv.evaluate(recs, truth, "ndcg", convention="trec_eval")
    ev = rv.evaluate(recs, truth, ["ndcg", "ndcg@1", "ndcg@2", "ap"], convention="trec_eval",
                     negative_grades="allow")
    for label, measure in zip(ev.labels, ("ndcg", "ndcg_cut_1", "ndcg_cut_2", "map"),
                              strict=True):
        assert_close(ev[label], trec[measure], f"{label} vs {measure}")


def test_trec_eval_c_is_missing_recs_zero() -> None:
    """trec_eval -c scores queries missing from the run 0; the preset leaves them out.

    pytrec_eval has no ``-c`` and evaluates only the queries of the run; ``-c`` is emulated
    by giving the missing query one unjudged document (every measure here is then 0).
    With the preset ``no_run`` is left out, so the mean differs from the ``-c`` mean;
    ``missing_recs='zero'`` gives the ``-c`` numbers.
    """
    run = {"q": {"a": 1.0, "b": 0.5}}
    qrels = {"q": {"a": 1, "b": 2}, "no_run": {"a": 1}}
    recs, truth = _frames(run, qrels)
    measures = {"map", "ndcg", "P.2"}
    with_c = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(
        {**run, "no_run": {"unjudged": 0.0}})
    mean_c = {m: sum(v[m] for v in with_c.values()) / 2 for m in ("map", "ndcg", "P_2")}
    names = ["ap", "ndcg", "precision@2"]
    ev = rv.evaluate(recs, truth, names, convention="trec_eval")
    ev_c = rv.evaluate(recs, truth, names, convention="trec_eval", missing_recs="zero")
    for name, measure in zip(names, ("map", "ndcg", "P_2"), strict=True):
        assert not close(ev[name], mean_c[measure])
        assert_close(ev_c[name], mean_c[measure], f"{name} vs {measure} -c")
    assert set(ev.per_user.index) == {"q"}
