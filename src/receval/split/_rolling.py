"""Rolling-origin back-testing: a sequence of temporal splits whose origin moves forward.

Window ``i`` has the origin ``o_i = start + i * step``, for every ``o_i`` up to the last
timestamp. Its test part is the rows with ``o_i <= t < o_i + horizon``; its training part the
rows with ``t < o_i`` (an expanding window, the default) or ``o_i - window <= t < o_i`` (a
fixed one). Every other row of the input is in the window's ``dropped`` part, counted as
``before_window`` or ``after_test``.
"""

from __future__ import annotations

import datetime
import math
import numbers
import re
import warnings
from typing import Any, Literal

import numpy as np
import pandas as pd
from pandas.tseries.frequencies import to_offset
from pandas.tseries.offsets import BaseOffset

from receval._columns import Columns
from receval.data._rows import time_point
from receval.data._spark import is_spark_frame
from receval.exceptions import EmptyInputError, InvalidParameterError
from receval.split._finish import COLD_POLICIES, finish
from receval.split._prepare import SplitInput, check_choice, read_input
from receval.split._types import Split

__all__ = ["MAX_WINDOWS", "rolling"]

Policy = Literal["keep", "drop", "error"]

#: More windows than this is an error: a step that small is almost surely a unit mistake
#: (``step=1`` on a column of epoch nanoseconds), and every window is a whole Split.
MAX_WINDOWS = 10_000

_I64 = np.iinfo(np.int64)

#: "MS", "3MS": month starts (the offset alias), never milliseconds (which pandas 2's
#: Timedelta reads it as; milliseconds are "ms").
_MONTH_START = re.compile(r"\s*\+?\d*\s*MS\s*")

#: A duration in the timestamp column's units (ns for datetimes), or a calendar offset.
Duration = int | float | BaseOffset


def _parse(value: str, parameter: str) -> Duration:
    """A duration string.

    A fixed length if ``pandas.Timedelta`` reads it (deprecated unit spellings refused), else
    a calendar offset; ``"MS"`` is always month start.
    """
    delta = None
    if not _MONTH_START.fullmatch(value):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            try:
                delta = pd.Timedelta(value)
            except (ValueError, Warning):
                delta = None
    if delta is not None:
        return _fixed(delta, value, parameter)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            offset = to_offset(value)
        except (ValueError, Warning) as exc:
            raise InvalidParameterError(
                f"{parameter}={value!r} is neither a duration pandas.Timedelta reads "
                f"('7D', '12h', '90min') nor a calendar offset ('MS', 'W-MON', 'B'): {exc}",
                parameter=parameter, examples=[value]) from exc
    if isinstance(offset, pd.offsets.Tick):
        return _fixed(pd.Timedelta(offset), value, parameter)
    return offset


def _fixed(delta: Any, value: Any, parameter: str) -> int:
    """A fixed duration (a Timedelta, or NaT) in nanoseconds; it must be positive."""
    if pd.isna(delta) or delta <= pd.Timedelta(0):
        raise InvalidParameterError(f"{parameter}={value!r} must be a positive duration",
                                    parameter=parameter, examples=[value])
    return int(delta.value)


def _offset(value: Any, parameter: str) -> Duration:
    """A duration for a datetime column.

    Fixed (in ns) for a ``pandas.Timedelta``, a ``datetime.timedelta``, a
    ``numpy.timedelta64``, a fixed offset (``pd.offsets.Hour``) or a string pandas.Timedelta
    reads; else a calendar offset (``"MS"``, ``"W-MON"``, ``"B"``, ``pd.offsets.MonthBegin``).
    """
    if isinstance(value, str):
        return _parse(value, parameter)
    if isinstance(value, BaseOffset) and not isinstance(value, pd.offsets.Tick):
        return value
    if isinstance(value, (datetime.timedelta, np.timedelta64, pd.offsets.Tick)):
        return _fixed(pd.Timedelta(value), value, parameter)
    raise InvalidParameterError(
        f"{parameter}={value!r} is not a duration: the timestamp column holds datetimes, "
        f"so give a string such as '7D', a pandas.Timedelta, or a calendar offset such as "
        f"'MS'", parameter=parameter, examples=[value])


