"""Input files: text that is not valid in its encoding, and directories with no data file.

Two classes of input (issue 22), each at every door that reads a file (``read_table``,
``evaluate`` / ``split`` given a path, and the commands ``evaluate``, ``compare``,
``report``, ``cv``, ``split``):

- one byte that is not valid UTF-8, in any text format (CSV, TSV, JSON lines, TREC run and
  qrels), plain or compressed: a ``SchemaError`` naming the file, the line, the byte offset
  and the ``encoding=`` option (never ids read as ``b'...'`` bytes); with the right
  ``encoding=`` / ``--encoding`` the file reads;
- a directory with no data file, or with files of another format: an error naming the
  directory and what was looked for.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import re
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pytest
from click.testing import CliRunner

import receval as rv
from receval.cli import cli
from receval.data import read_table
from receval.exceptions import EmptyInputError, InvalidParameterError, SchemaError

# the same rows in each text format; "café" is the id whose é is written in Latin-1
TEXTS: dict[str, tuple[str, str, int]] = {
    # suffix: (template with {id}, the id's column, line of the bad byte)
    ".csv": ("user_id,item_id,rating\n1,a,5\n1,b,4\n2,{id},3\n2,b,1\n", "item_id", 4),
    ".tsv": ("user_id\titem_id\trating\n1\ta\t5\n1\tb\t4\n2\t{id}\t3\n2\tb\t1\n", "item_id", 4),
    ".jsonl": ('{{"user_id": 1, "item_id": "a", "rating": 5}}\n'
               '{{"user_id": 2, "item_id": "{id}", "rating": 3}}\n', "item_id", 2),
    ".run": ("1 Q0 a 1 0.9 x\n2 Q0 {id} 1 0.8 x\n2 Q0 b 2 0.7 x\n", "item", 2),
    ".qrels": ("1 0 a 1\n2 0 {id} 1\n", "item", 2),
}
COMPRESSIONS = ("", ".gz", ".bz2", ".xz", ".zst", ".zip")


def _compress(data: bytes, path: Path) -> None:
    name = path.name
    if name.endswith(".gz"):
        path.write_bytes(gzip.compress(data))
    elif name.endswith(".bz2"):
        path.write_bytes(bz2.compress(data))
    elif name.endswith(".xz"):
        path.write_bytes(lzma.compress(data))
    elif name.endswith(".zst"):
        with pa.CompressedOutputStream(str(path), "zstd") as f:
            f.write(data)
    elif name.endswith(".zip"):
        with zipfile.ZipFile(path, "w") as z:
            z.writestr(path.name.removesuffix(".zip"), data)
    else:
        path.write_bytes(data)


def latin1_file(tmp: Path, suffix: str, compression: str = "") -> Path:
    """A file whose one id is 'café' in Latin-1 (the byte 0xe9: not valid UTF-8)."""
    template = TEXTS[suffix][0]
    path = tmp / f"data{suffix}{compression}"
    _compress(template.format(id="café").encode("latin-1"), path)
    return path


def _bad_offset(suffix: str) -> int:
    template = TEXTS[suffix][0].format(id="café").encode("latin-1")
    return template.index(b"\xe9")


@pytest.mark.parametrize("compression", COMPRESSIONS)
@pytest.mark.parametrize("suffix", list(TEXTS))
def test_read_table_names_file_line_offset_and_option(tmp_path: Path, suffix: str,
                                                      compression: str) -> None:
    path = latin1_file(tmp_path, suffix, compression)
    with pytest.raises(SchemaError) as info:
        read_table(path)
    message = str(info.value)
    line = TEXTS[suffix][2]
    assert str(path) in message
    assert f"line {line}, byte offset {_bad_offset(suffix)}" in message
    assert "encoding=" in message
    assert "not valid utf-8" in message
    assert info.value.parameter == "encoding"
    # the right encoding reads the id as text
    frame = read_table(path, encoding="latin-1")
    assert "café" in frame[TEXTS[suffix][1]].tolist()


def test_an_invalid_byte_in_the_header_or_in_a_number(tmp_path: Path) -> None:
    header = tmp_path / "h.csv"
    header.write_bytes(b"user_id,item\xff_id\n1,2\n")
    with pytest.raises(SchemaError, match="line 1, byte offset 12"):
        read_table(header)
    number = tmp_path / "n.csv"
    number.write_bytes(b"user_id,item_id,score\n1,2,0.5\n1,3,0.\xff4\n")
    with pytest.raises(SchemaError, match="line 3, byte offset 36"):
        read_table(number)


def test_bytes_undefined_in_the_encoding_given(tmp_path: Path) -> None:
    path = tmp_path / "x.csv"
    path.write_bytes(b"user_id,item_id\n1,a\x81b\n")  # 0x81 is undefined in cp1252
    with pytest.raises(SchemaError, match=r"line 2, byte offset 19 is not valid cp1252"):
        read_table(path, encoding="cp1252")


def test_an_unknown_encoding(tmp_path: Path) -> None:
    path = latin1_file(tmp_path, ".csv")
    with pytest.raises(InvalidParameterError, match="encoding='klingon'") as info:
        read_table(path, encoding="klingon")
    assert info.value.parameter == "encoding"


LIBRARY_DOORS: dict[str, Callable[[Path], Any]] = {
    "evaluate recs": lambda p: rv.evaluate(p, pd.DataFrame({"user_id": [1], "item_id": ["a"]}),
                                           ["precision@1"]),
    "evaluate truth": lambda p: rv.evaluate(
        pd.DataFrame({"user_id": [1], "item_id": ["a"], "score": [1.0]}), p, ["precision@1"]),
    "evaluate train": lambda p: rv.evaluate(
        pd.DataFrame({"user_id": [1], "item_id": ["a"], "score": [1.0]}),
        pd.DataFrame({"user_id": [1], "item_id": ["a"]}), ["novelty@1"], train=p),
    "split.random": lambda p: rv.split.random(p, 0.5),
    "split.kfold": lambda p: rv.split.kfold(p, 2),
    "cross_validate": lambda p: rv.cross_validate({"pop": rv.models.MostPopular()}, p,
                                                  ["recall@1"], split=rv.split.kfold, k=1),
    "negatives": lambda p: rv.sampled.negatives(p, 1, items=["a", "b", "x"]),
}


@pytest.mark.parametrize("door", list(LIBRARY_DOORS))
def test_every_library_door_names_the_file(tmp_path: Path, door: str) -> None:
    path = latin1_file(tmp_path, ".csv")
    with pytest.raises(SchemaError) as info:
        LIBRARY_DOORS[door](path)
    assert str(path) in str(info.value)
    assert "line 4" in str(info.value)


def _good(tmp: Path, name: str, frame: pd.DataFrame) -> Path:
    path = tmp / name
    frame.to_csv(path, index=False)
    return path


def _cli_args(tmp: Path, bad: Path) -> dict[str, list[str]]:
    truth = _good(tmp, "truth.csv", pd.DataFrame({"user_id": [1, 2], "item_id": ["a", "b"]}))
    recs = _good(tmp, "recs.csv", pd.DataFrame({"user_id": [1, 2], "item_id": ["a", "café"],
                                                "score": [1.0, 0.5]}))
    m = ["-m", "precision@1"]
    return {
        "evaluate recs": ["evaluate", str(bad), str(truth), *m],
        "evaluate truth": ["evaluate", str(recs), str(bad), *m],
        "evaluate --train": ["evaluate", str(recs), str(truth), "-m", "novelty@1",
                             "--train", str(bad)],
        "evaluate --item-features": ["evaluate", str(recs), str(truth), "-m", "diversity@1",
                                     "--item-features", str(bad)],
        "compare truth": ["compare", str(bad), str(recs), *m],
        "compare run": ["compare", str(truth), str(bad), *m],
        "report": ["report", str(bad), str(truth), *m, "-o", str(tmp / "r.html")],
        "report --train": ["report", str(recs), str(truth), *m, "--train", str(bad),
                           "-o", str(tmp / "r.html")],
        "cv": ["cv", str(bad), "--model", "popular", "-m", "recall@1", "--folds", "2"],
        "split": ["split", str(bad), "-o", str(tmp / "tr.csv"), "-o", str(tmp / "te.csv")],
    }


@pytest.mark.parametrize("door", ["evaluate recs", "evaluate truth", "evaluate --train",
                                  "evaluate --item-features", "compare truth", "compare run",
                                  "report", "report --train", "cv", "split"])
def test_every_command_names_the_file_and_writes_nothing(tmp_path: Path, door: str) -> None:
    bad = latin1_file(tmp_path, ".csv")
    before = set(tmp_path.iterdir())
    args = _cli_args(tmp_path, bad)[door]
    out = CliRunner().invoke(cli, args)
    assert out.exit_code == 2, out.output
    assert str(bad) in out.output
    assert "line 4, byte offset" in out.output
    assert "--encoding" in out.output
    assert "Traceback" not in out.output
    made = set(tmp_path.iterdir()) - before - {tmp_path / "truth.csv", tmp_path / "recs.csv"}
    assert made == set()


def test_split_with_the_right_encoding_keeps_the_ids_as_text(tmp_path: Path) -> None:
    """The reported case: one Latin-1 byte turned every id of the column into b'...'."""
    bad = latin1_file(tmp_path, ".csv")
    train, test = tmp_path / "train.csv", tmp_path / "test.csv"
    out = CliRunner().invoke(cli, ["split", str(bad), "--test-size", "0.5", "--encoding",
                                   "latin-1", "-o", str(train), "-o", str(test)])
    assert out.exit_code == 0, out.output
    ids = pd.concat([pd.read_csv(train), pd.read_csv(test)])["item_id"].tolist()
    assert sorted(ids) == ["a", "b", "b", "café"]
    assert not any(str(i).startswith("b'") for i in ids)


def test_evaluate_with_the_right_encoding(tmp_path: Path) -> None:
    bad = latin1_file(tmp_path, ".csv")
    recs = tmp_path / "recs.csv"  # --encoding is that of every input of the command
    recs.write_bytes("user_id,item_id,score\n1,b,1\n2,café,1\n".encode("latin-1"))
    out = CliRunner().invoke(cli, ["evaluate", str(recs), str(bad), "-m", "precision@1",
                                   "--encoding", "latin-1", "--format", "json"])
    assert out.exit_code == 0, out.output
    assert '"value": 1.0' in out.stdout  # user 1: b is relevant; user 2: café is


# --- directories --------------------------------------------------------------------------

def _dir(tmp: Path, files: dict[str, bytes]) -> Path:
    d = tmp / "dataset"
    d.mkdir()
    for name, data in files.items():
        (d / name).parent.mkdir(parents=True, exist_ok=True)
        (d / name).write_bytes(data)
    return d


DIRECTORIES = {
    "empty": ({}, EmptyInputError, "has no data file"),
    "hidden files only": ({".keep": b"", "_SUCCESS": b""}, EmptyInputError,
                          "has no data file"),
    "csv files": ({"a.csv": b"user_id,item_id\n1,2\n", "b/c.csv": b"user_id,item_id\n1,2\n"},
                  SchemaError, "holds 2 files of another format ('a.csv', 'b/c.csv')"),
}

DIRECTORY_DOORS: dict[str, Callable[[Path], Any]] = {
    "read_table": lambda d: read_table(d),
    "evaluate": lambda d: rv.evaluate(d, d, ["precision@1"]),
    "evaluate buckets": lambda d: rv.evaluate(d, d, ["precision@1"], buckets=2),
    "split": lambda d: rv.split.random(d),
}


@pytest.mark.parametrize("door", list(DIRECTORY_DOORS))
@pytest.mark.parametrize("case", list(DIRECTORIES))
def test_a_directory_without_data_names_the_path(tmp_path: Path, case: str,
                                                 door: str) -> None:
    files, error, text = DIRECTORIES[case]
    d = _dir(tmp_path, files)
    with pytest.raises(error, match=re.escape(text)) as info:
        DIRECTORY_DOORS[door](d)
    assert repr(str(d)) in str(info.value)
    assert "Parquet" in str(info.value)


@pytest.mark.parametrize("command", ["evaluate", "split", "cv"])
def test_a_directory_without_data_on_the_command_line(tmp_path: Path, command: str) -> None:
    d = _dir(tmp_path, {})
    args = {"evaluate": ["evaluate", str(d), str(d), "-m", "precision@1"],
            "split": ["split", str(d)],
            "cv": ["cv", str(d), "--model", "popular", "-m", "recall@1"]}[command]
    out = CliRunner().invoke(cli, args)
    assert out.exit_code == 2
    assert f"the directory {str(d)!r} has no data file" in out.output


def test_a_directory_of_parquet_files_reads(tmp_path: Path) -> None:
    d = _dir(tmp_path, {"_SUCCESS": b""})
    pd.DataFrame({"user_id": [1], "item_id": [2]}).to_parquet(d / "part-0.parquet")
    pd.DataFrame({"user_id": [3], "item_id": [4]}).to_parquet(d / "part-1.parquet")
    assert read_table(d)["user_id"].tolist() == [1, 3]
