"""Per-row top-k selection of a block of scores, excluded items left out, ties by a key.

One pass over each row of a ``(users, items)`` block of float64 scores keeps the best ``k``
candidates in a binary heap whose root is the worst kept one: a score below the root's is
rejected with one comparison, so the pass costs O(n_items + k log k log(n_items)) per row on
scores in random order, O(n_items log k) at worst. A candidate is any score that is not NaN
nor ``-inf`` and whose item is not among the row's excluded codes (looked up by binary search
in a sorted copy, only for a score that would enter the heap). The same pass records the
best score left out at or above the heap's root, which tells whether the cut fell inside a
group of equal scores.

"Better" is the order (score descending, tie key ascending). The tie key of an item is its
code (``key == 0``: ties broken by ascending item code) or, for seeded random ties, the XXH64
of the item code under a per-user key, itself the XXH64 of the user code under the seed's key
(:func:`receval._kernels.hashing.hash_long`; a bijection, so two items never share a key):
the order depends on the seed, the user code and the item codes only.
"""

from __future__ import annotations

import numpy as np

from receval._kernels._jit import njit, prange, readonly, use_parallel
from receval._kernels.hashing import hash_long, seed_key
from receval._kernels.search import in_sorted

__all__ = ["select_top_k", "tie_key"]

#: Scores scanned at a time; a chunk with no score at or above the heap's root is skipped
#: after one vectorised count.
_CHUNK = 64


def tie_key(seed: int | None) -> np.uint64:
    """The key of a tie policy: 0 for item order, else a non-zero key of the seed."""
    if seed is None:
        return np.uint64(0)
    key = seed_key(int(seed) & 0xFFFFFFFFFFFFFFFF)
    return key if key != 0 else np.uint64(1)


@njit()
def _tie(item: int, ukey: np.uint64, random: bool) -> np.uint64:
    if random:
        return hash_long(np.uint64(item), ukey)
    return np.uint64(item)


@njit()
def _worse(s1: float, t1: np.uint64, s2: float, t2: np.uint64) -> bool:
    """Whether (s1, t1) ranks after (s2, t2)."""
    return bool(s1 < s2 or (s1 == s2 and t1 > t2))


@njit()
def _sift_down(hs: np.ndarray, ht: np.ndarray, hi: np.ndarray, m: int, p: int
               ) -> None:  # pragma: no cover - compiled
    while True:
        c = 2 * p + 1
        if c >= m:
            return
        if c + 1 < m and _worse(hs[c + 1], ht[c + 1], hs[c], ht[c]):
            c += 1
        if not _worse(hs[c], ht[c], hs[p], ht[p]):
            return
        hs[p], hs[c] = hs[c], hs[p]
        ht[p], ht[c] = ht[c], ht[p]
        hi[p], hi[c] = hi[c], hi[p]
        p = c


@njit()
def _sift_up(hs: np.ndarray, ht: np.ndarray, hi: np.ndarray, p: int
             ) -> None:  # pragma: no cover - compiled
    while p > 0:
        q = (p - 1) // 2
        if not _worse(hs[p], ht[p], hs[q], ht[q]):
            return
        hs[p], hs[q] = hs[q], hs[p]
        ht[p], ht[q] = ht[q], ht[p]
        hi[p], hi[q] = hi[q], hi[p]
        p = q


@njit()
def _row(row: np.ndarray, excl: np.ndarray, ukey: np.uint64, random: bool, hs: np.ndarray,
         ht: np.ndarray, hi: np.ndarray) -> tuple[int, bool]:  # pragma: no cover - compiled
    """Fill the heap with the row's best candidates, best first; return (count, tied).

    ``out`` is the highest score of a candidate that is not in the heap, among those that
    could equal the final k-th score: a candidate rejected at the root's score, or a root
    pushed out. (A score below the root's is below the final k-th score: the root only
    rises.) The cut is inside a group of ties iff ``out`` equals the final k-th score.
    """
    cap = len(hs)
    n = len(row)
    m = 0
    out = -np.inf
    for j0 in range(0, n, _CHUNK):
        sub = row[j0:j0 + _CHUNK]
        if m == cap:  # skip a chunk with nothing at or above the root (a SIMD count)
            root = hs[0]
            hits = 0
            for x in sub:  # iterating the slice (not indexing) lets LLVM vectorise
                hits += x >= root
            if hits == 0:
                continue
        for jj in range(len(sub)):
            s = sub[jj]
            j = j0 + jj
            if m == cap:
                if not s >= hs[0]:  # below the worst kept, NaN or -inf
                    continue
                t = _tie(j, ukey, random)
                if not _worse(hs[0], ht[0], s, t):
                    if s > out and not in_sorted(excl, 0, len(excl), j):
                        out = s
                    continue
                if in_sorted(excl, 0, len(excl), j):
                    continue
                if hs[0] > out:
                    out = hs[0]
                hs[0], ht[0], hi[0] = s, t, j
                _sift_down(hs, ht, hi, m, 0)
            else:
                if s != s or s == -np.inf or in_sorted(excl, 0, len(excl), j):
                    continue
                hs[m], ht[m], hi[m] = s, _tie(j, ukey, random), j
                _sift_up(hs, ht, hi, m)
                m += 1
    tied = m == cap and m > 0 and out == hs[0]
    for end in range(m - 1, 0, -1):  # heap sort: the worst goes last
        hs[0], hs[end] = hs[end], hs[0]
        ht[0], ht[end] = ht[end], ht[0]
        hi[0], hi[end] = hi[end], hi[0]
        _sift_down(hs, ht, hi, end, 0)
    return m, tied


