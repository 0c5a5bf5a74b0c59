"""Helpers of the report tests: load a script of the repository as a module."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def load_script(relative: str) -> ModuleType:
    """Import ``ROOT / relative`` (e.g. ``docs/make_report.py``) as a module."""
    path = ROOT / relative
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def demo_runs(n_users: int = 600, n_items: int = 400, *, seed: int = 7, k: int = 10) -> Any:
    """``({"random": recs, "most popular": recs}, test, train)`` of docs/make_report.py."""
    return load_script("docs/make_report.py").demo_runs(n_users, n_items, seed=seed, k=k)