def _duration(value: Any, parameter: str, inp: SplitInput) -> Duration:
    """``value`` as a positive duration in the units of the timestamp column."""
    if inp.ts_kind == "datetime":
        return _offset(value, parameter)
    unit = "a number in the column's own unit (the timestamp column holds numbers)"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidParameterError(f"{parameter}={value!r} must be {unit}",
                                    parameter=parameter, examples=[value])
    if not math.isfinite(float(value)) or value <= 0:
        raise InvalidParameterError(f"{parameter}={value!r} must be positive and finite",
                                    parameter=parameter, examples=[value])
    assert inp.ts is not None
    if inp.ts.dtype == np.int64:
        if not float(value).is_integer():
            raise InvalidParameterError(
                f"{parameter}={value!r} must be a whole number: the timestamp column holds "
                f"integers", parameter=parameter, examples=[value])
        whole = int(value) if isinstance(value, numbers.Integral) else int(float(value))
        return min(whole, int(_I64.max))
    return float(value)


def _ns(ts: pd.Timestamp) -> int:
    """A Timestamp as nanoseconds since the epoch (UTC for zone-aware ones)."""
    if ts.tz is not None:
        ts = ts.tz_convert("UTC").tz_localize(None)
    return int(ts.as_unit("ns").value)


def _shift(points: np.ndarray, by: Duration, sign: int, inp: SplitInput,
           parameter: str) -> np.ndarray:
    """``points + sign * by``, saturating at the int64 range.

    Calendar offsets are applied to the times in the column's time zone.
    """
    if isinstance(by, BaseOffset):
        try:
            moved = [_ns(inp.time_label(p) + by if sign > 0 else inp.time_label(p) - by)
                     for p in points.tolist()]
        except (OverflowError, pd.errors.OutOfBoundsDatetime) as exc:
            raise InvalidParameterError(f"{parameter}={by!r} moves a window out of the dates "
                                        f"pandas can hold ({exc})", parameter=parameter) from exc
        out = np.asarray(moved, dtype=np.int64)
        if (out <= points).any() if sign > 0 else (out >= points).any():
            raise InvalidParameterError(
                f"{parameter}={by!r} does not move every window's time forward (an offset "
                f"with n <= 0, or one anchored on the origin); give a positive offset",
                parameter=parameter, examples=[str(by)])
        return out
    if points.dtype == np.int64:
        if sign > 0:
            return np.where(points > _I64.max - by, _I64.max, points + by)
        return np.where(points < _I64.min + by, _I64.min, points - by)
    return points + sign * by


def _origins(inp: SplitInput, start: int | float, step: Duration, last: int | float
             ) -> np.ndarray:
    """``start + i * step`` for every ``i >= 0`` up to ``last``; at most MAX_WINDOWS."""
    def too_many(n: Any) -> InvalidParameterError:
        return InvalidParameterError(
            f"step={step!r} from start {inp.time_label(start)} to the last time "
            f"{inp.time_label(last)} gives {n} windows, more than {MAX_WINDOWS:,}: is step in "
            f"the timestamp column's unit?", parameter="step", examples=[str(step)])

    if isinstance(step, BaseOffset):
        first, out = inp.time_label(start), [int(start)]
        while True:
            try:
                nxt = _ns(first + len(out) * step)
            except (OverflowError, pd.errors.OutOfBoundsDatetime):
                break
            if nxt > last:
                break
            if nxt <= out[-1]:
                raise InvalidParameterError(
                    f"step={step!r} does not move the origin forward from "
                    f"{inp.time_label(out[-1])}; give a positive offset", parameter="step",
                    examples=[str(step)])
            out.append(nxt)
            if len(out) > MAX_WINDOWS:
                raise too_many(f"over {MAX_WINDOWS:,}")
        return np.asarray(out, dtype=np.int64)
    n = math.floor((last - start) / step) + 1 if isinstance(start, float) or \
        isinstance(step, float) else (int(last) - int(start)) // int(step) + 1
    if n > MAX_WINDOWS:
        raise too_many(f"{n:,}")
    if isinstance(start, float) or isinstance(step, float):
        origins = start + np.arange(n, dtype=np.float64) * step
        return origins[origins <= last]
    return int(start) + np.arange(n, dtype=np.int64) * int(step)


