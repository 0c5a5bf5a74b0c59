"""Per-row terms of the per-list beyond-accuracy metrics (novelty, popularity, ...)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from receval._engine._families._side import Side
from receval._engine._families._similarity import MODES, similarity_inputs, usable_items
from receval._engine._lists import Cut
from receval._kernels import beyond as BK
from receval.exceptions import DataError, format_examples
from receval.metrics import _beyond as M

__all__ = ["row_terms"]


def _popularity_of(side: Side, kind: str) -> tuple[np.ndarray, float]:
    if kind == "users":
        return side.pop_users, float(side.n_train_users)
    return side.pop_rows, float(side.n_train_rows)


def _absent_error(metric: M.BeyondMetric, side: Side, codes: np.ndarray) -> None:
    bad = pd.unique(side.items[codes[~side.in_train[codes]]])
    if len(bad):
        raise DataError(f"{metric.label}: {len(bad)} recommended items are absent from train "
                        f"(e.g. {format_examples(list(bad[:5]), len(bad))}); pass "
                        f"absent='one', 'zero' or 'skip'", parameter="absent",
                        n_bad=len(bad), examples=list(bad[:5]))


def row_terms(metric: M.BeyondMetric, side: Side, item: np.ndarray, rel: np.ndarray,
              top: Cut, policy: str = "error") -> tuple[np.ndarray, np.ndarray]:
    """Per top-k row: the metric's term and whether the row counts (in the denominator).

    ``policy``: ``item_features_missing`` (items without features in similarities).
    """
    counts = np.ones(len(item), dtype=bool)
    if isinstance(metric, M.Novelty):
        pop, total = _popularity_of(side, metric.popularity)
        known = side.in_train[item]
        if metric.absent == "error":
            _absent_error(metric, side, item)
        p = np.where(known, pop[item], 1.0) / max(total, 1.0)
        term = -np.log(p) / math.log(metric.base)
        if metric.absent == "zero":
            term[~known] = 0.0
        elif metric.absent == "skip":
            counts = known
        return term, counts
    if isinstance(metric, M.Popularity):
        pop, total = _popularity_of(side, metric.popularity)
        scale = {"count": 1.0, "max": float(pop.max(initial=0.0)) or 1.0,
                 "share": total or 1.0}[metric.scale]
        if metric.absent == "skip":
            counts = side.in_train[item]
        return pop[item] / scale, counts
    if isinstance(metric, (M.LongTail, M.LongTailCoverage)):
        return _tail_mask(metric, side)[item].astype(np.float64), counts
    return _unexpected(metric, side, item, rel, top, policy)


def _tail_mask(metric: M.LongTail | M.LongTailCoverage, side: Side) -> np.ndarray:
    train = np.flatnonzero(side.in_train)
    ids = np.arange(len(train))  # train codes sorted by id order of side.items
    order_id = np.argsort(np.asarray(side.items[train].astype(str)) if
                          side.items.dtype == object else np.asarray(side.items[train]),
                          kind="stable")
    rank_id = np.empty_like(ids)
    rank_id[order_id] = ids
    count = side.pop_rows[train]
    tail = np.zeros(len(side.items), dtype=bool)
    if metric.tail is not None:  # bottom share by (count, id)
        order = np.lexsort((rank_id, count))
        tail[train[order[:max(int(len(train) * metric.tail), 1)]]] = True
    else:  # outside the top share by (-count, id)
        order = np.lexsort((rank_id, -count))
        tail[train] = True
        tail[train[order[:max(int(len(train) * metric.head), 1)]]] = False
    if metric.absent == "tail":
        tail[~side.in_train] = True
    return tail


def _unexpected(metric: M.BeyondMetric, side: Side, item: np.ndarray, rel: np.ndarray,
                top: Cut, policy: str) -> tuple[np.ndarray, np.ndarray]:
    assert isinstance(metric, M.Serendipity)
    take, starts = top.take, top.starts
    out = np.zeros(len(item))
    if metric.expected == "popular":
        by_pop = np.flatnonzero(side.in_train)
        id_rank = np.argsort(np.argsort(np.asarray(side.items[by_pop].astype(str)) if
                                        side.items.dtype == object
                                        else np.asarray(side.items[by_pop]), kind="stable"))
        by_pop = by_pop[np.lexsort((id_rank, -side.pop_rows[by_pop]))].astype(np.int64)
        want = metric.n_expected or metric.k
        n_exp = take.copy() if want is None else np.full(len(take), want, dtype=np.int64)
        BK.expected_unexpected(starts, take, item, side.h_starts, side.h_ends, side.h_item,
                               by_pop, n_exp.astype(np.int64), out)
    else:
        mode = MODES[metric.similarity]
        usable = usable_items(side, mode, policy)
        keys, vals, feats, mode = similarity_inputs(side, mode, item, history=True)
        BK.mean_similarity_to_history(starts, take, item, side.h_starts, side.h_ends,
                                      side.h_item, usable, mode, feats, keys, vals,
                                      len(side.items), out)
    if not isinstance(metric, M.Unexpectedness):
        out = out * rel
    counts = ~np.isnan(out)
    return np.nan_to_num(out), counts
