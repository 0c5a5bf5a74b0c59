"""The Wilcoxon test: SciPy's default p-value (ties and zeros included), the exact conditional
null (``method="exact"``) and the normal approximation, by hand and live against SciPy."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

import receval as rv
from receval.exceptions import InvalidParameterError
from receval.stats._paired import wilcoxon_test
from receval.stats._signed_rank import exact_conditional_p
from tests.compare_helpers import result

# d = a - b, multiples of 1/8 so that every difference is exact in binary
D_HAND = np.array([0.0] * 10 + [1, 1, 2, -1, 3]) / 8


def pair(d, **kw):
    b = np.full(len(d), 0.5)
    return rv.compare({"a": result({"precision@5": b + d}), "b": result({"precision@5": b})},
                      test="wilcoxon", n_resamples=10, **kw).tests.iloc[0]


def test_tied_differences_with_zeros_by_hand():
    # 15 users, 10 zeros; non-zero |d| = 1, 1, 2, 1, 3 (/8) -> average ranks 2, 2, 4, 2, 5
    # W+ = 2 + 2 + 4 + 5 = 13, W- = 2, T = 15; statistic W+ - W- = 11; r = 11 / 15
    row = pair(D_HAND)
    assert row["statistic"] == pytest.approx(11.0)
    assert row["effect_size"] == pytest.approx(11 / 15)
    # SciPy's default: 15 differences with ties and zeros (> 13) -> normal approximation
    # mean n (n + 1) / 4 = 7.5 over n = 5 non-zero; tie group of 3 removes (27 - 3) / 2
    # var = (5 * 6 * 11 - 12) / 24 = 13.25; z = (13 - 7.5) / sqrt(13.25) = 1.51098
    z = 5.5 / math.sqrt(13.25)
    assert row["p_value"] == pytest.approx(2 * sps.norm.sf(z), rel=1e-12)
    assert row["p_value"] == pytest.approx(0.1307970618, rel=1e-9)
    assert row["p_value"] == sps.wilcoxon(D_HAND).pvalue
    # the exact conditional null: doubled ranks 4, 4, 8, 4, 10; W+ <= min(13, 2) = 2 in
    # 4 of the 32 sign patterns (none, or one of the three rank-2 values positive)
    exact = pair(D_HAND, method="exact")
    assert exact["p_value"] == pytest.approx(2 * 4 / 32)
    assert exact["statistic"] == row["statistic"]
    # dropping the zeros first (the old behaviour) would give SciPy's permutation path
    assert sps.wilcoxon(D_HAND[D_HAND != 0]).pvalue == pytest.approx(0.25)
    assert pair(D_HAND, method="asymptotic")["p_value"] == pytest.approx(0.1307970618)


def _enumerated(d):
    """The exact conditional p-value by listing every sign pattern of the non-zero d."""
    x = d[d != 0]
    ranks = sps.rankdata(np.abs(x))
    w, total = ranks[x > 0].sum(), ranks.sum()
    low = min(w, total - w)
    hits = sum(np.dot(s, ranks) <= low + 1e-9 for s in itertools.product([0, 1],
                                                                           repeat=len(x)))
    return min(1.0, 2 * hits / 2 ** len(x))


DIFFS = st.lists(st.sampled_from([0, 0, 1, -1, 2, -2, 3, 5, -7]), min_size=1, max_size=70)


def _p(d, method="auto"):
    """The p-value of the Wilcoxon column test on the differences ``d`` (every user in)."""
    col = np.asarray(d, dtype=float)[:, None]
    return float(wilcoxon_test(col, np.ones_like(col, dtype=bool), method).p_value[0])


@given(DIFFS)
@settings(max_examples=50, deadline=None)  # SciPy's own sign-flip path takes ~0.5 s a call
def test_default_is_scipys_default(values):
    d = np.array(values, dtype=float) / 4
    if not (d != 0).any():
        assert _p(d) == 1.0
        return
    assert _p(d) == pytest.approx(sps.wilcoxon(d).pvalue, rel=1e-12, abs=1e-300)
    assert _p(d, "asymptotic") == pytest.approx(sps.wilcoxon(d, method="asymptotic").pvalue,
                                                rel=1e-12)


@given(st.lists(st.floats(-1, 1), min_size=2, max_size=60))
@settings(max_examples=15, deadline=None)
def test_compare_gives_scipys_p_value_on_metric_values(a):
    # per-user values a and their rounding (ties and zeros, as metric values have)
    a = np.array(a)
    b = np.round(a, 1)
    row = rv.compare({"a": result({"precision@5": a}), "b": result({"precision@5": b})},
                     test="wilcoxon", n_resamples=10).tests.iloc[0]
    d = a - b
    expected = sps.wilcoxon(d).pvalue if (d != 0).any() else 1.0
    assert row["p_value"] == pytest.approx(expected, rel=1e-12)


@given(st.lists(st.sampled_from([0, 1, -1, 2, -2, 3, -4]), min_size=1, max_size=10))
@settings(max_examples=25, deadline=None)
def test_exact_is_the_enumerated_conditional_null(values):
    d = np.array(values, dtype=float)
    expected = 1.0 if not (d != 0).any() else _enumerated(d)
    assert exact_conditional_p(d) == pytest.approx(expected, rel=1e-12)
    assert pair(d / 8, method="exact")["p_value"] == pytest.approx(expected, rel=1e-12)
    if (d != 0).any() and len(d) > 1:  # SciPy's sign flips over every pattern: the same null
        ref = sps.wilcoxon(d, method=sps.PermutationMethod(n_resamples=np.inf)).pvalue
        assert exact_conditional_p(d) == pytest.approx(ref, rel=1e-12)


@pytest.mark.parametrize("n", [5, 20, 50])
def test_exact_without_ties_is_the_wilcoxon_distribution(n):
    rng = np.random.default_rng(n)
    d = rng.permutation(np.arange(1, n + 1)) * rng.choice([-1.0, 1.0], n)
    assert exact_conditional_p(d) == pytest.approx(sps.wilcoxon(d, method="exact").pvalue,
                                                   rel=1e-10)


def test_exact_for_many_users_is_close_to_the_approximation():
    rng = np.random.default_rng(0)
    d = rng.integers(-4, 5, size=600).astype(float)  # heavy ties, zeros
    d[:40] = np.abs(d[:40])
    exact = exact_conditional_p(d)
    approx = sps.wilcoxon(d, method="asymptotic").pvalue
    assert 0.001 < approx < 0.5
    assert exact == pytest.approx(approx, abs=0.005)


def test_exact_refuses_more_differences_than_it_can_convolve():
    with pytest.raises(InvalidParameterError, match="n = 3001") as e:
        exact_conditional_p(np.arange(1.0, 3002.0))
    assert e.value.parameter == "method"


@pytest.mark.parametrize(("options", "parameter"), [
    ({"method": "exakt"}, "method"),
    ({"method": "exact", "test": "t"}, "method"),
    ({"method": "asymptotic", "test": "sign"}, "method"),
])
@pytest.mark.parametrize("door", ["compare", "compare_folds", "cv"])
def test_method_is_checked_at_every_door(options, parameter, door):
    a, b = result({"precision@5": [0.2, 0.4, 0.6]}), result({"precision@5": [0.0, 0.4, 0.2]})
    kw = {"test": "wilcoxon", **options}
    call = {"compare": lambda: rv.compare({"a": a, "b": b}, **kw),
            "compare_folds": lambda: rv.stats.compare_folds({"a": [a], "b": [b]}, **kw),
            "cv": lambda: rv.CrossValidation({("a", 0): a, ("b", 0): b}, ["a", "b"], 1,
                                             a.labels, {}, pd.DataFrame()).compare(**kw)}
    with pytest.raises(InvalidParameterError) as e:
        call[door]()
    assert e.value.parameter == parameter


def test_method_reaches_compare_folds_and_is_recorded():
    a = result({"precision@5": list(0.5 + D_HAND)})
    b = result({"precision@5": [0.5] * len(D_HAND)})
    cmp = rv.stats.compare_folds({"a": [a, a], "b": [b, b]}, test="wilcoxon", method="exact")
    assert cmp.settings["method"] == "exact"
    d = np.concatenate([D_HAND, D_HAND])
    assert cmp.tests.iloc[0]["p_value"] == pytest.approx(exact_conditional_p(d))
    assert rv.compare({"a": a, "b": b}).settings["method"] is None  # t test: no method
