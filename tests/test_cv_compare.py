"""cv.compare: paired tests over (fold, user), through receval.stats.compare_folds."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

import receval as rv
from receval.datasets import sample_ratings


@pytest.fixture(scope="module")
def cv() -> rv.CrossValidation:
    data = sample_ratings(120, 90, seed=4)
    folds = rv.split.kfold(data, n_splits=3, by="users", seed=1)
    models = {"pop": rv.models.MostPopular(), "rand": rv.models.Random(seed=2),
              "mean": rv.models.ItemMean(shrinkage=5)}
    return rv.cross_validate(models, data, ["ndcg@10", "precision@10"], split=folds, k=10,
                             relevance_threshold=4, no_relevant="zero")


def test_compare_pairs_users_within_folds(cv):
    cmp = cv.compare(test="t", correction="holm")
    pooled = {m: pd.concat([cv.results[(m, f)].per_user.assign(fold=f)
                            for f in range(cv.n_folds)]).set_index("fold", append=True)
              for m in cv.models}
    for metric in ("NDCG@10", "Precision@10"):
        a, b = pooled["pop"][metric], pooled["rand"][metric]
        a, b = a.align(b, join="inner")
        row = cmp.tests[(cmp.tests.metric == metric) & (cmp.tests.system_a == "pop")
                        & (cmp.tests.system_b == "rand")].iloc[0]
        # the paired t-test over every (fold, user), as SciPy computes it
        assert row["p_value"] == pytest.approx(sps.ttest_rel(a, b).pvalue, rel=1e-9)
        assert row["n_users"] == len(a)
        assert cmp.table().loc["pop", metric] == pytest.approx(a.mean(), abs=1e-12)


@pytest.mark.parametrize("none", [None, "none", "None"])
def test_compare_correction_none_in_any_spelling(cv, none):
    cmp = cv.compare(test="t", correction=none, metrics=["ndcg@10"])
    assert cmp.settings["correction"] is None
    assert cmp.tests["p_adjusted"].tolist() == cmp.tests["p_value"].tolist()


@pytest.mark.parametrize("correction", ["holm", "bonferroni", "bh", "Holm"])
def test_compare_applies_the_correction(cv, correction):
    """Every model has every metric (the one-call path): the correction reaches it."""
    cmp = cv.compare(test="t", correction=correction)
    p = cmp.tests["p_value"].to_numpy()
    m = len(p)  # 2 metrics x 3 pairs = 6 tests
    assert m == 6
    assert cmp.settings["correction"] == correction.lower()
    if correction == "bonferroni":  # p * m, capped at 1
        assert cmp.tests["p_adjusted"].tolist() == pytest.approx(np.minimum(p * m, 1.0))
    assert (cmp.tests["p_adjusted"] >= cmp.tests["p_value"]).all()
    assert (cmp.tests["p_adjusted"] > cmp.tests["p_value"]).any()


def test_compare_refuses_an_unknown_correction(cv):
    # before this check, cv.compare passed any string to the adjustment, which read it as "bh"
    with pytest.raises(rv.exceptions.InvalidParameterError, match="got 'sidak'") as e:
        cv.compare(correction="sidak")
    assert e.value.parameter == "correction"


def test_compare_passes_options(cv):
    cmp = cv.compare(test="wilcoxon", baseline="pop", metrics=["ndcg@10"])
    tests = cmp.tests
    assert ((tests.system_a == "pop") | (tests.system_b == "pop")).all()
    assert len(tests) == 2  # pop vs rand, pop vs mean
    assert set(cmp.tests["metric"]) == {"NDCG@10"}
    assert np.isfinite(cmp.tests["p_value"]).all()
