"""``receval cv --model [NAME=]SPEC``: model specs, names, seeds, the comparison options, and
bad models, each an error (exit 2) naming the model or the spec."""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import receval as rv
from receval.cli import cli
from tests.test_cv_models import DATA, _cv


@pytest.fixture(scope="module")
def ratings_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cvm") / "ratings.csv"
    DATA.to_csv(path, index=False)
    return path


def run(*args: str) -> Any:
    return CliRunner().invoke(cli, list(args))


def test_cli_specs_equal_the_library(ratings_file: Path) -> None:

    out = run("cv", str(ratings_file), "--model", "popular", "--model",
              "shrunk=item-mean:shrinkage=5", "--model", "random:seed=4",
              "--model", "receval.models:UserMean(shrinkage=1)",
              "-m", "ndcg@5", "-m", "rmse", "--folds", "2", "--seed", "1", "-k", "5",
              "--format", "csv")
    assert out.exit_code == 0, out.output
    got = pd.read_csv(io.StringIO(out.stdout)).set_index(["model", "fold"])
    expected = _cv({"popular": rv.models.MostPopular(),
                    "shrunk": rv.models.ItemMean(shrinkage=5),
                    "random:seed=4": rv.models.Random(seed=4),
                    "receval.models:UserMean(shrinkage=1)": rv.models.UserMean(shrinkage=1)},
                   ["ndcg@5", "rmse"]).per_fold
    pd.testing.assert_frame_equal(got, expected, check_dtype=False, rtol=1e-12)


def test_cli_seed_reaches_models_without_one(ratings_file: Path) -> None:
    from receval.cli._cv import parse_model_option

    name, model = parse_model_option("random", 7)
    assert (name, repr(model)) == ("random", "Random(seed=7)")
    assert repr(parse_model_option("r=random:seed=2", 7)[1]) == "Random(seed=2)"
    pytest.importorskip("surprise")
    name, model = parse_model_option("svd=surprise:SVD(n_factors=3)", 7)
    assert name == "svd"
    assert model.algo.random_state == 7
    _, model = parse_model_option("surprise:SVD(random_state=1)", 7)
    assert model.algo.random_state == 1


def test_cli_surprise_spec(ratings_file: Path) -> None:
    pytest.importorskip("surprise")
    out = run("cv", str(ratings_file), "--model", "svd=surprise:SVD(n_factors=4, n_epochs=3)",
              "--model", "knn=surprise:KNNBasic(k=5, sim_options={'user_based': False})",
              "-m", "rmse", "--folds", "2", "--format", "markdown")
    assert out.exit_code == 0, out.output
    assert "| svd" in out.output
    assert "| knn" in out.output


def _installed_library_cases() -> list[tuple[list[str], list[str]]]:
    """Specs building another library's model, for the libraries installed (no skips)."""
    import importlib.util

    cases = {"sklearn": (["--model", "m=sklearn.linear_model:LinearRegression()"],
                         ["scikit-learn estimator"]),
             "cornac": (["--model", "mf=cornac.models:MF(k=4)"],
                        ["rv.models.Cornac(MF(...))"])}
    return [case for lib, case in cases.items() if importlib.util.find_spec(lib) is not None]


@pytest.mark.parametrize(("args", "words"), [
    (["--model", "knn"], ["unknown model 'knn'", "most-popular"]),
    (["--model", "item-mean:shrnkage=5"], ["'shrnkage'", "position 10"]),
    (["--model", "item-mean:shrinkage=__import__('os')"], ["not a literal"]),
    (["--model", "os:system(command='true')"], ["not a model class"]),
    (["--model", "nosuch.mod:M()"], ["cannot import module"]),
    (["--model", "surprise:NoSuch"], ["unknown Surprise algorithm"]),
    (["--model", "a=popular", "--model", "a=random"], ["two models 'a'", "--model a2=random"]),
    (["--model", "popular", "--model", "popular"], ["two models 'popular'",
                                                    "--model popular2=popular"]),
    (["--model", "a=popular", "--model", "a2=random", "--model", "a=item-mean"],
     ["--model a3=item-mean"]),
    (["--model", "popular", "--test", "t"], ["--test t", "only 1 --model", "two --model"]),
    *_installed_library_cases(),
    (["--model", "knn=surprise:KNNBasic(sim_options={'nmae': 'cosine'})"],
     ["no key 'nmae'", "did you mean 'name'?"]),
    (["--model", "x="], ["unknown model"]),
    (["--model", "popular", "-m", "rmse"], ["has no predict()"]),
    (["--model", "popular", "-m", "ndcg@20", "-k", "10"], ["cut at more than k=10"]),
    (["--model", "popular", "--model", "random", "--test", "nope"], ["test"]),
    (["--model", "popular", "--model", "random", "--test", "wilcoxon", "--method", "nope"],
     ["method"]),
    (["--model", "popular", "--model", "random", "--test", "t", "--format", "csv"],
     ["--format csv"]),
])
def test_cli_bad_models(ratings_file: Path, args: list[str], words: list[str]) -> None:
    base = ["cv", str(ratings_file), "--folds", "2"]
    if "-m" not in args:
        args = [*args, "-m", "ndcg@5"]
    out = run(*base, *args)
    assert out.exit_code == 2, out.output
    assert "Traceback" not in out.output
    for word in words:
        assert word in out.output, out.output


