"""Read recommendation and truth files.

Formats: CSV and TSV (with or without a header), Parquet (a file or a directory of files),
JSON lines, TREC run files (``qid Q0 docno rank score tag``) and TREC qrels
(``qid iteration docno relevance``). Compression (.gz, .bz2, .xz, .zst, .zip) is inferred from
the name. Readers parse text or Parquet only: they never execute or unpickle anything. A
malformed file raises :class:`~receval.exceptions.SchemaError` naming the file and the line
or row group.
"""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from receval._columns import ALIASES
from receval.exceptions import InvalidParameterError, SchemaError

__all__ = ["FORMATS", "detect_format", "read_table"]

FORMATS = ("csv", "tsv", "parquet", "jsonl", "trec_run", "trec_qrels")
_COMPRESSION = {".gz": "gzip", ".bz2": "bz2", ".xz": "xz", ".zst": "zstd", ".zip": "zip"}
_EXTENSIONS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".parquet": "parquet",
               ".pq": "parquet", ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "jsonl",
               ".run": "trec_run", ".trec": "trec_run", ".qrels": "trec_qrels",
               ".qrel": "trec_qrels"}
_POSITIONAL = {"recs": {2: ["user", "item"], 3: ["user", "item", "score"]},
               "truth": {2: ["user", "item"], 3: ["user", "item", "rating"]}}
_KNOWN_NAMES = {name.lower() for names in ALIASES.values() for name in names}


def _strip_compression(name: str) -> tuple[str, str | None]:
    for suffix, codec in _COMPRESSION.items():
        if name.endswith(suffix):
            return name[: -len(suffix)], codec
    return name, None


def detect_format(path: str | os.PathLike[str]) -> str:
    """Infer the format of ``path`` from its extension (after any compression suffix)."""
    p = Path(path)
    if p.is_dir():
        return "parquet"
    name, _ = _strip_compression(p.name.lower())
    for ext, fmt in _EXTENSIONS.items():
        if name.endswith(ext):
            return fmt
    if "qrels" in name:
        return "trec_qrels"
    raise InvalidParameterError(
        f"cannot tell the format of {str(path)!r} from its extension; pass format= one of "
        f"{FORMATS}", parameter="format", examples=[str(path)])


def _open_text(path: Path) -> Any:
    """A binary stream of the decompressed file (zstd through pyarrow, no extra package)."""
    _, codec = _strip_compression(path.name.lower())
    if codec == "zstd":
        import pyarrow as pa

        return pa.CompressedInputStream(pa.OSFile(str(path), "rb"), "zstd")
    return None


def _source(path: Path) -> Any:
    stream = _open_text(path)
    if stream is None:
        return path
    return io.BytesIO(stream.read())


def _comp(src: Any) -> Literal["infer"] | None:
    return "infer" if isinstance(src, Path) else None


def _has_header(path: Path, sep: str) -> bool:
    src = _source(path)
    first = pd.read_csv(src, sep=sep, header=None, nrows=1, dtype=str,
                        compression=_comp(src))
    cells = [str(c).strip().lower() for c in first.iloc[0].tolist()] if len(first) else []
    return any(c in _KNOWN_NAMES for c in cells)


def _read_delimited(path: Path, sep: str, role: str, header: bool | None) -> pd.DataFrame:
    import pyarrow.csv as pacsv

    from receval.data._adapters import _arrow_to_pandas

    if header is None:
        header = _has_header(path, sep)
    try:
        table = pacsv.read_csv(
            str(path), read_options=pacsv.ReadOptions(autogenerate_column_names=not header),
            parse_options=pacsv.ParseOptions(delimiter=sep))
    except Exception as exc:  # pyarrow says what is wrong, not on which line: find it
        line = _first_ragged_line(path, sep)
        where = f", line {line}" if line else ""
        raise SchemaError(f"cannot read {str(path)!r}{where} as {'CSV' if sep == ',' else 'TSV'}"
                          f": {exc}", examples=[str(path)]) from exc
    frame = _arrow_to_pandas(table)
    if not header:
        names = _POSITIONAL[role].get(frame.shape[1])
        if names is None:
            raise SchemaError(
                f"{str(path)!r} has no header and {frame.shape[1]} columns; without a header "
                f"receval reads {role} as {list(_POSITIONAL[role].values())}: add a header "
                f"row", examples=[str(path)])
        frame.columns = names
    return _mark(frame, path, 2 if header else 1)


