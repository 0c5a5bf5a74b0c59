"""The common front end of every splitter: read the key columns once, check the parameters."""

from __future__ import annotations

import contextlib
import numbers
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from receval._columns import Columns
from receval._kernels._jit import readonly
from receval._kernels.grouping import counting_order
from receval.data._rows import RowSource, id_codes, time_values
from receval.exceptions import ColumnNotFoundError, EmptyInputError, InvalidParameterError

__all__ = ["SplitInput", "check_choice", "check_test_size", "global_counts",
           "n_test_of",
           "read_input", "resolve_columns"]


@dataclass(frozen=True)
class SplitInput:
    """The input of a split, encoded.

    Attributes
    ----------
    source : RowSource
        The table, to take the parts from.
    user, item : ndarray of int
        Dense codes of each row's user and item (sorted id order).
    user_ids, item_ids : pandas.Index
        ``user_ids[code]`` is the user id (for messages).
    ts : ndarray of int64 or float64, or None
        The time of each row (nanoseconds since the epoch for datetime columns).
    ts_kind : {"datetime", "number"} or None
        What ``ts`` holds.
    ts_series : pandas.Series or None
        The timestamp column as read (to convert ``at=`` into its unit).
    columns : dict of str to str or None
        The columns used for each role.
    """

    source: RowSource
    user: np.ndarray
    item: np.ndarray
    user_ids: pd.Index
    item_ids: pd.Index
    ts: np.ndarray | None
    ts_kind: str | None
    ts_series: pd.Series | None
    columns: dict[str, str | None]

    @property
    def n(self) -> int:
        """Number of rows."""
        return len(self.user)

    @cached_property
    def groups(self) -> tuple[np.ndarray, np.ndarray]:
        """Rows grouped by user, stably (``order``, ``bounds``): O(n) counting sort, once."""
        return counting_order(self.user, len(self.user_ids))

    def time_label(self, value: int | float) -> Any:
        """A time of ``ts`` as the user reads it (a Timestamp for datetime columns)."""
        if self.ts_kind == "datetime":
            ts = pd.Timestamp(int(value), unit="ns")
            tz = getattr(self.ts_series.dtype, "tz", None) if self.ts_series is not None \
                else None
            return ts.tz_localize("UTC").tz_convert(tz) if tz is not None else ts
        return value.item() if isinstance(value, np.generic) else value


def read_input(data: Any, columns: Columns | dict[str, str] | None, *, need_time: str | None
               ) -> SplitInput:
    """Read and encode the user, item and (optional) timestamp columns of ``data``.

    Parameters
    ----------
    data : table
        Any input receval reads.
    columns : Columns, dict or None
        Column names by role, as for :func:`receval.evaluate`.
    need_time : str or None
        When set, the reason a timestamp column is required (for the error message).

    Raises
    ------
    ColumnNotFoundError
        No user or item column, or no timestamp column when ``need_time`` is set.
    EmptyInputError
        An empty table.
    """
    source = RowSource.of(data)
    names = resolve_columns(source.names, columns, need_time)
    ucol, icol, tcol = names["user"], names["item"], names["timestamp"]
    assert ucol is not None
    assert icol is not None
    if len(source) == 0:
        raise EmptyInputError("data is empty: there are no rows to split", parameter="data")
    frame = source.columns(list(dict.fromkeys(c for c in (ucol, icol, tcol) if c)))
    user, user_ids = id_codes(frame, ucol, "user")
    item, item_ids = id_codes(frame, icol, "item")
    ts = kind = series = None
    if tcol is not None:
        series = frame[tcol]
        ts, kind = time_values(series, tcol)
        ts = readonly(ts)  # Arrow columns are read-only: one compiled version of each kernel
    return SplitInput(source, user, item, user_ids, item_ids, ts, kind, series, names)


def resolve_columns(names: list[str], columns: Columns | dict[str, str] | None,
                    need_time: str | None) -> dict[str, str | None]:
    """The user, item and (optional) timestamp columns among ``names``.

    Raises
    ------
    ColumnNotFoundError
        No user or item column, or no timestamp column when ``need_time`` (the reason one
        is needed) is set.
    """
    cols = Columns.coerce(columns)
    ucol = cols.require("user", names, table="data")
    icol = cols.require("item", names, table="data")
    tcol: str | None = None
    if need_time is not None:
        try:
            tcol = cols.require("timestamp", names, table="data")
        except ColumnNotFoundError as exc:
            raise ColumnNotFoundError(f"{need_time} needs a timestamp column: {exc}",
                                      column=exc.column, examples=exc.examples) from exc
    elif cols.named("timestamp", "data") is not None:  # named: it must exist
        tcol = cols.require("timestamp", names, table="data")
    else:  # several candidates and none needed: no timestamp
        with contextlib.suppress(ColumnNotFoundError):
            tcol = cols.resolve("timestamp", names, table="data", required=False)
    cols.check_named(names, table="data", reads=("user", "item", "timestamp"))
    return {"user": ucol, "item": icol, "timestamp": tcol}


def check_test_size(test_size: Any) -> float:
    """A share strictly between 0 and 1."""
    ok = isinstance(test_size, numbers.Real) and not isinstance(test_size, bool)
    if not ok or not 0.0 < float(test_size) < 1.0:
        raise InvalidParameterError(
            f"test_size must be a share strictly between 0 and 1 (0.2 holds out 20 % of the "
            f"rows), got {test_size!r}", parameter="test_size", examples=[test_size])
    return float(test_size)


def check_choice(parameter: str, value: Any, options: tuple[str, ...]) -> str:
    """One of ``options``."""
    if not isinstance(value, str) or value not in options:
        raise InvalidParameterError(f"{parameter} must be one of {list(options)}, got {value!r}",
                                    parameter=parameter, examples=[value])
    return value


def check_count(parameter: str, value: Any, low: int, rule: str) -> int:
    """An integer >= ``low``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < low:
        raise InvalidParameterError(f"{parameter} must be an integer {rule}, got {value!r}",
                                    parameter=parameter, examples=[value])
    return int(value)


def n_test_of(test_size: float, n: np.ndarray | int) -> Any:
    """Test rows of a share: ``floor(test_size * n + 1/2)`` (round half up).

    Always between ``floor(test_size * n)`` and ``ceil(test_size * n)``.
    """
    return np.floor(test_size * np.asarray(n, dtype=np.float64) + 0.5).astype(np.int64)


def global_counts(n: int, test_size: float) -> int:
    """Test rows of a share over all ``n`` rows; an error if a part would be empty."""
    n_test = int(n_test_of(test_size, n))
    if n_test < 1 or n_test > n - 1:
        raise EmptyInputError(
            f"test_size={test_size} of {n} rows gives {n_test} test rows and {n - n_test} "
            f"training rows (floor(test_size * n + 1/2)); both parts need a row",
            parameter="test_size", examples=[test_size])
    return n_test
