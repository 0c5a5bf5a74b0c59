"""``cv.compare()``: each metric compared over the models that have it.

A rating metric is measured only for models with ``predict``; a cross-validation of a
ranker and a rating predictor has RMSE for one model only. Each metric is compared over the
models that have it on every fold (one :func:`receval.stats.compare_folds` call per set of
models, the correction then applied over every test of every call); the models left out of a
metric are listed in ``settings["left_out"]``, said in ``settings["notes"]`` and warned about
(:class:`~receval.exceptions.DataWarning`). A metric that fewer than two models have is not
compared (a note says so). Whatever the models' order, the same comparison.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import pandas as pd

from receval._result import EvaluationResult
from receval.exceptions import DataWarning, InvalidParameterError, warn
from receval.metrics import Metric

if TYPE_CHECKING:
    from receval.stats import Comparison

__all__ = ["compare_cv"]


class CrossValidation(Protocol):
    """What the comparison reads of :class:`receval.CrossValidation`.

    A protocol, not an import: ``_cv_result`` calls this module.
    """

    @property
    def labels(self) -> list[str]: ...
    @property
    def models(self) -> list[str]: ...
    @property
    def n_folds(self) -> int: ...
    @property
    def results(self) -> dict[tuple[str, int], EvaluationResult]: ...


def _requested(cv: CrossValidation, metrics: Any) -> list[Any]:
    if metrics is None:
        return list(cv.labels)
    return [metrics] if isinstance(metrics, (str, Metric)) else list(metrics)


def compare_cv(cv: CrossValidation, **options: Any) -> Comparison:
    """Compare the models of ``cv`` (see :meth:`CrossValidation.compare`)."""
    from receval.stats import compare_folds
    from receval.stats._corrections import correction_of

    correction = correction_of(options.pop("correction", None))
    metrics = options.pop("metrics", None)
    requested = _requested(cv, metrics)
    by_model: Mapping[str, list[EvaluationResult]] = {
        model: [cv.results[(model, f)] for f in range(cv.n_folds)] for model in cv.models}
    have = {i: tuple(m for m in cv.models if all(metric in ev for ev in by_model[m]))
            for i, metric in enumerate(requested)}
    if all(len(models) == len(cv.models) for models in have.values()):
        return compare_folds(by_model, metrics=metrics, correction=correction, **options)
    groups: dict[tuple[str, ...], list[Any]] = {}
    notes: list[str] = []
    left_out: dict[str, list[str]] = {}
    for i, metric in enumerate(requested):
        name = _label(metric, [by_model[m][0] for m in have[i]])
        missing = [m for m in cv.models if m not in have[i]]
        if missing:
            left_out[name] = missing
        if len(have[i]) < 2:
            notes.append(f"{name} is not compared: only {list(have[i])} measured it (not "
                         f"{missing})" if have[i] else
                         f"{name} is not compared: no model measured it")
            continue
        groups.setdefault(have[i], []).append(metric)
        if missing:
            notes.append(f"{name} is compared over {list(have[i])} only: {missing} have no "
                         f"value for it (e.g. a rating metric of a model without predict)")
    if not groups:
        raise InvalidParameterError(
            f"no metric was measured for two models or more, nothing to compare: "
            f"{'; '.join(notes)}", parameter="metrics")
    for note in notes:
        warn(f"cv.compare: {note}", DataWarning)
    parts = [compare_folds({m: by_model[m] for m in models}, metrics=group, **options)
             for models, group in sorted(groups.items(), key=lambda g: -len(g[0]))]
    return _merge(parts, cv.models, correction, options.get("alpha", 0.05),
                  {"left_out": left_out, "notes": notes})


def _label(metric: Any, results: list[EvaluationResult]) -> str:
    """The canonical label of a requested metric (``recall@5`` -> ``Recall@5``)."""
    if results:
        return str(results[0]._label(metric))
    if isinstance(metric, Metric):
        return metric.label
    try:
        from receval.metrics import parse

        return parse(metric).label
    except Exception:  # a name only a convention knows: as given
        return str(metric)


def _merge(parts: list[Comparison], order: list[str], correction: str | None,
           alpha: float, extra: dict[str, Any]) -> Comparison:
    """One comparison of several calls: tables side by side, one correction over all tests."""
    from receval.stats import Comparison
    from receval.stats._corrections import adjust

    systems = [s for s in order if any(s in p.systems for p in parts)]
    means = pd.concat([p.means for p in parts], axis=1).reindex(systems)
    means.index.name = parts[0].means.index.name
    tests = pd.concat([p.tests for p in parts], ignore_index=True)
    if len(tests):
        tests["p_adjusted"] = adjust(tests["p_value"].to_numpy(dtype=np.float64), correction)
        tests["significant"] = tests["p_adjusted"] < alpha
    friedman = [p.friedman for p in parts if p.friedman is not None]
    nemenyi = [p.nemenyi for p in parts if p.nemenyi is not None]
    users = pd.concat([p.users for p in parts])
    users = users[~users.index.duplicated()].reindex(systems)
    settings = dict(parts[0].settings)
    settings.update(
        correction=correction,
        n_tests=int(tests["p_value"].notna().sum()) if len(tests) else 0,  # the correction's m
        users_per_metric={k: v for p in parts
                          for k, v in (p.settings.get("users_per_metric") or {}).items()},
        not_tested=[x for p in parts for x in p.settings.get("not_tested", [])], **extra)
    higher = {k: v for p in parts for k, v in p.higher_is_better.items()}
    per_user = _merge_per_user([p.per_user for p in parts])
    return Comparison(systems, means, pd.concat([p.ci for p in parts]), tests,
                      pd.concat(friedman, ignore_index=True) if friedman else None,
                      pd.concat(nemenyi, ignore_index=True) if nemenyi else None,
                      users, None, settings, higher, per_user)


def _merge_per_user(parts: list[dict[str, Any] | None]) -> dict[str, Any] | None:
    if any(p is None for p in parts):
        return None
    values: dict[str, dict[str, Any]] = {}
    metrics: dict[str, Any] = {}
    compared: dict[str, Any] = {}
    for part in parts:
        assert part is not None
        metrics.update(part["metrics"])
        compared.update(part.get("compared") or {})
        for name, v in part["values"].items():
            if name not in values:
                values[name] = {"frame": v["frame"], "terms": dict(v["terms"])}
            else:
                frame = values[name]["frame"]
                new = [c for c in v["frame"].columns if c not in frame.columns]
                values[name]["frame"] = frame.join(v["frame"][new], how="outer")
                values[name]["terms"].update(v["terms"])
    return {"values": values, "metrics": metrics, "compared": compared}
