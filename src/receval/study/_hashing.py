"""Content hashes (SHA-256) of files and tables, the same in any process and on any machine.

A file is hashed byte for byte. A table is hashed column by column in a fixed encoding:
the column's name and dtype, then its values (numbers as little-endian bytes of their numpy
dtype, datetimes as int64 nanoseconds, anything else as the UTF-8 text of each value,
each followed by a separator byte), so that two tables with the same columns, dtypes, row
order and values have the same hash. The index is not hashed.
"""

from __future__ import annotations

import hashlib
import os
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["file_sha256", "frame_sha256"]


def file_sha256(path: str | os.PathLike[str]) -> str:
    """SHA-256 of a file's bytes (of every file under it, in sorted order, for a folder)."""
    digest = hashlib.sha256()
    root = os.fspath(path)
    files = [root] if os.path.isfile(root) else sorted(
        os.path.join(d, f) for d, _, names in os.walk(root) for f in names)
    for name in files:
        if files != [root]:
            digest.update(os.path.relpath(name, root).encode("utf-8") + b"\0")
        with open(name, "rb") as stream:
            for block in iter(lambda: stream.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def _column_bytes(values: pd.Series) -> bytes:
    dtype = values.dtype
    if isinstance(dtype, np.dtype) and dtype.kind in "biuf":
        return np.ascontiguousarray(values.to_numpy(), dtype=dtype.newbyteorder("<")).tobytes()
    if isinstance(dtype, np.dtype) and dtype.kind == "M":
        return values.to_numpy(dtype="datetime64[ns]").astype("<i8").tobytes()
    text = "\x1f".join("\x00" if pd.isna(v) else str(v) for v in values.tolist())
    return text.encode("utf-8")


def frame_sha256(frame: Any) -> str:
    """SHA-256 of a table's columns (names, dtypes, values in row order; not the index)."""
    if not isinstance(frame, pd.DataFrame):
        from receval.data._adapters import to_frame

        frame = to_frame(frame, "truth")
    digest = hashlib.sha256()
    digest.update(f"{len(frame)} rows\0".encode())
    for name in frame.columns:
        column = frame[name]
        digest.update(f"{name}\0{column.dtype}\0".encode())
        digest.update(_column_bytes(column))
        digest.update(b"\0")
    return digest.hexdigest()
