"""``rv.run`` and ``receval run``: outputs and manifest; ``rv.rerun``: exact rechecks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import receval as rv
from receval.cli import cli
from receval.data._files import read_table
from receval.exceptions import ConfigError, EmptyInputError, OutputPathError
from receval.study._data import apply_filters
from receval.study._hashing import frame_sha256
from tests.study_helpers import toy_config

pytestmark = pytest.mark.filterwarnings("ignore::receval.exceptions.UndefinedMetricWarning")


@pytest.fixture(scope="module")
def ratings_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("data") / "ratings.csv"
    rv.datasets.sample_ratings(50, 30, seed=1).to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def done(tmp_path_factory: pytest.TempPathFactory, ratings_csv: Path) -> rv.Study:
    folder = tmp_path_factory.mktemp("study") / "out"
    config = toy_config(folder, data={"path": str(ratings_csv)},
                        compare={"test": "wilcoxon", "metrics": ["ndcg@5"]})
    config["models"]["tuned"] = {"model": "item-mean", "grid": {"shrinkage": [0.0, 10.0]}}
    config["tune"] = {"metric": "rmse"}
    config["outputs"]["report"] = True
    return rv.run(config, progress=False)


def test_numbers_are_cross_validates(done, ratings_csv):
    frame = read_table(ratings_csv, role="truth")
    folds = rv.split.kfold(frame, n_splits=2, seed=0)
    cv = rv.cross_validate({"pop": rv.models.MostPopular(),
                            "im": rv.models.ItemMean(shrinkage=2)}, frame, ["ndcg@5", "rmse"],
                           split=folds, k=5, relevance_threshold=4, progress=False)
    pd.testing.assert_frame_equal(done.cv.per_fold.loc[["pop", "im"]], cv.per_fold)
    assert done.cv.models == ["pop", "im", "tuned"]
    assert done.comparison is not None
    assert set(done.tuning) == {"tuned"}


def test_outputs_folder(done):
    files = sorted(p.name for p in done.folder.iterdir())
    assert files == ["comparison.csv", "comparison.html", "per_fold.csv", "per_user.parquet",
                     "report.html", "run.json", "summary.csv", "trials.csv"]
    per_fold = pd.read_csv(done.folder / "per_fold.csv", index_col=[0, 1])
    assert per_fold.loc[("im", 1), "NDCG@5"] == done.cv.results[("im", 1)]["ndcg@5"]
    per_user = pd.read_parquet(done.folder / "per_user.parquet")
    assert len(per_user) == sum(len(ev.per_user) for ev in done.cv.results.values())
    trials = pd.read_csv(done.folder / "trials.csv")
    assert len(trials) == 4  # 2 folds x 2 points
    # the report and cv.settings show the grid, the validation scores and the chosen points
    assert "Tuning trials of tuned" in (done.folder / "report.html").read_text()
    tuning = done.cv.settings["tuning"]["tuned"]
    assert tuning["grid"] == {"shrinkage": [0.0, 10.0]}
    assert [t["RMSE"] for t in tuning["trials"]] == trials["RMSE"].tolist()
    assert tuning["best"] == done.tuning["tuned"].best


def test_manifest_content(done, ratings_csv):
    m = json.loads((done.folder / "run.json").read_text())
    assert m == json.loads(json.dumps(done.manifest))
    assert m["versions"]["numpy"] == np.__version__
    assert m["versions"]["pandas"] == pd.__version__
    assert m["versions"]["receval"] == rv.__version__
    import hashlib

    assert m["inputs"]["data"]["sha256"] == hashlib.sha256(ratings_csv.read_bytes()).hexdigest()
    folds = rv.split.kfold(read_table(ratings_csv, role="truth"), n_splits=2, seed=0)
    for record, fold in zip(m["splits"], folds, strict=True):
        assert record["sha256"]["train"] == frame_sha256(fold.train)
        assert record["sha256"]["test"] == frame_sha256(fold.test)
        assert record["report"]["method"] == "kfold"
    assert m["seeds"] == {"study": 0, "split": 0, "tune": 0, "compare": 0}
    assert m["config"]["split"]["by"] == "rows"  # defaults filled in
    assert m["metrics"]["NDCG@5"]["name"] == "ndcg"
    assert m["evaluation"]["relevance_threshold"] == 4
    assert m["evaluation"]["ties"] == "stable"
    im = m["results"]["im"]["folds"][1]
    assert im["values"]["RMSE"] == done.cv.results[("im", 1)]["rmse"]
    assert im["users"]["rating_evaluated"] == len(done.cv.results[("im", 1)].users.rating_evaluated)
    assert m["tuning"]["tuned"]["best"] == done.tuning["tuned"].best
    assert m["comparison"]["tests"][0]["metric"] == "NDCG@5"


def test_rerun_identical(done):
    result = rv.rerun(done.folder / "run.json")
    assert result.identical, str(result)
    assert "identical" in str(result)


def test_rerun_detects_a_changed_input(tmp_path, ratings_csv):
    data = tmp_path / "ratings.csv"
    data.write_bytes(ratings_csv.read_bytes())
    study = rv.run(toy_config(tmp_path / "out", data={"path": str(data)}), progress=False)
    frame = pd.read_csv(data)
    frame.loc[3, "rating"] = 6 - frame.loc[3, "rating"]  # one rating changed
    frame.to_csv(data, index=False)
    result = rv.rerun(study.folder / "run.json")
    assert not result.identical
    assert result.first.path == "inputs.data.sha256"
    assert "(the input changed)" in str(result)
    paths = [d.path for d in result.differences]
    assert "inputs.table_sha256" in paths
    assert any(p.startswith("results.im.folds") for p in paths)


def test_rerun_with_the_input_moved(tmp_path, ratings_csv):
    data = tmp_path / "ratings.csv"
    data.write_bytes(ratings_csv.read_bytes())
    study = rv.run(toy_config(tmp_path / "out", data={"path": str(data)}), progress=False)
    moved = tmp_path / "elsewhere.csv"
    data.rename(moved)
    with pytest.raises(ConfigError, match=r"data.path: the input the manifest recorded, "
                       r"'.*ratings.csv', is not there; if it moved.*--data PATH"):
        rv.rerun(study.folder / "run.json")
    out = CliRunner().invoke(cli, ["rerun", "-q", str(study.folder / "run.json")])
    assert out.exit_code == 2
    assert "--data PATH" in out.output
    out = CliRunner().invoke(cli, ["rerun", "-q", str(study.folder / "run.json"), "--data",
                                   str(moved)], catch_exceptions=False)
    assert out.exit_code == 0, out.output
    moved.write_text(moved.read_text().replace(",5,", ",4,", 1))
    out = CliRunner().invoke(cli, ["rerun", "-q", str(study.folder / "run.json"), "--data",
                                   str(moved)], catch_exceptions=False)
    assert out.exit_code == 1
    assert "inputs.data.sha256 (the input changed)" in out.output


def test_rerun_detects_a_changed_number(done, tmp_path):
    m = json.loads((done.folder / "run.json").read_text())
    old = m["results"]["pop"]["folds"][1]["values"]["NDCG@5"]
    m["results"]["pop"]["folds"][1]["values"]["NDCG@5"] = old + 1e-15
    path = tmp_path / "run.json"
    path.write_text(json.dumps(m))
    result = rv.rerun(path)
    assert result.first.path == "results.pop.folds[1].values.NDCG@5"
    assert result.first.old == old + 1e-15
    assert result.first.new == old
    out = CliRunner().invoke(cli, ["rerun", "-q", str(path)], catch_exceptions=False)
    assert out.exit_code == 1
    assert "results.pop.folds[1].values.NDCG@5" in out.output
    out = CliRunner().invoke(cli, ["rerun", "-q", str(done.folder / "run.json")],
                             catch_exceptions=False)
    assert out.exit_code == 0, out.output


def test_same_manifest_numbers_in_another_process(done):
    env = {**os.environ, "PYTHONHASHSEED": "123",
           "PYTHONPATH": os.pathsep.join([str(Path(rv.__file__).parents[1]),
                                          os.environ.get("PYTHONPATH", "")])}
    code = ("import sys, receval as rv, warnings; warnings.simplefilter('ignore'); "
            "r = rv.rerun(sys.argv[1]); print(r); sys.exit(0 if r.identical else 1)")
    proc = subprocess.run([sys.executable, "-c", code, str(done.folder / "run.json")],
                          env=env, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_cli_run(tmp_path, ratings_csv):
    (tmp_path / "study.toml").write_text(f"""
