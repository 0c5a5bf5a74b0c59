"""Hand-computed values of every ranking metric family, the user policies and the tie policies.

The expected numbers are written as arithmetic, so that each can be checked with a pencil.
The tie-policy tests enumerate every ordering of the tied blocks with itertools.permutations
and run a small pure-Python definition of each metric on each ordering.
"""

from __future__ import annotations

import contextlib
import itertools
import math
from math import log2

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval.exceptions import MissingUsersError, TiesAtCutoffWarning, UndefinedMetricWarning
from tests.frames import recs_frame, truth_frame

TOL = 1e-12


# -- helpers ---------------------------------------------------------------------------------


def label(metric: str) -> str:
    return rv.metrics.parse(metric).label


def per_user(ev: rv.EvaluationResult, metric: str) -> pd.Series:
    return ev.per_user[label(metric)]


# ============================================================================================
# Three users, graded truth
#   u1: a b c d e      truth a:3 c:1 e:2 x:2   -> list grades 3 0 1 0 2, |R| = 4 (x unseen)
#   u2: f g h          truth h:1               -> list grades 0 0 1,     |R| = 1
#   u3: i j k l        truth m:2 n:1           -> list grades 0 0 0 0,   |R| = 2 (no hit)
# ============================================================================================
RECS3 = {"u1": ["a", "b", "c", "d", "e"], "u2": ["f", "g", "h"], "u3": ["i", "j", "k", "l"]}
TRUTH3 = {"u1": {"a": 3, "c": 1, "e": 2, "x": 2}, "u2": {"h": 1}, "u3": {"m": 2, "n": 1}}


def f_beta(p: float, r: float, beta: float) -> float:
    return 0.0 if p + r == 0 else (1 + beta**2) * p * r / (beta**2 * p + r)


# u1's DCG@5 and IDCG@5 terms, reused below
DCG_U1 = 3 / log2(2) + 1 / log2(4) + 2 / log2(6)
IDCG_U1 = 3 / log2(2) + 2 / log2(3) + 2 / log2(4) + 1 / log2(5)
DCG_U2 = 1 / log2(4)
IDCG_U2 = 1 / log2(2)
IDCG_U3 = 2 / log2(2) + 1 / log2(3)
RS_U1 = (2 ** (-0 / 2) + 2 ** (-2 / 2) + 2 ** (-4 / 2))            # hits at 1, 3, 5
RS_MAX_U1 = 2 ** (-0 / 2) + 2 ** (-1 / 2) + 2 ** (-2 / 2) + 2 ** (-3 / 2)  # min(5, 4) ranks
RS_U2, RS_MAX_U2 = 2 ** (-2 / 2), 2 ** (-0 / 2)
RS_MAX_U3 = 2 ** (-0 / 2) + 2 ** (-1 / 2)

EXPECTED3: dict[str, dict[str, float]] = {
    # precision: hits@k / k (a list shorter than k counts its empty places as misses)
    "precision@3": {"u1": 2 / 3, "u2": 1 / 3, "u3": 0 / 3},
    "precision@5": {"u1": 3 / 5, "u2": 1 / 5, "u3": 0 / 5},
    "precision": {"u1": 3 / 5, "u2": 1 / 3, "u3": 0 / 4},  # whole list as the set
    # recall: hits@k / |R|
    "recall@3": {"u1": 2 / 4, "u2": 1 / 1, "u3": 0 / 2},
    "recall@5": {"u1": 3 / 4, "u2": 1 / 1, "u3": 0 / 2},
    # F1 = 2PR / (P + R)
    "f1@3": {"u1": 2 * (2 / 3) * (2 / 4) / (2 / 3 + 2 / 4),
             "u2": 2 * (1 / 3) * (1 / 1) / (1 / 3 + 1 / 1), "u3": 0.0},
    # F_beta with beta = 2: (1 + 2^2) P R / (2^2 P + R)
    "fbeta(beta=2)@3": {"u1": (1 + 4) * (2 / 3) * (2 / 4) / (4 * (2 / 3) + 2 / 4),
                        "u2": (1 + 4) * (1 / 3) * 1 / (4 * (1 / 3) + 1), "u3": 0.0},
    "hit_rate@1": {"u1": 1.0, "u2": 0.0, "u3": 0.0},
    "hit_rate@3": {"u1": 1.0, "u2": 1.0, "u3": 0.0},
    "mrr": {"u1": 1 / 1, "u2": 1 / 3, "u3": 0.0},
    "mrr@2": {"u1": 1 / 1, "u2": 0.0, "u3": 0.0},
    # ARHR: sum of 1 / rank over the hits
    "arhr@5": {"u1": 1 / 1 + 1 / 3 + 1 / 5, "u2": 1 / 3, "u3": 0.0},
    # AP: sum over hits of P@i, over D
    "ap@5": {"u1": (1 / 1 + 2 / 3 + 3 / 5) / min(5, 4), "u2": (1 / 3) / min(5, 1),
             "u3": 0 / min(5, 2)},
    "ap(denominator=relevant)@5": {"u1": (1 / 1 + 2 / 3 + 3 / 5) / 4, "u2": (1 / 3) / 1,
                                   "u3": 0 / 2},
    "ap(denominator=hits)@5": {"u1": (1 / 1 + 2 / 3 + 3 / 5) / 3, "u2": (1 / 3) / 1, "u3": 0.0},
    "ap@3": {"u1": (1 / 1 + 2 / 3) / min(3, 4), "u2": (1 / 3) / min(3, 1), "u3": 0.0},
    "ap(denominator=relevant)@3": {"u1": (1 / 1 + 2 / 3) / 4, "u2": (1 / 3) / 1, "u3": 0.0},
    "ap(denominator=hits)@3": {"u1": (1 / 1 + 2 / 3) / 2, "u2": (1 / 3) / 1, "u3": 0.0},
    # CG: sum of gains
    "cg@5": {"u1": 3 + 0 + 1 + 0 + 2, "u2": 0 + 0 + 1, "u3": 0.0},
    "cg(gain=exponential)@5": {"u1": (2**3 - 1) + (2**1 - 1) + (2**2 - 1), "u2": 2**1 - 1,
                               "u3": 0.0},
    "cg(gain=binary)@5": {"u1": 1 + 1 + 1, "u2": 1, "u3": 0.0},
    "cg@2": {"u1": 3 + 0, "u2": 0 + 0, "u3": 0.0},
    # DCG
    "dcg@5": {"u1": DCG_U1, "u2": DCG_U2, "u3": 0.0},
    "dcg(discount=breese)@5": {"u1": 3 / 1 + 1 / log2(3) + 2 / log2(5), "u2": 1 / log2(3),
                               "u3": 0.0},
    "dcg(gain=exponential)@5": {"u1": 7 / log2(2) + 1 / log2(4) + 3 / log2(6),
                                "u2": 1 / log2(4), "u3": 0.0},
    # nDCG, ideal = all relevant items (truth) by decreasing grade
    "ndcg@5": {"u1": DCG_U1 / IDCG_U1, "u2": DCG_U2 / IDCG_U2, "u3": 0.0},
    "ndcg": {"u1": DCG_U1 / IDCG_U1, "u2": DCG_U2 / IDCG_U2, "u3": 0.0},
    "ndcg@3": {"u1": (3 / log2(2) + 1 / log2(4)) / (3 / log2(2) + 2 / log2(3) + 2 / log2(4)),
               "u2": (1 / log2(4)) / (1 / log2(2)), "u3": 0.0},
    "ndcg(gain=exponential)@5": {
        "u1": (7 / log2(2) + 1 / log2(4) + 3 / log2(6))
        / (7 / log2(2) + 3 / log2(3) + 3 / log2(4) + 1 / log2(5)),
        "u2": (1 / log2(4)) / (1 / log2(2)), "u3": 0.0},
    "ndcg(gain=binary)@5": {
        "u1": (1 / log2(2) + 1 / log2(4) + 1 / log2(6))
        / (1 / log2(2) + 1 / log2(3) + 1 / log2(4) + 1 / log2(5)),
        "u2": (1 / log2(4)) / (1 / log2(2)), "u3": 0.0},
    "ndcg(discount=breese)@5": {
        "u1": (3 / 1 + 1 / log2(3) + 2 / log2(5)) / (3 / 1 + 2 / 1 + 2 / log2(3) + 1 / log2(4)),
        "u2": (1 / log2(3)) / (1 / 1), "u3": 0.0},
    # ideal = the list itself reordered: u1 3 0 1 0 2 -> 3 2 1 0 0 ; u3 has IDCG 0 -> 0
    "ndcg(ideal=list)@5": {
        "u1": DCG_U1 / (3 / log2(2) + 2 / log2(3) + 1 / log2(4)),
        "u2": (1 / log2(4)) / (1 / log2(2)), "u3": 0.0},
    # rank score, alpha = 2: sum over hits 2^(-(i-1)/2) over the best for min(k, |R|) hits
    "rank_score(alpha=2)@5": {"u1": RS_U1 / RS_MAX_U1, "u2": RS_U2 / RS_MAX_U2, "u3": 0.0},
}


