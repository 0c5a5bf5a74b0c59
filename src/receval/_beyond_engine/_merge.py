"""The beyond-accuracy metrics over every partition: global values and per-user columns."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from receval._beyond_engine._run import BeyondPartial
from receval._engine._sums import ExactSum, add_sums
from receval.exceptions import DataError, format_examples
from receval.metrics import _beyond as M

__all__ = ["finish", "join_columns", "summarize"]


def _add(series: Sequence[pd.Series]) -> pd.Series:
    """Counts of every partition added up per key, in key order (whatever the partitions)."""
    joined = pd.concat(series) if len(series) > 1 else series[0]
    levels = list(range(joined.index.nlevels))
    try:
        return joined.groupby(level=levels).sum()
    except TypeError:  # keys that do not order: first-seen order
        return joined.groupby(level=levels, sort=False).sum()


def _personalization(metric: M.Personalization, parts: Sequence[BeyondPartial]
                     ) -> tuple[float, int]:
    """``1 - sum_{u<v} overlap / (U(U-1)/2)`` from the lists per (item, list length).

    ``a_i = sum_L c_{i,L} w_L`` and ``b_i = sum_L c_{i,L} w_L^2`` over the list lengths
    ``L`` (``w_L = L^{-1/2}``, or ``k^{-1/2}`` with ``overlap='k'``, k the longest list
    without a cutoff): integer counts added over the partitions, then one fixed order of
    operations, and the exact sum of ``a_i^2 - b_i``.
    """
    got = [p.personal[metric.label] for p in parts]
    u = sum(x[2] for x in got)
    if u < 2:
        return float("nan"), u
    counts = _add([x[0] for x in got])
    length = counts.index.get_level_values("length").to_numpy(dtype=np.float64)
    if metric.overlap != "cosine":
        length = np.full(len(length), float(metric.k or max(max(x[1] for x in got), 1)))
    c = counts.to_numpy(dtype=np.float64)
    item = pd.factorize(counts.index.get_level_values("item"))[0]
    a = np.bincount(item, weights=c / np.sqrt(length))
    b = np.bincount(item, weights=c / length)
    overlap = 0.5 * ExactSum.of(a * a - b).value() / (u * (u - 1) / 2.0)
    if metric.overlap == "cosine":  # the identity's rounding can leave [0, 1] by 1 ulp
        overlap = min(max(overlap, 0.0), 1.0)
    return 1.0 - overlap, u


def finish(metric: M.BeyondMetric, partials: Sequence[BeyondPartial], catalog: Any
           ) -> tuple[float, int]:
    """The global value of one metric over every partition, and its number of users."""
    n_users = sum(p.counts["users_with_list"] for p in partials)
    if isinstance(metric, M.Personalization):
        return _personalization(metric, partials)
    counts = _add([p.exposure[metric.label] for p in partials])
    if isinstance(metric, M.Gini):
        c = counts.to_numpy()
        if metric.items == "catalog":
            cat = _catalog(catalog, partials, counts)
            c = np.concatenate([np.zeros(len(cat) - len(c)), c])
        c = np.sort(c)
        n = len(c)
        j = np.arange(1, n + 1)
        m = n if metric.normalize == "n" else n - 1
        if m <= 0 or c.sum() == 0:
            return float("nan"), n_users
        return float(np.sum((2 * j - n - 1) * c) / (m * c.sum())), n_users
    assert isinstance(metric, M.Entropy)
    p = counts.to_numpy() / counts.sum()
    h = -ExactSum.of(p * np.log(p)).value()
    if metric.base is not None:
        h /= math.log(metric.base)
    if metric.normalize == "distinct":
        h /= len(p)
    return h, n_users


def _train_given(partials: Sequence[BeyondPartial]) -> bool:
    """Whether the partials were computed with ``train=``."""
    return bool(partials[0].counts.get("train_given", 0))


def _catalog(catalog: Any, partials: Sequence[BeyondPartial], counts: pd.Series) -> pd.Index:
    if catalog is not None:
        cat = pd.Index(pd.unique(pd.Series(list(catalog))))
    elif _train_given(partials):
        cat = partials[0].train_items.append(counts.index).unique()
    else:  # as item coverage: every item of the truth and the recommendations
        cat = partials[0].seen_items.append([p.seen_items for p in partials[1:]]).unique()
    outside = counts.index[~counts.index.isin(cat)]
    if len(outside):
        raise DataError(f"{len(outside)} recommended items are not in catalog (e.g. "
                        f"{format_examples(list(outside[:5]), len(outside))})",
                        parameter="catalog", n_bad=len(outside), examples=list(outside[:5]))
    return cat


def _per_user(parts: Sequence[BeyondPartial], label: str) -> pd.Series | None:
    """One metric's per-user values over every partition, in user order (None if dropped)."""
    got = [p.per_user[label] for p in parts if label in p.per_user]
    if len(got) < len(parts):
        return None
    users = got[0][0].append([g[0] for g in got[1:]]) if len(got) > 1 else got[0][0]
    values = pd.Series(np.concatenate([g[1] for g in got]), index=users)
    if not users.is_monotonic_increasing:
        with contextlib.suppress(TypeError):  # ids that do not order: keep them as they came
            values = values.sort_index()
    return values


def summarize(partials: Sequence[Any], opts: Any, summaries: dict[str, Any]
              ) -> dict[str, Any]:
    """Add the beyond metrics' summaries to ``summaries``; return the settings entry.

    A per-list metric's aggregate is the exactly rounded mean of its per-user values, or
    with ``aggregation='micro'`` the pooled ratio of the exact sums of its terms.
    """
    from receval._result import MetricSummary

    parts: list[BeyondPartial] = [p.beyond for p in partials if p.beyond is not None]
    for _, m in opts.of(M.BeyondMetric):
        if not m.per_user:
            total, n = finish(m, parts, opts.catalog)
            summaries[m.label] = MetricSummary(m, total, "global", n)
            continue
        sums = add_sums([p.sums[m.label] for p in parts])
        micro = getattr(m, "aggregation", "macro") == "micro"
        agg = sums.pooled() if micro else sums.values.mean()
        summaries[m.label] = MetricSummary(m, agg, "micro" if micro else "macro",
                                           sums.values.n_defined, sums.n_undefined,
                                           m.ties or opts.ties)
    return {
        "users_with_list": sum(p.counts["users_with_list"] for p in parts),
        "truth_users_without_list": sum(p.counts["truth_users_without_list"] for p in parts),
        "item_features_missing": opts.item_features_missing,
        "items_without_features": max((p.counts["items_without_features"] for p in parts),
                                      default=0),
        "train_given": opts.train is not None,
        "item_features_given": opts.item_features is not None,
    }


def join_columns(partials: Sequence[Any], opts: Any, frame: pd.DataFrame, order: list[str]
                 ) -> pd.DataFrame:
    """The per-user table with the per-list metrics' columns (users with a list added)."""
    parts: list[BeyondPartial] = [p.beyond for p in partials if p.beyond is not None]
    cols: dict[str, pd.Series] = {}
    for _, m in opts.of(M.BeyondMetric):
        values = _per_user(parts, m.label) if m.per_user else None
        if values is not None:
            cols[m.label] = values
    if not cols:
        return frame
    extra = pd.DataFrame(cols)
    extra.index.name = "user"
    frame = frame.join(extra, how="outer") if len(frame.columns) else extra
    frame = frame[[c for c in order if c in frame.columns]]
    with contextlib.suppress(TypeError):  # ids that do not order: keep them as they came
        frame = frame.sort_index()
    return frame
