"""Membership in a sorted slice: the binary search the compiled walks share."""

from __future__ import annotations

import numpy as np

from receval._kernels._jit import njit

__all__ = ["in_sorted"]


@njit()
def in_sorted(values: np.ndarray, start: int, end: int, x: int) -> bool:
    """Whether ``x`` is in ``values[start:end]`` (ascending): O(log(end - start))."""
    lo, hi = start, end
    while lo < hi:
        mid = (lo + hi) // 2
        if values[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo < end and values[lo] == x