@pytest.fixture(scope="module")
def ev3() -> rv.EvaluationResult:
    return rv.evaluate(recs_frame(RECS3), truth_frame(TRUTH3), list(EXPECTED3))


@pytest.mark.parametrize("metric", list(EXPECTED3))
def test_three_users_per_user(ev3, metric):
    got = per_user(ev3, metric)
    for user, value in EXPECTED3[metric].items():
        assert got[user] == pytest.approx(value, abs=TOL), (metric, user, got[user], value)


@pytest.mark.parametrize("metric", list(EXPECTED3))
def test_three_users_macro_mean(ev3, metric):
    values = EXPECTED3[metric]
    assert ev3[metric] == pytest.approx(sum(values.values()) / 3, abs=TOL)


def test_fbeta_beta_is_not_beta_squared(ev3):
    p, r = 2 / 3, 2 / 4  # u1 at 3
    assert per_user(ev3, "fbeta(beta=2)@3")["u1"] == pytest.approx(f_beta(p, r, 2.0), abs=TOL)
    # counts form: (1 + b^2) hits / (b^2 |R| + k) = 5 * 2 / (4 * 4 + 3) = 10 / 19
    assert per_user(ev3, "fbeta(beta=2)@3")["u1"] == pytest.approx(10 / 19, abs=TOL)
    # beta read as beta^2 = 2 (trec_eval's set_F convention) would give 3PR / (2P + R) = 6/11
    assert (1 + 2) * p * r / (2 * p + r) == pytest.approx(6 / 11, abs=TOL)
    assert per_user(ev3, "fbeta(beta=2)@3")["u1"] != pytest.approx(6 / 11)
    assert rv.metrics.parse("f1@3") == rv.metrics.parse("fbeta(beta=1)@3")


def test_micro_aggregation():
    ev = rv.evaluate(recs_frame(RECS3), truth_frame(TRUTH3), [
        "precision(aggregation=micro)@5", "precision(aggregation=micro)",
        "recall(aggregation=micro)@5", "f1(aggregation=micro)@5",
        "ndcg(aggregation=micro)@5", "rank_score(alpha=2, aggregation=micro)@5"])
    # sum of hits over sum of k
    assert ev["precision(aggregation=micro)@5"] == pytest.approx((3 + 1 + 0) / (5 + 5 + 5),
                                                                 abs=TOL)
    # without k: sum of hits over sum of list lengths
    assert ev["precision(aggregation=micro)"] == pytest.approx((3 + 1 + 0) / (5 + 3 + 4), abs=TOL)
    # sum of hits over sum of |R|
    assert ev["recall(aggregation=micro)@5"] == pytest.approx((3 + 1 + 0) / (4 + 1 + 2), abs=TOL)
    # sum of 2 hits over sum of (|R| + k)
    assert ev["f1(aggregation=micro)@5"] == pytest.approx(
        2 * (3 + 1 + 0) / ((4 + 5) + (1 + 5) + (2 + 5)), abs=TOL)
    # sum of DCG over sum of IDCG
    assert ev["ndcg(aggregation=micro)@5"] == pytest.approx(
        (DCG_U1 + DCG_U2 + 0) / (IDCG_U1 + IDCG_U2 + IDCG_U3), abs=TOL)
    # Breese's pooled rank score
    assert ev["rank_score(alpha=2, aggregation=micro)@5"] == pytest.approx(
        (RS_U1 + RS_U2 + 0) / (RS_MAX_U1 + RS_MAX_U2 + RS_MAX_U3), abs=TOL)


# ============================================================================================
# edge cases
# ============================================================================================
def test_list_shorter_than_k_precision_divides_by_k():
    recs = recs_frame({"u": ["a", "b", "c"]})
    truth = truth_frame({"u": {"a": 1, "c": 1}})
    ev = rv.evaluate(recs, truth, ["precision@3", "precision@5", "precision@10", "precision"])
    assert ev["precision@3"] == pytest.approx(2 / 3, abs=TOL)
    assert ev["precision@5"] == pytest.approx(2 / 5, abs=TOL)
    assert ev["precision@10"] == pytest.approx(2 / 10, abs=TOL)
    assert ev["precision"] == pytest.approx(2 / 3, abs=TOL)


