"""Beyond-accuracy conformance with Microsoft Recommenders 1.2.1, Evidently 0.7.23 and
recmetrics 0.1.5, run live in CI's pandas-2 environment (all three need pandas 2: see
``test_conv_beyond_fixtures.py``).

Runs each library's ``fixtures/make_beyond_<library>.py`` (the script that wrote its fixture):
the hand-made cases and the first 20 random ones are measured again and must equal the
stored values, and 30 new random cases per library (the fixture's generator, seeds drawn by
hypothesis) are measured now and checked against the written definitions
(``test_conv_beyond_fixtures.check_<library>``) and, for MS Recommenders and Evidently,
against receval under the library's convention (``test_conv_beyond_presets``). The other
stored cases are checked by ``test_conv_beyond_fixtures.py`` and
``test_conv_beyond_presets.py`` in every environment.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conformance._data import assert_same_record, fixture_maker, load_fixture
from tests.conformance.conventions import test_conv_beyond_presets as presets
from tests.conformance.conventions._beyond_live import again, rerun_stored, run_new
from tests.conformance.conventions.test_conv_beyond_fixtures import (
    EVIDENTLY,
    MSR,
    RECMETRICS,
    check_evidently,
    check_msr,
    check_recmetrics,
)

with warnings.catch_warnings():  # recmetrics' plotting imports warn on deprecations
    warnings.simplefilter("ignore")
    import evidently  # type: ignore[import-not-found]
    import recmetrics  # type: ignore[import-not-found]  # noqa: F401
    import recommenders  # type: ignore[import-not-found]

pytestmark = [pytest.mark.conformance, pytest.mark.usefixtures("library_noise_ignored")]

MAKERS = Path(__file__).parent / "fixtures"
#: library -> (fixture, its script, the key of its values, the check)
LIBRARIES: dict[str, tuple[Path, Path, str, Callable[[dict[str, Any]], None]]] = {
    "ms_recommenders": (MSR, MAKERS / "make_beyond_ms_recommenders.py", "msr",
                        lambda case: (check_msr(case), presets.check_msr(case))),
    "evidently": (EVIDENTLY, MAKERS / "make_beyond_evidently.py", "evidently",
                  lambda case: (check_evidently(case), presets.check_evidently(case))),
    "recmetrics": (RECMETRICS, MAKERS / "make_beyond_recmetrics.py", "recmetrics",
                   check_recmetrics),
}


FINDINGS = MAKERS / "beyond_findings.json.gz"


def test_installed_versions_are_the_fixtures() -> None:
    """pandas 2 (MS Recommenders is wrong under 3) and the fixtures' library versions."""
    assert pd.__version__.startswith("2.")
    assert recommenders.__version__ == load_fixture(MSR)["header"]["version"]
    assert evidently.__version__ == load_fixture(EVIDENTLY)["header"]["version"]
    assert load_fixture(FINDINGS)["header"]["versions"] == {
        "recommenders": recommenders.__version__, "evidently": evidently.__version__}


@pytest.mark.parametrize("name", [c["name"] for c in load_fixture(FINDINGS)["cases"]])
def test_findings_fixture_is_what_the_libraries_produce(name: str) -> None:
    """Each hand-made case of ``beyond_findings.json.gz`` (features, items without them,
    short lists, items outside train, repeated training rows) measured again by MS
    Recommenders or Evidently equals the stored values that
    ``test_conv_beyond_findings.py`` compares the conventions with."""
    case = next(c for c in load_fixture(FINDINGS)["cases"] if c["name"] == name)
    inputs = {k: v for k, v in case.items() if k != "values"}
    live = fixture_maker(MAKERS / "make_beyond_findings.py").run_case(inputs)
    assert_same_record(case["values"], live["values"], name)


@pytest.mark.parametrize(("library", "name"), [(lib, name) for lib, spec in LIBRARIES.items()
                                               for name in again(spec[0])])
def test_fixture_is_what_the_library_produces(library: str, name: str) -> None:
    """One stored case measured again equals the stored values."""
    fixture, maker, key, _ = LIBRARIES[library]
    rerun_stored(maker, fixture, name, key)


@pytest.mark.slow
@pytest.mark.parametrize("library", list(LIBRARIES))
def test_new_random_cases_match_the_written_definitions(library: str) -> None:
    """30 new random cases, measured by the library now."""
    _, maker, _, check = LIBRARIES[library]

    @settings(max_examples=30, deadline=None)
    @given(seed=st.integers(0, 2**63 - 1))
    def one(seed: int) -> None:
        run_new(maker, seed, check)
    one()
