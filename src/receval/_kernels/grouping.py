"""Compiled helpers that build the grouped (CSR) arrays: join, duplicate check, sorting.

Every function takes ``offsets`` (int64, length ``n_groups + 1``) that delimit contiguous
groups (users) and works on each group independently, in parallel over groups.
"""

from __future__ import annotations

import numpy as np

from receval._kernels._jit import njit, prange

__all__ = ["group_argsort_desc", "match_in_groups", "sort_groups_desc"]


@njit(parallel=True)
def match_in_groups(r_off: np.ndarray, r_item: np.ndarray, t_off: np.ndarray,
                    t_item: np.ndarray, out: np.ndarray) -> int:
    """For every recommended row, the index of the same item among its user's truth rows.

    ``r_off``/``t_off`` delimit the same users in the recommendations and in the truth;
    each truth group must be sorted by item. Writes the matching truth index (or -1) into
    ``out`` and returns the number of rows that repeat an item earlier in their group.
    """
    n = len(r_off) - 1
    dups = np.zeros(n, dtype=np.int64)
    for u in prange(n):
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
        if re - rs > 1:
            items = np.sort(r_item[rs:re])
            for j in range(1, re - rs):
                if items[j] == items[j - 1]:
                    dups[u] += 1
    return int(dups.sum())


@njit(parallel=True)
def sort_groups_desc(off: np.ndarray, values: np.ndarray) -> np.ndarray:
    """A copy of ``values`` with every group sorted in decreasing order."""
    out = np.empty_like(values)
    for g in prange(len(off) - 1):
        s = off[g]
        e = off[g + 1]
        if e > s:
            out[s:e] = np.sort(values[s:e])[::-1]
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
