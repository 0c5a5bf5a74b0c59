"""The fair-lists family: per-user exposure fairness of a list (expected exposure, AWRF).

Expected exposure (Diaz et al. 2020, expeval) compares each user's exposure of items with
the ideal one from the truth grades; AWRF (TREC Fair 2022) compares the attention a list
gives each item group with a target distribution. Both are a value per user, computed with
vectorised numpy over every row of a partition (no per-user loop), held as a
:class:`~receval._aggregate.Column` like every per-user metric.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from receval._aggregate import Column
from receval._engine._families._base import Context, FamilyPartial, MergeContext, Specs
from receval._engine._families._ee_pairs import group_bounds, pair_measures
from receval._engine._families._ee_targets import geo, level_spans, level_targets
from receval._engine._families._item_groups import (
    attention,
    check_grouped,
    csr_parts,
    item_groups,
    member_rows,
)
from receval._engine._families._per_list import PerList, side_of
from receval._engine._families._side import check_inputs
from receval._engine._lists import ListKey, cut
from receval._kernels import fairness as FK
from receval._kernels.fsum import segment_sums_f32
from receval.exceptions import DataError, InvalidParameterError, format_examples
from receval.metrics import _fairness as F

__all__ = ["FairLists", "expected_exposure"]


def _truth_targets(m: F.ExpectedExposure, ctx: Context, lists: Any, users: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, Any]:
    """Every target item of every user (row, target), and the levels (a lookup)."""
    model, prm = m.model()
    p, u = prm["patience"], prm.get("stop", 0.0)
    lengths = lists.ideal_ends - lists.ideal_starts
    pos = np.repeat(lists.ideal_starts, lengths) + (
        np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths))
    grade = lists.ideal_grade[pos]
    if m.grades == "binary":
        grade = np.ones(len(grade))
    row = np.repeat(np.arange(len(users)), lengths)
    zero = np.zeros(len(users), dtype=np.int64)
    if m.judgments == "complete":  # judged items that are not relevant: one level 0
        zero = ctx.data.truth_count()[users] - lengths
    b, size, n_levels = level_spans(grade, row, len(users))
    target = level_targets(model, p, u, grade, b.astype(np.float64), size.astype(np.float64))
    z_rows = np.flatnonzero(zero > 0)
    z_target = level_targets(model, p, u, np.zeros(len(z_rows)),
                             lengths[z_rows].astype(np.float64),
                             zero[z_rows].astype(np.float64))
    rows = np.concatenate([row, np.repeat(z_rows, zero[z_rows])])
    targets = np.concatenate([target, np.repeat(z_target, zero[z_rows])])
    levels = (grade, row, n_levels + (zero > 0), z_rows, z_target)
    return rows, targets, levels


def _user_sums(levels: Any, top: Any, e: np.ndarray, run_grade: np.ndarray,
               rel: np.ndarray, judged: np.ndarray, target: np.ndarray, n_users: int
               ) -> np.ndarray:
    """Per user: sum e^2, sum e t, sum (e - t)^2 and sum t^2 over the run's rows.

    ``t`` is each row's target (its level's, level 0's if judged, else 0); one compiled pass.
    """
    grade, row, _, z_rows, z_target = levels
    zt = np.zeros(n_users)
    zt[z_rows] = z_target
    out = np.zeros((n_users, 4))
    FK.exposure_sums(np.ascontiguousarray(top.take, dtype=np.int64), e,
                     np.ascontiguousarray(run_grade, dtype=np.float64), rel, judged,
                     np.cumsum(np.bincount(row, minlength=n_users)).astype(np.int64),
                     np.ascontiguousarray(grade, dtype=np.float64),
                     np.ascontiguousarray(target[:len(grade)]), zt, out)
    return out


def expected_exposure(m: F.ExpectedExposure, ctx: Context, users: np.ndarray) -> np.ndarray:
    """EE-L, EE-D or EE-R of each user (normalised with expeval's bounds if asked).

    Sampled rankings and the group mode go through each item's exposure first
    (:mod:`._ee_pairs`); one deterministic list per user through one compiled pass.
    """
    if m.groups != "items" or "samples" in ctx.shared:
        return _from_pairs(m, ctx, users)
    data = ctx.data
    model, prm = m.model()
    lists = ctx.lists.get(ListKey(m.ties or ctx.opts.ties)).select(users)
    top = cut(lists, m.k)
    rel = lists.rel[top.pos].astype(bool)
    e = attention(model, prm, top.take, rel)
    rows, targets, levels = _truth_targets(m, ctx, lists, users)
    n = len(users)
    run_grade = lists.grade[top.pos]  # read where relevant only
    if m.grades == "binary":
        run_grade = rel.astype(np.float64)
    judged = np.zeros(len(rel), dtype=bool)
    if m.judgments == "complete":
        n_items = np.int64(len(data.item_ids))
        truth_keys = data.t_user.astype(np.int64) * n_items + data.t_item
        item = lists.item[top.pos].astype(np.int64)
        judged = np.isin(users[top.row_list].astype(np.int64) * n_items + item, truth_keys)
    sums = _user_sums(levels, top, e, run_grade, rel, judged, targets, n)
    d, r = sums[:, 0], sums[:, 1]
    norm = np.bincount(rows, weights=targets * targets, minlength=n)
    diff = sums[:, 2] + (norm - sums[:, 3])  # targets the run does not reach count in full
    value = {"d": d, "r": r, "l": diff}[m.measure]
    bounds = _bounds(m, ctx, rows, levels[2], targets, norm, users)
    empty = top.take == 0  # expeval: disparity = ub, relevance = lb, difference = |eps*|^2
    if empty.any():
        raw = {"d": bounds["d"][1], "r": bounds["r"][0], "l": norm}[m.measure]
        value = np.where(empty, raw, value)
    return _normalized(m, value, bounds)


def _normalized(m: F.ExpectedExposure, value: np.ndarray,
                bounds: dict[str, tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """``(value - lb) / (ub - lb)`` if asked; expeval's default when the bounds meet."""
    if not m.normalize:
        return value
    lb, ub = bounds[m.measure]
    default = {"d": 0.0, "r": 1.0, "l": 0.0}[m.measure]
    same = lb == ub
    scaled = np.divide(value - lb, ub - lb, out=np.zeros(len(value)), where=~same)
    return np.where(same, default, scaled)


def _from_pairs(m: F.ExpectedExposure, ctx: Context, users: np.ndarray) -> np.ndarray:
    """EE of sampled rankings, or in group mode (expeval's defaults for users without list).

    A user without a list has disparity = its upper bound, relevance = its lower bound and
    difference = the target's squared norm (expeval's group mode gives 0 there: its group
    relevance's upper bound).
    """
    raw, has_list, info = pair_measures(m, ctx, users)
    if m.groups == "items":
        bounds = _bounds(m, ctx, info["rows"], info["n_levels"], info["targets"],
                         info["norm"], users)
    else:
        bounds = group_bounds(m, info)
    empty = {"d": bounds["d"][1], "r": bounds["r"][0], "l": info["norm"]}[m.measure]
    return _normalized(m, np.where(has_list, raw[m.measure], empty), bounds)


def _bounds(m: F.ExpectedExposure, ctx: Context, rows: np.ndarray, n_levels: np.ndarray,
            targets: np.ndarray, norm: np.ndarray, users: np.ndarray
            ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """expeval's lower and upper bounds of each measure, per user (``metrics.py``)."""
    model, prm = m.model()
    p = prm["patience"]
    pp = p if model == "rbp" else p * prm["stop"]
    n_users = len(users)
    if m.judgments == "complete":
        n = ctx.data.truth_count()[users].astype(np.float64)
    else:
        n = np.full(n_users, np.inf)
    finite = np.isfinite(n)
    d_ub = geo(p * p, n)
    d_lb = np.where(finite, geo(pp, n) ** 2 / np.where(finite, n, 1.0), 0.0)
    r_lb: np.ndarray = np.zeros(n_users)
    l_ub: np.ndarray = norm + 1.0 / (1.0 - pp)
    if finite.any():  # complete judgments: every user's targets ascending
        order = np.lexsort((targets, rows))
        j = np.arange(len(order)) - np.searchsorted(rows[order], rows[order])
        r_lb = np.bincount(rows[order], weights=pp ** j * targets[order], minlength=n_users)
        l_ub = np.bincount(rows[order], weights=(pp ** j - targets[order]) ** 2,
                           minlength=n_users)
    r_ub = norm.copy()
    one_level = n_levels <= 1
    r_lb[one_level] = r_ub[one_level] = 0.0
    return {"d": (d_lb, d_ub), "r": (r_lb, r_ub), "l": (np.zeros(n_users), l_ub)}


def _discounts(m: F.AWRF, n: int) -> np.ndarray:
    """The attention of ranks 1..n; float32 as TREC's ``common.discount`` if asked."""
    dtype = np.float32 if m.precision == "float32" else np.float64
    r = np.arange(1, n + 1, dtype=dtype)
    r = np.maximum(r, dtype(2)) if m.discount == "log2_max2" else r + dtype(1)
    return np.reciprocal(np.log2(r))


def _ndcg(m: F.AWRF, lists: Any, top: Any, n_users: int) -> np.ndarray:
    """TREC Fair 2022's nDCG (``qr_ndcg``), per user.

    Binary gains, the AWRF discount, the ideal over ``min(500, |R|)`` places; in float32
    with numpy's summation order if asked.
    """
    rank = np.arange(len(top.pos)) - np.repeat(top.starts, top.take)
    n_rel = np.minimum(lists.n_rel, 500)
    table = _discounts(m, max(int(top.take.max(initial=0)), int(n_rel.max(initial=0)), 1))
    gain = lists.rel[top.pos].astype(table.dtype) * table[rank]
    ideal_rows = np.arange(int(n_rel.sum())) - np.repeat(np.cumsum(n_rel) - n_rel, n_rel)
    dcg: np.ndarray
    ideal: np.ndarray
    if m.precision == "float32":
        dcg = np.zeros(n_users, dtype=np.float32)
        ideal = np.zeros(n_users, dtype=np.float32)
        segment_sums_f32(gain, top.starts, top.starts + top.take, dcg)
        ends = np.cumsum(n_rel)
        segment_sums_f32(table[ideal_rows], ends - n_rel, ends, ideal)
    else:
        dcg = np.bincount(top.row_list, weights=gain, minlength=n_users)
        ideal = np.bincount(np.repeat(np.arange(n_users), n_rel), weights=table[ideal_rows],
                            minlength=n_users)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = (dcg / ideal).astype(np.float64)
    return np.where(n_rel > 0, out, np.nan)


def _by_group(row: np.ndarray, group: np.ndarray, weight: np.ndarray, n: int, g: int
              ) -> np.ndarray:
    """``out[row, group] += weight`` (n x g), one bincount."""
    return np.bincount(row * g + group, weights=weight, minlength=n * g).reshape(n, g)


def _awrf_target(m: F.AWRF, ctx: Context, groups: Any, users: np.ndarray) -> np.ndarray:
    """Each user's target distribution over the groups (users x groups)."""
    g = groups.n_groups
    if m.population is not None:
        given = dict(m.population)
        missing = [x for x in groups.names if str(x) not in given]
        if missing:
            raise DataError(f"{m.label}: population gives no weight to groups "
                            f"{format_examples(missing, len(missing))}",
                            parameter="population", examples=missing[:5])
        pop = np.array([given[str(x)] for x in groups.names])
        if not pop.sum() > 0:
            raise InvalidParameterError(
                f"{m.label}: population gives weight 0 to every group of the items "
                f"({format_examples(list(groups.names), len(groups.names))}): the target "
                f"population / sum(population) is undefined", parameter="population",
                examples=list(groups.names)[:5])
    elif ctx.opts.side.item_groups is not None and m.groups == "item_groups":
        table = ctx.opts.side.item_groups
        count = np.asarray(table.member.sum(axis=1)).ravel()
        pop = np.asarray(table.member.multiply(1.0 / count[:, None]).sum(axis=0)).ravel()
    else:
        pop = groups.sizes.astype(np.float64)
    pop = pop / pop.sum()
    if m.target == "uniform":
        return np.full((len(users), g), 1.0 / g)
    if m.target == "population":
        return np.tile(pop, (len(users), 1))
    data = ctx.data
    chosen = np.full(data.n_users, -1, dtype=np.int64)
    chosen[users] = np.arange(len(users))
    rows = np.flatnonzero(data.t_rel & (chosen[data.t_user] >= 0))
    item = data.t_item[rows].astype(np.int64)
    at, grp, wt = member_rows(groups, item, groups.grouped[item], split=True)
    rel = _by_group(chosen[data.t_user[rows[at]]], grp, wt, len(users), g)
    total = rel.sum(axis=1, keepdims=True)
    rel = np.divide(rel, total, out=np.full_like(rel, np.nan), where=total > 0)
    return rel if m.target == "relevance" else m.weight * rel + (1 - m.weight) * pop


def awrf(m: F.AWRF, ctx: Context, users: np.ndarray) -> np.ndarray:
    """``1 - JS(D_u, T_u)`` per user (natural log), times TREC's nDCG if asked."""
    side = side_of(ctx)
    groups = item_groups(m, ctx.opts, side)
    lists = ctx.lists.get(ListKey(m.ties or ctx.opts.ties)).select(users)
    top = cut(lists, m.k)
    item = lists.item[top.pos].astype(np.int64)
    ok = check_grouped(m, groups, side, item)
    rank = np.arange(len(item)) - np.repeat(top.starts, top.take)
    w = _discounts(m, int(top.take.max(initial=1)))[rank].astype(np.float64)
    dist = np.zeros((len(users), groups.n_groups))
    FK.group_mass(np.ascontiguousarray(top.take, dtype=np.int64), item, w, ok,
                  *csr_parts(groups.split()), dist)
    total = dist.sum(axis=1, keepdims=True)
    p = np.divide(dist, total, out=np.full_like(dist, np.nan), where=total > 0)
    q = _awrf_target(m, ctx, groups, users)
    q = q / q.sum(axis=1, keepdims=True)
    mid = 0.5 * (p + q)

    def kl(x: np.ndarray) -> np.ndarray:
        safe = np.where(x > 0, x, 1.0)
        return np.sum(np.where(x > 0, x * np.log(safe / np.where(x > 0, mid, 1.0)), 0.0),
                      axis=1)

    value = 1.0 - 0.5 * (kl(p) + kl(q))
    value[~np.isfinite(p).all(axis=1) | ~np.isfinite(q).all(axis=1)] = np.nan
    if m.times_ndcg:
        value = value * _ndcg(m, lists, top, len(users))
    return value


class FairLists(PerList):
    """Expected exposure and AWRF: a value per user."""

    name = "fair_lists"

    def run(self, ctx: Context, specs: Specs) -> FamilyPartial:
        data, opts = ctx.data, ctx.opts
        metrics = [m for _, m in specs]
        check_inputs(metrics, opts)
        out = FamilyPartial(state={"items_without_features": 0})
        for m in metrics:
            if isinstance(m, F.ExpectedExposure):
                users = ctx.evaluated
                if opts.policies["missing_recs"] == "skip":
                    users = users[data.recs_count()[users] > 0]
                values = expected_exposure(m, ctx, users)
            else:
                users = ctx.users_with_recs()
                values = awrf(m, ctx, users)
            out.add(m.label, Column(pd.Index(data.user_ids[users]), values))
        return out

    def settings(self, specs: Specs, parts: Sequence[FamilyPartial], ctx: MergeContext
                 ) -> dict[str, Any]:
        return {}
