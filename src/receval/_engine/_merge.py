"""The merge: partials over disjoint sets of users into one :class:`EvaluationResult`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from receval import _beyond_engine as _beyond
from receval._engine._coverage import global_summary
from receval._engine._frame import concat, per_user_frame, user_order
from receval._engine._notes import Note, emit, note
from receval._engine._options import Options
from receval._engine._partial import Partial, Values
from receval._result import EvaluationResult, MetricSummary, UserAccounting
from receval.conventions import Convention
from receval.exceptions import EmptyInputError, UndefinedMetricWarning
from receval.metrics import BeyondMetric, GlobalMetric, Metric, RankingMetric, RatingMetric

__all__ = ["merge"]

#: The groups of users of the accounting, as each partial lists them.
GROUPS = ("no_relevant", "missing_recs", "recs_without_truth", "recs_without_truth_scored",
          "skipped_no_relevant", "skipped_missing_recs", "rating_skipped")

#: Users of the per-user arrays: (users, permutation to user order or None).
_Users = tuple[pd.Index, "np.ndarray | None"]


def _aggregate(metric: Metric, values: Values) -> tuple[float, int]:
    """The aggregate of one metric and its number of undefined users."""
    per_user, num, den = values
    n_undefined = int(np.isnan(per_user).sum())
    if num is not None and den is not None:
        total = float(den.sum())
        value = float(metric.finalize(float(num.sum()) / total)) if total > 0 \
            else float("nan")
    else:
        value = float(np.nanmean(per_user)) if len(per_user) > n_undefined else float("nan")
    return value, n_undefined


def _gather(partials: Sequence[Partial], label: str, order: np.ndarray | None) -> Values:
    """One metric's per-user arrays over every partial, in user order."""
    parts = [p.values[label] for p in partials if label in p.values]

    def cat(i: int) -> np.ndarray | None:
        arrays = [a for p in parts if (a := p[i]) is not None]
        if len(arrays) < len(parts):
            return None
        joined: np.ndarray = np.concatenate(arrays) if len(arrays) > 1 else arrays[0]
        return joined[order] if order is not None else joined

    return cat(0), cat(1), cat(2)  # type: ignore[return-value]


def _check_evaluable(opts: Options, counts: dict[str, int], groups: dict[str, pd.Index],
                     ranking_users: pd.Index, rating_users: pd.Index) -> None:
    if opts.of(RankingMetric) and len(ranking_users) == 0:
        raise EmptyInputError(
            f"no user can be evaluated on ranking metrics: {counts['n_truth']} truth users, "
            f"of whom {len(groups['no_relevant'])} have no relevant item and "
            f"{len(groups['missing_recs'])} have no recommendations", parameter="truth")
    if opts.of(RatingMetric) and len(rating_users) == 0:
        raise EmptyInputError("no truth rating has a predicted rating: rating metrics have "
                              "nothing to compare", parameter="recs")


def _summary(partials: Sequence[Partial], opts: Options, metric: Metric, n_users: int,
             value: float, n_undef: int, notes: list[Note]) -> MetricSummary:
    """How one ranking or rating metric was aggregated."""
    label = metric.label
    if isinstance(metric, RankingMetric):
        policy = next((p.ties[label][0] for p in partials if label in p.ties), opts.ties)
        straddle = sum(p.ties.get(label, ("", 0))[1] for p in partials)
        n_out = sum(p.excluded.get(label, 0) for p in partials)
        return MetricSummary(metric, value, metric.aggregation_mode, n_users - n_out,
                             n_undef - n_out, policy, straddle, n_out)
    micro = metric.aggregation_mode == "micro"  # pooled sums: nobody is left out
    if n_undef and not micro:
        note(notes, UndefinedMetricWarning,
             f"{metric.label} is undefined for {{n}} users (too few pairs, no variation or "
             f"no positive), who are left out of its mean", n_undef, [], opts.strict)
    return MetricSummary(metric, value, metric.aggregation_mode,
                         n_users - (0 if micro else n_undef), n_undef)


