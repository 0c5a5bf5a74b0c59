"""The rating family: per-user errors and correlations of predicted against true ratings.

Each truth rating of the evaluated users is paired with its prediction (the recs' score),
missing predictions handled by ``missing_predictions``, and one pass of the compiled rating
kernel (:func:`receval._kernels.rating.rating_kernel`) computes every metric.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from receval._aggregate import aggregate, column_of
from receval._engine._families._base import Context, Family, FamilyPartial, MergeContext, Specs
from receval._engine._notes import note
from receval._exact import add_sums, exact_mean
from receval._kernels import rating as QK
from receval._result import MetricSummary
from receval.data import Interactions
from receval.exceptions import (
    EmptyInputError,
    InvalidParameterError,
    MissingPredictionError,
    UndefinedMetricWarning,
    format_examples,
)
from receval.metrics import Metric

__all__ = ["Rating"]


def _fill(data: Interactions, opts: Any) -> np.ndarray | None:
    """The rating given to truth rows without a prediction, per truth row (or None)."""
    missing = opts.policies["missing_predictions"]
    if opts.fill_value is not None:
        return np.full(len(data.t_user), opts.fill_value)
    if missing == "global_mean":  # exactly rounded, as over Parquet or Spark buckets
        return np.full(len(data.t_user), exact_mean(data.t_grade))
    if not isinstance(missing, str):
        return np.full(len(data.t_user), float(missing))
    return None


def _resolved(specs: Specs, opts: Any) -> list[Any]:
    """The metrics with the call's relevance threshold where they take it."""
    metrics: list[Any] = []
    for _, metric in specs:
        if getattr(metric, "threshold", 0.0) is None:
            if opts.relevance_threshold is None:
                raise InvalidParameterError(
                    f"{metric.label} needs a threshold: pass "
                    f"'{metric.name}(threshold=4)' or relevance_threshold=",
                    parameter="threshold")
            metric = metric.replace(threshold=float(opts.relevance_threshold))
        metrics.append(metric)
    return metrics


def _check_missing(data: Interactions, no_pred: np.ndarray, opts: Any) -> int:
    n_missing = int(no_pred.sum())
    if n_missing and opts.policies["missing_predictions"] == "error":
        bad = np.flatnonzero(no_pred)
        ex = [(data.user_ids[data.t_user[i]], data.item_ids[data.t_item[i]]) for i in bad[:5]]
        raise MissingPredictionError(
            f"{n_missing} truth ratings have no predicted rating in recs, e.g. (user, item) "
            f"{format_examples(ex, n_missing)}; pass missing_predictions='skip' to use the "
            f"common subset, 'global_mean' or a number to fill them",
            parameter="missing_predictions", n_bad=n_missing, examples=ex)
    return n_missing


class Rating(Family):
    """RMSE, MAE, MSE, rating precision / recall / F1, Spearman, Kendall."""

    name = "rating"

    def run(self, ctx: Context, specs: Specs) -> FamilyPartial:
        data, opts = ctx.data, ctx.opts
        if not data.has_grade:
            raise InvalidParameterError(
                f"rating metrics ({', '.join(m.label for _, m in specs)}) need true ratings: "
                f"the truth has no rating column", parameter="metrics")
        in_truth = data.truth_count() > 0
        truth_users = np.flatnonzero(in_truth)
        if opts.policies["missing_recs"] == "skip":  # users absent from recs are left out
            truth_users = np.flatnonzero(in_truth & (data.recs_count() > 0))
        pairs, no_pred = data.rating_pairs(truth_users, _fill(data, opts))
        n_missing = _check_missing(data, no_pred, opts)
        keep = (pairs.ends - pairs.starts) > 0
        codes = truth_users[keep]
        skipped = np.setdiff1d(np.flatnonzero(in_truth), codes, assume_unique=True)
        metrics = _resolved(specs, opts)
        req = np.array([m.request() for m in metrics], dtype=np.float64)
        num = np.zeros((len(codes), len(metrics)))
        den = np.zeros((len(codes), len(metrics)))
        QK.rating_kernel(pairs.starts[keep], pairs.ends[keep], pairs.pred, pairs.true,
                         req[:, 0].astype(np.int64), np.ascontiguousarray(req[:, 1]), num, den)
        users = data.user_ids[codes]
        out = FamilyPartial(state={"resolved": {}},
                            groups={"rating_evaluated": users,
                                    "rating_skipped": data.user_ids[skipped]},
                            counts={"missing_predictions": n_missing,
                                    "n_rating_evaluated": len(codes)})
        for j, ((_, asked), metric) in enumerate(zip(specs, metrics, strict=True)):
            out.add(asked.label, column_of(metric, users, num[:, j], den[:, j]))
            out.state["resolved"][asked.label] = metric
        return out

    def check(self, specs: Specs, counts: dict[str, int]) -> None:
        if counts.get("n_rating_evaluated", 0) == 0:
            raise EmptyInputError("no truth rating has a predicted rating: rating metrics "
                                  "have nothing to compare", parameter="recs")

    def resolved(self, metric: Metric, parts: Sequence[FamilyPartial]) -> Metric:
        return cast(Metric, next(p.state["resolved"][metric.label] for p in parts
                                 if metric.label in p.state["resolved"]))

    def summarize(self, specs: Specs, parts: Sequence[FamilyPartial], ctx: MergeContext
                  ) -> dict[str, MetricSummary]:
        out = {}
        n_users = ctx.counts["n_rating_evaluated"]
        for _, asked in specs:
            metric = self.resolved(asked, parts)
            sums = add_sums([p.sums[asked.label] for p in parts if asked.label in p.sums])
            n_undef = sums.n_undefined
            micro = metric.aggregation_mode == "micro"  # pooled sums: nobody is left out
            if n_undef and not micro:
                note(ctx.notes, UndefinedMetricWarning,
                     f"{metric.label} is undefined for {{n}} users (too few pairs, no variation "
                     f"or no positive), who are left out of its mean", n_undef, [],
                     ctx.opts.strict)
            out[asked.label] = MetricSummary(metric, aggregate(metric, sums),
                                             metric.aggregation_mode,
                                             n_users - (0 if micro else n_undef), n_undef)
        return out
