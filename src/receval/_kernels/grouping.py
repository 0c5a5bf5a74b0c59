"""Compiled helpers that build the grouped (CSR) arrays: join, duplicate check, sorting.

Every function takes ``offsets`` (int64, length ``n_groups + 1``) that delimit contiguous
groups (users) and works on each group independently: on one thread for small inputs, over
chunks of groups on the thread pool for large ones.
"""

from __future__ import annotations

import numba
import numpy as np

from receval._kernels._jit import n_chunks, njit, prange, readonly, use_parallel

__all__ = [
    "count_in_groups",
    "counting_order",
    "gather_relevance",
    "group_argsort_desc",
    "group_rows",
    "match_in_groups",
    "order_in_groups",
    "ranked_within_groups",
    "sort_groups_desc",
    "sort_items_in_groups",
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
    idx, t_rel, t_grade = readonly(idx), readonly(t_rel), readonly(t_grade)
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
def _order_range(g0: int, g1: int, off: np.ndarray, key: np.ndarray, tiebreak: np.ndarray,
                 rel: np.ndarray, grade: np.ndarray, item: np.ndarray, top: int) -> None:
    """Put each group's rows in order in place.

    ``key`` descending, ``tiebreak`` ascending, then row order. With ``top > 0`` only the
    first ``top`` places of a group are ordered (a stable selection); the rest of the group
    follows in an unspecified order.
    """
    width = 0
    for g in range(g0, g1):
        width = max(width, off[g + 1] - off[g])
    neg = np.empty(width)
    ord_ = np.empty(width, dtype=np.int64)
    k_s = np.empty(width)
    r_s = np.empty(width, dtype=rel.dtype)
    g_s = np.empty(width)
    i_s = np.empty(width, dtype=item.dtype)
    has_tb = len(tiebreak) > 0
    for g in range(g0, g1):
        s = off[g]
        n = off[g + 1] - s
        ordered = True
        for i in range(1, n):
            a = key[s + i - 1]
            b = key[s + i]
            if b > a or (b == a and has_tb and tiebreak[s + i] < tiebreak[s + i - 1]):
                ordered = False
                break
        if ordered:
            continue
        if has_tb:  # stable by tiebreak, then stable by -key: lexicographic (-key, tiebreak)
            o1 = np.argsort(tiebreak[s:s + n], kind="mergesort")
            for i in range(n):
                neg[i] = -key[s + o1[i]]
            o2 = np.argsort(neg[:n], kind="mergesort")
            for i in range(n):
                ord_[i] = o1[o2[i]]
        elif 0 < top < n // 4:  # stable top-`top` selection by insertion
            m = 0
            for i in range(n):
                x = key[s + i]
                if m == top and not x > key[s + ord_[m - 1]]:
                    continue
                q = m if m < top else top - 1
                while q > 0 and key[s + ord_[q - 1]] < x:
                    ord_[q] = ord_[q - 1]
                    q -= 1
                ord_[q] = i
                if m < top:
                    m += 1
            mark = np.zeros(n, dtype=np.bool_)
            for i in range(m):
                mark[ord_[i]] = True
            j = m
            for i in range(n):
                if not mark[i]:
                    ord_[j] = i
                    j += 1
        else:
            for i in range(n):
                neg[i] = -key[s + i]
            o = np.argsort(neg[:n], kind="mergesort")
            for i in range(n):
                ord_[i] = o[i]
        for i in range(n):
            j = s + ord_[i]
            k_s[i] = key[j]
            r_s[i] = rel[j]
            g_s[i] = grade[j]
            i_s[i] = item[j]
        for i in range(n):
            key[s + i] = k_s[i]
            rel[s + i] = r_s[i]
            grade[s + i] = g_s[i]
            item[s + i] = i_s[i]


@njit(parallel=True)
def _order_parallel(off: np.ndarray, key: np.ndarray, tiebreak: np.ndarray, rel: np.ndarray,
                    grade: np.ndarray, item: np.ndarray, top: int, chunks: int) -> None:
    n = len(off) - 1
    for c in prange(chunks):
        _order_range(c * n // chunks, (c + 1) * n // chunks, off, key, tiebreak, rel, grade,
                     item, top)


def order_in_groups(off: np.ndarray, key: np.ndarray, tiebreak: np.ndarray, rel: np.ndarray,
                    grade: np.ndarray, item: np.ndarray, top: int = 0) -> None:
    """Order each group's rows in place by ``key`` descending (see :func:`_order_range`).

    ``key``, ``rel``, ``grade`` and ``item`` are permuted together; ``tiebreak`` (empty: row
    order) is read only. ``top > 0`` orders only the first ``top`` places of each group.
    """
    if use_parallel(len(key)):
        _order_parallel(off, key, tiebreak, rel, grade, item, top, n_chunks(len(off) - 1))
    else:
        _order_range(0, len(off) - 1, off, key, tiebreak, rel, grade, item, top)


@njit()
def _argsort_range(g0: int, g1: int, off: np.ndarray, key: np.ndarray, tiebreak: np.ndarray,
                   order: np.ndarray) -> None:
    for g in range(g0, g1):
        s = off[g]
        e = off[g + 1]
        n = e - s
        if n == 0:
            continue
        neg = np.empty(n)
        if len(tiebreak) == 0:  # ties keep the row order: one stable sort by -key
            for i in range(n):
                neg[i] = -key[s + i]
            o = np.argsort(neg, kind="mergesort")
            for i in range(n):
                order[s + i] = s + o[i]
            continue
        # stable sort by tiebreak, then stable sort by -key: lexicographic (-key, tiebreak)
        o1 = np.argsort(tiebreak[s:e], kind="mergesort")
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

    Ties are broken by ``tiebreak`` ascending, then by position (the sort is stable); an
    empty ``tiebreak`` leaves ties in row order.
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
        o = np.argsort(item[s:e], kind="mergesort")
        for j in range(e - s):
            tmp_i[s + j] = item[s + o[j]]
            tmp_f[s + j] = value[s + o[j]]
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
    if use_parallel(len(item)):
        _sort_items_parallel(off, item, value, tmp_i, tmp_f, n_chunks(len(off) - 1))
    else:
        _sort_items_range(0, len(off) - 1, off, item, value, tmp_i, tmp_f)
