"""The exposure family: one value for the whole set of lists (coverage, Gini, entropy, ...).

User coverage, item (catalog) coverage, Gini and entropy of item exposure, distributional
coverage and personalization. Each partition counts: users with a list, recommended items,
exposure per item id, lists per (item, list length); the counts add up exactly over
partitions, and the merge computes each value once from the totals.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from receval._engine._families._base import Context, Family, FamilyPartial, MergeContext, Specs
from receval._engine._families._per_list import beyond_settings
from receval._engine._lists import ListKey, cut
from receval._engine._notes import note
from receval._exact import ExactSum
from receval._result import MetricSummary
from receval.data._side import check_id_kind
from receval.exceptions import (
    DataError,
    DataWarning,
    InvalidParameterError,
    UndefinedMetricWarning,
    format_examples,
)
from receval.metrics import _beyond as M
from receval.metrics import _coverage as C

__all__ = ["Exposure"]


def _add(series: Sequence[pd.Series]) -> pd.Series:
    """Counts of every partition added up per key, in key order (whatever the partitions)."""
    joined = pd.concat(series) if len(series) > 1 else series[0]
    levels = list(range(joined.index.nlevels))
    try:
        return joined.groupby(level=levels).sum()
    except TypeError:  # keys that do not order: first-seen order
        return joined.groupby(level=levels, sort=False).sum()


def _by_length(m: Any) -> bool:
    """Whether the metric reads the lists per (item, list length), not exposure alone."""
    return isinstance(m, M.Personalization) or (isinstance(m, M.Entropy)
                                                and m.weights == "lists")


def _state(m: Any, ctx: Context, top: Any, item: np.ndarray) -> Any:
    """One metric's counts on one partition."""
    ids = ctx.data.item_ids
    if isinstance(m, C.ItemCoverage):
        return np.asarray(ids[np.unique(item)])
    if _by_length(m):
        take = top.take
        length = np.repeat(take, take).astype(np.int64)
        width = int(take.max(initial=0)) + 1
        keys, n = np.unique(item.astype(np.int64) * width + length, return_counts=True)
        index = pd.MultiIndex.from_arrays([ids[keys // width], keys % width],
                                          names=["item", "length"])
        return (pd.Series(n.astype(np.int64), index=index), int(take.max(initial=0)),
                int((take > 0).sum()))
    counts = np.bincount(item, minlength=len(ids)).astype(np.float64)
    hit = np.flatnonzero(counts)
    return pd.Series(counts[hit], index=ids[hit])


def _personalization(metric: M.Personalization, got: list[Any]) -> tuple[float, int]:
    """``1 - sum_{u<v} overlap / (U(U-1)/2)`` from the lists per (item, list length).

    ``a_i = sum_L c_{i,L} w_L`` and ``b_i = sum_L c_{i,L} w_L^2`` over the list lengths
    ``L`` (``w_L = L^{-1/2}``, or ``k^{-1/2}`` with ``overlap='k'``, k the longest list
    without a cutoff): integer counts added over the partitions, then one fixed order of
    operations, and the exact sum of ``a_i^2 - b_i``. ``overlap='k_full'`` (Evidently)
    replaces ``sum_i b_i`` by ``U``: every list's overlap with itself counted as k.
    """
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
    # k_full: every list's overlap with itself counted as k (sum_i b_i = U)
    terms = np.append(a * a, -float(u)) if metric.overlap == "k_full" else a * a - b
    overlap = 0.5 * ExactSum.of(terms).value() / (u * (u - 1) / 2.0)
    if metric.overlap == "cosine":  # the identity's rounding can leave [0, 1] by 1 ulp
        overlap = min(max(overlap, 0.0), 1.0)
    return 1.0 - overlap, u


def _list_entropy(metric: M.Entropy, got: list[Any]) -> float:
    """Elliot's SEntropy: ``sum_i w_i (-log p(i)) / U``, ``w_i = sum_L c_{i,L} / L``."""
    u = sum(x[2] for x in got)
    counts = _add([x[0] for x in got])
    length = counts.index.get_level_values("length").to_numpy(dtype=np.float64)
    item = pd.factorize(counts.index.get_level_values("item"))[0]
    c = np.bincount(item, weights=counts.to_numpy(dtype=np.float64))
    w = np.bincount(item, weights=counts.to_numpy(dtype=np.float64) / length)
    h = -ExactSum.of(w * np.log(c / c.sum())).value() / u
    if metric.base is not None:
        h /= math.log(metric.base)
    return h / len(c) if metric.normalize == "distinct" else h


def _gini(metric: M.Gini, c: np.ndarray, catalog: pd.Index | None) -> float:
    """``sum_j (2j - n - 1) c_(j) / (m sum c)`` over exposures sorted ascending.

    The items of ``catalog`` never recommended, and ``metric.extra_items``, count 0.
    """
    if catalog is not None:
        c = np.concatenate([np.zeros(len(catalog) - len(c) + metric.extra_items), c])
    c = np.sort(c)
    n = len(c)
    j = np.arange(1, n + 1)
    m = n if metric.normalize == "n" else n - 1
    if m <= 0 or c.sum() == 0:
        return float("nan")
    return float(np.sum((2 * j - n - 1) * c) / (m * c.sum()))


def _entropy(metric: M.Entropy, counts: pd.Series) -> float:
    """``-sum p(i) log p(i)`` (base ``metric.base``), optionally over distinct items."""
    p = counts.to_numpy() / counts.sum()
    h = -ExactSum.of(p * np.log(p)).value()
    if metric.base is not None:
        h /= math.log(metric.base)
    if metric.normalize == "distinct":
        h /= len(p)
    return h


def _catalog(ctx: MergeContext, recommended: pd.Index) -> pd.Index:
    """The catalog: ``catalog=``, else train + recommended items, else recs + truth items."""
    opts = ctx.opts
    if opts.catalog is not None:
        cat = pd.Index(pd.unique(pd.Series(list(opts.catalog))))
        if len(cat) == 0:
            raise InvalidParameterError("catalog is empty", parameter="catalog")
        check_id_kind(recommended, cat, role="item", name="catalog")
        outside = recommended[~recommended.isin(cat)]
        if len(outside):
            raise DataError(
                f"{len(outside)} recommended items are not in catalog (e.g. "
                f"{format_examples(list(outside[:5]), len(outside))}); coverage would exceed "
                f"the catalog", parameter="catalog", n_bad=len(outside),
                examples=list(outside[:5]))
        return cat
    if opts.side.train_given:
        return opts.side.train_items.append(recommended).unique()
    return _union(ctx.items)


def _union(parts: Sequence[pd.Index]) -> pd.Index:
    """The distinct ids of several indexes (of one id kind), first seen first."""
    seen = [i for i in parts if len(i)]
    if not seen:
        return pd.Index([])
    return seen[0].append(seen[1:]).unique() if len(seen) > 1 else seen[0].unique()


def _dataset(ctx: MergeContext) -> tuple[pd.Index, int]:
    """RecBole's dataset: every item of catalog=, train=, the truth and the lists.

    Returns the items and how many of them ``catalog=`` lacks (0 without a catalog).
    """
    opts = ctx.opts
    seen = _union([*ctx.items, opts.side.train_items])
    if opts.catalog is None:
        return seen, 0
    cat = pd.Index(pd.unique(pd.Series(list(opts.catalog))))
    check_id_kind(seen, cat, role="item", name="catalog")
    outside = seen[~seen.isin(cat)]
    return _union([cat, outside]), len(outside)


def _check_dataset(m: Any, opts: Any) -> None:
    """``over='dataset'`` / ``items='dataset'`` need the items only train= or catalog= hold."""
    if "dataset" in (getattr(m, "over", None), getattr(m, "items", None)) and not (
            opts.side.train_given or opts.catalog is not None):
        raise InvalidParameterError(
            f"{m.label} counts every item of the data set (RecBole's dataset.num(item_id)): "
            f"it needs evaluate(train=...) or catalog=, since the truth and the lists alone "
            f"miss the training items nobody was recommended", parameter="train")


class Exposure(Family):
    """User and item coverage, Gini, entropy, distributional coverage, personalization."""

    name = "exposure"
    per_user = False

    def lists(self, specs: Specs, opts: Any) -> list[tuple[ListKey, int]]:
        return [(ListKey(m.ties or opts.ties), m.k or 0) for _, m in specs
                if not isinstance(m, C.UserCoverage)]

    def run(self, ctx: Context, specs: Specs) -> FamilyPartial:
        data, opts = ctx.data, ctx.opts
        users = ctx.users_with_recs()
        out = FamilyPartial(counts={"truth_users_with_recs": int(
            ((data.truth_count() > 0) & (data.recs_count() > 0)).sum())})
        for _, m in specs:
            if isinstance(m, C.UserCoverage):
                continue
            if isinstance(m, M.BeyondMetric):
                from receval._engine._families._side import check_inputs

                check_inputs([m], opts)
            _check_dataset(m, opts)
            lists = ctx.lists.get(ListKey(m.ties or opts.ties)).select(users)
            top = cut(lists, m.k)
            out.state[m.label] = _state(m, ctx, top, lists.item[top.pos].astype(np.int64))
            if isinstance(m, M.Personalization) and m.overlap == "k_full":
                _note_short_lists(m, ctx, users, top.take)
        return out

    def summarize(self, specs: Specs, parts: Sequence[FamilyPartial], ctx: MergeContext
                  ) -> dict[str, MetricSummary]:
        counts = ctx.counts
        out = {}
        for _, m in specs:
            if isinstance(m, C.UserCoverage):
                out[m.label] = MetricSummary(
                    m, counts["truth_users_with_recs"] / counts["n_truth"], "global",
                    counts["n_truth"])
                continue
            got = [p.state[m.label] for p in parts if m.label in p.state]
            if isinstance(m, C.ItemCoverage):
                out[m.label] = self._item_coverage(m, got, ctx)
                continue
            if isinstance(m, M.Personalization):
                value, n = _personalization(m, got)
                if n < 2:
                    note(ctx.notes, UndefinedMetricWarning,
                         f"{m.label} compares pairs of lists and {{n}} user has one: it is "
                         f"undefined (NaN)", n, [], ctx.opts.strict)
                out[m.label] = MetricSummary(m, value, "global", n)
                continue
            if isinstance(m, M.Entropy) and m.weights == "lists":
                out[m.label] = MetricSummary(m, _list_entropy(m, got), "global",
                                             counts["n_recs"])
                continue
            exposure = _add(got)
            if isinstance(m, M.Gini):
                catalog = (None if m.items == "recommended" else _dataset(ctx)[0]
                           if m.items == "dataset" else _catalog(ctx, exposure.index))
                value = _gini(m, exposure.to_numpy(), catalog)
            else:
                value = _entropy(m, exposure)
            out[m.label] = MetricSummary(m, value, "global", counts["n_recs"])
        return out

    def _item_coverage(self, m: Any, got: list[np.ndarray], ctx: MergeContext
                       ) -> MetricSummary:
        rec = pd.Index(np.unique(np.concatenate(
            [np.asarray(g, dtype=object) if g.dtype == object else g for g in got])))
        n = ctx.counts["n_recs"]
        side = ctx.opts.side
        if m.over == "train":
            if not side.train_given:
                raise InvalidParameterError(f"{m.label} needs evaluate(train=...)",
                                            parameter="train")
            hits = int(rec.isin(side.train_items).sum()) if m.absent == "skip" else len(rec)
            return MetricSummary(m, hits / len(side.train_items), "global", n)
        items = _dataset(ctx)[0] if m.over == "dataset" else _catalog(ctx, rec)
        return MetricSummary(m, len(rec) / (len(items) + m.extra_items), "global", n)

    def settings(self, specs: Specs, parts: Sequence[FamilyPartial], ctx: MergeContext
                 ) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if any(isinstance(m, M.BeyondMetric) for _, m in specs):
            out = beyond_settings(ctx)
        if any("dataset" in (getattr(m, "over", None), getattr(m, "items", None))
               for _, m in specs):
            items, outside = _dataset(ctx)
            out.update(dataset_items=len(items), dataset_items_outside_catalog=outside)
        return {"beyond": out} if out else {}


def _note_short_lists(m: M.Personalization, ctx: Context, users: np.ndarray,
                      take: np.ndarray) -> None:
    """Warn (after the merge) when Evidently's form meets lists shorter than k."""
    short = users[(take > 0) & (take < (m.k or 0))]
    if len(short):
        note(ctx.notes, DataWarning,
             f"{m.label} counts every list's overlap with itself as k = {m.k} (Evidently's "
             f"formula), but {{n}} lists are shorter than k (users {{examples}}): the value "
             f"is higher than overlap='k' gives and can exceed 1", len(short),
             list(ctx.data.user_ids[short[:5]]), ctx.opts.strict)