def test_whole_list_ap_divides_by_relevant_count():
    # list of 3 (a, b, c), 4 relevant items (a, c recommended at ranks 1 and 3; y, z unseen).
    # sum of P@i at the hits: P@1 = 1/1, P@3 = 2/3.
    recs = recs_frame({"u": ["a", "b", "c"]})
    truth = truth_frame({"u": {"a": 3, "c": 1, "y": 2, "z": 1}})
    ev = rv.evaluate(recs, truth, ["map", "map@3", "ap(denominator=relevant)",
                                   "ap(denominator=min_relevant_list)", "ap(denominator=k)",
                                   "ap(denominator=min_k_relevant)@2"])
    s = 1 / 1 + 2 / 3
    # whole list: D = |R| = 4 (trec_eval's map), not min(n = 3, |R| = 4) = 3
    assert ev["map"] == pytest.approx(s / 4, abs=TOL)
    assert ev["map"] == ev["ap(denominator=relevant)"]
    # with a cutoff the default stays min(k, |R|): min(3, 4) = 3
    assert ev["map@3"] == pytest.approx(s / 3, abs=TOL)
    # @2: one hit (P@1 = 1) over min(2, 4) = 2
    assert ev["ap(denominator=min_k_relevant)@2"] == pytest.approx(1 / 2, abs=TOL)
    # the old whole-list denominator min(|R|, n) = 3 is still selectable, and k = n = 3
    assert ev["ap(denominator=min_relevant_list)"] == pytest.approx(s / 3, abs=TOL)
    assert ev["ap(denominator=k)"] == pytest.approx(s / 3, abs=TOL)


def test_k_larger_than_list():
    # list of 3, 4 relevant items (grades 3, 2, 1 recommended at 1, 3; 2 and 1 unseen)
    recs = recs_frame({"u": ["a", "b", "c"]})
    truth = truth_frame({"u": {"a": 3, "c": 1, "y": 2, "z": 1}})
    ev = rv.evaluate(recs, truth, ["recall@10", "ndcg@10", "ndcg(ideal=list)@10", "map@10",
                                   "ap(denominator=hits)@10", "hit_rate@10", "mrr@10",
                                   "rank_score(alpha=2)@10", "dcg@10", "dcg@3"])
    assert ev["recall@10"] == pytest.approx(2 / 4, abs=TOL)
    # DCG@10 = DCG of the whole list; IDCG@10 sums all 4 relevant items (3, 2, 1, 1)
    dcg = 3 / log2(2) + 1 / log2(4)
    assert ev["dcg@10"] == pytest.approx(dcg, abs=TOL)
    assert ev["dcg@10"] == ev["dcg@3"]
    assert ev["ndcg@10"] == pytest.approx(
        dcg / (3 / log2(2) + 2 / log2(3) + 1 / log2(4) + 1 / log2(5)), abs=TOL)
    # the list's own ideal: 3, 1, 0
    assert ev["ndcg(ideal=list)@10"] == pytest.approx(dcg / (3 / log2(2) + 1 / log2(3)), abs=TOL)
    assert ev["map@10"] == pytest.approx((1 / 1 + 2 / 3) / min(10, 4), abs=TOL)
    assert ev["ap(denominator=hits)@10"] == pytest.approx((1 / 1 + 2 / 3) / 2, abs=TOL)
    assert ev["hit_rate@10"] == 1.0
    assert ev["mrr@10"] == 1.0
    assert ev["rank_score(alpha=2)@10"] == pytest.approx(
        (2 ** (-0 / 2) + 2 ** (-2 / 2))
        / (2 ** (-0 / 2) + 2 ** (-1 / 2) + 2 ** (-2 / 2) + 2 ** (-3 / 2)), abs=TOL)


def test_k_equals_one():
    recs = recs_frame({"u1": ["a", "b"], "u2": ["c", "d"]})
    truth = truth_frame({"u1": {"a": 2, "b": 3}, "u2": {"d": 1}})
    ev = rv.evaluate(recs, truth, ["precision@1", "recall@1", "f1@1", "hit_rate@1", "mrr@1",
                                   "arhr@1", "map@1", "ap(denominator=relevant)@1", "ndcg@1",
                                   "cg@1", "rank_score@1"])
    # u1: a (grade 2) first, relevant; u2: c first, not relevant
    assert ev["precision@1"] == pytest.approx((1 / 1 + 0) / 2, abs=TOL)
    assert ev["recall@1"] == pytest.approx((1 / 2 + 0 / 1) / 2, abs=TOL)
    assert ev["f1@1"] == pytest.approx((2 * 1 * 0.5 / (1 + 0.5) + 0) / 2, abs=TOL)
    assert ev["hit_rate@1"] == pytest.approx((1 + 0) / 2, abs=TOL)
    assert ev["mrr@1"] == pytest.approx((1 + 0) / 2, abs=TOL)
    assert ev["arhr@1"] == pytest.approx((1 + 0) / 2, abs=TOL)
    assert ev["map@1"] == pytest.approx((1 / min(1, 2) + 0) / 2, abs=TOL)
    assert ev["ap(denominator=relevant)@1"] == pytest.approx((1 / 2 + 0) / 2, abs=TOL)
    # nDCG@1: u1 2 / 3 (the best item has grade 3); u2 0
    assert ev["ndcg@1"] == pytest.approx(((2 / log2(2)) / (3 / log2(2)) + 0) / 2, abs=TOL)
    assert ev["cg@1"] == pytest.approx((2 + 0) / 2, abs=TOL)
    assert ev["rank_score@1"] == pytest.approx((1 + 0) / 2, abs=TOL)


def test_all_relevant():
    # every recommended item relevant, in the ideal order, and nothing else relevant
    recs = recs_frame({"u": ["a", "b", "c"]})
    truth = truth_frame({"u": {"a": 3, "b": 2, "c": 1}})
    metrics = ["precision@3", "recall@3", "f1@3", "hit_rate@3", "mrr", "map@3",
               "ap(denominator=relevant)@3", "ap(denominator=hits)@3", "ndcg@3",
               "ndcg(gain=exponential)@3", "ndcg(ideal=list)@3", "rank_score@3"]
    ev = rv.evaluate(recs, truth, metrics)
    for m in metrics:
        assert ev[m] == pytest.approx(1.0, abs=TOL), m
    ev2 = rv.evaluate(recs, truth, ["arhr@3", "cg@3", "dcg@3"])
    assert ev2["arhr@3"] == pytest.approx(1 / 1 + 1 / 2 + 1 / 3, abs=TOL)
    assert ev2["cg@3"] == pytest.approx(3 + 2 + 1, abs=TOL)
    assert ev2["dcg@3"] == pytest.approx(3 / log2(2) + 2 / log2(3) + 1 / log2(4), abs=TOL)


