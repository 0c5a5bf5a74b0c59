"""The example reports under docs/ are what docs/make_report.py writes today."""

from __future__ import annotations

import re

import pytest

import receval as rv
from tests.report_helpers import ROOT, load_script

pytest.importorskip("matplotlib")
pytest.importorskip("jinja2")

_SVG = re.compile(r"<svg\b.*?</svg>", re.S)


def comparable(html: str) -> str:
    """The page without the figures' SVG markup and with the version replaced."""
    html = _SVG.sub("<svg/>", html)
    return re.sub(r'receval (<span class="version">)?' + re.escape(rv.__version__),
                  r"receval \1VERSION", html)


@pytest.mark.slow
def test_example_reports_are_current() -> None:
    module = load_script("docs/make_report.py")
    pages = module.pages()
    assert pages
    for file, html in pages.items():
        on_disk = (ROOT / "docs" / file).read_text(encoding="utf-8")
        assert comparable(on_disk) == comparable(html), "run: python docs/make_report.py"
        assert on_disk.count("<svg") == html.count("<svg")
        assert len(on_disk.encode()) < 1_000_000
