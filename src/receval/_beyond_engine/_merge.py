"""The beyond-accuracy metrics over every partition: global values and per-user columns."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from receval._beyond_engine._run import BeyondPartial
from receval.exceptions import DataError, format_examples
from receval.metrics import _beyond as M

__all__ = ["finish", "merge_into"]


def _add(series: Sequence[pd.Series]) -> pd.Series:
    if len(series) == 1:
        return series[0]
    return pd.concat(series).groupby(level=0).sum()


def finish(metric: M.BeyondMetric, partials: Sequence[BeyondPartial], catalog: Any
           ) -> tuple[float, int]:
    """The global value of one metric over every partition, and its number of users."""
    n_users = sum(p.counts["users_with_list"] for p in partials)
    if isinstance(metric, M.Personalization):
        parts = [p.personal[metric.label] for p in partials]
        a, b = _add([x[0] for x in parts]), _add([x[1] for x in parts])
        u = sum(x[2] for x in parts)
        if u < 2:
            return float("nan"), u
        overlap = 0.5 * float(((a * a) - b).sum()) / (u * (u - 1) / 2.0)
        if metric.overlap == "cosine":  # the identity's rounding can leave [0, 1] by 1 ulp
            overlap = min(max(overlap, 0.0), 1.0)
        return 1.0 - overlap, u
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
    h = float(-(p * np.log(p)).sum())
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


def merge_into(partials: Sequence[Any], opts: Any, summaries: dict[str, Any],
               frame: pd.DataFrame, order: list[str]) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Add the beyond metrics' summaries and per-user columns; return the settings entry."""
    from receval._result import MetricSummary

    parts: list[BeyondPartial] = [p.beyond for p in partials if p.beyond is not None]
    cols: dict[str, pd.Series] = {}
    for _, m in opts.of(M.BeyondMetric):
        if not m.per_user:
            total, n = finish(m, parts, opts.catalog)
            summaries[m.label] = MetricSummary(m, total, "global", n)
            continue
        got = [p.per_user[m.label] for p in parts]
        users = got[0][0].append([g[0] for g in got[1:]]) if len(got) > 1 else got[0][0]
        value, num, den = (np.concatenate([g[i] for g in got]) for i in (1, 2, 3))
        if not users.is_monotonic_increasing:  # user order, as in one in-memory partition,
            with contextlib.suppress(TypeError):  # so that sums are the same to the last bit
                perm = np.asarray(users.argsort(), dtype=np.int64)
                users, value, num, den = users[perm], value[perm], num[perm], den[perm]
        undefined = int(np.isnan(value).sum())
        micro = getattr(m, "aggregation", "macro") == "micro"
        if micro:
            agg = float(num.sum() / den.sum()) if den.sum() > 0 else float("nan")
        else:
            agg = float(np.nanmean(value)) if len(value) > undefined else float("nan")
        summaries[m.label] = MetricSummary(m, agg, "micro" if micro else "macro",
                                           len(value) - undefined, undefined,
                                           m.ties or opts.ties)
        cols[m.label] = pd.Series(value, index=users)
    if cols:
        extra = pd.DataFrame(cols)
        extra.index.name = "user"
        frame = frame.join(extra, how="outer") if len(frame.columns) else extra
        frame = frame[[c for c in order if c in frame.columns]]
        with contextlib.suppress(TypeError):  # ids that do not order: keep them as they came
            frame = frame.sort_index()
    settings = {
        "users_with_list": sum(p.counts["users_with_list"] for p in parts),
        "truth_users_without_list": sum(p.counts["truth_users_without_list"] for p in parts),
        "item_features_missing": opts.item_features_missing,
        "items_without_features": max((p.counts["items_without_features"] for p in parts),
                                      default=0),
        "train_given": opts.train is not None,
        "item_features_given": opts.item_features is not None,
    }
    return frame, settings