def test_none_relevant_in_list():
    recs = recs_frame({"u": ["a", "b", "c"]})
    truth = truth_frame({"u": {"y": 1, "z": 2}})
    metrics = ["precision@3", "recall@3", "f1@3", "fbeta(beta=2)@3", "hit_rate@3", "mrr",
               "arhr@3", "map@3", "ap(denominator=relevant)@3", "ap(denominator=hits)@3",
               "cg@3", "dcg@3", "ndcg@3", "ndcg(ideal=list)@3", "rank_score@3"]
    ev = rv.evaluate(recs, truth, metrics)
    for m in metrics:
        assert ev[m] == 0.0, m


def test_user_missing_from_recs_scores_zero_and_is_counted():
    recs = recs_frame({"u1": ["a", "b"]})
    truth = truth_frame({"u1": {"a": 1}, "u2": {"c": 1}})
    ev = rv.evaluate(recs, truth, ["precision@2", "ndcg@2", "map@2", "mrr"])
    assert list(ev.users.missing_recs) == ["u2"]
    assert sorted(ev.users.evaluated) == ["u1", "u2"]
    assert ev.users.n_evaluated == 2
    assert per_user(ev, "precision@2")["u2"] == 0.0
    assert ev["precision@2"] == pytest.approx((1 / 2 + 0) / 2, abs=TOL)
    assert ev["ndcg@2"] == pytest.approx((1 + 0) / 2, abs=TOL)
    assert ev["map@2"] == pytest.approx((1 + 0) / 2, abs=TOL)
    assert ev["mrr"] == pytest.approx((1 + 0) / 2, abs=TOL)
    # missing_recs='skip' leaves u2 out of the means, and says so
    ev_skip = rv.evaluate(recs, truth, ["precision@2"], missing_recs="skip")
    assert ev_skip["precision@2"] == pytest.approx(1 / 2, abs=TOL)
    assert list(ev_skip.users.skipped_missing_recs) == ["u2"]
    assert list(ev_skip.users.missing_recs) == ["u2"]
    with pytest.raises(MissingUsersError):
        rv.evaluate(recs, truth, ["precision@2"], missing_recs="error")


def test_user_in_recs_missing_from_truth_is_ignored_and_counted():
    recs = recs_frame({"u1": ["a", "b"], "u9": ["a", "c"]})
    truth = truth_frame({"u1": {"b": 1}})
    ev = rv.evaluate(recs, truth, ["precision@2", "mrr"])
    assert list(ev.users.recs_without_truth) == ["u9"]
    assert list(ev.users.evaluated) == ["u1"]
    assert "u9" not in ev.per_user.index
    assert ev["precision@2"] == pytest.approx(1 / 2, abs=TOL)
    assert ev["mrr"] == pytest.approx(1 / 2, abs=TOL)
    assert ev.users.n_users == 2
    with pytest.raises(MissingUsersError):
        rv.evaluate(recs, truth, ["precision@2"], recs_without_truth="error")


def _no_relevant_case() -> tuple[pd.DataFrame, pd.DataFrame]:
    # u0's only truth rows have grade 0: it has no relevant item
    recs = recs_frame({"u1": ["a", "b"], "u0": ["a", "b"]})
    truth = truth_frame({"u1": {"a": 1}, "u0": {"a": 0, "c": 0}})
    return recs, truth


def test_no_relevant_skip_by_default_warns_and_counts():
    recs, truth = _no_relevant_case()
    with pytest.warns(UndefinedMetricWarning):
        ev = rv.evaluate(recs, truth, ["precision@2", "ndcg@2"])
    assert list(ev.users.skipped_no_relevant) == ["u0"]
    assert list(ev.users.no_relevant) == ["u0"]
    assert list(ev.users.evaluated) == ["u1"]
    assert "u0" not in ev.per_user.index
    assert ev["precision@2"] == pytest.approx(1 / 2, abs=TOL)
    assert ev["ndcg@2"] == pytest.approx(1.0, abs=TOL)


def test_no_relevant_zero_scores_zero():
    recs, truth = _no_relevant_case()
    ev = rv.evaluate(recs, truth, ["precision@2", "ndcg@2", "recall@2", "map@2"],
                     no_relevant="zero")
    assert list(ev.users.no_relevant) == ["u0"]
    assert len(ev.users.skipped_no_relevant) == 0
    assert per_user(ev, "ndcg@2")["u0"] == 0.0
    assert ev["precision@2"] == pytest.approx((1 / 2 + 0) / 2, abs=TOL)
    assert ev["ndcg@2"] == pytest.approx((1 + 0) / 2, abs=TOL)
    assert ev["recall@2"] == pytest.approx((1 + 0) / 2, abs=TOL)
    assert ev["map@2"] == pytest.approx((1 + 0) / 2, abs=TOL)


def test_no_relevant_error_raises():
    recs, truth = _no_relevant_case()
    with pytest.raises(MissingUsersError):
        rv.evaluate(recs, truth, ["precision@2"], no_relevant="error")


def test_relevance_threshold():
    # threshold 2: grades 3 and 2 are relevant, grade 1 is not (and has gain 0)
    recs = recs_frame({"u1": ["a", "b", "c", "d", "e"], "u2": ["f", "g"]})
    truth = truth_frame({"u1": {"a": 3, "c": 1, "e": 2, "x": 2}, "u2": {"g": 1}})
    with pytest.warns(UndefinedMetricWarning):  # u2's only grade is 1 < 2: no relevant item
        ev = rv.evaluate(recs, truth, ["precision@5", "recall@5", "ndcg@5", "cg@5", "map@5",
                                       "mrr"], relevance_threshold=2)
    assert list(ev.users.skipped_no_relevant) == ["u2"]
    # u1: list grades 3 0 (1 -> 0) 0 2, relevant a, e, x
    assert ev["precision@5"] == pytest.approx(2 / 5, abs=TOL)
    assert ev["recall@5"] == pytest.approx(2 / 3, abs=TOL)
    assert ev["cg@5"] == pytest.approx(3 + 2, abs=TOL)
    assert ev["ndcg@5"] == pytest.approx(
        (3 / log2(2) + 2 / log2(6)) / (3 / log2(2) + 2 / log2(3) + 2 / log2(4)), abs=TOL)
    assert ev["map@5"] == pytest.approx((1 / 1 + 2 / 5) / min(5, 3), abs=TOL)
    assert ev["mrr"] == 1.0
    # without the threshold c (grade 1) counts and u2 is evaluated
    ev0 = rv.evaluate(recs, truth, ["precision@5", "cg@5"])
    assert per_user(ev0, "precision@5")["u1"] == pytest.approx(3 / 5, abs=TOL)
    assert per_user(ev0, "cg@5")["u1"] == pytest.approx(3 + 1 + 2, abs=TOL)


