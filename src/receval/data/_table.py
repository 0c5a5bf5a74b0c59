"""The one in-memory form every input takes before validation: named numpy / pandas columns.

Readers of other formats (polars, Arrow, files, dicts) only have to produce a pandas
DataFrame or an :class:`InputTable`; everything after this module is format-agnostic.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from receval._columns import Columns
from receval.exceptions import ColumnNotFoundError, NonFiniteValueError, SchemaError

__all__ = ["InputTable", "recs_table", "roles_of", "truth_table", "unused_note"]


@dataclass(frozen=True)
class InputTable:
    """Columns of one input table, by role.

    Attributes
    ----------
    name : str
        ``"recs"`` or ``"truth"``, used in messages.
    user, item : pandas.Series
        The ids, as given (never cast).
    score, rank, rating : numpy.ndarray of float64, or None
        The numeric columns that are present.
    columns : dict
        Role -> original column name, for messages.
    unused : tuple of str
        Numeric columns that no role reads while the table has no value column (recs with
        neither a score nor a rank, truth with no grade): see :func:`unused_note`.
    """

    name: str
    user: pd.Series
    item: pd.Series
    score: np.ndarray | None
    rank: np.ndarray | None
    rating: np.ndarray | None
    columns: dict[str, str]
    unused: tuple[str, ...] = ()

    def __len__(self) -> int:
        return len(self.user)


def _as_frame(data: Any, name: str, columns: Columns | None = None) -> pd.DataFrame:
    """``data`` as a DataFrame; a file's id columns named in ``columns`` are read as ids."""
    from receval.data._adapters import to_frame

    ids = () if columns is None else tuple(
        n for n in (columns.named("user", name), columns.named("item", name)) if n is not None)
    frame = to_frame(data, name, ids=ids)
    if frame.columns.duplicated().any():
        dup = sorted({str(c) for c in frame.columns[frame.columns.duplicated()]})
        raise SchemaError(f"{name}: repeated column names {dup}; each column needs its own "
                          f"name", column=dup[0], examples=dup)
    return frame


def _where(frame: pd.DataFrame, rows: np.ndarray) -> str:
    """``rows [3, 7]``, or ``lines [5, 9] of 'file.csv'`` for a table read from a text file."""
    source = frame.attrs.get("receval_source")
    shown = rows[:5].tolist()
    if source is None:
        return f"rows {shown}"
    if source.get("first_line") is None:
        return f"rows {shown} of {source['path']!r}"
    numbers = source.get("lines")  # a file with blank lines in between
    lines = ([numbers[r] for r in shown] if numbers is not None
             else [r + source["first_line"] for r in shown])
    more = f" (lines {lines})" if len(rows) > 1 else ""
    return f"{source['path']!r}, line {lines[0]}{more}"


def _numeric(frame: pd.DataFrame, col: str, table: str, role: str) -> np.ndarray:
    s = frame[col]
    if len(s) == 0:
        return np.empty(0, dtype=np.float64)
    dtype = s.dtype
    ok = (pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)
          and not pd.api.types.is_complex_dtype(dtype))
    if not ok:
        bad = np.empty(0, dtype=np.int64)
        if not pd.api.types.is_complex_dtype(dtype):
            cells = s.astype(object)
            coerced = pd.to_numeric(cells, errors="coerce")
            bad = np.flatnonzero(coerced.isna().to_numpy() & s.notna().to_numpy())
            if not len(bad):  # numbers written as text among numbers (a JSON "0.8")
                bad = np.flatnonzero(cells.map(lambda v: isinstance(v, (str, bytes, bool))
                                                ).to_numpy(dtype=bool))
        where = f"; non-numeric values at {_where(frame, bad)}, e.g. " \
            f"{s.iloc[bad[:3]].tolist()}" if len(bad) else ""
        raise SchemaError(
            f"{table}: the {role} column {col!r} must be numeric (real numbers), got dtype "
            f"{dtype}{where}",
            column=col, n_bad=len(bad) or None, examples=bad[:5].tolist())
    # numpy-backed columns convert without a copy (NaN is their only missing value);
    # nullable and Arrow-backed ones map <NA> to NaN
    values = (s.to_numpy(dtype=np.float64) if isinstance(dtype, np.dtype)
              else s.to_numpy(dtype=np.float64, na_value=np.nan))
    missing = np.isnan(values)
    if missing.any():
        bad = np.flatnonzero(missing)
        raise NonFiniteValueError(
            f"{table}: the {role} column {col!r} has {len(bad)} missing or NaN values "
            f"({_where(frame, bad)}); NaN has no place in an order or an error sum: drop or "
            f"fill those rows first", column=col, n_bad=len(bad), examples=bad[:5].tolist())
    return values


def _ids(frame: pd.DataFrame, col: str, table: str, role: str) -> pd.Series:
    s = frame[col]
    isna = s.isna().to_numpy()
    if isna.any():
        bad = np.flatnonzero(isna)
        raise NonFiniteValueError(
            f"{table}: the {role} id column {col!r} has {len(bad)} missing values "
            f"({_where(frame, bad)})", column=col, n_bad=len(bad), examples=bad[:5].tolist())
    return s.reset_index(drop=True)


def _ids_of(data: Any, table: str, columns: Columns
            ) -> tuple[pd.DataFrame, list[str], str, str]:
    """The table as a frame, its column names, and its user and item columns.

    Every other column named for ``table`` must exist too (it is never silently ignored).
    """
    frame = _as_frame(data, table, columns)
    avail = [str(c) for c in frame.columns]
    with _header_hint(frame):
        user = columns.require("user", avail, table=table)
        item = columns.require("item", avail, table=table)
        columns.check_named(avail, table=table, reads=("user", "item"))
    return frame, avail, user, item


