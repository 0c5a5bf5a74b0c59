"""``receval split``: every method writes the same rows the library gives, by extension."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import receval as rv
from receval.cli import cli
from receval.cli._split import fold_path


@pytest.fixture
def log_file(tmp_path: Path) -> tuple[Path, pd.DataFrame]:
    rng = np.random.default_rng(0)
    n = 120
    log = pd.DataFrame({"user_id": rng.integers(0, 12, n), "item_id": rng.integers(0, 25, n),
                        "rating": rng.integers(1, 6, n), "timestamp": rng.integers(0, 500, n)})
    path = tmp_path / "log.csv"
    log.to_csv(path, index=False)
    return path, rv.data.read_table(path, role="truth")


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _read(path: Path) -> pd.DataFrame:
    return pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path)


@pytest.mark.parametrize(("args", "call"), [
    (["--method", "random", "--test-size", "0.25", "--seed", "3"],
     lambda d: rv.split.random(d, 0.25, seed=3)),
    (["--method", "random", "--per-user", "--seed", "4"],
     lambda d: rv.split.random(d, 0.2, per_user=True, seed=4)),
    (["--method", "temporal", "--test-size", "0.3", "--ties", "row_order"],
     lambda d: rv.split.temporal(d, 0.3, ties="row_order")),
    (["--method", "temporal", "--at", "400"], lambda d: rv.split.temporal(d, at=400)),
    (["--method", "temporal", "--test-size", "0.5", "--per-user"],
     lambda d: rv.split.temporal(d, 0.5, per_user=True)),
    (["--method", "leave-k-out", "-k", "2"], lambda d: rv.split.leave_k_out(d, 2)),
    (["--method", "leave-k-out", "--order", "random", "--seed", "9"],
     lambda d: rv.split.leave_k_out(d, 1, order="random", seed=9)),
])
def test_split_writes_the_library_split(tmp_path, log_file, args, call):
    path, frame = log_file
    train, test = tmp_path / "train.csv", tmp_path / "test.parquet"
    out = run("split", str(path), *args, "-o", str(train), "-o", str(test))
    assert out.exit_code == 0, out.output
    expected = call(frame)
    assert str(expected.report) in out.output
    pd.testing.assert_frame_equal(_read(train), expected.train.reset_index(drop=True),
                                  check_dtype=False)
    pd.testing.assert_frame_equal(_read(test), expected.test.reset_index(drop=True),
                                  check_dtype=False)


def test_kfold_files_per_fold(tmp_path, log_file):
    path, frame = log_file
    out = run("split", str(path), "--method", "kfold", "--n-splits", "3", "--by", "users",
              "-o", str(tmp_path / "train.csv"), "-o", str(tmp_path / "test-{fold}.csv"))
    assert out.exit_code == 0, out.output
    folds = rv.split.kfold(frame, 3, by="users")
    rows = 0
    for i, fold in enumerate(folds):
        test = pd.read_csv(tmp_path / f"test-{i}.csv")
        train = pd.read_csv(tmp_path / f"train-fold{i}.csv")
        assert test["user_id"].tolist() == fold.test["user_id"].tolist()
        assert len(train) == len(fold.train)
        rows += len(test)
    assert rows == len(frame)


def test_fold_path():
    assert fold_path(Path("a/train.csv.gz"), 2) == Path("a/train-fold2.csv.gz")
    assert fold_path(Path("t_{fold}.parquet"), 0) == Path("t_0.parquet")


def test_dropped_file_and_json_report(tmp_path, log_file):
    path, frame = log_file
    out = run("split", str(path), "--method", "leave-k-out", "-k", "10", "--small-users",
              "drop", "--dropped", str(tmp_path / "dropped.jsonl"), "--json",
              "-o", str(tmp_path / "tr.tsv"), "-o", str(tmp_path / "te.tsv"))
    assert out.exit_code == 0, out.output
    report = json.loads(out.output)
    expected = rv.split.leave_k_out(frame, 10, small_users="drop")
    assert report["rows"] == expected.report.rows
    assert report["dropped_by"]["small_users"] == expected.report.rows["dropped"] > 0
    dropped = pd.read_json(tmp_path / "dropped.jsonl", lines=True)
    assert len(dropped) == expected.report.rows["dropped"]
    assert len(pd.read_csv(tmp_path / "te.tsv", sep="\t")) == expected.report.rows["test"]


def test_errors_exit_2(tmp_path, log_file):
    path, _ = log_file
    out = CliRunner().invoke(cli, ["split", str(path), "--method", "leave-k-out", "-k", "0"])
    assert out.exit_code == 2
    assert "k must be an integer >= 1" in out.output
    out = CliRunner().invoke(cli, ["split", str(path), "-o", str(tmp_path / "only.csv")])
    assert out.exit_code == 2
    assert "give -o twice" in out.output
    out = CliRunner().invoke(cli, ["split", str(path), "-o", str(tmp_path / "a.txt"),
                                   "-o", str(tmp_path / "b.csv")])
    assert out.exit_code == 2
    assert "-o TRAIN: cannot tell the format" in out.output
    out = CliRunner().invoke(cli, ["split", str(path), "--method", "temporal"])
    assert out.exit_code == 2
    assert "exactly one of test_size" in out.output
    out = CliRunner().invoke(cli, ["split", str(path), "--at", "3"])
    assert out.exit_code == 2
    assert "--at applies to --method temporal, not random" in out.output
    out = CliRunner().invoke(cli, ["split", str(path), "--method", "kfold", "-k", "2"])
    assert out.exit_code == 2
    assert "-k applies to --method leave-k-out, not kfold" in out.output
