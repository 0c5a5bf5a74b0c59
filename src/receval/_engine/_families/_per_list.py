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
from receval.metrics._calibration import Miscalibration

__all__ = ["PerList", "beyond_settings", "features_missing"]


def features_missing(metric: Any, side: Side, item: np.ndarray, history: np.ndarray,
                     policy: str) -> np.ndarray:
    """Item ids without features that ``metric`` compares: an error, or those ids.

    ``item``: the recommended rows' item codes; ``history``: the training item codes of the
    users whose lists are compared with their history (serendipity, unexpectedness by
    similarity). Under ``"error"`` either kind raises, naming the items; under ``"skip"``
    and ``"zero"`` the ids are returned (counted in ``settings["beyond"]``).
    """
    if "item_features" not in metric.inputs():
        return np.empty(0, dtype=object)
    recommended = np.unique(item[~side.usable[item]])
    trained = np.setdiff1d(np.unique(history[~side.usable[history]]), recommended)
    if policy == "error":
        history_why, remedy = _features_use(metric)
        for codes, what, why in (
                (recommended, "recommended items", ""),
                (trained, "training items of users with a list", history_why)):
            if len(codes):
                bad = list(side.items[codes[:5]])
                raise DataError(
                    f"item_features: {len(codes)} {what} have no features (e.g. "
                    f"{format_examples(bad, len(codes))}){why}, which {metric.label} "
                    f"reads; {remedy}", parameter="item_features", n_bad=len(codes),
                    examples=bad)
    return np.asarray(side.items[np.concatenate([recommended, trained])], dtype=object)


def _features_use(metric: Any) -> tuple[str, str]:
    """How ``metric`` uses item features: why history items need them, and the remedy."""
    if isinstance(metric, Miscalibration):  # category shares, no similarity
        return (" (the category distribution of the user's history would leave them out)",
                "pass item_features_missing='skip' (or 'zero', the same here) to count them "
                "in no category")
    return (" (a mean similarity to the user's history would leave them out)",
            "pass item_features_missing='skip' to leave them out of similarities, or 'zero' "
            "to compare them as zero vectors (similarity 0 to every item, as Microsoft "
            "Recommenders does)")


def _history_of(side: Side, users: np.ndarray) -> np.ndarray:
    """The training item codes of the users flagged in ``users`` (a mask over the lists)."""
    lengths = side.h_ends - side.h_starts
    return side.h_item[np.repeat(users, lengths)]


def side_of(ctx: Context) -> Side:
    """The partition's side inputs, encoded once for every family that reads them."""
    if "side" not in ctx.shared:
        ctx.opts.side.check_ids(ctx.data.user_ids, ctx.data.item_ids)
        ctx.shared["side"] = encode_side(ctx.data, ctx.opts.side, ctx.users_with_recs())
    side: Side = ctx.shared["side"]
    return side


def _list_terms(m: Any, side: Side, lists: Any, top: Any, item: np.ndarray, n: int,
                policy: str) -> tuple[np.ndarray, np.ndarray]:
    """One metric's per-list numerator and denominator."""
    if isinstance(m, M.Diversity):
        return diversity(m, side, item, top.take, policy)
    rel = lists.rel[top.pos].astype(np.float64)
    term, counts = row_terms(m, side, item, rel, top, policy)
    if isinstance(m, M.Serendipity) and m.combine == "sum":
        return _summed(term, counts, rel, top, n)
    num = np.bincount(top.row_list, weights=term * counts, minlength=n)
    den = np.bincount(top.row_list, weights=counts.astype(np.float64), minlength=n)
    if isinstance(m, M.LongTailCoverage):
        den = (top.take > 0).astype(np.float64)
    return num, den


def _summed(term: np.ndarray, counts: np.ndarray, rel: np.ndarray, top: Any, n: int
            ) -> tuple[np.ndarray, np.ndarray]:
    """Evidently's serendipity ``1 + sum_{relevant rows} (unexp - 1)`` as ``num / den``.

    ``term`` is ``rel * unexp`` per row; a list with no relevant row whose unexpectedness
    is defined has ``den = 0`` (undefined, left out of the mean).
    """
    relevant = counts & (rel > 0)
    hits = np.bincount(top.row_list, weights=relevant.astype(np.float64), minlength=n)
    total = np.bincount(top.row_list, weights=np.where(relevant, term - 1.0, 0.0), minlength=n)
    den = (hits > 0).astype(np.float64)
    return den + total * den, den


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
        missing = []
        out = FamilyPartial()
        for m in metrics:
            lists = ctx.lists.get(ListKey(m.ties or opts.ties)).select(users)
            top = cut(lists, m.k)
            item = lists.item[top.pos].astype(np.int64)
            serendipity = isinstance(m, M.Serendipity) and not isinstance(m, M.Unexpectedness)
            reads_history = isinstance(m, M.Serendipity) and m.expected == "similarity"
            history = _history_of(side, has_truth if serendipity else
                                  np.ones(len(users), dtype=bool)) if reads_history else item[:0]
            missing.append(features_missing(m, side, item, history, opts.item_features_missing))
            num, den = _list_terms(m, side, lists, top, item, len(users),
                                   opts.item_features_missing)
            if serendipity:
                den = np.where(has_truth, den, 0.0)
                num = np.where(has_truth, num, 0.0)
            out.add(m.label, column_of(m, ids, num, den))
        out.state["items_without_features"] = pd.unique(np.concatenate(missing))
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
        ids = [p.state["items_without_features"] for p in parts]
        missing = len(pd.unique(np.concatenate(ids))) if ids else 0
        return {"beyond": {**beyond_settings(ctx), "items_without_features": missing}}


def beyond_settings(ctx: MergeContext) -> dict[str, Any]:
    """The ``settings["beyond"]`` entries every beyond-accuracy family records."""
    side = ctx.opts.side
    return {
        "users_with_list": ctx.counts["n_recs"],
        "truth_users_without_list": ctx.counts.get("n_missing_recs", 0),
        "item_features_missing": ctx.opts.item_features_missing,
        "train_given": side.train_given,
        "item_features_given": side.features_given,
    }
