"""A study logged to MLflow: a local file store in a temporary folder."""

from __future__ import annotations

import json

import pytest

import receval as rv
from receval.study._tracking import metric_key
from tests.study_helpers import toy_config

pytestmark = pytest.mark.filterwarnings("ignore::receval.exceptions.UndefinedMetricWarning")


def test_metric_keys():
    assert metric_key("NDCG@10") == "NDCG_10"
    assert metric_key("ndcg(gain=exponential)@10") == "ndcg_gain_exponential__10"
    assert metric_key("model/RMSE mean") == "model/RMSE mean"


def test_study_logged_to_a_file_store(tmp_path, monkeypatch):
    pytest.importorskip("mlflow")
    from mlflow.tracking import MlflowClient

    # MLflow 3 keeps its file store behind this switch (it prefers a database)
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    uri = (tmp_path / "mlruns").as_uri()
    config = toy_config(tmp_path / "out")
    config["models"]["tuned"] = {"model": "item-mean", "grid": {"shrinkage": [0.0, 5.0]}}
    config["outputs"].update(tracking_uri=uri, experiment="toy study", report=True)
    study = rv.run(config, progress=False, tracking="mlflow")
    client = MlflowClient(uri)
    experiment = client.get_experiment_by_name("toy study")
    runs = client.search_runs([experiment.experiment_id], max_results=100)
    parents = [r for r in runs if "mlflow.parentRunId" not in r.data.tags]
    assert len(parents) == 1
    parent = parents[0]
    # 3 models x 2 folds, and 2 folds x 2 grid points
    children = [r for r in runs if r.data.tags.get("mlflow.parentRunId") == parent.info.run_id]
    assert len(children) == 3 * 2 + 2 * 2
    assert parent.data.params["split.method"] == "kfold"
    assert parent.data.metrics["im/NDCG_5 mean"] == study.manifest["results"]["im"]["summary"][
        "NDCG@5"]["mean"]
    run = next(r for r in children if r.info.run_name == "pop / fold 1")
    assert run.data.metrics["NDCG_5"] == study.cv.results[("pop", 1)]["ndcg@5"]
    assert run.data.params["model.repr"] == "MostPopular(by='users')"
    trial = next(r for r in children if r.info.run_name == "tuned / fold 0 / trial 1")
    assert trial.data.params["shrinkage"] == "5.0"
    assert trial.data.metrics["ndcg_5"] == study.tuning["tuned"].trials.iloc[1]["NDCG@5"]
    artifacts = {a.path for a in client.list_artifacts(parent.info.run_id)}
    assert artifacts == {"run.json", "report.html", "per_user.parquet"}
    logged = client.download_artifacts(parent.info.run_id, "run.json", str(tmp_path))
    with open(logged) as stream:
        assert json.load(stream)["results"] == study.manifest["results"]


def test_tracking_keyword_is_checked(tmp_path):
    with pytest.raises(rv.exceptions.ConfigError, match=r"tracking: .* is not one of mlflow"):
        rv.run(toy_config(tmp_path / "out"), tracking="wandb")
