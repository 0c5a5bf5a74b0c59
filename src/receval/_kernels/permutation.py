"""Keyed pseudo-random permutations of ``[0, n)``: a Feistel network with cycle walking.

A random ranking of ``n`` items needs, per user, only the first ``k`` items of a random order
(and the rank of a given item, to score a pair), never ``n`` random numbers. A keyed
permutation gives both in O(1) per position: ``permute(r)`` is the item at rank ``r`` and
``unpermute(i)`` the rank of item ``i``, the same for the same key in any process.

Construction (Black and Rogaway, "Ciphers with Arbitrary Finite Domains", CT-RSA 2002):

* a balanced Feistel network on ``2h``-bit integers, ``h = max(4, ceil(bits(n - 1) / 2))``:
  ``(L, R) -> (R, L xor F_j(R))`` for rounds ``j = 0..ROUNDS-1``, where the round function
  ``F_j(R)`` is the low ``h`` bits of XXH64 (:func:`receval._kernels.hashing.hash_long`) of
  ``R + j * 2**32`` under the permutation's key. Each round is a bijection whatever ``F_j``
  is, so the network is a permutation of ``[0, 4**h)``; Luby and Rackoff (SIAM J. Comput.
  17(2), 1988) show that four rounds of a pseudo-random function give a pseudo-random
  permutation, and :data:`ROUNDS` uses six;
* cycle walking: ``permute(x)`` applies the network until the value falls in ``[0, n)``.
  Above 256 items ``4**h < 4n``, so fewer than four applications are expected. Following
  the cycle of ``x`` backwards through the inverse network inverts it.

Why ``h >= 4`` (:data:`MIN_HALF_BITS`): networks with 1- or 2-bit halves reach a small,
uneven set of permutations (measured with 200,000 keys: the six orders of 3 items with
1-bit halves are far from equally likely, chi-square p = 4e-7; of 4 items, p = 1e-74). On
8 bits and more, the orders of 3, 4 and 5 items, the first item and the rank of an item for
n up to 300, and the order of each pair of items were all uniform within sampling error
(``tests/test_random_permutation.py`` keeps these checks). Cycle walking from 256 values
costs fewer than ``256 / n`` steps per position for small ``n``.
"""

from __future__ import annotations

import numpy as np

from receval._kernels._jit import njit, prange, use_parallel
from receval._kernels.hashing import hash_long
from receval._kernels.search import in_sorted

__all__ = ["MIN_HALF_BITS", "ROUNDS", "half_bits", "permute", "permuted_top_k", "ranks_of",
           "unpermute"]

#: Rounds of the Feistel network.
ROUNDS = 6

#: The fewest bits of each half of the network (see the module).
MIN_HALF_BITS = 4


