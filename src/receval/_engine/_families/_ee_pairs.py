"""Expected exposure from (user, item) exposures: sampled rankings and expeval's group mode.

A deterministic list per user goes through ``_fair_lists.expected_exposure`` (one compiled
pass over the rows), which calls this module for the two forms that need each item's
exposure first:

* sampled rankings (``evaluate(sample=...)``): ``epsilon_d = (1/S) sum_s e(rank_s(d))``,
  each sample ranked and cut at k on its own (expeval's ``exposure.expected``);
* group mode (``groups=``, expeval ``-G``): the exposures of the judged items summed per
  item group, ``E_g = sum_{d in g} epsilon_d`` (an item in several groups counts in each),
  and the target likewise, before the measures compare them (expeval's ``group.py``).

Both are vectorised numpy over the rows of a partition (no per-user loop): the exposures of
every (user, item) pair are added with one ``bincount``, joined with the targets by sorted
keys, and the measures are per-user sums.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from receval._engine._families._base import Context
from receval._engine._families._ee_targets import geo, level_spans, level_targets
from receval._engine._families._item_groups import attention, item_groups
from receval._engine._families._per_list import side_of
from receval._engine._lists import ListCache, ListKey, cut
from receval.exceptions import DataError, format_examples
from receval.metrics import _fairness as F

__all__ = ["group_bounds", "item_exposures", "item_targets", "pair_measures"]


def item_exposures(m: F.ExpectedExposure, ctx: Context, users: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each (user, item) pair's exposure, averaged over the user's samples if there are any.

    Returns the pairs' rows (positions in ``users``), item codes and exposures, sorted by
    (row, item), and whether each user has a list (no list: expeval's defaults).
    """
    model, prm = m.model()
    key = ListKey(m.ties or ctx.opts.ties)
    n = len(users)
    chosen = np.full(ctx.data.n_users, -1, dtype=np.int64)
    chosen[users] = np.arange(n)
    samples = ctx.shared.get("samples")
    if samples is None:
        lists = ctx.lists.get(key).select(users)
        top = cut(lists, m.k)
        e = attention(model, prm, top.take, lists.rel[top.pos].astype(bool))
        row, item = top.row_list.astype(np.int64), lists.item[top.pos].astype(np.int64)
        has_list = top.take > 0
    else:
        lists = ListCache(samples.data, ctx.opts, ListCache.plan([(key, m.k or 0)])).get(key)
        top = cut(lists, m.k)
        e = attention(model, prm, top.take, lists.rel[top.pos].astype(bool))
        real = samples.user[top.row_list]
        row = chosen[real]
        item = samples.item[lists.item[top.pos]]
        e = e / samples.n_samples[real]
        keep = row >= 0
        row, item, e = row[keep], item[keep], e[keep]
        has_list = samples.n_samples[users] > 0
    n_items = np.int64(len(ctx.data.item_ids))
    keys, inverse = np.unique(row * n_items + item, return_inverse=True)
    eps = np.bincount(inverse, weights=e, minlength=len(keys))
    return keys // n_items, keys % n_items, eps, has_list


