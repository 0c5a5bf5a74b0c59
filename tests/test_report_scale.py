"""A report of 100k users x 21 metrics stays small: per-user values are binned, never drawn
one point per user (the time is measured in benchmarks/report.py)."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

import receval as rv
from tests.report_helpers import load_script

pytest.importorskip("matplotlib")
pytest.importorskip("jinja2")



@pytest.mark.slow
def test_report_of_100k_users_and_21_metrics_is_under_3_mb(tmp_path: Path) -> None:
    bench = load_script("benchmarks/report.py")
    recs, truth, train = bench.workload(100_000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rv.RecevalWarning)
        ev = rv.evaluate(recs, truth, bench.METRICS, relevance_threshold=3)
    path = ev.report(tmp_path / "big.html", recs=recs, truth=truth, train=train)
    size = path.stat().st_size
    assert size < 3_000_000, f"{size / 1e6:.2f} MB"
    html = path.read_text(encoding="utf-8")
    assert len(ev.labels) == 21
    # 1 curves figure, one histogram per metric with per-user values (19), 1 popularity
    assert html.count("<svg ") == 1 + 19 + 1
    # a histogram has its 20 bars, not 100k points: every figure is a few dozen kB at most
    for svg in re.findall(r"<svg\b.*?</svg>", html, flags=re.S):
        assert len(svg) < 120_000
