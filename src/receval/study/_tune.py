"""``rv.tune``: parameters chosen on a validation part carved from each training part, tested once.

For each fold ``(train, test)``: a validation split ``(fit, validation)`` of ``train`` alone is
made by the same splitter (or ``validation=``); every candidate point of the grid is fitted on
``fit`` and scored on ``validation`` with :func:`receval.cross_validate`; the best point (the
highest score, or the lowest for a metric where lower is better; the first such point in
search order on ties; NaN never best) is refitted on the whole ``train`` and evaluated once on
``test``. The test rows are never seen before that last fit's evaluation.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from receval._cv_result import CrossValidation
from receval.exceptions import BackendUnavailableError, InvalidParameterError
from receval.study._splits import splitter_of, validation_part

__all__ = ["Tuning", "candidates", "merge_cross_validations", "tune"]


@dataclass(frozen=True)
class Tuning:
    """What :func:`receval.tune` did.

    Attributes
    ----------
    trials : pandas.DataFrame
        One row per (fold, candidate): ``fold``, ``trial``, one column per parameter, and
        the validation score (column named by the metric's label); ``best`` marks the point
        chosen in each fold.
    best : list of dict
        The chosen parameters of each fold, in fold order.
    cv : CrossValidation
        The chosen point of each fold, refitted on the fold's whole training part and
        evaluated once on its test part.
    settings : dict
        Metric, direction, search, seed, grid, the validation splitter.
    """

    trials: pd.DataFrame
    best: list[dict[str, Any]]
    cv: CrossValidation
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def best_params(self) -> dict[str, Any]:
        """The chosen parameters, when every fold chose the same (else an error)."""
        first = self.best[0]
        if any(b != first for b in self.best[1:]):
            raise InvalidParameterError(
                f"the folds chose different parameters: {self.best}; read .best per fold",
                parameter="best_params")
        return first

    def __repr__(self) -> str:
        return (f"Tuning({self.settings.get('metric')} over {len(self.trials)} trials; best "
                f"per fold: {self.best})")


def _check_grid(grid: Any) -> dict[str, list[Any]]:
    if not isinstance(grid, Mapping) or not grid:
        raise InvalidParameterError(f"grid must be a non-empty dict of parameter -> list of "
                                    f"values, got {grid!r}", parameter="grid")
    out = {}
    for name, values in grid.items():
        if not isinstance(values, Iterable) or isinstance(values, (str, bytes, Mapping)):
            raise InvalidParameterError(
                f"grid.{name}: expected a list of values to try, got {values!r} (for one "
                f"value, [{values!r}]; a fixed parameter belongs in the model)",
                parameter=f"grid.{name}", examples=[values])
        values = list(values)
        if not values:
            raise InvalidParameterError(f"grid: {name!r} has no values",
                                        parameter=f"grid.{name}")
        out[str(name)] = values
    return out


def candidates(grid: Mapping[str, Any], search: str, n_iter: int | None,
               seed: int) -> list[dict[str, Any]]:
    """The points of ``grid`` to try: all (grid search), or ``n_iter`` drawn without repeats.

    Random search draws ``n_iter`` distinct points of the full grid with
    ``numpy.random.default_rng(seed).choice`` (all of them when ``n_iter`` is larger), in
    the grid's order: the same points in any process.
    """
    grid = _check_grid(grid)
    points = [dict(zip(grid, values, strict=True))
              for values in itertools.product(*grid.values())]
    if search == "grid":
        return points
    if search != "random":
        raise InvalidParameterError(f"search must be grid, random or optuna, got {search!r}",
                                    parameter="search", examples=[search])
    if n_iter is None or int(n_iter) < 1:
        raise InvalidParameterError(f"search='random' needs n_iter >= 1, got {n_iter!r}",
                                    parameter="n_iter", examples=[n_iter])
    if n_iter >= len(points):
        return points
    picked = np.random.default_rng(seed).choice(len(points), size=int(n_iter), replace=False)
    return [points[i] for i in np.sort(picked)]


def _builder(model: Any) -> Callable[[dict[str, Any]], Any]:
    """A function of a point that returns a fresh model with those parameters."""
    if isinstance(model, (str, Mapping)):
        from receval.study._models import _from_spec

        spec: dict[str, Any] = ({"model": model, "params": {}} if isinstance(model, str)
                                else dict(model))
        return lambda point: _from_spec({"model": spec["model"],
                                         "params": {**spec.get("params", {}), **point}})
    from receval.models import clone

    def build(point: dict[str, Any]) -> Any:
        return clone(model).set_params(**point)

    return build


def _score(cv: CrossValidation, name: str) -> float:
    ev = cv.results[(name, 0)]
    label = cv.labels[0]
    return float(ev[label]) if label in ev else float("nan")


def _best(scores: list[float], higher: bool) -> int:
    values = np.array(scores, dtype=float)
    if np.isnan(values).all():
        raise InvalidParameterError("tune: every candidate's validation score is NaN",
                                    parameter="metric")
    values = np.where(np.isnan(values), -np.inf if higher else np.inf, values)
    return int(np.argmax(values) if higher else np.argmin(values))


def _optuna_points(grid: dict[str, list[Any]], n_iter: int | None, seed: int,
                   objective: Callable[[dict[str, Any]], float], higher: bool
                   ) -> list[tuple[dict[str, Any], float]]:
    try:
        import optuna  # type: ignore[import-not-found]
    except ImportError:
        raise BackendUnavailableError("search='optuna' needs optuna: pip install optuna",
                                      parameter="search") from None
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction="maximize" if higher else "minimize",
                                sampler=optuna.samplers.TPESampler(seed=seed))
    done: list[tuple[dict[str, Any], float]] = []

    def run(trial: Any) -> float:
        point = {name: values[trial.suggest_categorical(name, list(range(len(values))))]
                 for name, values in grid.items()}
        done.append((point, objective(point)))
        return done[-1][1]

    study.optimize(run, n_trials=int(n_iter or 10))
    return done


def tune(model: Any, grid: Mapping[str, Any], data: Any, metric: str, *, split: Any,
         validation: Any = None, search: str = "grid", n_iter: int | None = None,
         seed: int = 0, metrics: Any = None, name: str = "tuned", k: int = 10,
         exclude_seen: bool = True, **evaluate_options: Any) -> Tuning:
    """Choose a model's parameters on validation parts carved from training parts; test once.

    Parameters
    ----------
    model : model, str or dict
        A model (copied for each point: ``rv.models.clone`` and ``set_params``), or a spec
        (``"item-mean"``, ``{"model": ..., "params": ...}``) built for each point.
    grid : dict of str to list
        Parameter -> the values to try.
    data : table
        The whole data set (the items a model may recommend).
    metric : str
        The metric that chooses (its direction: ``higher_is_better``).
    split : Split, list of Split, or function of data
        The outer folds (test parts are used once, for the chosen point).
    validation : dict, str, function or None
        How the validation part is carved from each training part: a splitter table
        (``{"method": "random", "test_size": 0.2, "seed": 0}``, checked up front: an unknown
        method or keyword is a ConfigError with the closest name), a method name
        (``"random"`` is ``{"method": "random"}``), a function of the training part
        returning a Split, or None for the splitter that made ``split`` (its report).
    search : {"grid", "random", "optuna"}
        Every point, ``n_iter`` distinct points drawn with ``seed``, or Optuna's TPE sampler
        seeded with ``seed`` (``pip install optuna``).
    metrics : list of str, optional
        What the test evaluation measures (default: ``[metric]``).
    name : str
        The model's name in the results.
    k, exclude_seen, **evaluate_options
        As in :func:`receval.cross_validate`.

    Returns
    -------
    Tuning
        ``trials``, ``best`` (per fold), ``cv`` (the test evaluation), ``settings``.
    """
    from receval._cv import _folds, _warn_once
    from receval._flags import check_flag
    from receval.metrics import parse
    from receval.study._config import check_validation

    exclude_seen = bool(check_flag(exclude_seen, "exclude_seen"))
    grid = _check_grid(grid)
    validation = check_validation(validation)
    build = _builder(model)
    higher = bool(getattr(parse(metric), "higher_is_better", True))
    folds = _folds(split, data)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rows, best, results = _tune_folds(folds, build, grid, data, metric, validation, search,
                                          n_iter, seed, higher, name, metrics, k,
                                          exclude_seen, evaluate_options)
    _warn_once(caught)
    cv = merge_cross_validations([{name: r} for r in results], by="fold")
    settings = {"metric": metric, "higher_is_better": higher, "search": search,
                "n_iter": n_iter, "seed": seed, "grid": grid,
                "validation": validation if isinstance(validation, dict) or validation is None
                else repr(validation)}
    cv.settings["tuning"] = {name: {**settings, "best": best, "trials": rows}}
    return Tuning(pd.DataFrame(rows), best, cv, settings)


def _tune_folds(folds: list[Any], build: Callable[[dict[str, Any]], Any],
                grid: dict[str, list[Any]], data: Any, metric: str, validation: Any,
                search: str, n_iter: int | None, seed: int, higher: bool, name: str,
                metrics: Any, k: int, exclude_seen: bool, evaluate_options: dict[str, Any]
                ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[CrossValidation]]:
    """Every fold's trials, chosen point and test evaluation."""
    from receval.metrics import parse

    label = parse(metric).label
    rows: list[dict[str, Any]] = []
    best: list[dict[str, Any]] = []
    results: list[CrossValidation] = []
    for f, fold in enumerate(folds):
        train = fold.train if hasattr(fold, "train") else fold[0]
        inner = _carve(train, fold, validation)
        tried = _trials(build, grid, train, inner, metric, search, n_iter, seed, higher, name,
                        k, exclude_seen, evaluate_options)
        chosen = _best([score for _, score in tried], higher)
        best.append(tried[chosen][0])
        rows += [{"fold": f, "trial": t, **point, label: score, "best": t == chosen}
                 for t, (point, score) in enumerate(tried)]
        results.append(_test(build(tried[chosen][0]), name, data, fold, metrics or [metric],
                             k, exclude_seen, evaluate_options))
    return rows, best, results


def _carve(train: Any, fold: Any, validation: Any) -> Any:
    if callable(validation):
        return validation(train)
    splitter = dict(validation) if validation is not None else splitter_of(fold)
    return validation_part(train, splitter, "validation")


def _trials(build: Callable[[dict[str, Any]], Any], grid: dict[str, list[Any]], train: Any,
            inner: Any, metric: str, search: str, n_iter: int | None, seed: int, higher: bool,
            name: str, k: int, exclude_seen: bool, options: dict[str, Any]
            ) -> list[tuple[dict[str, Any], float]]:
    from receval._cv import cross_validate

    def objective(point: dict[str, Any]) -> float:
        cv = cross_validate({name: build(point)}, train, [metric], split=inner, k=k,
                            exclude_seen=exclude_seen, progress=False, **options)
        return _score(cv, name)

    if search == "optuna":
        return _optuna_points(grid, n_iter, seed, objective, higher)
    return [(point, objective(point)) for point in candidates(grid, search, n_iter, seed)]


def _test(model: Any, name: str, data: Any, fold: Any, metrics: Any, k: int,
          exclude_seen: bool, options: dict[str, Any]) -> CrossValidation:
    from receval._cv import cross_validate

    return cross_validate({name: model}, data, metrics, split=[fold], k=k,
                          exclude_seen=exclude_seen, progress=False, **options)


def merge_cross_validations(parts: list[dict[str, CrossValidation]], *, by: str
                            ) -> CrossValidation:
    """One CrossValidation from several: ``by="fold"`` stacks folds, ``"model"`` models.

    Each part maps model names to a CrossValidation holding them; no number is recomputed.
    """
    results: dict[tuple[str, int], Any] = {}
    timings = []
    models: list[str] = []
    labels: list[str] = []
    settings: dict[str, Any] = {}
    for f, part in enumerate(parts):
        for cv in part.values():
            for (model, fold), ev in cv.results.items():
                results[(model, f if by == "fold" else fold)] = ev
            t = cv.timings.copy()
            if by == "fold":
                t.index = pd.MultiIndex.from_tuples([(m, f) for m, _ in t.index],
                                                    names=["model", "fold"])
            timings.append(t)
            models += [m for m in cv.models if m not in models]
            labels += [label for label in cv.labels if label not in labels]
            settings = _merge_settings(settings, cv.settings, f, by)
    n_folds = len(parts) if by == "fold" else max(cv.n_folds for p in parts
                                                   for cv in p.values())
    settings["n_folds"] = n_folds
    return CrossValidation(results=results, models=models, n_folds=n_folds, labels=labels,
                           settings=settings, timings=pd.concat(timings))


def _merge_settings(into: dict[str, Any], more: dict[str, Any], f: int, by: str
                    ) -> dict[str, Any]:
    """Settings of several CrossValidations as one: mappings merged, lists joined.

    Split reports are joined only when folds are stacked (``by="fold"``); the fallbacks'
    ``(model, fold)`` keys are renumbered then.
    """
    for key, value in more.items():
        if key == "fallbacks":
            fallbacks = into.setdefault(key, {})
            fallbacks.update({(m, f if by == "fold" else fold): v
                              for (m, fold), v in value.items()})
        elif key == "split_reports":
            if by == "fold" or key not in into:
                into[key] = [*into.get(key, []), *value]
        elif isinstance(value, dict):
            into[key] = {**into.get(key, {}), **value}
        elif isinstance(value, list):
            into[key] = [*into.get(key, []), *(v for v in value if v not in into.get(key, []))]
        else:
            into.setdefault(key, value)
    return into
