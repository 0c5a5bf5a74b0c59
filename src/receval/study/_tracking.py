"""Tracking a study in MLflow (extra ``receval[mlflow]``; ``[outputs] tracking = "mlflow"``).

One parent run per study (the resolved config as params, each model's mean per metric,
``run.json``, ``report.html`` and ``per_user.parquet`` as artifacts), one child run per
(model, fold) (the model's parameters, every metric value, the user accounting), and one
child run per tuning trial (the grid point and its validation score). Runs are written
through an ``MlflowClient`` bound to ``tracking_uri`` (MLflow's default when unset), so the
process's active run and tracking URI are left alone. Only numbers the study already holds
are logged: nothing is computed here.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from receval.exceptions import BackendUnavailableError, ConfigError

__all__ = ["flatten", "log_mlflow", "metric_key"]

_MAX_PARAM = 500


def metric_key(label: str) -> str:
    """An MLflow key for a metric label: characters MLflow refuses become ``_``.

    ``NDCG@10`` -> ``NDCG_10``; ``ndcg(gain=exponential)@10`` -> ``ndcg_gain_exponential__10``.
    """
    return re.sub(r"[^\w.\- /]", "_", label)


def flatten(value: Any, prefix: str = "") -> Iterator[tuple[str, str]]:
    """``(key path, text)`` of every leaf of a nested config (texts cut to 500 characters)."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            yield from flatten(item, f"{prefix}.{key}" if prefix else str(key))
    else:
        yield metric_key(prefix), str(value)[:_MAX_PARAM]


def _client(uri: str | None) -> Any:
    try:
        from mlflow.tracking import MlflowClient
    except ImportError:
        raise BackendUnavailableError("tracking = 'mlflow' needs MLflow: pip install "
                                      "'receval[mlflow]'", parameter="outputs.tracking"
                                      ) from None
    from mlflow.exceptions import MlflowException

    try:
        client = MlflowClient(tracking_uri=uri)
        client.search_experiments(max_results=1)
    except MlflowException as exc:
        raise ConfigError(f"outputs.tracking_uri: MLflow cannot use {uri!r}: {exc}",
                          parameter="outputs.tracking_uri", examples=[uri]) from None
    return client


def _log(client: Any, run_id: str, params: Mapping[str, Any],
         metrics: Mapping[str, float | None], step: int = 0) -> None:
    from mlflow.entities import Metric, Param

    now = int(time.time() * 1000)
    client.log_batch(run_id, params=[Param(k, str(v)[:_MAX_PARAM]) for k, v in params.items()],
                     metrics=[Metric(metric_key(k), float(v), now, step)
                              for k, v in metrics.items() if v is not None])


def log_mlflow(study: Any, paths: Mapping[str, Path]) -> str:
    """Log a finished study; returns the parent run's id."""
    outputs = study.config["outputs"]
    client = _client(outputs["tracking_uri"])
    name = outputs["experiment"] or study.config["name"]
    found = client.get_experiment_by_name(name)
    experiment = found.experiment_id if found is not None else client.create_experiment(name)
    parent = client.create_run(experiment, run_name=study.config["name"]).info.run_id
    manifest = study.manifest
    means = {f"{model}/{label} mean": s["mean"]
             for model, r in manifest["results"].items() for label, s in r["summary"].items()}
    _log(client, parent, dict(flatten(manifest["config"])), means)
    child = {"mlflow.parentRunId": parent}
    for model, record in manifest["results"].items():
        params = dict(flatten(manifest["models"].get(model, {}), "model"))
        for fold in record["folds"]:
            run = client.create_run(experiment, run_name=f"{model} / fold {fold['fold']}",
                                    tags={**child, "receval.model": model}).info.run_id
            _log(client, run, {**params, "fold": fold["fold"]},
                 {**fold["values"], **{f"users.{k}": v for k, v in fold["users"].items()
                                       if isinstance(v, (int, float))}}, fold["fold"])
            client.set_terminated(run)
    for model, tuning in manifest["tuning"].items():
        for trial in tuning["trials"]:
            run = client.create_run(
                experiment, run_name=f"{model} / fold {trial['fold']} / trial {trial['trial']}",
                tags={**child, "receval.model": model, "receval.tuning": "trial"}).info.run_id
            values = {k: v for k, v in trial.items() if k not in ("fold", "trial", "best")}
            score = {tuning["settings"]["metric"]: values.pop(
                next(k for k in values if k not in tuning["settings"]["grid"]))}
            _log(client, run, {**values, "fold": trial["fold"], "best": trial["best"]}, score)
            client.set_terminated(run)
    for file in ("run.json", "report.html", "comparison.html", "per_user.parquet"):
        if file in paths and paths[file].exists():
            client.log_artifact(parent, str(paths[file]))
    client.set_terminated(parent)
    return str(parent)
