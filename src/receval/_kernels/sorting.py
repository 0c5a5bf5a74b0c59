"""One stable sort for every kernel that orders a short run of values.

numba's own ``np.argsort(kind="mergesort")`` and ``ndarray.sort`` compile a new
implementation for every element type they meet, and each costs about a second of compile
time on the first run; every kernel that orders the rows of one user (a list by score, a
truth group by item, the grades of an ideal ranking, the values of a rank correlation) calls
this one function instead, always with float64 keys, so it is compiled once.
"""

from __future__ import annotations

import numpy as np

from receval._kernels._jit import njit

__all__ = ["order_desc", "widest"]

#: Runs up to this long are sorted by insertion before they are merged.
RUN = 16


@njit()
def widest(g0: int, g1: int, off: np.ndarray) -> int:
    """The largest group among groups ``g0:g1`` (the size of a kernel's scratch buffers)."""
    width = 0
    for g in range(g0, g1):
        width = max(width, off[g + 1] - off[g])
    return width


@njit()
def _before(key: np.ndarray, tiebreak: np.ndarray, a: int, b: int) -> bool:
    """Whether position ``a`` strictly precedes ``b``: higher key, then lower tiebreak."""
    ka = key[a]
    kb = key[b]
    if ka != kb:
        return ka > kb
    if len(tiebreak) > 0:
        return tiebreak[a] < tiebreak[b]
    return False


@njit()
def order_desc(key: np.ndarray, tiebreak: np.ndarray, n: int, out: np.ndarray,
               tmp: np.ndarray) -> None:
    """Order positions ``0..n-1`` of ``key[:n]`` into ``out[:n]``: a stable merge sort.

    Positions come out by ``key`` descending, then ``tiebreak[:n]`` ascending (when
    ``tiebreak`` is not empty), then position ascending (stability). ``tmp`` is scratch space
    of at least ``n`` int64. Insertion sort on runs of :data:`RUN`, then bottom-up merges:
    ``O(n log n)`` comparisons, no allocation.

    Every caller passes writable float64 buffers (a copy of the values it orders) and
    int64 buffers, so that numba compiles this function once.
    """
    for i in range(n):
        out[i] = i
    for lo in range(0, n, RUN):
        hi = min(lo + RUN, n)
        for i in range(lo + 1, hi):
            x = out[i]
            j = i - 1
            while j >= lo and _before(key, tiebreak, x, out[j]):
                out[j + 1] = out[j]
                j -= 1
            out[j + 1] = x
    width = RUN
    in_tmp = False  # whether the sorted runs are in tmp (merges alternate out -> tmp -> out)
    while width < n:
        src = tmp if in_tmp else out
        dst = out if in_tmp else tmp
        for lo in range(0, n, 2 * width):
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i, j, o = lo, mid, lo
            while i < mid and j < hi:
                if _before(key, tiebreak, src[j], src[i]):  # right first only if strictly
                    dst[o] = src[j]
                    j += 1
                else:
                    dst[o] = src[i]
                    i += 1
                o += 1
            while i < mid:
                dst[o] = src[i]
                i += 1
                o += 1
            while j < hi:
                dst[o] = src[j]
                j += 1
                o += 1
        in_tmp = not in_tmp
        width *= 2
    if in_tmp:
        for i in range(n):
            out[i] = tmp[i]
