"""Read recommendation and truth files.

Formats: CSV and TSV (with or without a header), Parquet (a file or a directory of files),
JSON lines (or a JSON array of objects), TREC run files (``qid Q0 docno rank score tag``)
and TREC qrels (``qid iteration docno relevance``). Compression (.gz, .bz2, .xz, .zst,
.zip) is inferred from the name. Readers parse text or Parquet only: they never execute or
unpickle anything. A malformed file raises :class:`~receval.exceptions.SchemaError` naming
the file and the line or row group. Ids are never changed on the way in: see
:func:`read_table` for the rule that makes an id column text or integers.
"""

from __future__ import annotations

import io
import os
import zipfile
from collections.abc import Sequence
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


_CANONICAL_INT = r"^-?(0|[1-9][0-9]*)$"
_OTHER_DELIMITERS = {",": (";", "\t", "|"), "\t": (",", ";", "|")}


def _norm(name: str) -> str:
    return str(name).strip().lower()


def _first_row(path: Path, sep: str, encoding: str) -> list[str] | None:
    """The cells of the first line, as text (None for a file with no line)."""
    src = _source(path)
    try:
        first = pd.read_csv(src, sep=sep, header=None, nrows=1, dtype=str, na_filter=False,
                            compression=_comp(src), encoding=encoding)
    except pd.errors.EmptyDataError:
        return None
    return [str(c) for c in first.iloc[0].tolist()] if len(first) else None


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _has_header(path: Path, sep: str, encoding: str, first: list[str],
                ids: tuple[str, ...] = ()) -> bool:
    """Whether the first row of a CSV/TSV file is a header.

    It is when a cell is a known column name (an alias of a role, compared after stripping
    spaces and case, or a name given in ``ids``), or when every cell is text that is not a
    number and appears nowhere else in its column (``customer,product`` over ids): such a
    row is never data, and reading it as data would make a phantom user.
    """
    known = _KNOWN_NAMES | {_norm(name) for name in ids}
    cells = [_norm(c) for c in first]
    if any(c in known for c in cells):
        return True
    if not first or any(c == "" or _is_number(c) for c in cells):
        return False
    columns = _read_text_columns(path, sep, encoding, len(first))
    if columns is None or len(columns[0]) < 2:
        return False
    return all(cell not in column[1:] for cell, column in zip(first, columns, strict=False))


def _read_text_columns(path: Path, sep: str, encoding: str, width: int
                       ) -> list[list[str]] | None:
    """Every column of a headerless file as text (None if pyarrow cannot read it so)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    codec = _strip_compression(path.name.lower())[1]
    source: Any = io.BytesIO(_raw_bytes(path)) if codec in ("xz", "zip") else str(path)
    try:
        table = pacsv.read_csv(
            source, read_options=pacsv.ReadOptions(autogenerate_column_names=True,
                                                   encoding=encoding),
            parse_options=pacsv.ParseOptions(delimiter=sep),
            convert_options=pacsv.ConvertOptions(
                column_types={f"f{i}": pa.string() for i in range(width)}))
    except Exception:  # the full read reports what is wrong, with the line
        return None
    return [table.column(i).to_pylist() for i in range(table.num_columns)]


def _id_columns(names: list[str], header: bool, ids: tuple[str, ...]) -> list[str]:
    """The columns of a CSV/TSV file read as ids.

    The user and item aliases and ``ids``, or the first two columns of a file without a
    header (and the one column of a one-column file).
    """
    if not header:
        return names[:2]
    if len(names) == 1:
        return list(names)
    wanted = {_norm(a) for role in ("user", "item") for a in ALIASES[role]}
    return [n for n in names if _norm(n) in wanted or n in ids]


def _ids_as_text(table: Any, id_columns: list[str]) -> Any:
    """Id columns read as text, then as integers when every value is one, written plainly.

    An empty cell is a missing id. A column is converted to int64 (or uint64) only when every
    value is the canonical text of an integer that fits (``-?(0|[1-9][0-9]*)``): ``"0042"``,
    ``"1e3"``, ``"1.0"``, ``"+5"``, ``"2020-01-01"``, ``"true"`` or ``"NA"`` keep the whole
    column as strings, so that an id is never changed into another one.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    for name in id_columns:
        if name not in table.column_names:
            continue
        index = table.column_names.index(name)
        col = table.column(index)
        if not (pa.types.is_string(col.type) or pa.types.is_large_string(col.type)):
            continue
        col = pc.if_else(pc.equal(col, ""), pa.scalar(None, col.type), col)
        table = table.set_column(index, name, _as_integers(col))
    return table


