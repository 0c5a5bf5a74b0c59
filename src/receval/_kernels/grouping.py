"""Compiled helpers that build the grouped (CSR) arrays: join, duplicate check, sorting.

Every function takes ``offsets`` (int64, length ``n_groups + 1``) that delimit contiguous
groups (users) and works on each group independently, in parallel over groups.
"""

from __future__ import annotations

import numpy as np

from receval._kernels._jit import njit, prange

__all__ = ["group_argsort_desc", "match_in_groups", "sort_groups_desc"]


@njit()
def _max_group(off: np.ndarray) -> int:
    m = 0
    for g in range(len(off) - 1):
        m = max(m, off[g + 1] - off[g])
    return m


@njit(parallel=True)
def match_in_groups(r_off: np.ndarray, r_item: np.ndarray, t_off: np.ndarray,
                    t_item: np.ndarray, out: np.ndarray, chunks: int) -> int:
    """For every recommended row, the index of the same item among its user's truth rows.

    ``r_off``/``t_off`` delimit the same users in the recommendations and in the truth;
    each truth group must be sorted by item. Writes the matching truth index (or -1) into
    ``out`` and returns the number of rows that repeat an item earlier in their group.
    ``chunks`` (from :func:`n_chunks`) sets the parallel grain.
    """
    n = len(r_off) - 1
    width = _max_group(r_off)
    dups = np.zeros(chunks, dtype=np.int64)
    for c in prange(chunks):
        scratch = np.empty(width, dtype=r_item.dtype)
        for u in range(c * n // chunks, (c + 1) * n // chunks):
            rs = r_off[u]
            re = r_off[u + 1]
            ts = t_off[u]
            te = t_off[u + 1]
            for p in range(rs, re):
                x = r_item[p]
                lo = ts
                hi = te
                while lo < hi:
                    mid = (lo + hi) >> 1
                    if t_item[mid] < x:
                        lo = mid + 1
                    else:
                        hi = mid
                out[p] = lo if lo < te and t_item[lo] == x else -1
            m = re - rs
            if m > 1:
                buf = scratch[:m]
                buf[:] = r_item[rs:re]
                buf.sort()
                for j in range(1, m):
                    if buf[j] == buf[j - 1]:
                        dups[c] += 1
    return int(dups.sum())


@njit(parallel=True)
def sort_groups_desc(off: np.ndarray, values: np.ndarray, chunks: int) -> np.ndarray:
    """A copy of ``values`` with every group sorted in decreasing order."""
    out = values.copy()
    n = len(off) - 1
    for c in prange(chunks):
        for g in range(c * n // chunks, (c + 1) * n // chunks):
            s = off[g]
            e = off[g + 1]
            if e - s > 1:
                seg = out[s:e]
                seg.sort()
                for i in range((e - s) // 2):
                    tmp = seg[i]
                    seg[i] = seg[e - s - 1 - i]
                    seg[e - s - 1 - i] = tmp
    return out


@njit(parallel=True)
def group_argsort_desc(off: np.ndarray, key: np.ndarray, tiebreak: np.ndarray) -> np.ndarray:
    """Order rows by ``key`` descending within each group.

    Ties are broken by ``tiebreak`` ascending, then by position (the sort is stable).
    """
    order = np.empty(len(key), dtype=np.int64)
    for g in prange(len(off) - 1):
        s = off[g]
        e = off[g + 1]
        if e - s == 0:
            continue
        n = e - s
        idx = np.arange(n)
        # sort positions by tiebreak (stable), then by -key (stable): lexicographic order
        o1 = np.argsort(tiebreak[s:e], kind="mergesort")
        neg = np.empty(n)
        for i in range(n):
            neg[i] = -key[s + o1[i]]
        o2 = np.argsort(neg, kind="mergesort")
        for i in range(n):
            idx[i] = o1[o2[i]]
        for i in range(n):
            order[s + i] = s + idx[i]
    return order
