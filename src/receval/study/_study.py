"""``rv.run``: a whole study from one config: data, filters, split, models, metrics, comparison.

Every number comes from :func:`receval.cross_validate` (plain models) and
:func:`receval.tune` (models with a ``grid``), both of which call :func:`receval.evaluate`;
the comparison from :meth:`receval.CrossValidation.compare`. Nothing here computes a metric.
"""

from __future__ import annotations

import os
import sys
import time
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from receval._cv import _warn_once
from receval._cv_result import CrossValidation
from receval.exceptions import ConfigError, RecevalError
from receval.study._config import check_type, load, resolve
from receval.study._data import StudyData, load_data
from receval.study._manifest import build_manifest
from receval.study._models import build, check_models, importable, model_params, seed_models
from receval.study._outputs import check_folder, remove_stale, to_write, write_outputs
from receval.study._splits import make_folds
from receval.study._tune import Tuning, merge_cross_validations, tune

__all__ = ["Study", "run"]


@dataclass(frozen=True)
class Study:
    """What :func:`receval.run` did.

    Attributes
    ----------
    cv : CrossValidation
        Every model on every fold (tuned models: their chosen point per fold).
    comparison : receval.Comparison or None
        The paired tests of ``[compare]`` (None without that section).
    manifest : dict
        The content of ``run.json`` (:func:`receval.rerun` recomputes it).
    tuning : dict of str to Tuning
        The trials and chosen parameters of each model with a ``grid``.
    config : dict
        The resolved config (every default filled in).
    folder : pathlib.Path
        The output folder.
    """

    cv: CrossValidation
    comparison: Any
    manifest: dict[str, Any] = field(repr=False)
    tuning: dict[str, Tuning] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict, repr=False)
    folder: Path | None = None

    def __repr__(self) -> str:
        return (f"Study({self.config.get('name')!r}: {len(self.cv.models)} models x "
                f"{self.cv.n_folds} folds; outputs in {self.folder})\n{self.cv!r}")


class _Progress:
    def __init__(self, on: bool) -> None:
        self.on, self.start = on, time.perf_counter()

    def __call__(self, message: str) -> None:
        if self.on:
            print(f"[{time.perf_counter() - self.start:6.1f}s] {message}", file=sys.stderr,
                  flush=True)


def _evaluate_options(config: dict[str, Any], data: StudyData) -> dict[str, Any]:
    """The evaluate options of ``[evaluate]``: unset ones left out, tables read."""
    from receval._evaluate_options import option
    from receval.data._files import read_table

    options: dict[str, Any] = {}
    for name, value in config["evaluate"].items():
        if name in ("metrics", "k", "exclude_seen") or value is None:
            continue
        if value == option(name).default:
            continue
        if name == "item_features" and value == "genres":
            if data.item_features is None:
                raise ConfigError("evaluate.item_features: 'genres' needs a data set with "
                                  "genres (data.dataset)", parameter="evaluate.item_features")
            options[name] = data.item_features
        elif option(name).kind == "table":
            options[name] = read_table(value, role="truth")
        else:
            options[name] = value
    return options


def _inputs(config: dict[str, Any]) -> dict[str, Any]:
    from receval._evaluate_options import option

    found = {"data.path": config["data"]["path"]}
    found.update({f"evaluate.{name}": value for name, value in config["evaluate"].items()
                  if name not in ("metrics", "k", "exclude_seen") and option(name).is_path
                  and value is not None})
    return found