def _as_integers(col: Any) -> Any:
    import pyarrow as pa
    import pyarrow.compute as pc

    valid = col.length() - col.null_count
    if valid == 0 or not pc.all(pc.match_substring_regex(col, _CANONICAL_INT),
                                skip_nulls=True).as_py():
        return col
    try:
        return pc.cast(col, pa.int64())
    except (pa.ArrowInvalid, OverflowError):
        pass
    try:
        return pc.cast(col, pa.uint64())
    except (pa.ArrowInvalid, OverflowError):
        return col


def _delimiter_error(path: Path, sep: str, first: list[str]) -> SchemaError | None:
    """A one-column file whose first cell holds another delimiter: say so."""
    if len(first) != 1:
        return None
    found = [d for d in _OTHER_DELIMITERS[sep]
             if len([p for p in first[0].split(d) if p.strip()]) >= 2]
    if not found:
        return None
    shown = {"\t": "a tab", ";": "';'", "|": "'|'", ",": "','"}
    kind = "CSV" if sep == "," else "TSV"
    how = ("rename the file to .tsv (a tab-separated file)" if found[0] == "\t"
           else "rename the file to .csv" if found[0] == ","
           else f"convert it to commas, or read it with pandas.read_csv(path, "
                f"sep={found[0]!r}) and pass the DataFrame")
    return SchemaError(
        f"{str(path)!r} is read as {kind} ({shown[sep]} between fields) but its first line "
        f"has one field, {first[0][:80]!r}, holding {shown[found[0]]}: the delimiter seems "
        f"to be {shown[found[0]]}; receval reads .csv with commas and .tsv with tabs "
        f"(there is no delimiter option): {how}", examples=[str(path), "line 1"])


def _read_delimited(path: Path, sep: str, role: str, header: bool | None,
                    encoding: str, ids: tuple[str, ...] = ()) -> pd.DataFrame:
    import pyarrow as pa
    import pyarrow.csv as pacsv

    from receval.data._arrow import arrow_to_pandas as _arrow_to_pandas

    first = _first_row(path, sep, encoding)
    if first is None:
        raise EmptyInputError(
            f"{str(path)!r} is empty: it has no header and no rows ({role} needs a user and "
            f"an item column)", parameter=role, examples=[str(path)])
    bad_sep = _delimiter_error(path, sep, first)
    if bad_sep is not None:
        raise bad_sep
    if header is None:
        header = _has_header(path, sep, encoding, first, ids)
    names = list(first) if header else [f"f{i}" for i in range(len(first))]
    id_columns = _id_columns(names, header, ids)
    # pyarrow infers gzip, bz2 and zstd from the name; xz and zip are decompressed here
    codec = _strip_compression(path.name.lower())[1]
    source: Any = io.BytesIO(_raw_bytes(path)) if codec in ("xz", "zip") else str(path)
    try:
        table = pacsv.read_csv(
            source, read_options=pacsv.ReadOptions(autogenerate_column_names=not header,
                                                       encoding=encoding),
            parse_options=pacsv.ParseOptions(delimiter=sep),
            convert_options=pacsv.ConvertOptions(
                column_types={name: pa.string() for name in id_columns}))
    except UnicodeDecodeError:
        raise
    except Exception as exc:  # pyarrow says what is wrong, not on which line: find it
        if isinstance(exc.__context__, UnicodeDecodeError):
            raise exc.__context__ from None
        if "invalid UTF8" in str(exc):  # an id column read as text
            raise UnicodeDecodeError(encoding, b"", 0, 1, "a column is not valid text") from None
        line = _first_ragged_line(path, sep, encoding)
        where = f", line {line}" if line else ""
        raise SchemaError(f"cannot read {str(path)!r}{where} as {'CSV' if sep == ',' else 'TSV'}"
                          f": {exc}", examples=[str(path)]) from exc
    if any(pa.types.is_binary(t) or pa.types.is_large_binary(t) for t in table.schema.types):
        # pyarrow reads a text column that is not valid in the encoding as bytes
        raise UnicodeDecodeError(encoding, b"", 0, 1, "a column is not valid text")
    frame = _arrow_to_pandas(_ids_as_text(table, id_columns))
    if not header:
        positional = _POSITIONAL[role].get(frame.shape[1])
        if positional is None:
            raise SchemaError(
                f"{str(path)!r} has no header and {frame.shape[1]} columns; without a header "
                f"receval reads {role} as {list(_POSITIONAL[role].values())}: add a header "
                f"row", examples=[str(path)])
        frame.columns = positional
    source_info = _mark(frame, path, 2 if header else 1).attrs["receval_source"]
    if header and not any(_norm(c) in _KNOWN_NAMES | {_norm(n) for n in ids} for c in first):
        source_info["header"] = "guessed"
    return frame


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


_TREC_FIELDS = {True: ["user", "iteration", "item", "rating"],
                False: ["user", "q0", "item", "rank", "score", "tag"]}
_TREC_WORDS = {True: "query iteration document relevance",
               False: "query Q0 document rank score tag"}


