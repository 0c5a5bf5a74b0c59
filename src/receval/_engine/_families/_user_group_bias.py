"""Delta GAP and bias disparity: popularity and category bias of user groups, train to lists.

Part of the ``group_exposure`` family (:mod:`._group_exposure`). Per partition: each user
group's exact sums of the users' mean item popularity in profile and list (delta GAP), or
integer counts of recommended items per (user group, item category) (bias disparity). The
training side (profiles, ``B_S``) is read from the side inputs prepared once per evaluation,
so every partition and the merge see the same groups.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from receval._engine._families._base import Context, MergeContext
from receval._engine._families._item_groups import (
    add_group_sums,
    group_sums,
    group_table,
    id_rank,
)
from receval._engine._families._side import Side
from receval._engine._lists import ListKey, cut
from receval.exceptions import InvalidParameterError
from receval.metrics import _group_fairness as G

__all__ = ["BIAS_METRICS", "bias_state", "bias_summary", "popularity_user_groups"]

BIAS_METRICS = (G.DeltaGap, G.BiasDisparity)
_NAMES = ["blockbuster", "diverse", "niche"]


def popularity_user_groups(m: G.DeltaGap, opts: Any) -> np.ndarray:
    """Each training user's group (0 blockbuster, 1 diverse, 2 niche, -1 none), ClayRS's way.

    Popular items: the first ``round(top |items|)`` (half to even) by training rows,
    descending; users by their share of popular training items, descending, cut into
    consecutive slices ``[round(N c_{j-1}), round(N c_j))`` of the cumulative ``shares``.
    Ties by id, or (``order='train'``) by first appearance in train.
    """
    train, items = opts.side.train, opts.side.items
    in_train = np.flatnonzero(train.pop_rows > 0)
    tie = in_train if m.order == "train" else id_rank(items[in_train])
    ranked = in_train[np.lexsort((tie, -train.pop_rows[in_train]))]
    popular = np.zeros(len(items))
    popular[ranked[:round(len(in_train) * m.top)]] = 1.0
    x = train.user_items
    size = np.asarray(x.sum(axis=1)).ravel()
    ratio = np.asarray(x @ popular).ravel() / np.maximum(size, 1.0)
    n = len(ratio)
    utie = np.arange(n) if m.order == "train" else id_rank(train.users)
    order = np.lexsort((utie, -ratio))
    out = np.full(n, -1, dtype=np.int64)
    bounds = [round(n * c) for c in np.concatenate([[0.0], np.cumsum(m.shares)])]
    for j in range(3):
        out[order[bounds[j]:bounds[j + 1]]] = j
    return out


def _user_groups(ctx: Context, ids: pd.Index, m: Any) -> tuple[np.ndarray, list[Any]]:
    """Group code of each user id (-1: none) and the group names."""
    opts = ctx.opts
    if isinstance(m, G.DeltaGap) and m.user_groups == "popularity":
        groups = popularity_user_groups(m, opts)
        rows = opts.side.train.users.get_indexer(ids)
        return np.where(rows >= 0, groups[np.maximum(rows, 0)], -1), list(_NAMES)
    given = opts.side.user_groups
    if given is None:
        if isinstance(m, G.DeltaGap):
            raise InvalidParameterError(
                f"{m.label} needs evaluate(user_groups=...) with user_groups='given'",
                parameter="user_groups")
        return np.zeros(len(ids), dtype=np.int64), ["all"]
    rows = given.rows_of(ids)
    member = given.member[np.maximum(rows, 0)].tocsr()
    code = np.where(rows >= 0, member.indices[member.indptr[:-1]] if member.nnz else -1, -1)
    return np.asarray(code, dtype=np.int64), list(given.names)


def _gap_state(m: G.DeltaGap, ctx: Context, side: Side) -> dict[str, Any]:
    users = ctx.users_with_recs()
    ids = ctx.data.user_ids[users]
    code, names = _user_groups(ctx, ids, m)
    phi = side.pop_rows / max(side.n_train_users, 1)
    train = ctx.opts.side.train
    rows = train.users.get_indexer(ids)
    has = (rows >= 0) & (code >= 0)
    x = side.user_items[rows[has]]
    profile = np.asarray(x @ phi).ravel() / np.asarray(x.sum(axis=1)).ravel()
    lists = ctx.lists.get(ListKey(m.ties or ctx.opts.ties)).select(users[has])
    top = cut(lists, m.k)
    item = lists.item[top.pos].astype(np.int64)
    recs = np.bincount(top.row_list, weights=phi[item], minlength=len(top.take)) / top.take
    g = code[has]
    n_g = len(names)
    return {"profile": group_sums(profile, g, n_g), "recs": group_sums(recs, g, n_g),
            "all_profile": group_sums(profile, np.zeros(len(g), np.int64), 1),
            "all_recs": group_sums(recs, np.zeros(len(g), np.int64), 1),
            "n": np.bincount(g, minlength=n_g), "names": names,
            "left_out": int((~has).sum())}


def _bias_state(m: G.BiasDisparity, ctx: Context, side: Side) -> dict[str, Any]:
    from receval._engine._families._item_groups import check_grouped, item_groups

    data = ctx.data
    users = ctx.users_with_recs()
    if m.users == "truth":
        users = users[data.truth_count()[users] > 0]
    code, names = _user_groups(ctx, data.user_ids[users], m)
    groups = item_groups(m, ctx.opts, side)
    lists = ctx.lists.get(ListKey(m.ties or ctx.opts.ties)).select(users[code >= 0])
    top = cut(lists, m.k)
    item = lists.item[top.pos].astype(np.int64)
    ok = check_grouped(m, groups, side, item)
    ug = code[code >= 0][top.row_list]
    coo = groups.member[item[ok]].tocoo()
    counts = np.zeros((len(names), groups.n_groups), dtype=np.int64)
    np.add.at(counts, (ug[ok][coo.row], coo.col), 1)
    sizes = np.bincount(ug, minlength=len(names)).astype(np.int64)
    return {"counts": counts, "sizes": sizes, "names": names, "categories": groups.names,
            "users": int((code >= 0).sum()), "left_out": int((code < 0).sum())}


def bias_state(m: Any, ctx: Context, side: Side) -> dict[str, Any]:
    """One partition's state of delta GAP or bias disparity."""
    if isinstance(m, G.BiasDisparity) and m.groups != "item_groups":
        raise InvalidParameterError(
            f"{m.label}: bias disparity's categories come from item_groups; groups="
            f"'popularity' is not offered", parameter="groups")
    return _gap_state(m, ctx, side) if isinstance(m, G.DeltaGap) else _bias_state(m, ctx, side)


