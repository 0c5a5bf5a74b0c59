"""The generated documentation is current: docs/conventions.md is what its script writes."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_conventions_page_is_generated_from_the_presets() -> None:
    spec = importlib.util.spec_from_file_location("make_conventions",
                                                  ROOT / "docs" / "make_conventions.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    page = (ROOT / "docs" / "conventions.md").read_text(encoding="utf-8")
    assert page == module.render(), "run: python docs/make_conventions.py"


def test_readme_links_the_conventions_page() -> None:
    assert "docs/conventions.md" in (ROOT / "README.md").read_text(encoding="utf-8")
