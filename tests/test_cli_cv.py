"""``receval cv``: k-fold cross-validation of the baselines from the command line."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

import receval as rv
from receval.cli import cli
from receval.data._files import read_table
from receval.datasets import sample_ratings


@pytest.fixture(scope="module")
def ratings_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cv") / "ratings.csv"
    sample_ratings(150, 90, seed=2).to_csv(path, index=False)
    return path


def run(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_cv_table(ratings_file):
    out = run("cv", str(ratings_file), "--model", "popular", "--model", "random",
              "--model", "item-mean", "-m", "ndcg@10", "-m", "rmse", "--folds", "3")
    assert out.exit_code == 0, out.output
    for text in ("per fold", "mean ± std over folds", "popular / fold 2", "item-mean",
                 "no rating metrics for popular, random"):
        assert text in out.output


def test_cv_csv_equals_the_library(ratings_file):
    out = run("cv", str(ratings_file), "--model", "popular", "--model", "global-mean",
              "-m", "precision@5", "-m", "mae", "--folds", "4", "--by", "users", "--seed", "3",
              "-k", "5", "-t", "4", "--no-relevant", "zero", "--format", "csv")
    assert out.exit_code == 0, out.output
    got = pd.read_csv(io.StringIO(out.stdout)).set_index(["model", "fold"])
    data = read_table(ratings_file, role="truth")
    expected = rv.cross_validate(
        {"popular": rv.models.MostPopular(), "global-mean": rv.models.GlobalMean()}, data,
        ["precision@5", "mae"], split=rv.split.kfold(data, 4, by="users", seed=3), k=5,
        relevance_threshold=4, no_relevant="zero").per_fold
    pd.testing.assert_frame_equal(got, expected, check_dtype=False, rtol=1e-12)


def test_cv_markdown(ratings_file):
    out = run("cv", str(ratings_file), "--model", "popular", "-m", "hr@10", "--folds", "2",
              "--format", "markdown")
    assert out.exit_code == 0, out.output
    assert "| popular" in out.output
    assert "±" in out.output


def test_cv_bad_input(ratings_file):
    out = CliRunner().invoke(cli, ["cv", str(ratings_file), "--model", "knn", "-m", "p@5"])
    assert out.exit_code == 2
    assert "knn" in out.output
    out = CliRunner().invoke(cli, ["cv", str(ratings_file), "--model", "popular", "-m", "p@5",
                                   "--folds", "1"])
    assert out.exit_code == 2
    assert "n_splits" in out.output
    out = CliRunner().invoke(cli, ["cv", str(ratings_file), "--model", "popular", "-m", "p@5",
                                   "-k", "0"])
    assert out.exit_code == 2
    assert "k must be" in out.output
