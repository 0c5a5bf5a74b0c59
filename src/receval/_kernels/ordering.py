"""Each user's ranked list, built in one compiled pass over the grouped rows.

The input layer leaves every user's recommendation rows together (``off[u]:off[u + 1]``) in
input order. :func:`rank_groups` orders each group by its key, looks up the relevance and
grade of every row it keeps, and writes the lists to new arrays; when every requested metric
has a cutoff it keeps only the first ``top`` places of each list, found by a stable
selection (rows that cannot reach them are dropped first, by a bound without branches on the
data, see :func:`_top_bound`), so a shuffled input never pays for ordering (or copying)
the places no metric reads. A group that is already in order costs one comparison per row.
"""

from __future__ import annotations

import numpy as np

from receval._kernels._jit import n_chunks, njit, prange, readonly, use_parallel
from receval._kernels.sorting import order_desc, widest

__all__ = ["RankedArrays", "rank_groups", "sort_groups_desc"]

#: A group is ordered by selection (not a full sort) when it is longer than this many times
#: the places kept.
SELECT_RATIO = 4


@njit()
def _in_order(key: np.ndarray, tiebreak: np.ndarray, s: int, n: int) -> bool:
    """Whether rows ``s:s + n`` already are by key descending, then tiebreak ascending."""
    has_tb = len(tiebreak) > 0
    for i in range(1, n):
        a = key[s + i - 1]
        b = key[s + i]
        if b > a or (b == a and has_tb and tiebreak[s + i] < tiebreak[s + i - 1]):
            return False
    return True


@njit()
def _insert(out: np.ndarray, kept: np.ndarray, q: int, i: int, x: float) -> None:
    """Put row ``i`` (key ``x``) at place ``q`` or above of the buffer sorted by key.

    It goes after the keys not below ``x`` (stability); the places it passes move down one.
    """
    while q > 0 and kept[q - 1] < x:
        out[q] = out[q - 1]
        kept[q] = kept[q - 1]
        q -= 1
    out[q] = i
    kept[q] = x


@njit()
def _top_bound(key: np.ndarray, s: int, n: int, top: int, first: np.ndarray,
               second: np.ndarray, third: np.ndarray) -> float:
    """A lower bound of the ``top``-th largest key of rows ``s:s + n``.

    Row ``i`` goes to lane ``i % G`` of ``G = ceil(top / 3)`` lanes, and each lane keeps its
    three largest keys (``first[g] >= second[g] >= third[g]``, by compare-exchanges: no
    branch on the data). Every lane has three keys at least as large as its third, so the
    smallest third is below or at ``3 G >= top`` keys: a row under it cannot be among the
    first ``top`` places. 100 keys in a random order, ``top = 21``: about 35 rows are not
    under it. ``-inf`` when a lane has fewer than three rows.
    """
    lanes = (top + 2) // 3
    for g in range(lanes):
        first[g] = -np.inf
        second[g] = -np.inf
        third[g] = -np.inf
    for i0 in range(0, n, lanes):
        for g in range(min(lanes, n - i0)):
            x = key[s + i0 + g]
            b = first[g]
            first[g] = x if x > b else b
            x = b if x > b else x
            b = second[g]
            second[g] = x if x > b else b
            x = b if x > b else x
            b = third[g]
            third[g] = x if x > b else b
    bound = third[0]
    for g in range(1, lanes):
        bound = third[g] if third[g] < bound else bound
    return bound


