"""The merge: partials over disjoint sets of users into one :class:`EvaluationResult`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from receval import _beyond_engine as _beyond
from receval._engine._coverage import global_summary
from receval._engine._frame import concat, per_user_frame, user_order
from receval._engine._notes import Note, emit, first_examples, note
from receval._engine._options import Options
from receval._engine._partial import Partial, Values
from receval._engine._sums import MetricSums, add_sums
from receval._result import EvaluationResult, MetricSummary, UserAccounting
from receval.conventions import Convention
from receval.exceptions import EmptyInputError, UndefinedMetricWarning
from receval.metrics import BeyondMetric, GlobalMetric, Metric, RankingMetric, RatingMetric

__all__ = ["GROUPS", "merge", "per_user_table"]

#: The groups of users of the accounting, as each partial lists them.
GROUPS = ("no_relevant", "missing_recs", "recs_without_truth", "recs_without_truth_scored",
          "skipped_no_relevant", "skipped_missing_recs", "rating_skipped")

#: Users of the per-user arrays: (users, permutation to user order or None).
_Users = tuple[pd.Index, "np.ndarray | None"]


def _aggregate(metric: Metric, sums: MetricSums) -> float:
    """The aggregate of one metric: the exactly rounded mean, or the pooled ratio if micro.

    ``mean = round(sum_u x_u / n)`` over the users whose value is defined, the sum exact and
    rounded once (:mod:`receval._engine._sums`); a micro average is
    ``finalize(round(sum_u num_u / sum_u den_u))``. Neither depends on the order or the
    partitioning of the users.
    """
    if sums.num is not None and sums.den is not None:
        ratio = sums.pooled()
        return float(metric.finalize(ratio)) if not np.isnan(ratio) else float("nan")
    return sums.values.mean()


def _gather(partials: Sequence[Partial], label: str, order: np.ndarray | None) -> Values:
    """One metric's per-user arrays over every partial, in user order."""
    parts = [p.values[label] for p in partials if label in p.values]
    if not parts:  # a bucket without a user of this metric
        return np.empty(0), None, None

    def cat(i: int) -> np.ndarray | None:
        arrays = [a for p in parts if (a := p[i]) is not None]
        if len(arrays) < len(parts):
            return None
        joined: np.ndarray = np.concatenate(arrays) if len(arrays) > 1 else arrays[0]
        return joined[order] if order is not None else joined

    return cat(0), cat(1), cat(2)  # type: ignore[return-value]


def _check_evaluable(opts: Options, counts: dict[str, int]) -> None:
    if opts.of(RankingMetric) and counts["n_evaluated"] == 0:
        raise EmptyInputError(
            f"no user can be evaluated on ranking metrics: {counts['n_truth']} truth users, "
            f"of whom {counts['n_no_relevant']} have no relevant item and "
            f"{counts['n_missing_recs']} have no recommendations", parameter="truth")
    if opts.of(RatingMetric) and counts["n_rating_evaluated"] == 0:
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


def _summaries(partials: Sequence[Partial], opts: Options, counts: dict[str, int],
               notes: list[Note]) -> dict[str, MetricSummary]:
    """Summaries of the ranking and rating metrics, from the partials' exact sums."""
    families = [(metric, metric, counts["n_evaluated"]) for _, metric in opts.of(RankingMetric)]
    families += [(asked, next(p.rating_metrics[asked.label] for p in partials
                              if asked.label in p.rating_metrics), counts["n_rating_evaluated"])
                 for _, asked in opts.of(RatingMetric)]
    summaries: dict[str, MetricSummary] = {}
    for asked, metric, n_users in families:
        sums = add_sums([p.sums[asked.label] for p in partials if asked.label in p.sums])
        summaries[asked.label] = _summary(partials, opts, metric, n_users,
                                          _aggregate(metric, sums), sums.n_undefined, notes)
    return summaries


def _columns(partials: Sequence[Partial], opts: Options, ranking: _Users, rating: _Users
             ) -> tuple[dict[str, tuple[pd.Index, np.ndarray]],
                        dict[str, tuple[pd.Index, np.ndarray, np.ndarray]]]:
    """Per-user columns and micro terms of the ranking and rating metrics, in user order."""
    cols: dict[str, tuple[pd.Index, np.ndarray]] = {}
    terms: dict[str, tuple[pd.Index, np.ndarray, np.ndarray]] = {}
    families = [(m, ranking) for _, m in opts.of(RankingMetric)]
    families += [(m, rating) for _, m in opts.of(RatingMetric)]
    for metric, (evaluated, perm) in families:
        values = _gather(partials, metric.label, perm)
        if values[1] is not None and values[2] is not None:  # micro: keep the terms
            terms[metric.label] = (evaluated, values[1], values[2])
        cols[metric.label] = (evaluated, values[0])
    return cols, terms


