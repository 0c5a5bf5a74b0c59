"""Sampled evaluation: negatives, the sampled rank, the Krichene-Rendle corrections, AUC.

Hand-computed values show their arithmetic; the corrections are checked against an
independent normal-equations solve written here with ``math.comb`` binomials, and a seeded
simulation checks that every correction's mean over many samplings is nearer the exact
(full-ranking) metric than the uncorrected sampled metric.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
from receval.exceptions import (
    DataError,
    DuplicateRowError,
    IdTypeMismatchError,
    InvalidParameterError,
    SampledCorrectionWarning,
)
from tests.strategies import examples

TOL = 1e-12
ROOT = Path(__file__).resolve().parents[1]


# ============================================================================================
# negatives
# ============================================================================================
TEST = pd.DataFrame({"user_id": [1, 2, 2], "item_id": [0, 5, 6]})
TRAIN = pd.DataFrame({"user_id": [1, 1, 2, 9], "item_id": [1, 2, 3, 4]})


def test_negatives_structure_and_exclusions():
    cand = rv.sampled.negatives(TEST, n=4, items=range(10), exclude=TRAIN, seed=0)
    # user 2 has two test rows -> a list_id column (the test row's position) tells them apart
    assert list(cand.columns) == ["user_id", "item_id", "positive", "list_id"]
    assert len(cand) == 3 * (4 + 1)
    for lid, grp in cand.groupby("list_id"):
        user, pos_item = TEST.iloc[lid]
        assert (grp["user_id"] == user).all()
        assert grp["positive"].sum() == 1
        assert grp.loc[grp["positive"], "item_id"].item() == pos_item
        neg = set(grp.loc[~grp["positive"], "item_id"])
        assert len(neg) == 4  # distinct
        touched = set(TRAIN.loc[TRAIN.user_id == user, "item_id"]) | set(
            TEST.loc[TEST.user_id == user, "item_id"])
        assert not neg & touched
    rec = cand.attrs["receval_sampled"]
    assert rec == {"strategy": "uniform", "n": 4, "seed": 0, "n_items": 10}


def test_negatives_one_row_per_user_has_no_list_id_and_keeps_column_names():
    test = pd.DataFrame({"userId": ["a", "b"], "movieId": ["x", "y"]})
    cand = rv.sampled.negatives(test, n=2, items=list("xyzw"), seed=3)
    assert list(cand.columns) == ["userId", "movieId", "positive"]
    assert cand["userId"].tolist() == ["a"] * 3 + ["b"] * 3


def test_negatives_take_every_untouched_item_when_n_is_all_that_is_left():
    # user 1 touched 0 (test), 1 and 2 (train): of items 0..5 exactly 3, 4, 5 are left
    cand = rv.sampled.negatives(TEST.iloc[:1], n=3, items=range(6), exclude=TRAIN, seed=1)
    assert sorted(cand.loc[~cand.positive, "item_id"]) == [3, 4, 5]


def test_negatives_too_few_items_names_the_users():
    # items 0..6: user 1 touched 0 (test), 1, 2 (train) -> 7 - 3 = 4 left;
    # user 2 touched 5, 6 (test), 3 (train) -> 7 - 3 = 4 left; n = 5 is too many for both
    with pytest.raises(DataError, match=r"n=5 .* 2 users .*1: 4, 2: 4") as err:
        rv.sampled.negatives(TEST, n=5, items=range(7), exclude=TRAIN, seed=0)
    assert err.value.examples == (1, 2)
    assert err.value.parameter == "n"
    assert err.value.n_bad == 2


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"n": 0}, InvalidParameterError, "n .* >= 1"),
    ({"n": 2.5}, InvalidParameterError, "n .* >= 1"),
    ({"n": 2, "strategy": "pop"}, InvalidParameterError, "strategy"),
    ({"n": 2, "strategy": "popularity"}, InvalidParameterError, "exclude="),
    ({"n": 2, "seed": -1}, InvalidParameterError, "seed"),
    ({"n": 2, "seed": "0"}, InvalidParameterError, "seed"),
    ({"n": 2, "items": [0, 1, 2, 3, 4, 5]}, DataError, "not in items"),
    ({"n": 2, "items": ["0", "5", "6", "7"]}, IdTypeMismatchError, "items"),
    ({"n": 2, "items": "abc"}, InvalidParameterError, "items"),
])
def test_negatives_bad_input(kwargs, error, match):
    with pytest.raises(error, match=match):
        rv.sampled.negatives(TEST, **kwargs)


def test_test_items_outside_the_catalog_are_counted_once_each():
    # rows (2, 7), (3, 7), (3, 8) are outside items 0..4: 2 distinct items in 3 test rows
    test = pd.DataFrame({"user_id": [1, 2, 3, 3], "item_id": [0, 7, 7, 8]})
    with pytest.raises(DataError, match=r"^2 test items \(3 test rows\) are not in items=, "
                                        r"e\.g\. 7, 8; ") as info:
        rv.sampled.negatives(test, n=2, items=range(5))
    assert (info.value.n_bad, info.value.examples) == (2, (7, 8))


def test_negatives_repeated_test_pair_is_an_error():
    test = pd.DataFrame({"user_id": [1, 1], "item_id": [0, 0]})
    with pytest.raises(DuplicateRowError, match="repeats 1"):
        rv.sampled.negatives(test, n=1, items=range(5))


@st.composite
def sampling_problems(draw):
    n_items = draw(st.integers(3, 25))
    users = draw(st.lists(st.integers(0, 6), min_size=1, max_size=12))
    test_rows, train_rows = set(), set()
    for u in users:
        test_rows.add((u, draw(st.integers(0, n_items - 1))))
    for _ in range(draw(st.integers(0, 30))):
        train_rows.add((draw(st.integers(0, 8)), draw(st.integers(0, n_items - 1))))
    test = pd.DataFrame(sorted(test_rows), columns=["user_id", "item_id"])
    train = pd.DataFrame(sorted(train_rows), columns=["user_id", "item_id"],
                         dtype=np.int64)
    strategy = draw(st.sampled_from(["uniform", "popularity"]))
    touched = {u: {i for (v, i) in test_rows | train_rows if v == u} for u, _ in test_rows}
    # popularity draws only items with a training row
    pool = set(range(n_items)) if strategy == "uniform" else {i for _, i in train_rows}
    room = min(len(pool - t) for t in touched.values())
    return test, train, n_items, touched, pool, room, strategy, draw(st.integers(0, 2**32))


@pytest.mark.slow
@settings(max_examples=examples(80), deadline=None)
@given(sampling_problems())
def test_negatives_properties(problem):
    test, train, n_items, touched, pool, room, strategy, seed = problem
    args = {"items": range(n_items), "exclude": train, "strategy": strategy, "seed": seed}
    if room < 1:
        with pytest.raises(DataError, match="fewer untouched items"):
            rv.sampled.negatives(test, n=1, **args)
        return
    n = room // 2 + 1
    cand = rv.sampled.negatives(test, n=n, **args)
    key = "list_id" if "list_id" in cand.columns else "user_id"
    assert len(cand) == len(test) * (n + 1)
    assert (key == "list_id") == test["user_id"].duplicated().any()
    for _, grp in cand.groupby(key):
        user = grp["user_id"].iloc[0]
        neg = grp.loc[~grp.positive, "item_id"].tolist()
        assert len(neg) == n == len(set(neg))
        assert not set(neg) & touched[user]
        assert set(neg) <= pool
        assert grp.positive.sum() == 1
    again = rv.sampled.negatives(test, n=n, **args)
    pd.testing.assert_frame_equal(cand, again)
    if room > n:  # too many asked: the error names the users
        with pytest.raises(DataError, match="fewer untouched items"):
            rv.sampled.negatives(test, n=room + 1, **args)


_SCRIPT = """
import hashlib, pandas as pd, receval as rv
test = pd.DataFrame({"user_id": ["u%d" % i for i in range(40)],
                     "item_id": ["i%d" % (i % 7) for i in range(40)]})
