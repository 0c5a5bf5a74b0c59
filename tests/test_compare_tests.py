"""The paired tests, corrections, intervals and Friedman test: by hand and against SciPy,
statsmodels and ranx."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

import receval as rv
from receval.stats._corrections import adjust
from tests.compare_helpers import result


def pair(a, b, **kw):
    """Compare two systems with per-user precision@5 values a and b."""
    return rv.compare({"a": result({"precision@5": a}), "b": result({"precision@5": b})}, **kw)


A = [0.8, 0.6, 0.4, 0.6, 0.2]
B = [0.4, 0.6, 0.2, 0.2, 0.4]
# d = A - B = [0.4, 0.0, 0.2, 0.4, -0.2]; mean = 0.8 / 5 = 0.16
# sum of squares about the mean: 0.24^2 + 0.16^2 + 0.04^2 + 0.24^2 + 0.36^2
#   = 0.0576 + 0.0256 + 0.0016 + 0.0576 + 0.1296 = 0.272; sd = sqrt(0.272 / 4) = 0.260768
# t = 0.16 / (0.260768 / sqrt 5) = 1.371989 on 4 df; d_z = 0.16 / 0.260768 = 0.613572


def test_t_by_hand():
    row = pair(A, B).tests.iloc[0]
    assert row["mean_a"] == pytest.approx(0.52)
    assert row["mean_b"] == pytest.approx(0.36)
    assert row["diff"] == pytest.approx(0.16)
    sd = math.sqrt(0.272 / 4)
    assert row["statistic"] == pytest.approx(0.16 / (sd / math.sqrt(5)))
    assert row["effect_size"] == pytest.approx(0.16 / sd)
    assert row["p_value"] == pytest.approx(2 * sps.t.sf(0.16 / (sd / math.sqrt(5)), 4))
    assert row["p_adjusted"] == row["p_value"]
    assert not row["significant"]


def test_sign_by_hand():
    # non-zero differences: +0.4, +0.2, +0.4, -0.2 -> n+ = 3, n- = 1, n = 4
    # p = 2 P(X <= 1), X ~ Bin(4, 1/2) = 2 (1 + 4) / 16 = 0.625
    row = pair(A, B, test="sign").tests.iloc[0]
    assert row["statistic"] == 2
    assert row["p_value"] == pytest.approx(0.625)
    assert row["effect_size"] == pytest.approx(2 / 4)


def test_wilcoxon_by_hand():
    # non-zero |d| = 0.4, 0.2, 0.4, 0.2 -> average ranks 3.5, 1.5, 3.5, 1.5 (signs +, +, +, -)
    # W+ = 3.5 + 1.5 + 3.5 = 8.5, W- = 1.5; statistic W+ - W- = 7; r = 7 / 10
    row = pair(A, B, test="wilcoxon").tests.iloc[0]
    assert row["statistic"] == pytest.approx(7.0)
    assert row["effect_size"] == pytest.approx(0.7)
    d = np.array(A) - np.array(B)
    assert row["p_value"] == pytest.approx(sps.wilcoxon(d).pvalue)


def test_permutation_exact_by_hand():
    # 2^5 = 32 sign patterns; |sum| >= |0.8| of d = [.4, 0, .2, .4, -.2]:
    # sums with the zero's sign irrelevant: 16 patterns of (.4, .2, .4, .2 with signs);
    # |s| >= .8 when s in {1.2, .8, -.8, -1.2}: (+,+,+,+)=1.2, (+,+,+,-)=.8 [observed],
    # (+,-,+,+)=.8, (-,-,-,-)= -1.2, (-,-,-,+)=-.8, (-,+,-,-)=-.8 -> 6 of 16 -> p = 0.375
    cmp = pair(A, B, test="permutation", n_resamples=32)
    assert cmp.settings["permutation_exact"] is True
    assert cmp.tests.iloc[0]["p_value"] == pytest.approx(6 / 16)
    assert cmp.tests.iloc[0]["statistic"] == pytest.approx(0.16)


def test_permutation_against_enumeration_and_scipy():
    rng = np.random.default_rng(3)
    for n in range(2, 11):
        a, b = rng.random(n).round(2), rng.random(n).round(2)
        d = a - b
        count = sum(abs(np.dot(s, d)) >= abs(d.sum()) - 1e-12
                    for s in itertools.product([1, -1], repeat=n))
        cmp = pair(a, b, test="permutation", n_resamples=2 ** n)
        assert cmp.tests.iloc[0]["p_value"] == pytest.approx(count / 2 ** n)
        ref = sps.permutation_test((a, b), lambda x, y: np.mean(x - y),
                                   permutation_type="samples", n_resamples=2 ** n)
        assert cmp.tests.iloc[0]["p_value"] == pytest.approx(ref.pvalue)


@pytest.mark.slow
def test_permutation_monte_carlo_close_to_t():
    rng = np.random.default_rng(5)
    a = rng.random(400)
    b = a - 0.03 + rng.normal(0, 0.2, 400)
    mc = pair(a, b, test="permutation", n_resamples=20_000).tests.iloc[0]
    t = pair(a, b).tests.iloc[0]
    assert mc["p_value"] == pytest.approx(t["p_value"], abs=0.02)
    assert mc["p_value"] >= 1 / 20_001


@pytest.mark.parametrize("n", [8, 30, 200])
def test_against_scipy_on_random_values(n):
    rng = np.random.default_rng(n)
    a, b = rng.random(n), rng.random(n) * 0.9
    t = pair(a, b).tests.iloc[0]
    ref = sps.ttest_rel(a, b)
    assert t["statistic"] == pytest.approx(ref.statistic)
    assert t["p_value"] == pytest.approx(ref.pvalue)
    w = pair(a, b, test="wilcoxon").tests.iloc[0]
    assert w["p_value"] == pytest.approx(sps.wilcoxon(a, b).pvalue)
    s = pair(a, b, test="sign").tests.iloc[0]
    pos = int((a > b).sum())
    assert s["p_value"] == pytest.approx(sps.binomtest(pos, n, 0.5).pvalue)


def test_degenerate_differences():
    same = pair(A, A)
    row = same.tests.iloc[0]
    assert (row["statistic"], row["p_value"], row["effect_size"]) == (0.0, 1.0, 0.0)
    for test in ("wilcoxon", "sign", "permutation", "bootstrap"):
        assert pair(A, A, test=test).tests.iloc[0]["p_value"] == 1.0
    shifted = pair([0.5, 0.6, 0.7], [0.4, 0.5, 0.6]).tests.iloc[0]  # constant d = 0.1
    assert shifted["statistic"] == math.inf
    assert shifted["p_value"] == 0.0


NAN = math.nan
# one user with a value under both systems: user 0, d = 0.8 - 0.2 = 0.6 (user 1: a has none)
ONE_USER = ([0.8, NAN], [0.2, 0.4])
# no user with a value under both systems
NO_USER = ([NAN, NAN], [0.2, 0.4])


@pytest.mark.parametrize(("test", "values", "want"), [
    # (statistic, p-value, effect size); NaN: no test
    ("t", NO_USER, (NAN, NAN, NAN)),
    ("wilcoxon", NO_USER, (NAN, NAN, NAN)),
    ("sign", NO_USER, (NAN, NAN, NAN)),
    ("permutation", NO_USER, (NAN, NAN, NAN)),
    ("bootstrap", NO_USER, (NAN, NAN, NAN)),
    # one difference has no variance (scipy.stats.ttest_rel gives NaN), and every bootstrap
    # resample of one user is that user: no t or bootstrap test, and no Cohen's d_z
    ("t", ONE_USER, (NAN, NAN, NAN)),
    ("bootstrap", ONE_USER, (NAN, NAN, NAN)),
    # exact from one difference: permutation, 2 sign patterns (+0.6, -0.6), both as extreme
    # as 0.6 -> p = 2 / 2 = 1, statistic the mean difference 0.6, d_z NaN (no sd)
    ("permutation", ONE_USER, (0.6, 1.0, NAN)),
    # Wilcoxon: W+ = 1, W- = 0 -> W+ - W- = 1, r = 1 / 1; p = scipy.stats.wilcoxon([0.6]) = 1
    ("wilcoxon", ONE_USER, (1.0, 1.0, 1.0)),
    # sign: n+ = 1, n- = 0 -> p = min(1, 2 P(Bin(1, 1/2) <= 0)) = min(1, 2 * 0.5) = 1
    ("sign", ONE_USER, (1.0, 1.0, 1.0)),
])
def test_too_few_users_give_no_test(test, values, want):
    with pytest.warns(rv.exceptions.UndefinedMetricWarning) if math.isnan(want[1]) \
            else warnings.catch_warnings():
        if not math.isnan(want[1]):
            warnings.simplefilter("error", rv.exceptions.UndefinedMetricWarning)
        row = pair(*values, test=test, n_resamples=200).tests.iloc[0]
    got = (row["statistic"], row["p_value"], row["effect_size"])
    assert got == pytest.approx(want, nan_ok=True)
    assert not row["significant"]
    assert math.isnan(row["p_adjusted"]) == math.isnan(want[1])
    if test == "bootstrap":
        assert math.isnan(row["ci_low"])
        assert math.isnan(row["ci_high"])


@pytest.mark.parametrize("test", ["t", "wilcoxon", "sign", "permutation", "bootstrap"])
def test_no_test_is_named_and_left_out_of_the_correction(test):
    # precision@5 has 5 users (A, B above); recall@5 has none under both systems, so
    # bonferroni runs over m = 1 test: p_adjusted = min(1, 1 * p) = p for precision@5
    a = result({"precision@5": A, "recall@5": [NAN] * 5})
    b = result({"precision@5": B, "recall@5": [0.5] * 5})
    with pytest.warns(rv.exceptions.UndefinedMetricWarning,
                      match=r"for Recall@5 \(0 users\).*left out of the correction"):
        cmp = rv.compare({"a": a, "b": b}, test=test, correction="bonferroni",
                         n_resamples=200)
    prec, rec = cmp.tests.iloc[0], cmp.tests.iloc[1]
    assert prec["p_adjusted"] == prec["p_value"]
    assert math.isnan(rec["p_value"])
    assert math.isnan(rec["p_adjusted"])
    assert not rec["significant"]
    assert rec["n_users"] == 0
    assert cmp.settings["n_tests"] == 1
    assert "1 tests" in cmp.to_markdown()


def test_friedman_without_users_is_nan():
    none = {s: result({"precision@5": v}) for s, v in
            (("x", [NAN, NAN]), ("y", [0.2, 0.4]), ("z", [0.4, 0.4]))}
    with pytest.warns(rv.exceptions.UndefinedMetricWarning):
        cmp = rv.compare(none)
    row = cmp.friedman.iloc[0]
    assert math.isnan(row["statistic"])
    assert math.isnan(row["p_value"])
    assert row["n_users"] == 0


def test_adjust_leaves_nan_out():
    # m = 2 defined p-values (0.01, 0.04): bonferroni 2p = 0.02, 0.08; holm: 2(.01) = .02,
    # 1(.04) = .04; bh: 2(.01)/1 = .02, 2(.04)/2 = .04
    p = np.array([0.01, NAN, 0.04])
    assert adjust(p, "bonferroni") == pytest.approx([0.02, NAN, 0.08], nan_ok=True)
    assert adjust(p, "holm") == pytest.approx([0.02, NAN, 0.04], nan_ok=True)
    assert adjust(p, "bh") == pytest.approx([0.02, NAN, 0.04], nan_ok=True)
    assert np.isnan(adjust(np.array([NAN]), "holm")).all()


@pytest.mark.slow
@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=3, max_size=30))
@settings(max_examples=20, deadline=None)
def test_swapping_systems_negates_statistic(rows):
    a, b = [r[0] for r in rows], [r[1] for r in rows]
    for test in ("t", "wilcoxon", "sign", "permutation"):
        ab = pair(a, b, test=test, n_resamples=200).tests.iloc[0]
        ba = pair(b, a, test=test, n_resamples=200).tests.iloc[0]
        assert ab["statistic"] == pytest.approx(-ba["statistic"], abs=1e-9)
        assert ab["p_value"] == pytest.approx(ba["p_value"])
        assert 0.0 <= ab["p_value"] <= 1.0
        if test == "t" and ab["diff"] != 0 and np.isfinite(ab["statistic"]):
            assert np.sign(ab["statistic"]) == np.sign(ab["diff"])


@pytest.mark.slow
@given(st.lists(st.floats(0, 1), min_size=1, max_size=40))
@settings(max_examples=60, deadline=None)
def test_corrections_against_statsmodels(p):
    multipletests = pytest.importorskip("statsmodels.stats.multitest").multipletests
    p = np.array(p)
    for ours, theirs in (("bonferroni", "bonferroni"), ("holm", "holm"), ("bh", "fdr_bh")):
        assert adjust(p, ours) == pytest.approx(multipletests(p, method=theirs)[1])
    assert np.all(adjust(p, "holm") <= adjust(p, "bonferroni") + 1e-15)
    assert np.all(adjust(p, "bh") >= p - 1e-15)


def test_corrections_by_hand():
    p = np.array([0.01, 0.04, 0.03, 0.005])
    # sorted 0.005, 0.01, 0.03, 0.04 (m = 4)
    # bonferroni: 4p = .04, .16, .12, .02
    assert adjust(p, "bonferroni") == pytest.approx([0.04, 0.16, 0.12, 0.02])
    # holm: 4(.005)=.02, 3(.01)=.03, 2(.03)=.06, 1(.04)=.04 -> running max .02 .03 .06 .06
    assert adjust(p, "holm") == pytest.approx([0.03, 0.06, 0.06, 0.02])
    # bh: 4p/rank = .02, .02, .04, .04 -> running min from the top: .02 .02 .04 .04
    assert adjust(p, "bh") == pytest.approx([0.02, 0.04, 0.04, 0.02])
    assert adjust(p, None) == pytest.approx(p)


@pytest.mark.parametrize(("given", "recorded"), [
    (None, None), ("none", None), ("None", None), ("NONE", None),  # no correction
    ("holm", "holm"), ("Holm", "holm"), ("BH", "bh"), ("bonferroni", "bonferroni"),
])
def test_correction_none_and_case_are_one_option(given, recorded):
    # three tests (x-y, x-z, y-z); "none" in any case is None, names in any case are the name
    cmp = rv.compare({s: result({"precision@5": v}) for s, v in
                      (("x", [0.2, 0.4, 0.6]), ("y", [0.4, 0.4, 0.8]), ("z", [0.0, 0.2, 0.2]))},
                     correction=given)
    assert cmp.settings["correction"] == recorded
    p = cmp.tests["p_value"].to_numpy()
    want = p if recorded is None else adjust(p, recorded)
    assert cmp.tests["p_adjusted"].to_numpy() == pytest.approx(want)
    groups = {0: "g", 1: "g", 2: "h"}
    d = cmp.disparity(groups, correction=given, n_resamples=20)
    assert d["p_adjusted"].to_numpy() == pytest.approx(
        d["p_value"].to_numpy() if recorded is None else adjust(d["p_value"], recorded))


@pytest.mark.parametrize("bad", ["sidak", "", 1, True])
def test_correction_refused_names_both_spellings_of_none(bad):
    two = {"a": result({"precision@5": [0.1, 0.2]}), "b": result({"precision@5": [0.3, 0.2]})}
    for call in (lambda: rv.compare(two, correction=bad),
                 lambda: rv.compare(two).disparity({0: "g", 1: "h"}, correction=bad),
                 lambda: adjust(np.array([0.5]), bad)):
        with pytest.raises(rv.exceptions.InvalidParameterError,
                           match="correction must be None or 'none'") as e:
            call()
        assert e.value.parameter == "correction"
        assert repr(bad) in str(e.value)


def test_correction_runs_over_every_test_of_the_call():
    rng = np.random.default_rng(1)
    vals = {s: {"precision@5": rng.random(50), "recall@5": rng.random(50)} for s in "xyz"}
    cmp = rv.compare({s: result(v) for s, v in vals.items()}, correction="bonferroni")
    assert cmp.settings["n_tests"] == len(cmp.tests) == 2 * 3
    assert cmp.tests["p_adjusted"].to_numpy() == pytest.approx(
        np.minimum(1, 6 * cmp.tests["p_value"].to_numpy()))


def test_bootstrap_interval_against_scipy():
    rng = np.random.default_rng(2)
    a, b = rng.exponential(0.3, 300), rng.exponential(0.25, 300)
    cmp = pair(a, b, test="bootstrap", n_resamples=4000)
    ref = sps.bootstrap((a,), np.mean, n_resamples=4000, method="percentile",
                        random_state=np.random.default_rng(0)).confidence_interval
    low, high = cmp.ci.loc[("a", "Precision@5"), ["low", "high"]]
    width = ref.high - ref.low
    assert low == pytest.approx(ref.low, abs=0.05 * width)
    assert high == pytest.approx(ref.high, abs=0.05 * width)
    d = a - b
    ref_d = sps.bootstrap((d,), np.mean, n_resamples=4000, method="percentile",
                          random_state=np.random.default_rng(0)).confidence_interval
    row = cmp.tests.iloc[0]
    assert row["ci_low"] == pytest.approx(ref_d.low, abs=0.05 * (ref_d.high - ref_d.low))
    assert row["ci_low"] < row["diff"] < row["ci_high"]
    assert row["p_value"] == pytest.approx(pair(a, b).tests.iloc[0]["p_value"], abs=0.03)


@pytest.mark.slow
def test_interval_coverage_simulation():
    # 400 data sets of 60 users from Beta(2, 5) (mean 2/7); 95 % intervals should cover the
    # true mean in 93-97 % of them
    rng = np.random.default_rng(11)
    covered = 0
    reps = 400
    for _ in range(reps):
        a = rng.beta(2, 5, 60)
        cmp = pair(a, rng.beta(2, 5, 60), n_resamples=1000, seed=int(rng.integers(1 << 30)))
        low, high = cmp.ci.loc[("a", "Precision@5"), ["low", "high"]]
        covered += low <= 2 / 7 <= high
    assert 0.93 <= covered / reps <= 0.97


def test_friedman_and_nemenyi_against_scipy():
    rng = np.random.default_rng(4)
    vals = {s: rng.random(40) + shift for s, shift in zip("xyz", (0, 0.1, 0.3), strict=True)}
    cmp = rv.compare({s: result({"ndcg@10": v}) for s, v in vals.items()})
    ref = sps.friedmanchisquare(*vals.values())
    row = cmp.friedman.iloc[0]
    assert row["statistic"] == pytest.approx(ref.statistic)
    assert row["p_value"] == pytest.approx(ref.pvalue)
    ranks = sps.rankdata(-np.column_stack(list(vals.values())), axis=1).mean(axis=0)
    assert [row["rank_x"], row["rank_y"], row["rank_z"]] == pytest.approx(ranks)
    # Nemenyi x vs z: z = (R_z - R_x) / sqrt(3 * 4 / (6 * 40)); p = P(Q_{3,inf} >= |z| sqrt 2)
    nem = cmp.nemenyi.set_index(["system_a", "system_b"]).loc[("x", "z")]
    z = (ranks[2] - ranks[0]) / math.sqrt(12 / 240)
    assert nem["statistic"] == pytest.approx(z)
    assert nem["p_value"] == pytest.approx(sps.studentized_range.sf(abs(z) * math.sqrt(2), 3,
                                                                     np.inf))
    assert pair(A, B).friedman is None


@pytest.mark.slow  # ranx compiles its numba kernels
@pytest.mark.filterwarnings("ignore::numba.core.errors.NumbaTypeSafetyWarning")
def test_against_ranx_compare():
    ranx = pytest.importorskip("ranx")
    rng = np.random.default_rng(8)
    qrels = {f"q{i}": {f"d{j}": 1 for j in rng.choice(20, 4, replace=False)}
             for i in range(40)}
    runs = {}
    for name in ("r1", "r2", "r3"):
        runs[name] = {q: {f"d{j}": float(s) for j, s in enumerate(rng.random(20))}
                      for q in qrels}
    report = ranx.compare(ranx.Qrels(qrels), [ranx.Run(r, name=n) for n, r in runs.items()],
                          ["precision@5", "ndcg@10"], stat_test="student", max_p=0.05)
    truth = [(q, d, 1) for q, ds in qrels.items() for d in ds]
    import pandas as pd

    truth = pd.DataFrame(truth, columns=["user", "item", "rating"])
    systems = {n: pd.DataFrame([(q, d, s) for q, ds in r.items() for d, s in ds.items()],
                               columns=["user", "item", "score"]) for n, r in runs.items()}
    cmp = rv.compare(systems, truth, ["precision@5", "ndcg@10"], alpha=0.05)
    for _, row in cmp.tests.iterrows():
        theirs = report.comparisons[row["system_a"], row["system_b"]][
            row["metric"].lower()]["p_value"]
        assert row["p_value"] == pytest.approx(theirs)


def test_friedman_with_ties_by_hand_and_against_scipy():
    # 3 users x 3 systems; user 1: x=1, y=1, z=0 -> ranks (best = 1) 1.5, 1.5, 3
    # user 2: 1, 0, 0 -> 1, 2.5, 2.5; user 3: 1, 1, 1 -> 2, 2, 2
    # rank sums 4.5, 6, 7.5; ties: groups of 2, 2, 3 -> (8-2) + (8-2) + (27-3) = 36
    # C = 1 - 36 / (3 * 3 * 8) = 0.5; chi2 = (12 / (3*3*4) (4.5^2 + 6^2 + 7.5^2) - 3*3*4) / C
    #   = (1/3 * 112.5 - 36) / 0.5 = 3.0
    vals = {"x": [1, 1, 1], "y": [1, 0, 1], "z": [0, 0, 1]}
    cmp = rv.compare({s: result({"hit_rate@10": v}) for s, v in vals.items()})
    row = cmp.friedman.iloc[0]
    assert row["statistic"] == pytest.approx(3.0)
    assert row["statistic"] == pytest.approx(sps.friedmanchisquare(*vals.values()).statistic)
    assert row["p_value"] == pytest.approx(sps.chi2.sf(3.0, 2))
    assert [row["rank_x"], row["rank_y"], row["rank_z"]] == pytest.approx([1.5, 2, 2.5])


@given(st.lists(st.lists(st.integers(0, 3), min_size=4, max_size=4), min_size=1, max_size=20))
@settings(max_examples=60, deadline=None)
def test_row_ranks_are_scipy_ranks(rows):
    from receval.stats._friedman import row_ranks

    x = np.array(rows, dtype=float)
    assert row_ranks(x)[0] == pytest.approx(sps.rankdata(x, axis=1))


@pytest.mark.parametrize("k", [2, 3, 4, 8])
def test_nemenyi_tail_is_never_a_false_zero(k):
    from receval.stats._friedman import TAIL, range_sf

    qs = np.linspace(0.5, 30.0, 120)
    p = np.array([range_sf(q, k) for q in qs])
    ref = np.array([sps.studentized_range.sf(q, k, np.inf) for q in qs])
    body = ref > TAIL
    np.testing.assert_allclose(p[body], ref[body], rtol=1e-12)  # SciPy's number
    assert np.all(np.diff(p) <= 0)  # a tail: decreasing in q
    assert np.all(p[qs < 38] > 0)  # SciPy returns 0 from q ~ 11; the tail is ~1e-17 there
    # the union bound is within 0.2 % of SciPy where both are accurate (q = 9: 1e-9 to 1e-8)
    q = 9.0
    bound = k * (k - 1) / 2 * 2 * sps.norm.sf(q / np.sqrt(2))
    assert sps.studentized_range.sf(q, k, np.inf) == pytest.approx(bound, rel=2e-3)