def _empty_windows(inp: SplitInput, origins: np.ndarray, ends: np.ndarray,
                   starts: np.ndarray | None) -> None:
    """Raise when a window has no test row or no training row."""
    assert inp.ts is not None
    times = np.sort(inp.ts)
    at_origin = np.searchsorted(times, origins, side="left")
    n_test = np.searchsorted(times, ends, side="left") - at_origin
    n_train = at_origin - (0 if starts is None else np.searchsorted(times, starts, side="left"))
    for counts, part, parameter, span in (
            (n_train, "training", "start" if starts is None else "window",
             "before the origin" if starts is None else "[origin - window, origin)"),
            (n_test, "test", "horizon", "[origin, origin + horizon)")):
        empty = np.flatnonzero(counts == 0)
        if len(empty):
            shown = [inp.time_label(origins[i]) for i in empty[:5]]
            more = f", ... ({len(empty)} in all)" if len(empty) > len(shown) else ""
            raise EmptyInputError(
                f"rolling split: {len(empty)} of the {len(origins)} windows have no {part} "
                f"rows (none in {span}): the windows with origin "
                f"{', '.join(str(t) for t in shown)}{more}; every window needs both parts: "
                f"choose another start, step, horizon or window, or filter the log first",
                parameter=parameter, n_bad=len(empty), examples=shown)


