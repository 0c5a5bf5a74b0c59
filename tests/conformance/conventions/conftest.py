"""Collect a library's conformance module only where the library is installed.

``pip install ".[test]"`` runs the modules of the libraries in the ``test`` extra;
``pip install ".[test,conformance]"`` plus the ``--no-deps`` installs of ``.ci/run`` runs the
rest of the main environment. LensKit and Evidently need pandas 2: their live modules run in
CI's pandas-2 environment (the modules on their stored values run everywhere).

``RECEVAL_REQUIRE_CONFORMANCE`` (set by CI) makes a missing library an error, not a module
left out: ``1`` requires the main environment's libraries, a comma-separated list of
imports (``lenskit,evidently``) requires those. The header of the test run names the
modules left out.
"""

from __future__ import annotations

from collections.abc import Iterator

import pandas as pd
import pytest

from tests.live_libraries import left_out, quiet_library

#: module -> the import it needs, in CI's main environment (pandas 3)
NEEDS = {
    "test_conv_torchmetrics.py": "torchmetrics",
    "test_conv_replay.py": "replay",
    "test_conv_cornac.py": "cornac",
    "test_conv_recbole.py": "recbole",
    "test_conv_ms_recommenders.py": "recommenders",
    "test_conv_beyond_recbole.py": "recbole",
    "test_conv_beyond_ms_recommenders_pandas3.py": "recommenders",
}
#: module -> the import it needs, in CI's pandas-2 environment
NEEDS_PANDAS2 = {
    "test_conv_lenskit_live.py": "lenskit",
    "test_conv_evidently_live.py": "evidently",
    # Microsoft Recommenders, Evidently and recmetrics (recmetrics installs only there)
    "test_conv_beyond_live.py": "recmetrics",
}

missing = left_out(NEEDS, NEEDS_PANDAS2, "conformance")
collect_ignore = missing
if not pd.__version__.startswith("3."):  # shows what pandas 3 does to MS Recommenders
    collect_ignore.append("test_conv_beyond_ms_recommenders_pandas3.py")


def pytest_report_header() -> list[str]:
    if not missing:
        return []
    return [f"conformance modules left out (library not installed): {', '.join(missing)}"]


@pytest.fixture
def library_noise_ignored() -> Iterator[None]:
    """A library's own warnings and log lines while it runs live (LensKit logs "could not find
    test data" and warns on 0/0; Evidently warns on deprecations)."""
    yield from quiet_library()
