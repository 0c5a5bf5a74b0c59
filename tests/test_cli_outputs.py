"""What the commands write: bad paths refused before any work, all outputs or none, formats.

Classes (issue 22), over every command that writes (``evaluate --per-user/--report``,
``compare --report``, ``report -o``, ``cv --report``, ``split -o/--dropped``, k-fold too):

- an output in a missing directory, on a directory, under a file, on an input, or on another
  output (``split -o same.csv -o same.csv`` lost the train part): exit 2 naming the flag and
  the path, before any work (a bad metric name is not reached), nothing written;
- an error half-way: no output left behind, earlier files untouched;
- a table output's format follows its extension (``--per-user p.xlsx`` wrote CSV into it);
  an unknown extension is an error listing the supported ones.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from receval.cli import cli


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    d = tmp_path / "in"
    d.mkdir()
    recs = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": [10, 11, 10, 12],
                         "score": [0.9, 0.5, 0.8, 0.1]})
    truth = pd.DataFrame({"user_id": [1, 2], "item_id": [11, 12], "rating": [5.0, 4.0]})
    data = pd.DataFrame({"user_id": [1, 1, 1, 2, 2, 2, 3, 3, 3, 3],
                         "item_id": [10, 11, 12, 10, 11, 13, 10, 11, 12, 13],
                         "rating": [5.0, 4, 3, 2, 5, 4, 3, 1, 2, 5],
                         "timestamp": range(10)})
    paths = {"recs": d / "recs.csv", "truth": d / "truth.csv", "data": d / "data.csv"}
    recs.to_csv(paths["recs"], index=False)
    truth.to_csv(paths["truth"], index=False)
    data.to_csv(paths["data"], index=False)
    (tmp_path / "afile").write_text("x")
    (tmp_path / "adir").mkdir()
    return paths


def _commands(f: dict[str, Path], out: Path, metric: str = "precision@1"
              ) -> dict[str, list[str]]:
    """Each writing door, with ``out`` as the path under test."""
    r, t, d = str(f["recs"]), str(f["truth"]), str(f["data"])
    other = str(out.parent / "other.csv") if out.parent.is_dir() else "other.csv"
    return {
        "evaluate --per-user": ["evaluate", r, t, "-m", metric, "--per-user", str(out)],
        "evaluate --report": ["evaluate", r, t, "-m", metric, "--report", str(out)],
        "compare --report": ["compare", t, r, r, "--names", "a,b", "-m", metric,
                             "--report", str(out)],
        "report -o": ["report", r, t, "-m", metric, "-o", str(out)],
        "cv --report": ["cv", d, "--model", "popular", "-m", metric.replace("precision",
                                                                            "recall"),
                        "--folds", "2", "--report", str(out)],
        "split -o TRAIN": ["split", d, "-o", str(out), "-o", other],
        "split -o TEST": ["split", d, "-o", other, "-o", str(out)],
        "split --dropped": ["split", d, "--cold-items", "drop", "--dropped", str(out)],
        "kfold -o TRAIN": ["split", d, "--method", "kfold", "--n-splits", "2",
                           "-o", str(out), "-o", other],
    }


DOORS = list(_commands({"recs": Path("r"), "truth": Path("t"), "data": Path("d")},
                       Path("o.csv")))
FLAG = {"evaluate --per-user": "--per-user", "evaluate --report": "--report",
        "compare --report": "--report", "report -o": "--output", "cv --report": "--report",
        "split -o TRAIN": "-o TRAIN", "split -o TEST": "-o TEST", "split --dropped": "--dropped",
        "kfold -o TRAIN": "-o TRAIN (fold 0)"}
BAD = {"missing directory": ("nope/out.csv", "does not exist"),
       "a directory": ("adir", "is a directory"),
       "under a file": ("afile/out.csv", "which is a file")}


def _snapshot(root: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}


@pytest.mark.parametrize("case", list(BAD))
@pytest.mark.parametrize("door", DOORS)
def test_a_bad_output_path_is_refused_before_any_work(files: dict[str, Path], tmp_path: Path,
                                                      door: str, case: str) -> None:
    name, rule = BAD[case]
    out = tmp_path / name
    before = _snapshot(tmp_path)
    # a bad metric name too: the path is checked first, before the metric is parsed
    args = _commands(files, out, metric="nosuchmetric@1")[door]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, result.output
    if door.startswith("kfold") and case == "a directory":  # folds are files adir-fold<i>
        rule = "cannot tell the format of"
    assert rule in result.output
    assert FLAG[door] in result.output
    assert "nosuchmetric" not in result.output
    assert "Traceback" not in result.output
    assert _snapshot(tmp_path) == before


@pytest.mark.parametrize("door", DOORS)
def test_an_output_that_is_an_input_is_refused(files: dict[str, Path], door: str) -> None:
    target = files["data"] if door.startswith(("split", "kfold", "cv")) else files["truth"]
    if door.startswith("kfold"):
        target = target.with_name("data-fold0.csv")  # fold 0's train would be it
        target.write_bytes(files["data"].read_bytes())
        args = _commands(files, target.with_name("data.csv"))[door]
        args[args.index("-o") + 1] = str(files["data"])
        args[1] = str(target)
    else:
        args = _commands(files, target)[door]
    before = _snapshot(files["data"].parent)
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, result.output
    assert "writing it would destroy the input" in result.output
    assert _snapshot(files["data"].parent) == before


@pytest.mark.parametrize("args", [
    ["-o", "{d}/same.csv", "-o", "{d}/same.csv"],
    ["-o", "{d}/same.csv", "-o", "{d}/./same.csv"],
    ["-o", "{d}/a.csv", "-o", "{d}/b.csv", "--dropped", "{d}/a.csv"],
    ["--method", "kfold", "-o", "{d}/same.csv", "-o", "{d}/same.csv"],
    ["--method", "kfold", "-o", "{d}/x.csv", "-o", "{d}/x-fold{{fold}}.csv"],
])
def test_outputs_that_collide_are_refused(files: dict[str, Path], tmp_path: Path,
                                          args: list[str]) -> None:
    """The reported case: -o same.csv -o same.csv silently lost the train part."""
    given = [a.format(d=tmp_path) for a in args]
    result = CliRunner().invoke(cli, ["split", str(files["data"]), *given])
    assert result.exit_code == 2, result.output
    assert "are the same file" in result.output
    assert not list(tmp_path.glob("*.csv"))


def test_evaluate_outputs_that_collide(files: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "x.csv"
    result = CliRunner().invoke(cli, ["evaluate", str(files["recs"]), str(files["truth"]),
                                      "-m", "precision@1", "--per-user", str(out),
                                      "--report", str(out)])
    assert result.exit_code == 2
    assert "--report and --per-user are the same file" in result.output


def test_an_error_half_way_leaves_no_output(files: dict[str, Path], tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from receval.exceptions import RecevalError

    def broken(*args: object, **kwargs: object) -> None:
        raise RecevalError("the report broke")

    monkeypatch.setattr("receval.cli._report.write_report", broken)
    per_user, report = tmp_path / "pu.csv", tmp_path / "r.html"
    per_user.write_text("old")
    result = CliRunner().invoke(cli, ["evaluate", str(files["recs"]), str(files["truth"]),
                                      "-m", "precision@1", "--per-user", str(per_user),
                                      "--report", str(report)])
    assert result.exit_code == 2
    assert "the report broke" in result.output
    assert per_user.read_text() == "old"
    assert not report.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adir", "afile", "in", "pu.csv"]


def test_split_writes_every_fold_or_none(files: dict[str, Path], tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from receval.cli import _outputs
    from receval.exceptions import RecevalError

    real = _outputs.write_table
    calls: list[Path] = []

    def fails_on_the_third(frame: object, path: Path, fmt: str, **kw: object) -> None:
        calls.append(path)
        if len(calls) == 3:
            raise RecevalError("disk full")
        real(frame, path, fmt, **kw)

    monkeypatch.setattr("receval.cli._split.write_table", fails_on_the_third)
    result = CliRunner().invoke(cli, ["split", str(files["data"]), "--method", "kfold",
                                      "--n-splits", "2", "-o", str(tmp_path / "tr.csv"),
                                      "-o", str(tmp_path / "te.csv")])
    assert result.exit_code == 2
    assert not list(tmp_path.glob("*.csv"))
    assert not list(tmp_path.glob(".*"))  # no temporary file left either


# --- table formats by extension -----------------------------------------------------------

FORMATS = [".csv", ".tsv", ".parquet", ".json", ".jsonl", ".csv.gz", ".tsv.bz2", ".xlsx"]


def _read(path: Path) -> pd.DataFrame:
    name = path.name
    if name.endswith(".parquet"):
        return pd.read_parquet(path)
    if name.endswith(".xlsx"):
        return pd.read_excel(path)
    if ".json" in name:
        return pd.read_json(path, lines=True)
    return pd.read_csv(path, sep="\t" if ".tsv" in name else ",")


@pytest.mark.parametrize("ext", FORMATS)
def test_per_user_format_follows_the_extension(files: dict[str, Path], tmp_path: Path,
                                               ext: str) -> None:
    out = tmp_path / f"pu{ext}"
    result = CliRunner().invoke(cli, ["evaluate", str(files["recs"]), str(files["truth"]),
                                      "-m", "precision@1", "--per-user", str(out)])
    assert result.exit_code == 0, result.output
    frame = _read(out)
    assert frame.columns.tolist() == ["user", "Precision@1"]
    assert frame["user"].tolist() == [1, 2]
    if ext == ".xlsx":
        assert out.read_bytes()[:2] == b"PK"  # a zip container, not CSV text


@pytest.mark.parametrize("ext", FORMATS)
def test_split_format_follows_the_extension(files: dict[str, Path], tmp_path: Path,
                                            ext: str) -> None:
    train, test = tmp_path / f"train{ext}", tmp_path / f"test{ext}"
    result = CliRunner().invoke(cli, ["split", str(files["data"]), "-o", str(train),
                                      "-o", str(test)])
    assert result.exit_code == 0, result.output
    both = pd.concat([_read(train), _read(test)])
    assert len(both) == 10
    assert sorted(both["item_id"]) == sorted(pd.read_csv(files["data"])["item_id"])


@pytest.mark.parametrize("door", ["evaluate --per-user", "split -o TRAIN", "split --dropped"])
@pytest.mark.parametrize(("name", "rule"), [
    ("pu.txt", ".csv, .tsv, .tab, .parquet, .pq, .jsonl, .ndjson, .json, .xlsx"),
    ("pu", ".csv, .tsv, .tab, .parquet, .pq, .jsonl, .ndjson, .json, .xlsx"),
    ("pu.parquet.gz", "parquet files are compressed inside; drop the gzip suffix"),
    ("pu.xlsx.zip", "xlsx files are compressed inside; drop the zip suffix")])
def test_an_unknown_table_extension_lists_the_supported_ones(files: dict[str, Path],
                                                             tmp_path: Path, door: str,
                                                             name: str, rule: str) -> None:
    result = CliRunner().invoke(cli, _commands(files, tmp_path / name)[door])
    assert result.exit_code == 2
    assert str(tmp_path / name) in result.output
    assert rule in result.output
    assert not (tmp_path / name).exists()


def test_xlsx_without_openpyxl(files: dict[str, Path], tmp_path: Path,
                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "openpyxl", None)
    out = tmp_path / "pu.xlsx"
    result = CliRunner().invoke(cli, ["evaluate", str(files["recs"]), str(files["truth"]),
                                      "-m", "precision@1", "--per-user", str(out)])
    assert result.exit_code == 2
    assert "needs openpyxl" in result.output
    assert "receval[excel]" in result.output
    assert not out.exists()
