"""Comparison and cross-validation reports: the data behind each figure and the page text."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import receval as rv

pytest.importorskip("matplotlib")
pytest.importorskip("jinja2")

from receval.report._crossval import folds_data
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
    assert "Test: paired t test; no correction" in html


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


@pytest.fixture(scope="module")
def cv() -> rv.CrossValidation:
    ratings = rv.datasets.sample_ratings(120, 80, seed=2)
    fold = np.random.default_rng(0).integers(0, 3, len(ratings))
    folds = [(ratings[fold != f], ratings[fold == f]) for f in range(3)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rv.RecevalWarning)
        return rv.cross_validate({"popular": rv.models.MostPopular(),
                                  "item mean": rv.models.ItemMean()}, ratings,
                                 ["precision@5", "rmse"], split=folds, k=5,
                                 relevance_threshold=4)


def test_folds_figure_draws_every_fold(cv: rv.CrossValidation) -> None:
    per_fold, summary = folds_data(cv)
    fig = cv.plot.folds()
    assert [ax.get_title(loc="left") for ax in fig.axes] == cv.labels
    ax = fig.axes[0]  # precision@5: both models, three folds each
    dots = [c.get_offsets() for c in ax.collections if len(c.get_offsets()) == cv.n_folds]
    for model, points in zip(cv.models, dots, strict=True):
        np.testing.assert_allclose(sorted(points[:, 0]), sorted(
            per_fold.loc[per_fold["model"] == model, "Precision@5"]))
    rmse_ax = fig.axes[1]  # the popularity model has no predict: only item mean is drawn
    assert [len(c.get_offsets()) for c in rmse_ax.collections if
            len(c.get_offsets()) == cv.n_folds] == [cv.n_folds]
    means = [line.get_xdata()[0] for line in ax.get_lines() if line.get_marker() == "D"]
    np.testing.assert_allclose(means, [summary.loc[m, ("Precision@5", "mean")]
                                       for m in cv.models])


def test_cross_validation_report_shows_mean_and_std(cv: rv.CrossValidation,
                                                    tmp_path: Path) -> None:
    html = cv.report(tmp_path / "cv.html").read_text(encoding="utf-8")
    summary = cv.summary()
    for model in cv.models:
        for label in cv.labels:
            mean = float(summary.loc[model, (label, "mean")])
            std = float(summary.loc[model, (label, "std")])
            if np.isnan(mean):
                continue
            assert f"<td>{label}</td><td class=\"num\">{mean:.4f}</td>" \
                   f"<td class=\"num\">{std:.4f}</td>" in html
    assert "not measured" in html  # RMSE of the model without predict
    assert 'id="fig-folds"' in html


def test_cli_cv_report(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from receval.cli import cli

    rv.datasets.sample_ratings(80, 60, seed=1).to_csv(tmp_path / "ratings.csv", index=False)
    res = CliRunner().invoke(cli, ["cv", str(tmp_path / "ratings.csv"), "--model", "popular",
                                   "-m", "precision@5", "--folds", "2", "-k", "5",
                                   "--report", str(tmp_path / "cv.html")])
    assert res.exit_code == 0, res.output
    html = (tmp_path / "cv.html").read_text(encoding="utf-8")
    assert "ratings.csv: 2-fold cross-validation" in html
    assert 'id="fig-folds"' in html
