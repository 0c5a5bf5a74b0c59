"""One partition's beyond-accuracy metrics: per-user values and global state."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from receval._beyond_engine._side import Side, check_inputs, encode_side
from receval._beyond_engine._similarity import diversity
from receval._beyond_engine._terms import Lists, row_terms
from receval._engine._sums import MetricSums
from receval.data import Interactions
from receval.exceptions import DataError, format_examples
from receval.metrics import _beyond as M

__all__ = ["BeyondPartial", "run"]


@dataclass
class BeyondPartial:
    """Per-user values and global counts of one partition.

    ``per_user``: per metric, (users, values, numerators, denominators); ``sums``: their
    exact sums (:class:`receval._engine._sums.MetricSums`), which the aggregates read;
    ``exposure``: recommendations per item id; ``personal``: per metric, the number of lists
    holding each item by list length (a Series indexed by (item, length)), the longest list
    and the number of lists. Every global quantity is a count, so partials add up exactly.
    """

    per_user: dict[str, tuple[pd.Index, np.ndarray, np.ndarray, np.ndarray]]
    exposure: dict[str, pd.Series]
    personal: dict[str, tuple[pd.Series, int, int]]
    train_items: pd.Index
    counts: dict[str, int] = field(default_factory=dict)
    seen_items: pd.Index = field(default_factory=lambda: pd.Index([]))  # truth + recs
    sums: dict[str, MetricSums] = field(default_factory=dict)

    def summary(self) -> BeyondPartial:
        """The partial without per-user values (their sums kept)."""
        return dataclasses.replace(self, per_user={})


def _features_missing(metrics: Sequence[M.BeyondMetric], side: Side, item: np.ndarray,
                      policy: str) -> int:
    """Recommended items without features: an error, or a count of skipped items."""
    if not any("item_features" in m.inputs() for m in metrics):
        return 0
    bad = pd.unique(side.items[item[~side.usable[item]]])
    if len(bad) and policy == "error":
        raise DataError(f"item_features: {len(bad)} recommended items have no features "
                        f"(e.g. {format_examples(list(bad[:5]), len(bad))}); pass "
                        f"item_features_missing='skip' to leave them out of similarities",
                        parameter="item_features", n_bad=len(bad), examples=list(bad[:5]))
    return len(bad)


def run(data: Interactions, opts: Any) -> BeyondPartial:
    """Compute every requested beyond-accuracy metric over the users with a list."""
    metrics = [m for _, m in opts.of(M.BeyondMetric)]
    check_inputs(metrics, opts)
    in_recs = data.recs_count() > 0
    users = np.flatnonzero(in_recs)
    need_feats = any("item_features" in m.inputs() for m in metrics)
    side = encode_side(data, opts, users, need_feats)
    ids = data.user_ids[users]
    has_truth = (data.truth_count() > 0)[users]
    out = BeyondPartial({}, {}, {}, side.items[side.in_train], seen_items=data.item_ids,
                        counts={
        "users_with_list": len(users),
        "truth_users_without_list": int(((data.truth_count() > 0) & ~in_recs).sum()),
        "items_without_features": 0, "train_given": int(opts.train is not None)})
    by_policy: dict[str, Lists] = {}
    for m in metrics:
        policy = m.ties or opts.ties
        lists = by_policy.setdefault(policy, Lists(data, users, policy))
        take, pos, row_user = lists.cut(m.k)
        item = lists.lists.item[pos].astype(np.int64)
        out.counts["items_without_features"] = max(
            out.counts["items_without_features"],
            _features_missing([m], side, item, opts.item_features_missing))
        if not m.per_user:
            _global_state(m, side, item, take, out)
            continue
        if isinstance(m, M.Diversity):
            num, den = diversity(m, side, item, take)
        else:
            rel = lists.lists.rel[pos].astype(np.float64)
            term, counts = row_terms(m, side, item, rel, lists, take, pos)
            num = np.bincount(row_user, weights=term * counts, minlength=len(users))
            den = np.bincount(row_user, weights=counts.astype(np.float64),
                              minlength=len(users))
            if isinstance(m, M.LongTailCoverage):
                den = (take > 0).astype(np.float64)
        if isinstance(m, M.Serendipity) and not isinstance(m, M.Unexpectedness):
            den = np.where(has_truth, den, 0.0)
            num = np.where(has_truth, num, 0.0)
        value = np.full(len(users), np.nan)
        np.divide(num, den, out=value, where=den > 0)
        out.per_user[m.label] = (ids, value, num, den)
        out.sums[m.label] = MetricSums.of(value, num, den)
    return out


def _global_state(m: M.BeyondMetric, side: Side, item: np.ndarray, take: np.ndarray,
                  out: BeyondPartial) -> None:
    """Counts of a global metric: exposure per item, or lists per (item, list length)."""
    if isinstance(m, M.Personalization):
        length = np.repeat(take, take).astype(np.int64)
        width = int(take.max(initial=0)) + 1
        keys, n = np.unique(item.astype(np.int64) * width + length, return_counts=True)
        index = pd.MultiIndex.from_arrays([side.items[keys // width], keys % width],
                                          names=["item", "length"])
        out.personal[m.label] = (pd.Series(n.astype(np.int64), index=index),
                                 int(take.max(initial=0)), int((take > 0).sum()))
        return
    counts = np.bincount(item, minlength=len(side.items)).astype(np.float64)
    hit = np.flatnonzero(counts)
    out.exposure[m.label] = pd.Series(counts[hit], index=side.items[hit])
