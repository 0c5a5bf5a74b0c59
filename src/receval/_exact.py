"""Exactly rounded sums and means, the same whatever the order or partitioning of the users.

A mean over users is the exact sum of the per-user values divided by their number, rounded
once to the nearest double (ties to even): ``mean = round(sum x_u / n)``. Each partition
accumulates its exact sum (:mod:`receval._kernels.exact`) into an :class:`ExactSum`, an
integer in units of ``2^-1074``; the merge adds the integers, and Python's integer division
rounds the quotient correctly (``int / int`` is correctly rounded in CPython). So the in-memory
path, the Parquet buckets and the Spark buckets give the same bits by construction, and the
mean of a column can differ from ``numpy.mean`` (pairwise summation, rounded at every step)
in the last bit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from receval._kernels import exact as XK
from receval._kernels._jit import readonly

__all__ = ["ExactSum", "MetricSums", "add_sums", "exact_mean", "exact_ratio"]

#: The unit of the accumulator: ``2^-1074``, the smallest positive double.
_SCALE = 1074


@dataclass(frozen=True)
class ExactSum:
    """The exact sum of the finite values among some float64 values, and how many there were.

    Attributes
    ----------
    scaled : int
        The exact sum times ``2^1074`` (an integer: every double is a multiple of
        ``2^-1074``).
    n : int
        Finite values summed.
    n_nan, n_pos_inf, n_neg_inf : int
        NaN, +inf and -inf values, left out of ``scaled``.
    """

    scaled: int = 0
    n: int = 0
    n_nan: int = 0
    n_pos_inf: int = 0
    n_neg_inf: int = 0

    @classmethod
    def of(cls, values: np.ndarray) -> ExactSum:
        """The exact sum of an array (one compiled pass, no Python loop over values)."""
        x = np.ascontiguousarray(values, dtype=np.float64)
        acc = np.zeros(XK.N_DIGITS, dtype=np.int64)
        special = np.zeros(3, dtype=np.int64)
        XK.exact_sum(readonly(x), acc, special)
        return cls.from_accumulator(acc, special, len(x))

    @classmethod
    def from_accumulator(cls, acc: np.ndarray, special: np.ndarray, size: int) -> ExactSum:
        """The sum in an accumulator of :func:`receval._kernels.exact.exact_sum`.

        ``size`` values were added to it, special ones (NaN, inf) included.
        """
        digits = acc.tolist()
        scaled = digits[-1]
        for d in reversed(digits[:-1]):  # Horner: digits[:-1] are in [0, 2^32)
            scaled = (scaled << XK.DIGIT_BITS) + d
        n_nan, n_pos, n_neg = (int(v) for v in special)
        return cls(scaled, size - n_nan - n_pos - n_neg, n_nan, n_pos, n_neg)

    def __add__(self, other: ExactSum) -> ExactSum:
        return ExactSum(self.scaled + other.scaled, self.n + other.n,
                        self.n_nan + other.n_nan, self.n_pos_inf + other.n_pos_inf,
                        self.n_neg_inf + other.n_neg_inf)

    @property
    def n_defined(self) -> int:
        """Values that are not NaN (finite or infinite)."""
        return self.n + self.n_pos_inf + self.n_neg_inf

    @property
    def fraction(self) -> Fraction:
        """The exact sum of the finite values as a fraction."""
        return Fraction(self.scaled, 1 << _SCALE)

    def _infinite(self) -> float | None:
        """The sum's value when an infinite value decides it (NaN for +inf and -inf)."""
        if self.n_pos_inf and self.n_neg_inf:
            return math.nan
        if self.n_pos_inf:
            return math.inf
        if self.n_neg_inf:
            return -math.inf
        return None

    def value(self) -> float:
        """The sum of the non-NaN values, correctly rounded (inf when it overflows)."""
        special = self._infinite()
        if special is not None:
            return special
        return _divide(self.scaled, 1 << _SCALE)

    def mean(self) -> float:
        """The mean of the non-NaN values, correctly rounded (NaN when there are none)."""
        if self.n_defined == 0:
            return math.nan
        special = self._infinite()
        if special is not None:
            return special
        return _divide(self.scaled, self.n << _SCALE)


def _divide(a: int, b: int) -> float:
    """``a / b`` correctly rounded to a double (Python's integer true division)."""
    try:
        return a / b
    except OverflowError:  # beyond the largest double: rounds to infinity
        return math.inf if (a < 0) == (b < 0) else -math.inf


def exact_mean(values: np.ndarray) -> float:
    """The exactly rounded mean of the non-NaN values (NaN when there are none)."""
    return ExactSum.of(values).mean()


def exact_ratio(num: ExactSum, den: ExactSum) -> float:
    """``sum num / sum den`` correctly rounded (NaN unless ``sum den > 0``).

    Both sums are exact, so the pooled ratio of a micro average is rounded once (with an
    infinite term, the quotient of the two rounded sums).
    """
    if num._infinite() is not None or den._infinite() is not None:  # IEEE rules
        return num.value() / den.value() if den.value() > 0 else math.nan
    if den.scaled <= 0:
        return math.nan
    return _divide(num.scaled, den.scaled)


@dataclass(frozen=True)
class MetricSums:
    """One metric's sums over some users: its per-user values and, if micro, its terms.

    ``values`` counts the undefined users (NaN) in ``n_nan``; ``num`` and ``den`` are the
    exact sums of a micro average's per-user numerators and denominators (None for a mean
    of per-user values).
    """

    values: ExactSum
    num: ExactSum | None = None
    den: ExactSum | None = None

    @classmethod
    def of(cls, values: np.ndarray, num: np.ndarray | None = None,
           den: np.ndarray | None = None) -> MetricSums:
        """The sums of one metric's per-user arrays."""
        if num is None or den is None:
            return cls(ExactSum.of(values))
        return cls(ExactSum.of(values), ExactSum.of(num), ExactSum.of(den))

    def __add__(self, other: MetricSums) -> MetricSums:
        if self.num is None or self.den is None or other.num is None or other.den is None:
            return MetricSums(self.values + other.values)
        return MetricSums(self.values + other.values, self.num + other.num,
                          self.den + other.den)

    @property
    def n_undefined(self) -> int:
        """Users whose value is undefined (NaN)."""
        return self.values.n_nan

    def pooled(self) -> float:
        """A micro average before ``finalize``: ``sum num / sum den``, rounded once."""
        if self.num is None or self.den is None:
            raise ValueError("a mean of per-user values has no pooled ratio")
        return exact_ratio(self.num, self.den)


def add_sums(parts: Sequence[MetricSums]) -> MetricSums:
    """The sums of the union of disjoint sets of users."""
    total = parts[0]
    for part in parts[1:]:
        total = total + part
    return total
