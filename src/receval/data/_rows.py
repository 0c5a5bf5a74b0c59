"""Tables whose rows are split: read the key columns, and take rows back in the input's type.

A split (:mod:`receval.split`) needs three things from its input: the user, item and time
columns as arrays, and a way to take rows of the *original* table by position, so that the
parts keep every column, its dtype and (for pandas) the index. This module is the only place
where that depends on the frame library:

- pandas ``DataFrame``: rows are taken with ``iloc`` (index labels kept);
- polars ``DataFrame`` / ``LazyFrame`` (collected): polars ``DataFrame`` parts;
- pyarrow ``Table`` / ``RecordBatch`` / ``RecordBatchReader``: pyarrow ``Table`` parts;
- anything else receval reads (file paths, dicts, objects with ``__arrow_c_stream__``):
  read as for ``evaluate`` into a pandas DataFrame, and split as one.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from receval.data._adapters import _is_polars
from receval.data._arrow import arrow_to_pandas as _arrow_to_pandas
from receval.data._encode import _check_kind, _encode_dense_ints
from receval.data._table import _ids
from receval.exceptions import InvalidParameterError, NonFiniteValueError, SchemaError

__all__ = ["RowSource", "id_codes", "time_point", "time_values"]


@dataclass(frozen=True)
class RowSource:
    """An input table, held so that its rows can be taken by position in its own type.

    Attributes
    ----------
    kind : {"pandas", "polars", "pyarrow"}
        The frame type of the parts.
    table : object
        The table (a shallow, copy-on-write copy for pandas; polars and Arrow are immutable).
    names : list of str
        Its column names.
    """

    kind: str
    table: Any
    names: list[str]

    @classmethod
    def of(cls, data: Any) -> RowSource:
        """Hold ``data``; inputs other than the three frame types are read into pandas."""
        if isinstance(data, pd.DataFrame):
            if data.columns.duplicated().any():
                dup = sorted({str(c) for c in data.columns[data.columns.duplicated()]})
                raise SchemaError(f"data: repeated column names {dup}; each column needs its "
                                  f"own name", column=dup[0], examples=dup)
            return cls("pandas", data.copy(deep=False), [str(c) for c in data.columns])
        if _is_polars(data) and type(data).__name__ in ("DataFrame", "LazyFrame"):
            # (a Series: to_frame says why not; a LazyFrame's .columns would resolve its
            # schema with a PerformanceWarning, so it is collected first)
            if type(data).__name__ == "LazyFrame":
                data = data.collect()
            return cls("polars", data, [str(c) for c in data.columns])
        if type(data).__module__.split(".")[0] == "pyarrow":
            import pyarrow as pa

            if isinstance(data, pa.RecordBatchReader):
                data = data.read_all()
            if isinstance(data, pa.RecordBatch):
                data = pa.Table.from_batches([data])
            if isinstance(data, pa.Table):
                return cls("pyarrow", data, list(data.column_names))
        if isinstance(data, (str, os.PathLike, Mapping)) or hasattr(data, "__arrow_c_stream__"):
            from receval.data._adapters import to_frame

            return cls.of(to_frame(data, "truth", name="data"))
        raise InvalidParameterError(
            f"data must be a table: a pandas or polars DataFrame, a pyarrow Table, an object "
            f"with __arrow_c_stream__ (e.g. a DuckDB relation), a dict of dicts or a file "
            f"path; got {type(data).__module__}.{type(data).__name__}", parameter="data")

    def __len__(self) -> int:
        if self.kind == "pyarrow":
            return int(self.table.num_rows)
        return len(self.table)

    def columns(self, names: list[str]) -> pd.DataFrame:
        """The columns ``names`` as a pandas DataFrame (strings Arrow-backed, no copy of others)."""
        if self.kind == "pandas":
            return self.table[names]
        if self.kind == "polars":
            return _arrow_to_pandas(self.table.select(names).to_arrow())
        return _arrow_to_pandas(self.table.select(names))

    def take(self, rows: np.ndarray) -> Any:
        """The rows at positions ``rows`` (in that order), in the table's own type."""
        rows = np.asarray(rows, dtype=np.int64)
        if self.kind == "pandas":
            return self.table.iloc[rows]
        if self.kind == "polars":
            return self.table[rows]
        return self.table.take(rows)


def id_codes(frame: pd.DataFrame, column: str, role: str) -> tuple[np.ndarray, pd.Index]:
    """Dense codes ``0..n-1`` of the ids in ``frame[column]``, in sorted id order.

    Never hashed: integer ids through a presence table, others by a sorting factorize.

    Returns
    -------
    codes : ndarray of int32 or int64
        The code of each row.
    uniques : pandas.Index
        The distinct ids, sorted: ``uniques[code]`` is the id.

    Raises
    ------
    NonFiniteValueError
        A missing id.
    IdTypeMismatchError
        A column that mixes id types (``1`` and ``'1'``).
    """
    s = _ids(frame, column, "data", role)
    kind = _check_kind(s, role, "data", column)
    if kind == "integer" and len(s):
        dense = _encode_dense_ints(s, s.iloc[:0])
        if dense is not None:
            return dense[0], dense[2]
    if isinstance(s.dtype, pd.CategoricalDtype):
        s = s.astype(s.dtype.categories.dtype)
    codes, uniques = pd.factorize(s, sort=True)
    return codes.astype(np.int32 if len(uniques) < 2**31 else np.int64, copy=False), \
        pd.Index(uniques)


