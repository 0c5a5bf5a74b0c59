"""Comparison and cross-validation reports: the data behind each figure and the page text."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import receval as rv

pytest.importorskip("matplotlib")
pytest.importorskip("jinja2")

from receval.report._systems import comparison_data

# two systems, three users; user 3's lists are the same in both
TRUTH = pd.DataFrame({"user_id": [1, 2, 3], "item_id": ["a", "b", "c"]})
A = pd.DataFrame({"user_id": [1, 1, 2, 2, 3, 3], "item_id": ["a", "x", "b", "x", "c", "x"],
                  "score": [2.0, 1.0] * 3})
B = pd.DataFrame({"user_id": [1, 1, 2, 2, 3, 3], "item_id": ["x", "a", "x", "b", "c", "x"],
                  "score": [2.0, 1.0] * 3})


@pytest.fixture(scope="module")
def cmp() -> rv.Comparison:
    return rv.compare({"first": A, "second": B}, TRUTH, ["mrr@2", "precision@1"],
                      test="t", n_resamples=200, seed=0)


def test_comparison_data_is_the_comparisons_numbers(cmp: rv.Comparison) -> None:
    d = comparison_data(cmp)
    # MRR@2: first ranks every relevant item first (1, 1, 1) -> 1; second (1/2, 1/2, 1) -> 2/3
    assert d["mean"].loc["first", "MRR@2"] == pytest.approx(1.0)
    assert d["mean"].loc["second", "MRR@2"] == pytest.approx(2 / 3)
    for (system, metric), row in cmp.ci.iterrows():
        assert d["low"].loc[system, metric] == row["low"]
        assert d["high"].loc[system, metric] == row["high"]
    for system in cmp.systems:
        for metric in cmp.means.columns:
            letters = "".join("ab"[cmp.systems.index(s)] for s in cmp.beats(system, metric))
            assert d["marks"].loc[system, metric] == letters


def test_comparison_figure_draws_means_and_bounds(cmp: rv.Comparison) -> None:
    d = comparison_data(cmp)
    fig = cmp.plot.means()
    assert len(fig.axes) == 2
    for ax, metric in zip(fig.axes, d["mean"].columns, strict=True):
        assert ax.get_title(loc="left") == metric
        assert ax.get_xlabel() == "mean over users"
        points = ax.collections[-1].get_offsets()
        np.testing.assert_allclose(points[:, 0], d["mean"][metric].to_numpy())
        bars = ax.collections[0].get_segments()  # error bars: low .. high per system
        lows = sorted(seg[0][0] for seg in bars)
        highs = sorted(seg[1][0] for seg in bars)
        np.testing.assert_allclose(lows, sorted(d["low"][metric].clip(
            upper=d["mean"][metric])))
        np.testing.assert_allclose(highs, sorted(d["high"][metric].clip(
            lower=d["mean"][metric])))
    assert cmp.plot("means") is not None
    with pytest.raises(rv.exceptions.InvalidParameterError):
        cmp.plot("pie")


def test_comparison_report_shows_bounds_and_p_values(cmp: rv.Comparison,
                                                     tmp_path: Path) -> None:
    html = cmp.report(tmp_path / "c.html", title="two systems").read_text(encoding="utf-8")
    for (_, _), row in cmp.ci.iterrows():
        assert f">{row['low']:.4f}<" in html
        assert f">{row['high']:.4f}<" in html
    for _, t in cmp.tests.iterrows():
        for col in ("p_value", "p_adjusted"):
            v = float(t[col])
            assert (f">{v:.4f}<" if v >= 1e-4 else f">{v:.2e}<") in html
    assert 'id="fig-means"' in html
    assert "Test: t; no correction" in html


def test_cli_compare_report(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from receval.cli import cli

    TRUTH.to_csv(tmp_path / "truth.csv", index=False)
    A.to_csv(tmp_path / "a.csv", index=False)
    B.to_csv(tmp_path / "b.csv", index=False)
    res = CliRunner().invoke(cli, ["compare", str(tmp_path / "truth.csv"), str(tmp_path / "a.csv"),
                                   str(tmp_path / "b.csv"), "-m", "mrr@2", "--n-resamples",
                                   "100", "--report", str(tmp_path / "c.html")])
    assert res.exit_code == 0, res.output
    html = (tmp_path / "c.html").read_text(encoding="utf-8")
    assert "a, b vs truth.csv" in html
    assert 'id="fig-means"' in html
