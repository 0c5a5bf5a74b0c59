"""Beyond-accuracy definitions of Microsoft Recommenders, Evidently and recmetrics, checked
against the values each library produced on the cases of ``fixtures/beyond_cases.py``.

The three libraries need pandas 2 (Microsoft Recommenders 1.2.1 runs under pandas 3 but
gives wrong per-user diversity and serendipity there: its ``fillna(0, inplace=True)`` on a
column is ignored under copy-on-write), so CI's main environment reads their values from the
fixtures (``fixtures/make_beyond_<library>.py``; header: version and command), and CI's
pandas-2 environment runs the scripts again (``test_conv_beyond_*_live.py``).

Each library's definition is written out in ``_beyond_defs`` (and in
``docs/beyond-accuracy-libraries.md``); this module checks every stored value, per user and
mean, of the 200 random and 2 hand-made cases against it to 1e-12 (1e-9 where a library
computes a cosine through sklearn's normalisation).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from tests.conformance._data import load_fixture
from tests.conformance.conventions._beyond_defs import (
    cases_module,
    elliot_defs,
    evidently_defs,
    msr_defs,
    recmetrics_defs,
)

pytestmark = pytest.mark.conformance

FIXTURES = Path(__file__).parent / "fixtures"
MSR = FIXTURES / "beyond_ms_recommenders.json.gz"
EVIDENTLY = FIXTURES / "beyond_evidently.json.gz"
RECMETRICS = FIXTURES / "beyond_recmetrics.json.gz"
ELLIOT = FIXTURES / "beyond_elliot.json.gz"
TOL = 1e-9


def same(written: Any, stored: Any, what: str) -> None:
    """A stored JSON value (None = NaN) equals the written definition's value."""
    if isinstance(stored, dict):
        assert isinstance(written, dict), what
        assert set(map(str, written)) == set(stored), f"{what}: users {sorted(written)} " \
                                                      f"!= {sorted(stored)}"
        for key, value in stored.items():
            same(written[key], value, f"{what} {key}")
    elif isinstance(stored, list):
        assert len(written) == len(stored), what
        for j, (a, b) in enumerate(zip(written, stored, strict=True)):
            same(a, b, f"{what}[{j}]")
    elif stored is None or written is None:
        assert stored is None, f"{what}: written {written!r}, stored {stored!r}"
        assert written is None or math.isnan(float(written)), f"{what}: written {written!r}"
    else:
        assert math.isclose(float(written), float(stored), rel_tol=TOL, abs_tol=TOL), \
            f"{what}: written {written!r} != stored {stored!r}"


def check_msr(case: dict[str, Any]) -> None:
    """Every stored MS Recommenders value of one case."""
    for k, values in case["msr"].items():
        written = msr_defs(case, int(k))
        for key, value in values.items():
            same(written[key], value, f"{case['name']} {key}@{k}")


def check_evidently(case: dict[str, Any]) -> None:
    """Every stored Evidently value of one case."""
    for k, entry in case["evidently"].items():
        written = evidently_defs(case, int(k))
        for key, value in entry["report"].items():
            mean = written[key][0] if isinstance(written[key], tuple) else written[key]
            same(mean, value, f"{case['name']} {key}@{k}")
        for key, users in entry["per_user"].items():
            # the script's per-user ARP is get_apr on the user's rows alone: NaN (null) for a
            # user without a training item in the top k, who is no term of the mean
            users = {u: v for u, v in users.items() if v is not None or key != "arp"}
            same(written[key][1], users, f"{case['name']} {key}@{k} per user")


def check_recmetrics(case: dict[str, Any]) -> None:
    """Every stored recmetrics value of one case."""
    for k, values in case["recmetrics"].items():
        written = recmetrics_defs(case, int(k))
        nov = values["novelty"]
        if nov is None:
            assert written["novelty"] is None, f"{case['name']}: recmetrics raised"
        else:
            same(written["novelty"], nov["mean"], f"{case['name']} novelty@{k}")
            same(written["novelty_per_list"], nov["per_list"], f"{case['name']} novelty@{k}")
        for key in ("personalization", "intra_list_similarity", "prediction_coverage"):
            same(written[key], values[key], f"{case['name']} {key}@{k}")


def check_elliot(case: dict[str, Any]) -> None:
    """Every stored Elliot value of one case (null: no list of training items)."""
    if case["elliot"] is None:
        assert elliot_defs(case, case["ks"][0]) is None, case["name"]
        return
    for ratio, by_k in case["elliot"].items():
        for k, values in by_k.items():
            written = elliot_defs(case, int(k), float(ratio))
            assert written is not None
            for key, value in values.items():
                what = f"{case['name']} {key}@{k} pop_ratio={ratio}"
                if isinstance(value, dict):
                    same(written[key][0], value["mean"], what)
                    same(written[key][1], value["per_user"], what)
                else:
                    same(written[key], value, what)


LIBRARIES = [(MSR, check_msr), (EVIDENTLY, check_evidently), (RECMETRICS, check_recmetrics),
             (ELLIOT, check_elliot)]
IDS = ["ms_recommenders", "evidently", "recmetrics", "elliot"]


def _stored(path: Path) -> list[dict[str, Any]]:
    return list(load_fixture(path)["cases"])


@pytest.mark.parametrize(("path", "check"), LIBRARIES, ids=IDS)
def test_fixture_holds_the_cases_of_the_seed(path: Path, check: Any) -> None:
    """The stored inputs are ``beyond_cases``' (200 random + the hand-made ones)."""
    make = cases_module()
    drawn = [*make.edge_cases(), *make.random_cases()]
    stored = _stored(path)
    assert len(stored) == len(drawn) == make.N_RANDOM + 2
    for a, b in zip(stored, drawn, strict=True):
        assert {key: a[key] for key in b} == b, a["name"]


@pytest.mark.slow
@pytest.mark.parametrize(("path", "check"), LIBRARIES, ids=IDS)
def test_written_definitions_match_stored_values(path: Path, check: Any) -> None:
    """Every stored value, per user and mean, of every case and cutoff."""
    for case in _stored(path):
        check(case)
