"""The timestamp column of a Spark split: its order key, ``at=``, and times as the user reads them.

Spark's time types are read as :func:`receval.data._rows.time_values` reads what
``toPandas()`` gives for them, so that cuts and comparisons agree with the in-memory split:

- integer columns: their values (a ``long`` key);
- ``float`` / ``double`` columns: their values as doubles;
- ``timestamp`` (an instant, shown in the session time zone): microseconds since the epoch,
  ``unix_micros``; ``toPandas()`` gives the session time zone's wall-clock time, which orders
  the same unless the data straddles a daylight-saving fold;
- ``timestamp_ntz`` (a wall-clock time): microseconds from ``1970-01-01 00:00:00``.

Any other type is a :class:`~receval.exceptions.SchemaError`, as it is in memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from receval.data._rows import time_point
from receval.exceptions import InvalidParameterError, NonFiniteValueError, SchemaError

__all__ = ["TimeKey", "quoted"]

_INTEGER = ("byte", "short", "integer", "long")
_FLOAT = ("float", "double")


def quoted(name: str) -> Any:
    """The Spark column ``name``, quoted (any character allowed)."""
    from pyspark.sql import functions as F

    return F.col("`" + name.replace("`", "``") + "`")


@dataclass(frozen=True)
class TimeKey:
    """The timestamp column of a split, and what the validation job learnt about it.

    Attributes
    ----------
    column : str
        Its name.
    kind : {"integer", "float", "timestamp", "timestamp_ntz"}
        How it is read.
    time_zone : str
        The session time zone (labels of ``timestamp`` columns, naive ``at=``).
    lo, hi : int or float or None
        The smallest and largest (finite) key, once counted.
    n_neg_inf, n_pos_inf : int
        Rows at minus and plus infinity (``float`` columns).
    """

    column: str
    kind: str
    time_zone: str
    lo: Any = None
    hi: Any = None
    n_neg_inf: int = 0
    n_pos_inf: int = 0

    @classmethod
    def of(cls, field: Any, time_zone: str) -> TimeKey:
        """The key of the Spark ``StructField`` ``field``; other types raise."""
        name = field.dataType.typeName()
        if name in _INTEGER:
            return cls(field.name, "integer", time_zone)
        if name in _FLOAT:
            return cls(field.name, "float", time_zone)
        if name in ("timestamp", "timestamp_ntz"):
            return cls(field.name, name, time_zone)
        raise SchemaError(
            f"data: the timestamp column {field.name!r} must hold numbers (an epoch time in any "
            f"unit) or datetimes, got Spark type {field.dataType.simpleString()}; parse it "
            f"first, e.g. with pyspark.sql.functions.to_timestamp", column=field.name,
            examples=[field.dataType.simpleString()])

    @property
    def double(self) -> bool:
        """Whether the key is a double (else a long)."""
        return self.kind == "float"

    def key(self) -> Any:
        """The order key: a long (microseconds for timestamps) or a double."""
        from pyspark.sql import functions as F

        col = quoted(self.column)
        if self.kind == "integer":
            return col.cast("long")
        if self.kind == "float":
            return col.cast("double")
        if self.kind == "timestamp":
            return F.unix_micros(col)
        name = "`" + self.column.replace("`", "``") + "`"
        return F.expr(f"timestampdiff(MICROSECOND, TIMESTAMP_NTZ'1970-01-01 00:00:00', {name})")

    def checks(self) -> list[Any]:
        """Aggregates of the validation job: missing times, and the key's range."""
        from pyspark.sql import functions as F

        col, key = quoted(self.column), self.key()
        missing = col.isNull() | F.isnan(col) if self.double else col.isNull()
        finite = key
        if self.double:
            finite = F.when(~key.isin(float("inf"), float("-inf")), key)
        return [F.count(F.when(missing, 1)).alias("t_missing"), F.min(finite).alias("t_lo"),
                F.max(finite).alias("t_hi"),
                F.count(F.when(key == F.lit(float("-inf")), 1)).alias("t_neg_inf")
                if self.double else F.lit(0).alias("t_neg_inf"),
                F.count(F.when(key == F.lit(float("inf")), 1)).alias("t_pos_inf")
                if self.double else F.lit(0).alias("t_pos_inf")]

    def checked(self, row: Any) -> TimeKey:
        """The key with the range of the validation job's ``row``; missing times raise."""
        if row["t_missing"]:
            raise NonFiniteValueError(
                f"data: the timestamp column {self.column!r} has {row['t_missing']} missing "
                f"values (null or NaN); a row without a time has no side of a temporal cut: "
                f"drop or fill those rows first", column=self.column, n_bad=row["t_missing"])
        return TimeKey(self.column, self.kind, self.time_zone, row["t_lo"], row["t_hi"],
                       int(row["t_neg_inf"]), int(row["t_pos_inf"]))

    def label(self, value: Any) -> Any:
        """A key as the in-memory report shows the time of ``toPandas()``'s column."""
        if self.kind == "integer":
            return int(value)
        if self.kind == "float":
            return float(value)
        ts = pd.Timestamp(int(value), unit="us")
        return self._wall(ts) if self.kind == "timestamp" else ts

    def _wall(self, utc: pd.Timestamp) -> pd.Timestamp:
        """A UTC instant as a naive wall-clock time of the session time zone."""
        try:
            return utc.tz_localize("UTC").tz_convert(self.time_zone).tz_localize(None)
        except (TypeError, ValueError, KeyError):  # a zone pandas does not know: keep UTC
            return utc.tz_localize("UTC")

    def at(self, at: Any) -> tuple[Any, Any]:
        """The test condition ``time >= at`` and the label of ``at`` (the cut time).

        Integer and float columns take a number in their unit, as in memory. ``timestamp``
        columns take a naive time (in the session time zone, as Spark reads it) or a
        zone-aware one; ``timestamp_ntz`` columns a naive time.
        """
        from pyspark.sql import functions as F

        key = self.key()
        if self.kind in ("integer", "float"):
            dtype = np.int64 if self.kind == "integer" else np.float64
            point = time_point(at, pd.Series([], dtype=dtype), self.column,
                               np.empty(0, dtype=dtype))
            if self.kind == "float":
                return key >= F.lit(float(point)), point
            if isinstance(point, float) or not -(2**63) <= point < 2**63:
                return F.lit(bool(point < 0)), point  # beyond every long
            return key >= F.lit(point), point
        aware = self.kind == "timestamp" and _is_aware(at)
        series = pd.Series([], dtype="datetime64[ns, UTC]" if aware else "datetime64[ns]")
        point = time_point(at, series, self.column, np.empty(0, np.int64))
        label = pd.Timestamp(int(point), unit="ns")
        instant = int(point)
        if aware:
            label = self._wall(label)
        elif self.kind == "timestamp":
            instant = _localized(label, self.time_zone, at)
        micros = -(-instant // 1000)  # the first microsecond at or after the point
        return key >= F.lit(micros), label


def _is_aware(at: Any) -> bool:
    try:
        return pd.Timestamp(at).tz is not None
    except (TypeError, ValueError):
        return False  # time_point names the problem


def _localized(wall: pd.Timestamp, time_zone: str, at: Any) -> int:
    """The instant (ns since the epoch) of a wall-clock time of ``time_zone``."""
    try:
        return int(wall.tz_localize(time_zone).value)
    except Exception as exc:  # a time that the zone skips or repeats, or an unknown zone
        raise InvalidParameterError(
            f"at={at!r} is a naive time, read in the Spark session time zone {time_zone!r}, "
            f"where it is not one instant ({exc}); give a zone-aware at=",
            parameter="at", examples=[at]) from exc