def _is_datetime(dtype: Any) -> bool:
    return bool(pd.api.types.is_datetime64_any_dtype(dtype))


def time_values(s: pd.Series, column: str) -> tuple[np.ndarray, str]:
    """The timestamps as numbers that order like the times.

    Returns
    -------
    values : ndarray of int64 or float64
        Datetime columns: nanoseconds since the epoch (UTC for zone-aware columns); integer
        columns: their int64 values; other numeric columns: float64.
    kind : {"datetime", "number"}
        Which of the two the column is (:func:`time_point` converts ``at=`` the same way).

    Raises
    ------
    SchemaError
        A column that is neither numeric nor datetime.
    NonFiniteValueError
        Missing (NaN / NaT / null) timestamps.
    """
    dtype = s.dtype
    if _is_datetime(dtype):
        missing = s.isna().to_numpy()
        if isinstance(dtype, pd.ArrowDtype):
            import pyarrow as pa
            import pyarrow.compute as pc

            arr = pc.cast(pa.array(s.array), pa.timestamp("ns", tz=dtype.pyarrow_dtype.tz))
            values = pc.cast(arr, pa.int64()).to_numpy(zero_copy_only=False)
        else:
            if isinstance(dtype, pd.DatetimeTZDtype):
                s = s.dt.tz_convert("UTC").dt.tz_localize(None)
            values = s.to_numpy().astype("datetime64[ns]").view(np.int64)
        kind = "datetime"
    elif (pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)
          and not pd.api.types.is_complex_dtype(dtype)):
        missing = s.isna().to_numpy()
        integer = pd.api.types.is_integer_dtype(dtype)
        target = np.int64 if integer else np.float64
        values = s.to_numpy(dtype=target, na_value=0 if integer else np.nan)
        kind = "number"
    else:
        raise SchemaError(
            f"data: the timestamp column {column!r} must hold numbers (an epoch time in any "
            f"unit) or datetimes, got dtype {dtype}; parse it first, e.g. with "
            f"pandas.to_datetime", column=column, examples=[str(dtype)])
    if missing.any():
        bad = np.flatnonzero(missing)
        raise NonFiniteValueError(
            f"data: the timestamp column {column!r} has {len(bad)} missing values (rows "
            f"{bad[:5].tolist()}); a row without a time has no side of a temporal cut: drop "
            f"or fill those rows first", column=column, n_bad=len(bad),
            examples=bad[:5].tolist())
    return np.ascontiguousarray(values), kind


def time_point(at: Any, s: pd.Series, column: str, values: np.ndarray, *,
               parameter: str = "at") -> float | int:
    """``at`` in the units of :func:`time_values` of column ``s``.

    A datetime column takes a string, a ``datetime`` or a ``pandas.Timestamp`` (zone-aware
    exactly when the column is); an epoch column takes a number in its own unit. For an
    integer column a fractional ``at`` is rounded up, so ``t >= at`` keeps its meaning.
    ``parameter`` is the name the messages give ``at`` (``"start"`` for a rolling split).
    """
    dtype = s.dtype
    if _is_datetime(dtype):
        if isinstance(at, (int, float, np.number)) and not isinstance(at, bool):
            raise InvalidParameterError(
                f"{parameter}={at!r} is a number, but the timestamp column {column!r} holds "
                f"datetimes ({dtype}): pass a date string such as '2024-06-01' or a datetime",
                parameter=parameter, examples=[at])
        try:
            ts = pd.Timestamp(at)
        except (TypeError, ValueError) as exc:
            raise InvalidParameterError(f"{parameter}={at!r} is not a date or time ({exc})",
                                        parameter=parameter, examples=[at]) from exc
        if ts is pd.NaT:
            raise InvalidParameterError(f"{parameter}={at!r} is not a date or time (NaT)",
                                        parameter=parameter, examples=[at])
        col_tz = getattr(dtype, "tz", None)
        if isinstance(dtype, pd.ArrowDtype):
            col_tz = dtype.pyarrow_dtype.tz
        if (col_tz is None) != (ts.tz is None):
            raise InvalidParameterError(
                f"{parameter}={at!r} is {'zone-aware' if ts.tz is not None else 'naive'} but "
                f"the timestamp column {column!r} is "
                f"{'in time zone ' + str(col_tz) if col_tz is not None else 'naive'} ({dtype})"
                f": give {parameter}= "
                f"{'a time zone' if col_tz is not None else 'no time zone'}",
                parameter=parameter, examples=[at])
        if ts.tz is not None:
            ts = ts.tz_convert("UTC").tz_localize(None)
        return int(ts.as_unit("ns").value)
    if isinstance(at, bool) or not isinstance(at, (int, float, np.integer, np.floating)):
        raise InvalidParameterError(
            f"{parameter}={at!r}: the timestamp column {column!r} holds numbers ({dtype}), so "
            f"{parameter}= must be a number in the column's unit", parameter=parameter,
            examples=[at])
    if math.isnan(float(at)):
        raise InvalidParameterError(f"{parameter}= is NaN", parameter=parameter, examples=[at])
    if values.dtype == np.int64 and not isinstance(at, (int, np.integer)):
        if math.isinf(float(at)):
            return float(at)
        return math.ceil(float(at))
    return at.item() if isinstance(at, np.generic) else at
