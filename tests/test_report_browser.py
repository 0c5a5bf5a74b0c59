"""Reports in a real browser: Debian's chromium driven by Playwright, every network request blocked.

Each kind of report is opened from disk; the test asserts no console or page error, no request
other than the file itself, the labels, values and accounting as visible text, and a non-zero
rendered size for every figure. Screenshots (screen and print) go to ``tests/artifacts/``.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import receval as rv
from receval.report._page import fmt_p
from tests.report_helpers import demo_runs

sync_api = pytest.importorskip("playwright.sync_api")
pytest.importorskip("matplotlib")
pytest.importorskip("jinja2")

CHROMIUM = os.environ.get("RECEVAL_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
ARTIFACTS = Path(__file__).parent / "artifacts"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    assert Path(CHROMIUM).exists(), f"{CHROMIUM} is missing: apt-get install chromium"
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


WIDTH = 1280  # a common laptop width: every report must fit it


def open_report(browser: Any, path: Path, name: str) -> tuple[Any, list[str], list[str]]:
    """Open ``path`` with every non-file request aborted; return page, errors, requests."""
    page = browser.new_page(viewport={"width": WIDTH, "height": 900})
    errors: list[str] = []
    requests: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type in ("error", "warning")
            else None)
    page.on("pageerror", lambda e: errors.append(str(e)))

    def route(r: Any) -> None:
        url = r.request.url
        if url.startswith("file:"):
            r.continue_()
        else:
            requests.append(url)
            r.abort()

    page.route("**/*", route)
    page.goto(path.resolve().as_uri(), wait_until="load")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
    page.emulate_media(media="print")
    page.screenshot(path=str(ARTIFACTS / f"{name}-print.png"), full_page=True)
    page.pdf(path=str(ARTIFACTS / f"{name}.pdf"), format="A4")
    page.emulate_media(media="screen")
    return page, errors, requests


_LAYOUT = """() => {
  const out = {page: [document.documentElement.scrollWidth, window.innerWidth],
               clipped: [], wrapped: [], figures: []};
  const main = document.querySelector('main').getBoundingClientRect();
  for (const w of document.querySelectorAll('.table-wrap')) {
    const t = w.querySelector('table');
    const name = t.id || (t.caption ? t.caption.innerText : '?');
    if (w.scrollWidth > w.clientWidth || t.getBoundingClientRect().right > main.right + 1)
      out.clipped.push([name, w.scrollWidth, w.clientWidth]);
    for (const td of t.querySelectorAll('td.num')) {  // the lines its text occupies
      const range = document.createRange();
      range.selectNodeContents(td);
      const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
      if (tops.size > 1) out.wrapped.push([name, td.innerText]);
    }
  }
  for (const f of document.querySelectorAll('figure svg')) {
    const r = f.getBoundingClientRect();
    if (r.right > main.right + 1 || r.left < main.left - 1) out.figures.push(r.right);
  }
  return out;
}"""


def assert_fits(page: Any) -> None:
    """At 1280 px: no horizontal scrolling, no table clipped in its scroll box, no number
    wrapped over two lines, every figure inside the page's column."""
    layout = page.evaluate(_LAYOUT)
    width, inner = layout["page"]
    assert width <= inner, f"the page scrolls sideways: {width} > {inner}"
    assert layout["clipped"] == []
    assert layout["wrapped"] == []
    assert layout["figures"] == []


def checked(browser: Any, path: Path, name: str) -> Any:
    """The report opened in chromium, with no error, no network request, and fitting 1280 px."""
    page, errors, requests = open_report(browser, path, name)
    assert errors == []
    assert requests == []
    assert_fits(page)
    return page


def rows_text(page: Any, selector: str) -> list[list[str]]:
    return [[c.strip() for c in row] for row in page.eval_on_selector_all(
        f"{selector} tr", "rows => rows.map(r => [...r.cells].map(c => c.innerText))")]


