"""What a metric family is to the engine: a ``run`` per partition and a ``merge`` of partials.

A family owns its kernels' calls, what its partial holds and how partials merge. What every
family shares goes through this module: per-user values are :class:`~receval._aggregate.Column`
objects whose exact sums are kept in :attr:`FamilyPartial.sums`, so the engine merges,
orders and aggregates them the same way for every family (``ev[...]``, ``ev.by``,
``rv.compare``, buckets and Spark read the same sums).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from receval._aggregate import Column
from receval._engine._lists import ListCache, ListKey
from receval._engine._notes import Note
from receval._exact import MetricSums
from receval._result import MetricSummary
from receval.data import Interactions
from receval.metrics import Metric

__all__ = ["Context", "Family", "FamilyPartial", "MergeContext", "Specs"]

#: The requested metrics of a family, with the text each was asked as.
Specs = Sequence[tuple[str, Any]]


@dataclass
class Context:
    """One partition as the families see it.

    Attributes
    ----------
    data : Interactions
        Both tables, encoded and grouped.
    opts : Options
        The evaluation's validated options (side inputs prepared once, in ``opts.side``).
    lists : ListCache
        The ranked lists, each tie policy and gains ranked once.
    evaluated : ndarray of int64
        Codes of the users in the ranking metrics' means (the user accounting's choice).
    notes : list of Note
        Warnings to emit after the merge.
    """

    data: Interactions
    opts: Any
    lists: ListCache
    evaluated: np.ndarray
    notes: list[Note]
    shared: dict[str, Any] = field(default_factory=dict)

    def users_with_recs(self) -> np.ndarray:
        """Codes of the users with at least one recommendation."""
        if "with_recs" not in self.shared:
            self.shared["with_recs"] = np.flatnonzero(self.data.recs_count() > 0)
        codes: np.ndarray = self.shared["with_recs"]
        return codes


@dataclass
class FamilyPartial:
    """What one family computed on one partition.

    Attributes
    ----------
    columns : dict
        Label -> per-user :class:`Column` (ids, never codes), for per-user metrics.
    sums : dict
        Label -> the exact sums of the column (kept when the columns are stripped).
    state : dict
        Family-specific state its merge reads (counts that add up over partitions).
    groups : dict
        User groups of the accounting this family decides (ids), e.g. ``rating_skipped``.
    counts : dict
        Counts added to the partition's counts.
    """

    columns: dict[str, Column] = field(default_factory=dict)
    sums: dict[str, MetricSums] = field(default_factory=dict)
    state: dict[str, Any] = field(default_factory=dict)
    groups: dict[str, pd.Index] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)

    def add(self, label: str, column: Column) -> None:
        """Keep one metric's per-user column and its exact sums."""
        self.columns[label] = column
        self.sums[label] = column.sums()

    def summary(self) -> FamilyPartial:
        """The partial without per-user columns (their sums and the state kept)."""
        return dataclasses.replace(self, columns={})


@dataclass
class MergeContext:
    """What a family's merge reads besides its own partials."""

    opts: Any
    counts: dict[str, int]
    notes: list[Note]
    items: list[pd.Index]  # each partition's items (recs and truth)


class Family:
    """Base of the metric families (:mod:`receval._engine._families`).

    Subclasses set :attr:`name` (the value of ``Metric.family`` they compute) and implement
    :meth:`run` and :meth:`summarize`; :meth:`lists` says which ranked lists they read.
    """

    name: ClassVar[str] = ""
    per_user: ClassVar[bool] = True  # whether its metrics have per-user values

    def lists(self, specs: Specs, opts: Any) -> list[tuple[ListKey, int]]:
        """The ranked lists the family reads, and how many places (0: whole lists)."""
        return []

    def run(self, ctx: Context, specs: Specs) -> FamilyPartial:
        """Compute the family's metrics on one partition."""
        raise NotImplementedError

    def check(self, specs: Specs, counts: dict[str, int]) -> None:
        """Raise when nothing can be evaluated (counts of every partition added up)."""

    def summarize(self, specs: Specs, parts: Sequence[FamilyPartial], ctx: MergeContext
                  ) -> dict[str, MetricSummary]:
        """The summary of each of the family's metrics over every partition."""
        raise NotImplementedError

    def settings(self, specs: Specs, parts: Sequence[FamilyPartial], ctx: MergeContext
                 ) -> dict[str, Any]:
        """Entries the family adds to ``result.settings``."""
        return {}

    def resolved(self, metric: Metric, parts: Sequence[FamilyPartial]) -> Metric:
        """The metric as computed (a rating metric's threshold filled in)."""
        return metric
