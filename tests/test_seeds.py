"""Every worked example of the course material in /work/shared/seeds/, recomputed exactly.

Each test writes the seed's formula out in Python, asserts that receval agrees with it to
1e-12, and records the rounded number the seed prints. Where the seed's number is off (it
rounded intermediate terms, or has a typo), a comment says so and the exact value is asserted.

Seeds:
    000  IIC 3633 (PUC Chile) "Métricas de Evaluación" slides, in Spanish
    001  "推荐质量评价指标" blog post, in Chinese
    002  "推荐系统常用评估指标" blog post, in Chinese
    003  Korean lecture notes on prediction accuracy / decision support / rank metrics
    004  English "Metrics" notebook page (NDCG@3 of 10, 20, 3, 7, 10; object 8 example)
"""

from __future__ import annotations

import contextlib
import math
from math import log, log2, sqrt

import numpy as np
import pandas as pd
import pytest
import scipy.stats

import receval as rv
from receval.exceptions import TiesAtCutoffWarning
from tests.frames import recs_frame, truth_frame

TOL = 1e-12


# -- helpers ---------------------------------------------------------------------------------


def one_list(grades: list[float], extra: list[float] = ()) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A single user whose recommended items m1..mn have ``grades``; ``extra`` are grades of
    judged items that were not recommended."""
    items = [f"m{i}" for i in range(1, len(grades) + 1)]
    others = [f"x{i}" for i in range(1, len(extra) + 1)]
    truth = dict(zip(items, grades, strict=True)) | dict(zip(others, extra, strict=True))
    return recs_frame({"u": items}), truth_frame({"u": truth})


def per_user(ev: rv.EvaluationResult, metric: str) -> pd.Series:
    return ev.per_user[rv.metrics.parse(metric).label]


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=TOL, abs_tol=TOL)


# ============================================================================================
# Seed 002 (Chinese, Wikipedia example): grades 3, 2, 3, 0, 1, 2
# ============================================================================================
SEED002_GRADES = [3, 2, 3, 0, 1, 2]


def test_seed002_cg6():
    # CG@6 = 3 + 2 + 3 + 0 + 1 + 2 = 11
    cg = 3 + 2 + 3 + 0 + 1 + 2
    assert cg == 11
    recs, truth = one_list(SEED002_GRADES)
    ev = rv.evaluate(recs, truth, ["cg@6"])
    assert ev["cg@6"] == pytest.approx(cg, abs=TOL)


def test_seed002_dcg6_idcg6_ndcg6():
    # linear gain rel_i / log2(i + 1), eq. (11)
    dcg = 3 / log2(2) + 2 / log2(3) + 3 / log2(4) + 0 / log2(5) + 1 / log2(6) + 2 / log2(7)
    # ideal order 3, 3, 2, 2, 1, 0
    idcg = 3 / log2(2) + 3 / log2(3) + 2 / log2(4) + 2 / log2(5) + 1 / log2(6) + 0 / log2(7)
    ndcg = dcg / idcg
    # the seed prints DCG@6 = 6.861, IDCG@6 = 7.141, NDCG@6 = 0.961
    assert round(dcg, 3) == 6.861
    assert round(idcg, 3) == 7.141
    assert round(ndcg, 3) == 0.961

    recs, truth = one_list(SEED002_GRADES)
    ev = rv.evaluate(recs, truth, ["dcg@6", "ndcg@6"])
    assert ev["dcg@6"] == pytest.approx(dcg, abs=TOL)
    assert ev["ndcg@6"] == pytest.approx(ndcg, abs=TOL)
    # IDCG@6 is the DCG@6 of the ideal ordering
    recs_i, truth_i = one_list([3, 3, 2, 2, 1, 0])
    assert rv.evaluate(recs_i, truth_i, ["dcg@6"])["dcg@6"] == pytest.approx(idcg, abs=TOL)
    # and explain() exposes both terms and the seed's table column rel_i / log2(i + 1)
    ex = rv.explain("ndcg@6", SEED002_GRADES)
    assert ex.numerator == pytest.approx(dcg, abs=TOL)
    assert ex.denominator == pytest.approx(idcg, abs=TOL)
    # seed table: 3, 1.262, 1.5, 0, 0.387, 0.712
    assert [round(c, 3) for c in ex.table["contribution"]] == [3, 1.262, 1.5, 0, 0.387, 0.712]


def test_seed002_exponential_gain_equals_linear_on_binary_grades():
    # "当 rel_i ∈ {0,1} 时，公式(11)等价于(12)": 2^1 - 1 = 1 and 2^0 - 1 = 0
    grades = [1, 0, 1, 1, 0, 0]
    dcg = 1 / log2(2) + 1 / log2(4) + 1 / log2(5)
    idcg = 1 / log2(2) + 1 / log2(3) + 1 / log2(4)
    recs, truth = one_list(grades)
    ev = rv.evaluate(recs, truth, ["ndcg@6", "ndcg(gain=exponential)@6", "dcg@6",
                                   "dcg(gain=exponential)@6"])
    assert ev["dcg@6"] == pytest.approx(dcg, abs=TOL)
    assert ev["dcg(gain=exponential)@6"] == pytest.approx(dcg, abs=TOL)
    assert ev["ndcg@6"] == pytest.approx(dcg / idcg, abs=TOL)
    assert ev["ndcg(gain=exponential)@6"] == pytest.approx(dcg / idcg, abs=TOL)


def test_seed002_exponential_variant_eq12():
    # eq. (12) on the same grades 3, 2, 3, 0, 1, 2: gain 2^rel - 1
    dcg = ((2**3 - 1) / log2(2) + (2**2 - 1) / log2(3) + (2**3 - 1) / log2(4) + 0
           + (2**1 - 1) / log2(6) + (2**2 - 1) / log2(7))
    idcg = ((2**3 - 1) / log2(2) + (2**3 - 1) / log2(3) + (2**2 - 1) / log2(4)
            + (2**2 - 1) / log2(5) + (2**1 - 1) / log2(6))
    recs, truth = one_list(SEED002_GRADES)
    ev = rv.evaluate(recs, truth, ["dcg(gain=exponential)@6", "ndcg(gain=exponential)@6"])
    assert ev["dcg(gain=exponential)@6"] == pytest.approx(dcg, abs=TOL)
    assert ev["ndcg(gain=exponential)@6"] == pytest.approx(dcg / idcg, abs=TOL)


SEED002_MICRO_RECS = {"u1": ["a", "b", "c", "d"], "u2": ["e", "f", "g", "h"],
                      "u3": ["i", "j", "k", "l"]}
SEED002_MICRO_TRUTH = {"u1": {"a": 1, "c": 1, "x": 1, "y": 1, "z": 1},  # |T| = 5, 2 hits
                       "u2": {"f": 1},                                  # |T| = 1, 1 hit
                       "u3": {"i": 1, "j": 1, "k": 1}}                  # |T| = 3, 3 hits


def test_seed002_micro_precision_recall_at_n():
    # eq. (3)/(4): sums over users of |R(u) ∩ T(u)| over sums of |T(u)| / |R(u)|, N = 4
    p_micro = (2 + 1 + 3) / (4 + 4 + 4)
    r_micro = (2 + 1 + 3) / (5 + 1 + 3)
    # per-user means for contrast
    p_macro = (2 / 4 + 1 / 4 + 3 / 4) / 3
    r_macro = (2 / 5 + 1 / 1 + 3 / 3) / 3
    # eq. (5) on the micro precision and recall
    f1 = 2 * p_micro * r_micro / (p_micro + r_micro)
    assert round(p_micro, 3) == 0.5
    assert round(r_micro, 3) == 0.667
    assert round(f1, 4) == round(4 / 7, 4)
    recs, truth = recs_frame(SEED002_MICRO_RECS), truth_frame(SEED002_MICRO_TRUTH)
    ev = rv.evaluate(recs, truth, ["precision(aggregation=micro)@4",
                                   "recall(aggregation=micro)@4", "precision@4", "recall@4",
                                   "f1(aggregation=micro)@4"])
    assert ev["precision(aggregation=micro)@4"] == pytest.approx(p_micro, abs=TOL)
    assert ev["recall(aggregation=micro)@4"] == pytest.approx(r_micro, abs=TOL)
    assert ev["precision@4"] == pytest.approx(p_macro, abs=TOL)
    assert ev["recall@4"] == pytest.approx(r_macro, abs=TOL)
    assert r_micro != pytest.approx(r_macro)  # micro and macro recall really differ here
    # micro F1 = sum 2 hits / sum (|T| + N) = 12 / (9 + 12), the harmonic mean of the above
    assert ev["f1(aggregation=micro)@4"] == pytest.approx(f1, abs=TOL)
    assert f1 == pytest.approx(2 * 6 / (9 + 12), abs=TOL)


def test_seed002_micro_precision_with_short_lists():
    # eq. (4) divides by |R(u)|, the length of each list. If u2 only got 2 recommendations,
    # the seed's micro precision is (2 + 1 + 3) / (4 + 2 + 4). receval's precision without @k
    # treats each whole list as the set and matches it; precision@4 instead counts u2's two
    # empty places as misses, (2 + 1 + 3) / (4 + 4 + 4).
    lists = dict(SEED002_MICRO_RECS, u2=["e", "f"])
    recs, truth = recs_frame(lists), truth_frame(SEED002_MICRO_TRUTH)
    ev = rv.evaluate(recs, truth, ["precision(aggregation=micro)",
                                   "precision(aggregation=micro)@4"])
    assert ev["precision(aggregation=micro)"] == pytest.approx((2 + 1 + 3) / (4 + 2 + 4), abs=TOL)
    assert ev["precision(aggregation=micro)@4"] == pytest.approx((2 + 1 + 3) / (4 + 4 + 4),
                                                                 abs=TOL)


# leave-one-out: each user has one held-out item, at rank 2, beyond N = 5 (rank 7), 5 and 1
LOO_RECS = {
    "u1": ["a1", "t1", "a3", "a4", "a5", "a6", "a7"],
    "u2": ["b1", "b2", "b3", "b4", "b5", "b6", "t2"],
    "u3": ["c1", "c2", "c3", "c4", "t3", "c6", "c7"],
    "u4": ["t4", "d2", "d3", "d4", "d5", "d6", "d7"],
}
LOO_TRUTH = {"u1": {"t1": 1}, "u2": {"t2": 1}, "u3": {"t3": 1}, "u4": {"t4": 1}}


def test_seed002_hit_ratio_and_arhr():
    # eq. (8): HR@N = hits / |U| ; eq. (9): ARHR@N = (1/|U|) sum over hits of 1 / pos_i
    hr = 3 / 4  # u1, u3, u4 hit within N = 5; u2's item is at rank 7
    arhr = (1 / 2 + 1 / 5 + 1 / 1) / 4
    recs, truth = recs_frame(LOO_RECS), truth_frame(LOO_TRUTH)
    ev = rv.evaluate(recs, truth, ["hr@5", "arhr@5"])
    assert ev["hr@5"] == pytest.approx(hr, abs=TOL)
    assert ev["arhr@5"] == pytest.approx(arhr, abs=TOL)
    assert round(arhr, 3) == 0.425


def test_seed002_leave_one_out_ndcg():
    # eq. (15): one relevant item at rank j: NDCG@N = log(2) / log(j + 1), 0 beyond N
    per = {"u1": log(2) / log(2 + 1), "u2": 0.0, "u3": log(2) / log(5 + 1),
           "u4": log(2) / log(1 + 1)}
    # it is DCG / IDCG = (1 / log2(j + 1)) / (1 / log2(2))
    assert per["u1"] == pytest.approx((1 / log2(3)) / (1 / log2(2)), abs=TOL)
    recs, truth = recs_frame(LOO_RECS), truth_frame(LOO_TRUTH)
    ev = rv.evaluate(recs, truth, ["ndcg@5"])
    got = per_user(ev, "ndcg@5")
    for user, value in per.items():
        assert got[user] == pytest.approx(value, abs=TOL)
    assert ev["ndcg@5"] == pytest.approx(sum(per.values()) / 4, abs=TOL)


def test_seed002_ap_at_n_min_n_c():
    # eq. (6): AP@N = sum_k P@k rel(k) / min(N, |C_adopted|), N = 5; eq. (7): MAP@N the mean
    recs = recs_frame({"u1": ["a", "b", "c", "d", "e"], "u2": ["f", "g", "h", "i", "j"]})
    truth = truth_frame({
        "u1": {"a": 1, "c": 1},                                          # |C| = 2
        "u2": {"g": 1, "i": 1, "j": 1, "y1": 1, "y2": 1, "y3": 1, "y4": 1, "y5": 1},  # |C| = 8
    })
    ap1 = (1 / 1 + 2 / 3) / min(5, 2)
    ap2 = (1 / 2 + 2 / 4 + 3 / 5) / min(5, 8)
    ev = rv.evaluate(recs, truth, ["map@5"])
    assert per_user(ev, "map@5")["u1"] == pytest.approx(ap1, abs=TOL)
    assert per_user(ev, "map@5")["u2"] == pytest.approx(ap2, abs=TOL)
    assert ev["map@5"] == pytest.approx((ap1 + ap2) / 2, abs=TOL)
    assert round(ap1, 4) == 0.8333
    assert round(ap2, 2) == 0.32


# ============================================================================================
# Seed 001 (Chinese): CG / DCG / NDCG with exponential gain, ratings 5, 3, 2, 1, 2 (+ 4, 0)
# ============================================================================================
def test_seed001_cg5():
    # CG_5 = 5 + 3 + 2 + 1 + 2 = 13
    cg = 5 + 3 + 2 + 1 + 2
    assert cg == 13
    recs, truth = one_list([5, 3, 2, 1, 2], extra=[4, 0])
    assert rv.evaluate(recs, truth, ["cg@5"])["cg@5"] == pytest.approx(cg, abs=TOL)


def test_seed001_dcg5_idcg5_ndcg5_exponential():
    dcg = ((2**5 - 1) / log2(2) + (2**3 - 1) / log2(3) + (2**2 - 1) / log2(4)
           + (2**1 - 1) / log2(5) + (2**2 - 1) / log2(6))
    # the seven rated films 5, 3, 2, 1, 2, 4, 0 sorted: 5, 4, 3, 2, 2, 1, 0
    idcg = ((2**5 - 1) / log2(2) + (2**4 - 1) / log2(3) + (2**3 - 1) / log2(4)
            + (2**2 - 1) / log2(5) + (2**2 - 1) / log2(6))
    ndcg = dcg / idcg
    # The seed prints DCG_5 = 31 + 4.4 + 1.5 + 0.4 + 1.2 = 38.5 and IDCG_5 = 31 + 9.5 + 3.5 +
    # 1.3 + 1.2 = 46.5, each term rounded to one decimal, hence NDCG_5 = 38.5 / 46.5 =
    # 0.82796, which it prints truncated as 0.827. Unrounded: DCG_5 = 38.5077,
    # IDCG_5 = 46.4164, NDCG_5 = 0.8296.
    assert math.floor(38.5 / 46.5 * 1000) / 1000 == 0.827
    assert round(dcg, 1) == 38.5
    assert round(idcg, 1) == 46.4  # not the seed's 46.5 (rounded terms add up to 46.5)
    assert round(ndcg, 4) == 0.8296

    recs, truth = one_list([5, 3, 2, 1, 2], extra=[4, 0])
    ev = rv.evaluate(recs, truth, ["dcg(gain=exponential)@5", "ndcg(gain=exponential)@5"])
    assert ev["dcg(gain=exponential)@5"] == pytest.approx(dcg, abs=TOL)
    assert ev["ndcg(gain=exponential)@5"] == pytest.approx(ndcg, abs=TOL)
    ex = rv.explain("ndcg(gain=exponential)@5", [5, 3, 2, 1, 2], ideal=[5, 3, 2, 1, 2, 4, 0])
    assert ex.value == pytest.approx(ndcg, abs=TOL)
    assert ex.denominator == pytest.approx(idcg, abs=TOL)


def test_seed001_mrr_zero_when_nothing_correct():
    # "如果所有结果都不正确，结果为 0": RR = 0 for a query with no correct answer
    recs = recs_frame({"q1": ["a", "b", "c"], "q2": ["d", "e", "f"]})
    truth = truth_frame({"q1": {"b": 1}, "q2": {"z": 1}})
    ev = rv.evaluate(recs, truth, ["mrr"])
    assert per_user(ev, "mrr")["q2"] == 0.0
    assert ev["mrr"] == pytest.approx((1 / 2 + 0) / 2, abs=TOL)


def test_seed001_ap_with_number_of_relevant_documents():
    # AveP = sum_k P(k) rel(k) / (# of relevant documents); MAP = mean over the Q queries
    recs = recs_frame({"q1": ["a", "b", "c", "d"], "q2": ["e", "f", "g", "h"]})
    truth = truth_frame({"q1": {"a": 1, "d": 1, "z": 1}, "q2": {"f": 1}})
    ap1 = (1 / 1 + 2 / 4) / 3
    ap2 = (1 / 2) / 1
    ev = rv.evaluate(recs, truth, ["ap(denominator=relevant)"])
    assert ev["ap(denominator=relevant)"] == pytest.approx((ap1 + ap2) / 2, abs=TOL)


# ============================================================================================
# Seed 004 (English notebook): NDCG@3 of relevances 10, 20, 3, 7, 10 (linear gain)
# ============================================================================================
def test_seed004_ndcg3():
    dcg = 10 / log2(2) + 20 / log2(3) + 3 / log2(4)
    # ideal ranking 20, 10, 10, 7, 3
    idcg = 20 / log2(2) + 10 / log2(3) + 10 / log2(4)
    ndcg = dcg / idcg
    # the seed prints DCG@3 = 24.1186 and IDCG@3 = 31.3093, both right ...
    assert round(dcg, 4) == 24.1186
    assert round(idcg, 4) == 31.3093
    # ... but then divides by 31.3039 (digits swapped): 24.1186 / 31.3039 = 0.7705. The exact
    # ratio is 0.7703.
    assert round(24.1186 / 31.3039, 4) == 0.7705
    assert round(ndcg, 4) == 0.7703

    recs, truth = one_list([10, 20, 3, 7, 10])
    ev = rv.evaluate(recs, truth, ["dcg@3", "ndcg@3", "ndcg(ideal=list)@3"])
    assert ev["dcg@3"] == pytest.approx(dcg, abs=TOL)
    # the ideal is the list itself reordered: the truth holds exactly the five items, so the
    # truth ideal and the list ideal coincide
    assert ev["ndcg@3"] == pytest.approx(ndcg, abs=TOL)
    assert ev["ndcg(ideal=list)@3"] == pytest.approx(ndcg, abs=TOL)
    assert rv.explain("ndcg@3", [10, 20, 3, 7, 10]).value == pytest.approx(ndcg, abs=TOL)


# object 8 of the notebook's example task: relevant, "Random scores", "KNN scores" per item
OBJECT8 = [
    (0, 1, -2.017719, 0.911927), (1, 0, 0.540541, 0.360036), (2, 1, -1.442299, 0.563100),
    (3, 0, -1.608850, 0.763004), (4, 0, -1.006569, 0.638666), (5, 0, -0.257534, 0.253009),
    (6, 0, 0.730507, 0.348827), (7, 1, -1.698401, 0.563100), (8, 1, 1.674076, 0.673895),
    (9, 0, 1.163724, 0.638666), (10, 1, -0.132574, 0.653047), (11, 1, -0.290246, 0.430756),
    (12, 0, -0.953532, 0.186026), (13, 0, 0.588041, 0.350962), (14, 0, 0.068801, 0.771011),
    (15, 0, 1.412064, 0.454776), (16, 1, -0.686216, 0.737111), (17, 0, 0.547944, 0.350962),
    (18, 1, -0.036383, 0.555094), (19, 1, -0.847016, 0.552959), (20, 1, 1.902304, 0.738984),
    (21, 0, 0.279605, 0.172943), (22, 1, 0.620255, 0.537218), (23, 1, -1.068568, 0.631957),
    (24, 0, -0.722621, 0.272497), (25, 0, 0.084140, 0.462782), (26, 0, -0.584455, 0.443032),
    (27, 1, 0.602022, 0.642905), (28, 0, 0.438365, 0.354960), (29, 0, -0.782343, 0.644799),
]
# R'_{1,8} and R'_{2,8} as printed by the seed
R_RANDOM = [1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 1, 0, 1, 0, 0, 1, 0, 0, 1, 1, 0,
            1, 1]
R_KNN = [1, 0, 0, 1, 1, 1, 1, 0, 1, 0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0,
         0]


@pytest.mark.parametrize(("column", "seq"), [(2, R_RANDOM), (3, R_KNN)])
def test_seed004_object8_models(column, seq):
    frame = pd.DataFrame(OBJECT8, columns=["item", "relevant", "random", "knn"])
    scores = frame.iloc[:, column]
    # transcription check: sorting by the model's scores gives the seed's R' sequence (the
    # KNN ties, items 2/7, 4/9 and 13/17, join items of equal relevance)
    assert frame.loc[scores.sort_values(ascending=False, kind="stable").index,
                     "relevant"].tolist() == seq
    recs = pd.DataFrame({"user": 8, "item": frame["item"], "score": scores})
    truth = pd.DataFrame({"user": 8, "item": frame.loc[frame.relevant == 1, "item"]})
    n_rel = 13
    assert sum(seq) == n_rel
    dcg10 = sum(r / log2(i + 1) for i, r in enumerate(seq[:10], start=1))
    idcg10 = sum(1 / log2(i + 1) for i in range(1, 11))
    dcg = sum(r / log2(i + 1) for i, r in enumerate(seq, start=1))
    idcg = sum(1 / log2(i + 1) for i in range(1, n_rel + 1))
    hits, ap_sum = 0, 0.0
    for i, r in enumerate(seq, start=1):
        if r:
            hits += 1
            ap_sum += hits / i
    # KNN's items 4 and 9 tie at ranks 10-11, across the cutoff 10 (both irrelevant)
    knn = column == 3
    with pytest.warns(TiesAtCutoffWarning) if knn else contextlib.nullcontext():
        ev = rv.evaluate(recs, truth, ["ndcg@10", "ndcg", "ap(denominator=relevant)"])
    assert ev["ndcg@10"] == pytest.approx(dcg10 / idcg10, abs=TOL)
    assert ev["ndcg"] == pytest.approx(dcg / idcg, abs=TOL)
    assert ev["ap(denominator=relevant)"] == pytest.approx(ap_sum / n_rel, abs=TOL)


def test_seed004_object8_knn_beats_random():
    # random R'_1 top 10: 1,1,0,0,0,1,1,0,0,0 ; KNN R'_2 top 10: 1,0,0,1,1,1,1,0,1,0
    idcg10 = sum(1 / log2(i + 1) for i in range(1, 11))
    random10 = (1 / log2(2) + 1 / log2(3) + 1 / log2(7) + 1 / log2(8)) / idcg10
    knn10 = (1 / log2(2) + 1 / log2(5) + 1 / log2(6) + 1 / log2(7) + 1 / log2(8)
             + 1 / log2(10)) / idcg10
    frame = pd.DataFrame(OBJECT8, columns=["item", "relevant", "random", "knn"])
    truth = pd.DataFrame({"user": 8, "item": frame.loc[frame.relevant == 1, "item"]})
    got = {}
    for name in ("random", "knn"):
        recs = pd.DataFrame({"user": 8, "item": frame["item"], "score": frame[name]})
        # KNN's tie at ranks 10-11 straddles the cutoff (both items irrelevant)
        with pytest.warns(TiesAtCutoffWarning) if name == "knn" else contextlib.nullcontext():
            got[name] = rv.evaluate(recs, truth, ["ndcg@10"])["ndcg@10"]
    assert got["random"] == pytest.approx(random10, abs=TOL)
    assert got["knn"] == pytest.approx(knn10, abs=TOL)
    assert got["knn"] > got["random"]


# ============================================================================================
# Seed 003 (Korean lecture notes)
# ============================================================================================
def test_seed003_breese_ndcg():
    # A 4, B 3, C 0, D 5 ; disc(i) = 1 for i <= 2, log2(i) for i > 2
    dcg = 4 / 1 + 3 / 1 + 0 / log2(3) + 5 / log2(4)
    perfect = 5 / 1 + 4 / 1 + 3 / log2(3) + 0 / log2(4)  # the list's own ideal: D, A, B, C
    # the seed prints DCG = 9.5, DCG_perfect = 10.9 and nDCG = 9.5 / 10.9 = 0.872
    assert dcg == 9.5
    assert round(perfect, 1) == 10.9
    assert round(dcg / perfect, 3) == 0.872
    recs = recs_frame({"u": ["A", "B", "C", "D"]})
    truth = truth_frame({"u": {"A": 4, "B": 3, "C": 0, "D": 5}})
    ev = rv.evaluate(recs, truth, ["dcg(discount=breese)", "ndcg(discount=breese, ideal=list)",
                                   "ndcg(discount=breese)"])
    assert ev["dcg(discount=breese)"] == pytest.approx(dcg, abs=TOL)
    assert ev["ndcg(discount=breese, ideal=list)"] == pytest.approx(dcg / perfect, abs=TOL)
    # every judged item is in the list, so the truth ideal is the same here
    assert ev["ndcg(discount=breese)"] == pytest.approx(dcg / perfect, abs=TOL)


def test_seed003_mrr_cat_tori_virus():
    recs = recs_frame({"cat": ["catten", "cati", "cats"],
                       "tori": ["torii", "tori", "toruses"],
                       "virus": ["viruses", "virii", "viri"]})
    truth = truth_frame({"cat": {"cats": 1}, "tori": {"tori": 1}, "virus": {"viruses": 1}})
    mrr = (1 / 3 + 1 / 2 + 1) / 3
    assert mrr == pytest.approx(11 / 18, abs=TOL)
    assert round(mrr, 2) == 0.61  # the seed prints 0.61
    ev = rv.evaluate(recs, truth, ["mrr"])
    assert ev["mrr"] == pytest.approx(11 / 18, abs=TOL)
    rr = per_user(ev, "mrr")
    assert rr["cat"] == pytest.approx(1 / 3, abs=TOL)
    assert rr["tori"] == pytest.approx(1 / 2, abs=TOL)
    assert rr["virus"] == pytest.approx(1.0, abs=TOL)


SEED003_CORRECT = [True, True, False, False, False, True, True, False, False, True]


def test_seed003_precision_column():
    # the seed's "Precision" column is P@k at every rank k = 1..10
    hits = np.cumsum(SEED003_CORRECT)
    p_at = [h / k for k, h in enumerate(hits, start=1)]
    assert [round(p, 2) for p in p_at] == [1.0, 1.0, 0.67, 0.5, 0.4, 0.5, 0.57, 0.5, 0.44, 0.5]
    items = [f"i{k}" for k in range(1, 11)]
    recs = recs_frame({"u": items})
    truth = truth_frame({"u": {it: 1 for it, c in zip(items, SEED003_CORRECT, strict=True) if c}})
    ev = rv.evaluate(recs, truth, [f"precision@{k}" for k in range(1, 11)])
    for k in range(1, 11):
        assert ev[f"precision@{k}"] == pytest.approx(p_at[k - 1], abs=TOL)


def test_seed003_average_precision_denominators_and_map():
    items = [f"i{k}" for k in range(1, 11)]
    # relevant at ranks 1, 2, 6, 7, 10
    relevant_in_list = [it for it, c in zip(items, SEED003_CORRECT, strict=True) if c]
    # sum of P@k over the relevant ranks
    s = 1 / 1 + 2 / 2 + 3 / 6 + 4 / 7 + 5 / 10
    # user "all": the 5 relevant items are all in the list -> every denominator is 5
    # user "more": 12 relevant items, 7 of them never recommended
    recs = recs_frame({"all": items, "more": items})
    truth = truth_frame({
        "all": dict.fromkeys(relevant_in_list, 1),
        "more": dict.fromkeys(relevant_in_list, 1) | {f"z{j}": 1 for j in range(7)},
    })
    expected = {
        "ap(denominator=hits)@10": {"all": s / 5, "more": s / 5},
        "ap(denominator=relevant)@10": {"all": s / 5, "more": s / 12},
        "ap(denominator=min_k_relevant)@10": {"all": s / min(10, 5), "more": s / min(10, 12)},
    }
    ev = rv.evaluate(recs, truth, list(expected))
    for metric, values in expected.items():
        got = per_user(ev, metric)
        for user, value in values.items():
            assert got[user] == pytest.approx(value, abs=TOL), (metric, user)
        # MAP = (1/|U|) sum_u AP(O(u))
        assert ev[metric] == pytest.approx((values["all"] + values["more"]) / 2, abs=TOL)
    assert round(s / 5, 4) == 0.7143
    # The seed's "MAP(O,U) = 1/10 (1 + 1 + 0.67 + 0.5 ...)" averages P@k over all ten ranks,
    # relevant or not: that is not AP under any denominator (it would be 0.608).
    mean_all_p = sum(h / k for k, h in enumerate(np.cumsum(SEED003_CORRECT), start=1)) / 10
    assert round(mean_all_p, 3) == 0.608
    assert all(mean_all_p != pytest.approx(v) for vals in expected.values()
               for v in vals.values())


def test_seed003_rating_errors_per_rating_vs_per_user():
    # user A rates many items (6) with small errors, user B few (2) with large errors
    a = [(4.0, 4.5), (3.0, 2.5), (5.0, 4.5), (2.0, 2.5), (4.0, 3.5), (1.0, 1.5)]  # (true, pred)
    b = [(5.0, 3.0), (1.0, 3.0)]
    truth = pd.DataFrame([("A", f"a{j}", t) for j, (t, _) in enumerate(a)]
                         + [("B", f"b{j}", t) for j, (t, _) in enumerate(b)],
                         columns=["user", "item", "rating"])
    recs = pd.DataFrame([("A", f"a{j}", p) for j, (_, p) in enumerate(a)]
                        + [("B", f"b{j}", p) for j, (_, p) in enumerate(b)],
                        columns=["user", "item", "score"])
    # per rating (micro): E over the 8 ratings
    mae = (6 * 0.5 + 2 + 2) / 8
    mse = (6 * 0.5**2 + 2**2 + 2**2) / 8
    rmse = sqrt(mse)
    # per user (macro): each user's value, then the mean over the 2 users
    mae_u = (0.5 + 2) / 2
    mse_u = (0.5**2 + (2**2 + 2**2) / 2) / 2
    rmse_u = (sqrt(0.5**2) + sqrt((2**2 + 2**2) / 2)) / 2
    ev = rv.evaluate(recs, truth, ["mae", "mse", "rmse", "mae(aggregation=macro)",
                                   "mse(aggregation=macro)", "rmse(aggregation=macro)"])
    assert ev["mae"] == pytest.approx(mae, abs=TOL)
    assert ev["mse"] == pytest.approx(mse, abs=TOL)
    assert ev["rmse"] == pytest.approx(rmse, abs=TOL)
    assert ev["mae(aggregation=macro)"] == pytest.approx(mae_u, abs=TOL)
    assert ev["mse(aggregation=macro)"] == pytest.approx(mse_u, abs=TOL)
    assert ev["rmse(aggregation=macro)"] == pytest.approx(rmse_u, abs=TOL)
    # "상황에 따라 다르다": the two weightings give different numbers
    assert round(rmse, 4) == 1.0897
    assert rmse_u == 1.25
    per = per_user(ev, "rmse(aggregation=macro)")
    assert per["A"] == pytest.approx(0.5, abs=TOL)
    assert per["B"] == pytest.approx(2.0, abs=TOL)


def test_seed003_decision_support_precision_recall():
    # 5-star films, "good" = rating >= 4; (true, predicted)
    films = {
        "m1": (4.5, 4.6),  # good, predicted good: watched, 꿀잼          -> TP
        "m2": (1.0, 1.2),  # bad, predicted bad: skipped, 시간은 금         -> TN
        "m3": (5.0, 2.0),  # good, predicted bad: missed a good film        -> FN
        "m4": (1.5, 4.0),  # bad, predicted good (4 >= 4): 시간 낭비         -> FP
        "m5": (4.0, 4.2),  # TP
        "m6": (2.0, 3.9),  # TN
        "m7": (3.0, 4.5),  # FP
    }
    truth = pd.DataFrame([("u", m, t) for m, (t, _) in films.items()],
                         columns=["user", "item", "rating"])
    recs = pd.DataFrame([("u", m, p) for m, (_, p) in films.items()],
                        columns=["user", "item", "score"])
    n_rs = 2          # relevant and selected (m1, m5)
    n_s = 2 + 2       # selected: predicted >= 4 (m1, m4, m5, m7)
    n_r = 2 + 1       # relevant: true >= 4 (m1, m3, m5)
    precision = n_rs / n_s
    recall = n_rs / n_r
    f1 = 2 * precision * recall / (precision + recall)
    assert f1 == pytest.approx(2 * 2 / (2 * 2 + 2 + 1), abs=TOL)  # 2TP / (2TP + FP + FN)
    ev = rv.evaluate(recs, truth, ["rating_precision(threshold=4)",
                                   "rating_recall(threshold=4)", "rating_f1(threshold=4)"])
    assert ev["rating_precision(threshold=4)"] == pytest.approx(precision, abs=TOL)
    assert ev["rating_recall(threshold=4)"] == pytest.approx(recall, abs=TOL)
    assert ev["rating_f1(threshold=4)"] == pytest.approx(f1, abs=TOL)


def test_seed003_spearman_per_user():
    data = {
        # no ties: true ranks 5,3,4,1,2 ; predicted ranks 5,4,3,1,2
        "u1": ([5, 3, 4, 1, 2], [4.5, 3.2, 3.0, 1.1, 2.5]),
        # ties on both sides: mean ranks
        "u2": ([4, 4, 2, 5], [3.5, 4.0, 1.0, 4.0]),
    }
    truth = pd.DataFrame([(u, f"{u}-{j}", float(t)) for u, (ts, _) in data.items()
                          for j, t in enumerate(ts)], columns=["user", "item", "rating"])
    recs = pd.DataFrame([(u, f"{u}-{j}", float(p)) for u, (_, ps) in data.items()
                         for j, p in enumerate(ps)], columns=["user", "item", "score"])

    def pearson(x, y):  # the seed's formula on the ranks k_o, k_Ou
        mx, my = sum(x) / len(x), sum(y) / len(y)
        num = sum((a - mx) * (b - my) for a, b in zip(x, y, strict=True))
        return num / (sqrt(sum((a - mx) ** 2 for a in x)) * sqrt(sum((b - my) ** 2 for b in y)))

    # u1: deviations (2,0,1,-2,-1) and (2,1,0,-2,-1): 9 / (sqrt(10) sqrt(10)) = 0.9
    rho1 = pearson([5, 3, 4, 1, 2], [5, 4, 3, 1, 2])
    assert rho1 == pytest.approx(0.9, abs=TOL)
    assert rho1 == pytest.approx(1 - 6 * (0 + 1 + 1 + 0 + 0) / (5 * (5**2 - 1)), abs=TOL)
    # u2: true ranks (2.5, 2.5, 1, 4), predicted ranks (2, 3.5, 1, 3.5): 3.75 / 4.5
    rho2 = pearson([2.5, 2.5, 1, 4], [2, 3.5, 1, 3.5])
    assert rho2 == pytest.approx(3.75 / 4.5, abs=TOL)
    for user, rho in (("u1", rho1), ("u2", rho2)):
        ts, ps = data[user]
        assert scipy.stats.spearmanr(ts, ps).statistic == pytest.approx(rho, abs=TOL)
    ev = rv.evaluate(recs, truth, ["spearman"])
    got = per_user(ev, "spearman")
    assert got["u1"] == pytest.approx(rho1, abs=TOL)
    assert got["u2"] == pytest.approx(rho2, abs=TOL)
    assert ev["spearman"] == pytest.approx((rho1 + rho2) / 2, abs=TOL)


# ============================================================================================
# Seed 000 (Spanish slides, IIC 3633)
# ============================================================================================
def _twenty_relevant(prefix: str, hits: list[str]) -> dict[str, float]:
    """20 relevant items: the hits plus never-recommended ones."""
    rel = dict.fromkeys(hits, 1.0)
    rel |= {f"{prefix}-z{j}": 1.0 for j in range(20 - len(hits))}
    assert len(rel) == 20
    return rel


def test_seed000_precision_recall_example1():
    # list 1: 10 recommended, 5 of them relevant; list 2: 5 recommended, 3 relevant; 20
    # relevant items in all for each ("Total Relevantes X 20"). The slide's pictures are
    # lost, so the hits are placed arbitrarily (a set metric does not care where).
    l1 = [f"a{j}" for j in range(10)]
    l2 = [f"b{j}" for j in range(5)]
    hits1 = ["a0", "a2", "a3", "a6", "a9"]
    hits2 = ["b1", "b2", "b4"]
    recs = recs_frame({"s1": l1, "s2": l2})
    truth = truth_frame({"s1": _twenty_relevant("s1", hits1), "s2": _twenty_relevant("s2", hits2)})
    ev = rv.evaluate(recs, truth, ["precision", "recall", "f1"])
    p, r, f = per_user(ev, "precision"), per_user(ev, "recall"), per_user(ev, "f1")
    # Precision = 5/10 = 0,5 ; Recall = 5/20 = 0,25
    assert p["s1"] == pytest.approx(5 / 10, abs=TOL)
    assert r["s1"] == pytest.approx(5 / 20, abs=TOL)
    # Precision = 3/5 = 0,6 ; Recall = 3/20 = 0,15
    assert p["s2"] == pytest.approx(3 / 5, abs=TOL)
    assert r["s2"] == pytest.approx(3 / 20, abs=TOL)
    # F_{beta=1} = 2 P R / (P + R)
    assert f["s1"] == pytest.approx(2 * 0.5 * 0.25 / (0.5 + 0.25), abs=TOL)
    assert f["s2"] == pytest.approx(2 * 0.6 * 0.15 / (0.6 + 0.15), abs=TOL)


def test_seed000_precision_at_5():
    # Precision@5 = 2/5 = 0,4 and 3/5 = 0,6 (hit positions chosen arbitrarily)
    recs = recs_frame({"s1": ["a", "b", "c", "d", "e", "f", "g"],
                       "s2": ["h", "i", "j", "k", "l", "m", "n"]})
    truth = truth_frame({"s1": {"b": 1, "e": 1, "g": 1},  # 2 in the top 5 (g is 7th)
                         "s2": {"h": 1, "i": 1, "l": 1}})
    ev = rv.evaluate(recs, truth, ["p@5"])
    assert per_user(ev, "p@5")["s1"] == pytest.approx(2 / 5, abs=TOL)
    assert per_user(ev, "p@5")["s2"] == pytest.approx(3 / 5, abs=TOL)
    assert ev["p@5"] == pytest.approx((0.4 + 0.6) / 2, abs=TOL)


def test_seed000_mrr():
    # MRR_1 = 1/2 = 0,5 and MRR_2 = 1/2 = 0,5: the first relevant item is 2nd in both lists,
    # whatever comes after it ("usualmente tenemos más de un elemento relevante")
    recs = recs_frame({"s1": ["a", "b", "c", "d"], "s2": ["e", "f", "g", "h"]})
    truth = truth_frame({"s1": {"b": 1}, "s2": {"f": 1, "g": 1, "h": 1}})
    ev = rv.evaluate(recs, truth, ["mrr"])
    assert per_user(ev, "mrr")["s1"] == pytest.approx(1 / 2, abs=TOL)
    assert per_user(ev, "mrr")["s2"] == pytest.approx(1 / 2, abs=TOL)
    assert ev["mrr"] == pytest.approx(0.5, abs=TOL)


def test_seed000_ap_at_n_exercise():
    # AP@n = sum_{k in K} P@k rel(k) / min(m, n), n = 10, m = 20; MAP@n the mean over users.
    # The exercise's lists are images that are lost; these two follow Ejemplo 1.
    l1 = [f"a{j}" for j in range(10)]   # hits at ranks 1, 3, 4, 7, 10
    l2 = [f"b{j}" for j in range(5)]    # hits at ranks 2, 3, 5 (a list shorter than n)
    recs = recs_frame({"s1": l1, "s2": l2})
    truth = truth_frame({"s1": _twenty_relevant("s1", ["a0", "a2", "a3", "a6", "a9"]),
                         "s2": _twenty_relevant("s2", ["b1", "b2", "b4"])})
    ap1 = (1 / 1 + 2 / 3 + 3 / 4 + 4 / 7 + 5 / 10) / min(20, 10)
    ap2 = (1 / 2 + 2 / 3 + 3 / 5) / min(20, 10)
    ev = rv.evaluate(recs, truth, ["map@10", "ap(denominator=relevant)@10"])
    assert per_user(ev, "map@10")["s1"] == pytest.approx(ap1, abs=TOL)
    assert per_user(ev, "map@10")["s2"] == pytest.approx(ap2, abs=TOL)
    assert ev["map@10"] == pytest.approx((ap1 + ap2) / 2, abs=TOL)
    # the slide's first formula divides by |relevantes| = 20 instead
    assert ev["ap(denominator=relevant)@10"] == pytest.approx(
        ((1 / 1 + 2 / 3 + 3 / 4 + 4 / 7 + 5 / 10) / 20 + (1 / 2 + 2 / 3 + 3 / 5) / 20) / 2,
        abs=TOL)


def test_seed000_rank_score():
    # rankscore = sum_{i in h} 2^(-(rank(i)-1)/alpha) / sum_{i=1}^{|T|} 2^(-(i-1)/alpha)
    recs = recs_frame({"s1": ["a", "b", "c", "d", "e", "f"], "s2": ["g", "h", "i"]})
    truth = truth_frame({"s1": {"a": 1, "c": 1, "d": 1, "z": 1},  # hits at 1, 3, 4; |T| = 4
                         "s2": {"h": 1}})                          # hit at 2; |T| = 1
    alpha = 2.0
    p1 = 2 ** (-(1 - 1) / alpha) + 2 ** (-(3 - 1) / alpha) + 2 ** (-(4 - 1) / alpha)
    max1 = 2 ** (-0 / alpha) + 2 ** (-1 / alpha) + 2 ** (-2 / alpha) + 2 ** (-3 / alpha)
    p2 = 2 ** (-(2 - 1) / alpha)
    max2 = 2 ** (-0 / alpha)
    ev = rv.evaluate(recs, truth, ["rank_score(alpha=2)", "rank_score(alpha=2, aggregation=micro)",
                                   "rank_score", "rank_score(alpha=2)@2"])
    assert per_user(ev, "rank_score(alpha=2)")["s1"] == pytest.approx(p1 / max1, abs=TOL)
    assert per_user(ev, "rank_score(alpha=2)")["s2"] == pytest.approx(p2 / max2, abs=TOL)
    assert ev["rank_score(alpha=2)"] == pytest.approx((p1 / max1 + p2 / max2) / 2, abs=TOL)
    # Breese pools the users: 100 * sum R_a / sum R_a^max
    assert ev["rank_score(alpha=2, aggregation=micro)"] == pytest.approx(
        (p1 + p2) / (max1 + max2), abs=TOL)
    # the default half-life alpha = 5
    p1_5 = 2 ** (-0 / 5) + 2 ** (-2 / 5) + 2 ** (-3 / 5)
    max1_5 = 2 ** (-0 / 5) + 2 ** (-1 / 5) + 2 ** (-2 / 5) + 2 ** (-3 / 5)
    assert per_user(ev, "rank_score")["s1"] == pytest.approx(p1_5 / max1_5, abs=TOL)
    # with a cutoff k the best achievable sums over min(k, |T|) ranks: s1 @2 has one hit
    assert per_user(ev, "rank_score(alpha=2)@2")["s1"] == pytest.approx(
        1 / (2 ** (-0 / alpha) + 2 ** (-1 / alpha)), abs=TOL)


def test_seed000_mae_mse_rmse():
    # (user, item, true r_ui, predicted r^_ui)
    rows = [("u1", "i1", 4.0, 3.5), ("u1", "i2", 2.0, 3.0), ("u1", "i3", 5.0, 5.0),
            ("u2", "i1", 3.0, 4.5), ("u2", "i4", 1.0, 0.0)]
    truth = pd.DataFrame([(u, i, r) for u, i, r, _ in rows], columns=["user", "item", "rating"])
    recs = pd.DataFrame([(u, i, p) for u, i, _, p in rows], columns=["user", "item", "score"])
    n = 5
    mae = (abs(3.5 - 4) + abs(3 - 2) + abs(5 - 5) + abs(4.5 - 3) + abs(0 - 1)) / n
    mse = ((3.5 - 4) ** 2 + (3 - 2) ** 2 + (5 - 5) ** 2 + (4.5 - 3) ** 2 + (0 - 1) ** 2) / n
    rmse = sqrt(mse)
    assert mae == pytest.approx(4 / 5, abs=TOL)
    assert mse == pytest.approx(4.5 / 5, abs=TOL)
    ev = rv.evaluate(recs, truth, ["mae", "mse", "rmse"])
    assert ev["mae"] == pytest.approx(mae, abs=TOL)
    assert ev["mse"] == pytest.approx(mse, abs=TOL)
    assert ev["rmse"] == pytest.approx(rmse, abs=TOL)


def test_seed000_user_and_item_coverage():
    # 4 users in the test set; recommendations could be made for 3 of them
    recs = recs_frame({"u1": ["i0", "i1", "i2"], "u2": ["i1", "i3"], "u3": ["i2", "i4", "i0"]})
    truth = truth_frame({"u1": {"i1": 1}, "u2": {"i5": 1}, "u3": {"i0": 1}, "u4": {"i6": 1}})
    catalog = [f"i{j}" for j in range(10)]
    ev = rv.evaluate(recs, truth, ["user_coverage", "item_coverage", "item_coverage@1"],
                     catalog=catalog)
    # User Coverage: users with recommendations / users = 3 / 4
    assert ev["user_coverage"] == pytest.approx(3 / 4, abs=TOL)
    # Item Coverage: items recommended at least once {i0, i1, i2, i3, i4} / 10 catalog items
    assert ev["item_coverage"] == pytest.approx(5 / 10, abs=TOL)
    # within the top 1: {i0, i1, i2} / 10
    assert ev["item_coverage@1"] == pytest.approx(3 / 10, abs=TOL)
    # without a catalog: the items of both tables {i0, ..., i6}
    ev2 = rv.evaluate(recs, truth, ["item_coverage"])
    assert ev2["item_coverage"] == pytest.approx(5 / 7, abs=TOL)
