"""Reports under bad or unusual input, as classes over every door that writes a report or
draws a figure: names that look like markup or cannot be encoded, and output paths that cannot
be written."""

from __future__ import annotations

import io
import os
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval.exceptions import OutputPathError

pytest.importorskip("matplotlib")
pytest.importorskip("jinja2")

TRUTH = pd.DataFrame({"user_id": [1, 1, 2, 3], "item_id": ["a", "c", "b", "c"]})
RUNS = [pd.DataFrame({"user_id": [1, 1, 2, 2, 3, 3], "item_id": items,
                      "score": [2.0, 1.0] * 3})
        for items in (["a", "x", "b", "x", "c", "x"], ["x", "a", "x", "b", "c", "x"],
                      ["c", "a", "x", "b", "x", "c"])]
METRICS = ["mrr@2", "precision@1"]


def _quiet(call: Callable[[], Any]) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rv.RecevalWarning)
        return call()


def _cv(names: list[str]) -> rv.CrossValidation:
    from receval import _demo

    ratings = _demo.sample_ratings(60, 40, seed=2)
    folds = rv.split.kfold(ratings, n_splits=2, seed=1)
    models = {names[0]: rv.models.MostPopular(), names[1]: rv.models.Random(seed=0)}
    return _quiet(lambda: rv.cross_validate(models, ratings, ["precision@5"], split=folds,
                                            k=5))


def _cmp(names: list[str], **kw: Any) -> rv.Comparison:
    systems = list(zip(names, RUNS[:len(names)], strict=True))
    return _quiet(lambda: rv.compare(systems, TRUTH, METRICS, n_resamples=50, **kw))


# -- names that are text, never markup --------------------------------------------------------
NAMES = {
    "math": "$x^2$ model",
    "bad math": r"cost $\frac{a$",
    "one dollar": "price in $",
    "surrogate": "bad \ud800 name",
    "html": "<b>bold</b> & co",
}


def _doors(name: str, tmp: Path) -> dict[str, Callable[[], Any]]:
    ev = rv.evaluate(RUNS[0], TRUTH, METRICS)
    names = [name, name + " 2"]
    return {
        "ev.report title": lambda: ev.report(tmp / "e.html", title=name, recs=RUNS[0],
                                             truth=TRUTH, notes=[name]),
        "cmp.report names": lambda: _cmp(names).report(tmp / "c.html", title=name),
        "cmp.report three systems": lambda: _cmp([*names, name + " 3"]).report(
            tmp / "c3.html"),
        "cv.report names": lambda: _cv(names).report(tmp / "cv.html", title=name),
        "cmp.plot.means": lambda: _cmp(names).plot.means(),
        "cv.plot.folds": lambda: _cv(names).plot.folds(),
        "cmp.to_html": lambda: _cmp(names).to_html(),
    }


DOORS = ["ev.report title", "cmp.report names", "cmp.report three systems", "cv.report names",
         "cmp.plot.means", "cv.plot.folds", "cmp.to_html"]
# rv.cross_validate names a model with lone surrogates with U+FFFD (and warns), as compare does
CASES = [pytest.param(kind, door, id=f"{kind}-{door}") for kind in NAMES for door in DOORS]


@pytest.mark.parametrize(("kind", "door"), CASES)
def test_names_are_text(kind: str, door: str, tmp_path: Path) -> None:
    name = NAMES[kind]
    out = _doors(name, tmp_path)[door]()
    if isinstance(out, Path):
        raw = out.read_bytes()
        html = raw.decode("utf-8")  # strict: valid UTF-8
        shown = name.replace("\ud800", "\ufffd")
        escaped = shown.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        if "three" not in door:
            assert escaped in html
        assert "\ud800" not in html
        assert "<b>bold</b>" not in html
    elif isinstance(out, str):
        out.encode("utf-8", errors="strict")  # names with surrogates were cleaned by compare
        assert "<b>bold</b>" not in out
    else:  # a matplotlib figure: it renders, and the names are the text drawn
        buf = io.StringIO()
        with __import__("matplotlib").rc_context({"svg.fonttype": "none"}):
            out.savefig(buf, format="svg")
        svg = buf.getvalue()
        shown = name.replace("\ud800", "\ufffd")
        ticks = [t.get_text() for ax in out.axes for t in ax.get_yticklabels()]
        assert any(t.replace("\\$", "$") == shown for t in ticks), ticks
        if "$" in name:
            assert "\\$" in ticks[0] or any("\\$" in t for t in ticks)
        assert "\ud800" not in svg


