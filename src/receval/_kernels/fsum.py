"""Single-precision sums in numpy's own order, for libraries that sum float32 arrays.

TREC Fair 2022's nDCG sums float32 utilities with ``np.sum``, which adds in numpy's pairwise
order (``pairwise_sum`` of ``numpy/_core/src/umath/loops_utils.h.src``): fewer than 8 values
in sequence; up to 128 in 8 interleaved accumulators combined as ``((r0 + r1) + (r2 + r3))
+ ((r4 + r5) + (r6 + r7))``, the rest in sequence; longer arrays split in two halves (the
first a multiple of 8 long) summed recursively. Every addition rounds to float32, so the
result is ``np.sum``'s bit for bit (``tests/test_fairness_exposure.py`` checks it).
"""

from __future__ import annotations

import numpy as np

from receval._kernels._jit import njit

__all__ = ["segment_sums_f32"]


@njit()
def _block(a: np.ndarray, b: int, m: int) -> np.float32:
    """numpy's sum of ``a[b:b + m]`` for ``m <= 128``."""
    if m < 8:
        res = np.float32(0.0)
        for i in range(m):
            res = np.float32(res + a[b + i])
        return res
    r = np.empty(8, dtype=np.float32)
    for j in range(8):
        r[j] = a[b + j]
    i = 8
    while i < m - (m % 8):
        for j in range(8):
            r[j] = np.float32(r[j] + a[b + i + j])
        i += 8
    res = np.float32(np.float32(np.float32(r[0] + r[1]) + np.float32(r[2] + r[3]))
                     + np.float32(np.float32(r[4] + r[5]) + np.float32(r[6] + r[7])))
    while i < m:
        res = np.float32(res + a[b + i])
        i += 1
    return res


@njit()
def _pairwise(a: np.ndarray, b: int, m: int) -> np.float32:
    """numpy's pairwise float32 sum of ``a[b:b + m]`` (numpy's recursion)."""
    if m <= 128:
        return _block(a, b, m)
    half = m // 2
    half -= half % 8
    return np.float32(_pairwise(a, b, half) + _pairwise(a, b + half, m - half))


@njit()
def segment_sums_f32(values: np.ndarray, starts: np.ndarray, ends: np.ndarray,
                     out: np.ndarray) -> None:
    """``out[u] = np.sum(values[starts[u]:ends[u]])`` in float32, numpy's order."""
    for u in range(len(starts)):
        out[u] = _pairwise(values, starts[u], ends[u] - starts[u])