@contextmanager
def _header_hint(frame: pd.DataFrame) -> Iterator[None]:
    """A missing column of a file whose header was guessed: say why the first line is one."""
    try:
        yield
    except ColumnNotFoundError as exc:
        source = frame.attrs.get("receval_source") or {}
        if source.get("header") != "guessed":
            raise
        raise ColumnNotFoundError(
            f"{exc.message}. The first line of {source['path']!r} was read as a header: its "
            f"cells are text, not numbers, and appear nowhere else in their columns; if it "
            f"is data, add a header row (e.g. user_id,item_id)",
            column=exc.column, examples=exc.examples) from None


_NOT_VALUES = ("user", "item", "timestamp")


def _unused_numeric(frame: pd.DataFrame, cols: dict[str, str]) -> tuple[str, ...]:
    """Numeric columns that no role reads (ids and timestamp aliases aside)."""
    from receval._columns import ALIASES

    skip = set(cols.values()) | {a.lower() for role in _NOT_VALUES for a in ALIASES[role]}
    out = []
    for name in frame.columns:
        dtype = frame[name].dtype
        if (str(name) not in skip and str(name).strip().lower() not in skip
                and pd.api.types.is_numeric_dtype(dtype)
                and not pd.api.types.is_bool_dtype(dtype)):
            out.append(str(name))
    return tuple(out)


def unused_note(table: InputTable) -> str | None:
    """The warning for a table whose value column seems unnamed, or None.

    recs with neither a score nor a rank column are taken as already ranked (row order);
    truth with no grade column counts every row as relevant. When such a table has other
    numeric columns, the value is probably in one of them under a name that is not an alias.
    The text holds ``{n}`` and ``{examples}`` (the columns), as notes do.
    """
    if not table.unused:
        return None
    if table.name == "recs":
        return ("recs has no score or rank column, so each user's rows are taken as already "
                "ranked (in row order), but it has numeric columns that no role reads: "
                "{examples}; "
                "if one holds the scores, name it with columns=Columns(score=...) (the CLI's "
                "--score-col; or rank=... / --rank-col for ranks)")
    return ("truth has no grade (rating) column, so every truth row counts as relevant, but "
            "it has numeric columns that no role reads: {examples}; if one holds the grades, "
            "name it "
            "with columns=Columns(rating=...) (the CLI's --rating-col)")


def roles_of(avail: list[str], table: str, columns: Columns) -> dict[str, str]:
    """The column of each role that ``table`` (``"recs"`` or ``"truth"``) has.

    recs: user, item, and a score, a rank, both or neither (when ``columns`` names only one
    of score and rank, the other is not looked up); truth: user, item and an optional rating.
    A column named for a role the table reads, or for the table itself, must exist.
    """
    cols = {"user": columns.require("user", avail, table=table),
            "item": columns.require("item", avail, table=table)}
    optional = ("score", "rank") if table == "recs" else ("rating",)
    named = [role for role in optional if columns.named(role, table) is not None]
    for role in optional:
        if named and role not in named:  # the other of score and rank is named: not looked up
            continue
        name = columns.resolve(role, avail, table=table, required=False)
        if name is not None:
            cols[role] = name
    columns.check_named(avail, table=table, reads=("user", "item", *optional))
    return cols


def recs_table(data: Any, columns: Columns) -> InputTable:
    """Read the recommendations: user, item, and a score, a rank, or neither (input order).

    When ``columns`` names only one of score and rank, the other is not looked up.
    """
    frame = _as_frame(data, "recs", columns)
    with _header_hint(frame):
        cols = roles_of([str(c) for c in frame.columns], "recs", columns)
    ucol, icol = cols["user"], cols["item"]
    scol, rcol = cols.get("score"), cols.get("rank")
    score = rank = None
    if scol is not None:
        score = _numeric(frame, scol, "recs", "score")
    if rcol is not None:
        rank = _numeric(frame, rcol, "recs", "rank")
        if np.isinf(rank).any():
            bad = np.flatnonzero(np.isinf(rank))
            raise NonFiniteValueError(
                f"recs: the rank column {rcol!r} has {len(bad)} infinite values "
                f"({_where(frame, bad)})", column=rcol, n_bad=len(bad),
                examples=bad[:5].tolist())
    unused = _unused_numeric(frame, cols) if scol is None and rcol is None else ()
    return InputTable("recs", _ids(frame, ucol, "recs", "user"), _ids(frame, icol, "recs", "item"),
                      score, rank, None, cols, unused)


def truth_table(data: Any, columns: Columns) -> InputTable:
    """Read the ground truth: user, item and an optional grade (rating / relevance)."""
    frame = _as_frame(data, "truth", columns)
    with _header_hint(frame):
        cols = roles_of([str(c) for c in frame.columns], "truth", columns)
    ucol, icol, gcol = cols["user"], cols["item"], cols.get("rating")
    rating = None
    if gcol is not None:
        rating = _numeric(frame, gcol, "truth", "rating")
        if np.isinf(rating).any():
            bad = np.flatnonzero(np.isinf(rating))
            raise NonFiniteValueError(
                f"truth: the rating column {gcol!r} has {len(bad)} infinite values "
                f"({_where(frame, bad)})", column=gcol, n_bad=len(bad),
                examples=bad[:5].tolist())
    unused = _unused_numeric(frame, cols) if gcol is None else ()
    return InputTable("truth", _ids(frame, ucol, "truth", "user"),
                      _ids(frame, icol, "truth", "item"), None, None, rating, cols, unused)