# ============================================================================================
# tie policies
# ============================================================================================
def _gain(g: float, kind: str) -> float:
    if g <= 0:
        return 0.0
    return {"linear": g, "exponential": 2.0**g - 1.0, "binary": 1.0}[kind]


def _disc(i: int, kind: str, alpha: float = 0.0) -> float:
    return {"log2": lambda: 1 / log2(i + 1),
            "breese": lambda: 1.0 if i <= 2 else 1 / log2(i),
            "halflife": lambda: 2.0 ** (-(i - 1) / alpha)}[kind]()


def oracle(spec: str, grades: list[float], ideal: list[float]) -> float:
    """Plain-Python value of a ranking metric for one ordering.

    ``grades``: grade of the item at each rank (0 = not relevant); ``ideal``: the grades of
    all the user's relevant items.
    """
    m = rv.metrics.parse(spec)
    k = m.k
    nominal = k if k else len(grades)
    top = grades[:nominal]
    rel = [g > 0 for g in top]
    hits = sum(rel)
    n_rel = len(ideal)
    if isinstance(m, rv.metrics.Precision):
        return hits / nominal
    if isinstance(m, rv.metrics.Recall):
        return hits / n_rel
    if isinstance(m, rv.metrics.FBeta):
        return f_beta(hits / nominal, hits / n_rel, m.beta)
    if isinstance(m, rv.metrics.HitRate):
        return float(hits > 0)
    if isinstance(m, rv.metrics.ReciprocalRank):
        return next((1 / i for i, r in enumerate(rel, start=1) if r), 0.0)
    if isinstance(m, rv.metrics.ARHR):
        return sum(1 / i for i, r in enumerate(rel, start=1) if r)
    if isinstance(m, rv.metrics.AveragePrecision):
        total, h = 0.0, 0
        for i, r in enumerate(rel, start=1):
            if r:
                h += 1
                total += h / i
        den = {"min_k_relevant": min(nominal, n_rel), "relevant": n_rel,
               "hits": hits}[m.denominator]
        return total / den if den else 0.0
    if isinstance(m, rv.metrics.CG):
        return sum(_gain(g, m.gain) for g in top)
    if isinstance(m, rv.metrics.DCG):
        return sum(_gain(g, m.gain) * _disc(i, m.discount) for i, g in enumerate(top, start=1))
    if isinstance(m, rv.metrics.NDCG):
        dcg = sum(_gain(g, m.gain) * _disc(i, m.discount) for i, g in enumerate(top, start=1))
        if m.ideal == "truth":
            best = sorted(ideal, reverse=True)[: (k or len(ideal))]
        else:
            best = sorted(grades, reverse=True)[:nominal]
        idcg = sum(_gain(g, m.gain) * _disc(i, m.discount) for i, g in enumerate(best, start=1))
        return dcg / idcg if idcg else 0.0
    if isinstance(m, rv.metrics.RankScore):
        num = sum(_disc(i, "halflife", m.alpha) for i, r in enumerate(rel, start=1) if r)
        best = min(k or n_rel, n_rel)
        return num / sum(_disc(j, "halflife", m.alpha) for j in range(1, best + 1))
    raise AssertionError(spec)  # pragma: no cover


# user "t": a 0.9 | d c b 0.5 (tied, in that input order) | e 0.1 ; z unseen
#   truth: d 1, c 3, e 2, z 2 (a and b are not relevant)
# user "s": p q 1.0 (tied) | r s t u 0.5 (tied) | v 0.2 ; w unseen
#   truth: p 1, r 1, t 2, v 1, w 3
# user "n": x y 0.5 (tied, neither relevant) | o 0.1 ; truth: o 1
# user "all": g h i j all tied at 0.3 ; truth: h 2, j 1
TIE_ROWS = [  # (user, item, score), input order; user t's rows deliberately out of score order
    ("t", "e", 0.1), ("t", "a", 0.9), ("t", "d", 0.5), ("t", "c", 0.5), ("t", "b", 0.5),
    ("s", "p", 1.0), ("s", "q", 1.0), ("s", "r", 0.5), ("s", "s", 0.5), ("s", "t", 0.5),
    ("s", "u", 0.5), ("s", "v", 0.2),
    ("n", "x", 0.5), ("n", "y", 0.5), ("n", "o", 0.1),
    ("all", "g", 0.3), ("all", "h", 0.3), ("all", "i", 0.3), ("all", "j", 0.3),
]
TIE_TRUTH = {"t": {"d": 1, "c": 3, "e": 2, "z": 2},
             "s": {"p": 1, "r": 1, "t": 2, "v": 1, "w": 3},
             "n": {"o": 1},
             "all": {"h": 2, "j": 1}}


def straddle_warning(policy: str) -> contextlib.AbstractContextManager:
    """Tied scores straddling a cutoff warn under the arbitrary policies stable and item."""
    if policy in ("stable", "item"):
        return pytest.warns(TiesAtCutoffWarning)
    return contextlib.nullcontext()


def tie_frames() -> tuple[pd.DataFrame, pd.DataFrame]:
    return (pd.DataFrame(TIE_ROWS, columns=["user", "item", "score"]),
            truth_frame(TIE_TRUTH))


def _blocks(user: str) -> list[list[str]]:
    """The user's items grouped in blocks of equal score, best block first, input order."""
    rows = [(item, score) for u, item, score in TIE_ROWS if u == user]
    scores = sorted({s for _, s in rows}, reverse=True)
    return [[item for item, s in rows if s == score] for score in scores]


def _order(user: str, policy: str) -> list[str]:
    grade = TIE_TRUTH[user]
    out = []
    for block in _blocks(user):
        if policy == "stable":
            out += block
        elif policy == "item":
            out += sorted(block)
        elif policy == "optimistic":
            out += sorted(block, key=lambda it: -grade.get(it, 0))
        elif policy == "pessimistic":
            out += sorted(block, key=lambda it: grade.get(it, 0))
    return out


