"""Keyed 64-bit hashes for reproducible random splits: XXH64, bit for bit as Spark's ``xxhash64``.

A random split draws its randomness from these hashes instead of a stream of random numbers,
so that the key of a row depends only on the seed and on what identifies the row (its position,
or its user's id and its rank among the user's rows), never on the other rows: the same rows
get the same keys in memory, in any process, and inside Spark (whose ``xxhash64(seed, x)`` is
:func:`hash_long` / :func:`hash_bytes` of ``x`` under the key :func:`seed_key` ``(seed)``).

XXH64 (Yann Collet, https://github.com/Cyan4973/xxHash, the 64-bit variant of the xxHash
specification) mixes 8-byte lanes by multiplications by odd primes and rotations and ends with
an avalanche (``fmix``). Every step is a bijection of the 64-bit state, so :func:`hash_long`
is a bijection of its input for a fixed key: distinct positions never share a key.
"""

from __future__ import annotations

import numpy as np

from receval._kernels._jit import njit, prange, use_parallel

__all__ = ["SPARK_SEED", "hash_bytes", "hash_long", "hash_longs", "hash_positions",
           "hash_strings", "seed_key"]

#: The seed Spark's ``xxhash64`` starts from.
SPARK_SEED = 42

_P1 = np.uint64(0x9E3779B185EBCA87)
_P2 = np.uint64(0xC2B2AE3D27D4EB4F)
_P3 = np.uint64(0x165667B19E3779F9)
_P4 = np.uint64(0x85EBCA77C2B2AE63)
_P5 = np.uint64(0x27D4EB2F165667C5)


@njit()
def _rotl(x: np.uint64, r: int) -> np.uint64:
    return (x << np.uint64(r)) | (x >> np.uint64(64 - r))


@njit()
def _fmix(h: np.uint64) -> np.uint64:
    h ^= h >> np.uint64(33)
    h *= _P2
    h ^= h >> np.uint64(29)
    h *= _P3
    h ^= h >> np.uint64(32)
    return h


@njit()
def _round(acc: np.uint64, lane: np.uint64) -> np.uint64:
    acc += lane * _P2
    return _rotl(acc, 31) * _P1


@njit()
def hash_long(x: np.uint64, key: np.uint64) -> np.uint64:
    """XXH64 of the 8 little-endian bytes of ``x`` under ``key`` (Spark's ``hashLong``)."""
    h = key + _P5 + np.uint64(8)
    h ^= _round(np.uint64(0), x)
    h = _rotl(h, 27) * _P1 + _P4
    return _fmix(h)


@njit()
def _read(buf: np.ndarray, p: int, width: int) -> np.uint64:
    v = np.uint64(0)
    for i in range(width):
        v |= np.uint64(buf[p + i]) << np.uint64(8 * i)
    return v


@njit()
def _merge(acc: np.uint64, lane: np.uint64) -> np.uint64:
    acc ^= _round(np.uint64(0), lane)
    return acc * _P1 + _P4


@njit()
def hash_bytes(buf: np.ndarray, start: int, end: int, key: np.uint64) -> np.uint64:
    """XXH64 of ``buf[start:end]`` (uint8) under ``key`` (Spark's ``hashUnsafeBytes``)."""
    p = start
    if end - start >= 32:
        v1 = key + _P1 + _P2
        v2 = key + _P2
        v3 = key
        v4 = key - _P1
        while p + 32 <= end:
            v1 = _round(v1, _read(buf, p, 8))
            v2 = _round(v2, _read(buf, p + 8, 8))
            v3 = _round(v3, _read(buf, p + 16, 8))
            v4 = _round(v4, _read(buf, p + 24, 8))
            p += 32
        h = _rotl(v1, 1) + _rotl(v2, 7) + _rotl(v3, 12) + _rotl(v4, 18)
        h = _merge(_merge(_merge(_merge(h, v1), v2), v3), v4)
    else:
        h = key + _P5
    h += np.uint64(end - start)
    while p + 8 <= end:
        h ^= _round(np.uint64(0), _read(buf, p, 8))
        h = _rotl(h, 27) * _P1 + _P4
        p += 8
    if p + 4 <= end:
        h ^= _read(buf, p, 4) * _P1
        h = _rotl(h, 23) * _P2 + _P3
        p += 4
    while p < end:
        h ^= np.uint64(buf[p]) * _P5
        h = _rotl(h, 11) * _P1
        p += 1
    return _fmix(h)


def seed_key(seed: int) -> np.uint64:
    """The key of a split's seed: Spark's ``xxhash64`` of the long ``seed``."""
    return np.uint64(hash_long(np.uint64(seed), np.uint64(SPARK_SEED)))


@njit(parallel=True)
def _positions_parallel(n: int, key: np.uint64, out: np.ndarray) -> None:
    for i in prange(n):
        out[i] = hash_long(np.uint64(i), key)


@njit()
def _positions(n: int, key: np.uint64, out: np.ndarray) -> None:
    for i in range(n):
        out[i] = hash_long(np.uint64(i), key)


def hash_positions(n: int, key: np.uint64) -> np.ndarray:
    """The keys of positions ``0..n-1``, as int64 (Spark's ``xxhash64(seed, position)``)."""
    out = np.empty(n, dtype=np.uint64)
    if use_parallel(n):
        _positions_parallel(n, key, out)
    else:
        _positions(n, key, out)
    return out.view(np.int64)


@njit()
def hash_longs(values: np.ndarray, key: np.uint64) -> np.ndarray:
    """:func:`hash_long` of each of ``values`` (uint64)."""
    out = np.empty(len(values), dtype=np.uint64)
    for i in range(len(values)):
        out[i] = hash_long(values[i], key)
    return out


@njit()
def hash_strings(data: np.ndarray, offsets: np.ndarray, key: np.uint64) -> np.ndarray:
    """:func:`hash_bytes` of each string ``data[offsets[i]:offsets[i + 1]]``."""
    out = np.empty(len(offsets) - 1, dtype=np.uint64)
    for i in range(len(offsets) - 1):
        out[i] = hash_bytes(data, offsets[i], offsets[i + 1], key)
    return out
