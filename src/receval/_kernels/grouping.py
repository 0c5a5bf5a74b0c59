"""Compiled helpers that build the grouped (CSR) arrays: join, duplicate check, sorting.

Every function takes ``offsets`` (int64, length ``n_groups + 1``) that delimit contiguous
groups (users) and works on each group independently: on one thread for small inputs, over
chunks of groups on the thread pool for large ones.
"""

from __future__ import annotations

import numba
import numpy as np

from receval._kernels._jit import n_chunks, njit, prange, use_parallel

__all__ = [
    "count_in_groups",
    "counting_order",
    "gather_relevance",
    "group_argsort_desc",
    "match_in_groups",
    "ranked_within_groups",
    "sort_groups_desc",
]


@njit()
def _match_range(g0: int, g1: int, r_off: np.ndarray, r_item: np.ndarray, t_off: np.ndarray,
                 t_item: np.ndarray, out: np.ndarray, seen: np.ndarray) -> int:
    """Join and count repeats for groups ``g0:g1``.

    ``seen[item]`` holds the last group that recommended the item, so a repeat within a
    group costs one look-up.
    """
    dups = 0
    for u in range(g0, g1):
        ts = t_off[u]
        te = t_off[u + 1]
        for p in range(r_off[u], r_off[u + 1]):
            x = r_item[p]
            if seen[x] == u:
                dups += 1
            seen[x] = u
            lo = ts
            hi = te
            while lo < hi:
                mid = (lo + hi) >> 1
                if t_item[mid] < x:
                    lo = mid + 1
                else:
                    hi = mid
            out[p] = lo if lo < te and t_item[lo] == x else -1
    return dups


@njit(parallel=True)
def _match_parallel(r_off: np.ndarray, r_item: np.ndarray, t_off: np.ndarray,
                    t_item: np.ndarray, out: np.ndarray, n_items: int, chunks: int) -> int:
    n = len(r_off) - 1
    dups = np.zeros(chunks, dtype=np.int64)
    for c in prange(chunks):
        seen = np.full(n_items, -1, dtype=np.int64)
        dups[c] = _match_range(c * n // chunks, (c + 1) * n // chunks, r_off, r_item, t_off,
                               t_item, out, seen)
    return int(dups.sum())


def match_in_groups(r_off: np.ndarray, r_item: np.ndarray, t_off: np.ndarray,
                    t_item: np.ndarray, out: np.ndarray, n_items: int) -> int:
    """For every recommended row, the index of the same item among its user's truth rows.

    ``r_off``/``t_off`` delimit the same users in the recommendations and in the truth;
    each truth group must be sorted by item; item codes are below ``n_items``. Writes the
    matching truth index (or -1) into ``out`` and returns the number of rows that repeat an
    item earlier in their group.
    """
    if use_parallel(len(r_item)):
        chunks = min(n_chunks(len(r_off) - 1), 4 * max(1, numba.get_num_threads()))
        return int(_match_parallel(r_off, r_item, t_off, t_item, out, n_items, chunks))
    seen = np.full(max(n_items, 1), -1, dtype=np.int64)
    return int(_match_range(0, len(r_off) - 1, r_off, r_item, t_off, t_item, out, seen))


@njit()
def _gather_range(i0: int, i1: int, idx: np.ndarray, t_rel: np.ndarray, t_grade: np.ndarray,
                  rel: np.ndarray, grade: np.ndarray) -> None:
    for i in range(i0, i1):
        j = idx[i]
        if j >= 0 and t_rel[j]:
            rel[i] = 1
            grade[i] = t_grade[j]
        else:
            rel[i] = 0
            grade[i] = 0.0


@njit(parallel=True)
def _gather_parallel(idx: np.ndarray, t_rel: np.ndarray, t_grade: np.ndarray,
                     rel: np.ndarray, grade: np.ndarray, chunks: int) -> None:
    n = len(idx)
    for c in prange(chunks):
        _gather_range(c * n // chunks, (c + 1) * n // chunks, idx, t_rel, t_grade, rel, grade)


def gather_relevance(idx: np.ndarray, t_rel: np.ndarray, t_grade: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Relevance (0/1) and grade (0 unless relevant) of each row matched to truth row ``idx``."""
    rel = np.empty(len(idx), dtype=np.uint8)
    grade = np.empty(len(idx), dtype=np.float64)
    if use_parallel(len(idx)):
        _gather_parallel(idx, t_rel, t_grade, rel, grade, n_chunks(len(idx) // 4096 + 1))
    else:
        _gather_range(0, len(idx), idx, t_rel, t_grade, rel, grade)
    return rel, grade


@njit()
def ranked_within_groups(group: np.ndarray, key: np.ndarray) -> tuple[bool, bool]:
    """Whether ``key`` never increases within a group, and whether it ever repeats."""
    ranked = True
    tied = False
    for i in range(1, len(key)):
        if group[i] == group[i - 1]:
            if key[i] > key[i - 1]:
                ranked = False
            elif key[i] == key[i - 1]:
                tied = True
    return ranked, tied


@njit()
def count_in_groups(off: np.ndarray, flags: np.ndarray) -> np.ndarray:
    """Number of true ``flags`` in each group."""
    out = np.zeros(len(off) - 1, dtype=np.int64)
    for g in range(len(off) - 1):
        c = 0
        for i in range(off[g], off[g + 1]):
            c += flags[i]
        out[g] = c
    return out


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


@njit()
def counting_order(keys: np.ndarray, n_keys: int) -> tuple[np.ndarray, np.ndarray]:
    """Stable order of ``keys`` (values ``0..n_keys-1``) and the bounds of each key: O(n)."""
    bounds = np.zeros(n_keys + 1, dtype=np.int64)
    for k in keys:
        bounds[k + 1] += 1
    for k in range(n_keys):
        bounds[k + 1] += bounds[k]
    fill = bounds[:-1].copy()
    order = np.empty(len(keys), dtype=np.int64)
    for i in range(len(keys)):
        k = keys[i]
        order[fill[k]] = i
        fill[k] += 1
    return order, bounds