train = pd.DataFrame({"user_id": ["u%d" % (i % 40) for i in range(120)],
                      "item_id": ["i%d" % (i * 7 % 50) for i in range(120)]})
items = ["i%d" % i for i in range(60)]
for strategy in ("uniform", "popularity"):
    c = rv.sampled.negatives(test, n=5, items=items, exclude=train, strategy=strategy, seed=11)
    print(hashlib.sha256(c.to_csv(index=False).encode()).hexdigest())
"""


@pytest.mark.slow
def test_negatives_reproducible_in_a_fresh_process_under_any_hash_seed():
    outs = []
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed,
               "PYTHONPATH": str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")}
        run = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True,
                             env=env, check=True, timeout=300)
        outs.append(run.stdout)
    assert outs[0] == outs[1]
    assert len(outs[0].split()) == 2


def test_negatives_another_seed_gives_another_sample():
    a = rv.sampled.negatives(TEST, n=3, items=range(50), seed=0)
    b = rv.sampled.negatives(TEST, n=3, items=range(50), seed=1)
    assert not a.equals(b)


def _frequencies(strategy: str, counts: list[int], lists: int = 20_000) -> np.ndarray:
    """How often each of items 1..len(counts) is drawn as the one negative of a list."""
    test = pd.DataFrame({"user_id": np.arange(lists), "item_id": 0})
    # popularity comes from a user who is not in test: item j has counts[j - 1] rows
    pop = np.repeat(np.arange(1, len(counts) + 1), counts)
    train = pd.DataFrame({"user_id": -1, "item_id": pop})
    cand = rv.sampled.negatives(test, n=1, items=range(len(counts) + 1), exclude=train,
                                strategy=strategy, seed=5)
    drawn = cand.loc[~cand.positive, "item_id"].to_numpy()
    return np.bincount(drawn, minlength=len(counts) + 1)[1:]


@pytest.mark.parametrize("strategy", ["uniform", "popularity"])
def test_negatives_frequencies(strategy):
    from scipy.stats import chisquare

    counts = [1, 2, 3, 4, 10]
    seen = _frequencies(strategy, counts)
    share = np.full(5, 1 / 5) if strategy == "uniform" else np.array(counts) / sum(counts)
    assert seen.sum() == 20_000
    assert chisquare(seen, share * 20_000).pvalue > 1e-3
    assert np.abs(seen / 20_000 - share).max() < 0.02


def test_popularity_never_draws_an_item_without_training_rows():
    test = pd.DataFrame({"user_id": np.arange(200), "item_id": 0})
    train = pd.DataFrame({"user_id": -1, "item_id": [1, 1, 2, 3]})
    cand = rv.sampled.negatives(test, n=2, items=range(8), exclude=train,
                                strategy="popularity", seed=0)
    assert set(cand.loc[~cand.positive, "item_id"]) <= {1, 2, 3}


def test_popularity_without_enough_popular_items_is_an_error():
    train = pd.DataFrame({"user_id": [9], "item_id": [1]})
    with pytest.raises(DataError, match="popularity above 0"):
        rv.sampled.negatives(TEST.iloc[:1], n=2, items=range(9), exclude=train,
                             strategy="popularity", seed=0)


# ============================================================================================
# sampled rank and hand-computed corrections
# ============================================================================================
# user 1: positive 'p' and negatives a, b, c with scores a .9 > p .8 > b .5 > c .1
#   -> r' = 1 + #{negatives scoring higher} = 1 + 1 = 2, m = 3
# user 2: positive 'q' first: r' = 1
SCORED = pd.DataFrame({
    "user_id": [1, 1, 1, 1, 2, 2, 2, 2],
    "item_id": ["a", "p", "b", "c", "q", "d", "e", "f"],
    "score": [.9, .8, .5, .1, .7, .6, .2, .1],
})
POS = pd.DataFrame({"user_id": [1, 2], "item_id": ["p", "q"]})


def test_uncorrected_values_are_the_sampled_lists_metrics():
    ev = rv.sampled.evaluate(SCORED, POS, ["hr@1", "mrr@3", "ndcg@3", "auc"], n_items=7)
    pu = ev.per_user
    # r' = 2 for user 1, 1 for user 2
    assert pu["HitRate@1"].tolist() == [0.0, 1.0]
    assert pu["MRR@3"].tolist() == [1 / 2, 1.0]
    assert pu["NDCG@3"].tolist() == pytest.approx([1 / math.log2(3), 1.0], abs=TOL)
    # AUC = (m - r' + 1) / m: (3 - 2 + 1) / 3 = 2/3 and 3/3
    assert pu["AUC"].tolist() == pytest.approx([2 / 3, 1.0], abs=TOL)
    rec = ev.settings["sampled"]
    assert (rec["m"], rec["n"], rec["correction"]) == (3, 7, "none")
    assert (rec["strategy"], rec["gamma"]) == (None, None)
    assert "sampled: m=3 negatives per positive, n=7 items" in ev.caption
    assert "correction=none" in repr(ev)
    assert ev.per_user.index.name == "user"  # one list per user: the lists are the users
    assert ev.settings["columns"] == {"user": "user_id", "item": "item_id", "score": "score",
                                      "truth_user": "user_id", "truth_item": "item_id"}


def test_rank_estimate_hand_computed():
    ev = rv.sampled.evaluate(SCORED, POS, ["hr@2", "hr@3", "mrr@3", "ndcg@3", "p@3",
                                           "map@3", "auc"],
                             n_items=7, correction="rank_estimate", strategy="uniform")
    pu = ev.per_user
    # user 1: r^ = 1 + (n - 1)(r' - 1)/m = 1 + 6 * 1 / 3 = 3; user 2: r^ = 1
    assert pu["HitRate@2"].tolist() == [0.0, 1.0]            # [3 <= 2] = 0
    assert pu["HitRate@3"].tolist() == [1.0, 1.0]            # [3 <= 3] = 1
    assert pu["MRR@3"].tolist() == pytest.approx([1 / 3, 1.0], abs=TOL)
    assert pu["NDCG@3"].tolist() == pytest.approx([1 / math.log2(4), 1.0], abs=TOL)  # 1/2
    assert pu["Precision@3"].tolist() == pytest.approx([1 / 3, 1 / 3], abs=TOL)
    assert pu["MAP@3"].tolist() == pytest.approx([1 / 3, 1.0], abs=TOL)
    assert pu["AUC"].tolist() == pytest.approx([2 / 3, 1.0], abs=TOL)  # not corrected
    assert ev["mrr@3"] == pytest.approx((1 / 3 + 1) / 2, abs=TOL)
    rec = ev.settings["sampled"]
    assert rec["uncorrected"]["MRR@3"] == pytest.approx(0.75, abs=TOL)
    assert rec["not_corrected"] == ["AUC"]
    # the table over r' = 1..4: r^ = 1, 3, 5, 7 -> MRR@3 = 1, 1/3, 0, 0
    assert rec["tables"]["MRR@3"][3] == pytest.approx([1, 1 / 3, 0, 0], abs=TOL)


def test_rank_estimate_is_unrounded():
    # n = 6, m = 3: r' = 2 -> r^ = 1 + 5/3 = 2.667: MRR@3 = 3/8, HR@2 = [2.667 <= 2] = 0
    ev = rv.sampled.evaluate(SCORED, POS, ["mrr@3", "hr@2", "ndcg@3"], n_items=6,
                             correction="rank_estimate", strategy="uniform")
    r_hat = 1 + 5 / 3
    assert ev.per_user["MRR@3"].iloc[0] == pytest.approx(1 / r_hat, abs=TOL)
    assert ev.per_user["HitRate@2"].iloc[0] == 0.0
    assert ev.per_user["NDCG@3"].iloc[0] == pytest.approx(1 / math.log2(r_hat + 1), abs=TOL)


def test_ties_follow_the_policy_and_expected_averages_the_table():
    # user 1: a .9, p .8, b .8, c .1 -> p tied with b: r' = 2 (optimistic) or 3 (pessimistic)
    scored = SCORED.assign(score=[.9, .8, .8, .1, .7, .6, .2, .1])
    for ties, want in (("optimistic", 1 / 3), ("pessimistic", 1 / 5),
                       ("expected", (1 / 3 + 1 / 5) / 2)):
        # n = 7, m = 3: r^ = 1 + 2 (r' - 1) = 3 or 5; MRR@5 = 1/3 or 1/5
        ev = rv.sampled.evaluate(scored, POS, ["mrr@5"], n_items=7,
                                 correction="rank_estimate", ties=ties, strategy="uniform")
        assert ev.per_user["MRR@5"].iloc[0] == pytest.approx(want, abs=TOL), ties
    # uncorrected, expected: E[1/r'] over r' in {2, 3}
    ev = rv.sampled.evaluate(scored, POS, ["mrr@5"], n_items=7, ties="expected")
    assert ev.per_user["MRR@5"].iloc[0] == pytest.approx((1 / 2 + 1 / 3) / 2, abs=TOL)


# -- an independent implementation of the least-squares corrections ---------------------------
def reference_table(metric_at, n: int, m: int, gamma: float, prior=None) -> np.ndarray:
    """Straight normal equations with math.comb binomials (uniform prior by default)."""
    a = np.array([[math.comb(m, j) * ((r - 1) / (n - 1)) ** j
                   * (1 - (r - 1) / (n - 1)) ** (m - j) for j in range(m + 1)]
                  for r in range(1, n + 1)])
    p = np.full(n, 1 / n) if prior is None else np.asarray(prior) / np.sum(prior)
    big_m = np.array([metric_at(r) for r in range(1, n + 1)])
    lhs = (1 - gamma) * a.T @ np.diag(p) @ a + gamma * np.diag(a.T @ p)
    return np.linalg.solve(lhs, a.T @ np.diag(p) @ big_m)


REFERENCE = {
    "hr@2": lambda r: float(r <= 2),
    "mrr@3": lambda r: 1 / r if r <= 3 else 0.0,
    "ndcg@3": lambda r: 1 / math.log2(r + 1) if r <= 3 else 0.0,
    "p@2": lambda r: 0.5 if r <= 2 else 0.0,
    "map@4": lambda r: 1 / r if r <= 4 else 0.0,
}


@pytest.mark.parametrize(("correction", "gamma"), [
    ("minimal_bias", None), ("bias_variance", 0.3), ("bias_variance", None),
    ("bias_variance", 1.0), ("bias_variance", 0.0)])
def test_least_squares_corrections_against_normal_equations(correction, gamma):
    n, m = 7, 3
    ev = rv.sampled.evaluate(SCORED, POS, list(REFERENCE), n_items=n, correction=correction,
                             gamma=gamma, strategy="uniform")
    g = 0.0 if correction == "minimal_bias" else (0.01 if gamma is None else gamma)
    assert ev.settings["sampled"]["gamma"] == g
    for name, fn in REFERENCE.items():
        table = reference_table(fn, n, m, g)
        label = rv.metrics.parse(name).label
        assert ev.settings["sampled"]["tables"][label][m] == pytest.approx(table, abs=1e-9)
        # user 1 has r' = 2, user 2 r' = 1
        assert ev.per_user[label].tolist() == pytest.approx([table[1], table[0]], abs=1e-9)


def test_custom_prior_against_normal_equations():
    prior = [5, 4, 3, 2, 1, 1, 1]  # p(r) for r = 1..7, normalised
    ev = rv.sampled.evaluate(SCORED, POS, ["mrr@3"], n_items=7, correction="bias_variance",
                             gamma=0.2, prior=np.array(prior, dtype=float), strategy="uniform")
    table = reference_table(REFERENCE["mrr@3"], 7, 3, 0.2, prior)
    assert ev.settings["sampled"]["prior"] == "custom"
    assert ev.per_user["MRR@3"].tolist() == pytest.approx([table[1], table[0]], abs=1e-9)


def test_rank_estimate_against_the_direct_formula():
    # T[r'] = M(r^) with r^ = 1 + (n - 1)(r' - 1)/m unrounded, M extended to real ranks
    n, m = 40, 3
    ev = rv.sampled.evaluate(SCORED, POS, list(REFERENCE), n_items=n,
                             correction="rank_estimate", strategy="uniform")
    continuous = {"hr@2": lambda x: float(x <= 2), "p@2": lambda x: 0.5 * (x <= 2),
                  "mrr@3": lambda x: (x <= 3) / x, "map@4": lambda x: (x <= 4) / x,
                  "ndcg@3": lambda x: (x <= 3) / math.log2(x + 1)}
    for name, fn in continuous.items():
        table = ev.settings["sampled"]["tables"][rv.metrics.parse(name).label][m]
        want = [fn(1 + (n - 1) * j / m) for j in range(m + 1)]  # r^ = 1, 14, 27, 40
        assert table == pytest.approx(want, abs=TOL), name


@pytest.mark.slow
@pytest.mark.parametrize("n", [1000, 3706, 20000])
def test_minimal_bias_at_m_99_is_bounded_and_less_biased(n):
    # At m = 99 A^T P A has condition ~3e15: the untruncated minimal-bias table has entries
    # of ~1e12. With the default cutoff RCOND = 1e-2 (measured: |T| <= 6.3 for HR, nDCG, MRR
    # @10 and n = 1000..20000) the documented bound is |T| <= 10, and the squared bias
    # sum_r p(r) (E[T[r'] | r] - M(r))^2 stays far below the uncorrected metric's
    # (measured 76..260 times below; asserted 50 times).
    from receval.sampled._corrections import RCOND, least_squares_table, sampled_rank_pmf

    m = 99
    r = np.arange(1, 11, dtype=float)
    values = np.zeros((11, 3))
    values[:10, 0] = 1.0  # HR@10
    values[:10, 1] = 1.0 / np.log2(r + 1.0)  # nDCG@10
    values[:10, 2] = 1.0 / r  # MRR@10
    a = sampled_rank_pmf(np.arange(1, n + 1), n, m)  # A[r - 1, r' - 1] = P(r' | r)
    full = np.zeros((n, 3))
    full[:11] = values
    naive = np.zeros((m + 1, 3))
    naive[:10] = values[:10]  # the uncorrected sampled metric: T[r'] = M(r')
    naive_bias2 = np.mean((a @ naive - full) ** 2, axis=0)  # uniform p(r) = 1/n
    untruncated = least_squares_table(values, n, m, 0.0, rcond=0.0)
    assert np.abs(untruncated).max() > 1e6  # why the cutoff exists
    table = least_squares_table(values, n, m, 0.0)
    assert RCOND == 1e-2
    assert np.all(np.isfinite(table))
    assert np.abs(table).max() <= 10
    bias2 = np.mean((a @ table - full) ** 2, axis=0)
    assert np.all(bias2 < naive_bias2 / 50), (bias2, naive_bias2)
    # bias_variance's default gamma = 0.01 regularises: the cutoff does not bite
    bv = least_squares_table(values, n, m, 0.01)
    assert bv == pytest.approx(least_squares_table(values, n, m, 0.01, rcond=0.0), abs=1e-9)
    assert np.all(np.mean((a @ bv - full) ** 2, axis=0) < naive_bias2 / 10)


def test_rcond_is_recorded_and_passed_to_the_solve():
    # n = 7, m = 3 is well conditioned (smallest relative singular value of B is 0.22), so
    # a cutoff of 0.5 drops directions and changes the table, 1e-2 does not
    ev = rv.sampled.evaluate(SCORED, POS, ["mrr@3"], n_items=7, correction="minimal_bias",
                             strategy="uniform")
    assert ev.settings["sampled"]["rcond"] == 1e-2
    exact = reference_table(REFERENCE["mrr@3"], 7, 3, 0.0)
    assert ev.settings["sampled"]["tables"]["MRR@3"][3] == pytest.approx(exact, abs=1e-9)
    cut = rv.sampled.evaluate(SCORED, POS, ["mrr@3"], n_items=7, correction="minimal_bias",
                              rcond=0.5, strategy="uniform")
    assert cut.settings["sampled"]["rcond"] == 0.5
    assert cut.settings["sampled"]["tables"]["MRR@3"][3] != pytest.approx(exact, abs=1e-3)
    plain = rv.sampled.evaluate(SCORED, POS, ["mrr@3"], n_items=7, correction="rank_estimate",
                                strategy="uniform")
    assert "rcond" not in plain.settings["sampled"]


def test_lists_with_different_numbers_of_negatives_use_their_own_table():
    scored = SCORED.iloc[:7]  # user 2 keeps q, d, e: m = 2
    ev = rv.sampled.evaluate(scored, POS, ["mrr@3"], n_items=7, correction="rank_estimate",
                             strategy="uniform")
    # user 2: r' = 1 -> r^ = 1 -> 1; user 1: m = 3 -> r^ = 3 -> 1/3
    assert ev.per_user["MRR@3"].tolist() == pytest.approx([1 / 3, 1.0], abs=TOL)
    assert ev.settings["sampled"]["m"] == [2, 3]


def test_several_lists_per_user_from_negatives_are_evaluated_one_by_one():
    cand = rv.sampled.negatives(TEST, n=3, items=range(12), exclude=TRAIN, seed=2)
    cand["score"] = np.where(cand["positive"], 1.0, 0.0) - 0.01 * cand["item_id"]
    ev = rv.sampled.evaluate(cand, TEST, ["hr@1", "auc"], n_items=12)
    assert ev.per_user.index.tolist() == [0, 1, 2]  # the list ids
    assert ev.per_user.index.name == "list_id"
    assert ev.settings["columns"]["user"] == "list_id"
    assert ev["hr@1"] == 1.0
    assert ev.settings["sampled"]["list_key"] == "list_id"
    assert ev.settings["sampled"]["strategy"] == "uniform"
    assert ev.settings["sampled"]["seed"] == 2


# user 1's negative 'b' twice: once the repeat is dropped, user 1 has m = 3 negatives again
REPEATED = pd.concat([SCORED, SCORED.iloc[[2]]], ignore_index=True)


@pytest.mark.parametrize("correction", ["none", "rank_estimate", "minimal_bias",
                                        "bias_variance"])
@pytest.mark.parametrize("duplicates", ["first", "best"])
@pytest.mark.parametrize("list_id", [False, True])
def test_repeated_negatives_are_dropped_before_m_is_counted(correction, duplicates, list_id):
    scored, repeated = SCORED, REPEATED
    if list_id:  # the lists told apart by a list_id column: 10 and 20
        scored = SCORED.assign(list_id=SCORED["user_id"] * 10)
        repeated = REPEATED.assign(list_id=REPEATED["user_id"] * 10)
    options = {"n_items": 7, "correction": correction, "strategy": "uniform"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SampledCorrectionWarning)
        want = rv.sampled.evaluate(scored, POS, ["mrr@3", "auc"], **options)
        got = rv.sampled.evaluate(repeated, POS, ["mrr@3", "auc"], duplicates=duplicates,
                                  **options)
    assert got.settings["sampled"]["m"] == 3  # 4 rows - 1 positive, not 5 - 1
    assert got.settings["recs_duplicates_dropped"] == 1
    assert want.settings["recs_duplicates_dropped"] == 0
    pd.testing.assert_frame_equal(got.per_user, want.per_user, rtol=0, atol=TOL)
    assert got.settings["sampled"].get("tables") == want.settings["sampled"].get("tables")
    if correction == "rank_estimate":
        # user 1: r' = 2, m = 3 -> r^ = 1 + 6 * 1 / 3 = 3 -> 1/3 (m = 4 would give
        # r^ = 1 + 6 / 4 = 2.5 -> 0.4)
        assert got.per_user["MRR@3"].iloc[0] == pytest.approx(1 / 3, abs=TOL)


@pytest.mark.parametrize(("list_id", "names"), [
    (False, r"\(user, item\) pairs over 1 users, e\.g\. \(1, 'b'\).*"
            r"columns 'user_id', 'item_id'"),
    (True, r"\(list_id, item\) pairs over 1 lists, e\.g\. \(10, 'b'\).*"
           r"columns 'list_id', 'item_id'"),
])
def test_a_repeated_item_names_the_columns_of_scored(list_id, names):
    repeated = REPEATED.assign(list_id=REPEATED["user_id"] * 10) if list_id else REPEATED
    with pytest.raises(DuplicateRowError, match="scored: 1 repeated " + names) as info:
        rv.sampled.evaluate(repeated, POS, ["mrr@3"], n_items=7)
    assert "'key'" not in str(info.value)
    with pytest.raises(InvalidParameterError, match="duplicates must be one of"):
        rv.sampled.evaluate(repeated, POS, ["mrr@3"], n_items=7, duplicates="last")


# -- bad input ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("kwargs", "match"), [
    ({"correction": "exact"}, "correction must be one of"),
    ({"correction": "bias_variance", "gamma": 1.5}, r"gamma must be a number in \[0, 1\]"),
    ({"correction": "bias_variance", "gamma": -0.1}, "gamma must be"),
    ({"correction": "minimal_bias", "gamma": 0.2}, "minimal_bias is gamma=0"),
    ({"correction": "minimal_bias", "rcond": 1.0}, r"rcond must be a number in \[0, 1\)"),
    ({"correction": "minimal_bias", "rcond": -1e-3}, "rcond must be"),
    ({"correction": "minimal_bias", "rcond": "big"}, "rcond must be"),
    ({"correction": "rank_estimate", "gamma": 0.2}, "no meaning"),
    ({"n_items": 3}, "n_items=3 is smaller than the longest list"),
    ({"n_items": 1}, "n_items"),
    ({"n_items": 7.0}, "n_items"),
    ({"strategy": "popularity", "correction": "rank_estimate"}, "uniformly sampled"),
    ({"strategy": "random"}, "strategy"),
    ({"correction": "minimal_bias", "prior": [1, 2]}, "prior"),
    ({"correction": "rank_estimate", "prior": np.ones(7)}, "prior= applies"),
])
def test_evaluate_bad_parameters(kwargs, match):
    call = {"n_items": 7, **kwargs}
    with pytest.raises(InvalidParameterError, match=match):
        rv.sampled.evaluate(SCORED, POS, ["hr@2"], **call)


@pytest.mark.parametrize(("metric", "correction", "match"), [
    ("dcg@3", "none", "not supported under sampling"),
    ("rmse", "none", "not supported under sampling"),
    ("item_coverage", "none", "not supported"),
    ("mrr", "minimal_bias", "needs a cutoff"),
    ("ap(denominator=k, positions=all)@3", "rank_estimate", "unrounded rank"),
])
def test_evaluate_unsupported_metrics(metric, correction, match):
    with pytest.raises(InvalidParameterError, match=match):
        rv.sampled.evaluate(SCORED, POS, [metric], n_items=7, correction=correction,
                            strategy="uniform")


def test_ap_all_positions_is_corrected_by_least_squares():
    ev = rv.sampled.evaluate(SCORED, POS, ["ap(denominator=k, positions=all)@3"], n_items=7,
                             correction="minimal_bias", strategy="uniform")
    # one positive at rank r: (1/k) sum_{i=r}^{k} 1/i
    def ap_all(r: int) -> float:
        return sum(1 / i for i in range(r, 4)) / 3 if r <= 3 else 0.0

    table = reference_table(ap_all, 7, 3, 0.0)
    assert ev.per_user.iloc[:, 0].tolist() == pytest.approx([table[1], table[0]], abs=1e-9)


def test_evaluate_bad_lists():
    two = pd.DataFrame({"user_id": [1, 1], "item_id": ["p", "a"]})
    with pytest.raises(DataError, match=r"exactly one positive .* \(1: 2, 2: 0\)"):
        rv.sampled.evaluate(SCORED, two, ["hr@2"], n_items=7)
    missing = pd.DataFrame({"user_id": [1, 2, 3], "item_id": ["p", "q", "z"]})
    with pytest.raises(DataError, match="1 test rows have no list"):
        rv.sampled.evaluate(SCORED, missing, ["hr@2"], n_items=7)
    alone = SCORED.iloc[:5]  # user 2 keeps only its positive
    with pytest.raises(DataError, match="no negative"):
        rv.sampled.evaluate(alone, POS, ["hr@2"], n_items=7)
    flagged = SCORED.assign(positive=[False, True, True, False, True, False, False, False])
    with pytest.raises(DataError, match="'positive' column disagrees"):
        rv.sampled.evaluate(flagged, POS, ["hr@2"], n_items=7)


# ============================================================================================
# simulation: corrections are nearer the exact metric than the sampled one
# ============================================================================================
def _simulate(n: int, m: int, n_users: int, samplings: int, metrics: list[str]):
    rng = np.random.default_rng(42)
    true_rank = np.minimum(rng.geometric(0.08, size=n_users), n)
    # full scores: a random order of the n items per user with the positive (item 0) at its
    # true rank; score = n - rank + 1
    rows = []
    for u in range(n_users):
        order = rng.permutation(np.arange(1, n))
        ranked = np.insert(order, true_rank[u] - 1, 0)
        rows.append(pd.DataFrame({"user_id": u, "item_id": ranked,
                                  "score": np.arange(n, 0, -1, dtype=float)}))
    full = pd.concat(rows, ignore_index=True)
    test = pd.DataFrame({"user_id": np.arange(n_users), "item_id": 0})
    exact = rv.evaluate(full, test, metrics).to_dict()
    means = {c: {lab: 0.0 for lab in exact} for c in rv.sampled.CORRECTIONS}
    for s in range(samplings):
        cand = rv.sampled.negatives(test, n=m, items=range(n), seed=s)
        scored = cand.merge(full, on=["user_id", "item_id"], how="left")
        for c in rv.sampled.CORRECTIONS:
            with warnings.catch_warnings():  # one sampling's minimal-bias mean may leave [0, 1]
                warnings.simplefilter("ignore", SampledCorrectionWarning)
                ev = rv.sampled.evaluate(scored, test, metrics, n_items=n, correction=c,
                                         gamma=0.1 if c == "bias_variance" else None,
                                         strategy="uniform")
            for lab in exact:
                means[c][lab] += ev[lab] / samplings
    return exact, means


@pytest.mark.slow
@pytest.mark.parametrize(("n", "m", "n_users", "samplings", "k"), [
    (60, 8, 300, 25, 5),
    # a realistic m = 99 out of n = 600 items: the untruncated minimal-bias table would have
    # entries of ~1e10 and a mean of noise; truncated at rcond = 1e-2 it is nearer the exact
    # metric than the uncorrected sampled one, as are the other corrections
    (600, 99, 200, 4, 10),
])
def test_every_correction_is_nearer_the_exact_metric_on_average(n, m, n_users, samplings, k):
    exact, means = _simulate(n=n, m=m, n_users=n_users, samplings=samplings,
                             metrics=[f"hr@{k}", f"ndcg@{k}", f"mrr@{k}"])
    for lab, value in exact.items():
        naive = abs(means["none"][lab] - value)
        for c in ("rank_estimate", "minimal_bias", "bias_variance"):
            assert abs(means[c][lab] - value) < naive, (lab, c, value, means)


# ============================================================================================
# the worked example of docs/sampled.md
# ============================================================================================
@pytest.mark.slow
def test_docs_worked_example_is_current():
    import runpy

    script = runpy.run_path(str(ROOT / "docs" / "make_sampled_example.py"))
    page = (ROOT / "docs" / "sampled.md").read_text(encoding="utf-8")
    table = script["render"]()
    assert script["page_with"](table, page) == page, "run: python docs/make_sampled_example.py"
    rows = [line.split(" | ") for line in table.splitlines()[2:]]
    first = {(r[0].strip("| "), r[1]): r[-1].strip(" |") for r in rows}
    for metric in ("HitRate@10", "NDCG@10"):
        # sampling reverses the order of the full ranking; the corrections restore it
        assert first[(metric, "full ranking")] == "sharp"
        assert first[(metric, "sampled, none")] == "broad"
        assert first[(metric, "sampled, rank_estimate")] == "sharp"
        assert first[(metric, "sampled, bias_variance")] == "sharp"
        # minimal bias too, now that its solve is truncated (rcond = 1e-2): bounded values
        assert first[(metric, "sampled, minimal_bias")] == "sharp"
    for row in rows:
        if row[1] == "sampled, minimal_bias":
            assert all(0 <= float(x.strip(" |")) <= 1 for x in row[2:4]), row


@pytest.mark.slow
def test_docs_safety_simulation_is_current():
    import runpy

    script = runpy.run_path(str(ROOT / "docs" / "make_sampled_safety.py"))
    page = (ROOT / "docs" / "sampled.md").read_text(encoding="utf-8")
    rows = script["simulate"]()  # also checks one run against rv.sampled.evaluate
    assert script["page_with"](script["render"](rows), page) == page, \
        "run: python docs/make_sampled_safety.py"
    for row in rows:  # the reported standard error is the real spread across runs
        assert row["reported_se"] == pytest.approx(row["spread"], rel=0.15), row
    small = {(r["metric"], r["correction"]): r for r in rows if r["lists"] == 671}
    # the report of issue 22: minimal bias leaves [0, 1] and reverses models at 671 lists
    assert small["HitRate@10", "minimal_bias"]["outside"] > 0.05
    assert small["HitRate@10", "minimal_bias"]["reversed"] > 0.2


@pytest.mark.parametrize(("convention", "metrics"), [
    (None, ["hr@2", "ndcg@3"]), ("ranx", ["hr@2", "ndcg@3"]), ("sklearn", ["ndcg@3"])])
def test_result_holds_only_the_requested_metrics(convention, metrics):
    # the sampled ranks come from whole-list MRR helpers: in the same engine call without a
    # convention, in a call of their own under one (scikit-learn has no MRR)
    ev = rv.sampled.evaluate(SCORED, POS, metrics, n_items=7, correction="rank_estimate",
                             convention=convention, strategy="uniform")
    labels = [rv.metrics.parse(m).label if convention is None
              else rv.conventions.get(convention).metric(m).label for m in metrics]
    assert ev.labels == labels
    assert list(ev.per_user.columns) == labels
    assert list(ev.settings["metrics"]) == labels
    # user 1: r' = 2 -> r^ = 1 + 6 * 1/3 = 3: nDCG@3 = 1/log2(4) = 1/2; user 2: r^ = 1 -> 1
    assert ev.per_user[labels[-1]].tolist() == pytest.approx([0.5, 1.0], abs=TOL)


def test_negatives_exclude_ids_of_another_type_are_an_error():
    train = pd.DataFrame({"user_id": ["1"], "item_id": [1]})
    with pytest.raises(IdTypeMismatchError, match="exclude user"):
        rv.sampled.negatives(TEST, n=1, items=range(9), exclude=train)
    train = pd.DataFrame({"user_id": [1], "item_id": ["1"]})
    with pytest.raises(IdTypeMismatchError, match="exclude ids in column 'item_id'"):
        rv.sampled.negatives(TEST, n=1, items=range(9), exclude=train)
