"""Collect a library's conformance module only where the library is installed.

``pip install ".[test]"`` runs the modules of the libraries in the ``test`` extra;
``pip install ".[test,conformance]"`` (as CI does) runs them all. With
``RECEVAL_REQUIRE_CONFORMANCE=1`` (set by CI) a missing library is an error, not a module
left out. The header of the test run names the modules left out.
"""

from __future__ import annotations

import importlib.util
import os

#: module -> the import it needs
NEEDS = {
    "test_conv_torchmetrics.py": "torchmetrics",
    "test_conv_replay.py": "replay",
    "test_conv_cornac.py": "cornac",
    "test_conv_recbole.py": "recbole",
    "test_conv_ms_recommenders.py": "recommenders",
}

missing = sorted(f for f, mod in NEEDS.items() if importlib.util.find_spec(mod) is None)
if missing and os.environ.get("RECEVAL_REQUIRE_CONFORMANCE"):
    raise RuntimeError(f"conformance libraries missing for {missing}: pip install "
                       f"'.[test,conformance]'")
collect_ignore = missing


def pytest_report_header() -> list[str]:
    if not missing:
        return []
    return [f"conformance modules left out (pip install '.[test,conformance]'): "
            f"{', '.join(missing)}"]
