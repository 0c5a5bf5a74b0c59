"""Multiple-comparison corrections over every test of one call."""

from __future__ import annotations

import numpy as np

__all__ = ["CORRECTIONS", "adjust"]

#: Accepted values of ``correction`` (``None`` leaves the p-values as they are).
CORRECTIONS = ("bonferroni", "holm", "bh")


def adjust(p: np.ndarray, correction: str | None) -> np.ndarray:
    """Adjusted p-values of ``m`` tests, as statsmodels' ``multipletests`` returns them.

    Parameters
    ----------
    p : numpy.ndarray
        The raw p-values of every test of the call (all metrics x all pairs).
    correction : {None, "bonferroni", "holm", "bh"}
        ``None``: unchanged. ``"bonferroni"``: ``min(1, m p_i)`` (controls the family-wise
        error rate). ``"holm"``: Holm (1979) step-down, with p sorted ascending,
        ``p~_(i) = max_{j <= i} min(1, (m - j + 1) p_(j))`` (family-wise error rate,
        uniformly more powerful than Bonferroni). ``"bh"``: Benjamini & Hochberg (1995)
        step-up, ``p~_(i) = min_{j >= i} min(1, m p_(j) / j)`` (false discovery rate).

    Returns
    -------
    numpy.ndarray
        Adjusted p-values, in the order of ``p``; a test is significant when its adjusted
        p-value is below ``alpha``.
    """
    p = np.asarray(p, dtype=np.float64)
    m = len(p)
    if correction is None or m == 0:
        return p.copy()
    if correction == "bonferroni":
        return np.minimum(1.0, p * m)
    order = np.argsort(p, kind="stable")
    ranked = p[order]
    steps = np.arange(1, m + 1, dtype=np.float64)
    if correction == "holm":
        adjusted = np.maximum.accumulate(np.minimum(1.0, (m - steps + 1) * ranked))
    else:  # "bh"
        adjusted = np.minimum.accumulate(np.minimum(1.0, m * ranked / steps)[::-1])[::-1]
    out = np.empty(m)
    out[order] = adjusted
    return out
