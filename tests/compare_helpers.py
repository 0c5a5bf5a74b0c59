"""Builders of EvaluationResults with chosen per-user values, for the statistics tests."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from receval import EvaluationResult, MetricSummary, UserAccounting
from receval.metrics import parse


def result(values: dict[str, Sequence[float]], users: Sequence[object] | None = None,
           *, missing: Sequence[object] = (),
           terms: dict[str, tuple[Sequence[float], Sequence[float]]] | None = None
           ) -> EvaluationResult:
    """An EvaluationResult whose per-user values are ``values`` (metric name -> values).

    ``terms`` gives micro metrics their per-user numerators and denominators.
    """
    n = len(next(iter(values.values())))
    index = pd.Index(list(users) if users is not None else list(range(n)), name="user")
    metrics = [parse(name) for name in values]
    frame = pd.DataFrame({m.label: np.asarray(v, dtype=float)
                          for m, v in zip(metrics, values.values(), strict=True)}, index=index)
    summaries = {m.label: MetricSummary(m, float(frame[m.label].mean()), "macro", n)
                 for m in metrics}  # NaN values left out; NaN when every value is
    empty = pd.Index([])
    acc = UserAccounting(n, n, n - len(missing), index, empty, empty, empty, empty,
                         pd.Index(list(missing)), empty, empty, 0, {})
    micro = {}
    for name, (num, den) in (terms or {}).items():
        micro[parse(name).label] = (index, np.asarray(num, float), np.asarray(den, float))
    return EvaluationResult(tuple(metrics), summaries, frame, acc, {}, {}, micro)