def test_figure_text_escapes_math() -> None:
    from receval.report._figures import text

    assert text("$x^2$") == r"\$x^2\$"
    assert text("a\ud800b") == "a\ufffdb"
    assert text(3) == "3"


# -- output paths -----------------------------------------------------------------------------
def _bad_paths(tmp: Path) -> dict[str, Path]:
    (tmp / "a-file.txt").write_text("x", encoding="utf-8")
    (tmp / "a-dir").mkdir()
    return {"missing directory": tmp / "nope" / "r.html",
            "a directory": tmp / "a-dir",
            "under a file": tmp / "a-file.txt" / "r.html"}


@pytest.fixture(scope="module")
def results() -> dict[str, Any]:
    ev = rv.evaluate(RUNS[0], TRUTH, METRICS)
    return {"ev": ev, "cmp": _cmp(["a", "b", "c"]), "cv": _cv(["pop", "rand"])}


REPORTS = {
    "ev.report": lambda r, p: r["ev"].report(p, recs=RUNS[0], truth=TRUTH),
    "cmp.report": lambda r, p: r["cmp"].report(p),
    "cv.report": lambda r, p: r["cv"].report(p),
}
BUILDERS = {"ev.report": "receval.report._evaluation.evaluation_page",
            "cmp.report": "receval.report._systems.comparison_page",
            "cv.report": "receval.report._crossval.cross_validation_page"}


@pytest.mark.parametrize("where", ["missing directory", "a directory", "under a file"])
@pytest.mark.parametrize("door", list(REPORTS))
def test_bad_paths_fail_before_any_work(door: str, where: str, results: dict[str, Any],
                                        tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                        ) -> None:
    path = _bad_paths(tmp_path)[where]
    before = sorted(p.name for p in tmp_path.rglob("*"))

    def no_work(*a: Any, **k: Any) -> None:
        raise AssertionError("the page was built before the path was checked")

    monkeypatch.setattr(BUILDERS[door], no_work)
    with pytest.raises(OutputPathError) as e:
        REPORTS[door](results, path)
    assert e.value.parameter == "path"
    assert str(path) in str(e.value) or str(path.parent) in str(e.value)
    assert sorted(p.name for p in tmp_path.rglob("*")) == before  # nothing written


@pytest.mark.parametrize("path", [5, None, 1.5, b"r.html", ["r.html"]], ids=repr)
@pytest.mark.parametrize("door", list(REPORTS))
def test_a_path_that_is_not_a_path_is_named(door: str, path: Any, results: dict[str, Any],
                                            tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                            ) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(OutputPathError, match=r"^path must be a file path \(a str or a "
                       r"pathlib\.Path\); got ") as e:
        REPORTS[door](results, path)
    assert e.value.parameter == "path"
    assert repr(path) in str(e.value)
    assert not list(tmp_path.iterdir())


#: How a result meets its input files: evaluated from them, or given them for the curves.
INPUT_FILES = {
    "evaluated from files": lambda r, t: (rv.evaluate(r, t, METRICS), {}),
    "evaluated from Paths": lambda r, t: (rv.evaluate(Path(r), Path(t), METRICS), {}),
    "given to report": lambda r, t: (rv.evaluate(RUNS[0], TRUTH, METRICS),
                                     {"recs": os.path.abspath(r), "truth": Path(t).resolve()}),
}


