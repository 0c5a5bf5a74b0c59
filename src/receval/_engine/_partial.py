"""What a partition hands to the merge: :class:`Partial`, and the per-user value arrays."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from receval._engine._notes import Note
from receval._engine._sums import MetricSums
from receval.metrics import Metric

__all__ = ["Partial", "Values", "exclude", "per_user_values"]

#: One metric's per-user values, and for a micro average its per-user numerators and
#: denominators (None otherwise).
Values = tuple[np.ndarray, "np.ndarray | None", "np.ndarray | None"]


@dataclass
class Partial:
    """Per-user numerators and denominators of one set of users, and their accounting.

    ``sums`` holds, per metric, the exact sums that its aggregate needs, and ``counts`` the
    size of every group of users (``n_evaluated``, ``n_rating_evaluated``, ``n_`` + each
    key of ``groups``), so that a partial stripped of its per-user arrays and id lists
    (:meth:`summary`; ``complete`` is then False and each list keeps a few example ids) still
    merges into the exact aggregates and counts.
    """

    ranking_users: pd.Index
    rating_users: pd.Index
    values: dict[str, Values]  # per-user values; per-user num and den for micro metrics
    ties: dict[str, tuple[str, int]]
    excluded: dict[str, int]  # users left out of one metric by its own missing_recs
    rating_metrics: dict[str, Metric]
    groups: dict[str, pd.Index]
    counts: dict[str, int]
    recommended: dict[str, np.ndarray]
    items: pd.Index
    notes: list[Note] = field(default_factory=list)
    columns: dict[str, str] = field(default_factory=dict)
    beyond: Any = None  # receval._beyond_engine.BeyondPartial
    sums: dict[str, MetricSums] = field(default_factory=dict)
    complete: bool = True

    def summary(self, n_examples: int = 5) -> Partial:
        """The partial without per-user values: sums, counts and a few example ids."""

        def few(ids: pd.Index) -> pd.Index:  # the smallest ids, as the merge lists them
            if len(ids) <= n_examples:
                return ids
            try:
                return ids.sort_values()[:n_examples]
            except TypeError:  # ids that do not order
                return ids[:n_examples]

        beyond = self.beyond.summary() if self.beyond is not None else None
        return dataclasses.replace(
            self, ranking_users=few(self.ranking_users), rating_users=few(self.rating_users),
            values={}, groups={k: few(v) for k, v in self.groups.items()}, beyond=beyond,
            complete=False)


def per_user_values(metric: Metric, num: np.ndarray, den: np.ndarray) -> Values:
    """Per-user values (NaN where undefined), and for a micro average the per-user terms."""
    ratio = np.full(len(num), 0.0 if metric.undefined_is_zero else np.nan)
    np.divide(num, den, out=ratio, where=den > 0)
    if metric.aggregation_mode == "micro":
        return metric.finalize(ratio), num.copy(), den.copy()
    return metric.finalize(ratio), None, None


def exclude(values: dict[str, Values], label: str, drop: np.ndarray) -> int:
    """Leave some users out of one metric: NaN per-user value, nothing in micro sums."""
    per_user, num, den = values[label]
    per_user[drop] = np.nan
    if num is not None and den is not None:
        num[drop] = 0.0
        den[drop] = 0.0
    return int(drop.sum())