def _gap_summary(parts: list[dict[str, Any]]) -> tuple[float, int, dict[str, Any]]:
    names = parts[0]["names"]

    def delta(p: float, r: float) -> float:
        return (r - p) / p if p > 0 else float("nan")

    prof = add_group_sums([p["profile"] for p in parts])
    recs = add_group_sums([p["recs"] for p in parts])
    n = sum(p["n"] for p in parts)
    gp = [s.mean() for s in prof]
    gr = [s.mean() for s in recs]
    all_p = add_group_sums([p["all_profile"] for p in parts])[0].mean()
    all_r = add_group_sums([p["all_recs"] for p in parts])[0].mean()
    table = group_table(names, {"users": n, "gap_profile": gp, "gap_recs": gr,
                                "delta_gap": [delta(a, b) for a, b in zip(gp, gr, strict=True)]})
    return delta(all_p, all_r), int(n.sum()), table


def _bias_summary(m: G.BiasDisparity, parts: list[dict[str, Any]], ctx: MergeContext
                  ) -> tuple[float, int, dict[str, Any]]:
    opts = ctx.opts
    names, cats = parts[0]["names"], parts[0]["categories"]
    counts = sum(p["counts"] for p in parts)
    sizes = sum(p["sizes"] for p in parts)
    groups = opts.side.item_groups
    p_c = groups.sizes() / len(groups.ids)
    b_r = counts / np.maximum(sizes, 1)[:, None] / p_c
    b_r[sizes == 0] = np.nan
    train = opts.side.train
    cat = groups.matrix_of(opts.side.items)
    per_user = np.asarray((train.user_items @ cat).todense())
    size = np.asarray(train.user_items.sum(axis=1)).ravel()
    if opts.side.user_groups is None:
        code = np.zeros(len(size), dtype=np.int64)
    else:
        rows = opts.side.user_groups.rows_of(train.users)
        member = opts.side.user_groups.member[np.maximum(rows, 0)].tocsr()
        code = np.where(rows >= 0, member.indices[member.indptr[:-1]], -1)
    keep = code >= 0
    s_num = np.zeros((len(names), len(cats)))
    np.add.at(s_num, code[keep], per_user[keep])
    s_den = np.bincount(code[keep], weights=size[keep], minlength=len(names))
    with np.errstate(invalid="ignore", divide="ignore"):
        b_s = s_num / s_den[:, None] / p_c
        bd = (b_r - b_s) / b_s
    part = {"bd": bd, "br": b_r, "bs": b_s}[m.part]
    cells = np.abs(part) if m.part == "bd" else part
    value = float(np.nanmean(cells)) if np.isfinite(cells).any() else float("nan")
    index = [(g, c) for g in names for c in cats]
    table = group_table(index, {"bs": b_s.ravel(), "br": b_r.ravel(), "bd": bd.ravel()},
                        ("user_group", "item_group"))
    return value, sum(p["users"] for p in parts), table


def bias_summary(m: Any, parts: list[dict[str, Any]], ctx: MergeContext
                 ) -> tuple[float, int, dict[str, Any]]:
    """The value, users and group table of delta GAP or bias disparity."""
    if isinstance(m, G.DeltaGap):
        return _gap_summary(parts)
    return _bias_summary(m, parts, ctx)
