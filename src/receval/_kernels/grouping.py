"""Compiled helpers that build the grouped (CSR) arrays: grouping, join, duplicate check.

Every function takes ``offsets`` (int64, length ``n_groups + 1``) that delimit contiguous
groups (users) and works on each group independently: on one thread for small inputs, over
chunks of groups on the thread pool for large ones.
"""

from __future__ import annotations

import numba
import numpy as np

from receval._kernels._jit import n_chunks, njit, prange, readonly, use_parallel
from receval._kernels.sorting import order_desc, widest

__all__ = [
    "count_in_groups",
    "counting_order",
    "group_rows",
    "match_in_groups",
    "sort_items_in_groups",
]


@njit()
def _match_range(g0: int, g1: int, r_off: np.ndarray, r_item: np.ndarray, t_off: np.ndarray,
                 t_item: np.ndarray, out: np.ndarray, seen: np.ndarray, slot: np.ndarray
                 ) -> int:
    """Join and count repeats for groups ``g0:g1`` with two item-indexed tables.

    ``slot[item]`` holds the item's truth row of the current group: each group first writes
    its truth rows there, and a value below the group's first truth row is a stale entry of
    an earlier group (groups are visited in order, truth rows of later groups have larger
    indices). ``seen[item]`` holds the last group that recommended the item, so a repeat
    within a group costs one look-up. Both tables start at -1.
    """
    dups = 0
    for u in range(g0, g1):
        ts = t_off[u]
        for t in range(ts, t_off[u + 1]):
            slot[t_item[t]] = t
        for p in range(r_off[u], r_off[u + 1]):
            x = r_item[p]
            if seen[x] == u:
                dups += 1
            seen[x] = u
            v = slot[x]
            out[p] = v if v >= ts else -1
    return dups


@njit(parallel=True)
def _match_parallel(r_off: np.ndarray, r_item: np.ndarray, t_off: np.ndarray,
                    t_item: np.ndarray, out: np.ndarray, seen: np.ndarray, slot: np.ndarray,
                    chunks: int) -> int:
    n = len(r_off) - 1
    dups = np.zeros(chunks, dtype=np.int64)
    for c in prange(chunks):
        dups[c] = _match_range(c * n // chunks, (c + 1) * n // chunks, r_off, r_item, t_off,
                               t_item, out, seen[c], slot[c])
    return int(dups.sum())


