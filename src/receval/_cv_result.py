"""``CrossValidation``: the evaluations of every (model, fold) of :func:`receval.cross_validate`."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from receval._result import EvaluationResult

if TYPE_CHECKING:
    from receval.report._plots import CrossValidationPlots
    from receval.stats import Comparison

__all__ = ["CrossValidation"]


@dataclass(frozen=True)
class CrossValidation:
    """What :func:`receval.cross_validate` measured, fold by fold and model by model.

    Attributes
    ----------
    results : dict
        ``results[(model, fold)]`` is the :class:`~receval.EvaluationResult` of one model on
        one fold, per-user values included (``.per_user``).
    models : list of str
        Model names, in the order given.
    n_folds : int
        Number of folds (splits).
    labels : list of str
        Metric labels, in the order requested.
    settings : dict
        ``k``, ``exclude_seen``, the evaluate options, each model's ``repr`` (``models``)
        and parameters (``model_params``: name -> {parameter: repr}, from ``get_params()``),
        the models without rating metrics (no ``predict``) or ranked by ``predict`` (no
        ``recommend``), each (model, fold)'s fallbacks (``model.fallbacks_``) and ties at
        the cutoff that ``recommend`` warned about (``ties_at_cutoff``: (model, fold) ->
        ``{"warnings", "users", "messages"}``), and the splits' reports.
    timings : pandas.DataFrame
        Seconds spent in ``fit``, ``recommend``, ``predict`` and ``evaluate`` per
        (model, fold).
    """

    results: dict[tuple[str, int], EvaluationResult]
    models: list[str]
    n_folds: int
    labels: list[str]
    settings: dict[str, Any]
    timings: pd.DataFrame = field(repr=False)

    @property
    def per_fold(self) -> pd.DataFrame:
        """One row per (model, fold), one column per metric label (NaN: not measured)."""
        keys = [(m, f) for m in self.models for f in range(self.n_folds)]
        rows = {key: {label: _value(self.results[key], label) for label in self.labels}
                for key in keys}
        frame = pd.DataFrame.from_dict(rows, orient="index", columns=self.labels)
        frame.index = pd.MultiIndex.from_tuples(list(rows), names=["model", "fold"])
        return frame

    def summary(self) -> pd.DataFrame:
        """Mean and standard deviation over folds, per model and metric.

        Columns are ``(label, "mean")`` and ``(label, "std")``; the standard deviation is
        the sample one (``ddof=1``, NaN for a single fold), as pandas computes it.
        """
        grouped = self.per_fold.groupby(level="model", sort=False)
        mean, std = grouped.mean(), grouped.std(ddof=1)
        frame = pd.concat({"mean": mean, "std": std}, axis=1).swaplevel(axis=1)
        frame = frame.reindex(columns=pd.MultiIndex.from_product([self.labels,
                                                                  ["mean", "std"]]))
        return frame.reindex(self.models)

    # -- report and figures (receval[report], receval[plot]; imported on use) -----------------
    def report(self, path: str | Path, *, title: str | None = None,
               generated: Any = None) -> Path:
        """Write a standalone HTML report of this cross-validation to ``path``.

        One file that opens from disk with no network (styles inline, figures as inline
        SVG): see ``docs/reports.md``. Needs ``pip install 'receval[report]'``.
        """
        from receval.report import write_cross_validation_report

        return write_cross_validation_report(self, path, title=title, generated=generated)

    @property
    def plot(self) -> CrossValidationPlots:
        """Matplotlib figures of this cross-validation (``pip install 'receval[plot]'``)."""
        from receval.report._plots import CrossValidationPlots

        return CrossValidationPlots(self)

    def to_markdown(self, digits: int = 4) -> str:
        """The summary as a markdown table: ``mean ± std`` per model and metric."""
        from tabulate import tabulate

        rows = [[model, *self._cells(model, digits)] for model in self.models]
        return str(tabulate(rows, headers=["model", *self.labels], tablefmt="github",
                            disable_numparse=True))

    def __repr__(self) -> str:
        lines = [f"CrossValidation({len(self.models)} models x {self.n_folds} folds, "
                 f"k={self.settings.get('k')})"]
        for model in self.models:
            cells = ", ".join(f"{label} {cell}"
                              for label, cell in zip(self.labels, self._cells(model, 4),
                                                     strict=True))
            lines.append(f"  {model}: {cells}")
        return "\n".join(lines)

    def _cells(self, model: str, digits: int) -> list[str]:
        """``mean ± std`` of each metric for one model."""
        summary = self.summary()
        return [_pm(float(summary.loc[model, (label, "mean")]),  # type: ignore[arg-type]
                    float(summary.loc[model, (label, "std")]), digits)  # type: ignore[arg-type]
                for label in self.labels]

    def compare(self, **options: Any) -> Comparison:
        """Compare the models with paired tests, users paired by (fold, user id).

        Calls ``receval.stats.compare_folds`` on the per-user values of every fold; every
        option (``metrics``, ``test``, ``method``, ``correction``, ``baseline``, ``alpha``,
        ``confidence``, ``n_resamples``, ``seed``, ``users``) is passed through. Each metric
        is compared over the models that measured it on every fold (a rating metric only
        over the models with ``predict``), whatever the models' order; the models left out
        of a metric are in ``settings["left_out"]`` and ``settings["notes"]``, and warned
        about (``DataWarning``); the correction runs over every test.

        Returns
        -------
        receval.stats.Comparison
            Means, confidence intervals and paired tests over every (fold, user).
        """
        from receval._cv_compare import compare_cv

        return compare_cv(self, **options)


def _value(result: EvaluationResult, label: str) -> float:
    return result[label] if label in result else float("nan")


def _pm(mean: float, std: float, digits: int) -> str:
    if np.isnan(mean):
        return "-"
    spread = "" if np.isnan(std) else f" ± {std:.{digits}f}"
    return f"{mean:.{digits}f}{spread}"
