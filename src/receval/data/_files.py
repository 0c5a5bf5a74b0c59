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
import zipfile
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from receval._columns import ALIASES
from receval.exceptions import (
    EmptyInputError,
    InvalidParameterError,
    SchemaError,
    format_examples,
)

__all__ = [
    "FORMATS",
    "check_parquet_dir",
    "detect_format",
    "encoding_error",
    "parquet_dataset",
    "read_table",
]

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


def _has_header(path: Path, sep: str, encoding: str) -> bool:
    src = _source(path)
    first = pd.read_csv(src, sep=sep, header=None, nrows=1, dtype=str,
                        compression=_comp(src), encoding=encoding)
    cells = [str(c).strip().lower() for c in first.iloc[0].tolist()] if len(first) else []
    return any(c in _KNOWN_NAMES for c in cells)


def _read_delimited(path: Path, sep: str, role: str, header: bool | None,
                    encoding: str) -> pd.DataFrame:
    import pyarrow as pa
    import pyarrow.csv as pacsv

    from receval.data._arrow import arrow_to_pandas as _arrow_to_pandas

    if header is None:
        header = _has_header(path, sep, encoding)
    # pyarrow infers gzip, bz2 and zstd from the name; xz and zip are decompressed here
    codec = _strip_compression(path.name.lower())[1]
    source: Any = io.BytesIO(_raw_bytes(path)) if codec in ("xz", "zip") else str(path)
    try:
        table = pacsv.read_csv(
            source, read_options=pacsv.ReadOptions(autogenerate_column_names=not header,
                                                       encoding=encoding),
            parse_options=pacsv.ParseOptions(delimiter=sep))
    except UnicodeDecodeError:
        raise
    except Exception as exc:  # pyarrow says what is wrong, not on which line: find it
        if isinstance(exc.__context__, UnicodeDecodeError):
            raise exc.__context__ from None
        line = _first_ragged_line(path, sep, encoding)
        where = f", line {line}" if line else ""
        raise SchemaError(f"cannot read {str(path)!r}{where} as {'CSV' if sep == ',' else 'TSV'}"
                          f": {exc}", examples=[str(path)]) from exc
    if any(pa.types.is_binary(t) or pa.types.is_large_binary(t) for t in table.schema.types):
        # pyarrow reads a text column that is not valid in the encoding as bytes
        raise UnicodeDecodeError(encoding, b"", 0, 1, "a column is not valid text")
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


def _raw_bytes(path: Path) -> bytes:
    """The whole decompressed content of ``path`` (error paths only)."""
    import bz2
    import gzip
    import lzma

    stream = _open_text(path)
    if stream is not None:
        return bytes(stream.read())
    _, codec = _strip_compression(path.name.lower())
    if codec == "zip":
        with zipfile.ZipFile(path) as archive:
            names = [n for n in archive.namelist() if not n.endswith("/")]
            return archive.read(names[0]) if names else b""
    opener: Any = {"gzip": gzip.open, "bz2": bz2.open, "xz": lzma.open}.get(codec or "", open)
    with opener(path, "rb") as f:
        return bytes(f.read())


def _first_ragged_line(path: Path, sep: str, encoding: str) -> int | None:
    """The first line whose number of fields differs from the first line's (error path)."""
    import csv

    try:
        text = io.TextIOWrapper(io.BytesIO(_raw_bytes(path)), encoding=encoding,
                                errors="replace", newline="")
        with text:
            width = None
            for number, row in enumerate(csv.reader(text, delimiter=sep), start=1):
                if not row:
                    continue
                if width is None:
                    width = len(row)
                elif len(row) != width:
                    return number
    except (OSError, EOFError, LookupError, csv.Error, zipfile.BadZipFile):
        return None
    return None


def encoding_error(path: Path, encoding: str, fmt: str) -> SchemaError:
    """The error of a text file that is not valid in ``encoding``: where, and what to do.

    Names the file, the line and the byte offset (in the decompressed content) of the first
    byte that does not decode, and the ``encoding=`` option.
    """
    raw = _raw_bytes(path)
    try:
        raw.decode(encoding)
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        bad = raw[exc.start:exc.end][:4]
        where = f"line {line}, byte offset {exc.start}"
        if _strip_compression(path.name.lower())[1] is not None:
            where += " of the decompressed content"
        return SchemaError(
            f"cannot read {str(path)!r} as {fmt}: {where} is not valid {encoding} "
            f"(bytes {bad!r}); give the file's encoding with encoding= (the CLI's "
            f"--encoding), e.g. encoding='latin-1' or 'cp1252', or re-save the file as UTF-8",
            parameter="encoding", examples=[str(path), f"line {line}"])
    except LookupError:
        pass
    return SchemaError(f"cannot read {str(path)!r} as {fmt} in the encoding {encoding!r}; "
                       f"give the file's encoding with encoding= (the CLI's --encoding)",
                       parameter="encoding", examples=[str(path)])


def _mark(frame: pd.DataFrame, path: Path, first_line: int | None) -> pd.DataFrame:
    """Remember where the rows came from, so that later errors can name file lines."""
    frame.attrs["receval_source"] = {"path": str(path), "first_line": first_line}
    return frame