def _data_lines(path: Path, encoding: str, rows: list[int]) -> list[int]:
    """The line numbers of data rows (0-based) of a file whose blank lines are skipped.

    Error paths only: the file is read again.
    """
    text = _raw_bytes(path).decode(encoding, errors="replace").splitlines()
    numbers = [i + 1 for i, line in enumerate(text) if line.strip()]
    return [numbers[r] if r < len(numbers) else r + 1 for r in rows]


def _trec_width_error(path: Path, qrels: bool, lines: list[int], widths: list[int],
                      n_bad: int) -> SchemaError:
    kind = "qrels" if qrels else "run"
    expected = len(_TREC_FIELDS[qrels])
    more = f"; so do lines {lines[1:]}" if len(lines) > 1 else ""
    return SchemaError(
        f"{str(path)!r} is not a TREC {kind} file: line {lines[0]} has {widths[0]} fields, a "
        f"{kind} line has {expected} ({_TREC_WORDS[qrels]}){more}",
        n_bad=n_bad, examples=[str(path), *lines[:4]])


def _read_trec(path: Path, qrels: bool, encoding: str) -> pd.DataFrame:
    """A TREC run or qrels file: every field read as text, then the numbers converted.

    A line with more or fewer fields than the format has is an error naming it (never a
    field shifted into another's place).
    """
    import re

    src = _source(path)
    comp = _comp(src)
    names = _TREC_FIELDS[qrels]
    try:
        frame = pd.read_csv(src, sep=r"\s+", header=None, compression=comp, dtype=str,
                            na_filter=False, encoding=encoding)
    except pd.errors.EmptyDataError:
        frame = pd.DataFrame({n: pd.Series([], dtype=object) for n in names})
    except pd.errors.ParserError as exc:  # a line longer than the first ones
        found = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", str(exc))
        if found is None:
            raise
        first, row, saw = (int(g) for g in found.groups())
        if first != len(names):  # the first line is the odd one
            raise _trec_width_error(path, qrels, _data_lines(path, encoding, [0]), [first],
                                    1) from None
        # pandas counts physical lines, blank ones included
        raise _trec_width_error(path, qrels, [row], [saw], 1) from None
    cells = frame.to_numpy(dtype=object)
    widths = (cells != "").sum(axis=1) if cells.size else np.zeros(0, dtype=np.int64)
    bad = np.flatnonzero(widths != len(names))
    if len(bad):
        lines = _data_lines(path, encoding, [int(i) for i in bad[:5]])
        raise _trec_width_error(path, qrels, lines, [int(w) for w in widths[bad[:5]]],
                                len(bad))
    frame.columns = names
    for col in ("rating",) if qrels else ("rank", "score"):
        converted = pd.to_numeric(frame[col], errors="coerce")
        if not (converted.isna() & (frame[col].str.lower() != "nan")).any():
            frame[col] = converted  # else left as text: the check of numbers names the lines
    # like trec_eval, a run is ordered by its scores and its rank column is ignored
    keep = ["user", "item", "rating"] if qrels else ["user", "item", "score"]
    return _mark(frame[keep].copy(), path, 1)


def _json_rows(path: Path, encoding: str) -> tuple[list[Any], list[int] | None]:
    """The objects of a JSON-lines file and their line numbers, or of a JSON array."""
    import json

    text = _raw_bytes(path).decode(encoding)
    if text.startswith("\ufeff"):
        text = text[1:]
    if text.lstrip().startswith("["):  # a .json file holding one array of objects
        try:
            rows = json.loads(text)
        except ValueError as exc:
            raise SchemaError(
                f"cannot read {str(path)!r}: it starts with '[' but is not one JSON array "
                f"({exc}); receval reads JSON lines (one object per line) or a JSON array "
                f"of objects", examples=[str(path)]) from None
        if not isinstance(rows, list):  # pragma: no cover - '[' starts a list
            rows = [rows]
        return rows, None
    rows, lines = [], []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except ValueError as exc:
            raise SchemaError(
                f"cannot read {str(path)!r} as JSON lines: line {number} is not one JSON "
                f"value ({exc}); each line holds one object such as "
                f'{{"user_id": 1, "item_id": 10, "score": 0.9}}',
                examples=[str(path), f"line {number}"]) from None
        lines.append(number)
    return rows, lines