def match_in_groups(r_off: np.ndarray, r_item: np.ndarray, t_off: np.ndarray,
                    t_item: np.ndarray, out: np.ndarray, n_items: int) -> int:
    """For every recommended row, the index of the same item among its user's truth rows.

    ``r_off``/``t_off`` delimit the same users in the recommendations and in the truth; a
    truth group must not repeat an item; item codes are below ``n_items``. Writes the
    matching truth index (or -1) into ``out`` (int32 or int64) and returns the number of rows
    that repeat an item earlier in their group. O(rows): one look-up per row in item-indexed
    tables (one pair per chunk of groups on the thread pool).
    """
    chunks = 1
    width = max(n_items, 1)
    if use_parallel(len(r_item)):
        threads = max(1, numba.get_num_threads())
        # a few chunks per thread balance the load; one per thread when the tables (one
        # pair per chunk) would outweigh the rows
        chunks = min(n_chunks(len(r_off) - 1), 4 * threads,
                     max(threads, len(r_item) // width))
    groups = np.int32 if len(r_off) < 2**31 else np.int64
    seen = np.full((chunks, width), -1, dtype=groups)
    slot = np.full((chunks, width), -1, dtype=out.dtype)
    r_off, r_item, t_off, t_item = (readonly(a) for a in (r_off, r_item, t_off, t_item))
    if chunks > 1:
        return int(_match_parallel(r_off, r_item, t_off, t_item, out, seen, slot, chunks))
    return int(_match_range(0, len(r_off) - 1, r_off, r_item, t_off, t_item, out, seen[0],
                            slot[0]))


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


# -- grouping rows by a dense code in O(n): a stable counting sort ------------------------------
@njit()
def _histogram(keys: np.ndarray, i0: int, i1: int, counts: np.ndarray) -> None:
    for i in range(i0, i1):
        counts[keys[i]] += 1


@njit()
def _scatter_rows(i0: int, i1: int, keys: np.ndarray, fill: np.ndarray, cols_i: np.ndarray,
                  out_i: np.ndarray, col_f: np.ndarray, out_f: np.ndarray) -> None:
    """Write rows ``i0:i1`` to their group's next free slot (input order kept)."""
    if len(col_f) > 0:
        for i in range(i0, i1):
            k = keys[i]
            p = fill[k]
            fill[k] = p + 1
            out_i[p] = cols_i[i]
            out_f[p] = col_f[i]
    else:
        for i in range(i0, i1):
            k = keys[i]
            p = fill[k]
            fill[k] = p + 1
            out_i[p] = cols_i[i]


@njit()
def _fill_codes(g0: int, g1: int, bounds: np.ndarray, out: np.ndarray) -> None:
    """The grouped code column: code ``g`` over ``bounds[g]:bounds[g + 1]`` (sequential)."""
    for g in range(g0, g1):
        for p in range(bounds[g], bounds[g + 1]):
            out[p] = g


@njit(parallel=True)
def _group_parallel(keys: np.ndarray, n_keys: int, item: np.ndarray, value: np.ndarray,
                    out_code: np.ndarray, out_i: np.ndarray, out_f: np.ndarray,
                    chunks: int) -> np.ndarray:
    n = len(keys)
    counts = np.zeros((chunks, n_keys), dtype=np.int64)
    for c in prange(chunks):
        _histogram(keys, c * n // chunks, (c + 1) * n // chunks, counts[c])
    # slot of chunk c's first row of key k: all rows of smaller keys, then earlier chunks'
    bounds = np.zeros(n_keys + 1, dtype=np.int64)
    run = 0
    for k in range(n_keys):
        bounds[k] = run
        for c in range(chunks):
            t = counts[c, k]
            counts[c, k] = run
            run += t
    bounds[n_keys] = run
    for c in prange(chunks):
        _scatter_rows(c * n // chunks, (c + 1) * n // chunks, keys, counts[c], item, out_i,
                      value, out_f)
    for c in prange(chunks):
        _fill_codes(c * n_keys // chunks, (c + 1) * n_keys // chunks, bounds, out_code)
    return bounds


@njit()
def _group_serial(keys: np.ndarray, n_keys: int, item: np.ndarray, value: np.ndarray,
                  out_code: np.ndarray, out_i: np.ndarray, out_f: np.ndarray) -> np.ndarray:
    bounds = np.zeros(n_keys + 1, dtype=np.int64)
    _histogram(keys, 0, len(keys), bounds[1:])
    for k in range(n_keys):
        bounds[k + 1] += bounds[k]
    fill = bounds[:-1].copy()
    _scatter_rows(0, len(keys), keys, fill, item, out_i, value, out_f)
    _fill_codes(0, n_keys, bounds, out_code)
    return bounds


def group_rows(code: np.ndarray, n_codes: int, item: np.ndarray, value: np.ndarray | None
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray]:
    """Group rows by ``code`` (``0..n_codes-1``) with a stable counting sort: O(rows + codes).

    Rows of one code keep their input order (``ties='stable'`` sees it). ``code`` and
    ``item`` are int32 codes, ``value`` float64 (or None). Returns the grouped codes, items,
    values and the offsets: code ``u``'s rows are ``off[u]:off[u + 1]``.
    """
    n = len(code)
    dtype = np.result_type(code, item)  # int32 codes; int64 only past 2**31 distinct ids
    code, item = code.astype(dtype, copy=False), item.astype(dtype, copy=False)
    out_code = np.empty(n, dtype=dtype)
    out_i = np.empty(n, dtype=dtype)
    vals = readonly(value if value is not None else np.empty(0, dtype=np.float64))
    code, item = readonly(code), readonly(item)
    out_f = np.empty(len(vals), dtype=np.float64)
    if use_parallel(n):
        chunks = max(1, numba.get_num_threads())
        bounds = _group_parallel(code, n_codes, item, vals, out_code, out_i, out_f, chunks)
    else:
        bounds = _group_serial(code, n_codes, item, vals, out_code, out_i, out_f)
    return out_code, out_i, (out_f if value is not None else None), bounds


@njit()
def _sort_items_range(g0: int, g1: int, off: np.ndarray, item: np.ndarray, value: np.ndarray,
                      tmp_i: np.ndarray, tmp_f: np.ndarray) -> None:
    """Stable sort of each group's rows by item (insertion sort for short groups)."""
    width = widest(g0, g1, off)
    neg = np.empty(width)
    order = np.empty(width, dtype=np.int64)
    scratch = np.empty(width, dtype=np.int64)
    empty = np.empty(0)
    for g in range(g0, g1):
        s = off[g]
        e = off[g + 1]
        ordered = True
        for p in range(s + 1, e):
            if item[p] < item[p - 1]:
                ordered = False
                break
        if ordered:
            continue
        if e - s <= 32:
            for p in range(s + 1, e):
                x = item[p]
                v = value[p]
                q = p - 1
                while q >= s and item[q] > x:
                    item[q + 1] = item[q]
                    value[q + 1] = value[q]
                    q -= 1
                item[q + 1] = x
                value[q + 1] = v
            continue
        for j in range(e - s):  # ascending items: descending negated items (exact in float64)
            neg[j] = -float(item[s + j])
        order_desc(neg, empty, e - s, order, scratch)
        for j in range(e - s):
            tmp_i[s + j] = item[s + order[j]]
            tmp_f[s + j] = value[s + order[j]]
        for p in range(s, e):
            item[p] = tmp_i[p]
            value[p] = tmp_f[p]


@njit(parallel=True)
def _sort_items_parallel(off: np.ndarray, item: np.ndarray, value: np.ndarray,
                         tmp_i: np.ndarray, tmp_f: np.ndarray, chunks: int) -> None:
    n = len(off) - 1
    for c in prange(chunks):
        _sort_items_range(c * n // chunks, (c + 1) * n // chunks, off, item, value, tmp_i,
                          tmp_f)


def sort_items_in_groups(off: np.ndarray, item: np.ndarray, value: np.ndarray) -> None:
    """Sort each group's rows by item in place (stable; ``value`` follows its item)."""
    tmp_i = np.empty_like(item)
    tmp_f = np.empty_like(value)
    off = readonly(off)  # as every caller of the shared helpers passes it
    if use_parallel(len(item)):
        _sort_items_parallel(off, item, value, tmp_i, tmp_f, n_chunks(len(off) - 1))
    else:
        _sort_items_range(0, len(off) - 1, off, item, value, tmp_i, tmp_f)
