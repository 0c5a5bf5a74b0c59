"""Multiple-comparison corrections over every test of one call."""

from __future__ import annotations

from typing import Any

import numpy as np

from receval.exceptions import InvalidParameterError

__all__ = ["CORRECTIONS", "adjust", "correction_of"]

#: Accepted values of ``correction`` (``None`` or ``"none"`` leaves the p-values as they are).
CORRECTIONS = ("bonferroni", "holm", "bh")


def correction_of(correction: Any) -> str | None:
    """``correction`` checked and normalised: ``None`` or one of :data:`CORRECTIONS`.

    The one place that reads the option (``rv.compare``, ``compare_folds``, ``cv.compare``,
    ``cmp.disparity``, the command line): ``None`` and the string ``"none"`` mean no
    correction; strings are matched whatever their case (``"Holm"`` is ``"holm"``).

    Raises
    ------
    InvalidParameterError
        Any other value, naming ``correction`` and the accepted values.
    """
    if correction is None:
        return None
    if isinstance(correction, str):
        key = correction.strip().lower()
        if key == "none":
            return None
        if key in CORRECTIONS:
            return key
    raise InvalidParameterError(
        f"correction must be None or 'none' (no correction), or one of "
        f"{', '.join(map(repr, CORRECTIONS))}; got {correction!r}", parameter="correction",
        examples=[correction])


def adjust(p: np.ndarray, correction: str | None) -> np.ndarray:
    """Adjusted p-values of ``m`` tests, as statsmodels' ``multipletests`` returns them.

    Parameters
    ----------
    p : numpy.ndarray
        The raw p-values of every test of the call (all metrics x all pairs).
    correction : {None, "none", "bonferroni", "holm", "bh"}
        Read by :func:`correction_of`. ``None`` or ``"none"``: unchanged. ``"bonferroni"``:
        ``min(1, m p_i)`` (controls the family-wise error rate). ``"holm"``: Holm (1979)
        step-down, with p sorted ascending,
        ``p~_(i) = max_{j <= i} min(1, (m - j + 1) p_(j))`` (family-wise error rate,
        uniformly more powerful than Bonferroni). ``"bh"``: Benjamini & Hochberg (1995)
        step-up, ``p~_(i) = min_{j >= i} min(1, m p_(j) / j)`` (false discovery rate).

    Returns
    -------
    numpy.ndarray
        Adjusted p-values, in the order of ``p``; a test is significant when its adjusted
        p-value is below ``alpha``. A NaN p-value (a test that cannot be run, e.g. on fewer
        than two users) stays NaN and is left out: ``m`` counts the other tests only.
    """
    correction = correction_of(correction)
    p = np.asarray(p, dtype=np.float64)
    out = p.copy()
    defined = ~np.isnan(p)
    if correction is None or not defined.any():
        return out
    out[defined] = _adjust(p[defined], correction)
    return out


def _adjust(p: np.ndarray, correction: str) -> np.ndarray:
    """:func:`adjust` on p-values that are all defined."""
    m = len(p)
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