@pytest.mark.parametrize("target", ["recs", "truth"])
@pytest.mark.parametrize("how", list(INPUT_FILES))
def test_ev_report_never_writes_over_an_input(how: str, target: str, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    RUNS[0].to_csv("recs.csv", index=False)
    TRUTH.to_csv("truth.csv", index=False)
    before = {name: Path(name).read_bytes() for name in ("recs.csv", "truth.csv")}
    ev, given = _quiet(lambda: INPUT_FILES[how]("recs.csv", "truth.csv"))
    monkeypatch.chdir(tmp_path.parent)  # the same file under another spelling
    out = tmp_path / f"{target}.csv"
    for path in (out, str(out), os.path.relpath(out)):
        with pytest.raises(OutputPathError, match=rf"is the input {target} .*writing it would "
                           r"destroy the input") as e:
            ev.report(path, **given)
        assert e.value.parameter == "path"
    assert {n: (tmp_path / n).read_bytes() for n in before} == before
    assert Path(ev.report(tmp_path / "r.html", **given)).exists()


@pytest.mark.parametrize("door", list(REPORTS))
def test_an_error_while_writing_leaves_no_partial_file(door: str, results: dict[str, Any],
                                                       tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch
                                                       ) -> None:
    import receval.report._page as page

    path = tmp_path / "r.html"
    path.write_text("previous report", encoding="utf-8")

    def broken(self: Path, text: str, encoding: str = "utf-8") -> int:
        os.write(os.open(self, os.O_WRONLY), text[:10].encode())
        raise OSError("disk full")

    monkeypatch.setattr(page.Path, "write_text", broken)
    with pytest.raises(OSError, match="disk full"):
        REPORTS[door](results, path)
    monkeypatch.undo()
    assert path.read_text(encoding="utf-8") == "previous report"
    assert [p.name for p in tmp_path.iterdir()] == ["r.html"]  # no temporary file left


@pytest.mark.parametrize("door", list(REPORTS))
def test_good_paths_accept_str_and_pathlike(door: str, results: dict[str, Any],
                                            tmp_path: Path) -> None:
    out = REPORTS[door](results, str(tmp_path / "r.html"))
    assert Path(out).read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


# -- layouts --------------------------------------------------------------------------------
def test_popularity_legend_is_outside_the_axes_and_holds_the_short_head() -> None:
    from receval.report import _data as D
    from receval.report import _figures as F

    train = pd.Series(np.repeat(np.arange(50), np.arange(50, 0, -1)))
    recommended = pd.Series(np.tile(np.arange(10), 30))
    fig = F.popularity_figure(D.popularity(recommended, train, k=10, head_share=0.2))
    fig.canvas.draw()
    (ax,) = fig.axes
    legend = ax.get_legend()
    box, axes_box = legend.get_window_extent(), ax.get_window_extent()
    assert box.y1 <= axes_box.y0  # below the plotting area: it hides nothing
    texts = [t.get_text() for t in legend.get_texts()]
    assert any(t.startswith("short head: ") and "of training" in t for t in texts)
    assert not ax.texts  # no annotation inside the axes for a legend to cover


def test_curves_title_names_the_cutoffs_drawn(tmp_path: Path) -> None:
    from receval.report import _data as D
    from receval.report import _figures as F

    ev = rv.evaluate(RUNS[0], TRUTH, ["precision@2", "recall@2"])
    frame = D.curves(ev)  # without recs and truth: the cutoffs evaluated
    ax = F.curves_figure(frame).axes[0]
    assert ax.get_title(loc="left") == "Metric@k for k = 2"
    full = D.curves(ev, RUNS[0], TRUTH, max_k=4)
    assert F.curves_figure(full).axes[0].get_title(loc="left") == "Metric@k for k = 1 ... 4"
    several = rv.evaluate(RUNS[0], TRUTH, ["precision@1", "precision@2", "ndcg@5"])
    assert F.cutoffs_text(D.curves(several)) == "k = 1, 2, 5"
    html = ev.report(tmp_path / "e.html").read_text(encoding="utf-8")
    assert "k = 1 ... 2" not in html
    assert "Points are the cutoffs evaluated (k = 2)" in html


@pytest.mark.parametrize("values", [
    np.r_[np.zeros(995), np.ones(5)],  # sparse: mean 0.005, inside the first bin
    np.r_[np.ones(995), np.zeros(5)],  # the mirror: mean at the top of the range
    np.zeros(50),  # every value 0: the mean on the range's end
])
def test_histogram_mean_line_is_visible(values: np.ndarray) -> None:
    from receval.report import _data as D
    from receval.report import _figures as F

    h = D.histogram(values, label="Precision@10", bounds=(0, 1), bins=20)
    ax = F.distribution_figure(h).axes[0]
    lo, hi = ax.get_xlim()
    (mean,) = [ln for ln in ax.get_lines() if ln.get_label().startswith("mean")]
    x = float(mean.get_xdata()[0])
    assert x == pytest.approx(values.mean())
    margin = 0.02 * (hi - lo)
    assert lo + margin <= x <= hi - margin  # off the axis lines
    assert mean.get_zorder() > max(p.get_zorder() for p in ax.patches)  # over the bars
    markers = [ln for ln in ax.get_lines() if ln.get_marker() == "v"]
    assert [float(m.get_xdata()[0]) for m in markers] == [pytest.approx(x)]
    ax.figure.canvas.draw()  # the legend is below the axes: it covers no bar and no line
    assert ax.get_legend().get_window_extent().y1 <= ax.get_window_extent().y0


# -- Friedman, Nemenyi, tests: proper tables ----------------------------------------------------
def test_friedman_and_nemenyi_are_tables_with_a_lead(results: dict[str, Any],
                                                     tmp_path: Path) -> None:
    cmp = results["cmp"]
    html = cmp.report(tmp_path / "c.html").read_text(encoding="utf-8")
    for sid in ("friedman", "friedman-ranks", "nemenyi", "tests"):
        assert f'<table id="{sid}">' in html
    assert ">index<" not in html
    for section in ('<section id="friedman">', '<section id="nemenyi">',
                    '<section id="tests">'):
        start = html.index(section)
        head = html[start:html.index("<table", start)]
        assert '<p class="lead">' in head
    assert "Friedman&#39;s test asks whether any system ranks better" in html


def test_zero_p_values_are_shown_as_a_bound(results: dict[str, Any], tmp_path: Path) -> None:
    import dataclasses

    cmp = results["cmp"]
    tests = cmp.tests.assign(p_value=0.0, p_adjusted=0.0)
    nemenyi = cmp.nemenyi.assign(p_value=0.0)
    friedman = cmp.friedman.assign(p_value=0.0)
    zero = dataclasses.replace(cmp, tests=tests, nemenyi=nemenyi, friedman=friedman)
    html = zero.report(tmp_path / "z.html").read_text(encoding="utf-8")
    assert "0.00e+00" not in html
    assert html.count("&lt; 1e-300") == 2 * len(tests) + len(nemenyi) + len(friedman)


def test_cv_report_says_how_the_folds_were_made_and_the_models_parameters(
        results: dict[str, Any], tmp_path: Path) -> None:
    import dataclasses

    cv = results["cv"]
    html = cv.report(tmp_path / "cv.html").read_text(encoding="utf-8")
    assert '<section id="splits">' in html
    assert "rv.split.kfold(n_splits=2, by=&#39;rows&#39;, seed=1" in html
    assert "seed: 1." in html
    assert '<table id="splits">' in html
    # cross_validate records model_params (get_params): each parameter shown
    assert "<td>seed=0</td>" in html
    assert "their get_params()" in html
    bare = dataclasses.replace(cv, settings={**cv.settings, "model_params": {}})
    html = bare.report(tmp_path / "cv1.html").read_text(encoding="utf-8")
    assert "Random(seed=0)" in html  # without model_params: each model's repr
    params = {"pop": {"by": "users"}, "rand": {"seed": 0, "ties": "stable"}}
    built = dataclasses.replace(cv, settings={**cv.settings, "model_params": params})
    html = built.report(tmp_path / "cv2.html").read_text(encoding="utf-8")
    assert "<td>seed=0, ties=&#39;stable&#39;</td>" in html
    assert "their get_params()" in html
    given = dataclasses.replace(cv, settings={**cv.settings,
                                              "split_reports": [None] * cv.n_folds})
    html = given.report(tmp_path / "cv3.html").read_text(encoding="utf-8")
    assert "given as (train, test) tables" in html
