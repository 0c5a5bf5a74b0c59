"""The k-th smallest value of a column of a Spark DataFrame, exactly, by histograms.

A global cut (the time of the ``n_test``-th latest row, the key of the ``n_test``-th drawn
row) is a rank statistic. Spark finds it here without sorting and without sending rows to
the driver: each pass groups the rows still in play into at most ``2**BITS + 1`` bins of
consecutive values (``count``, ``min``, ``max`` per bin; a few hundred kilobytes at most),
the driver walks the cumulative counts to the bin that holds rank ``k``, and the next pass
looks only at that bin's range. A pass splits the range at least ``2**(BITS - 1)``-fold for
64-bit integers (so at most six passes, usually two or three), and ends when the bin holds a
single value.

Integer keys are binned by an arithmetic shift, ``key >> s``, which keeps the order and never
overflows. Floating-point keys are binned by ``floor((key - lo) / (hi - lo) * 2**BITS)``,
non-decreasing in ``key`` under IEEE rounding, with ``lo`` and ``hi`` in different bins, so
every pass excludes at least one of the values still in play.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

__all__ = ["BITS", "Selected", "kth_smallest"]

#: Bits of the key resolved by one pass.
BITS = 12
_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1


@dataclass(frozen=True)
class Selected:
    """The ``k``-th smallest value and how many rows are below it and equal to it."""

    value: Any
    n_less: int
    n_equal: int


def _bin(key: Any, lo: Any, hi: Any, double: bool) -> Any:
    from pyspark.sql import functions as F

    if lo == hi:
        return F.lit(0)
    if not double:
        shift = max(0, (int(hi) - int(lo)).bit_length() - BITS)
        return F.shiftright(key, shift)
    span = hi - lo
    if math.isfinite(span):
        return F.floor((key - F.lit(lo)) / F.lit(span) * F.lit(float(2**BITS)))
    half = hi * 0.5 - lo * 0.5
    return F.floor((key * F.lit(0.5) - F.lit(lo * 0.5)) / F.lit(half) * F.lit(float(2**BITS)))


def kth_smallest(frame: Any, key: Any, k: int, *, lo: Any = None, hi: Any = None,
                 double: bool = False) -> Selected:
    """The value of rank ``k`` (0-based) of ``key`` over the rows of ``frame``.

    Parameters
    ----------
    frame : pyspark.sql.DataFrame
        The rows (``k`` must be below their number).
    key : pyspark.sql.Column
        A long or (``double=True``) double column without nulls or NaN.
    k : int
        The rank, 0-based: ``k=0`` is the smallest value.
    lo, hi : int or float, optional
        The smallest and largest key (finite for doubles, which require them); integer keys
        start from their whole range without them.
    double : bool
        Whether the key is a double.

    Returns
    -------
    Selected
        The value, and the rows whose key is smaller than it and equal to it.
    """
    from pyspark.sql import functions as F

    if lo is None or hi is None:
        if double:  # pragma: no cover - the callers always know a double key's range
            raise ValueError("a double key needs its range")
        lo, hi = _LONG_MIN, _LONG_MAX
    n_less, count = 0, None
    while lo != hi or count is None:
        rows = frame.filter(key.between(F.lit(lo), F.lit(hi))) \
            .groupBy(_bin(key, lo, hi, double).alias("bin")) \
            .agg(F.count(F.lit(1)).alias("n"), F.min(key).alias("lo"), F.max(key).alias("hi")) \
            .collect()
        for row in sorted(rows, key=lambda r: r["bin"]):
            if k < row["n"]:
                lo, hi, count = row["lo"], row["hi"], int(row["n"])
                break
            k -= int(row["n"])
            n_less += int(row["n"])
        else:  # pragma: no cover - k is below the number of rows in play
            raise RuntimeError("receval: the rank to select is beyond the rows")
    return Selected(lo, n_less, count)
