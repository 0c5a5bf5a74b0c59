"""The command line, through click's runner (no subprocess) and once as a real process."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest
from click.testing import CliRunner

from receval.cli import cli


@pytest.fixture
def files(tmp_path):
    recs = pd.DataFrame({"user_id": [1, 1, 1, 2, 2], "item_id": [10, 11, 12, 10, 13],
                         "score": [0.9, 0.8, 0.7, 0.6, 0.5]})
    truth = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [10, 12, 13],
                          "rating": [5.0, 3.0, 4.0]})
    r, t = tmp_path / "recs.csv", tmp_path / "truth.parquet"
    recs.to_csv(r, index=False)
    truth.to_parquet(t)
    return r, t


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_evaluate_table(files):
    r, t = files
    out = run("evaluate", str(r), str(t), "-m", "precision@2", "-m", "ndcg@3")
    assert out.exit_code == 0, out.output
    assert "Precision@2" in out.output
    assert "NDCG@3" in out.output
    # user 1: hits@2 = 1 (item 10) -> 1/2; user 2: hits@2 = 1 (item 13) -> 1/2
    assert "0.5000" in out.output
    assert "evaluated" in out.output


def test_evaluate_json_and_per_user(files, tmp_path):
    r, t = files
    per_user = tmp_path / "pu.csv"
    out = run("evaluate", str(r), str(t), "-m", "recall@3", "--format", "json",
              "--per-user", str(per_user))
    assert out.exit_code == 0, out.output
    doc = json.loads(out.output)
    assert doc["metrics"]["Recall@3"]["value"] == 1.0
    assert doc["users"]["evaluated"] == 2
    frame = pd.read_csv(per_user)
    assert list(frame.columns) == ["user", "Recall@3"]


@pytest.mark.parametrize("fmt", ["markdown", "latex", "csv"])
def test_evaluate_formats(files, fmt):
    r, t = files
    out = run("evaluate", str(r), str(t), "-m", "map@3", "--format", fmt)
    assert out.exit_code == 0, out.output
    assert "MAP@3" in out.output


def test_evaluate_error_exit_code(files):
    r, t = files
    out = CliRunner().invoke(cli, ["evaluate", str(r), str(t), "-m", "ndgc@10"])
    assert out.exit_code == 2
    assert "ndcg" in out.output


def test_evaluate_users_table_starts_with_the_total(files):
    r, t = files
    out = run("evaluate", str(r), str(t), "-m", "ndcg@3")
    assert out.exit_code == 0, out.output
    assert "all users (both inputs)" in out.output
    assert "missing_recs='zero': scored 0, counted in evaluated" in out.output


@pytest.mark.parametrize(("args", "words"), [
    (["-m", "recall@99999999999999999999"], "the cutoff in 'recall@99999999999999999999' "
                                            "must be at most 2**31 - 1"),
    (["-m", "ndcg(gain=exponential, gain=linear)@10"], "gives the parameter 'gain' twice"),
    (["-m", "ndcg@3", "--missing-predictions", "nan"], "or a finite number"),
])
def test_evaluate_bad_metric_names_and_options_exit_2(files, args, words):
    r, t = files
    out = CliRunner().invoke(cli, ["evaluate", str(r), str(t), *args])
    assert out.exit_code == 2, out.output
    assert words in " ".join(out.output.split())
    assert "Traceback" not in out.output


def test_evaluate_id_type_mismatch_suggests_id_cast(tmp_path):
    (tmp_path / "r.csv").write_text("user_id,item_id,score\na,1,0.9\n")
    (tmp_path / "t.csv").write_text("user_id,item_id\na,x\n")
    out = CliRunner().invoke(cli, ["evaluate", str(tmp_path / "r.csv"), str(tmp_path / "t.csv"),
                                   "-m", "ndcg@3"])
    assert out.exit_code == 2, out.output
    assert "or pass id_cast='str' or 'int' (--id-cast)" in " ".join(out.output.split())


def test_explain_prints_worked_table():
    out = run("explain", "ndcg@6", "3", "2", "3", "0", "1", "2")
    assert out.exit_code == 0, out.output
    assert "DCG@6 = 3 + 1.262 + 1.5 + 0 + 0.3869 + 0.7124 = 6.861" in out.output
    assert "IDCG@6" in out.output
    assert "0.960808" in out.output


def test_explain_with_ideal():
    out = run("explain", "ndcg(gain=exponential)@5", "5", "3", "2", "1", "2",
              "--ideal", "5,3,2,1,2,4,0")
    assert out.exit_code == 0, out.output
    assert "0.829613" in out.output


def test_metrics_lists_every_registered_metric():
    import receval as rv

    out = run("metrics")
    assert out.exit_code == 0
    for info in rv.metrics.available():
        assert info.name in out.output


def test_metrics_detail():
    out = run("metrics", "ap")
    assert out.exit_code == 0
    assert "denominator" in out.output
    assert "min_k_relevant" in out.output


def test_demo_runs():
    out = run("demo", "--users", "120", "--items", "80")
    assert out.exit_code == 0, out.output
    assert "random" in out.output
    assert "most popular" in out.output
    assert "RMSE" in out.output


def test_console_script_runs_in_a_new_process():
    done = subprocess.run([sys.executable, "-m", "receval.cli", "--help"], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "evaluate" in done.stdout


# -- conventions -------------------------------------------------------------------------------
def test_evaluate_with_a_convention(files):
    r, t = files
    out = run("evaluate", str(r), str(t), "-m", "ap@2", "-c", "trec_eval", "--format", "json")
    assert out.exit_code == 0, out.output
    doc = json.loads(out.output)
    assert doc["settings"]["convention"] == "trec_eval"
    label = "MAP(denominator='relevant')@2"
    assert doc["settings"]["metrics"][label]["library_name"] == "map_cut_2"
    # user 1: hit at rank 1, |R| = 2 -> (1/1) / 2; user 2: 13 at rank 2, |R| = 1 -> (1/2) / 1
    assert doc["metrics"][label]["value"] == pytest.approx((1 / 2 + 1 / 2) / 2)
    table = run("evaluate", str(r), str(t), "-m", "ap@2", "-c", "trec_eval")
    assert "convention: trec_eval" in table.output


def test_evaluate_all_conventions(files):
    r, t = files
    out = run("evaluate", str(r), str(t), "-m", "ndcg@2", "-m", "ap@2", "--all-conventions",
              "--format", "json")
    assert out.exit_code == 0, out.output
    doc = json.loads(out.output)
    assert set(doc["values"]) == {"receval", "trec_eval", "ranx", "sklearn", "recbole",
                                  "ms_recommenders", "lenskit", "replay", "torchmetrics",
                                  "evidently", "elliot", "cornac"}
    assert doc["values"]["sklearn"]["ap@2"] is None  # scikit-learn has no AP@k
    assert doc["names"]["ranx"]["ndcg@2"] == "ndcg@2 = NDCG@2"
    md = run("evaluate", str(r), str(t), "-m", "ndcg@2", "--all-conventions", "--format",
             "markdown")
    assert "| ndcg@2 |" in md.output
    for fmt in ("table", "csv", "latex"):
        assert run("evaluate", str(r), str(t), "-m", "ndcg@2", "--all-conventions",
                   "--format", fmt).exit_code == 0


def test_convention_errors_exit_2(files):
    r, t = files
    both = run("evaluate", str(r), str(t), "-m", "ndcg@2", "-c", "ranx", "--all-conventions")
    assert both.exit_code == 2
    assert "exclude each other" in both.output
    unknown = run("evaluate", str(r), str(t), "-m", "ndcg@2", "-c", "trecc_eval")
    assert unknown.exit_code == 2
    assert "did you mean 'trec_eval'" in unknown.output
    lacking = run("evaluate", str(r), str(t), "-m", "dcg@2", "-c", "trec_eval")
    assert lacking.exit_code == 2
    assert "trec_eval has no DCG" in lacking.output


def test_conventions_command():
    out = run("conventions", "--format", "markdown")
    assert out.exit_code == 0
    assert "map_cut_k = MAP(denominator='relevant')@k" in out.output
    one = run("conventions", "lenskit")
    assert "LensKit" in one.output
    assert "not reproduced" in one.output
    doc = json.loads(run("conventions", "replay", "--format", "json").output)
    assert doc["settings"]["ties"] == "item_desc"
    assert run("conventions", "nope").exit_code == 2
    assert run("conventions").exit_code == 0


def test_convention_tables_fit_an_80_column_terminal(files, monkeypatch):
    """Every library's name and every number is shown whole (folded, never cut with an
    ellipsis) at 80 columns."""
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setattr("receval.cli._render.is_terminal", lambda: True)
    r, t = files
    every = run("conventions")
    assert every.exit_code == 0
    assert "…" not in every.output
    assert max(len(line) for line in every.output.splitlines()) <= 80
    assert "map_cut_k" in every.output
    assert "relevance_threshold=1.0" in every.output  # trec_eval's settings row
    side = run("evaluate", str(r), str(t), "-m", "ndcg@2", "-m", "ap@2", "--all-conventions")
    assert side.exit_code == 0
    values = side.output.split("what each number is")[0]
    assert "…" not in values
    assert max(len(line) for line in side.output.splitlines()) <= 80


@pytest.mark.parametrize("args", [
    ["evaluate", "{r}", "{t}", "-m", "precision@2", "-m", "ndcg@3"],
    ["evaluate", "{r}", "{t}", "-m", "ndcg@2", "--all-conventions"],
    ["conventions"],
    ["metrics"],
])
def test_tables_in_a_pipe_are_markdown_never_wrapped(tmp_path, args):
    """Rich wrapped tables at 80 columns when stdout was a pipe: markdown there, lines whole."""
    recs = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [10, 11, 10],
                         "score": [0.9, 0.8, 0.7]})
    truth = pd.DataFrame({"user_id": [1, 2], "item_id": [10, 13]})
    long = "a_rather_long_file_name_that_makes_the_title_wider_than_eighty_columns"
    r, t = tmp_path / f"{long}_recs.csv", tmp_path / f"{long}_truth.csv"
    recs.to_csv(r, index=False)
    truth.to_csv(t, index=False)
    out = run(*[a.format(r=r, t=t) for a in args])
    assert out.exit_code == 0, out.output
    assert "┃" not in out.stdout
    assert "━" not in out.stdout
    assert "|---" in out.stdout or "|:---" in out.stdout or "|-" in out.stdout
    if args[0] == "evaluate" and "--all-conventions" not in args:
        assert f"{long}_recs.csv vs {long}_truth.csv" in out.stdout  # the title, whole
        assert "| NDCG@3" in out.stdout


def test_tables_on_a_terminal_are_rich(files, monkeypatch):
    monkeypatch.setattr("receval.cli._render.is_terminal", lambda: True)
    r, t = files
    out = run("evaluate", str(r), str(t), "-m", "precision@2")
    assert out.exit_code == 0, out.output
    assert "┃" in out.stdout


def test_each_warning_is_shown_once(tmp_path):
    """Tied scores at the cutoff in every fold: one note, not one per fold or per model."""
    data = pd.DataFrame({"user_id": [u for u in range(8) for _ in range(4)],
                         "item_id": [i for _ in range(8) for i in range(4)],
                         "rating": [4.0] * 32})
    path = tmp_path / "data.csv"
    data.to_csv(path, index=False)
    out = CliRunner().invoke(cli, ["cv", str(path), "--model", "popular", "--model",
                                   "random", "-m", "ndcg@1", "--folds", "2", "-k", "2"])
    assert out.exit_code == 0, out.output
    notes = [line for line in out.output.splitlines() if line.startswith("note:")]
    assert notes
    assert len(notes) == len(set(notes))
    assert "Warning:" not in out.output  # not also shown by Python's warning printer
