"""What the commands write: every output path checked before any work, all written or none.

Each command that writes files (``evaluate --per-user/--report``, ``compare --report``,
``report -o``, ``cv --report``, ``split -o/--dropped``) calls :func:`check_paths` before it
reads any data: a path in a missing directory, on a directory or under a file, a path that is
an input or another output, or a table path whose extension names no format is an
:class:`~receval.exceptions.OutputPathError`. Then :func:`staged` gives each output a
temporary file beside it, and renames them all only when every one was written: an error
half-way leaves no partial output behind.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from receval._paths import atomic_write, check_outputs
from receval.exceptions import BackendUnavailableError, OutputPathError

__all__ = ["TABLE_FORMATS", "check_paths", "staged", "table_format", "write_table"]

#: Extension -> format of the tables the commands write (before any compression suffix).
TABLE_FORMATS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".parquet": "parquet",
                 ".pq": "parquet", ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "jsonl",
                 ".xlsx": "xlsx"}
_COMPRESSION = {".gz": "gzip", ".bz2": "bz2", ".xz": "xz", ".zst": "zstd", ".zip": "zip"}


def _split_name(path: Path) -> tuple[str, str | None]:
    name = path.name.lower()
    for suffix, codec in _COMPRESSION.items():
        if name.endswith(suffix):
            return name.removesuffix(suffix), codec
    return name, None


def table_format(path: Path, parameter: str) -> str:
    """The format of a table output, from its extension; unknown ones are an error.

    Raises
    ------
    OutputPathError
        No known extension (the message lists them), a compressed Parquet or Excel name, or
        ``.xlsx`` without openpyxl installed.
    """
    name, codec = _split_name(path)
    fmt = next((f for ext, f in TABLE_FORMATS.items() if name.endswith(ext)), None)
    known = ", ".join(TABLE_FORMATS)
    if fmt is None:
        raise OutputPathError(
            f"{parameter}: cannot tell the format of {str(path)!r} from its extension; end its "
            f"name in one of {known} (text formats optionally compressed, e.g. .csv.gz)",
            parameter=parameter, examples=[str(path)])
    if codec is not None and fmt in ("parquet", "xlsx"):
        raise OutputPathError(
            f"{parameter}: {str(path)!r}: {fmt} files are compressed inside; drop the "
            f"{codec} suffix", parameter=parameter, examples=[str(path)])
    if fmt == "xlsx":
        try:
            import openpyxl  # type: ignore[import-untyped]  # noqa: F401
        except ImportError:
            raise BackendUnavailableError(
                f"{parameter}: writing {str(path)!r} as an Excel file needs openpyxl (pip "
                f"install 'receval[excel]'); or give a .csv, .tsv, .parquet or .jsonl name",
                parameter=parameter, examples=[str(path)]) from None
    return fmt


def write_table(frame: Any, path: Path, fmt: str, *, target: Path | None = None) -> None:
    """Write a pandas DataFrame (no index) to ``path`` in ``fmt``.

    ``target`` is the name the file will have (its compression suffix decides the
    compression when ``path`` is a temporary file).
    """
    _, codec = _split_name(target or path)
    if fmt == "parquet":
        frame.to_parquet(path, index=False)
    elif fmt == "xlsx":
        frame.to_excel(path, index=False, engine="openpyxl")
    elif fmt == "jsonl":
        frame.to_json(path, orient="records", lines=True, date_format="iso",
                      compression=codec)
    else:
        frame.to_csv(path, sep="\t" if fmt == "tsv" else ",", index=False, compression=codec)


def check_paths(outputs: Mapping[str, Path | None], inputs: Mapping[str, Any],
                tables: tuple[str, ...] = ()) -> dict[str, Path]:
    """Check every output path before any work (see the module); return the ones given.

    ``tables`` are the parameters whose paths are tables (their extension must name a
    format).
    """
    checked = check_outputs(outputs, inputs=inputs)
    for parameter in tables:
        if parameter in checked:
            table_format(checked[parameter], parameter)
    return checked


@contextlib.contextmanager
def staged(paths: list[Path]) -> Iterator[dict[Path, Path]]:
    """A temporary file for each of ``paths``; all renamed onto them only on success."""
    with contextlib.ExitStack() as stack:
        yield {path: stack.enter_context(atomic_write(path)) for path in paths}