def assert_figures_rendered(page: Any, expected: int) -> None:
    boxes = page.eval_on_selector_all(
        "figure svg", "els => els.map(e => {const r = e.getBoundingClientRect(); "
        "return [r.width, r.height, e.getAttribute('aria-label')]})")
    assert len(boxes) == expected
    for width, height, label in boxes:
        assert width > 100, (width, height, label)
        assert height > 50, (width, height, label)
        assert label
    captions = page.eval_on_selector_all("figure figcaption", "els => els.map(e => e.innerText)")
    assert all(c.strip() for c in captions)
    assert len(captions) == expected


def test_evaluation_report_in_chromium(browser: Any, tmp_path: Path) -> None:
    runs, test, train = demo_runs(400, 300, seed=5)
    recs = runs["most popular"]
    metrics = ["ndcg@10", "map@10", "precision@10", "recall@10", "mrr@10", "hit_rate@10",
               "item_coverage@10", "user_coverage"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rv.RecevalWarning)
        ev = rv.evaluate(recs, test, metrics, relevance_threshold=4)
    path = ev.report(tmp_path / "evaluation.html", recs=recs, truth=test, train=train,
                     title="most popular vs test", max_k=20)
    page = checked(browser, path, "evaluation-report")
    values = rows_text(page, "#metric-values")
    for label, s in ev.summaries.items():
        assert [label, f"{s.value:.4f}"] in [r[:2] for r in values]
    accounting = {r[0]: r[1] for r in rows_text(page, "#accounting") if len(r) == 3}
    assert accounting["evaluated"] == f"{ev.users.n_evaluated:,}"
    assert accounting["no relevant item"] == f"{len(ev.users.no_relevant):,}"
    assert int(accounting["no relevant item"].replace(",", "")) > 0
    body = page.inner_text("body")
    assert "Convention: none" in body
    assert "relevant means a grade >= 4" in body
    # curves + one histogram per metric with per-user values + popularity
    assert_figures_rendered(page, 1 + 6 + 1)
    nav = page.eval_on_selector_all("nav a", "els => els.map(e => e.innerText)")
    assert "Metric@k" in nav
    assert "Popularity and long tail" in nav
    page.close()


def test_report_with_a_convention_in_chromium(browser: Any, tmp_path: Path) -> None:
    runs, test, _ = demo_runs(200, 150, seed=9)
    recs = runs["random"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rv.RecevalWarning)
        ev = rv.evaluate(recs, test, ["ndcg@10", "map@10"], convention="trec_eval",
                         relevance_threshold=4)
    path = ev.report(tmp_path / "trec.html")
    page = checked(browser, path, "evaluation-report-trec-eval")
    body = page.inner_text("body")
    assert "Convention: trec_eval" in body
    for v in ev.settings["metrics"].values():
        assert v["library_name"] in body
    assert_figures_rendered(page, 1 + 2)
    page.close()


def test_comparison_report_in_chromium(browser: Any, tmp_path: Path) -> None:
    runs, test, _ = demo_runs(300, 200, seed=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rv.RecevalWarning)
        cmp = rv.compare(runs, test, ["ndcg@10", "recall@10"], relevance_threshold=4,
                         test="wilcoxon", correction="holm", n_resamples=500)
    path = cmp.report(tmp_path / "comparison.html")
    page = checked(browser, path, "comparison-report")
    means = rows_text(page, "#means")
    for (system, metric), row in cmp.ci.iterrows():
        assert [metric, f"{row['mean']:.4f}", f"{row['low']:.4f}", f"{row['high']:.4f}"] in [
            r[1:5] for r in means if r[0].endswith(system)]
    tests = rows_text(page, "#tests")
    shown = {(r[0], r[1]): r for r in tests[1:]}
    for _, t in cmp.tests.iterrows():
        row = shown[(t["metric"], f"{t['system_a']} vs {t['system_b']}")]
        assert fmt_p(t["p_value"]) in row
        assert fmt_p(t["p_adjusted"]) in row
    assert_figures_rendered(page, 1)
    page.close()