def _summaries(partials: Sequence[Partial], opts: Options, ranking: _Users, rating: _Users,
               notes: list[Note]
               ) -> tuple[dict[str, MetricSummary], dict[str, tuple[pd.Index, np.ndarray]],
                          dict[str, tuple[pd.Index, np.ndarray, np.ndarray]]]:
    """Summaries, per-user columns and micro terms of the ranking and rating metrics."""
    families = [(metric, metric, ranking) for _, metric in opts.of(RankingMetric)]
    families += [(asked, next(p.rating_metrics[asked.label] for p in partials
                              if asked.label in p.rating_metrics), rating)
                 for _, asked in opts.of(RatingMetric)]
    summaries: dict[str, MetricSummary] = {}
    cols: dict[str, tuple[pd.Index, np.ndarray]] = {}
    terms: dict[str, tuple[pd.Index, np.ndarray, np.ndarray]] = {}
    for asked, metric, (evaluated, perm) in families:
        label = asked.label
        values = _gather(partials, label, perm)
        if values[1] is not None and values[2] is not None:  # micro: keep the terms
            terms[label] = (evaluated, values[1], values[2])
        value, n_undef = _aggregate(metric, values)
        cols[label] = (evaluated, values[0])
        summaries[label] = _summary(partials, opts, metric, len(evaluated), value, n_undef,
                                    notes)
    return summaries, cols, terms


def _accounting(partials: Sequence[Partial], opts: Options, counts: dict[str, int],
                groups: dict[str, pd.Index], ranking_users: pd.Index,
                rating_users: pd.Index) -> UserAccounting:
    return UserAccounting(
        n_users=counts["n_users"], n_truth_users=counts["n_truth"],
        n_recs_users=counts["n_recs"], evaluated=ranking_users,
        skipped_no_relevant=groups["skipped_no_relevant"],
        skipped_missing_recs=groups["skipped_missing_recs"],
        recs_without_truth=groups["recs_without_truth"], no_relevant=groups["no_relevant"],
        recs_without_truth_scored=groups["recs_without_truth_scored"],
        missing_recs=groups["missing_recs"], rating_evaluated=rating_users,
        rating_skipped=groups["rating_skipped"],
        n_missing_predictions=counts.get("missing_predictions", 0),
        policies=dict(opts.policies))


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
              beyond: dict[str, Any]) -> dict[str, Any]:
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
            **({"beyond": beyond} if beyond else {}),
            "metrics": {m.label: _variant(m, conv) for _, m in specs}}


def merge(partials: Sequence[Partial], opts: Options) -> EvaluationResult:
    """Combine partials over disjoint sets of users into one result."""
    counts = {k: sum(p.counts.get(k, 0) for p in partials)
              for k in {k for p in partials for k in p.counts}}
    groups = {k: concat(p.groups.get(k, pd.Index([])) for p in partials) for k in GROUPS}
    ranking = user_order(concat(p.ranking_users for p in partials))
    rating = user_order(concat(p.rating_users for p in partials))
    _check_evaluable(opts, counts, groups, ranking[0], rating[0])
    notes = [n for p in partials for n in p.notes]
    summaries, cols, terms = _summaries(partials, opts, ranking, rating, notes)
    for _, metric in opts.of(GlobalMetric):
        summaries[metric.label] = global_summary(metric, partials, counts, opts)
    order = [m.label for _, m in opts.specs]
    frame = per_user_frame(ranking[0] if opts.of(RankingMetric) else ranking[0][:0],
                           rating[0], cols, order)
    beyond: dict[str, Any] = {}
    if opts.of(BeyondMetric):
        frame, beyond = _beyond.merge_into(partials, opts, summaries, frame, order)
    emit(notes)
    users = _accounting(partials, opts, counts, groups, ranking[0], rating[0])
    return EvaluationResult(tuple(m for _, m in opts.specs),
                            {label: summaries[label] for label in order}, frame, users,
                            _settings(partials, opts, counts, beyond),
                            {text: m.label for text, m in opts.specs}, terms)
