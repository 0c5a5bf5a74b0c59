"""Shared steps of the live beyond-accuracy modules (CI's pandas-2 environment): run a
library's fixture script again on stored cases and on new random ones."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from tests.conformance._data import assert_same_record, fixture_maker, load_fixture
from tests.conformance.conventions._beyond_defs import cases_module

__all__ = ["N_AGAIN", "again", "rerun_stored", "run_new"]

#: stored random cases measured again live (with every hand-made one)
N_AGAIN = 20


def again(fixture: Path) -> list[str]:
    """Names of the stored cases the live module measures again."""
    names = [c["name"] for c in load_fixture(fixture)["cases"]]
    return [n for n in names if n.startswith("edge-")] + [
        n for n in names if n.startswith("random-")][:N_AGAIN]


def rerun_stored(maker: Path, fixture: Path, name: str, key: str) -> None:
    """One stored case measured again by the library equals the stored values."""
    case = next(c for c in load_fixture(fixture)["cases"] if c["name"] == name)
    inputs = {k: v for k, v in case.items() if k != key}
    live = fixture_maker(maker).run_case(inputs)
    assert_same_record(case[key], live[key], name)


def run_new(maker: Path, seed: int, check: Callable[[dict[str, Any]], None]) -> None:
    """A new random case (the fixture's generator, another seed), measured now, checked."""
    case = cases_module().random_case(np.random.default_rng(seed), 0)
    check(fixture_maker(maker).run_case(case))