def item_targets(m: F.ExpectedExposure, ctx: Context, users: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every judged (user, item) pair's target exposure, sorted by (row, item).

    Relevant items have their level's target; with ``judgments='complete'`` the other
    judged items form level 0. Returns rows, item codes, targets, grades (0: level 0) and
    each user's number of levels.
    """
    data = ctx.data
    model, prm = m.model()
    chosen = np.full(data.n_users, -1, dtype=np.int64)
    chosen[users] = np.arange(len(users))
    row = chosen[data.t_user]
    judged = (row >= 0) & (data.t_rel | (m.judgments == "complete"))
    grade = np.where(data.t_rel, data.t_grade, 0.0)
    if m.grades == "binary":
        grade = data.t_rel.astype(np.float64)
    at = np.flatnonzero(judged)
    order = at[np.lexsort((-grade[at], row[at]))]
    row, grade, item = row[order], grade[order], data.t_item[order].astype(np.int64)
    b, size, n_levels = level_spans(grade, row, len(users))
    target = level_targets(model, prm["patience"], prm.get("stop", 0.0), grade,
                           b.astype(np.float64), size.astype(np.float64))
    by_key = np.lexsort((item, row))
    return row[by_key], item[by_key], target[by_key], grade[by_key], n_levels


def _join(keys: np.ndarray, want: np.ndarray) -> np.ndarray:
    """The position of each of ``want`` in the sorted ``keys`` (-1: absent)."""
    if len(keys) == 0:
        return np.full(len(want), -1, dtype=np.int64)
    at = np.minimum(np.searchsorted(keys, want), len(keys) - 1)
    return np.where(keys[at] == want, at, -1)


def pair_measures(m: F.ExpectedExposure, ctx: Context, users: np.ndarray
                  ) -> tuple[dict[str, np.ndarray], np.ndarray, dict[str, Any]]:
    """EE-D, EE-R and EE-L per user from the pairs' exposures (items or item groups).

    Returns the raw measures, whether each user has a list, and what the bounds read: the
    target rows and values (items or groups), their squared norm per user, the number of
    levels (items) or of groups, and the relevant items per user (groups).
    """
    n = len(users)
    n_items = np.int64(len(ctx.data.item_ids))
    row, item, eps, has_list = item_exposures(m, ctx, users)
    t_row, t_item, target, grade, n_levels = item_targets(m, ctx, users)
    t_keys, run_keys = t_row * n_items + t_item, row * n_items + item
    if m.groups != "items":
        at = _join(run_keys, t_keys)  # the run's exposure of each judged item
        return _group_measures(m, ctx, users, t_row, t_item, target, grade,
                               np.where(at >= 0, eps[np.maximum(at, 0)], 0.0), has_list)
    matched = _join(t_keys, run_keys)
    t = np.where(matched >= 0, target[np.maximum(matched, 0)], 0.0)
    norm = np.bincount(t_row, weights=target * target, minlength=n)
    reached = np.bincount(row, weights=t * t, minlength=n)
    out = {"d": np.bincount(row, weights=eps * eps, minlength=n),
           "r": np.bincount(row, weights=eps * t, minlength=n),
           "l": np.bincount(row, weights=(eps - t) ** 2, minlength=n) + (norm - reached)}
    return out, has_list, {"rows": t_row, "targets": target, "norm": norm,
                           "n_levels": n_levels}


def _group_measures(m: F.ExpectedExposure, ctx: Context, users: np.ndarray,
                    t_row: np.ndarray, t_item: np.ndarray, target: np.ndarray,
                    grade: np.ndarray, eps: np.ndarray, has_list: np.ndarray
                    ) -> tuple[dict[str, np.ndarray], np.ndarray, dict[str, Any]]:
    """expeval's group mode: judged items' exposures and targets summed per group."""
    side = side_of(ctx)
    groups = item_groups(m, ctx.opts, side)
    ok = groups.grouped[t_item]
    if m.ungrouped == "error" and not ok.all():
        bad = list(pd.unique(side.items[t_item[~ok]]))
        why = ("are absent from train (popularity groups are of training items)"
               if m.groups == "popularity" else "have no group in item_groups")
        raise DataError(
            f"{m.label}: {len(bad)} judged items {why} (e.g. "
            f"{format_examples(bad[:5], len(bad))}); group mode sums the exposure of the "
            f"judged items per group: give them a group, or pass ungrouped='skip' to leave "
            f"them out", parameter="item_groups", n_bad=len(bad), examples=bad[:5])
    member = groups.member[t_item[ok]].tocoo()  # full membership: each group gets it all
    at = np.flatnonzero(ok)[member.row]
    n, g = len(users), groups.n_groups
    cell = t_row[at] * g + member.col.astype(np.int64)
    run = np.bincount(cell, weights=eps[at], minlength=n * g).reshape(n, g)
    ideal = np.bincount(cell, weights=target[at], minlength=n * g).reshape(n, g)
    present = np.bincount(cell, minlength=n * g).reshape(n, g) > 0
    norm = (ideal * ideal).sum(axis=1)
    out = {"d": (run * run).sum(axis=1), "r": (run * ideal).sum(axis=1),
           "l": ((run - ideal) ** 2).sum(axis=1)}
    n_rel = np.bincount(t_row, weights=(grade > 0).astype(np.float64), minlength=n)
    return out, has_list, {"ideal": ideal, "present": present, "norm": norm,
                           "n_groups": present.sum(axis=1), "n_rel": n_rel}


def group_bounds(m: F.ExpectedExposure, info: dict[str, Any]
                 ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """expeval's group bounds (``metrics.py``: GroupDisparity, GroupDifference).

    With ``r`` relevant items, ``G`` groups with a judged item and ``M = sum_{i<r} g^i``:
    disparity in ``[G M'^2, G M^2]`` (``M'`` with ``g s`` for cascade; both 0 when
    ``G = 1``), difference in ``[0, max(sum E*^2, sum_g (M - E*_g)^2)]``. Group relevance's
    bounds are both 0 in expeval (normalised group EE-R is refused by the metric).
    """
    model, prm = m.model()
    p = prm["patience"]
    pp = p if model == "rbp" else p * prm["stop"]
    k = info["n_groups"].astype(np.float64)
    r = info["n_rel"]
    mass = geo(p, r)
    one = k == 1
    d_ub = np.where(one, 0.0, k * mass * mass)
    d_lb = np.where(one, 0.0, k * geo(pp, r) ** 2)
    gap = np.where(info["present"], (mass[:, None] - info["ideal"]) ** 2, 0.0).sum(axis=1)
    zero = np.zeros(len(k))
    return {"d": (d_lb, d_ub), "r": (zero, zero.copy()),
            "l": (zero.copy(), np.maximum(info["norm"], gap))}
