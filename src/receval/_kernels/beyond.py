"""Compiled kernels of the beyond-accuracy metrics (pure numpy arrays in, arrays out).

Lists arrive as ``starts``/``take`` into one ``item`` array of item codes (each user's top k
in rank order). Item similarity is one of: cosine of unit feature rows (``mode 0``), Jaccard
of non-zero features (``1``), Euclidean distance (``2``), cosine of co-occurrence counts in
train looked up in sorted pair keys (``3``).
"""

from __future__ import annotations

import numpy as np

from receval._kernels._jit import njit, prange

__all__ = [
    "COOCCURRENCE",
    "COSINE",
    "EUCLIDEAN",
    "JACCARD",
    "expected_unexpected",
    "list_dissimilarity",
    "mean_similarity_to_history",
    "pair_similarity",
]

COSINE, JACCARD, EUCLIDEAN, COOCCURRENCE, DENSE, DENSE_ROWS = 0, 1, 2, 3, 4, 5


@njit()
def pair_similarity(a: int, b: int, mode: int, feats: np.ndarray, keys: np.ndarray,
                    vals: np.ndarray, n_items: int) -> float:
    """Similarity of items ``a`` and ``b`` (Euclidean: their distance).

    Precomputed tables (``keys`` maps an item code to its row among the recommended
    items): ``DENSE`` is recommended x recommended, ``DENSE_ROWS`` recommended x every
    item code.
    """
    if mode == DENSE:
        return feats[keys[a], keys[b]]
    if mode == DENSE_ROWS:
        return feats[keys[a], b]
    if mode == COSINE:  # rows of feats are unit vectors (or zero: similarity 0)
        s = 0.0
        for f in range(feats.shape[1]):
            s += feats[a, f] * feats[b, f]
        return s
    if mode == JACCARD:
        inter = 0.0
        union = 0.0
        for f in range(feats.shape[1]):
            x = feats[a, f] != 0.0
            y = feats[b, f] != 0.0
            if x and y:
                inter += 1.0
            if x or y:
                union += 1.0
        return inter / union if union > 0 else 0.0
    if mode == EUCLIDEAN:
        s = 0.0
        for f in range(feats.shape[1]):
            d = feats[a, f] - feats[b, f]
            s += d * d
        return np.sqrt(s)
    key = a * n_items + b  # co-occurrence: (a, b) stored for every recommended a
    pos = np.searchsorted(keys, key)
    if pos < len(keys) and keys[pos] == key:
        return vals[pos]
    return 0.0


@njit(parallel=True)
def list_dissimilarity(starts: np.ndarray, take: np.ndarray, item: np.ndarray,
                       usable: np.ndarray, mode: int, feats: np.ndarray, keys: np.ndarray,
                       vals: np.ndarray, n_items: int, out_sum: np.ndarray,
                       out_pairs: np.ndarray, out_items: np.ndarray) -> None:
    """Per list: the sum of pairwise dissimilarities, the number of pairs and of items.

    Dissimilarity is ``1 - s`` (the distance itself for Euclidean). Items with
    ``usable[item] == False`` (no features, policy ``skip``) are left out. O(n^2) per list.
    """
    for u in prange(len(starts)):
        s0 = starts[u]
        n = take[u]
        total = 0.0
        pairs = 0
        count = 0
        for x in range(n):
            a = item[s0 + x]
            if not usable[a]:
                continue
            count += 1
            for y in range(x + 1, n):
                b = item[s0 + y]
                if not usable[b]:
                    continue
                if mode == DENSE:  # the common case, without a call per pair
                    s = feats[keys[a], keys[b]]
                else:
                    s = pair_similarity(a, b, mode, feats, keys, vals, n_items)
                total += s if mode == EUCLIDEAN else 1.0 - s
                pairs += 1
        out_sum[u] = total
        out_pairs[u] = pairs
        out_items[u] = count


@njit(parallel=True)
def mean_similarity_to_history(starts: np.ndarray, take: np.ndarray, item: np.ndarray,
                               h_starts: np.ndarray, h_ends: np.ndarray, h_item: np.ndarray,
                               usable: np.ndarray, mode: int, feats: np.ndarray,
                               keys: np.ndarray, vals: np.ndarray, n_items: int,
                               out: np.ndarray) -> None:
    """Per list row: ``1 - mean_{j in history} s(i, j)`` (NaN without a usable history).

    Microsoft Recommenders' per-item unexpectedness; ``out`` is aligned with ``item``.
    """
    for u in prange(len(starts)):
        s0 = starts[u]
        for x in range(take[u]):
            a = item[s0 + x]
            total = 0.0
            m = 0
            if usable[a]:
                for p in range(h_starts[u], h_ends[u]):
                    b = h_item[p]
                    if usable[b] and mode == DENSE_ROWS:
                        total += feats[keys[a], b]
                        m += 1
                    elif usable[b]:
                        total += pair_similarity(a, b, mode, feats, keys, vals, n_items)
                        m += 1
            out[s0 + x] = 1.0 - total / m if m > 0 else np.nan


@njit(parallel=True)
def expected_unexpected(starts: np.ndarray, take: np.ndarray, item: np.ndarray,
                        h_starts: np.ndarray, h_ends: np.ndarray, h_item: np.ndarray,
                        by_popularity: np.ndarray, n_expected: np.ndarray,
                        out: np.ndarray) -> None:
    """Per list row: 1 when the item is outside the user's expected list, else 0.

    The expected list is the first ``n_expected[u]`` items of ``by_popularity`` that are not
    in the user's (sorted) history ``h_item[h_starts[u]:h_ends[u]]``.
    """
    for u in prange(len(starts)):
        want = n_expected[u]
        expected = np.empty(want, dtype=np.int64)
        got = 0
        lo = h_starts[u]
        hi = h_ends[u]
        for p in range(len(by_popularity)):
            if got == want:
                break
            c = by_popularity[p]
            pos = lo + np.searchsorted(h_item[lo:hi], c)
            if pos < hi and h_item[pos] == c:
                continue
            expected[got] = c
            got += 1
        s0 = starts[u]
        for x in range(take[u]):
            a = item[s0 + x]
            hit = False
            for e in range(got):
                if expected[e] == a:
                    hit = True
                    break
            out[s0 + x] = 0.0 if hit else 1.0