def reference(spec: str, user: str, policy: str) -> float:
    grade = TIE_TRUTH[user]
    ideal = [g for g in grade.values() if g > 0]
    if policy != "expected":
        return oracle(spec, [grade.get(it, 0) for it in _order(user, policy)], ideal)
    # exact mean over every ordering of every tied block
    values = [oracle(spec, [grade.get(it, 0) for it in itertools.chain(*perm)], ideal)
              for perm in itertools.product(*(itertools.permutations(b)
                                              for b in _blocks(user)))]
    return sum(values) / len(values)


TIE_METRICS = [
    f"{name}{at}"
    for at in ("@1", "@2", "@3", "@4", "@5", "")
    for name in ("precision", "recall", "f1", "fbeta(beta=2)", "hit_rate", "mrr", "arhr", "ap",
                 "ap(denominator=relevant)", "ap(denominator=hits)", "cg",
                 "cg(gain=exponential)", "dcg", "dcg(gain=exponential)", "dcg(discount=breese)",
                 "ndcg", "ndcg(gain=exponential)", "ndcg(gain=binary)",
                 "ndcg(discount=breese)", "ndcg(ideal=list)", "rank_score(alpha=2)",
                 "rank_score")
]
POLICIES = ["stable", "item", "optimistic", "pessimistic", "expected"]


def test_tie_orders_as_documented():
    assert _order("t", "stable") == ["a", "d", "c", "b", "e"]       # input order
    assert _order("t", "item") == ["a", "b", "c", "d", "e"]         # ascending item id
    assert _order("t", "optimistic") == ["a", "c", "d", "b", "e"]   # relevant (best) first
    assert _order("t", "pessimistic") == ["a", "b", "d", "c", "e"]  # relevant last
    assert len(list(itertools.product(*(itertools.permutations(b)
                                        for b in _blocks("s"))))) == 2 * 24


@pytest.fixture(scope="module")
def tie_results() -> dict[str, rv.EvaluationResult]:
    recs, truth = tie_frames()
    out = {}
    for policy in POLICIES:
        with straddle_warning(policy):
            out[policy] = rv.evaluate(recs, truth, TIE_METRICS, ties=policy)
    return out


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("metric", TIE_METRICS)
def test_tie_policy_matches_enumeration(tie_results, policy, metric):
    ev = tie_results[policy]
    got = per_user(ev, metric)
    for user in TIE_TRUTH:
        want = reference(metric, user, policy)
        assert got[user] == pytest.approx(want, abs=TOL), (metric, policy, user, got[user], want)
    assert ev[metric] == pytest.approx(
        sum(reference(metric, u, policy) for u in TIE_TRUTH) / len(TIE_TRUTH), abs=TOL)


def test_ties_by_hand_ndcg_mrr_precision_at_2():
    # user t: a (not relevant) at 1; the block d(1) c(3) b(0) holds ranks 2-4; cut at k = 2
    idcg2 = 3 / log2(2) + 2 / log2(3)  # c 3, then e or z 2
    recs, truth = tie_frames()
    recs = recs[recs.user == "t"]
    truth = truth[truth.user == "t"]
    want = {
        "stable": {"ndcg@2": (1 / log2(3)) / idcg2, "mrr": 1 / 2, "precision@2": 1 / 2},
        "item": {"ndcg@2": 0 / idcg2, "mrr": 1 / 3, "precision@2": 0 / 2},       # a b c d e
        "optimistic": {"ndcg@2": (3 / log2(3)) / idcg2, "mrr": 1 / 2, "precision@2": 1 / 2},
        "pessimistic": {"ndcg@2": 0 / idcg2, "mrr": 1 / 3, "precision@2": 0 / 2},  # a b d c
        # rank 2 holds d, c or b with probability 1/3 each: mean gain (1 + 3 + 0) / 3;
        # the first relevant is at rank 2 w.p. 2/3, else at rank 3
        "expected": {"ndcg@2": ((1 + 3 + 0) / 3 / log2(3)) / idcg2,
                     "mrr": 2 / 3 * 1 / 2 + 1 / 3 * 1 / 3, "precision@2": (0 + 2 / 3) / 2},
    }
    for policy, values in want.items():
        with straddle_warning(policy):
            ev = rv.evaluate(recs, truth, list(values), ties=policy)
        for metric, value in values.items():
            assert ev[metric] == pytest.approx(value, abs=TOL), (policy, metric)


def test_per_metric_ties_override():
    recs, truth = tie_frames()
    cases = [("ndcg@2", "ndcg@2", "stable"), ("ndcg(ties=expected)@2", "ndcg@2", "expected"),
             ("ndcg(ties=optimistic)@2", "ndcg@2", "optimistic"),
             ("map(ties=pessimistic)@4", "map@4", "pessimistic"),
             ("mrr(ties=expected)", "mrr", "expected")]
    with pytest.warns(TiesAtCutoffWarning):  # ndcg@2 follows ties='stable'
        ev = rv.evaluate(recs, truth, [c[0] for c in cases], ties="stable")
    for metric, base, policy in cases:
        got = per_user(ev, metric)
        for user in TIE_TRUTH:
            assert got[user] == pytest.approx(reference(base, user, policy), abs=TOL), (
                metric, user)
    # the same metric under its own policy only: no warning when no stable/item metric has k
    ev2 = rv.evaluate(recs, truth, ["ndcg(ties=expected)@2"], ties="stable")
    assert ev2["ndcg(ties=expected)@2"] == ev["ndcg(ties=expected)@2"]


def test_expected_ties_hit_rate_straddling_block():
    # one relevant item among three tied at ranks 1-3, cut at 1 and 2: P(hit) = 1/3, 2/3
    recs = pd.DataFrame({"user": "u", "item": ["a", "b", "c", "d"],
                         "score": [0.5, 0.5, 0.5, 0.1]})
    truth = truth_frame({"u": {"b": 1}})
    ev = rv.evaluate(recs, truth, ["hit_rate@1", "hit_rate@2", "hit_rate@3", "mrr",
                                   "ap(denominator=hits)@2"], ties="expected")
    assert ev["hit_rate@1"] == pytest.approx(1 / 3, abs=TOL)
    assert ev["hit_rate@2"] == pytest.approx(1 - (2 / 3) * (1 / 2), abs=TOL)
    assert ev["hit_rate@3"] == 1.0
    assert ev["mrr"] == pytest.approx((1 / 1 + 1 / 2 + 1 / 3) / 3, abs=TOL)
    # AP over hits: 1 if b is first, 1/2 if second, 0 (no hit) if third
    assert ev["ap(denominator=hits)@2"] == pytest.approx((1 + 1 / 2 + 0) / 3, abs=TOL)


