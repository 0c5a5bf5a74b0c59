"""Collect an adapter's live module only where its library is installed.

``pip install ".[test,implicit,cornac]"`` runs the implicit and Cornac modules (CI's main
environment, pandas 3); LensKit 2025.8 needs pandas 2, so its module runs in CI's pandas-2
environment (``.ci/run``). As in ``tests/conformance/conventions``,
``RECEVAL_REQUIRE_CONFORMANCE`` (set by CI) makes a missing library an error, not a module
left out: ``1`` requires the main environment's libraries (implicit, cornac), a
comma-separated list of imports (``lenskit,...``) requires those. The header of the test run
names the modules left out.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.live_libraries import left_out, quiet_library

#: module -> the import it needs, in CI's main environment (pandas 3)
NEEDS = {"test_implicit_live.py": "implicit", "test_cornac_live.py": "cornac"}
#: module -> the import it needs, in CI's pandas-2 environment
NEEDS_PANDAS2 = {"test_lenskit_live.py": "lenskit"}

missing = left_out(NEEDS, NEEDS_PANDAS2, "adapter")
collect_ignore = missing


def pytest_report_header() -> list[str]:
    if not missing:
        return []
    return [f"adapter modules left out (library not installed): {', '.join(missing)}"]


@pytest.fixture
def library_noise_ignored() -> Iterator[None]:
    """The libraries' own warnings and log lines while they run (implicit's BLAS advice at
    construction, Cornac's progress bars, LensKit's structured logs)."""
    yield from quiet_library()
