"""Keyed hashes of ids, by value: the same id gives the same hash in any frame and in Spark.

A random split keys each user by a hash of its id (:mod:`receval._kernels.hashing`), so that
a user's draw depends on the seed and on the id only. The hash is Spark's ``xxhash64`` of the
id as Spark would hold it: integers and booleans as 64-bit integers, floating-point ids as
the bits of their double (``-0.0`` as ``0.0``), strings as their UTF-8 bytes, bytes as they
are. Python's ``hash()`` (salted per process) is never used.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from receval._kernels.hashing import hash_longs, hash_strings
from receval.data._encode import id_kind

__all__ = ["id_hashes"]


def _bytes_hashes(ids: pd.Index, kind: str, key: np.uint64) -> np.ndarray:
    import pyarrow as pa

    arrow_type = pa.large_string() if kind == "string" else pa.large_binary()
    arr = pa.array(np.asarray(ids, dtype=object), type=arrow_type)
    _, offsets_buf, data_buf = arr.buffers()
    offsets = np.frombuffer(offsets_buf, dtype=np.int64)[arr.offset:arr.offset + len(arr) + 1]
    data = np.frombuffer(data_buf, dtype=np.uint8) if data_buf is not None \
        else np.zeros(0, dtype=np.uint8)
    return hash_strings(data, np.ascontiguousarray(offsets), key)


def id_hashes(ids: pd.Index, key: np.uint64) -> np.ndarray:
    """The keyed hash of each id (uint64), as Spark's ``xxhash64`` computes it.

    Parameters
    ----------
    ids : pandas.Index
        Distinct ids of one kind (``integer``, ``bool``, ``float``, ``string`` or ``bytes``;
        categorical ids by their categories' values).
    key : numpy.uint64
        The hash key (:func:`receval._kernels.hashing.seed_key` of a seed).
    """
    if isinstance(ids.dtype, pd.CategoricalDtype):
        ids = pd.Index(ids.astype(ids.dtype.categories.dtype))
    kind = id_kind(pd.Series(ids))
    if kind in ("integer", "bool"):
        base: Any = getattr(ids.dtype, "numpy_dtype", ids.dtype)
        bits = ids.to_numpy(dtype=np.uint64) if np.dtype(base) == np.uint64 \
            else ids.to_numpy(dtype=np.int64).view(np.uint64)  # two's complement bits
        return hash_longs(np.ascontiguousarray(bits), key)
    if kind == "float":
        floats = ids.to_numpy(dtype=np.float64) + 0.0  # -0.0 + 0.0 is 0.0
        return hash_longs(np.ascontiguousarray(floats.view(np.uint64)), key)
    return _bytes_hashes(ids, kind, key)