def _read_jsonl(path: Path, role: str, encoding: str) -> pd.DataFrame:
    """JSON lines (or a JSON array of objects), each value keeping its JSON type.

    A JSON string stays a string and a JSON number a number (``"0042"`` is never 42); a
    column that mixes the two is an object column, which the checks refuse as they refuse
    such a DataFrame column. A key missing from a line is a missing value.
    """
    rows, lines = _json_rows(path, encoding)
    if not rows:
        raise EmptyInputError(
            f"{str(path)!r} is empty: it has no JSON object ({role} needs a user and an item "
            f"column)", parameter=role, examples=[str(path)])
    bad = [i for i, row in enumerate(rows) if not isinstance(row, dict)]
    if bad:
        where = [lines[i] for i in bad[:5]] if lines is not None else bad[:5]
        word = "line" if lines is not None else "element"
        raise SchemaError(
            f"cannot read {str(path)!r}: {word} {where[0]} is a JSON "
            f"{type(rows[bad[0]]).__name__}, not an object; each row of a JSON-lines file "
            f"(or element of a JSON array) is an object such as "
            f'{{"user_id": 1, "item_id": 10, "score": 0.9}}',
            n_bad=len(bad), examples=where)
    names: dict[str, None] = {}
    for row in rows:
        names.update(dict.fromkeys(row))
    frame = pd.DataFrame({name: pd.Series([row.get(name) for row in rows], dtype=_json_dtype(
        [row.get(name) for row in rows])) for name in names})
    if lines is None:
        return _mark(frame, path, None)
    first = lines[0]
    marked = _mark(frame, path, first)
    if lines != list(range(first, first + len(lines))):  # blank lines in between
        marked.attrs["receval_source"]["lines"] = lines
    return marked


def _json_dtype(values: list[Any]) -> Any:
    """The pandas dtype of one JSON column: int64 or float64 for numbers only, else object.

    Strings and numbers mixed stay as they are (an object column), never converted.
    """
    kinds = {type(v) for v in values if v is not None}
    if kinds == {int}:
        if None in values:
            return "float64" if all(abs(v) < 2**53 for v in values if v is not None) \
                else object
        return "int64" if all(-(2**63) <= v < 2**63 for v in values) else object
    if kinds and kinds <= {int, float}:
        return "float64"
    if kinds == {str}:
        return object
    if kinds == {bool}:
        return object if None in values else "bool"
    return object


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
               encoding: str = "utf-8", ids: Sequence[str | None] = ()) -> pd.DataFrame:
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
        Whether a CSV/TSV file has a header row; by default detected from the first row:
        a header names at least one known column such as ``user_id`` or ``item`` (compared
        after stripping spaces and case) or a column in ``ids``, or all its cells are text
        that is not a number and appears nowhere else in its column (``customer,product``;
        the columns are then looked up by name, and a missing one is an error naming it).
    encoding : str
        The text encoding of CSV, TSV, JSON lines and TREC files (default ``"utf-8"``;
        e.g. ``"latin-1"``, ``"cp1252"``). Parquet is always UTF-8. Bytes that are not
        valid in it are an error, never ids read as bytes.
    ids : sequence of str, optional
        Other CSV/TSV columns to read as ids, besides the user and item aliases (the names
        given with ``columns=Columns(user=..., item=...)``).

    Returns
    -------
    pandas.DataFrame
        The rows, with ids as the file wrote them:

        - CSV/TSV: the user and item columns (aliases, ``ids``, the first two columns of a
          file without a header) are read as text, never as dates, booleans or missing
          values (``NA`` and ``null`` are ids; only an empty cell is a missing id). A column
          becomes integers only when every value is the canonical text of an integer that
          fits 64 bits (``-?(0|[1-9][0-9]*)``): ``42`` is 42, but one ``0042``, ``1e3``,
          ``1.0``, ``+5`` or ``2020-01-01`` keeps the whole column as strings. Other
          columns are typed by pyarrow.
        - JSON lines (also ``.json``: one object per line, or one JSON array of objects):
          every value keeps its JSON type (a JSON string stays a string); a column mixing
          numbers and strings stays mixed, which the checks refuse as for a DataFrame.
        - Parquet keeps its schema's types; TREC ids are always text.

    Raises
    ------
    InvalidParameterError
        Unknown format or encoding, or missing file.
    EmptyInputError
        A directory with no data file, or a CSV/TSV/JSON-lines file with nothing in it.
    SchemaError
        The file cannot be parsed, or is not valid text in ``encoding``, or a TREC line
        has more or fewer fields than the format, or a one-column CSV/TSV file seems to use
        another delimiter; the message names the file and the line (and byte offset) or row
        group.
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
            return _read_delimited(p, "," if fmt == "csv" else "\t", role, header, encoding,
                                   tuple(str(i) for i in ids if i is not None))
        if fmt in ("trec_run", "trec_qrels"):
            return _read_trec(p, fmt == "trec_qrels", encoding)
        return _read_jsonl(p, role, encoding)
    except (SchemaError, EmptyInputError):
        raise
    except UnicodeError:
        raise encoding_error(p, encoding, fmt) from None
    except (ValueError, OSError, EOFError, pd.errors.ParserError) as exc:
        raise SchemaError(f"cannot read {str(path)!r} as {fmt}: {exc}",
                          examples=[str(path)]) from exc
