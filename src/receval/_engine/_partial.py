"""What a partition hands to the merge: the user accounting and each family's partial."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import pandas as pd

from receval._engine._families import FamilyPartial
from receval._engine._notes import Note

__all__ = ["Partial"]


@dataclass
class Partial:
    """One set of users' accounting and every family's per-user columns and state.

    ``counts`` holds the size of every group of users (``n_evaluated``,
    ``n_rating_evaluated``, ``n_`` + each key of ``groups``), and each family partial the
    exact sums its aggregates need, so that a partial stripped of its per-user columns and
    id lists (:meth:`summary`; ``complete`` is then False and each list keeps a few example
    ids) still merges into the exact aggregates and counts. Partials hold ids, never codes,
    so partials of disjoint user sets merge by concatenation.
    """

    ranking_users: pd.Index
    rating_users: pd.Index
    groups: dict[str, pd.Index]
    counts: dict[str, int]
    items: pd.Index
    families: dict[str, FamilyPartial]
    notes: list[Note] = field(default_factory=list)
    columns: dict[str, str] = field(default_factory=dict)
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

        return dataclasses.replace(
            self, ranking_users=few(self.ranking_users), rating_users=few(self.rating_users),
            groups={k: few(v) for k, v in self.groups.items()},
            families={k: f.summary() for k, f in self.families.items()}, complete=False)