def test_cli_compare_with_method(ratings_file: Path) -> None:
    out = run("cv", str(ratings_file), "--model", "popular", "--model", "item-mean",
              "--model", "user-mean", "-m", "ndcg@5", "-m", "rmse", "--folds", "2",
              "--test", "wilcoxon", "--method", "exact", "--correction", "holm",
              "--format", "markdown")
    assert out.exit_code == 0, out.output
    assert "Wilcoxon" in out.output or "wilcoxon" in out.output
    assert "RMSE is compared over ['item-mean', 'user-mean'] only" in out.output


def test_cli_method_is_the_compare_declaration() -> None:
    from receval.cli import _compare, _cv

    def option(command: Any, name: str) -> Any:
        return next(p for p in command.params if p.name == name)

    for name in ("method", "correction"):
        a, b = option(_compare.compare, name), option(_cv.cv, name)
        assert (a.default, a.help) == (b.default, b.help)


def test_cli_imports_a_model_from_the_current_directory(
        ratings_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "my_cv_models.py").write_text(
        "import receval as rv\n\n\n"
        "class Shrunk(rv.models.ItemMean):\n"
        "    def __init__(self, beta=0.0):\n"
        "        super().__init__(shrinkage=beta)\n"
        "        self.beta = beta\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    out = run("cv", str(ratings_file), "--model", "mine=my_cv_models:Shrunk(beta=5)",
              "--model", "item-mean:shrinkage=5", "-m", "rmse", "--folds", "2",
              "--format", "csv")
    assert out.exit_code == 0, out.output

    got = pd.read_csv(io.StringIO(out.stdout)).set_index(["model", "fold"])["RMSE"]
    np.testing.assert_allclose(got.loc["mine"].to_numpy(),
                               got.loc["item-mean:shrinkage=5"].to_numpy(), rtol=1e-12)


def test_cli_single_model_test_fails_before_fitting(ratings_file: Path) -> None:
    out = run("cv", str(ratings_file), "--model", "popular", "--test", "wilcoxon",
              "-m", "ndcg@5", "--folds", "2")
    assert out.exit_code == 2
    assert "cross_validate: model" not in out.output  # no fold was run (no progress line)


def test_cli_knn_csv_is_clean(ratings_file: Path) -> None:
    # Surprise's k-NN prints "Computing the msd similarity matrix..." while fitting: on
    # stderr, so the CSV on stdout stays a table
    pytest.importorskip("surprise")
    out = run("cv", str(ratings_file), "--model", "knn=surprise:KNNBasic(k=3)", "-m", "ndcg@5",
              "--folds", "2", "--format", "csv")
    assert out.exit_code == 0, out.output
    assert "Computing" not in out.stdout
    got = pd.read_csv(io.StringIO(out.stdout))
    assert list(got.columns) == ["model", "fold", "NDCG@5"]


def test_cli_include_seen_reaches_surprise(ratings_file: Path) -> None:
    # --include-seen ranks the training items for Surprise too (candidates="all")
    pytest.importorskip("surprise")
    out = run("cv", str(ratings_file), "--model", "svd=surprise:SVD(n_factors=3, n_epochs=3)",
              "-m", "ndcg@5", "--folds", "2", "--seed", "1", "-k", "5", "--include-seen",
              "--format", "csv")
    assert out.exit_code == 0, out.output
    got = pd.read_csv(io.StringIO(out.stdout)).set_index(["model", "fold"])["NDCG@5"]
    svd = rv.models.from_spec("surprise:SVD(n_factors=3, n_epochs=3, random_state=1)")
    expected = _cv({"svd": svd.set_params(candidates="all")}, ["ndcg@5"],
                   exclude_seen=False).per_fold["NDCG@5"]
    np.testing.assert_allclose(got.to_numpy(), expected.to_numpy(), rtol=1e-12)
