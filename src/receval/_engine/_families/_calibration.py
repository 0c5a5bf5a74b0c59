"""The calibration family: per-user divergence of a list's category mix from the history's.

Miscalibration (Steck 2018; categories from ``item_features``) and popularity calibration
(Abdollahpouri et al. 2021; head / mid / tail by training popularity). Per partition, both
distributions of every user come from two sparse products, ``H @ F`` (history rows x item
categories) and ``L @ F`` (top-k rows x item categories), then one vectorised divergence
per user: no per-user loop. Side inputs come prepared once per evaluation (``opts.side``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from receval._aggregate import Column
from receval._engine._families._base import Context, FamilyPartial, MergeContext, Specs
from receval._engine._families._item_groups import by_popularity
from receval._engine._families._per_list import PerList, features_missing, side_of
from receval._engine._families._side import Side, check_inputs
from receval._engine._lists import ListKey, cut
from receval.exceptions import DataError, format_examples
from receval.metrics import _calibration as C

__all__ = ["Calibration", "divergence", "popularity_classes"]


def _log(x: np.ndarray, base: float | None) -> np.ndarray:
    out = np.log(x)
    return out / np.log(base) if base is not None else out


def _xlogy(x: np.ndarray, y: np.ndarray, base: float | None) -> np.ndarray:
    """``x log(x / y)``, 0 where ``x`` is 0."""
    safe = np.where(x > 0, x, 1.0)
    return np.where(x > 0, x * _log(safe / np.where(x > 0, y, 1.0), base), 0.0)


def divergence(metric: C.CalibrationMetric, p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The metric's divergence of each row of ``q`` from the same row of ``p``.

    ``kl``: ``sum_g p log(p / ((1 - a) q + a p))`` (terms with ``p = 0`` are 0), or with
    ``order='list_profile'`` the same with ``p`` and ``q`` swapped; ``js``: ``1/2 KL(p||m) +
    1/2 KL(q||m)``, ``m = (p + q) / 2``; ``hellinger``: ``sqrt(1/2 sum (sqrt p - sqrt q)^2)``.
    """
    base = metric.log_base()
    if metric.divergence == "kl":
        if getattr(metric, "order", "profile_list") == "list_profile":
            p, q = q, p
        a = metric.alpha
        return np.sum(_xlogy(p, (1.0 - a) * q + a * p, base), axis=1)
    if metric.divergence == "js":
        m = 0.5 * (p + q)
        return 0.5 * np.sum(_xlogy(p, m, base), axis=1) + 0.5 * np.sum(_xlogy(q, m, base),
                                                                       axis=1)
    return np.sqrt(0.5 * np.sum((np.sqrt(p) - np.sqrt(q)) ** 2, axis=1))


def popularity_classes(metric: C.PopularityCalibration, side: Side) -> np.ndarray:
    """Each item code's class: 0 head, 1 mid, 2 tail, -1 none (absent, ``absent='skip'``).

    Items by training count descending, ties by item id ascending. ``by='interactions'``:
    the head is the shortest prefix whose cumulative share of the interactions reaches
    ``head``, the tail the longest suffix whose share stays within ``tail``;
    ``by='items'``: the first ``max(1, floor(head n))`` and last ``floor(tail n)`` items.
    """
    order = by_popularity(side, side.pop_rows)
    n = len(order)
    out = np.full(len(side.items), 2 if metric.absent == "tail" else -1, dtype=np.int64)
    out[order] = 1
    if n == 0:
        return out
    if metric.by == "interactions":  # integer counts: each share is correctly rounded
        counts = side.pop_rows[order]
        total = counts.sum()
        n_head = int(np.argmax(np.cumsum(counts) / total >= metric.head)) + 1
        n_tail = int(np.sum(np.cumsum(counts[::-1]) / total <= metric.tail))
    else:
        n_head, n_tail = max(1, int(n * metric.head)), int(n * metric.tail)
    n_tail = min(n_tail, n - min(n_head, n))
    out[order[:n_head]] = 0
    if n_tail:
        out[order[n - n_tail:]] = 2
    return out


