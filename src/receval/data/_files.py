"""Read recommendation and truth files: CSV / TSV, Parquet, JSON lines (optionally compressed).

Readers never execute or unpickle anything: they parse text or Parquet only.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from receval.exceptions import InvalidParameterError, SchemaError

__all__ = ["FORMATS", "detect_format", "read_table"]

FORMATS = ("csv", "tsv", "parquet", "jsonl")
_COMPRESSION = (".gz", ".bz2", ".xz", ".zst", ".zip")


def detect_format(path: str | os.PathLike[str]) -> str:
    """The format of ``path`` from its extension (after any compression suffix)."""
    name = Path(path).name.lower()
    for suffix in _COMPRESSION:
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    for ext, fmt in ((".csv", "csv"), (".tsv", "tsv"), (".tab", "tsv"), (".parquet", "parquet"),
                     (".pq", "parquet"), (".jsonl", "jsonl"), (".ndjson", "jsonl"),
                     (".json", "jsonl")):
        if name.endswith(ext):
            return fmt
    raise InvalidParameterError(
        f"cannot tell the format of {str(path)!r} from its extension; pass format= one of "
        f"{FORMATS}", parameter="format", examples=[str(path)])


def read_table(path: str | os.PathLike[str], format: str | None = None) -> pd.DataFrame:
    """Read one table from a file.

    Parameters
    ----------
    path : str or path-like
        The file. Compression (.gz, .bz2, .xz, .zst, .zip) is inferred from the name.
    format : {"csv", "tsv", "parquet", "jsonl"}, optional
        The format; by default inferred from the extension.

    Raises
    ------
    InvalidParameterError
        Unknown format or missing file.
    SchemaError
        The file cannot be parsed; the message names the file.
    """
    fmt = format or detect_format(path)
    if fmt not in FORMATS:
        raise InvalidParameterError(f"format must be one of {FORMATS}, got {fmt!r}",
                                    parameter="format", examples=[fmt])
    if not Path(path).exists():
        raise InvalidParameterError(f"no such file: {str(path)!r}", parameter="path",
                                    examples=[str(path)])
    try:
        if fmt == "csv":
            return pd.read_csv(path)
        if fmt == "tsv":
            return pd.read_csv(path, sep="\t")
        if fmt == "parquet":
            return pd.read_parquet(path)
        return pd.read_json(path, lines=True)
    except (ValueError, OSError, UnicodeDecodeError) as exc:
        raise SchemaError(f"cannot read {str(path)!r} as {fmt}: {exc}",
                          examples=[str(path)]) from exc
