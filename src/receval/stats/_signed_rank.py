"""The Wilcoxon signed-rank test of one column of paired differences, three null distributions.

* ``"auto"`` (default): what ``scipy.stats.wilcoxon(d)`` returns with its defaults, on the
  differences with their zeros (``zero_method='wilcox'``, ``correction=False``,
  ``method='auto'``). In SciPy 1.17 that is the exact null distribution of ``W+`` when
  there are at most 50 differences, no tied ``|d|`` and no zero; the exact distribution of
  the sign flips (a permutation test over every sign pattern) when there are ties or zeros
  and at most 13 differences; otherwise the normal approximation with the tie correction
  ``var(W+) = [n (n + 1) (2n + 1) - sum_t (t^3 - t) / 2] / 24`` over the ``n`` non-zero
  differences. The p-value is SciPy's own number.
* ``"asymptotic"``: ``scipy.stats.wilcoxon(d, method='asymptotic')``, the normal
  approximation with the tie correction at every size.
* ``"exact"``: the exact conditional null distribution given the observed ``|d|``: each
  non-zero difference keeps or flips its sign with probability 1/2, so
  ``W+ = sum_i a_i B_i`` with ``a_i`` the average rank of ``|d_i|`` and ``B_i`` independent
  Bernoulli(1/2) (the conditional distribution given the ties; Hollander, Wolfe & Chicken
  2014, chapter 3). It is computed by convolution over the
  doubled ranks ``2 a_i``, which are integers; the two-sided p-value is
  ``min(1, 2 P(W+ <= min(w, T - w)))`` with ``T = sum a_i`` (the null is symmetric about
  ``T / 2``). Without ties it is the exact Wilcoxon distribution. Cost ``O(n^3)`` in the
  number ``n`` of non-zero differences (measured: 0.06 s at n = 500, 0.5 s at 1,000,
  13 s at 2,000); above ``MAX_EXACT = 3,000`` it is refused (the normal approximation is
  then within a few thousandths of it).
"""

from __future__ import annotations

import warnings

import numpy as np

from receval.exceptions import InvalidParameterError

__all__ = ["AUTO_EXACT_MAX", "AUTO_PERMUTATION_MAX", "MAX_EXACT", "METHODS",
           "exact_conditional_p", "signed_rank_p"]

#: Accepted values of ``method`` (the null distribution of the Wilcoxon test).
METHODS = ("auto", "exact", "asymptotic")
#: Most non-zero differences ``method="exact"`` accepts (its cost grows as n^3).
MAX_EXACT = 3000


def exact_conditional_p(x: np.ndarray) -> float:
    """Two-sided p-value of ``W+`` under the exact conditional null (zeros dropped).

    Parameters
    ----------
    x : numpy.ndarray
        The differences (zeros allowed: they are dropped, as ``zero_method='wilcox'``).

    Returns
    -------
    float
        ``min(1, 2 P(W+ <= min(w, T - w)))``; 1 when no difference is non-zero.
    """
    from scipy import stats as sps

    x = x[x != 0]
    if len(x) == 0:
        return 1.0
    if len(x) > MAX_EXACT:
        raise InvalidParameterError(
            f"method='exact' convolves the sign patterns of every non-zero difference, at a "
            f"cost growing as n^3 (13 s at n = 2,000); this test has n = {len(x)} > "
            f"{MAX_EXACT}: use method='auto' (the normal approximation with the tie "
            f"correction, within a few thousandths of the exact value at this size)",
            parameter="method", n_bad=len(x), examples=["exact"])
    doubled = np.rint(2.0 * sps.rankdata(np.abs(x))).astype(np.int64)  # s + e of each tie
    w = int(doubled[x > 0].sum())
    low = min(w, int(doubled.sum()) - w)
    # P(W+ = s) for s = 0..low; contributions are >= 0, so the truncation is exact
    pmf = np.zeros(low + 1)
    pmf[0] = 1.0
    for c in doubled:
        if c <= low:
            pmf[c:] = 0.5 * (pmf[c:] + pmf[:low + 1 - c])
            pmf[:c] *= 0.5
        else:
            pmf *= 0.5
    return float(min(1.0, 2.0 * pmf.sum()))


#: SciPy's ``method='auto'`` (1.17): the exact distribution up to this many differences ...
AUTO_EXACT_MAX = 50
#: ... and, with ties or zeros, every sign pattern up to this many (2^13 < its 9,999 draws).
AUTO_PERMUTATION_MAX = 13


def signed_rank_p(x: np.ndarray, method: str) -> float:
    """The two-sided p-value of the Wilcoxon test of the differences ``x``, by ``method``.

    ``x`` holds every paired difference, zeros included (SciPy's default counts them in
    its choice of method). Under ``"auto"`` the sign-flip path of SciPy (ties or zeros, at
    most 13 differences) is computed here by :func:`exact_conditional_p`, which is the same
    distribution (SciPy enumerates the ``2^n`` patterns in ``permutation_test``; the tests
    check the two agree) in microseconds rather than SciPy's half second.
    """
    from scipy import stats as sps

    nonzero = x[x != 0]
    if len(nonzero) == 0:
        return 1.0
    if method == "exact":
        return exact_conditional_p(x)
    if method == "auto" and len(x) <= AUTO_EXACT_MAX:
        tied = len(nonzero) < len(x) or len(np.unique(np.abs(nonzero))) < len(nonzero)
        if tied and len(x) <= AUTO_PERMUTATION_MAX:
            return exact_conditional_p(x)
    with warnings.catch_warnings():  # SciPy notes when it switches to the approximation
        warnings.simplefilter("ignore", UserWarning)
        if method == "asymptotic":
            return float(sps.wilcoxon(x, method="asymptotic").pvalue)
        return float(sps.wilcoxon(x).pvalue)