def test_cross_validation_report_in_chromium(browser: Any, tmp_path: Path) -> None:
    import numpy as np

    ratings = rv.datasets.sample_ratings(200, 120, seed=6)
    fold = np.random.default_rng(0).integers(0, 3, len(ratings))
    folds = [(ratings[fold != f], ratings[fold == f]) for f in range(3)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rv.RecevalWarning)
        cv = rv.cross_validate({"random": rv.models.Random(seed=0),
                                "popular": rv.models.MostPopular(),
                                "item mean": rv.models.ItemMean()}, ratings,
                               ["ndcg@10", "precision@10", "rmse"], split=folds,
                               relevance_threshold=4)
    path = cv.report(tmp_path / "cv.html")
    page = checked(browser, path, "cross-validation-report")
    summary = cv.summary()
    shown = rows_text(page, "#summary")
    for model in cv.models:
        for label in ("NDCG@10", "Precision@10"):
            assert [model, label, f"{summary.loc[model, (label, 'mean')]:.4f}",
                    f"{summary.loc[model, (label, 'std')]:.4f}"] in shown
    assert len(rows_text(page, "#per-fold")) == 1 + 3 * 3
    assert_figures_rendered(page, 1)
    page.close()


def test_wide_comparison_fits_the_page_in_chromium(browser: Any, tmp_path: Path) -> None:
    """Four systems (one with a long name, one with math and a lone surrogate), eight
    metrics, the bootstrap test (its extra interval column), Friedman and Nemenyi."""
    import numpy as np

    runs, test, _ = demo_runs(300, 200, seed=4)
    rng = np.random.default_rng(0)
    systems = [(name, recs) for name, recs in runs.items()]
    systems.append(("noisy popular model with a rather long name", runs["most popular"].assign(
        score=lambda f: f["score"] + rng.random(len(f)) * 50)))
    systems.append(("$x^2$ \ud800 reversed", runs["random"].assign(
        score=lambda f: -f["score"])))
    metrics = ["precision@10", "recall@10", "ndcg(gain=exponential)@10", "map@10", "mrr@10",
               "hit_rate@10", "recall(aggregation=micro)@10", "item_coverage@10"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rv.RecevalWarning)
        cmp = rv.compare(systems, test, metrics, relevance_threshold=4, test="bootstrap",
                         correction="holm", n_resamples=300)
    path = cmp.report(tmp_path / "wide.html", title="$5 \ud800 title")
    page = checked(browser, path, "comparison-report-wide")
    for table in ("#tests", "#friedman", "#friedman-ranks", "#nemenyi"):
        assert len(rows_text(page, table)) > 1
    assert "$5 \ufffd title" in page.inner_text("h1")
    leads = page.eval_on_selector_all(
        "#friedman p.lead, #nemenyi p.lead, #tests p.lead", "els => els.map(e => e.innerText)")
    assert len(leads) == 3
    assert all(len(text) > 80 for text in leads)
    assert_figures_rendered(page, 1)
    page.close()


def test_cross_validation_report_with_splits_and_parameters_in_chromium(
        browser: Any, tmp_path: Path) -> None:
    import dataclasses

    from receval import _demo

    ratings = _demo.sample_ratings(150, 100, seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rv.RecevalWarning)
        cv = rv.cross_validate({"random": rv.models.Random(seed=0),
                                "popular": rv.models.MostPopular()}, ratings,
                               ["ndcg@10", "precision@10"],
                               split=rv.split.kfold(ratings, n_splits=4, seed=11),
                               relevance_threshold=4)
    params = {"random": {"seed": 0}, "popular": {"by": "users"}}
    cv = dataclasses.replace(cv, settings={**cv.settings, "model_params": params})
    path = cv.report(tmp_path / "cv.html")
    page = checked(browser, path, "cross-validation-report-splits")
    body = page.inner_text("#splits")
    assert "rv.split.kfold" in body
    assert "seed: 11" in body
    assert len(rows_text(page, "table#splits")) == 1 + 4
    assert ["random", "seed=0"] in rows_text(page, "#models")
    page.close()