def run(config: str | os.PathLike[str] | Mapping[str, Any], *,
        progress: bool | None = None, tracking: str | None = None,
        models_from: str | os.PathLike[str] | None = None) -> Study:
    """Run the study that ``config`` describes and write its outputs.

    Parameters
    ----------
    config : path or dict
        A ``.toml`` / ``.yaml`` / ``.json`` file, or the same content as a dict; see
        ``docs/studies.md`` and the JSON schema ``receval/study/config.schema.json``.
    progress : bool, optional
        Progress lines on stderr (default: when stderr is a terminal).
    tracking : {"mlflow"}, optional
        Log the study to MLflow, as ``[outputs] tracking = "mlflow"`` does (which it
        overrides).
    models_from : path, optional
        The folder where model modules named by import path (``"mymodels:MyModel()"``) are
        looked up first; default: the config file's folder (the working directory for a
        dict). The manifest records it (``models_from``) for :func:`receval.rerun`.

    Returns
    -------
    Study
        ``cv``, ``comparison``, ``manifest``, ``tuning``, ``config``, ``folder``.

    Raises
    ------
    ConfigError
        An unknown key or a bad value, named by its key path.
    RecevalError
        Bad data or a model that breaks the protocol (as :func:`receval.cross_validate`).
    """
    say = _Progress(sys.stderr.isatty() if progress is None else bool(progress))
    given, base = load(config)
    resolved = resolve(given, base)
    if tracking is not None:
        resolved["outputs"]["tracking"] = check_type(tracking, ("string",), "tracking",
                                                     ("mlflow",))
    paths = check_folder(resolved["outputs"], _inputs(resolved))
    say(f"reading the data ({resolved['data']['dataset'] or resolved['data']['path']})")
    data = load_data(resolved["data"], resolved["filters"])
    models_from = base if models_from is None else Path(os.fspath(models_from))
    with importable(models_from), warnings.catch_warnings(record=True) as caught:
        check_models(resolved["models"])
        seed_models(resolved["models"], resolved["seed"])
        folds = make_folds(data.frame, resolved["split"])
        say(f"{len(data.frame):,} rows; {len(folds)} split(s) by "
            f"{resolved['split']['method']}")
        warnings.simplefilter("always")
        cv, tunings, params = _evaluate_models(resolved, data, folds, say)
    _warn_once(caught)
    comparison = _compare(resolved, cv)
    manifest = build_manifest(resolved, data, folds, cv, comparison, tunings, params)
    manifest["models_from"] = str(models_from)
    study = Study(cv, comparison, manifest, tunings, resolved, paths["run.json"].parent)
    paths = to_write(paths, study)
    say(f"writing {', '.join(paths)} to {study.folder}")
    write_outputs(paths, study)
    removed = remove_stale(paths["run.json"].parent, paths, _inputs(resolved))
    if removed:
        say(f"removed {', '.join(removed)} of an earlier study in {study.folder}")
    if resolved["outputs"]["tracking"] == "mlflow":
        from receval.study._tracking import log_mlflow

        say("logging to MLflow")
        log_mlflow(study, paths)
    return study


def _evaluate_models(config: dict[str, Any], data: StudyData, folds: list[Any],
                     say: _Progress) -> tuple[CrossValidation, dict[str, Tuning],
                                              dict[str, Any]]:
    from receval._cv import cross_validate

    ev = config["evaluate"]
    options = _evaluate_options(config, data)
    common = {"k": ev["k"], "exclude_seen": ev["exclude_seen"], **options}
    plain = {name: build(name, entry) for name, entry in config["models"].items()
             if not entry["grid"]}
    params: dict[str, Any] = {name: model_params(model) for name, model in plain.items()}
    parts: list[dict[str, CrossValidation]] = []
    tunings: dict[str, Tuning] = {}
    for name, entry in config["models"].items():
        if not entry["grid"]:
            say(f"cross-validating {name}")
            parts.append({name: _wrap(lambda n=name: cross_validate(
                {n: plain[n]}, data.frame, ev["metrics"], split=folds, progress=False,
                **common), name)})
            continue
        say(f"tuning {name} over {entry['grid']} ({config['tune']['search']} search)")
        tuning = _wrap(lambda n=name: _tune(n, config, data, folds, common), name)
        tunings[name] = tuning
        params[name] = {"grid": entry["grid"], "best": tuning.best}
        parts.append({name: tuning.cv})
    return merge_cross_validations(parts, by="model"), tunings, params


def _tune(name: str, config: dict[str, Any], data: StudyData, folds: list[Any],
          common: dict[str, Any]) -> Tuning:
    """Tune model ``name`` of the config: validation parts carved from each fold's train."""
    entry, settings = config["models"][name], config["tune"]
    metrics = config["evaluate"]["metrics"]
    return tune({"model": entry["model"], "params": entry["params"]}, entry["grid"],
                data.frame, settings["metric"] or metrics[0], split=folds,
                validation=settings["validation"] or dict(config["split"]),
                search=settings["search"], n_iter=settings["n_iter"], seed=settings["seed"],
                metrics=metrics, name=name, **common)


def _wrap(call: Any, name: str) -> Any:
    """``call()``, with its errors prefixed by the config's key path.

    A model's error (``InvalidModelError``, its output included) is ``models.<name>``; a
    metric's is ``evaluate.metrics``; any other is an evaluate option's (``evaluate``). The
    original error is chained.
    """
    from receval.exceptions import InvalidModelError, UnknownMetricError

    try:
        return call()
    except ConfigError:
        raise
    except RecevalError as exc:
        if isinstance(exc, InvalidModelError):
            where = f"models.{name}"
        elif isinstance(exc, UnknownMetricError) or exc.parameter == "metrics":
            where = "evaluate.metrics"
        else:
            where = "evaluate"
        raise type(exc)(f"{where}: {exc}", column=exc.column,
                        parameter=where if where != "evaluate" else exc.parameter,
                        n_bad=exc.n_bad, examples=exc.examples) from exc


def _compare(config: dict[str, Any], cv: CrossValidation) -> Any:
    if config["compare"] is None:
        return None
    options = {k: v for k, v in config["compare"].items() if v is not None}
    try:
        return cv.compare(**options)
    except RecevalError as exc:
        raise ConfigError(f"compare: {exc}", parameter="compare",
                          examples=exc.examples) from None
