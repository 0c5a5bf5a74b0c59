"""One metric's per-user values and how every door aggregates them: the shared base.

Every metric with a value per user (the ranking, rating and per-list families) is held as a
:class:`Column`: the users, their values (NaN where undefined) and, for a micro average,
their numerators and denominators. Its aggregate over any set of users is
:func:`aggregate` of the exact sums of that set (:class:`receval._exact.MetricSums`):

* macro: ``mean = round(sum_u x_u / n)`` over the users whose value is defined;
* micro: ``finalize(round(sum_u num_u / sum_u den_u))``.

The engine's merge, ``ev.by(groups)``, ``rv.compare``'s means and ``cross_validate`` all
call these two functions, so no door can show another number than ``ev[label]`` for the
same users.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from receval._exact import MetricSums
from receval.metrics import Metric

__all__ = ["Column", "aggregate", "column_of", "concat_columns"]


@dataclass(frozen=True)
class Column:
    """One metric's per-user values over some users (and its micro terms, if micro).

    Attributes
    ----------
    users : pandas.Index
        User ids, one per value.
    values : ndarray of float64
        The per-user values; NaN where the metric is undefined for the user (left out of a
        macro mean).
    num, den : ndarray of float64 or None
        Per-user numerator and denominator of a micro average (None for a macro metric).
    """

    users: pd.Index
    values: np.ndarray
    num: np.ndarray | None = None
    den: np.ndarray | None = None

    @property
    def micro(self) -> bool:
        """Whether the column carries micro terms."""
        return self.num is not None and self.den is not None

    def sums(self) -> MetricSums:
        """The exact sums of the column, which :func:`aggregate` reads."""
        return MetricSums.of(self.values, self.num, self.den)

    def take(self, rows: np.ndarray) -> Column:
        """The column over some of its users (positions or a boolean mask)."""
        def pick(a: np.ndarray | None) -> np.ndarray | None:
            return None if a is None else a[rows]

        return Column(self.users[rows], self.values[rows], pick(self.num), pick(self.den))

    def drop(self, mask: np.ndarray) -> int:
        """Leave some users out: NaN value, nothing in the micro sums; returns how many."""
        self.values[mask] = np.nan
        if self.num is not None and self.den is not None:
            self.num[mask] = 0.0
            self.den[mask] = 0.0
        return int(mask.sum())


def column_of(metric: Metric, users: pd.Index, num: np.ndarray, den: np.ndarray) -> Column:
    """The column of per-user ratios ``num / den`` (the metric's ``finalize`` applied).

    ``0 / 0`` is 0 for metrics whose undefined value counts as zero (ranking), else NaN
    (correlations, diversity of a one-item list). A micro metric keeps its terms.
    """
    ratio = np.full(len(num), 0.0 if metric.undefined_is_zero else np.nan)
    np.divide(num, den, out=ratio, where=den > 0)
    values = np.asarray(metric.finalize(ratio), dtype=np.float64)
    if metric.aggregation_mode == "micro":
        return Column(users, values, np.array(num, dtype=np.float64),
                      np.array(den, dtype=np.float64))
    return Column(users, values)


def aggregate(metric: Metric, sums: MetricSums) -> float:
    """The aggregate of one metric from the exact sums of its users.

    ``mean = round(sum_u x_u / n)`` over the users whose value is defined (NaN when none),
    or for a micro average ``finalize(round(sum_u num_u / sum_u den_u))`` (NaN when the
    denominators sum to 0). Neither depends on the order or the partitioning of the users.
    """
    if sums.num is not None and sums.den is not None:
        ratio = sums.pooled()
        return float(metric.finalize(ratio)) if not np.isnan(ratio) else float("nan")
    return sums.values.mean()


def concat_columns(columns: Sequence[Column]) -> Column:
    """Columns over disjoint sets of users, one after the other."""
    if len(columns) == 1:
        return columns[0]
    users = columns[0].users.append([c.users for c in columns[1:]])
    micro = all(c.micro for c in columns)

    def cat(name: str) -> np.ndarray:
        return np.concatenate([getattr(c, name) for c in columns])

    return Column(users, cat("values"), cat("num") if micro else None,
                  cat("den") if micro else None)
