"""The group-exposure family: one value for all lists, and one per group (``ev.groups``).

Exposure by item group, RSP and REO (:mod:`receval.metrics._fairness`,
:mod:`receval.metrics._group_fairness`); delta GAP and bias disparity live in
:mod:`._user_group_bias`. Each partition returns per-group counts (integers) and exact sums
(:class:`receval._exact.ExactSum`), which add up over partitions exactly; the merge computes
each value, and each per-group table, once from the totals.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from receval._engine._families._base import Context, Family, FamilyPartial, MergeContext, Specs
from receval._engine._families._item_groups import (
    ItemGroups,
    add_group_sums,
    attention,
    check_grouped,
    exact_group_rows,
    group_table,
    item_groups,
    member_rows,
)
from receval._engine._families._per_list import side_of
from receval._engine._families._side import Side, check_inputs
from receval._engine._families._user_group_bias import BIAS_METRICS, bias_state, bias_summary
from receval._engine._lists import ListKey, cut
from receval._exact import ExactSum, exact_ratio
from receval._result import MetricSummary
from receval.exceptions import DataError, format_examples
from receval.metrics import _fairness as F
from receval.metrics import _group_fairness as G

__all__ = ["GroupExposureFamily"]


def _rows(ctx: Context, metric: Any, users: np.ndarray) -> tuple[Any, np.ndarray, Any]:
    """The top-k rows of ``users``' lists: the cut, item codes and the lists."""
    lists = ctx.lists.get(ListKey(metric.ties or ctx.opts.ties)).select(users)
    top = cut(lists, metric.k)
    return top, lists.item[top.pos].astype(np.int64), lists


def _exposure_state(m: F.GroupExposure, ctx: Context, side: Side, groups: ItemGroups,
                    users: np.ndarray) -> dict[str, Any]:
    top, item, lists = _rows(ctx, m, users)
    ok = check_grouped(m, groups, side, item)
    model, params = m.model()
    e = attention(model, params, top.take, lists.rel[top.pos])
    member = groups.split() if m.multi == "split" else groups.member
    return {"exposure": exact_group_rows(e, item, ok, member, groups.n_groups),
            "users": len(users)}


def _history_counts(side: Side, ctx: Context, groups: ItemGroups, users: np.ndarray
                    ) -> np.ndarray:
    """Per user, their training items in each group (users x groups)."""
    out = np.zeros((len(users), groups.n_groups))
    train = ctx.opts.side.train
    if side.user_items is None or train is None:
        return out
    rows = train.users.get_indexer(ctx.data.user_ids[users])
    has = rows >= 0
    counts = side.user_items[rows[has]] @ groups.member
    out[has] = np.asarray(counts.todense())
    return out


def _parity_users(m: Any, ctx: Context) -> tuple[np.ndarray, np.ndarray]:
    """The users of RSP / REO (codes), and which of them have a list."""
    data = ctx.data
    with_recs = data.recs_count() > 0
    if isinstance(m, G.REO):
        users = np.flatnonzero(data.relevant_count() > 0)
    elif m.users == "truth":
        users = np.flatnonzero(data.truth_count() > 0)
    else:
        users = np.flatnonzero(with_recs)
    return users, with_recs[users]


def _parity_state(m: Any, ctx: Context, side: Side, groups: ItemGroups) -> dict[str, Any]:
    """Recommended / candidate counts per group (RSP), or hits / relevant (REO)."""
    data = ctx.data
    users, listed = _parity_users(m, ctx)
    top, item, lists = _rows(ctx, m, users[listed])
    ok = check_grouped(m, groups, side, item)
    if isinstance(m, G.REO):
        ok &= lists.rel[top.pos].astype(bool)
    _, g, _ = member_rows(groups, item, ok, split=False)
    num = np.bincount(g, minlength=groups.n_groups).astype(np.int64)
    if isinstance(m, G.RSP):
        seen = _history_counts(side, ctx, groups, users).sum(axis=0)
        den = len(users) * groups.sizes - np.rint(seen).astype(np.int64)
        return {"num": num, "den": den, "users": len(users)}
    # REO: the users' relevant truth rows not in their training items
    chosen = np.zeros(data.n_users, dtype=bool)
    chosen[users] = True
    rows = np.flatnonzero(data.t_rel & chosen[data.t_user])
    t_item = data.t_item[rows].astype(np.int64)
    fresh = np.ones(len(rows), dtype=bool)
    train = ctx.opts.side.train
    if side.user_items is not None and train is not None:
        tu = train.users.get_indexer(data.user_ids[data.t_user[rows]])
        known = tu >= 0
        fresh[known] = np.asarray(side.user_items[tu[known], t_item[known]]).ravel() == 0
    rel = groups.member[t_item[fresh]].tocoo()
    den = np.bincount(rel.col, minlength=groups.n_groups).astype(np.int64)
    return {"num": num, "den": den, "users": len(users)}


