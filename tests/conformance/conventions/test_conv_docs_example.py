"""The libraries' own numbers on the worked example of docs/conventions.md.

``docs/example/libraries.json`` holds, for each library with a convention (Elliot is not
installable), the library's own mean of precision@3, recall@3, ap@3, ndcg@3, mrr@3 and
hit_rate@3 on ``docs/example/recs.csv`` and ``truth.csv``, written by
``docs/example/make_library_values.py`` (run in the main and in the pandas-2 environment).

* Every library importable here is measured again by the script's functions and must equal
  the file (1e-12; torchmetrics 1e-6, it computes in float32). The parameters are the
  importable libraries only, so nothing is skipped; at least one must be importable.
* Every recorded number is compared with receval's under that library's convention
  (``rv.conventions.side_by_side``): equal to 1e-9 (torchmetrics to 1e-6, float32), or the
  cell is in ``MISMATCHES`` with the preset's ``differences`` entry that explains it.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import receval as rv
from receval.conventions._fairness_presets import FAIRNESS_PRESETS
from tests.conformance._data import fixture_maker

pytestmark = pytest.mark.conformance

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "docs" / "example"
MAKER = EXAMPLE / "make_library_values.py"
RECORDED: dict[str, dict[str, Any]] = json.loads(
    (EXAMPLE / "libraries.json").read_text(encoding="utf-8"))
MAKE = fixture_maker(MAKER)  # the script as a module (it imports a library only when asked)
#: the libraries importable here (find_spec of each library's import)
LIVE: list[str] = MAKE.available()

#: tolerance of the live recomputation, and of the comparison with receval
LIVE_TOL = {"torchmetrics": 1e-6}
RECEVAL_TOL = {"torchmetrics": 1e-6}

# -- the preset differences that explain a cell, quoted from _presets.py ----------------------

LENSKIT_AP = (
    "AveragePrecision raises ZeroDivisionError for a user with recommendations and no "
    "truth (which list_summary otherwise scores 0); receval scores that user 0")
EVIDENTLY_TIES = (
    "ties: Evidently ranks scores with groupby.rank (average) truncated to an integer, so "
    "tied items share a rank and a top k can hold more than k items; receval ranks every "
    "item on its own place")
EVIDENTLY_MAP = (
    "MAP: at each j <= k Evidently multiplies P@j by the target of the last row (in frame "
    "order) ranked <= j, so a list shorter than k or a tie counts an item again (MAP can "
    "exceed 1) and the value depends on row order; receval computes the AP it documents")

#: (library, metric) -> (the library's value, or its error; receval's value; the difference)
#: values rounded to 6 digits
MISMATCHES: dict[tuple[str, str], tuple[float | str | None, float | None, str]] = {
    # u4 has recommendations and no truth: AveragePrecision divides by min(0, 2) and stops
    # RunAnalysis; receval scores u4 0: (0.5556 + 0.5 + 0) / 3
    ("lenskit", "ap@3"): ("ZeroDivisionError: float division by zero", 0.351852, LENSKIT_AP),
    # u1's tied i2 (not relevant) and i3 (relevant) share rank int(2.5) = 2, and P@3 is
    # multiplied by i3's target again; u2's list of 2 counts i6 again at j = 3:
    # u1 0.8889 (receval 0.5556), u2 1.0 (receval 0.5)
    ("evidently", "ap@3"): (0.944444, 0.527778, EVIDENTLY_MAP),
    # the relevant i3 shares rank 2 with i2: u1 0.9377 (receval, i3 third: 0.8724)
    ("evidently", "ndcg@3"): (0.784307, 0.751672, EVIDENTLY_TIES),
}


def _round(value: float | None) -> float | None:
    return None if value is None or math.isnan(value) else round(value, 6)


def test_some_library_is_importable() -> None:
    assert LIVE, "no library of docs/example/libraries.json is importable here"


def test_script_and_file_cover_every_library() -> None:
    """Every library the script knows is recorded, with every metric, and every missing
    value says why (an error or a note)."""
    assert list(RECORDED) == list(MAKE.LIBRARIES)
    assert set(RECORDED) == {c.name for c in map(rv.conventions.get, rv.conventions.available())
                             if c.name != "elliot" and c.name not in FAIRNESS_PRESETS}
    for name, record in RECORDED.items():
        assert list(record["values"]) == MAKE.METRICS, name
        for metric, value in record["values"].items():
            if value is None:
                assert metric in record["errors"] or metric in record["notes"], (name, metric)


@pytest.mark.parametrize("library", LIVE)
def test_recorded_values_are_the_librarys_own(library: str) -> None:
    """The library, measured now by the script's functions, gives the recorded record."""
    stored = RECORDED[library]
    live = MAKE.measure(library)
    assert live["version"] == stored["version"]
    assert live["errors"] == stored["errors"]
    tol = LIVE_TOL.get(library, 1e-12)
    for metric, value in stored["values"].items():
        now = live["values"][metric]
        if value is None or now is None:
            assert value is None, f"{library} {metric}: recorded {value}, now {now}"
            assert now is None, f"{library} {metric}: recorded {value}, now {now}"
        else:
            assert math.isclose(now, value, rel_tol=tol, abs_tol=tol), \
                f"{library} {metric}: recorded {value!r}, now {now!r}"


def _receval_values() -> pd.DataFrame:
    recs = pd.read_csv(EXAMPLE / "recs.csv")
    truth = pd.read_csv(EXAMPLE / "truth.csv")
    return rv.conventions.side_by_side(recs, truth, MAKE.METRICS, conventions=list(RECORDED)).values


def test_library_values_are_receval_or_a_listed_difference() -> None:
    """Each recorded number equals receval's under the library's convention, or the cell is
    one of ``MISMATCHES``, explained by a difference its preset lists."""
    ours = _receval_values()
    found: dict[tuple[str, str], tuple[float | str | None, float | None]] = {}
    for library, record in RECORDED.items():
        tol = RECEVAL_TOL.get(library, 1e-9)
        for metric, theirs in record["values"].items():
            mine = float(ours.loc[metric, library])
            if theirs is None and math.isnan(mine):
                continue  # offered by neither
            if theirs is not None and not math.isnan(mine) and math.isclose(
                    theirs, mine, rel_tol=tol, abs_tol=tol):
                continue
            library_side = record["errors"].get(metric) if theirs is None else _round(theirs)
            found[library, metric] = (library_side, _round(mine))
    assert found == {cell: (theirs, mine) for cell, (theirs, mine, _) in MISMATCHES.items()}
    for (library, _), (*_, difference) in MISMATCHES.items():
        assert difference in rv.conventions.get(library).differences, (library, difference)
