"""Compiled helpers that build the grouped (CSR) arrays: join, duplicate check, sorting.

Every function takes ``offsets`` (int64, length ``n_groups + 1``) that delimit contiguous
groups (users) and works on each group independently: on one thread for small inputs, over
chunks of groups on the thread pool for large ones.
"""

from __future__ import annotations

import numpy as np

from receval._kernels._jit import n_chunks, njit, prange, use_parallel

__all__ = ["group_argsort_desc", "match_in_groups", "sort_groups_desc"]


@njit()
def _max_group(off: np.ndarray) -> int:
    m = 0
    for g in range(len(off) - 1):
        m = max(m, off[g + 1] - off[g])
    return m


@njit()
def _match_range(g0: int, g1: int, r_off: np.ndarray, r_item: np.ndarray, t_off: np.ndarray,
                 t_item: np.ndarray, out: np.ndarray, scratch: np.ndarray) -> int:
    dups = 0
    for u in range(g0, g1):
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
                    dups += 1
    return dups


@njit()
def _match_serial(r_off: np.ndarray, r_item: np.ndarray, t_off: np.ndarray,
                  t_item: np.ndarray, out: np.ndarray) -> int:
    scratch = np.empty(_max_group(r_off), dtype=r_item.dtype)
    return _match_range(0, len(r_off) - 1, r_off, r_item, t_off, t_item, out, scratch)


@njit(parallel=True)
def _match_parallel(r_off: np.ndarray, r_item: np.ndarray, t_off: np.ndarray,
                    t_item: np.ndarray, out: np.ndarray, chunks: int) -> int:
    n = len(r_off) - 1
    width = _max_group(r_off)
    dups = np.zeros(chunks, dtype=np.int64)
    for c in prange(chunks):
        scratch = np.empty(width, dtype=r_item.dtype)
        dups[c] = _match_range(c * n // chunks, (c + 1) * n // chunks, r_off, r_item, t_off,
                               t_item, out, scratch)
    return int(dups.sum())


def match_in_groups(r_off: np.ndarray, r_item: np.ndarray, t_off: np.ndarray,
                    t_item: np.ndarray, out: np.ndarray) -> int:
    """For every recommended row, the index of the same item among its user's truth rows.

    ``r_off``/``t_off`` delimit the same users in the recommendations and in the truth;
    each truth group must be sorted by item. Writes the matching truth index (or -1) into
    ``out`` and returns the number of rows that repeat an item earlier in their group.
    """
    if use_parallel(len(r_item)):
        return int(_match_parallel(r_off, r_item, t_off, t_item, out, n_chunks(len(r_off) - 1)))
    return int(_match_serial(r_off, r_item, t_off, t_item, out))


@njit()
def _sort_range(g0: int, g1: int, off: np.ndarray, out: np.ndarray) -> None:
    for g in range(g0, g1):
        s = off[g]
        e = off[g + 1]
        if e - s > 1:
            seg = out[s:e]
            seg.sort()
            for i in range((e - s) // 2):
                tmp = seg[i]
                seg[i] = seg[e - s - 1 - i]
                seg[e - s - 1 - i] = tmp


@njit(parallel=True)
def _sort_parallel(off: np.ndarray, out: np.ndarray, chunks: int) -> None:
    n = len(off) - 1
    for c in prange(chunks):
        _sort_range(c * n // chunks, (c + 1) * n // chunks, off, out)


def sort_groups_desc(off: np.ndarray, values: np.ndarray) -> np.ndarray:
    """A copy of ``values`` with every group sorted in decreasing order."""
    out = values.copy()
    if use_parallel(len(values)):
        _sort_parallel(off, out, n_chunks(len(off) - 1))
    else:
        _sort_range(0, len(off) - 1, off, out)
    return out


@njit()
def _argsort_range(g0: int, g1: int, off: np.ndarray, key: np.ndarray, tiebreak: np.ndarray,
                   order: np.ndarray) -> None:
    for g in range(g0, g1):
        s = off[g]
        e = off[g + 1]
        n = e - s
        if n == 0:
            continue
        # stable sort by tiebreak, then stable sort by -key: lexicographic (-key, tiebreak)
        o1 = np.argsort(tiebreak[s:e], kind="mergesort")
        neg = np.empty(n)
        for i in range(n):
            neg[i] = -key[s + o1[i]]
        o2 = np.argsort(neg, kind="mergesort")
        for i in range(n):
            order[s + i] = s + o1[o2[i]]


@njit(parallel=True)
def _argsort_parallel(off: np.ndarray, key: np.ndarray, tiebreak: np.ndarray,
                      order: np.ndarray, chunks: int) -> None:
    n = len(off) - 1
    for c in prange(chunks):
        _argsort_range(c * n // chunks, (c + 1) * n // chunks, off, key, tiebreak, order)


def group_argsort_desc(off: np.ndarray, key: np.ndarray, tiebreak: np.ndarray) -> np.ndarray:
    """Order rows by ``key`` descending within each group.

    Ties are broken by ``tiebreak`` ascending, then by position (the sort is stable).
    """
    order = np.empty(len(key), dtype=np.int64)
    if use_parallel(len(key)):
        _argsort_parallel(off, key, tiebreak, order, n_chunks(len(off) - 1))
    else:
        _argsort_range(0, len(off) - 1, off, key, tiebreak, order)
    return order
