"""Item groups under one partition's item codes, and what the group metrics share.

A group metric reads ``item_groups=`` (read once per evaluation, :mod:`receval.data._groups`)
or Elliot's popularity groups (short head / long tail of the training items); both become a
membership matrix over the partition's item codes (:class:`ItemGroups`). Also here: the
exact per-group sums that make the group metrics' partitions add up bit for bit, and the
per-group table every group metric returns (``ev.groups(label)``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from receval._engine._families._side import Side
from receval._exact import ExactSum
from receval._kernels import exact as XK
from receval._kernels import fairness as FK
from receval.exceptions import DataError, InvalidParameterError, format_examples

__all__ = ["ItemGroups", "add_group_sums", "attention", "by_popularity", "check_grouped",
           "csr_parts", "exact_group_rows", "group_sums", "group_table", "id_rank",
           "item_groups", "member_rows", "short_head"]


@dataclass(frozen=True)
class ItemGroups:
    """Group membership of every item code of a partition.

    Attributes
    ----------
    member : scipy.sparse.csr_matrix
        Item codes x groups, 1 where the item is in the group (0 rows: no group).
    names : list
        The groups.
    sizes : ndarray of int64
        Items per group over the whole group table (not only this partition's items).
    grouped : ndarray of bool
        Whether each item code has a group.
    """

    member: Any
    names: list[Any]
    sizes: np.ndarray
    grouped: np.ndarray

    @property
    def n_groups(self) -> int:
        """Number of groups."""
        return len(self.names)

    @property
    def single(self) -> np.ndarray | None:
        """Each item code's only group (-1: none), or None when an item has several."""
        per_item = np.diff(self.member.indptr)
        if per_item.max(initial=0) > 1:
            return None
        code = np.full(self.member.shape[0], -1, dtype=np.int64)
        code[per_item == 1] = self.member.indices
        return code

    def split(self) -> Any:
        """The membership rows normalised to sum 1 (an item in n groups: 1/n to each)."""
        count = np.asarray(self.member.sum(axis=1)).ravel()
        scale = np.divide(1.0, count, out=np.zeros_like(count), where=count > 0)
        return sp.csr_matrix(sp.diags(scale) @ self.member)


def id_rank(ids: pd.Index) -> np.ndarray:
    """Each id's position in id order (text order for ids that do not order as numbers)."""
    keys = np.asarray(ids.astype(str)) if ids.dtype == object else np.asarray(ids)
    rank = np.empty(len(ids), dtype=np.int64)
    rank[np.argsort(keys, kind="stable")] = np.arange(len(ids))
    return rank


def by_popularity(side: Side, counts: np.ndarray) -> np.ndarray:
    """The training item codes by ``counts`` descending, ties by item id ascending."""
    train = np.flatnonzero(side.in_train)
    return train[np.lexsort((id_rank(side.items[train]), -counts[train]))]


def short_head(side: Side, pop_ratio: float) -> np.ndarray:
    """Elliot's short head: whether each item code is in it (training items only).

    Items by distinct training users, descending, ties by item id; items are added until
    the cumulative count reaches ``pop_ratio`` of the distinct training (user, item) pairs,
    the item that reaches it included (Elliot's ``popularity_utils``).
    """
    order = by_popularity(side, side.pop_users)
    cum = np.cumsum(side.pop_users[order])
    limit = pop_ratio * side.pop_users.sum()
    n_head = int(np.argmax(cum >= limit)) + 1 if len(order) else 0
    head = np.zeros(len(side.items), dtype=bool)
    head[order[:n_head]] = True
    return head


def item_groups(metric: Any, opts: Any, side: Side) -> ItemGroups:
    """The metric's item groups over the partition's item codes (``side.items``)."""
    if metric.groups == "popularity":
        head = short_head(side, metric.pop_ratio)
        tail = side.in_train & ~head
        member = sp.csr_matrix(np.column_stack([head, tail]).astype(np.float64))
        return ItemGroups(member, ["head", "tail"],
                          np.array([int(head.sum()), int(tail.sum())]), head | tail)
    groups = opts.side.item_groups
    if groups is None:
        raise InvalidParameterError(
            f"{metric.label} needs evaluate(item_groups=...): a table (item, group), a "
            f"mapping or a Series item -> group; or groups='popularity' for the short head "
            f"and long tail of the training items", parameter="item_groups")
    member = groups.matrix_of(side.items)
    grouped = np.diff(member.indptr) > 0
    return ItemGroups(member, list(groups.names), groups.sizes().astype(np.int64), grouped)


def member_rows(groups: ItemGroups, item: np.ndarray, ok: np.ndarray, split: bool
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(row, group, weight) of every (row, group of its item) pair, over the rows ``ok``.

    The weight is 1, or 1/|groups| with ``split``. One group per item (the common case):
    a lookup, no sparse row gather.
    """
    code = groups.single
    if code is not None:
        rows = np.flatnonzero(ok)
        return rows, code[item[rows]], np.ones(len(rows))
    member = groups.split() if split else groups.member
    m = member[item[ok]].tocoo()
    return np.flatnonzero(ok)[m.row], m.col.astype(np.int64), m.data


def check_grouped(metric: Any, groups: ItemGroups, side: Side, item: np.ndarray) -> np.ndarray:
    """Whether each recommended row's item has a group; an error under ``ungrouped='error'``."""
    ok = groups.grouped[item]
    if metric.ungrouped == "error" and not ok.all():
        bad = pd.unique(side.items[item[~ok]])
        raise DataError(
            f"{metric.label}: {len(bad)} recommended items have no group (e.g. "
            f"{format_examples(list(bad[:5]), len(bad))}); give them a group in item_groups "
            f"(e.g. 'other'), or pass ungrouped='skip' to leave them out",
            parameter="item_groups", n_bad=len(bad), examples=list(bad[:5]))
    return ok


def group_sums(values: np.ndarray, group: np.ndarray, n_groups: int) -> list[ExactSum]:
    """The exact sum of ``values`` per group (``group[j]`` the group of value ``j``).

    One compiled pass (:func:`receval._kernels.exact.exact_group_sums`), no sort.
    """
    acc = np.zeros((n_groups, XK.N_DIGITS), dtype=np.int64)
    special = np.zeros((n_groups, 3), dtype=np.int64)
    XK.exact_group_sums(np.ascontiguousarray(values, dtype=np.float64),
                        np.ascontiguousarray(group, dtype=np.int64), acc, special)
    sizes = np.bincount(group, minlength=n_groups)
    return [ExactSum.from_accumulator(acc[g], special[g], int(sizes[g]))
            for g in range(n_groups)]


def add_group_sums(parts: Sequence[list[ExactSum]]) -> list[ExactSum]:
    """Per-group exact sums of several partitions added up."""
    out = list(parts[0])
    for p in parts[1:]:
        out = [a + b for a, b in zip(out, p, strict=True)]
    return out


def group_table(index: Sequence[Any], columns: dict[str, Any],
                names: Sequence[str] = ("group",)) -> dict[str, Any]:
    """A per-group table as plain data (``ev.groups(label)`` makes it a DataFrame)."""
    def plain(v: Any) -> Any:
        return v.item() if isinstance(v, np.generic) else v

    return {"index": [tuple(plain(x) for x in i) if isinstance(i, tuple) else plain(i)
                      for i in index],
            "index_names": list(names),
            "columns": {k: [plain(x) for x in v] for k, v in columns.items()}}


def attention(model: str, params: dict[str, float], take: np.ndarray, rel: np.ndarray
              ) -> np.ndarray:
    """The attention of every top-k row (lists one after the other, ``take`` rows each).

    ``rbp``: ``g^(r-1)``; ``log``: ``1/log2(r+1)``; ``cascade``: ``g^(r-1) (1-s)^h`` with
    ``h`` the relevant rows above ``r`` in its list (expeval's gerr). One compiled pass
    (:func:`receval._kernels.fairness.attention_rows`).
    """
    out = np.empty(int(take.sum()))
    code = {"rbp": FK.RBP, "cascade": FK.CASCADE, "log": FK.LOG}[model]
    FK.attention_rows(np.ascontiguousarray(take, dtype=np.int64),
                      np.ascontiguousarray(rel, dtype=np.uint8), np.int64(code),
                      float(params.get("patience", 0.5)), float(params.get("stop", 0.0)), out)
    return out


def csr_parts(member: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A CSR matrix's arrays in the kernels' types."""
    return (np.ascontiguousarray(member.indptr, dtype=np.int64),
            np.ascontiguousarray(member.indices, dtype=np.int64),
            np.ascontiguousarray(member.data, dtype=np.float64))


def exact_group_rows(values: np.ndarray, item: np.ndarray, ok: np.ndarray, member: Any,
                     n_groups: int) -> list[ExactSum]:
    """Exact per-group sums of ``values[row] * member[item[row], g]`` over the rows ``ok``."""
    acc = np.zeros((n_groups, XK.N_DIGITS), dtype=np.int64)
    special = np.zeros((n_groups, 3), dtype=np.int64)
    counts = np.zeros(n_groups, dtype=np.int64)
    FK.exact_group_rows(np.ascontiguousarray(values, dtype=np.float64),
                        np.ascontiguousarray(item, dtype=np.int64), np.ascontiguousarray(ok),
                        *csr_parts(member), acc, special, counts)
    return [ExactSum.from_accumulator(acc[g], special[g], int(counts[g]))
            for g in range(n_groups)]