def _read_trec(path: Path, qrels: bool, encoding: str) -> pd.DataFrame:
    src = _source(path)
    comp = _comp(src)
    names = (["user", "iteration", "item", "rating"] if qrels
             else ["user", "q0", "item", "rank", "score", "tag"])
    frame = pd.read_csv(src, sep=r"\s+", header=None, compression=comp, names=names,
                        dtype={n: str for n in ("user", "iteration", "item", "q0", "tag")},
                        encoding=encoding)
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


def check_parquet_dir(path: str | os.PathLike[str]) -> None:
    """A directory read as a Parquet dataset holds data files, and none of another format.

    Raises
    ------
    EmptyInputError
        A directory with no data file in it (named, with what was looked for).
    SchemaError
        Files of a known other format (CSV, JSON lines, ...) in it, named.
    """
    p = Path(path)
    if not p.is_dir():
        return
    files = sorted(f for f in p.rglob("*") if f.is_file() and not any(
        part.startswith((".", "_")) for part in f.relative_to(p).parts))
    if not files:
        raise EmptyInputError(
            f"the directory {str(path)!r} has no data file: a directory is read as a Parquet "
            f"dataset, from every file in it and its subdirectories except those whose names "
            f"start with '.' or '_' (none found); give a file, or a directory of .parquet "
            f"files", parameter="path", examples=[str(path)])
    other = [str(f.relative_to(p)) for f in files if _known_format(f) not in (None, "parquet")]
    if other:
        raise SchemaError(
            f"the directory {str(path)!r} is read as a Parquet dataset, but it holds "
            f"{len(other)} files of another format ({format_examples(other)}); read them one "
            f"by one (receval.data.read_table) or convert them to Parquet",
            parameter="path", n_bad=len(other), examples=other)


def _known_format(path: Path) -> str | None:
    try:
        return detect_format(path)
    except InvalidParameterError:  # no known extension: pyarrow will try it as Parquet
        return None


def parquet_dataset(path: str | os.PathLike[str]) -> Any:
    """A pyarrow dataset of a Parquet file or directory (:func:`check_parquet_dir` first)."""
    import pyarrow.dataset as ds

    check_parquet_dir(path)
    try:
        return ds.dataset(str(path), format="parquet")
    except Exception as exc:  # pyarrow names the file it could not read
        raise SchemaError(f"cannot open {str(path)!r} as Parquet: {exc}",
                          examples=[str(path)]) from exc


def _read_parquet(path: Path) -> pd.DataFrame:
    import pyarrow.parquet as pq

    from receval.data._arrow import arrow_to_pandas as _arrow_to_pandas

    check_parquet_dir(path)
    try:
        table = pq.read_table(path)
    except Exception as exc:  # pyarrow raises ArrowInvalid / OSError with the row group
        raise SchemaError(f"cannot read {str(path)!r} as Parquet: {exc}",
                          examples=[str(path)]) from exc
    return _mark(_arrow_to_pandas(table), path, None)


def read_table(path: str | os.PathLike[str], format: str | None = None, *,
               role: str = "recs", header: bool | None = None,
               encoding: str = "utf-8") -> pd.DataFrame:
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
    encoding : str
        The text encoding of CSV, TSV, JSON lines and TREC files (default ``"utf-8"``;
        e.g. ``"latin-1"``, ``"cp1252"``). Parquet is always UTF-8. Bytes that are not
        valid in it are an error, never ids read as bytes.

    Raises
    ------
    InvalidParameterError
        Unknown format or encoding, or missing file.
    EmptyInputError
        A directory with no data file.
    SchemaError
        The file cannot be parsed, or is not valid text in ``encoding``; the message names
        the file and the line (and byte offset) or row group.
    """
    import codecs

    p = Path(path)
    if not p.exists():
        raise InvalidParameterError(f"no such file: {str(path)!r}", parameter="path",
                                    examples=[str(path)])
    fmt = format or detect_format(p)
    if fmt not in FORMATS:
        raise InvalidParameterError(f"format must be one of {FORMATS}, got {fmt!r}",
                                    parameter="format", examples=[fmt])
    try:
        codecs.lookup(encoding)
    except (LookupError, TypeError):
        raise InvalidParameterError(
            f"encoding={encoding!r} is not a text encoding Python knows; e.g. 'utf-8', "
            f"'latin-1', 'cp1252'", parameter="encoding", examples=[encoding]) from None
    try:
        if fmt == "parquet":
            return _read_parquet(p)
        if fmt in ("csv", "tsv"):
            return _read_delimited(p, "," if fmt == "csv" else "\t", role, header, encoding)
        if fmt in ("trec_run", "trec_qrels"):
            return _read_trec(p, fmt == "trec_qrels", encoding)
        src = _source(p)
        return _mark(pd.read_json(src, lines=True, compression=_comp(src),
                                  encoding=encoding), p, 1)
    except (SchemaError, EmptyInputError):
        raise
    except UnicodeError:
        raise encoding_error(p, encoding, fmt) from None
    except (ValueError, OSError, EOFError, pd.errors.ParserError) as exc:
        raise SchemaError(f"cannot read {str(path)!r} as {fmt}: {exc}",
                          examples=[str(path)]) from exc
