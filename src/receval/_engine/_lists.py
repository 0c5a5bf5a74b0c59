"""Ranked lists of one partition: built once per tie policy and gains, cut by one ``cut``.

Every family that reads ranked lists declares which it reads (:class:`ListKey`: the tie
policy and how truth grades become gains) and how many places (:meth:`ListCache.plan`);
each distinct key is ranked once, for every user of the partition, holding the largest
number of places any family reads (all of them when one reads a whole list). Families take
their users' lists with :meth:`RankedLists.select` and the first ``k`` places of each with
:func:`cut`, the only copy of the top-k arithmetic outside the compiled kernels.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from receval.data import Interactions, RankedLists

__all__ = ["Cut", "ListCache", "ListKey", "cut"]


@dataclass(frozen=True)
class ListKey:
    """Which ranked lists: a tie policy, and which truth grades are gains.

    ``grades``: ``"relevant"`` (the relevant rows' grades; every family's default) or
    ``"judged"`` (every positive grade, trec_eval); ``shifted``: grades minus ``t - 1``
    (Elliot's ``2^(g - t + 1) - 1``).
    """

    policy: str
    grades: str = "relevant"
    shifted: bool = False


@dataclass(frozen=True)
class Cut:
    """The first ``k`` places of some lists, as flat rows.

    ``take[u]`` places of list ``u``; row ``r`` is position ``pos[r]`` of the position
    arrays (``lists.item[pos]``, ``lists.rel[pos]``), in list ``row_list[r]``, lists one
    after the other.
    """

    take: np.ndarray
    pos: np.ndarray
    row_list: np.ndarray

    @property
    def starts(self) -> np.ndarray:
        """Where each list's rows start among the flat rows."""
        return np.cumsum(self.take) - self.take


def cut(lists: RankedLists, k: int | None) -> Cut:
    """The first ``k`` places of every list (whole lists when ``k`` is None)."""
    lengths = lists.ends - lists.starts
    take = np.minimum(lengths, k) if k else lengths
    first = np.repeat(lists.starts, take)
    pos = first + (np.arange(take.sum()) - np.repeat(np.cumsum(take) - take, take))
    return Cut(take, pos, np.repeat(np.arange(len(take)), take))


class ListCache:
    """The ranked lists of one partition, each :class:`ListKey` ranked once.

    Parameters
    ----------
    data : Interactions
        The partition.
    opts : Options
        The evaluation's options (truth scope and relevance threshold for the gains).
    plan : dict
        ListKey -> places the families read (0: whole lists), from :meth:`plan`.
    """

    def __init__(self, data: Interactions, opts: Any, plan: dict[ListKey, int]):
        self._data = data
        self._opts = opts
        self._plan = plan
        self._built: dict[ListKey, RankedLists] = {}

    @staticmethod
    def plan(requests: list[tuple[ListKey, int]]) -> dict[ListKey, int]:
        """Places to hold per key: 0 (whole lists) if any request reads whole lists."""
        out: dict[ListKey, int] = {}
        for key, top in requests:
            if key.policy == "expected":  # a block of ties may straddle any cutoff
                top = 0
            out[key] = 0 if (top == 0 or out.get(key, 1) == 0) else max(top, out.get(key, 0))
        return out

    def get(self, key: ListKey) -> RankedLists:
        """The lists of every user of the partition under ``key``."""
        if key not in self._built:
            data = self._data
            self._built[key] = data.ranked(np.arange(data.n_users), key.policy,
                                           top=self._plan.get(key, 0),
                                           **_gains(data, key, self._opts))
        return self._built[key]


def _gains(data: Interactions, key: ListKey, opts: Any) -> dict[str, Any]:
    """Which truth rows give gains, and the grade shift, for one key.

    ``judged``: every row with a positive grade (trec_eval), within the truth scope.
    ``shifted``: grades minus ``t - 1`` (``t = 1`` without a threshold).
    """
    out: dict[str, Any] = {}
    if key.grades == "judged":
        relevant = data.t_grade > 0
        if opts.policies["truth_scope"] == "recommended":
            relevant &= data.in_recommendations()
        out["relevant"] = relevant
    if key.shifted:
        t = opts.relevance_threshold
        out["grade_shift"] = (1.0 if t is None else t) - 1.0
    return out