def _first_ragged_line(path: Path, sep: str) -> int | None:
    """The first line whose number of fields differs from the first line's (error path)."""
    import csv

    raw = _open_text(path)
    try:
        if raw is not None:
            text = io.TextIOWrapper(io.BytesIO(raw.read()), encoding="utf-8", errors="replace")
        else:
            import bz2
            import gzip
            import lzma

            _, codec = _strip_compression(path.name.lower())
            opener: Any = {"gzip": gzip.open, "bz2": bz2.open, "xz": lzma.open}.get(
                codec or "", open)
            text = opener(path, "rt", encoding="utf-8", errors="replace", newline="")
        with text:
            width = None
            for number, row in enumerate(csv.reader(text, delimiter=sep), start=1):
                if not row:
                    continue
                if width is None:
                    width = len(row)
                elif len(row) != width:
                    return number
    except (OSError, csv.Error):
        return None
    return None


def _mark(frame: pd.DataFrame, path: Path, first_line: int | None) -> pd.DataFrame:
    """Remember where the rows came from, so that later errors can name file lines."""
    frame.attrs["receval_source"] = {"path": str(path), "first_line": first_line}
    return frame


def _read_trec(path: Path, qrels: bool) -> pd.DataFrame:
    src = _source(path)
    comp = _comp(src)
    names = (["user", "iteration", "item", "rating"] if qrels
             else ["user", "q0", "item", "rank", "score", "tag"])
    frame = pd.read_csv(src, sep=r"\s+", header=None, compression=comp, names=names,
                        dtype={n: str for n in ("user", "iteration", "item", "q0", "tag")})
    short = np.flatnonzero(frame.isna().any(axis=1).to_numpy())
    if len(short):
        lines = [int(i) + 1 for i in short[:5]]
        raise SchemaError(
            f"{str(path)!r} is not a TREC {'qrels' if qrels else 'run'} file: line {lines[0]} "
            f"has fewer than {len(names)} fields ({' '.join(names)})"
            + (f"; so do lines {lines[1:]}" if len(lines) > 1 else ""),
            n_bad=len(short), examples=lines)
    # like trec_eval, a run is ordered by its scores and its rank column is ignored
    keep = ["user", "item", "rating"] if qrels else ["user", "item", "score"]
    return _mark(frame[keep].copy(), path, 1)


def _read_parquet(path: Path) -> pd.DataFrame:
    import pyarrow.parquet as pq

    from receval.data._adapters import _arrow_to_pandas

    try:
        table = pq.read_table(path)
    except Exception as exc:  # pyarrow raises ArrowInvalid / OSError with the row group
        raise SchemaError(f"cannot read {str(path)!r} as Parquet: {exc}",
                          examples=[str(path)]) from exc
    return _mark(_arrow_to_pandas(table), path, None)


def read_table(path: str | os.PathLike[str], format: str | None = None, *,
               role: str = "recs", header: bool | None = None) -> pd.DataFrame:
    """Read one table from a file.

    Parameters
    ----------
    path : str or path-like
        The file (or, for Parquet, a directory of files).
    format : {"csv", "tsv", "parquet", "jsonl", "trec_run", "trec_qrels"}, optional
        By default inferred from the extension (``.run``/``.trec`` and ``.qrels`` for TREC).
    role : {"recs", "truth"}
        Which input the file holds, to name the columns of a file without a header.
    header : bool, optional
        Whether a CSV/TSV file has a header row; by default detected from the first row
        (a header names at least one known column such as ``user_id`` or ``item``).

    Raises
    ------
    InvalidParameterError
        Unknown format or missing file.
    SchemaError
        The file cannot be parsed; the message names the file and the line or row group.
    """
    p = Path(path)
    if not p.exists():
        raise InvalidParameterError(f"no such file: {str(path)!r}", parameter="path",
                                    examples=[str(path)])
    fmt = format or detect_format(p)
    if fmt not in FORMATS:
        raise InvalidParameterError(f"format must be one of {FORMATS}, got {fmt!r}",
                                    parameter="format", examples=[fmt])
    try:
        if fmt == "parquet":
            return _read_parquet(p)
        if fmt in ("csv", "tsv"):
            return _read_delimited(p, "," if fmt == "csv" else "\t", role, header)
        if fmt in ("trec_run", "trec_qrels"):
            return _read_trec(p, fmt == "trec_qrels")
        src = _source(p)
        return _mark(pd.read_json(src, lines=True, compression=_comp(src)), p, 1)
    except SchemaError:
        raise
    except (ValueError, OSError, UnicodeDecodeError, pd.errors.ParserError) as exc:
        raise SchemaError(f"cannot read {str(path)!r} as {fmt}: {exc}",
                          examples=[str(path)]) from exc
