"""The global metrics of the engine: user coverage and item coverage over every partial."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from receval._engine._frame import concat
from receval._engine._options import Options
from receval._engine._partial import Partial
from receval._result import MetricSummary
from receval.exceptions import DataError, InvalidParameterError, format_examples
from receval.metrics import ItemCoverage, Metric, UserCoverage

__all__ = ["global_summary"]


def global_summary(metric: Metric, partials: Sequence[Partial], counts: dict[str, int],
                   opts: Options) -> MetricSummary:
    """The summary of one global metric (user or item coverage)."""
    if isinstance(metric, UserCoverage):
        n_truth = counts["n_truth"]
        return MetricSummary(metric, counts["truth_users_with_recs"] / n_truth, "global",
                             n_truth)
    if not isinstance(metric, ItemCoverage):  # pragma: no cover - the registry is closed
        raise InvalidParameterError(f"unknown global metric {metric!r}", parameter="metrics")
    rec = pd.Index(np.unique(np.concatenate(
        [np.asarray(p.recommended[metric.label], dtype=object) if p.items.dtype == object
         else p.recommended[metric.label] for p in partials])))
    if metric.over == "train":
        if partials[0].beyond is None:
            raise InvalidParameterError(f"{metric.label} needs evaluate(train=...)",
                                        parameter="train")
        return MetricSummary(metric, len(rec) / len(partials[0].beyond.train_items),
                             "global", counts["n_recs"])
    if opts.catalog is None:
        catalog = concat(p.items for p in partials).unique()
        if opts.train is not None and partials[0].beyond is not None:  # train + recommended
            catalog = partials[0].beyond.train_items.append(rec).unique()
        return MetricSummary(metric, len(rec) / len(catalog), "global", counts["n_recs"])
    cat = pd.Index(pd.unique(pd.Series(list(opts.catalog))))
    if len(cat) == 0:
        raise InvalidParameterError("catalog is empty", parameter="catalog")
    outside = rec[~rec.isin(cat)]
    if len(outside):
        raise DataError(
            f"{len(outside)} recommended items are not in catalog (e.g. "
            f"{format_examples(list(outside[:5]), len(outside))}); coverage would exceed "
            f"the catalog", parameter="catalog", n_bad=len(outside),
            examples=list(outside[:5]))
    return MetricSummary(metric, len(rec) / len(cat), "global", counts["n_recs"])
