"""Propensity-stratified evaluation (Jadidinejad, Macdonald, Ounis 2021; Cornac's protocol).

The test rows are split into strata by their item's propensity (equal-width bins of the
propensity, Cornac's ``PropensityStratifiedEvaluation``); each stratum is evaluated on its
own rows with :func:`receval.evaluate`, and the strata are combined weighted by their share of
the test rows: ``unbiased = sum_q (n_q / N) metric_q``. Cornac's own module computes wrong
ranking metrics since cornac 1.17 (its metrics take item indices since PR #523, and the module
still passes dense vectors); this is the protocol as published, with receval's metrics.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from receval._columns import Columns
from receval._result import EvaluationResult
from receval.exceptions import (
    BackendUnavailableError,
    DataError,
    InvalidParameterError,
    format_examples,
)
from receval.metrics import Metric, parse
from receval.metrics._debiased import Debiased

__all__ = ["StratifiedEvaluation", "cornac_propensities", "propensity_stratified"]


@dataclass(frozen=True)
class StratifiedEvaluation:
    """The metrics on all test rows, with propensity weights, per stratum, and combined.

    Attributes
    ----------
    table : pandas.DataFrame
        Rows ``closed`` (every test row), ``ips`` (the metric with SNIPS weights ``1 / p``,
        NaN for a metric without a weighted form), ``Q1``, ``Q2``, ... (each stratum's rows)
        and ``unbiased`` (``sum_q n_q / N metric_q``); one column per metric and ``rows``
        (test rows in each).
    results : dict
        Row name -> the :class:`~receval.EvaluationResult` behind it.
    propensities : pandas.Series
        The propensity of every item of the test rows.
    settings : dict
        The propensity model (and Cornac's fitted ``alpha``, ``xmin``), the bin edges, the
        number of strata.
    """

    table: pd.DataFrame
    results: dict[str, EvaluationResult] = field(repr=False)
    propensities: pd.Series = field(repr=False)
    settings: dict[str, Any] = field(repr=False)


def cornac_propensities(items: pd.Series) -> tuple[pd.Series, float, float]:
    """Cornac's ``_estimate_propensities``: ``f_i^alpha`` if ``f_i > xmin`` else ``f_i``.

    ``f_i`` the item's rows in ``items`` (the whole data, train and test), ``alpha`` and
    ``xmin`` from ``powerlaw.Fit(f, discrete=True, fit_method='Likelihood')`` (the optional
    ``powerlaw`` package, as Cornac).
    """
    try:
        import powerlaw  # type: ignore[import-untyped]
    except ImportError as exc:  # pragma: no cover - installed with receval[fairness]
        raise BackendUnavailableError(
            "propensity='cornac' fits Cornac's power law with the powerlaw package: pip "
            "install powerlaw", parameter="propensity") from exc
    freq = items.value_counts(sort=False)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fit = powerlaw.Fit(freq.to_numpy(dtype=float), discrete=True,
                               fit_method="Likelihood", verbose=False)
            alpha, xmin = float(fit.power_law.alpha), float(fit.power_law.xmin)
        except ValueError as exc:
            raise DataError(f"propensity='cornac': powerlaw cannot fit the {len(freq)} "
                            f"item frequencies ({exc}); give propensities as a mapping",
                            parameter="propensity") from exc
    f = freq.to_numpy(dtype=float)
    return pd.Series(np.where(f > xmin, f ** alpha, f), index=freq.index), alpha, xmin


def _frame(data: Any, name: str, columns: Columns) -> tuple[pd.DataFrame, str]:
    from receval.data._adapters import to_frame

    frame = to_frame(data, name)
    return frame, columns.require("item", [str(c) for c in frame.columns], table=name)


def _propensities(propensity: Any, truth_items: pd.Series, train: Any, columns: Columns
                  ) -> tuple[pd.Series, dict[str, Any]]:
    if isinstance(propensity, (Mapping, pd.Series)):
        p = pd.Series(propensity) if isinstance(propensity, Mapping) else propensity
        return p.astype(float), {"propensity": "given"}
    if propensity not in ("popularity", "cornac"):
        raise InvalidParameterError(
            f"propensity must be 'popularity' (training counts), 'cornac' (Cornac's power "
            f"law on train and test) or a mapping item -> propensity; got {propensity!r}",
            parameter="propensity", examples=[propensity])
    if train is None:
        raise InvalidParameterError(f"propensity={propensity!r} reads train=",
                                    parameter="train")
    frame, icol = _frame(train, "train", columns)
    if propensity == "popularity":
        return frame[icol].value_counts(sort=False).astype(float), {"propensity": "popularity"}
    whole = pd.concat([frame[icol], truth_items], ignore_index=True)
    p, alpha, xmin = cornac_propensities(whole)
    return p, {"propensity": "cornac", "alpha": alpha, "xmin": xmin}


def _strata(p: np.ndarray, n_strata: int) -> tuple[np.ndarray, np.ndarray]:
    """Cornac's bins: ``np.digitize`` over ``arange(0.99 min, 1.01 max, width)``."""
    minp = p.min() - 0.01 * p.min()
    maxp = p.max() + 0.01 * p.max()
    width = (maxp - minp) / n_strata
    edges = np.arange(minp, maxp, width)
    return np.digitize(p, edges), edges


def _weighted(metric: Metric) -> Metric | None:
    if isinstance(metric, Debiased):
        return metric.replace(propensity="column", estimator="snips")
    return None


def propensity_stratified(recs: Any, truth: Any, metrics: Any, *,
                          propensity: Any = "popularity", n_strata: int = 2,
                          train: Any = None, **evaluate_options: Any) -> StratifiedEvaluation:
    """Evaluate per propensity stratum of the test rows and combine (Cornac's protocol).

    Parameters
    ----------
    recs, truth, metrics
        As in :func:`receval.evaluate`.
    propensity : {"popularity", "cornac"} or mapping
        Each item's propensity: its training rows (``'popularity'``), Cornac's estimate
        (``'cornac'``: ``f^alpha`` above the power law's ``xmin``, fitted on the rows of
        ``train`` and ``truth``; needs the ``powerlaw`` package), or given (item -> value
        > 0, a mapping or Series). Items without one have propensity 0.
    n_strata : int
        Number of equal-width bins of the propensity (Cornac's default 2).
    train : table, optional
        The training interactions (for the propensities, and passed to ``evaluate``).
    **evaluate_options
        Passed to every :func:`receval.evaluate` call.

    Returns
    -------
    StratifiedEvaluation
    """
    from receval._evaluate import evaluate

    if not (isinstance(n_strata, numbers.Integral) and not isinstance(n_strata, bool)
            and n_strata >= 1):
        raise InvalidParameterError(f"n_strata must be an integer >= 1; got {n_strata!r}",
                                    parameter="n_strata", examples=[n_strata])
    columns = Columns.coerce(evaluate_options.get("columns"))
    test, icol = _frame(truth, "truth", columns)
    props, info = _propensities(propensity, test[icol], train, columns)
    p = props.reindex(pd.Index(test[icol])).fillna(0.0).to_numpy(dtype=float)
    if (p < 0).any() or not np.isfinite(p).all():
        bad = test[icol][(p < 0) | ~np.isfinite(p)].unique()[:5].tolist()
        raise DataError(f"propensities must be finite and >= 0; items {format_examples(bad)}",
                        parameter="propensity", examples=bad)
    label, edges = _strata(p, int(n_strata))
    parsed = [parse(m) for m in ([metrics] if isinstance(metrics, (str, Metric)) else metrics)]
    side = {"train": train} if train is not None else {}
    results = {"closed": evaluate(recs, truth, parsed, **side, **evaluate_options)}
    weighted = [w for w in map(_weighted, parsed) if w is not None]
    if weighted:
        scale = p.max() if p.max() > 0 else 1.0
        given = pd.Series(p / scale, index=test[icol].to_numpy()).groupby(level=0).first()
        results["ips"] = evaluate(recs, truth, weighted, **side,
                                  propensities=given[given > 0], **evaluate_options)
    sizes = {"closed": len(test)}
    for q in np.unique(label):
        rows = label == q
        name = f"Q{q}"
        results[name] = evaluate(recs, test[rows], parsed, **side, **evaluate_options)
        sizes[name] = int(rows.sum())
    table = _table(parsed, results, sizes)
    return StratifiedEvaluation(table, results, props, {
        **info, "n_strata": int(n_strata), "edges": edges.tolist(),
        "strata": {k: v for k, v in sizes.items() if k != "closed"}})


def _table(parsed: list[Metric], results: dict[str, EvaluationResult],
           sizes: dict[str, int]) -> pd.DataFrame:
    labels = [m.label for m in parsed]
    rows: dict[str, dict[str, float]] = {}
    for name, ev in results.items():
        if name == "ips":
            got = {m.label: ev[w.label] for m in parsed if (w := _weighted(m)) is not None}
            rows[name] = {x: got.get(x, float("nan")) for x in labels}
        else:
            rows[name] = {x: ev[x] for x in labels}
    strata = [k for k in sizes if k != "closed"]
    total = sizes["closed"]
    rows["unbiased"] = {x: float(sum(sizes[q] / total * rows[q][x] for q in strata))
                        for x in labels}
    table = pd.DataFrame.from_dict(rows, orient="index")[labels]
    table["rows"] = [sizes.get(k, total if k in ("ips", "unbiased") else 0) for k in table.index]
    return table