def _categories(metric: C.CalibrationMetric, side: Side) -> tuple[np.ndarray, np.ndarray]:
    """Per item code: its category shares ``p(g|i)`` and its weight in the denominators."""
    if isinstance(metric, C.PopularityCalibration):
        cls = popularity_classes(metric, side)
        f = np.zeros((len(side.items), 3))
        known = cls >= 0
        f[np.flatnonzero(known), cls[known]] = 1.0
        return f, known.astype(np.float64)
    feats = side.feats
    if (feats < 0).any():
        rows = np.flatnonzero((feats < 0).any(axis=1))
        ex = list(side.items[rows[:5]])
        raise DataError(f"{metric.label} reads item_features as category memberships, and "
                        f"{len(rows)} items have negative values (e.g. "
                        f"{format_examples(ex, len(rows))})", parameter="item_features",
                        n_bad=len(rows), examples=ex)
    total = feats.sum(axis=1)
    has = side.usable & (total > 0)
    assert isinstance(metric, C.Miscalibration)
    if metric.split == "binary":  # LibRec: 1 per genre, shares over the number of items
        return (feats > 0).astype(np.float64) * side.usable[:, None], \
            np.ones(len(side.items))
    f = np.divide(feats, total[:, None], out=np.zeros_like(feats), where=has[:, None])
    return f, has.astype(np.float64)


def _history_weights(metric: C.CalibrationMetric, ctx: Context, side: Side,
                     users: np.ndarray) -> np.ndarray:
    """The weight of every history entry: 1, or the user's (mean) rating of the item."""
    if metric.profile_weight == "uniform":
        return np.ones(len(side.h_item))
    train = ctx.opts.side.train
    rows = train.users.get_indexer(ctx.data.user_ids[users])
    lengths = side.h_ends - side.h_starts
    u = np.repeat(rows, lengths)
    cols = ctx.opts.side.items.get_indexer(side.items[side.h_item])
    return np.asarray(train.ratings[u, cols], dtype=np.float64).ravel()


def _shares(ends: np.ndarray, weight: np.ndarray, item: np.ndarray, f: np.ndarray,
            den_w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``sum w f[i]`` and ``sum w den_w[i]`` per user: one sparse product.

    The entries of user ``u`` are contiguous and end at ``ends[u]``: the CSR is built
    without a conversion.
    """
    indptr = np.concatenate([[0], ends]).astype(np.int64)
    m = sp.csr_matrix((weight, item, indptr), shape=(len(ends), f.shape[0]))
    num = np.asarray(m @ f)
    den = np.asarray(m @ den_w).ravel()
    return num, den


def _values(metric: C.CalibrationMetric, ctx: Context, side: Side, users: np.ndarray
            ) -> np.ndarray:
    """Every user's value (NaN where a distribution is empty)."""
    opts = ctx.opts
    lists = ctx.lists.get(ListKey(metric.ties or opts.ties)).select(users)
    top = cut(lists, metric.k)
    item = lists.item[top.pos].astype(np.int64)
    f, den_w = _categories(metric, side)
    if isinstance(metric, C.Miscalibration):
        features_missing(metric, side, item, side.h_item, opts.item_features_missing)
    rank = np.arange(len(item)) - np.repeat(top.starts, top.take) + 1.0
    w_list = 1.0 / np.log2(rank + 1.0) if metric.rank_weight == "log" else np.ones(len(item))
    q_num, q_den = _shares(np.cumsum(top.take), w_list, item, f, den_w)
    w_hist = _history_weights(metric, ctx, side, users)
    p_num, p_den = _shares(side.h_ends, w_hist, side.h_item, f, den_w)
    ok = (q_den > 0) & (p_den > 0)
    p = np.divide(p_num, p_den[:, None], out=np.zeros_like(p_num), where=ok[:, None])
    q = np.divide(q_num, q_den[:, None], out=np.zeros_like(q_num), where=ok[:, None])
    return np.where(ok, divergence(metric, p, q), np.nan)


class Calibration(PerList):
    """Miscalibration and popularity calibration, a value per user with a list."""

    name = "calibration"

    def run(self, ctx: Context, specs: Specs) -> FamilyPartial:
        data, opts = ctx.data, ctx.opts
        metrics = [m for _, m in specs]
        check_inputs(metrics, opts)
        users = ctx.users_with_recs()
        side = side_of(ctx)
        with_truth = (data.truth_count() > 0)[users]
        out = FamilyPartial(state={"no_profile": int(np.sum(side.h_ends == side.h_starts))})
        for m in metrics:
            values = _values(m, ctx, side, users)
            if getattr(m, "users", "list") == "truth":
                values = np.where(with_truth, values, np.nan)
            out.add(m.label, Column(pd.Index(data.user_ids[users]), values))
        return out

    def settings(self, specs: Specs, parts: Sequence[FamilyPartial], ctx: MergeContext
                 ) -> dict[str, Any]:
        return {"calibration": {
            "users_with_list": ctx.counts["n_recs"],
            "users_without_training_rows": sum(p.state["no_profile"] for p in parts),
            "item_features_missing": ctx.opts.item_features_missing}}
