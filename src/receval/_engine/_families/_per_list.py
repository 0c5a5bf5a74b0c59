"""The per-list family: a value per list from its items alone (novelty, diversity, ...).

Novelty, popularity (ARP), long tail (APLT, ACLT), diversity, serendipity and
unexpectedness: per-row terms of each user's top k (:mod:`._terms`, :mod:`._similarity`)
summed per list into a numerator and a denominator, over every user with a list. A user's
value is their ratio (NaN when the denominator is 0); ``aggregation='micro'`` pools the
terms of every list. Side inputs come prepared once per evaluation (``opts.side``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from receval._aggregate import aggregate, column_of
from receval._engine._families._base import Context, Family, FamilyPartial, MergeContext, Specs
from receval._engine._families._side import Side, check_inputs, encode_side
from receval._engine._families._similarity import diversity
from receval._engine._families._terms import row_terms
from receval._engine._lists import ListKey, cut
from receval._exact import add_sums
from receval._result import MetricSummary
from receval.exceptions import DataError, format_examples
from receval.metrics import _beyond as M

__all__ = ["PerList", "beyond_settings", "features_missing"]


def features_missing(metric: Any, side: Side, item: np.ndarray, policy: str) -> int:
    """Recommended items without features: an error, or a count of skipped items."""
    if "item_features" not in metric.inputs():
        return 0
    bad = pd.unique(side.items[item[~side.usable[item]]])
    if len(bad) and policy == "error":
        raise DataError(f"item_features: {len(bad)} recommended items have no features "
                        f"(e.g. {format_examples(list(bad[:5]), len(bad))}); pass "
                        f"item_features_missing='skip' to leave them out of similarities",
                        parameter="item_features", n_bad=len(bad), examples=list(bad[:5]))
    return len(bad)


def side_of(ctx: Context) -> Side:
    """The partition's side inputs, encoded once for every family that reads them."""
    if "side" not in ctx.shared:
        ctx.opts.side.check_ids(ctx.data.user_ids, ctx.data.item_ids)
        ctx.shared["side"] = encode_side(ctx.data, ctx.opts.side, ctx.users_with_recs())
    side: Side = ctx.shared["side"]
    return side


def _list_terms(m: Any, side: Side, lists: Any, top: Any, item: np.ndarray, n: int
                ) -> tuple[np.ndarray, np.ndarray]:
    """One metric's per-list numerator and denominator."""
    if isinstance(m, M.Diversity):
        return diversity(m, side, item, top.take)
    rel = lists.rel[top.pos].astype(np.float64)
    term, counts = row_terms(m, side, item, rel, top)
    num = np.bincount(top.row_list, weights=term * counts, minlength=n)
    den = np.bincount(top.row_list, weights=counts.astype(np.float64), minlength=n)
    if isinstance(m, M.LongTailCoverage):
        den = (top.take > 0).astype(np.float64)
    return num, den


class PerList(Family):
    """Novelty, popularity, long tail, diversity, serendipity, unexpectedness."""

    name = "per_list"

    def lists(self, specs: Specs, opts: Any) -> list[tuple[ListKey, int]]:
        return [(ListKey(m.ties or opts.ties), m.k or 0) for _, m in specs]

    def run(self, ctx: Context, specs: Specs) -> FamilyPartial:
        data, opts = ctx.data, ctx.opts
        metrics = [m for _, m in specs]
        check_inputs(metrics, opts)
        users = ctx.users_with_recs()
        side = side_of(ctx)
        ids = data.user_ids[users]
        has_truth = (data.truth_count() > 0)[users]
        out = FamilyPartial(state={"items_without_features": 0})
        for m in metrics:
            lists = ctx.lists.get(ListKey(m.ties or opts.ties)).select(users)
            top = cut(lists, m.k)
            item = lists.item[top.pos].astype(np.int64)
            out.state["items_without_features"] = max(
                out.state["items_without_features"],
                features_missing(m, side, item, opts.item_features_missing))
            num, den = _list_terms(m, side, lists, top, item, len(users))
            if isinstance(m, M.Serendipity) and not isinstance(m, M.Unexpectedness):
                den = np.where(has_truth, den, 0.0)
                num = np.where(has_truth, num, 0.0)
            out.add(m.label, column_of(m, ids, num, den))
        return out

    def summarize(self, specs: Specs, parts: Sequence[FamilyPartial], ctx: MergeContext
                  ) -> dict[str, MetricSummary]:
        out = {}
        for _, m in specs:
            sums = add_sums([p.sums[m.label] for p in parts])
            out[m.label] = MetricSummary(m, aggregate(m, sums), m.aggregation_mode,
                                         sums.values.n_defined, sums.n_undefined,
                                         m.ties or ctx.opts.ties)
        return out

    def settings(self, specs: Specs, parts: Sequence[FamilyPartial], ctx: MergeContext
                 ) -> dict[str, Any]:
        missing = max((p.state["items_without_features"] for p in parts), default=0)
        return {"beyond": beyond_settings(ctx, missing)}


def beyond_settings(ctx: MergeContext, items_without_features: int = 0) -> dict[str, Any]:
    """The ``settings["beyond"]`` entry: lists, side inputs and how they were used."""
    side = ctx.opts.side
    return {
        "users_with_list": ctx.counts["n_recs"],
        "truth_users_without_list": ctx.counts.get("n_missing_recs", 0),
        "item_features_missing": ctx.opts.item_features_missing,
        "items_without_features": items_without_features,
        "train_given": side.train_given,
        "item_features_given": side.features_given,
    }
