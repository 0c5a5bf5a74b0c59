"""Output paths checked up front and written whole; warnings attributed to the caller."""

from __future__ import annotations

import warnings
from pathlib import Path

import pandas as pd
import pytest

import receval as rv
from receval._paths import atomic_write, check_output, check_outputs
from receval.exceptions import OutputPathError, RecevalWarning, warn


def _bad_paths(tmp: Path) -> dict[str, tuple[Path, str]]:
    (tmp / "afile").write_text("x")
    (tmp / "adir").mkdir()
    return {
        "missing directory": (tmp / "nope" / "out.csv", "does not exist"),
        "a directory": (tmp / "adir", "is a directory"),
        "under a file": (tmp / "afile" / "out.csv", "which is a file"),
        "under a file, deeper": (tmp / "afile" / "a" / "b.csv", "which is a file"),
    }


@pytest.mark.parametrize("case", ["missing directory", "a directory", "under a file",
                                  "under a file, deeper"])
def test_bad_output_paths_are_named(tmp_path: Path, case: str) -> None:
    path, rule = _bad_paths(tmp_path)[case]
    with pytest.raises(OutputPathError, match=rule) as info:
        check_output(path, parameter="--output")
    assert info.value.parameter == "--output"
    assert str(path) in str(info.value)


def test_an_output_that_is_an_input_or_another_output(tmp_path: Path) -> None:
    data = tmp_path / "data.csv"
    data.write_text("user_id,item_id\n1,2\n")
    with pytest.raises(OutputPathError, match="is the input data"):
        check_output(data, parameter="-o", inputs={"data": str(data), "k": 10})
    same = tmp_path / "train.csv"
    with pytest.raises(OutputPathError, match="-o test and -o train are the same file"):
        check_outputs({"-o train": same, "-o test": tmp_path / "." / "train.csv"})
    assert check_outputs({"a": tmp_path / "a.csv", "b": None}) == {"a": tmp_path / "a.csv"}


def _fail_half_way(out: Path) -> None:
    with atomic_write(out) as tmp:
        tmp.write_text("half")
        raise RuntimeError("boom")


def test_atomic_write_leaves_nothing_on_error(tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    with pytest.raises(RuntimeError):
        _fail_half_way(out)
    assert list(tmp_path.iterdir()) == []
    out.write_text("before")
    with pytest.raises(RuntimeError):
        _fail_half_way(out)
    assert out.read_text() == "before"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]
    with atomic_write(out) as tmp:
        tmp.write_text("after")
    assert out.read_text() == "after"


def test_warn_points_at_the_callers_line() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warn("hello", RecevalWarning)  # this line
    assert caught[0].filename == __file__
    assert caught[0].category is RecevalWarning


def test_engine_warnings_point_at_the_callers_line() -> None:
    recs = pd.DataFrame({"user": [1, 1, 2], "item": [1, 2, 1], "score": [1.0, 1.0, 0.5]})
    truth = pd.DataFrame({"user": [1, 2, 3], "item": [2, 1, 1]})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rv.evaluate(recs, truth, ["precision@1"])
    assert caught
    assert {w.filename for w in caught} == {__file__}


def test_atomic_write_gives_the_permissions_of_a_plain_open(tmp_path: Path) -> None:
    # mkstemp makes 0o600 files; an output must be as readable as open(path, "w") makes it
    plain = tmp_path / "plain.txt"
    plain.write_text("x")
    out = tmp_path / "atomic.txt"
    with atomic_write(out) as tmp:
        tmp.write_text("x")
    assert out.stat().st_mode & 0o777 == plain.stat().st_mode & 0o777
