"""The manifest of a study (``run.json``): everything needed to rerun it and check every number.

Sections, in the order :func:`receval.rerun` compares them:

``inputs``
    What was read: the file or data set, its SHA-256, the rows each filter dropped, the
    SHA-256 of the filtered table, and of every table given to ``evaluate`` (features, ...).
``splits``
    Per fold, the SHA-256 of its train, test and dropped parts and its report.
``metrics``
    Per metric label, the definition ``evaluate`` used (convention, ties, every parameter).
``evaluation``
    The evaluate options as resolved (conventions, policies).
``results``
    Per model and fold: every metric value, the user accounting, the SHA-256 of the
    per-user table; per model the mean and standard deviation over folds.
``tuning``
    Per tuned model, every trial's validation score and the chosen parameters per fold.
``comparison``
    The means and every test of :meth:`CrossValidation.compare`.

and, not compared: ``versions`` (receval, Python, numpy, pandas, scipy, numba), ``config``
(resolved, every default filled in), ``seeds``, ``timings``.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
import platform
from collections.abc import Mapping
from importlib import metadata
from typing import Any

import numpy as np
import pandas as pd

from receval.study._hashing import frame_sha256

__all__ = ["COMPARED", "FORMAT", "build_manifest", "plain", "versions"]

#: The manifest format's version.
FORMAT = 1

#: The sections that :func:`receval.rerun` compares, in order.
COMPARED = ("inputs", "splits", "metrics", "evaluation", "results", "tuning", "comparison")


def plain(value: Any) -> Any:
    """``value`` as JSON data: numpy and pandas scalars unwrapped, NaN as None, keys as str."""
    if isinstance(value, Mapping):
        return {str(k) if not isinstance(k, tuple) else "/".join(map(str, k)): plain(v)
                for k, v in value.items()}
    if isinstance(value, (list, tuple, set, np.ndarray)):
        return [plain(v) for v in (sorted(value, key=str) if isinstance(value, set)
                                   else value)]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return plain(dataclasses.asdict(value))
    if isinstance(value, (np.generic,)):
        value = value.item()
    if isinstance(value, float):
        return None if math.isnan(value) else value
    if isinstance(value, (pd.Timestamp, dt.datetime, dt.date)):
        return value.isoformat()
    if isinstance(value, (pd.Timedelta, dt.timedelta, np.timedelta64)):
        return str(value)
    if value is None or isinstance(value, (str, int, bool)):
        return value
    return repr(value)


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def versions() -> dict[str, str | None]:
    """Versions of receval, Python and the libraries whose code computes the numbers."""
    out: dict[str, str | None] = {"python": platform.python_version()}
    for name in ("receval", "numpy", "pandas", "scipy", "numba", "pyarrow",
                 "scikit-surprise"):
        out[name] = _version(name)
    from receval._version import __version__

    out["receval"] = __version__
    return out


def _split_record(f: int, fold: Any) -> dict[str, Any]:
    parts = {name: frame_sha256(getattr(fold, name))
             for name in ("train", "test", "dropped") if hasattr(fold, name)}
    report = getattr(fold, "report", None)
    return {"fold": f, "sha256": parts,
            "report": plain(report.to_dict()) if report is not None else None}


def _results(cv: Any) -> dict[str, Any]:
    summary = cv.summary()
    out: dict[str, Any] = {}
    for model in cv.models:
        folds = []
        for f in range(cv.n_folds):
            ev = cv.results[(model, f)]
            folds.append({"fold": f, "values": plain(ev.to_dict()),
                          "users": _accounting(ev.users), "per_user_sha256": frame_sha256(
                              ev.per_user.reset_index())})
        out[model] = {"folds": folds, "summary": {
            label: {"mean": plain(float(summary.loc[model, (label, "mean")])),
                    "std": plain(float(summary.loc[model, (label, "std")]))}
            for label in cv.labels}}
    return out


def _accounting(users: Any) -> dict[str, Any]:
    """The user accounting: counts, policies, and a SHA-256 of each list of user ids."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(users):
        if f.name.startswith("_"):
            continue
        value = getattr(users, f.name)
        if isinstance(value, pd.Index):
            out[f.name] = len(value)
            out[f"{f.name}_sha256"] = frame_sha256(pd.DataFrame({"user": value}))
        else:
            out[f.name] = plain(value)
    return out


def _metrics(cv: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for ev in cv.results.values():
        for label, definition in ev.settings.get("metrics", {}).items():
            out.setdefault(label, plain(definition))
    return out


def _evaluation(cv: Any) -> dict[str, Any]:
    first = next(iter(cv.results.values()))
    skip = {"metrics", "recs_duplicates_dropped", "truth_duplicates_dropped", "partitions"}
    return {"k": cv.settings.get("k"), "exclude_seen": cv.settings.get("exclude_seen"),
            **plain({k: v for k, v in first.settings.items() if k not in skip})}


def _comparison(comparison: Any) -> dict[str, Any] | None:
    if comparison is None:
        return None
    return {"means": plain(comparison.means.to_dict()),
            "tests": plain(comparison.tests.to_dict(orient="records")),
            "settings": plain({k: v for k, v in comparison.settings.items()
                               if k != "evaluation"})}


def _seeds(config: dict[str, Any], models: Mapping[str, Any]) -> dict[str, Any]:
    seeds: dict[str, Any] = {"study": config.get("seed"), "split": config["split"].get("seed")}
    if any(entry["grid"] for entry in config["models"].values()):
        seeds["tune"] = config["tune"]["seed"]
    if config["compare"] is not None:
        seeds["compare"] = config["compare"].get("seed")
    if config["data"]["dataset"] == "sample_ratings":
        seeds["data"] = config["data"]["params"].get("seed", 7)
    for name, params in models.items():
        if config["models"][name]["grid"]:  # tuned: the params of its entry, then the grid
            params = {**config["models"][name]["params"], **config["models"][name]["grid"]}
        for key, value in params.items():
            if key.endswith(("seed", "random_state")):
                seeds[f"models.{name}.{key}"] = value
    return plain(seeds)


def build_manifest(config: dict[str, Any], data: Any, folds: list[Any], cv: Any,
                   comparison: Any, tunings: Mapping[str, Any],
                   model_params: Mapping[str, Any]) -> dict[str, Any]:
    """The manifest of a finished study (see the module's documentation)."""
    inputs = {"data": plain(data.inputs), "filtered": plain(data.filtered),
              "table_sha256": frame_sha256(data.frame), "rows": len(data.frame)}
    tuning = {name: {"trials": plain(t.trials.to_dict(orient="records")),
                     "best": plain(t.best), "settings": plain(t.settings)}
              for name, t in tunings.items()}
    return {
        "receval_manifest": FORMAT,
        "created": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "versions": versions(),
        "config": plain(config),
        "seeds": _seeds(config, model_params),
        "models": plain(model_params),
        "inputs": inputs,
        "splits": [_split_record(f, fold) for f, fold in enumerate(folds)],
        "metrics": _metrics(cv),
        "evaluation": _evaluation(cv),
        "results": _results(cv),
        "tuning": tuning,
        "comparison": _comparison(comparison),
        "timings": plain(cv.timings.reset_index().to_dict(orient="records")),
    }