def test_stable_ties_follow_input_order_across_interleaved_users():
    # rows of two users interleaved; within the tie, u1's input order is y then x
    recs = pd.DataFrame({"user": ["u1", "u2", "u1", "u2", "u1"],
                         "item": ["y", "p", "x", "q", "w"],
                         "score": [0.5, 0.9, 0.5, 0.1, 0.7]})
    truth = truth_frame({"u1": {"x": 1}, "u2": {"q": 1}})
    ev = rv.evaluate(recs, truth, ["mrr"], ties="stable")
    # u1: w (0.7), y, x -> first relevant at 3; u2: p, q -> 2
    assert per_user(ev, "mrr")["u1"] == pytest.approx(1 / 3, abs=TOL)
    assert per_user(ev, "mrr")["u2"] == pytest.approx(1 / 2, abs=TOL)
    ev_item = rv.evaluate(recs, truth, ["mrr"], ties="item")
    assert per_user(ev_item, "mrr")["u1"] == pytest.approx(1 / 2, abs=TOL)


def test_rank_column_instead_of_score():
    # ranks 1 = best; tied ranks are ties
    recs = pd.DataFrame({"user": "u", "item": ["a", "b", "c"], "rank": [2, 1, 2]})
    truth = truth_frame({"u": {"a": 1}})
    ev = rv.evaluate(recs, truth, ["mrr", "mrr(ties=optimistic)", "mrr(ties=expected)"])
    assert ev["mrr"] == pytest.approx(1 / 2, abs=TOL)          # b, then a c in input order
    assert ev["mrr(ties=optimistic)"] == pytest.approx(1 / 2, abs=TOL)
    assert ev["mrr(ties=expected)"] == pytest.approx((1 / 2 + 1 / 3) / 2, abs=TOL)


def test_oracle_sanity():
    # the oracle itself on the seed-002 list
    g = [3, 2, 3, 0, 1, 2]
    assert oracle("ndcg@6", g, [3, 2, 3, 1, 2]) == pytest.approx(
        (3 + 2 / log2(3) + 3 / 2 + 1 / log2(6) + 2 / log2(7))
        / (3 + 3 / log2(3) + 2 / 2 + 2 / log2(5) + 1 / log2(6)), abs=TOL)
    assert math.isclose(oracle("ap@4", [1, 0, 1, 0], [1, 1]), (1 + 2 / 3) / 2)
    assert np.isclose(oracle("rank_score(alpha=2)@1", [0, 1], [1]), 0.0)


# ============================================================================================
# rating metrics: rank correlations, thresholds, missing predictions
# ============================================================================================
RATINGS = {  # user -> [(item, true rating, predicted rating)]
    "a": [("v", 5, 4.5), ("w", 3, 3.2), ("x", 4, 3.0), ("y", 1, 1.1), ("z", 2, 2.5)],
    "b": [("p", 4, 3.5), ("q", 4, 4.0), ("r", 2, 1.0), ("s", 5, 4.0)],
}


def rating_frames() -> tuple[pd.DataFrame, pd.DataFrame]:
    truth = pd.DataFrame([(u, i, float(t)) for u, rows in RATINGS.items() for i, t, _ in rows],
                         columns=["user", "item", "rating"])
    recs = pd.DataFrame([(u, i, float(p)) for u, rows in RATINGS.items() for i, _, p in rows],
                        columns=["user", "item", "score"])
    return recs, truth


def test_kendall_tau_b_by_hand():
    import scipy.stats

    # a: 10 pairs, only (w, x) is discordant (3.2 > 3.0 but 3 < 4): (9 - 1) / 10
    tau_a = (9 - 1) / 10
    # b: pairs (p,r) (p,s) (q,r) (r,s) concordant, (p,q) tied in truth, (q,s) tied in
    # prediction: n0 = 6, n1 = n2 = 1 -> (4 - 0) / sqrt((6 - 1)(6 - 1))
    tau_b = (4 - 0) / math.sqrt((6 - 1) * (6 - 1))
    recs, truth = rating_frames()
    ev = rv.evaluate(recs, truth, ["kendall"])
    assert per_user(ev, "kendall")["a"] == pytest.approx(tau_a, abs=TOL)
    assert per_user(ev, "kendall")["b"] == pytest.approx(tau_b, abs=TOL)
    assert ev["kendall"] == pytest.approx((tau_a + tau_b) / 2, abs=TOL)
    for user, tau in (("a", tau_a), ("b", tau_b)):
        t = [r[1] for r in RATINGS[user]]
        p = [r[2] for r in RATINGS[user]]
        assert scipy.stats.kendalltau(p, t).statistic == pytest.approx(tau, abs=TOL)


def test_rating_threshold_from_relevance_threshold():
    # good = rating >= 4: a predicts v good (true 5): TP; truly good v, x -> x missed
    # b predicts q, s good (true 4, 5): 2 TP; truly good p, q, s -> p missed
    recs, truth = rating_frames()
    ev = rv.evaluate(recs, truth, ["rating_precision", "rating_recall", "rating_f1",
                                   "rating_recall(aggregation=macro)"], relevance_threshold=4)
    assert ev["rating_precision"] == pytest.approx((1 + 2) / (1 + 2), abs=TOL)
    assert ev["rating_recall"] == pytest.approx((1 + 2) / (2 + 3), abs=TOL)
    assert ev["rating_f1"] == pytest.approx(2 * 3 / (2 * 3 + 0 + 2), abs=TOL)
    assert ev["rating_recall(aggregation=macro)"] == pytest.approx((1 / 2 + 2 / 3) / 2, abs=TOL)


def test_missing_predictions_policies():
    recs, truth = rating_frames()
    recs = recs[recs.item != "r"]  # b's rating of r (true 2) has no prediction
    with pytest.raises(rv.exceptions.MissingPredictionError):
        rv.evaluate(recs, truth, ["mae"])
    err = {"a": [0.5, 0.2, 1.0, 0.1, 0.5], "b": [0.5, 0.0, 1.0]}  # |pred - true|, r left out
    ev = rv.evaluate(recs, truth, ["mae"], missing_predictions="skip")
    assert ev["mae"] == pytest.approx((sum(err["a"]) + sum(err["b"])) / 8, abs=TOL)
    assert ev.users.n_missing_predictions == 1
    # fill with 3: |3 - 2| = 1 for r
    ev3 = rv.evaluate(recs, truth, ["mae"], missing_predictions=3.0)
    assert ev3["mae"] == pytest.approx((sum(err["a"]) + sum(err["b"]) + 1) / 9, abs=TOL)
    # fill with the mean truth rating (5 + 3 + 4 + 1 + 2 + 4 + 4 + 2 + 5) / 9 = 30 / 9
    evm = rv.evaluate(recs, truth, ["mae"], missing_predictions="global_mean")
    assert evm["mae"] == pytest.approx(
        (sum(err["a"]) + sum(err["b"]) + abs(30 / 9 - 2)) / 9, abs=TOL)


