"""Paired tests on per-user differences, vectorised over every (metric, pair) at once.

Each column ``j`` of ``d`` holds the differences ``a_u - b_u`` of one test, with ``mask[:, j]``
marking the users that enter it (0 where they do not). Every function returns one value per
column. A column whose differences are all 0 has statistic 0, effect size 0 and p-value 1:
the data give no evidence of a difference. A column without users (no user has a value
under both systems) has statistic, effect size and p-value NaN in every test: there is no
test, and a NaN p-value is never significant and is left out of the correction. With one
user the variance of the differences is undefined: the t and bootstrap tests are NaN
(statistic, p-value, effect size, interval) and Cohen's d_z is NaN; the permutation,
Wilcoxon and sign tests have their exact p-value (1 for one difference).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from receval.stats._resample import exact_signs, sign_flip_sums
from receval.stats._signed_rank import signed_rank_p

__all__ = ["TESTS", "PairedResult", "bootstrap_test", "permutation_test", "sign_test", "t_test",
           "wilcoxon_test"]

#: Accepted values of ``test``.
TESTS = ("t", "wilcoxon", "sign", "permutation", "bootstrap")

#: Largest number of users for which the permutation test enumerates every sign pattern.
MAX_EXACT_USERS = 24


@dataclass(frozen=True)
class PairedResult:
    """One value per test: statistic, p-value, effect size (and the bootstrap's interval).

    The statistic is oriented: positive when system a scores higher. The p-value is
    two-sided.
    """

    statistic: np.ndarray
    p_value: np.ndarray
    effect_size: np.ndarray
    ci_low: np.ndarray | None = None
    ci_high: np.ndarray | None = None


def _moments(d: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Number of users, mean and standard deviation (ddof = 1) of each column."""
    n = mask.sum(axis=0).astype(np.float64)
    dz = np.where(mask, d, 0.0)
    mean = dz.sum(axis=0) / np.maximum(n, 1.0)
    sq = (np.where(mask, d - mean, 0.0) ** 2).sum(axis=0)
    sd = np.sqrt(sq / np.maximum(n - 1.0, 1.0))
    return n, mean, sd


def cohens_dz(d: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Cohen's d_z: mean of the paired differences over their standard deviation.

    ``d_z = mean(d) / sd(d)`` with ``sd`` the sample standard deviation (ddof = 1) (Cohen
    1988, section 2.3.5; Lakens 2013, eq. 7). 0 when every difference is 0, +-inf when the
    differences are all equal and not 0, NaN with fewer than two users (no sd).
    """
    n, mean, sd = _moments(d, mask)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(sd > 0, mean / np.where(sd > 0, sd, 1.0), np.sign(mean) * np.inf)
    return np.where(n < 2, np.nan, np.where(mean == 0, 0.0, out))


def t_test(d: np.ndarray, mask: np.ndarray) -> PairedResult:
    """Paired Student t test, two-sided (the same numbers as ``scipy.stats.ttest_rel``).

    ``t = mean(d) / (sd(d) / sqrt(n))`` with ``n - 1`` degrees of freedom,
    ``p = 2 P(T_{n-1} >= |t|)`` (Student 1908). NaN with fewer than two users, as SciPy.
    """
    from scipy import stats as sps

    n, mean, sd = _moments(d, mask)
    dz = cohens_dz(d, mask)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(sd > 0, mean / (np.where(sd > 0, sd, 1.0) / np.sqrt(n)),
                     np.sign(mean) * np.inf)
    t = np.where(mean == 0, 0.0, t)
    p = np.where(np.isinf(t), 0.0, 2.0 * sps.t.sf(np.abs(t), np.maximum(n - 1.0, 1.0)))
    p = np.where(mean == 0, 1.0, p)
    none = n < 2  # no variance: no test
    return PairedResult(np.where(none, np.nan, t), np.where(none, np.nan, p), dz)


def wilcoxon_test(d: np.ndarray, mask: np.ndarray, method: str = "auto") -> PairedResult:
    """Wilcoxon signed-rank test; by default ``scipy.stats.wilcoxon(d)``'s p-value.

    The p-value is computed on the column's differences, zeros included, by
    :func:`receval.stats._signed_rank.signed_rank_p`: ``method="auto"`` is SciPy's default
    (exact without ties or zeros up to 50 differences, the exact sign-flip distribution with
    ties or zeros up to 13, the normal approximation with the tie correction otherwise),
    ``"asymptotic"`` the normal approximation, ``"exact"`` the exact conditional null given
    the tied ranks. Zero differences are dropped from the ranks (``zero_method='wilcox'``)
    and tied ``|d|`` get their average rank. The statistic is the signed rank sum
    ``W+ - W-`` (positive when system a scores higher; SciPy reports ``min(W+, W-)``), and
    the effect size the matched-pairs rank-biserial correlation
    ``r = (W+ - W-) / (W+ + W-)`` (Kerby 2014), in [-1, 1].
    """
    from scipy import stats as sps

    cols = d.shape[1]
    stat, p, r = np.zeros(cols), np.ones(cols), np.zeros(cols)
    for j in range(cols):  # one column per (metric, pair): few, each vectorised over users
        x = d[mask[:, j], j]
        if len(x) == 0:  # no user: no test
            stat[j] = p[j] = r[j] = np.nan
            continue
        nonzero = x[x != 0]
        if len(nonzero) == 0:
            continue
        ranks = sps.rankdata(np.abs(nonzero))
        signed = float(ranks[nonzero > 0].sum() - ranks[nonzero < 0].sum())
        stat[j], r[j] = signed, signed / float(ranks.sum())
        p[j] = signed_rank_p(x, method)
    return PairedResult(stat, p, r)


def sign_test(d: np.ndarray, mask: np.ndarray) -> PairedResult:
    """Sign test: ``n+`` positive among ``n+ + n-`` non-zero differences, against Bin(n, 1/2).

    Zero differences are dropped. ``p = min(1, 2 P(X <= min(n+, n-)))``, which is
    ``scipy.stats.binomtest(n+, n, 0.5).pvalue`` (the binomial is symmetric at 1/2). The
    statistic is ``n+ - n-``; the effect size ``(n+ - n-) / (n+ + n-)``, in [-1, 1] (the
    matched-pairs dominance of a over b).
    """
    from scipy import stats as sps

    pos = (mask & (d > 0)).sum(axis=0)
    neg = (mask & (d < 0)).sum(axis=0)
    n = pos + neg
    p = np.minimum(1.0, 2.0 * sps.binom.cdf(np.minimum(pos, neg), n, 0.5))
    p = np.where(n == 0, 1.0, p)
    stat = (pos - neg).astype(np.float64)
    effect = np.where(n > 0, stat / np.maximum(n, 1), 0.0)
    none = mask.sum(axis=0) == 0  # no user: no test
    return PairedResult(np.where(none, np.nan, stat), np.where(none, np.nan, p),
                        np.where(none, np.nan, effect))


def _extreme(null: np.ndarray, observed: np.ndarray) -> np.ndarray:
    """How many rows of ``null`` are at least as extreme as ``observed`` (two-sided).

    A relative tolerance of 100 machine epsilons absorbs rounding, as SciPy's
    ``permutation_test`` does.
    """
    gamma = np.abs(observed) * 100 * np.finfo(np.float64).eps
    return (np.abs(null) >= np.abs(observed) - gamma).sum(axis=0)


def permutation_test(d: np.ndarray, mask: np.ndarray, n_resamples: int, seed: int
                     ) -> tuple[PairedResult, bool]:
    """Paired randomisation test: flip the sign of each user's difference (Fisher 1935).

    Under the null hypothesis the two systems are exchangeable for each user, so each
    difference is as likely to be ``+d_u`` as ``-d_u``. The statistic is the mean
    difference; the two-sided p-value is the share of sign patterns whose mean is at least
    as extreme (``|T*| >= |T|``). When ``2 ** n <= n_resamples`` (n users, at most 24) every
    pattern is enumerated and ``p = count / 2 ** n`` (the identity pattern included);
    otherwise ``n_resamples`` patterns are drawn from ``seed`` and
    ``p = (count + 1) / (n_resamples + 1)`` (Phipson & Smyth 2010), as in
    ``scipy.stats.permutation_test``. Returns the result and whether it was exact.
    """
    dz = np.where(mask, d, 0.0)
    n_users = d.shape[0]
    observed = dz.sum(axis=0)
    exact = n_users <= MAX_EXACT_USERS and 2 ** n_users <= n_resamples
    if exact:
        null = exact_signs(dz)
        p = _extreme(null, observed) / null.shape[0]
    else:
        null = sign_flip_sums(dz, n_resamples, seed)
        p = (_extreme(null, observed) + 1.0) / (n_resamples + 1.0)
    n = mask.sum(axis=0)
    p = np.where(observed == 0, 1.0, np.minimum(p, 1.0))
    none = n == 0  # no user: no test
    return PairedResult(np.where(none, np.nan, observed / np.maximum(n, 1)),
                        np.where(none, np.nan, p), cohens_dz(d, mask)), exact


def bootstrap_test(d: np.ndarray, mask: np.ndarray, resampled: np.ndarray,
                   confidence: float) -> PairedResult:
    """Paired bootstrap test over users, from the resampled mean differences.

    ``resampled[b, j]`` is the mean difference of test ``j`` in bootstrap resample ``b``
    (the users drawn with replacement, the same draws as the confidence intervals). The
    interval is the percentile interval of those means; the two-sided p-value is the share
    of resamples of the null-centred distribution at least as extreme as the observed mean,
    ``p = (1 + #{|T* - T| >= |T|}) / (B + 1)`` (Efron & Tibshirani 1993, section 16.4;
    Sakai 2006). The statistic is the observed mean difference; the effect size Cohen's
    d_z. With fewer than two users every resample is the observed sample: statistic,
    p-value, effect size and interval are NaN.
    """
    n, mean, _ = _moments(d, mask)
    b = resampled.shape[0]
    centred = resampled - mean
    count = _extreme(np.where(np.isnan(centred), 0.0, centred), mean)
    p = np.where(mean == 0, 1.0, np.minimum(1.0, (count + 1.0) / (b + 1.0)))
    low, high = percentile_interval(resampled, confidence)
    none = n < 2  # a degenerate bootstrap: no test
    return PairedResult(*(np.where(none, np.nan, x) for x in (mean, p, cohens_dz(d, mask),
                                                                 low, high)))


def percentile_interval(resampled: np.ndarray, confidence: float
                        ) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap interval of each column: its ``(1 -+ confidence) / 2`` quantiles.

    Quantiles use numpy's default (linear interpolation), as ``scipy.stats.bootstrap``
    with ``method='percentile'`` does. Resamples without any user of a column (NaN) are
    left out.
    """
    tail = (1.0 - confidence) / 2.0
    with warnings.catch_warnings():  # a column with no finite resample gives NaN
        warnings.simplefilter("ignore", RuntimeWarning)
        q = np.nanquantile(resampled, [tail, 1.0 - tail], axis=0)
    return q[0], q[1]