def _users(partials: Sequence[Partial], name: str) -> _Users:
    """One list of users over every partial, in user order (examples if incomplete)."""
    ids = concat(getattr(p, name) if name.endswith("_users") else p.groups.get(name, pd.Index([]))
                 for p in partials)
    if all(p.complete for p in partials):
        return user_order(ids) if name.endswith("_users") else (ids, None)
    return pd.Index(first_examples(list(ids)), dtype=ids.dtype), None


def _accounting(partials: Sequence[Partial], opts: Options, counts: dict[str, int],
                ranking_users: pd.Index, rating_users: pd.Index) -> UserAccounting:
    groups = {name: _users(partials, name)[0] for name in GROUPS}
    sizes = {name: counts.get(f"n_{name}", 0) for name in GROUPS}
    sizes.update(evaluated=counts["n_evaluated"],
                 rating_evaluated=counts["n_rating_evaluated"])
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
        policies=dict(opts.policies),
        sizes={} if all(p.complete for p in partials) else sizes)


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


def per_user_table(partials: Sequence[Partial], opts: Options) -> pd.DataFrame:
    """The per-user values of complete partials: one row per user, one column per metric.

    Rows are the users of the ranking metrics, of the rating metrics and (beyond-accuracy
    metrics) those with a list, in id order; NaN where a value is undefined or does not
    apply. Empty when the partials were stripped of their per-user values.
    """
    ranking, rating = _users(partials, "ranking_users"), _users(partials, "rating_users")
    complete = all(p.complete for p in partials)
    cols = _columns(partials, opts, ranking, rating)[0] if complete else {}
    return _table(partials, opts, ranking[0], rating[0], cols)


def _table(partials: Sequence[Partial], opts: Options, ranking_users: pd.Index,
           rating_users: pd.Index, cols: dict[str, tuple[pd.Index, np.ndarray]]
           ) -> pd.DataFrame:
    order = [m.label for _, m in opts.specs]
    if not all(p.complete for p in partials):
        return per_user_frame(ranking_users[:0], rating_users[:0], {}, order)
    frame = per_user_frame(ranking_users if opts.of(RankingMetric) else ranking_users[:0],
                           rating_users, cols, order)
    if opts.of(BeyondMetric):
        frame = _beyond.join_columns(partials, opts, frame, order)
    return frame


def merge(partials: Sequence[Partial], opts: Options) -> EvaluationResult:
    """Combine partials over disjoint sets of users into one result.

    Every aggregate comes from the partials' exact sums, so it does not depend on how the
    users were partitioned. Partials stripped of their per-user values
    (:meth:`Partial.summary`) give the same aggregates and counts, an empty per-user table
    and example ids in the user accounting (``users.sizes`` holds the counts).
    """
    counts = {k: sum(p.counts.get(k, 0) for p in partials)
              for k in {k for p in partials for k in p.counts}}
    _check_evaluable(opts, counts)
    notes = [n for p in partials for n in p.notes]
    summaries = _summaries(partials, opts, counts, notes)
    for _, metric in opts.of(GlobalMetric):
        summaries[metric.label] = global_summary(metric, partials, counts, opts)
    beyond = _beyond.summarize(partials, opts, summaries) if opts.of(BeyondMetric) else {}
    complete = all(p.complete for p in partials)
    ranking, rating = _users(partials, "ranking_users"), _users(partials, "rating_users")
    cols, terms = _columns(partials, opts, ranking, rating) if complete else ({}, {})
    frame = _table(partials, opts, ranking[0], rating[0], cols)
    emit(notes)
    users = _accounting(partials, opts, counts, ranking[0], rating[0])
    order = [m.label for _, m in opts.specs]
    return EvaluationResult(tuple(m for _, m in opts.specs),
                            {label: summaries[label] for label in order}, frame, users,
                            _settings(partials, opts, counts, beyond),
                            {text: m.label for text, m in opts.specs}, terms)
