"""The rating metrics of one partition: (prediction, rating) pairs and the rating kernel."""

from __future__ import annotations

from typing import cast

import numpy as np
import pandas as pd

from receval._engine._options import Options
from receval._engine._partial import Values, per_user_values
from receval._engine._sums import exact_mean
from receval._kernels import rating as QK
from receval.data import Interactions
from receval.exceptions import InvalidParameterError, MissingPredictionError, format_examples
from receval.metrics import Metric, RatingMetric

__all__ = ["run_rating"]


def _fill(data: Interactions, opts: Options) -> np.ndarray | None:
    """The rating given to truth rows without a prediction, per truth row (or None)."""
    missing = opts.policies["missing_predictions"]
    if opts.fill_value is not None:
        return np.full(len(data.t_user), opts.fill_value)
    if missing == "global_mean":  # exactly rounded, as over Parquet or Spark buckets
        return np.full(len(data.t_user), exact_mean(data.t_grade))
    if not isinstance(missing, str):
        return np.full(len(data.t_user), float(missing))
    return None


def _resolved(specs: list[tuple[str, RatingMetric]], opts: Options) -> list[RatingMetric]:
    """The metrics with the call's relevance threshold where they take it."""
    metrics: list[RatingMetric] = []
    for _, metric in specs:
        if getattr(metric, "threshold", 0.0) is None:
            if opts.relevance_threshold is None:
                raise InvalidParameterError(
                    f"{metric.label} needs a threshold: pass "
                    f"'{metric.name}(threshold=4)' or relevance_threshold=",
                    parameter="threshold")
            metric = cast(RatingMetric,
                          metric.replace(threshold=float(opts.relevance_threshold)))
        metrics.append(metric)
    return metrics


def run_rating(data: Interactions, opts: Options, values: dict[str, Values],
               resolved: dict[str, Metric], groups: dict[str, pd.Index],
               counts: dict[str, int]) -> np.ndarray:
    """Run the rating kernel; fill ``values`` and ``resolved``; return the users' codes."""
    specs = opts.of(RatingMetric)
    if not data.has_grade:
        raise InvalidParameterError(
            f"rating metrics ({', '.join(m.label for _, m in specs)}) need true ratings: the "
            f"truth has no rating column", parameter="metrics")
    in_truth = data.truth_count() > 0
    truth_users = np.flatnonzero(in_truth)
    if opts.policies["missing_recs"] == "skip":  # users absent from recs are left out
        truth_users = np.flatnonzero(in_truth & (data.recs_count() > 0))
    pairs, no_pred = data.rating_pairs(truth_users, _fill(data, opts))
    n_missing = int(no_pred.sum())
    if n_missing and opts.policies["missing_predictions"] == "error":
        bad = np.flatnonzero(no_pred)
        ex = [(data.user_ids[data.t_user[i]], data.item_ids[data.t_item[i]]) for i in bad[:5]]
        raise MissingPredictionError(
            f"{n_missing} truth ratings have no predicted rating in recs, e.g. (user, item) "
            f"{format_examples(ex, n_missing)}; pass missing_predictions='skip' to use the "
            f"common subset, 'global_mean' or a number to fill them",
            parameter="missing_predictions", n_bad=n_missing, examples=ex)
    keep = (pairs.ends - pairs.starts) > 0
    codes = truth_users[keep]
    skipped = np.setdiff1d(np.flatnonzero(in_truth), codes, assume_unique=True)
    groups["rating_skipped"] = data.user_ids[skipped]
    counts["missing_predictions"] = n_missing
    metrics = _resolved(specs, opts)
    req = np.array([m.request() for m in metrics], dtype=np.float64)
    num = np.zeros((len(codes), len(metrics)))
    den = np.zeros((len(codes), len(metrics)))
    QK.rating_kernel(pairs.starts[keep], pairs.ends[keep], pairs.pred, pairs.true,
                     req[:, 0].astype(np.int64), np.ascontiguousarray(req[:, 1]), num, den)
    for j, ((_, asked), metric) in enumerate(zip(specs, metrics, strict=True)):
        values[asked.label] = per_user_values(metric, num[:, j], den[:, j])
        resolved[asked.label] = metric
    return codes