def test_missing_recs_skip_leaves_absent_users_out_of_rating_metrics():
    recs, truth = rating_frames()
    recs = recs[recs.user != "b"]  # b has truth ratings and no recommendation row at all
    err_a = [0.5, 0.2, 1.0, 0.1, 0.5]  # |pred - true| of a's five ratings
    with pytest.raises(rv.exceptions.MissingPredictionError):
        rv.evaluate(recs, truth, ["mae"])  # missing_recs='zero': b's ratings are missing
    ev = rv.evaluate(recs, truth, ["mae", "mae(aggregation=macro)"], missing_recs="skip")
    assert ev["mae"] == pytest.approx(sum(err_a) / 5, abs=TOL)  # 2.3 / 5 = 0.46
    assert ev["mae(aggregation=macro)"] == pytest.approx(sum(err_a) / 5, abs=TOL)
    assert list(ev.users.rating_evaluated) == ["a"]
    assert list(ev.users.rating_skipped) == ["b"]
    assert ev.users.n_missing_predictions == 0  # a has every prediction


def test_ndcg_zero_ideal_by_hand():
    # relevance_threshold=0: every truth row is relevant, and a grade-0 row has gain 0.
    # u: list a b, truth a=0 b=2 -> DCG = 0/log2(2) + 2/log2(3), IDCG = 2/log2(2) + 0
    # v: list a b, truth a=0 only -> DCG = 0, IDCG = 0: 0/0
    recs = recs_frame({"u": ["a", "b"], "v": ["a", "b"]})
    truth = truth_frame({"u": {"a": 0, "b": 2}, "v": {"a": 0}})
    u = (2 / math.log2(3)) / 2
    ev = rv.evaluate(recs, truth, ["ndcg(gain=linear)@2", "ndcg(gain=linear, zero_ideal=skip)@2"],
                     relevance_threshold=0)
    scored, skipped = ev.labels
    assert ev.per_user[scored].tolist() == pytest.approx([u, 0.0], abs=TOL)
    assert ev[scored] == pytest.approx((u + 0.0) / 2, abs=TOL)  # v scored 0
    assert ev.per_user[skipped]["u"] == pytest.approx(u, abs=TOL)
    assert math.isnan(ev.per_user[skipped]["v"])
    assert ev[skipped] == pytest.approx(u, abs=TOL)  # v left out: u / 1
    assert (ev.summaries[skipped].n_users, ev.summaries[skipped].n_excluded) == (1, 1)
    # micro: the sums are the same either way, (DCG_u + 0) / (IDCG_u + 0)
    micro = rv.evaluate(recs, truth, ["ndcg(gain=linear, aggregation=micro, zero_ideal=skip)@2"],
                        relevance_threshold=0)
    assert micro[micro.labels[0]] == pytest.approx(u, abs=TOL)


# -- denominator variants of other libraries and the descending item order ----------------------
def test_precision_recall_ap_denominator_variants():
    # one user, list a b c (scores 3 2 1), relevant a and c and z (z not recommended); k = 5
    recs = recs_frame({"u": ["a", "b", "c"]})
    truth = truth_frame({"u": {"a": 1, "c": 1, "z": 1}})
    ev = rv.evaluate(recs, truth, [
        "precision@5", "precision(denominator=list_length)@5",
        "recall@2", "recall(denominator=min_k_relevant)@2",
        "ap(denominator=min_relevant_list)@2", "ap(denominator=k)@5",
    ])
    assert ev["precision@5"] == pytest.approx(2 / 5, abs=TOL)  # hits 2 over k = 5
    assert ev["precision(denominator=list_length)@5"] == pytest.approx(2 / 3, abs=TOL)  # / n
    assert ev["recall@2"] == pytest.approx(1 / 3, abs=TOL)  # a only, over |R| = 3
    assert ev["recall(denominator=min_k_relevant)@2"] == pytest.approx(1 / 2, abs=TOL)
    # AP@2: hits at rank 1 only -> P@1 = 1; D = min(|R| = 3, n within k = 2) = 2
    assert ev["ap(denominator=min_relevant_list)@2"] == pytest.approx(1 / 2, abs=TOL)
    # AP@5: P@1 = 1, P@3 = 2/3 -> (1 + 2/3) / k = 5
    assert ev["ap(denominator=k)@5"] == pytest.approx((1 + 2 / 3) / 5, abs=TOL)


def test_item_desc_breaks_ties_by_descending_id():
    # three tied items; only 'a' is relevant: descending ids put it last -> RR = 1/3
    recs = pd.DataFrame({"user": ["u"] * 3, "item": ["a", "b", "c"], "score": [1.0] * 3})
    truth = truth_frame({"u": {"a": 1}})
    ev = rv.evaluate(recs, truth, ["mrr", "mrr(ties=item)"], ties="item_desc")
    assert ev["mrr"] == pytest.approx(1 / 3, abs=TOL)
    assert ev["mrr(ties=item)"] == pytest.approx(1.0, abs=TOL)


def test_ln_discount_and_uncut_ideal():
    # one user, list a b (grades 2, 0), relevant a (2) and z (1, not recommended); k = 1
    recs = recs_frame({"u": ["a", "b"]})
    truth = truth_frame({"u": {"a": 2, "z": 1}})
    ev = rv.evaluate(recs, truth, ["dcg(discount=ln)@2", "ndcg(discount=ln)@2", "ndcg@2",
                                   "ndcg(ideal=truth_uncut)@1"])
    assert ev["dcg(discount=ln)@2"] == pytest.approx(2 / math.log(2), abs=TOL)
    # nDCG does not depend on the base of the logarithm
    assert ev["ndcg(discount=ln)@2"] == pytest.approx(ev["ndcg@2"], abs=TOL)
    # @1 with the ideal over every relevant item, not cut: 2 / (2/log2(2) + 1/log2(3))
    assert ev["ndcg(ideal=truth_uncut)@1"] == pytest.approx(2 / (2 + 1 / math.log2(3)), abs=TOL)
    e = rv.explain("ndcg(ideal=truth_uncut)@1", [2, 0], ideal=[2, 1])
    assert e.ideal_table["grade"].tolist() == [2.0, 1.0]
    assert e.value == pytest.approx(2 / (2 + 1 / math.log2(3)), abs=TOL)