@njit()
def _select(key: np.ndarray, s: int, n: int, top: int, out: np.ndarray, kept: np.ndarray,
            cand: np.ndarray, cand_key: np.ndarray, lanes: np.ndarray) -> int:
    """The first ``top`` places of rows ``s:s + n`` by key descending, stable, into ``out``.

    Two steps. The rows whose key is below :func:`_top_bound` are dropped first, in one
    pass without a branch on the data (the candidates keep their input order). Among the
    candidates, insertion into a sorted buffer of ``top`` positions (their keys in
    ``kept``): the first ``top`` fill it, then a row enters only when it beats the current
    last place, which drops out; a row goes after the rows with an equal key (stability).
    ``cand``/``cand_key`` are scratch of at least ``n`` places, ``lanes`` of
    ``(3, ceil(top / 3))``. Returns the number of places written, ``min(n, top)``.

    100 keys in a random order, ``top = 21``, 100k lists on one thread: 1.6-1.7 us a list
    by insertion alone, 1.0-1.4 us with the bound first (the insertion then sees about 35
    rows instead of 100).
    """
    bound = _top_bound(key, s, n, top, lanes[0], lanes[1], lanes[2])
    c = 0
    for i in range(n):
        x = key[s + i]
        cand[c] = i
        cand_key[c] = x
        c += x >= bound
    m = min(c, top)
    for i in range(m):  # fill: an insertion sort of the first rows
        _insert(out, kept, i, i, cand_key[i])
    if m == 0:
        return 0
    last = kept[m - 1]
    for i in range(m, c):  # the rest: only a row that beats the last place moves anything
        x = cand_key[i]
        if x > last:
            _insert(out, kept, m - 1, i, x)
            last = kept[m - 1]
    for i in range(m):  # candidate places -> row places
        out[i] = cand[out[i]]
    return m


