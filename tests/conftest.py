"""The suite's own ``tests`` package, whatever else is installed or imported under that name.

Test modules import their helpers as ``tests.<module>``. A package named ``tests`` installed in
site-packages (some distributions ship one), or imported before pytest starts, would shadow
this directory; this conftest, which pytest loads by path before any test module, puts this
directory's package in ``sys.modules["tests"]`` first (``tests/test_suite_imports.py``).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent


def _own_tests_package() -> None:
    found = sys.modules.get("tests")
    where = getattr(found, "__file__", None)
    if found is not None and where is not None and Path(where).resolve().parent == _HERE:
        return
    for name in [n for n in sys.modules if n == "tests" or n.startswith("tests.")]:
        del sys.modules[name]
    spec = importlib.util.spec_from_file_location(
        "tests", _HERE / "__init__.py", submodule_search_locations=[str(_HERE)])
    assert spec is not None
    assert spec.loader is not None
    package = importlib.util.module_from_spec(spec)
    sys.modules["tests"] = package
    spec.loader.exec_module(package)


_own_tests_package()
