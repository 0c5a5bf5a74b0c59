"""Conformance of ``convention="evidently"`` with Evidently itself, run live.

Evidently 0.7.23 needs pandas < 3, so this module runs where Evidently is installed: CI's
pandas-2 environment (``.ci/run``). It runs Evidently through the fixture's script
(``fixtures/make_evidently.py``), so the live values and the stored ones come from the same
code. A Report takes about a second per case (one for the whole frame, one per user), so:

* every hand-made case and the first 20 random cases of the fixture are measured again
  and must equal the stored values (the fixture is what this Evidently produces);
* 30 new random cases, drawn by hypothesis and measured by Evidently now, are compared with
  receval by the fixture module's checks (every user to 1e-12 and the whole frame's value).

The other 190 stored random cases are checked against receval by ``test_conv_evidently.py``
in every environment.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conformance._data import (
    assert_same_record,
    fixture_maker,
    inputs_of,
    load_fixture,
)
from tests.conformance.conventions import test_conv_evidently as stored

pytestmark = [pytest.mark.conformance, pytest.mark.usefixtures("library_noise_ignored")]

MAKER = Path(__file__).parent / "fixtures" / "make_evidently.py"
INPUTS = ("name", "recs", "truth", "ks", "min_rel_score", "sort_frame")
N_AGAIN = 20


def _maker() -> ModuleType:
    return fixture_maker(MAKER)


def _again() -> list[str]:
    return [*stored._cases("random-")[:N_AGAIN], *stored._cases("edge-")]


def test_installed_version_is_the_fixtures() -> None:
    import evidently  # type: ignore[import-not-found]

    assert evidently.__version__ == load_fixture(stored.FIXTURE)["header"]["version"]


def test_fixture_inputs_come_from_the_seed() -> None:
    """The stored random cases are the script's, drawn from its seed."""
    make = _maker()
    rng = np.random.default_rng(make.SEED)
    drawn = [make.random_case(rng, j) for j in range(make.N_RANDOM)]
    for case in drawn:
        kept = stored._case(case["name"])
        # the script stores the rows in its frame order (sorted by user, then score)
        assert sorted(map(tuple, kept["recs"])) == sorted(map(tuple, case["recs"]))
        assert kept["truth"] == case["truth"]
        assert kept["ks"] == case["ks"]


@pytest.mark.parametrize("name", _again())
def test_fixture_is_what_evidently_produces(name: str) -> None:
    """One stored case measured again by Evidently equals the stored values."""
    case = stored._case(name)
    live = _maker().run_case(inputs_of(case, INPUTS))
    assert_same_record(case, live, name)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**63 - 1))
def test_new_random_cases_match_evidently_live(seed: int) -> None:
    """A new random case (the fixture's generator, another seed), measured by Evidently now."""
    make = _maker()
    case: dict[str, Any] = make.run_case(make.random_case(np.random.default_rng(seed), 0))
    stored._check(case)