@njit()
def _one(scores: np.ndarray, users: np.ndarray, ptr: np.ndarray, idx: np.ndarray, cap: int,
         key: np.uint64, r: int, out_s: np.ndarray, out_i: np.ndarray, counts: np.ndarray,
         tied: np.ndarray) -> None:  # pragma: no cover - compiled
    random = key != np.uint64(0)
    ukey = hash_long(np.uint64(users[r]), key) if random else np.uint64(0)
    excl = np.sort(idx[ptr[r]:ptr[r + 1]])
    hs = out_s[r * cap:(r + 1) * cap]
    hi = out_i[r * cap:(r + 1) * cap]
    ht = np.empty(cap, dtype=np.uint64)
    m, t = _row(scores[r], excl, ukey, random, hs, ht, hi)
    counts[r] = m
    tied[r] = t


@njit(parallel=True)
def _rows_parallel(scores: np.ndarray, users: np.ndarray, ptr: np.ndarray, idx: np.ndarray,
                   cap: int, key: np.uint64, out_s: np.ndarray, out_i: np.ndarray,
                   counts: np.ndarray, tied: np.ndarray) -> None:  # pragma: no cover
    for r in prange(scores.shape[0]):  # prange's index may be unsigned: one signature of _one
        _one(scores, users, ptr, idx, cap, key, np.int64(r), out_s, out_i, counts, tied)


@njit()
def _rows(scores: np.ndarray, users: np.ndarray, ptr: np.ndarray, idx: np.ndarray, cap: int,
          key: np.uint64, out_s: np.ndarray, out_i: np.ndarray, counts: np.ndarray,
          tied: np.ndarray) -> None:  # pragma: no cover - compiled
    for r in range(scores.shape[0]):
        _one(scores, users, ptr, idx, cap, key, r, out_s, out_i, counts, tied)


def select_top_k(scores: np.ndarray, users: np.ndarray, ptr: np.ndarray, idx: np.ndarray,
                 k: int, key: np.uint64
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The best ``k`` candidates of each row of a block of scores.

    Parameters
    ----------
    scores : numpy.ndarray of float64, shape (rows, items), C-contiguous
        Only read. NaN and ``-inf`` are not candidates.
    users : numpy.ndarray of int64
        The user code of each row (for the random tie keys).
    ptr, idx : numpy.ndarray of int64
        CSR of each row's excluded item codes (any order).
    k : int
        List length.
    key : numpy.uint64
        :func:`tie_key`: 0 for ties by item code, else the seed's key.

    Returns
    -------
    offsets, items, values : numpy.ndarray
        Row ``r``'s list is ``items[offsets[r]:offsets[r + 1]]`` (scores in ``values``),
        best first.
    tied : int
        Rows whose list was cut inside a group of equal scores.
    """
    n_rows, n_items = scores.shape
    cap = max(0, min(int(k), n_items))
    out_s = np.empty(n_rows * cap, dtype=np.float64)
    out_i = np.empty(n_rows * cap, dtype=np.int64)
    counts = np.zeros(n_rows, dtype=np.int64)
    tied = np.zeros(n_rows, dtype=np.bool_)
    run = _rows_parallel if use_parallel(n_rows * n_items) and n_rows > 1 else _rows
    if cap:
        # read-only views: one compiled version whatever the caller's arrays
        run(readonly(np.ascontiguousarray(scores, dtype=np.float64)),
            readonly(np.ascontiguousarray(users, dtype=np.int64)),
            readonly(np.ascontiguousarray(ptr, dtype=np.int64)),
            readonly(np.ascontiguousarray(idx, dtype=np.int64)), cap, np.uint64(key),
            out_s, out_i, counts, tied)
    offsets = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    keep = (np.arange(cap)[None, :] < counts[:, None]).ravel()
    return offsets, out_i[keep], out_s[keep], int(tied.sum())
