"""One bucket of users per Spark partition, through Spark's own hash partitioner.

``DataFrame.repartition(n, col)`` sends a row to partition
``pmod(murmur3_32(col, seed=42), n)`` (Spark's ``HashPartitioning``; ``murmur3_32`` is
Austin Appleby's MurmurHash3 x86 32-bit, as in Spark's ``Murmur3_x86_32.hashLong``).
Repartitioning by the bucket number itself, ``0 .. n-1``, would put several buckets in one
partition and none in others (7 buckets over 7 partitions: 3, 3, 1, 0, 0, 0, 0). So each
bucket ``b`` is mapped to the smallest non-negative long ``v_b`` whose hash lands in partition
``b`` (:func:`partition_values`), and the rows are repartitioned by ``v_b``: partition ``b``
holds exactly bucket ``b``. Were Spark's hash ever different, every row of a user would still
meet in one partition (``v_b`` depends on the user only); only the balance would suffer.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["SPARK_SEED", "murmur3_long", "partition_key", "partition_values"]

#: The seed of Spark's ``HashPartitioning`` (and of ``pyspark.sql.functions.hash``).
SPARK_SEED = 42

_C1, _C2 = np.uint32(0xCC9E2D51), np.uint32(0x1B873593)
_MASK32 = np.uint64(0xFFFFFFFF)


def _rotl(x: np.ndarray, r: int) -> np.ndarray:
    return (x << np.uint32(r)) | (x >> np.uint32(32 - r))


def _mix_k1(k1: np.ndarray) -> np.ndarray:
    return _rotl(k1 * _C1, 15) * _C2


def _mix_h1(h1: np.ndarray, k1: np.ndarray) -> np.ndarray:
    return _rotl(h1 ^ k1, 13) * np.uint32(5) + np.uint32(0xE6546B64)


def _fmix(h1: np.ndarray, length: int) -> np.ndarray:
    h1 = h1 ^ np.uint32(length)
    h1 = h1 ^ (h1 >> np.uint32(16))
    h1 = h1 * np.uint32(0x85EBCA6B)
    h1 = h1 ^ (h1 >> np.uint32(13))
    h1 = h1 * np.uint32(0xC2B2AE35)
    return h1 ^ (h1 >> np.uint32(16))


def murmur3_long(values: Any, seed: int = SPARK_SEED) -> np.ndarray:
    """Spark's 32-bit Murmur3 hash of 64-bit integers (``F.hash`` of a long column).

    The long is hashed as two 32-bit blocks, low word first, then finalised with length 8.

    Parameters
    ----------
    values : array_like of int64
    seed : int
        Spark hashes with 42.

    Returns
    -------
    numpy.ndarray of int32
        The signed hashes, as Spark returns them.
    """
    words = np.asarray(values, dtype=np.int64).view(np.uint64)
    low = (words & _MASK32).astype(np.uint32)
    high = (words >> np.uint64(32)).astype(np.uint32)
    h1 = np.full(words.shape, seed, dtype=np.uint32)
    h1 = _mix_h1(h1, _mix_k1(low))
    h1 = _mix_h1(h1, _mix_k1(high))
    return _fmix(h1, 8).view(np.int32)


def partition_values(n: int) -> list[int]:
    """For each bucket ``b < n``, the value that Spark sends to partition ``b``.

    That is the smallest long ``v >= 0`` with ``pmod(murmur3_long(v), n) == b``.
    """
    found = np.full(n, -1, dtype=np.int64)
    start, chunk = 0, max(4 * n, 1024)
    while (found < 0).any():
        candidates = np.arange(start, start + chunk, dtype=np.int64)
        parts = np.mod(murmur3_long(candidates).astype(np.int64), n)
        first_parts, first = np.unique(parts, return_index=True)
        new = found[first_parts] < 0
        found[first_parts[new]] = candidates[first[new]]
        start += chunk
    return found.tolist()


def partition_key(bucket: Any, n: int) -> Any:
    """The Spark column to repartition by so that bucket ``b`` fills partition ``b`` alone.

    ``bucket`` is a long column with values in ``0 .. n-1``.
    """
    from pyspark.sql import functions as F

    # one SQL literal (one call into the JVM), not a Column per bucket
    values = F.expr(f"array({', '.join(f'{v}L' for v in partition_values(n))})")
    return F.element_at(values, (bucket + F.lit(1)).cast("int"))