name = "cli toy"
[data]
path = "{ratings_csv.as_posix()}"
[split]
method = "random"
test_size = 0.25
seed = 3
[models]
pop = "most-popular"
[evaluate]
metrics = ["precision@5"]
k = 5
[outputs]
folder = "result"
report = false
""")
    out = CliRunner().invoke(cli, ["run", str(tmp_path / "study.toml")],
                             catch_exceptions=False)
    assert out.exit_code == 0, out.output
    assert "Precision@5" in out.output
    assert (tmp_path / "result" / "run.json").is_file()
    # the progress lines go to stderr; they name only the files written
    assert "reading the data" in out.stderr
    assert "writing run.json, per_fold.csv, summary.csv, per_user.parquet to" in out.stderr
    bad = tmp_path / "bad.toml"
    bad.write_text((tmp_path / "study.toml").read_text().replace("test_size", "test_sise"))
    out = CliRunner().invoke(cli, ["run", str(bad)], catch_exceptions=False)
    assert out.exit_code == 2
    assert "split.test_sise: unknown key; did you mean 'test_size'?" in out.output
    out = CliRunner().invoke(cli, ["run", "--schema"], catch_exceptions=False)
    assert json.loads(out.output) == rv.study.config_schema()


def test_outputs_are_checked_first_and_never_half_written(tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("x")
    with pytest.raises(OutputPathError, match=r"outputs\.folder"):
        rv.run(toy_config(afile), progress=False)
    with pytest.raises(OutputPathError, match="does not exist"):
        rv.run(toy_config(tmp_path / "no" / "such" / "out"), progress=False)
    # a model that breaks the protocol half-way: no output file is left behind
    config = toy_config(tmp_path / "out")
    # Spy refuses to be fitted on user 1's first rated item: it raises in fold 0 or 1
    first = rv.datasets.sample_ratings(50, 30, seed=1).iloc[0]
    config["models"]["bad"] = (f"tests.study_helpers:Spy(forbidden=(({first['user_id']}, "
                               f"{first['item_id']}),))")
    with pytest.raises(rv.exceptions.InvalidModelError, match="forbidden") as info:
        rv.run(config, progress=False)
    assert info.value.parameter == "models.bad"
    assert str(info.value).startswith("models.bad: ")
    assert list((tmp_path / "out").iterdir()) == []


def test_filters_hand_computed():
    # users a (3 rows), b (2), c (1); items x (3), y (2), z (1)
    frame = pd.DataFrame({"user_id": list("aaabbc"), "item_id": list("xyzxyx"),
                          "rating": [5, 4, 1, 3, 5, 2]})
    none = {"min_rating": None, "min_user_interactions": 1, "min_item_interactions": 1,
            "k_core": None}
    kept, dropped = apply_filters(frame, {**none, "min_rating": 3})
    assert kept.index.tolist() == [0, 1, 3, 4]
    assert dropped["min_rating"] == 2
    # users with >= 2 rows: a, b (c's row 5 dropped); then items with >= 2 rows of those:
    # x (rows 0, 3), y (rows 1, 4); z (row 2) dropped
    kept, dropped = apply_filters(frame, {**none, "min_user_interactions": 2,
                                          "min_item_interactions": 2})
    assert kept.index.tolist() == [0, 1, 3, 4]
    assert dropped == {"min_rating": 0, "min_user_interactions": 1, "min_item_interactions": 1}
    # 2-core: the same rows, every user and item left has 2
    kept, _ = apply_filters(frame, {**none, "k_core": 2})
    assert kept.index.tolist() == [0, 1, 3, 4]
    # 3-core: a has 3 rows, but x, y then have 1 each... nothing survives
    kept, _ = apply_filters(frame, {**none, "k_core": 3})
    assert kept.empty


def test_filters_leave_nothing(tmp_path):
    config = toy_config(tmp_path / "out", filters={"min_user_interactions": 10_000})
    with pytest.raises(EmptyInputError, match=r"filters: no row is left of the 691 rows of the "
                       r"data; rows dropped by each filter: min_user_interactions = 10000 "
                       r"dropped 691$"):
        rv.run(config, progress=False)
    config = toy_config(tmp_path / "out", filters={"min_rating": 4, "k_core": 30})
    with pytest.raises(EmptyInputError, match=r"each filter \(with k_core = 30\): min_rating "
                       r"= 4 dropped \d+; min_user_interactions = 1 dropped \d+"):
        rv.run(config, progress=False)


def test_unseeded_models_get_the_study_seed_and_rerun_identically(tmp_path):
    pytest.importorskip("surprise")
    config = toy_config(tmp_path / "out")
    config["models"] = {"svd": "surprise:SVD(n_factors=3, n_epochs=5)",
                        "seeded": "surprise:SVD(n_factors=3, n_epochs=5, random_state=4)",
                        "tuned": {"model": "surprise:SVD(n_epochs=5)",
                                  "grid": {"n_factors": [2, 3]}},
                        "random": "random"}
    config["evaluate"] = {"metrics": ["rmse", "ndcg@5"], "k": 5}
    study = rv.run(config, progress=False)
    assert study.manifest["seeds"] == {
        "study": 0, "split": 0, "data": 1, "tune": 0, "models.svd.algo__random_state": 0,
        "models.seeded.algo__random_state": 4, "models.tuned.random_state": 0,
        "models.random.seed": 0}
    assert study.config["models"]["svd"]["params"] == {"random_state": 0}
    assert rv.rerun(study.folder / "run.json").identical
    out = CliRunner().invoke(cli, ["rerun", "-q", str(study.folder / "run.json")],
                             catch_exceptions=False)
    assert out.exit_code == 0, out.output
    # another study seed: other SVD numbers, the seeded SVD's unchanged
    other = rv.run({**config, "seed": 5, "outputs": {"folder": str(tmp_path / "o5"),
                                                     "report": False}}, progress=False)
    assert other.manifest["seeds"]["models.svd.algo__random_state"] == 5
    assert other.cv.per_fold.loc["svd", "RMSE"].tolist() != \
        study.cv.per_fold.loc["svd", "RMSE"].tolist()
    pd.testing.assert_frame_equal(other.cv.per_fold.loc["seeded"],
                                  study.cv.per_fold.loc["seeded"])


def test_compare_of_a_metric_no_model_measured(tmp_path):
    config = toy_config(tmp_path / "out", compare={"metrics": ["map@10"]})
    with pytest.raises(ConfigError, match=r"^compare: .*MAP@10 is not compared: no model "
                       r"measured it$"):
        rv.run(config, progress=False)


def test_a_study_removes_its_own_stale_outputs(done, tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    for path in done.folder.iterdir():
        (folder / path.name).write_bytes(path.read_bytes())
    (folder / "notes.txt").write_text("mine")
    (folder / "sub").mkdir()
    study = rv.run(toy_config(folder), progress=False)  # no [compare], no grid, no report
    assert study.comparison is None
    assert sorted(p.name for p in folder.iterdir()) == [
        "notes.txt", "per_fold.csv", "per_user.parquet", "run.json", "sub", "summary.csv"]


def test_yaml_study(tmp_path, ratings_csv):
    yaml = pytest.importorskip("yaml")
    config = toy_config("out", data={"path": str(ratings_csv)})
    (tmp_path / "study.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    study = rv.run(tmp_path / "study.yaml", progress=False)
    assert study.folder == tmp_path / "out"
    assert study.cv.models == ["pop", "im"]


def test_tune_section_and_output_switches(tmp_path):
    config = toy_config(tmp_path / "out",
                        tune={"metric": "rmse", "search": "random", "n_iter": 2, "seed": 3,
                              "validation": {"method": "random", "test_size": 0.3, "seed": 1}})
    config["models"]["im"] = {"model": "item-mean", "grid": {"shrinkage": [0, 1, 5, 25]}}
    config["outputs"].update(tables=False, per_user=False)
    study = rv.run(config, progress=False)
    assert sorted(p.name for p in study.folder.iterdir()) == ["run.json"]
    trials = study.tuning["im"].trials
    assert len(trials) == 4  # 2 folds x 2 points drawn
    assert study.manifest["seeds"]["tune"] == 3
    settings = study.manifest["tuning"]["im"]["settings"]
    assert settings["validation"] == {"method": "random", "test_size": 0.3, "seed": 1}
    # the same points are drawn in every fold (the seed, not the fold, decides)
    assert trials[trials["fold"] == 0]["shrinkage"].tolist() == \
        trials[trials["fold"] == 1]["shrinkage"].tolist()