@njit()
def _rank_range(g0: int, g1: int, off: np.ndarray, out_off: np.ndarray, key: np.ndarray,
                tiebreak: np.ndarray, item: np.ndarray, match: np.ndarray, t_rel: np.ndarray,
                t_grade: np.ndarray, top: int, key_o: np.ndarray, item_o: np.ndarray,
                rel_o: np.ndarray, grade_o: np.ndarray) -> None:
    width = widest(g0, g1, off)
    order = np.empty(width, dtype=np.int64)
    tmp = np.empty(width, dtype=np.int64)
    kept = np.empty(width)
    kbuf = np.empty(width)
    tbuf = np.empty(width if len(tiebreak) > 0 else 0)
    selects = top > 0 and top * SELECT_RATIO < width  # some group of the range is selected
    cand = np.empty(width if selects else 0, dtype=np.int64)
    lanes = np.empty((3, (top + 2) // 3 if selects else 0))
    has_key = len(key) > 0
    for g in range(g0, g1):
        s = off[g]
        n = off[g + 1] - s
        take = out_off[g + 1] - out_off[g]
        if not has_key or _in_order(key, tiebreak, s, n):
            for i in range(take):
                order[i] = i
        elif len(tiebreak) == 0 and top > 0 and top * SELECT_RATIO < n:
            _select(key, s, n, top, order, kept, cand, kbuf, lanes)
        else:
            for i in range(n):
                kbuf[i] = key[s + i]
            if len(tbuf) > 0:
                for i in range(n):
                    tbuf[i] = tiebreak[s + i]
            order_desc(kbuf, tbuf, n, order, tmp)
        o = out_off[g]
        for i in range(take):
            j = s + order[i]
            if has_key:
                key_o[o + i] = key[j]
            item_o[o + i] = item[j]
            t = match[j]
            if t >= 0 and t_rel[t]:
                rel_o[o + i] = 1
                grade_o[o + i] = t_grade[t]
            else:
                rel_o[o + i] = 0
                grade_o[o + i] = 0.0


@njit(parallel=True)
def _rank_parallel(off: np.ndarray, out_off: np.ndarray, key: np.ndarray,
                   tiebreak: np.ndarray, item: np.ndarray, match: np.ndarray,
                   t_rel: np.ndarray, t_grade: np.ndarray, top: int, key_o: np.ndarray,
                   item_o: np.ndarray, rel_o: np.ndarray, grade_o: np.ndarray,
                   chunks: int) -> None:
    n = len(off) - 1
    for c in prange(chunks):
        _rank_range(c * n // chunks, (c + 1) * n // chunks, off, out_off, key, tiebreak, item,
                    match, t_rel, t_grade, top, key_o, item_o, rel_o, grade_o)


class RankedArrays:
    """The ranked lists of :func:`rank_groups`: list ``u`` is ``off[u]:off[u + 1]``.

    ``key`` is None when the rows had no ordering key.
    """

    __slots__ = ("grade", "item", "key", "off", "rel")

    def __init__(self, off: np.ndarray, key: np.ndarray | None, item: np.ndarray,
                 rel: np.ndarray, grade: np.ndarray) -> None:
        self.off, self.key, self.item, self.rel, self.grade = off, key, item, rel, grade


def rank_groups(off: np.ndarray, key: np.ndarray | None, tiebreak: np.ndarray,
                item: np.ndarray, match: np.ndarray, t_rel: np.ndarray,
                t_grade: np.ndarray, top: int = 0) -> RankedArrays:
    """Order each group of rows and gather what the ranking kernel reads.

    Parameters
    ----------
    off : ndarray of int64
        Group ``g`` is rows ``off[g]:off[g + 1]``.
    key : ndarray of float64 or None
        Higher first; None when the rows already are in rank order.
    tiebreak : ndarray of float64
        Equal keys: lower first; empty: input order.
    item, match : ndarray
        Item code and matching truth row (-1: none) of each row.
    t_rel, t_grade : ndarray
        Whether each truth row is a gain, and its grade.
    top : int
        Keep only the first ``top`` places of each list (0: all of them).

    Returns
    -------
    RankedArrays
        Key, item, relevance (0/1) and grade (0 unless relevant) of each kept place.
    """
    lengths = np.diff(off)
    take = np.minimum(lengths, top) if top > 0 else lengths
    out_off = np.zeros(len(off), dtype=np.int64)
    np.cumsum(take, out=out_off[1:])
    total = int(out_off[-1])
    key_o = np.empty(total if key is not None else 0, dtype=np.float64)
    item_o = np.empty(total, dtype=item.dtype)
    rel_o = np.empty(total, dtype=np.uint8)
    grade_o = np.empty(total, dtype=np.float64)
    args = (readonly(off), readonly(out_off),
            readonly(key if key is not None else np.empty(0, dtype=np.float64)),
            readonly(tiebreak), readonly(item), readonly(match), readonly(t_rel),
            readonly(t_grade), top, key_o, item_o, rel_o, grade_o)
    if use_parallel(len(item)):
        _rank_parallel(*args, n_chunks(len(off) - 1))
    else:
        _rank_range(0, len(off) - 1, *args)
    return RankedArrays(out_off, key_o if key is not None else None, item_o, rel_o, grade_o)


@njit()
def _sort_range(g0: int, g1: int, off: np.ndarray, values: np.ndarray, out: np.ndarray) -> None:
    width = widest(g0, g1, off)
    order = np.empty(width, dtype=np.int64)
    tmp = np.empty(width, dtype=np.int64)
    buf = np.empty(width)
    empty = np.empty(0)
    for g in range(g0, g1):
        s = off[g]
        n = off[g + 1] - s
        for i in range(n):
            buf[i] = values[s + i]
        order_desc(buf, empty, n, order, tmp)
        for i in range(n):
            out[s + i] = values[s + order[i]]


@njit(parallel=True)
def _sort_parallel(off: np.ndarray, values: np.ndarray, out: np.ndarray, chunks: int) -> None:
    n = len(off) - 1
    for c in prange(chunks):
        _sort_range(c * n // chunks, (c + 1) * n // chunks, off, values, out)


def sort_groups_desc(off: np.ndarray, values: np.ndarray) -> np.ndarray:
    """A copy of float64 ``values`` with every group sorted in decreasing order."""
    out = np.empty(len(values), dtype=np.float64)
    off, values = readonly(off), readonly(np.ascontiguousarray(values, dtype=np.float64))
    if use_parallel(len(values)):
        _sort_parallel(off, values, out, n_chunks(len(off) - 1))
    else:
        _sort_range(0, len(off) - 1, off, values, out)
    return out
