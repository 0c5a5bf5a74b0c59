"""The merge: partials over disjoint sets of users into one :class:`EvaluationResult`.

Counts, notes and the user accounting are merged here; each requested family then
summarises its metrics from its partials (:mod:`receval._engine._families`), and the
per-user columns of every family are joined into one table in user order, their micro
terms kept, by the same code whatever the family.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from receval._aggregate import Column, concat_columns
from receval._engine._families import FAMILIES, MergeContext, requested
from receval._engine._frame import concat, per_user_frame, user_order
from receval._engine._notes import emit, first_examples
from receval._engine._options import Options
from receval._engine._partial import Partial
from receval._result import EvaluationResult, MetricSummary, UserAccounting
from receval.conventions import Convention
from receval.metrics import Metric

__all__ = ["GROUPS", "merge", "per_user_table"]

#: The groups of users of the accounting, as each partial lists them.
GROUPS = ("no_relevant", "missing_recs", "recs_without_truth", "recs_without_truth_scored",
          "skipped_no_relevant", "skipped_missing_recs", "rating_skipped")


def _users(partials: Sequence[Partial], name: str) -> pd.Index:
    """One list of users over every partial, in user order (examples if incomplete)."""
    ids = concat(getattr(p, name) if name.endswith("_users") else p.groups.get(name, pd.Index([]))
                 for p in partials)
    if all(p.complete for p in partials):
        return user_order(ids)[0] if name.endswith("_users") else ids
    return pd.Index(first_examples(list(ids)), dtype=ids.dtype)


def _accounting(partials: Sequence[Partial], opts: Options, counts: dict[str, int]
                ) -> UserAccounting:
    groups = {name: _users(partials, name) for name in GROUPS}
    sizes = {name: counts.get(f"n_{name}", 0) for name in GROUPS}
    sizes.update(evaluated=counts["n_evaluated"],
                 rating_evaluated=counts["n_rating_evaluated"])
    return UserAccounting(
        n_users=counts["n_users"], n_truth_users=counts["n_truth"],
        n_recs_users=counts["n_recs"], evaluated=_users(partials, "ranking_users"),
        skipped_no_relevant=groups["skipped_no_relevant"],
        skipped_missing_recs=groups["skipped_missing_recs"],
        recs_without_truth=groups["recs_without_truth"], no_relevant=groups["no_relevant"],
        recs_without_truth_scored=groups["recs_without_truth_scored"],
        missing_recs=groups["missing_recs"], rating_evaluated=_users(partials, "rating_users"),
        rating_skipped=groups["rating_skipped"],
        n_missing_predictions=counts.get("missing_predictions", 0),
        policies=dict(opts.policies),
        sizes={} if all(p.complete for p in partials) else sizes)


def _columns(partials: Sequence[Partial], opts: Options) -> dict[str, Column]:
    """Every per-user column over every partial, in user order (the same for each family)."""
    out: dict[str, Column] = {}
    orders: dict[tuple[int, ...], tuple[pd.Index, np.ndarray | None]] = {}
    for name in requested(opts.specs):
        for _, metric in opts.metrics_of(name):
            parts = [p.families[name].columns[metric.label] for p in partials
                     if metric.label in p.families[name].columns]
            if not parts:
                continue
            joined = concat_columns(parts)
            key = tuple(id(c.users) for c in parts)  # a family's columns share their users
            if key not in orders:
                orders[key] = user_order(joined.users)
            order = orders[key][1]
            out[metric.label] = joined.take(order) if order is not None else joined
    return out


def per_user_table(partials: Sequence[Partial], opts: Options) -> pd.DataFrame:
    """The per-user values of complete partials: one row per user, one column per metric.

    Rows are the users of every per-user metric (the ranking metrics' evaluated users, the
    rating metrics' users, the users with a list for the per-list metrics), in id order;
    NaN where a value is undefined or does not apply. Empty when the partials were
    stripped of their per-user values.
    """
    complete = all(p.complete for p in partials)
    cols = _columns(partials, opts) if complete else {}
    return per_user_frame(cols, [m.label for _, m in opts.specs],
                          partials[0].ranking_users[:0])


def _variant(metric: Metric, conv: Convention | None) -> dict[str, Any]:
    """Every parameter of a metric and, under a convention, the library's name for it.

    The name is None when parameters written in the metric's name select a variant the
    library lacks; those are listed under ``not_in_library``.
    """
    out: dict[str, Any] = {"name": metric.name, "k": metric.k}
    out.update({f.name: getattr(metric, f.name) for f in metric.parameters()})
    if conv is not None:
        out["library_name"] = conv.library_name(metric)
        if out["library_name"] is None:
            out["not_in_library"] = conv.not_in_library(metric)
    return out


def _settings(partials: Sequence[Partial], opts: Options, counts: dict[str, int],
              families: dict[str, Any]) -> dict[str, Any]:
    conv = opts.convention
    specs = opts.specs
    overrides: dict[str, Any] = dict(opts.overrides)
    if conv is not None:  # variants written in metric names that the library lacks
        written = {m.label: diff for _, m in specs if (diff := conv.not_in_library(m))}
        if written:
            overrides["metrics"] = written
    return {"convention": conv.name if conv is not None else None,
            "convention_overrides": overrides,
            "relevance_threshold": opts.relevance_threshold,
            "ties": opts.ties, **opts.policies, "id_cast": opts.id_cast,
            "strict": opts.strict,
            "recs_duplicates_dropped": counts.get("recs_duplicates_dropped", 0),
            "truth_duplicates_dropped": counts.get("truth_duplicates_dropped", 0),
            "partitions": len(partials), "columns": partials[0].columns,
            **families,
            "metrics": {m.label: _variant(m, conv) for _, m in specs}}


def merge(partials: Sequence[Partial], opts: Options) -> EvaluationResult:
    """Combine partials over disjoint sets of users into one result.

    Every aggregate comes from the partials' exact sums, so it does not depend on how the
    users were partitioned. Partials stripped of their per-user values
    (:meth:`Partial.summary`) give the same aggregates and counts, an empty per-user table
    and example ids in the user accounting (``users.sizes`` holds the counts).
    """
    counts = {k: sum(p.counts.get(k, 0) for p in partials)
              for k in {k for p in partials for k in p.counts}}
    counts.setdefault("n_rating_evaluated", 0)
    wanted = requested(opts.specs)
    for name, specs in wanted.items():
        FAMILIES[name].check(specs, counts)
    notes = [n for p in partials for n in p.notes]
    ctx = MergeContext(opts, counts, notes, [p.items for p in partials])
    summaries: dict[str, MetricSummary] = {}
    extra: dict[str, Any] = {}
    for name, specs in wanted.items():
        parts = [p.families[name] for p in partials]
        summaries.update(FAMILIES[name].summarize(specs, parts, ctx))
        for key, value in FAMILIES[name].settings(specs, parts, ctx).items():
            both = isinstance(value, dict) and isinstance(extra.get(key), dict)
            extra[key] = {**extra[key], **value} if both else value  # settings["beyond"]
    complete = all(p.complete for p in partials)
    cols = _columns(partials, opts) if complete else {}
    order = [m.label for _, m in opts.specs]
    frame = per_user_frame(cols, order, partials[0].ranking_users[:0])
    terms = {label: (c.users, c.num, c.den) for label, c in cols.items()
             if c.num is not None and c.den is not None}
    emit(notes)
    return EvaluationResult(tuple(m for _, m in opts.specs),
                            {label: summaries[label] for label in order}, frame,
                            _accounting(partials, opts, counts),
                            _settings(partials, opts, counts, extra),
                            {text: m.label for text, m in opts.specs}, terms)
