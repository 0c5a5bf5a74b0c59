"""Conformance of ``convention="lenskit"`` with LensKit itself, run live.

LensKit 2025.8.1 needs pandas 2, so this module runs where LensKit is installed: CI's
pandas-2 environment (``.ci/run``). It uses the fixture's script
(``fixtures/make_lenskit.py``) to run LensKit, so the live values and the stored ones come
from the same code:

* the whole fixture is generated again from its seed and must equal the stored file (the
  fixture is what this LensKit produces, not a snapshot of an older one);
* 200 new random cases, drawn by hypothesis and measured by LensKit's ``RunAnalysis`` now,
  are compared with receval by the fixture module's checks (every user to 1e-12 and the
  mean, every metric at every k and without a cutoff, RMSE and MAE).
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conformance._data import assert_same_record, fixture_maker, load_fixture
from tests.conformance.conventions import test_conv_lenskit as stored

pytestmark = [pytest.mark.conformance, pytest.mark.usefixtures("library_noise_ignored")]

MAKER = Path(__file__).parent / "fixtures" / "make_lenskit.py"


def _maker() -> ModuleType:
    return fixture_maker(MAKER)


def test_installed_version_is_the_fixtures() -> None:
    import lenskit  # type: ignore[import-not-found]

    assert lenskit.__version__ == load_fixture(stored.FIXTURE)["header"]["version"]


def test_fixture_is_what_lenskit_produces() -> None:
    """Every stored case, generated again from the seed, equals the file."""
    make = _maker()
    rng = np.random.default_rng(make.SEED)
    cases = [make.random_case(rng, j) for j in range(make.N_RANDOM)] + make.edge_cases()
    live = [make.run_case(case, rng) for case in cases]
    assert_same_record(load_fixture(stored.FIXTURE)["cases"], live, "cases")


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**63 - 1))
def test_new_random_cases_match_lenskit_live(seed: int) -> None:
    """A new random case (the fixture's generator, another seed), measured by LensKit now."""
    make = _maker()
    rng = np.random.default_rng(seed)
    case: dict[str, Any] = make.run_case(make.random_case(rng, 0), rng)
    stored._check(case)
    stored._check_ratings(case)