def _parity_summary(m: Any, parts: list[dict[str, Any]], names: list[Any]
                    ) -> tuple[float, int, dict[str, Any]]:
    num = sum(p["num"] for p in parts)
    den = sum(p["den"] for p in parts)
    n = sum(p["users"] for p in parts)
    empty = [names[j] for j in np.flatnonzero(den == 0)]
    if empty:
        raise DataError(
            f"{m.label}: groups {format_examples(empty, len(empty))} have no "
            f"{'relevant ' if isinstance(m, G.REO) else ''}item a user could be recommended "
            f"(the denominator of their probability is 0); leave them out of item_groups",
            parameter="item_groups", n_bad=len(empty), examples=empty[:5])
    prob = num / den
    mean = float(np.mean(prob)) + m.eps
    value = float(np.std(prob)) / mean if mean > 0 else float("nan")
    table = group_table(names, {"recommended" if isinstance(m, G.RSP) else "hits": num,
                                "candidates" if isinstance(m, G.RSP) else "relevant": den,
                                "probability": prob})
    return value, n, table


def _exposure_summary(m: F.GroupExposure, parts: list[dict[str, Any]], names: list[Any]
                      ) -> tuple[float, int, dict[str, Any]]:
    sums = add_group_sums([p["exposure"] for p in parts])
    n = sum(p["users"] for p in parts)
    total = sum(sums, ExactSum())
    share = np.array([exact_ratio(s, total) for s in sums])
    value = float(share.max() - share.min()) if len(share) and total.scaled > 0 \
        else float("nan")
    exposure = [s.value() if m.normalize == "share" else exact_ratio(s, ExactSum.of(
        np.array([float(n)]))) for s in sums]
    return value, n, group_table(names, {"exposure": exposure, "share": share})


class GroupExposureFamily(Family):
    """Exposure by group, RSP, REO, delta GAP, bias disparity: a value and a group table."""

    name = "group_exposure"
    per_user = False

    def lists(self, specs: Specs, opts: Any) -> list[tuple[ListKey, int]]:
        return [(ListKey(m.ties or opts.ties), m.k or 0) for _, m in specs]

    def run(self, ctx: Context, specs: Specs) -> FamilyPartial:
        metrics = [m for _, m in specs]
        check_inputs(metrics, ctx.opts)
        side = side_of(ctx)
        out = FamilyPartial()
        for m in metrics:
            if isinstance(m, BIAS_METRICS):
                out.state[m.label] = bias_state(m, ctx, side)
                continue
            groups = item_groups(m, ctx.opts, side)
            if isinstance(m, F.GroupExposure):
                state = _exposure_state(m, ctx, side, groups, ctx.users_with_recs())
            else:
                state = _parity_state(m, ctx, side, groups)
            out.state[m.label] = {**state, "names": groups.names}
        return out

    def _finish(self, m: Any, parts: Sequence[FamilyPartial], ctx: MergeContext
                ) -> tuple[float, int, dict[str, Any]]:
        got = [p.state[m.label] for p in parts if m.label in p.state]
        if isinstance(m, BIAS_METRICS):
            return bias_summary(m, got, ctx)
        names = got[0]["names"]
        if isinstance(m, F.GroupExposure):
            return _exposure_summary(m, got, names)
        return _parity_summary(m, got, names)

    def summarize(self, specs: Specs, parts: Sequence[FamilyPartial], ctx: MergeContext
                  ) -> dict[str, MetricSummary]:
        out = {}
        for _, m in specs:
            value, n, _ = self._finish(m, parts, ctx)
            out[m.label] = MetricSummary(m, value, "global", n)
        return out

    def settings(self, specs: Specs, parts: Sequence[FamilyPartial], ctx: MergeContext
                 ) -> dict[str, Any]:
        return {"groups": {m.label: self._finish(m, parts, ctx)[2] for _, m in specs}}