def _windows(inp: SplitInput, start: Any, step: Any, horizon: Any, window: Any
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Each window's origin, test end and (fixed windows) training start.

    In the units of ``inp.ts``; every window is checked to have both parts.
    """
    assert inp.ts is not None
    assert inp.ts_series is not None
    tcol = inp.columns["timestamp"]
    assert tcol is not None
    point = time_point(start, inp.ts_series, tcol, inp.ts, parameter="start")
    step_d = _duration(step, "step", inp)
    horizon_d = step_d if horizon is None else _duration(horizon, "horizon", inp)
    window_d = None if window is None else _duration(window, "window", inp)
    last = inp.ts.max()
    if not math.isfinite(float(point)) or point > last:
        raise EmptyInputError(
            f"start={start!r} is after the last time {inp.time_label(last)} of column "
            f"{tcol!r}: no window has a test row", parameter="start", examples=[start])
    origins = _origins(inp, point, step_d, last)
    ends = _shift(origins, horizon_d, 1, inp, "horizon")
    starts = None if window_d is None else _shift(origins, window_d, -1, inp, "window")
    _empty_windows(inp, origins, ends, starts)
    return origins, ends, starts


def rolling(data: Any, *, start: Any, step: Any, horizon: Any = None, window: Any = None,
            cold_users: Policy = "keep", cold_items: Policy = "keep",
            columns: Columns | dict[str, str] | None = None) -> list[Split]:
    """Rolling-origin back-testing: one temporal split per origin, in time order.

    Window ``i`` (``i = 0, 1, ...``) has the origin ``o_i = start + i * step``, for every
    ``o_i`` up to the last timestamp of ``data``:

    - test: the rows with ``o_i <= t < o_i + horizon``;
    - train: the rows with ``t < o_i`` (``window=None``: an expanding window, every earlier
      row), or ``o_i - window <= t < o_i`` (a fixed window);
    - dropped: every other row (``report.dropped_by`` counts them as ``before_window`` and
      ``after_test``).

    So every training row of a window is earlier than every test row of it (the report's
    leakage is 0), and a row at the origin is a test row, as with
    ``temporal(data, at=o_i)``. Test periods overlap when ``horizon > step`` and leave gaps
    when ``horizon < step``. The last window's test period may hold less than a whole
    ``horizon`` of data (it ends with the log); filter the log first to avoid it.

    Times and durations are in the timestamp column's terms: for a datetime column ``start``
    is a date string or a datetime (zone-aware exactly when the column is) and ``step``,
    ``horizon`` and ``window`` are durations, ``"7D"``, ``"12h"``, a ``pandas.Timedelta`` or
    a ``datetime.timedelta`` (fixed lengths), or a calendar offset that
    ``pandas.tseries.frequencies.to_offset`` reads (``"MS"``, month starts; ``"W-MON"``;
    ``"B"``), applied in the column's time zone as ``start + i * step``; for an epoch column
    they are numbers in its unit (whole numbers for an integer column).

    Parameters
    ----------
    data : table
        Interactions with user, item and timestamp columns (any input receval reads).
    start : str, datetime or number
        The first origin. The first window must have training rows, so ``start`` must be
        later than the earliest time (within ``window`` of a row), and at most the last.
    step : duration
        How far the origin moves from one window to the next (positive).
    horizon : duration, optional
        The length of each test period (positive); default ``step`` (test periods that
        tile the time after ``start``).
    window : duration, optional
        The length of each training period; default None (expanding: all earlier rows).
    cold_users, cold_items : {"keep", "drop", "error"}
        Test rows whose user (item) has no training row in their window.
    columns : Columns or dict, optional
        Column names by role, as for :func:`receval.evaluate`.

    Returns
    -------
    list of Split
        One per window, in time order; ``report.method`` is ``"rolling"``,
        ``report.cut_time`` the origin, and ``report.settings`` has ``start``, ``step``,
        ``horizon``, ``window`` (as given; ``horizon`` defaulted), ``fold`` (the window's
        index), ``n_splits``, ``train_start`` (None for an expanding window), ``origin`` and
        ``test_end``. ``rv.cross_validate(..., split=windows)`` evaluates every window, and
        ``cv.compare()`` pairs the users within each window.

    Raises
    ------
    InvalidParameterError
        A ``start`` of the wrong kind, a ``step``, ``horizon`` or ``window`` that is not a
        positive duration of the column's kind, more than ``MAX_WINDOWS`` windows, a Spark
        DataFrame.
    EmptyInputError
        ``start`` after the last time, or a window without test rows or training rows
        (the message lists up to five of their origins).
    ColumnNotFoundError
        No timestamp column.

    Examples
    --------
    >>> import pandas as pd, receval as rv
    >>> log = pd.DataFrame({"user_id": [1, 1, 1, 2, 2, 2], "item_id": list("abcabd"),
    ...                     "timestamp": [1, 3, 5, 2, 4, 6]})
    >>> windows = rv.split.rolling(log, start=3, step=2)       # origins 3 and 5
    >>> [w.test["timestamp"].tolist() for w in windows]
    [[3, 4], [5, 6]]
    >>> [w.train["timestamp"].tolist() for w in windows]
    [[1, 2], [1, 3, 2, 4]]
    """
    check_choice("cold_users", cold_users, COLD_POLICIES)
    check_choice("cold_items", cold_items, COLD_POLICIES)
    if is_spark_frame(data):
        raise InvalidParameterError(
            "rolling does not run on a Spark DataFrame: use rv.split.temporal(df, at=...) "
            "on Spark for each origin, or back-test a sample that fits in memory",
            parameter="data")
    if start is None or step is None:
        raise InvalidParameterError(
            f"rolling split: start= (the first origin) and step= (how far it moves) are "
            f"required; got start={start!r}, step={step!r}",
            parameter="start" if start is None else "step")
    inp = read_input(data, columns, need_time="a rolling split")
    origins, ends, starts = _windows(inp, start, step, horizon, window)
    given = {"start": start, "step": step, "horizon": step if horizon is None else horizon,
             "window": window}
    ts, splits = inp.ts, []
    assert ts is not None
    for i, (origin, end) in enumerate(zip(origins.tolist(), ends.tolist(), strict=True)):
        outside = {"after_test": ts >= end}
        if starts is not None:
            outside = {"before_window": ts < starts[i], **outside}
        settings = {**given, "fold": i, "n_splits": len(origins),
                    "train_start": None if starts is None else inp.time_label(starts[i]),
                    "origin": inp.time_label(origin), "test_end": inp.time_label(end)}
        splits.append(finish(inp, (ts >= origin) & (ts < end), method="rolling",
                             settings=settings, cold_users=cold_users, cold_items=cold_items,
                             outside=outside, cut_time=inp.time_label(origin)))
    return splits
