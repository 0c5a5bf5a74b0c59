"""The studies of ``examples/`` run as they are written (MovieLens from an archive built here)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

import receval as rv
from tests.movielens_files import sample_files, write_archive

pytestmark = pytest.mark.filterwarnings("ignore::receval.exceptions.UndefinedMetricWarning")

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _copy(name: str, tmp_path: Path) -> Path:
    return Path(shutil.copy(EXAMPLES / name, tmp_path / name))


def test_every_example_is_tested():
    assert sorted(p.name for p in EXAMPLES.glob("*.toml")) == [
        "movielens-tuned.toml", "rolling-backtest.toml", "seed004-baselines.toml",
        "seed004.toml"]


def test_seed004_reproduces_the_seeds_table(tmp_path):
    # the seed's table (docs/experiments.md "Seed 004, step by step"): fitted and measured
    # on every row, k = 30; the models come from seed004_models.py beside the config
    for name in ("seed004.toml", "seed004.csv", "seed004_models.py"):
        _copy(name, tmp_path)
    study = rv.run(tmp_path / "seed004.toml", progress=False)
    got = study.cv.per_fold.round(4)
    assert got.loc[("random", 0)].tolist() == [0.5174, 0.49, 0.3334, 0.7983, 0.5628]
    assert got.loc[("knn", 0)].tolist() == [0.8152, 0.78, 0.7130, 0.9302, 0.8076]
    assert study.manifest["splits"][0]["sha256"]["train"] == \
        study.manifest["splits"][0]["sha256"]["test"]  # train = test = every row
    assert study.manifest["models_from"] == str(tmp_path)
    assert rv.rerun(study.folder / "run.json").identical


def test_seed004_baselines(tmp_path):
    study = rv.run(_copy("seed004-baselines.toml", tmp_path), progress=False)
    assert study.folder == tmp_path / "seed004-baselines-output"
    assert (study.folder / "report.html").is_file()
    assert study.cv.n_folds == 5
    summary = study.cv.summary()
    # seed 004's finding: popularity beats random scores
    assert summary.loc["most popular", ("NDCG@10", "mean")] > \
        summary.loc["random", ("NDCG@10", "mean")]
    tests = study.comparison.tests
    row = tests[(tests["metric"] == "NDCG@10") & (tests["system_a"] == "random")
                & (tests["system_b"] == "most popular")]
    assert bool(row["significant"].iloc[0])
    assert study.manifest["evaluation"]["relevance_threshold"] == 4


def test_movielens_tuned(tmp_path):
    pytest.importorskip("surprise")
    write_archive(tmp_path / "ml-latest-small.zip", "ml-latest-small",
                  sample_files("ml-latest-small", n_users=120, n_items=80))
    study = rv.run(_copy("movielens-tuned.toml", tmp_path), progress=False)
    assert study.cv.models == ["popular", "item mean", "svd"]
    trials = study.tuning["svd"].trials
    assert len(trials) == 4  # one split x 2 x 2 grid points
    chosen = trials[trials["best"]].iloc[0]
    assert chosen["RMSE"] == trials["RMSE"].min()
    assert study.manifest["inputs"]["data"]["dataset"] == "ml-latest-small"
    assert study.manifest["inputs"]["filtered"]["min_user_interactions"] >= 0
    assert pd.read_csv(study.folder / "trials.csv")["model"].eq("svd").all()


def test_rolling_backtest(tmp_path):
    study = rv.run(_copy("rolling-backtest.toml", tmp_path), progress=False)
    cuts = [pd.Timestamp(s["report"]["cut_time"]) for s in study.manifest["splits"]]
    assert cuts == sorted(cuts)
    assert len(cuts) == 5  # origins 2024-03-01 + 61 days x 0..4, up to the log's end
    assert all(s["report"]["leakage_rows"] == 0 for s in study.manifest["splits"])
    # the report plots each metric over the windows' origins
    assert 'id="fig-over-time"' in (study.folder / "report.html").read_text()
    assert rv.rerun(study.folder / "run.json").identical
