"""The fairness section of the reports: group metrics' tables, user groups with intervals,
and a comparison's disparity tests, each number the one ``ev.groups`` / ``ev.disparity`` /
``cmp.disparity`` gives."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import receval as rv
from receval.report._fairness import comparison_fairness_section, fairness_section
from receval.report._page import fmt
from tests.fairness_toy import ITEM_GROUPS, RECS, TEST, USER_GROUPS, evaluate

pytest.importorskip("matplotlib")
pytest.importorskip("jinja2")


def _texts(section: object) -> str:
    out = []
    for block in section.blocks:  # type: ignore[attr-defined]
        out.append(block.text)
        tables = [block.table] if block.table else []
        tables += [f.data for f in ([block.figure] if block.figure else []) + list(
            block.figures) if f.data is not None]
        for t in tables:
            out += [" ".join(r) for r in t.rows]
        out += [f.caption for f in block.figures]
    return "\n".join(out)


def test_evaluation_section() -> None:
    ev = evaluate(["ndcg@3", "exposure@3", "rsp@3"], item_groups=ITEM_GROUPS)
    assert fairness_section(evaluate(["ndcg@3"])) is None
    sec = fairness_section(ev, USER_GROUPS, n_resamples=100)
    assert sec is not None
    text = _texts(sec)
    rsp = ev.groups("rsp@3")
    assert f"0 {fmt(4)} {fmt(4)} {fmt(1.0)}" in text  # group 0: recommended, candidates, P
    assert fmt(float(rsp["probability"].iloc[1])) in text
    d = ev.disparity(USER_GROUPS, n_resamples=100)
    assert fmt(float(d.table["value"].iloc[0])) in text
    assert "bootstrap intervals" in text


def test_reports_written(tmp_path: Path) -> None:
    ev = evaluate(["ndcg@3", "exposure@3"], item_groups=ITEM_GROUPS)
    page = ev.report(tmp_path / "ev.html", user_groups=USER_GROUPS).read_text()
    assert 'id="fairness"' in page
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cmp = rv.compare({"a": RECS, "b": RECS.assign(score=-RECS["score"])}, TEST,
                         ["ndcg@3"], n_resamples=200)
    html = cmp.report(tmp_path / "cmp.html", user_groups=USER_GROUPS).read_text()
    assert "Disparity (max_gap) tests" in html
    t = cmp.disparity(USER_GROUPS)
    assert fmt(float(t["diff"].iloc[0])) in _texts(comparison_fairness_section(cmp,
                                                                               USER_GROUPS))