@njit()
def half_bits(n: int) -> int:
    """``h``: the network works on ``2h``-bit integers, the fewest that hold ``0..n-1``."""
    bits = 0
    while (1 << bits) < n:
        bits += 1
    return max(MIN_HALF_BITS, (bits + 1) // 2)


@njit()
def _f(x: np.uint64, j: int, key: np.uint64, mask: np.uint64) -> np.uint64:
    return hash_long(x + (np.uint64(j) << np.uint64(32)), key) & mask


@njit()
def _encrypt(x: np.uint64, h: int, key: np.uint64) -> np.uint64:
    mask = (np.uint64(1) << np.uint64(h)) - np.uint64(1)
    left, right = x >> np.uint64(h), x & mask
    for j in range(ROUNDS):
        left, right = right, left ^ _f(right, j, key, mask)
    return (left << np.uint64(h)) | right


@njit()
def _decrypt(y: np.uint64, h: int, key: np.uint64) -> np.uint64:
    mask = (np.uint64(1) << np.uint64(h)) - np.uint64(1)
    left, right = y >> np.uint64(h), y & mask
    for j in range(ROUNDS - 1, -1, -1):
        left, right = right ^ _f(left, j, key, mask), left
    return (left << np.uint64(h)) | right


@njit()
def permute(x: int, n: int, h: int, key: np.uint64) -> int:
    """The image of ``x`` (in ``[0, n)``) by the permutation of ``[0, n)`` keyed ``key``.

    ``h`` is :func:`half_bits` ``(n)``.
    """
    y = _encrypt(np.uint64(x), h, key)
    while y >= np.uint64(n):
        y = _encrypt(y, h, key)
    return np.int64(y)


@njit()
def unpermute(y: int, n: int, h: int, key: np.uint64) -> int:
    """The ``x`` with ``permute(x, n, h, key) == y``."""
    x = _decrypt(np.uint64(y), h, key)
    while x >= np.uint64(n):
        x = _decrypt(x, h, key)
    return np.int64(x)


@njit()
def _walk_user(u: int, keys: np.ndarray, n: int, h: int, excl_off: np.ndarray,
               excl_codes: np.ndarray, offsets: np.ndarray, items: np.ndarray,
               ranks: np.ndarray) -> None:
    w, r = offsets[u], 0
    while w < offsets[u + 1]:
        item = permute(r, n, h, keys[u])
        if not in_sorted(excl_codes, excl_off[u], excl_off[u + 1], item):
            items[w] = item
            ranks[w] = r
            w += 1
        r += 1


@njit(parallel=True)
def _walk_parallel(keys: np.ndarray, n: int, h: int, excl_off: np.ndarray,
                   excl_codes: np.ndarray, offsets: np.ndarray, items: np.ndarray,
                   ranks: np.ndarray) -> None:  # pragma: no cover - compiled
    for u in prange(len(keys)):
        _walk_user(np.int64(u), keys, n, h, excl_off, excl_codes, offsets, items, ranks)


@njit()
def _walk(keys: np.ndarray, n: int, h: int, excl_off: np.ndarray, excl_codes: np.ndarray,
          offsets: np.ndarray, items: np.ndarray, ranks: np.ndarray) -> None:
    for u in range(len(keys)):
        _walk_user(u, keys, n, h, excl_off, excl_codes, offsets, items, ranks)


def permuted_top_k(keys: np.ndarray, n: int, excl_off: np.ndarray, excl_codes: np.ndarray,
                   k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each user's first ``k`` allowed items of the permutation of ``[0, n)`` keyed for them.

    User ``u`` walks ranks ``r = 0, 1, ...`` of its permutation (item ``permute(r)``),
    skipping its excluded items, until it holds ``min(k, n - excluded)`` items:
    O(k n / (n - excluded_u)) steps on average, each a binary search of the exclusions.

    Parameters
    ----------
    keys : numpy.ndarray of uint64
        One permutation key per user.
    n : int
        Number of items.
    excl_off, excl_codes : numpy.ndarray of int64
        CSR of each user's excluded item codes (ascending, unique, in ``[0, n)``).
    k : int
        List length.

    Returns
    -------
    offsets, items, ranks : numpy.ndarray of int64
        User ``u``'s list is ``items[offsets[u]:offsets[u + 1]]``, best first, and
        ``ranks`` the position of each in the user's permutation.
    """
    counts = np.minimum(k, n - np.diff(excl_off)) if n else np.zeros(len(keys), np.int64)
    offsets = np.zeros(len(keys) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    items = np.empty(offsets[-1], dtype=np.int64)
    ranks = np.empty(offsets[-1], dtype=np.int64)
    args = (np.ascontiguousarray(keys, dtype=np.uint64), int(n), int(half_bits(max(n, 1))),
            np.ascontiguousarray(excl_off, dtype=np.int64),
            np.ascontiguousarray(excl_codes, dtype=np.int64), offsets, items, ranks)
    if use_parallel(int(offsets[-1]) * 8):
        _walk_parallel(*args)
    else:
        _walk(*args)
    return offsets, items, ranks


@njit()
def _ranks(keys: np.ndarray, rows: np.ndarray, items: np.ndarray, n: int, h: int
           ) -> np.ndarray:
    out = np.empty(len(rows), dtype=np.int64)
    for p in range(len(rows)):
        out[p] = unpermute(items[p], n, h, keys[rows[p]])
    return out


def ranks_of(keys: np.ndarray, rows: np.ndarray, items: np.ndarray, n: int) -> np.ndarray:
    """The rank of item ``items[p]`` in the permutation of user ``rows[p]`` (key ``keys[row]``).

    The inverse of :func:`permuted_top_k`'s walk: ``unpermute`` of each pair's item.
    """
    return _ranks(np.ascontiguousarray(keys, dtype=np.uint64),
                  np.ascontiguousarray(rows, dtype=np.int64),
                  np.ascontiguousarray(items, dtype=np.int64), int(n),
                  int(half_bits(max(n, 1))))
