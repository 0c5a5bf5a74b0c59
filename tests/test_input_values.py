"""Input files: ids kept as written, columns found or named, lines of the wrong width.

Classes of input, each in every file format that takes it (CSV, TSV, .csv.gz, JSON lines,
Parquet, TREC):

- ids that a type-inferring reader would change (``0042``, ``1e3``, ``1.0``, ``+5``,
  dates, ``true``, ``NA``, ``null``): read as text, never as another id; canonical integers
  (``42``, ``-3``, ``0``, up to uint64) read as integers, so that plain integer data reads
  as before;
- JSON lines: a JSON string stays a string; strings and numbers mixed in one column are the
  errors a DataFrame gets;
- a value column whose name is not an alias (recs ``est``, truth ``stars``): a DataWarning
  naming it (an error under ``strict``); a relevance threshold with no grade column is an
  InvalidParameterError;
- a header of names that are no aliases (``customer,product``), a header with spaces or
  capitals, another delimiter, an empty file, a JSON array, TREC lines with too many or too
  few fields.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from click.testing import CliRunner

import receval as rv
from receval.cli import cli
from receval.data import read_table
from receval.exceptions import (
    ColumnNotFoundError,
    DataError,
    DataWarning,
    EmptyInputError,
    IdTypeMismatchError,
    InvalidParameterError,
    SchemaError,
)

TEXT_FORMATS = (".csv", ".tsv", ".csv.gz", ".jsonl")
FORMATS = (*TEXT_FORMATS, ".parquet")


def write(path: Path, columns: list[str], rows: list[list[Any]]) -> Path:
    """``rows`` written as the format of ``path`` writes them: text cells as they are; in
    JSON lines a ``str`` is a JSON string and a number a JSON number; Parquet of strings."""
    name = path.name
    if name.endswith(".jsonl"):
        path.write_text("".join(json.dumps(dict(zip(columns, r, strict=True))) + "\n"
                                for r in rows))
    elif name.endswith(".parquet"):
        pd.DataFrame(rows, columns=columns).to_parquet(path)
    else:
        sep = "\t" if ".tsv" in name else ","
        text = "".join(sep.join(str(c) for c in r) + "\n" for r in [columns, *rows])
        if name.endswith(".gz"):
            path.write_bytes(gzip.compress(text.encode()))
        else:
            path.write_text(text)
    return path


# ids that must reach the evaluation exactly as written
ODD_IDS = ["0042", "1e3", "1.0", "+5", "2020-01-01", "true", "NA", "null", "007"]


@pytest.mark.parametrize("odd", ODD_IDS)
@pytest.mark.parametrize("fmt", FORMATS)
def test_ids_are_read_as_written(tmp_path: Path, fmt: str, odd: str) -> None:
    path = write(tmp_path / f"r{fmt}", ["user_id", "item_id", "score"],
                 [["u1", odd, 0.9], ["u1", "42", 0.8], ["u2", "1000", 0.7]])
    frame = read_table(path)
    assert frame["item_id"].tolist() == [odd, "42", "1000"]
    assert frame["user_id"].tolist() == ["u1", "u1", "u2"]


@pytest.mark.parametrize("fmt", [".run", ".qrels"])
@pytest.mark.parametrize("odd", ODD_IDS)
def test_trec_ids_are_text(tmp_path: Path, fmt: str, odd: str) -> None:
    path = tmp_path / f"x{fmt}"
    path.write_text(f"q1 Q0 {odd} 1 0.9 t\n" if fmt == ".run" else f"q1 0 {odd} 1\n")
    assert read_table(path)["item"].tolist() == [odd]


INTEGER_IDS = {"small": ["42", "-3", "0"], "int64 max": ["9223372036854775807", "1", "2"],
               "uint64": ["18446744073709551615", "1", "2"]}


@pytest.mark.parametrize("case", list(INTEGER_IDS))
@pytest.mark.parametrize("fmt", [".csv", ".tsv", ".csv.gz"])
def test_canonical_integer_ids_are_integers(tmp_path: Path, fmt: str, case: str) -> None:
    ids = INTEGER_IDS[case]
    path = write(tmp_path / f"r{fmt}", ["user_id", "item_id", "score"],
                 [["1", i, 0.5] for i in ids])
    frame = read_table(path)
    assert frame["item_id"].tolist() == [int(i) for i in ids]
    assert frame["item_id"].dtype.kind in "iu"
    assert frame["user_id"].dtype.kind == "i"


@pytest.mark.parametrize("fmt", [".csv", ".tsv", ".csv.gz"])
def test_headerless_files_read_ids_the_same_way(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / f"r{fmt}"
    sep = "\t" if "tsv" in fmt else ","
    text = "".join(sep.join(r) + "\n" for r in [["1", "0042", "0.9"], ["1", "7", "0.8"]])
    path.write_bytes(gzip.compress(text.encode()) if fmt.endswith(".gz") else text.encode())
    frame = read_table(path)
    assert frame.columns.tolist() == ["user", "item", "score"]
    assert frame["item"].tolist() == ["0042", "7"]
    assert frame["user"].tolist() == [1, 1]


@pytest.mark.parametrize("fmt", [".csv", ".tsv", ".csv.gz"])
def test_an_empty_id_cell_is_a_missing_id(tmp_path: Path, fmt: str) -> None:
    recs = write(tmp_path / f"r{fmt}", ["user_id", "item_id", "score"],
                 [["u1", "", 0.9], ["u1", "NA", 0.8]])
    with pytest.raises(DataError, match=r"item id column 'item_id' has 1 missing values.*line 2"):
        rv.evaluate(str(recs), pd.DataFrame({"user_id": ["u1"], "item_id": ["NA"]}),
                    ["precision@1"])


@pytest.mark.parametrize("fmt", TEXT_FORMATS)
def test_a_leading_zero_is_never_a_hit(tmp_path: Path, fmt: str) -> None:
    """The reported case: "0042" counted as a hit for "42" (Precision@1 = 1.0)."""
    recs = write(tmp_path / f"r{fmt}", ["user_id", "item_id", "score"],
                 [["a", "0042", 0.9], ["a", "0077", 0.8]])
    truth = write(tmp_path / f"t{fmt}", ["user_id", "item_id"], [["a", "42"]])
    if fmt == ".jsonl":  # JSON strings on both sides: compared as strings
        value = rv.evaluate(str(recs), str(truth), ["precision@1"])["Precision@1"]
        assert value == 0.0
    else:  # text "0042" against the integer 42: different types, as for DataFrames
        with pytest.raises(IdTypeMismatchError, match="item ids have different types"):
            rv.evaluate(str(recs), str(truth), ["precision@1"])


def test_plain_integer_data_gives_the_same_numbers_in_every_format(tmp_path: Path) -> None:
    recs = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": [10, 11, 10, 12],
                         "score": [0.9, 0.8, 0.7, 0.6]})
    truth = pd.DataFrame({"user_id": [1, 2], "item_id": [11, 12], "rating": [5, 3]})
    want = rv.evaluate(recs, truth, ["ndcg@2", "mrr"]).to_dict()
    for fmt in FORMATS:
        r = write(tmp_path / f"r{fmt}", list(recs.columns),
                  [list(row) for row in recs.itertuples(index=False)])
        t = write(tmp_path / f"t{fmt}", list(truth.columns),
                  [list(row) for row in truth.itertuples(index=False)])
        assert rv.evaluate(str(r), str(t), ["ndcg@2", "mrr"]).to_dict() == want, fmt


def test_json_strings_and_numbers_mixed_in_one_id_column(tmp_path: Path) -> None:
    path = tmp_path / "mix.jsonl"
    path.write_text('{"user_id": 1, "item_id": 10, "score": 0.9}\n'
                    '{"user_id": "1", "item_id": 11, "score": 0.8}\n')
    truth = pd.DataFrame({"user_id": [1], "item_id": [10]})
    with pytest.raises(IdTypeMismatchError, match=r"mixes value types \['int', 'str'\]"):
        rv.evaluate(str(path), truth, ["ndcg@10"])
    frame = pd.DataFrame({"user_id": [1, "1"], "item_id": [10, 11], "score": [0.9, 0.8]})
    with pytest.raises(IdTypeMismatchError, match=r"mixes value types \['int', 'str'\]"):
        rv.evaluate(frame, truth, ["ndcg@10"])


def test_a_json_string_score_is_not_a_number(tmp_path: Path) -> None:
    path = tmp_path / "sc.jsonl"
    path.write_text('{"user_id": 1, "item_id": 10, "score": 0.9}\n\n'
                    '{"user_id": 1, "item_id": 11, "score": "0.8"}\n')
    truth = pd.DataFrame({"user_id": [1], "item_id": [10]})
    with pytest.raises(SchemaError, match=r"score column 'score' must be numeric.*line 3.*'0.8'"):
        rv.evaluate(str(path), truth, ["ndcg@10"])
    with pytest.raises(SchemaError, match=r"score column 'score' must be numeric"):
        rv.evaluate(pd.DataFrame({"user_id": [1, 1], "item_id": [10, 11],
                                  "score": [0.9, "0.8"]}), truth, ["ndcg@10"])


@pytest.mark.parametrize("text", ["", "\n\n"])
@pytest.mark.parametrize("fmt", [".jsonl", ".json", ".csv"])
def test_an_empty_file_is_empty_input(tmp_path: Path, fmt: str, text: str) -> None:
    path = tmp_path / f"e{fmt}"
    path.write_text(text)
    with pytest.raises(EmptyInputError, match=rf"'{path}' is empty"):
        rv.evaluate(str(path), pd.DataFrame({"user_id": [1], "item_id": [1]}), ["mrr"])


def test_a_json_array_file_reads_as_its_objects(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_text(json.dumps([{"user_id": 1, "item_id": "0042", "score": 0.9},
                                {"user_id": 1, "item_id": "7", "score": 0.8}], indent=1))
    frame = read_table(path)
    assert frame.to_dict("list") == {"user_id": [1, 1], "item_id": ["0042", "7"],
                                     "score": [0.9, 0.8]}


@pytest.mark.parametrize("text", ["[1, 2]\n", '{"user_id": 1, "item_id": 2}\n[1]\n', "{bad\n"])
def test_json_that_is_not_objects_names_the_line(tmp_path: Path, text: str) -> None:
    path = tmp_path / "a.jsonl"
    path.write_text(text)
    with pytest.raises(SchemaError, match=r"(line|element) \d"):
        read_table(path)


# ---- value columns under names that are not aliases -------------------------------------

RECS = [[1, 10, 0.1], [1, 11, 0.2], [1, 12, 0.9], [2, 13, 0.1], [2, 14, 0.8]]
TRUTH = pd.DataFrame({"user_id": [1, 2], "item_id": [12, 14], "rating": [5, 4]})


@pytest.mark.parametrize("fmt", [*FORMATS, "frame"])
@pytest.mark.parametrize("name", ["est", "prob", "value", "logit", "y_pred", "rating"])
def test_an_unnamed_score_column_warns_and_is_an_error_under_strict(
        tmp_path: Path, name: str, fmt: str) -> None:
    cols = ["user_id", "item_id", name]
    recs: Any = (pd.DataFrame(RECS, columns=cols) if fmt == "frame"
                 else str(write(tmp_path / f"r{fmt}", cols, RECS)))
    with pytest.warns(DataWarning, match=rf"no score or rank column.*'{name}'.*Columns\(score"):
        rv.evaluate(recs, TRUTH, ["precision@1"])
    with pytest.raises(DataError, match=rf"'{name}'.*strict=True"):
        rv.evaluate(recs, TRUTH, ["precision@1"], strict=True)
    named = rv.evaluate(recs, TRUTH, ["precision@1"], columns=rv.Columns(score=name))
    assert named["Precision@1"] == 1.0


@pytest.mark.parametrize("fmt", [*FORMATS, "frame"])
@pytest.mark.parametrize("name", ["score", "stars", "clicked"])
def test_an_unnamed_grade_column_warns(tmp_path: Path, name: str, fmt: str) -> None:
    cols = ["user_id", "item_id", name]
    rows = [[1, 10, 1], [1, 11, 5], [2, 13, 2], [2, 14, 5]]
    truth: Any = (pd.DataFrame(rows, columns=cols) if fmt == "frame"
                  else str(write(tmp_path / f"t{fmt}", cols, rows)))
    recs = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": [10, 11, 13, 14],
                         "score": [0.9, 0.2, 0.9, 0.8]})
    with pytest.warns(DataWarning, match=rf"no grade.*every truth row.*'{name}'.*--rating-col"):
        rv.evaluate(recs, truth, ["ndcg@1"])
    with pytest.raises(InvalidParameterError, match=rf"relevance_threshold=4.*'{name}'") as info:
        rv.evaluate(recs, truth, ["ndcg@1"], relevance_threshold=4)
    assert info.value.parameter == "relevance_threshold"
    graded = rv.evaluate(recs, truth, ["ndcg@1"], relevance_threshold=4,
                         columns=rv.Columns(rating=name))
    assert graded["NDCG@1"] == 0.0


def test_no_warning_without_other_numeric_columns() -> None:
    import warnings

    recs = pd.DataFrame({"user_id": [1, 1], "item_id": [10, 11], "timestamp": [5, 6],
                         "note": ["a", "b"]})
    truth = pd.DataFrame({"user_id": [1], "item_id": [11], "timestamp": [3]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rv.evaluate(recs, truth, ["mrr"])


def test_the_cli_notes_the_column_and_refuses_under_strict(tmp_path: Path) -> None:
    recs = write(tmp_path / "r.csv", ["user_id", "item_id", "est"], RECS)
    truth = write(tmp_path / "t.csv", ["user_id", "item_id", "stars"], [[1, 12, 5], [2, 14, 4]])
    args = ["evaluate", str(recs), str(truth), "-m", "precision@1"]
    out = CliRunner().invoke(cli, args)
    assert out.exit_code == 0, out.output
    assert "'est'" in out.output
    assert "'stars'" in out.output
    out = CliRunner().invoke(cli, [*args, "--strict"])
    assert out.exit_code == 2
    assert "'est'" in out.output
    assert "Traceback" not in out.output
    out = CliRunner().invoke(cli, [*args, "-t", "4"])
    assert out.exit_code == 2
    assert "--rating-col" in out.output
    out = CliRunner().invoke(cli, [*args, "--score-col", "est", "--rating-col", "stars",
                                   "-t", "4", "--format", "csv"])
    assert out.exit_code == 0
    assert "Precision@1,1.0" in out.output


# ---- headers -------------------------------------------------------------------------------

@pytest.mark.parametrize("fmt", [".csv", ".tsv", ".csv.gz"])
def test_a_header_of_other_names_is_a_header(tmp_path: Path, fmt: str) -> None:
    """The reported case: 'customer,product' read as data made a phantom user."""
    truth = write(tmp_path / f"t{fmt}", ["customer", "product"], [["c1", "p2"]])
    recs = pd.DataFrame({"user_id": ["c1", "c1"], "item_id": ["p1", "p2"], "score": [.9, .8]})
    with pytest.raises(ColumnNotFoundError, match=r"no user column.*\['customer', 'product'\]"
                                                  r".*read as a header") as info:
        rv.evaluate(recs, str(truth), ["ndcg@2"])
    assert "add a header row" in str(info.value)
    named = rv.evaluate(recs, str(truth), ["ndcg@2"],
                        columns=rv.Columns(truth_user="customer", truth_item="product"))
    assert named["NDCG@2"] == pytest.approx(0.6309297535714575)


HEADERLESS = {
    "numbers": ("1,10\n1,11\n2,12\n", [1, 1, 2]),
    "text ids that repeat": ("u1,i1\nu1,i2\nu2,i1\n", ["u1", "u1", "u2"]),
    "with a numeric grade": ("u1,i1,5\nu2,i2,3\n", ["u1", "u2"]),
}


@pytest.mark.parametrize("case", list(HEADERLESS))
def test_a_file_without_a_header_still_reads(tmp_path: Path, case: str) -> None:
    text, users = HEADERLESS[case]
    path = tmp_path / "t.csv"
    path.write_text(text)
    assert read_table(path, role="truth")["user"].tolist() == users


@pytest.mark.parametrize("header", [" user_id, item_id, score", "User,Item,Score",
                                    "USER_ID , Item_Id ,SCORE"])
@pytest.mark.parametrize("fmt", [".csv", ".tsv", ".csv.gz", ".jsonl", ".parquet"])
def test_names_match_aliases_without_spaces_or_case(tmp_path: Path, header: str,
                                                   fmt: str) -> None:
    names = header.split(",")
    path = write(tmp_path / f"r{fmt}", names, [[1, 12, 0.9], [1, 11, 0.1], [2, 14, 0.5]])
    ev = rv.evaluate(str(path), TRUTH, ["precision@1"])
    assert ev["Precision@1"] == 1.0


def test_an_exact_name_wins_and_two_near_names_are_an_error() -> None:
    truth = pd.DataFrame({"user_id": [1], "item_id": [10]})
    both = pd.DataFrame({"user_id": [1], "item_id": [10], "Score": [0.1], "score": [0.9]})
    assert rv.evaluate(both, truth, ["mrr"])["MRR"] == 1.0
    clash = pd.DataFrame({"User": [1], " user ": [1], "item_id": [10], "score": [0.9]})
    with pytest.raises(ColumnNotFoundError, match=r"'User', ' user '"):
        rv.evaluate(clash, truth, ["mrr"])
    with pytest.raises(ColumnNotFoundError, match=r"did you mean 'Score'"):
        rv.evaluate(both.drop(columns="score"), truth, ["mrr"],
                    columns=rv.Columns(score="SCORE"))


@pytest.mark.parametrize(("fmt", "sep"), [(".csv", ";"), (".csv", "\t"), (".csv", "|"),
                                          (".tsv", ","), (".tsv", ";")])
def test_another_delimiter_is_named(tmp_path: Path, fmt: str, sep: str) -> None:
    path = tmp_path / f"r{fmt}"
    path.write_text(sep.join(["user_id", "item_id", "score"]) + "\n" + sep.join("1a9") + "\n")
    with pytest.raises(SchemaError, match=r"the delimiter seems to be") as info:
        read_table(path)
    assert str(path) in str(info.value)
    assert ".tsv" in str(info.value) or "sep=" in str(info.value) or ".csv" in str(info.value)


# ---- TREC lines of the wrong width -------------------------------------------------------

TREC_WIDTHS = {
    "qrels 5 fields": (".qrels", "1 0 d2 1 9\n1 0 d3 2 9\n", 1, 5),
    "qrels 5 fields later": (".qrels", "1 0 d2 1\n1 0 d3 2 9\n", 2, 5),
    "qrels 3 fields": (".qrels", "1 0 d2 1\n1 0 d3\n", 2, 3),
    "qrels 3 fields first": (".qrels", "1 0 d3\n1 0 d2 1\n", 1, 3),
    "run 7 fields": (".run", "1 Q0 d1 1 2.5 sys x\n1 Q0 d2 2 2.0 sys x\n", 1, 7),
    "run 7 fields later, after a blank line": (".run", "1 Q0 d1 1 2.5 s\n\n1 Q0 d2 2 2 s x\n",
                                               3, 7),
    "run 7 fields after blank lines": (".run", "1 Q0 a 1 2 s\n\n\n1 Q0 b 2 1 s\n1 Q0 c 3 0 s x\n",
                                       5, 7),
    "run 5 fields after blank lines": (".run", "\n1 Q0 a 1 2 s\n\n1 Q0 b 2 1 s\n1 Q0 c 3 0\n",
                                       5, 5),
    "run 5 fields": (".run", "1 Q0 d1 1 2.5 s\n1 Q0 d2 2 2.0\n", 2, 5),
}


@pytest.mark.parametrize("case", list(TREC_WIDTHS))
def test_a_trec_line_of_the_wrong_width_is_named(tmp_path: Path, case: str) -> None:
    fmt, text, line, width = TREC_WIDTHS[case]
    path = tmp_path / f"x{fmt}"
    path.write_text(text)
    kind = "qrels" if fmt == ".qrels" else "run"
    expected = 4 if kind == "qrels" else 6
    with pytest.raises(SchemaError, match=rf"line {line} has {width} fields, a {kind} line "
                                          rf"has {expected} \(query "):
        read_table(path)
