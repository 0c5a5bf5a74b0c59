"""Reports and figures: the data behind every figure (hand-computed), the page, the CLI."""

from __future__ import annotations

import re
import subprocess
import sys
import warnings
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
from receval.report import _data as D
from tests import strategies as S
from tests.report_helpers import demo_runs

pytest.importorskip("matplotlib")
pytest.importorskip("jinja2")

from receval.report import _figures as F

# user 1 ranks a, b, c, d (relevant: a, c); user 2 ranks a, b, c (relevant: c)
RECS = pd.DataFrame({"user_id": [1, 1, 1, 1, 2, 2, 2],
                     "item_id": ["a", "b", "c", "d", "a", "b", "c"],
                     "score": [4.0, 3.0, 2.0, 1.0, 3.0, 2.0, 1.0]})
TRUTH = pd.DataFrame({"user_id": [1, 1, 2], "item_id": ["a", "c", "c"]})


def small_ev(**kw: object) -> rv.EvaluationResult:
    return rv.evaluate(RECS, TRUTH, ["precision@2", "recall@3", "rmse"][:2], **kw)


# -- metric@k curves ---------------------------------------------------------------------------
def test_curves_hand_computed() -> None:
    ev = small_ev()
    frame = D.curves(ev, RECS, TRUTH, max_k=4)
    assert list(frame.columns) == ["Precision@k", "Recall@k"]
    assert list(frame.index) == [1, 2, 3, 4]
    # precision@k divides by k: user 1 hits at ranks 1 and 3, user 2 at rank 3
    # k=1: (1/1 + 0)/2 = .5; k=2: (1/2 + 0)/2 = .25; k=3: (2/3 + 1/3)/2 = .5;
    # k=4: (2/4 + 1/4)/2 = .375
    np.testing.assert_allclose(frame["Precision@k"], [0.5, 0.25, 0.5, 0.375])
    # recall@k: user 1 has 2 relevant, user 2 has 1
    # k=1: (1/2 + 0)/2; k=2: (1/2 + 0)/2; k=3: (2/2 + 1/1)/2; k=4: the same
    np.testing.assert_allclose(frame["Recall@k"], [0.25, 0.25, 1.0, 1.0])


def test_curves_one_evaluate_call_equal_to_separate_calls(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    ev = small_ev(ties="item")
    calls = []
    real = rv.evaluate

    def counting(*a: object, **k: object) -> rv.EvaluationResult:
        calls.append(a[2])
        return real(*a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(rv, "evaluate", counting)
    frame = D.curves(ev, RECS, TRUTH, max_k=3)
    assert len(calls) == 1  # every cutoff of every curve in one evaluation
    assert len(calls[0]) == 2 * 3
    monkeypatch.undo()
    for k in (1, 2, 3):
        one = rv.evaluate(RECS, TRUTH, [f"precision@{k}", f"recall@{k}"], ties="item")
        assert frame.loc[k, "Precision@k"] == one[f"precision@{k}"]
        assert frame.loc[k, "Recall@k"] == one[f"recall@{k}"]


def test_curves_follow_the_results_settings() -> None:
    tied = RECS.assign(score=[1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0])
    for ties in ("optimistic", "pessimistic", "expected"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", rv.RecevalWarning)
            ev = rv.evaluate(tied, TRUTH, ["precision@2", "ndcg@2"], ties=ties)
        frame = D.curves(ev, tied, TRUTH)
        assert frame.loc[2, "Precision@k"] == pytest.approx(ev["precision@2"])
        assert frame.loc[2, "NDCG@k"] == pytest.approx(ev["ndcg@2"])
    conv = rv.evaluate(RECS, TRUTH, ["ndcg@3", "map@3"], convention="trec_eval")
    frame = D.curves(conv, RECS, TRUTH)  # the convention's variants, named as in the result
    assert list(frame.columns) == ["NDCG(grades='judged')@k", "MAP(denominator='relevant')@k"]
    assert frame.loc[3].tolist() == pytest.approx([conv["ndcg@3"], conv["map@3"]])


@settings(max_examples=25, deadline=None)
@given(S.datasets(), st.sampled_from(["stable", "item", "expected"]))
def test_curves_equal_separate_evaluations_and_grow(data: tuple[pd.DataFrame, pd.DataFrame],
                                                    ties: str) -> None:
    recs, truth = data
    metrics = ["recall@3", "hit_rate@3", "ndcg@3", "precision@3"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rv.RecevalWarning)
        try:
            ev = rv.evaluate(recs, truth, metrics, ties=ties)
        except rv.RecevalError:  # no evaluable user in this draw
            return
        frame = D.curves(ev, recs, truth, max_k=5)
        for k in range(1, 6):
            one = rv.evaluate(recs, truth, [m.replace("@3", f"@{k}") for m in metrics],
                              ties=ties)
            assert frame.loc[k].tolist() == pytest.approx(list(one.to_dict().values()),
                                                          nan_ok=True)
    # reading more of the list never loses a hit or a relevant item
    for fam in ("Recall@k", "HitRate@k"):
        assert (np.diff(frame[fam].to_numpy()) >= -1e-12).all()
    assert frame.loc[3].tolist() == pytest.approx(list(ev.to_dict().values()), nan_ok=True)


#: Inputs other than those evaluated: the curves would contradict the metric table.
OTHER_INPUTS = {
    "fewer recs": lambda: (RECS.iloc[:4], TRUTH),
    "fewer truth users": lambda: (RECS, TRUTH[TRUTH.user_id == 1]),
    "other scores": lambda: (RECS.assign(score=-RECS["score"]), TRUTH),
    "more truth": lambda: (RECS, pd.concat([TRUTH, pd.DataFrame({"user_id": [1],
                                                                 "item_id": ["b"]})])),
}
#: Every door that draws the curves from recs and truth.
CURVE_DOORS = {
    "curves": lambda ev, r, t, tmp: rv.report.curves(ev, r, t),
    "curves max_k below the cutoffs": lambda ev, r, t, tmp: rv.report.curves(ev, r, t,
                                                                             max_k=1),
    "ev.report": lambda ev, r, t, tmp: ev.report(tmp / "r.html", recs=r, truth=t),
    "ev.plot.curves": lambda ev, r, t, tmp: ev.plot.curves(r, t),
    "evaluation_report": lambda ev, r, t, tmp: rv.report.evaluation_report(ev, recs=r,
                                                                           truth=t),
}


@pytest.mark.parametrize("door", list(CURVE_DOORS))
@pytest.mark.parametrize("other", list(OTHER_INPUTS))
def test_curves_from_other_inputs_than_the_evaluated_are_refused(door: str, other: str,
                                                                 tmp_path) -> None:
    ev = small_ev()
    recs, truth = OTHER_INPUTS[other]()
    with pytest.raises(rv.exceptions.InvalidParameterError, match=r"^recs and truth are not "
                       r"the inputs this result was evaluated from: with them (Precision@2|"
                       r"Recall@3) is [\d.e-]+, and the result has [\d.e-]+") as info:
        CURVE_DOORS[door](ev, recs, truth, tmp_path)
    assert info.value.parameter == "recs"
    assert set(info.value.examples) <= {"Precision@2", "Recall@3"}
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize("door", list(CURVE_DOORS))
def test_curves_from_the_evaluated_inputs_pass(door: str, tmp_path) -> None:
    ev = small_ev()
    CURVE_DOORS[door](ev, RECS.sample(frac=1.0, random_state=0), TRUTH, tmp_path)
    # options that change the settings draw other curves on purpose: not checked
    assert D.curves(ev, RECS, TRUTH, ties="pessimistic").shape == (3, 2)


def test_curves_without_inputs_are_the_cutoffs_evaluated() -> None:
    ev = rv.evaluate(RECS, TRUTH, ["precision@1", "precision@3", "mrr", "user_coverage"])
    frame = D.curves(ev)
    assert list(frame.columns) == ["Precision@k"]  # mrr has no cutoff
    assert frame.loc[1, "Precision@k"] == ev["precision@1"]
    assert frame.loc[3, "Precision@k"] == ev["precision@3"]
    assert np.isnan(frame.loc[2, "Precision@k"])


def test_curves_bad_parameters() -> None:
    ev = small_ev()
    with pytest.raises(rv.exceptions.InvalidParameterError, match="max_k"):
        D.curves(ev, RECS, TRUTH, max_k=0)
    with pytest.raises(rv.exceptions.InvalidParameterError, match="both recs and truth"):
        D.curves(ev, RECS)
    assert D.curves(rv.evaluate(RECS, TRUTH, ["mrr"])).empty


# -- per-user distributions --------------------------------------------------------------------
def test_histogram_hand_computed() -> None:
    h = D.histogram(np.array([0.0, 0.25, 0.5, 1.0, np.nan]), label="x", bounds=(0.0, 1.0),
                    bins=4)
    np.testing.assert_allclose(h.edges, [0, 0.25, 0.5, 0.75, 1.0])
    assert h.counts.tolist() == [1, 1, 1, 1]  # 1.0 falls in the last, closed bin
    assert h.mean == pytest.approx((0 + 0.25 + 0.5 + 1.0) / 4)  # 0.4375
    assert (h.n_users, h.n_undefined) == (4, 1)
    assert h.quantiles[0.5] == pytest.approx(0.375)  # between 0.25 and 0.5
    assert h.share_zero == pytest.approx(0.25)


def test_histogram_of_unbounded_values_uses_their_range() -> None:
    h = D.histogram(np.array([2.0, 4.0, 4.0]), bounds=(0.0, float("inf")), bins=2)
    np.testing.assert_allclose(h.edges, [2.0, 3.0, 4.0])
    assert h.counts.tolist() == [1, 2]
    same = D.histogram(np.array([3.0, 3.0]), bins=2)  # one value: a unit-wide range
    assert same.counts.sum() == 2
    with pytest.raises(rv.exceptions.InvalidParameterError, match="bins"):
        D.histogram(np.array([1.0]), bins=0)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.floats(0, 1), st.just(float("nan"))), max_size=60),
       st.integers(1, 30))
def test_histogram_accounts_for_every_value(values: list[float], bins: int) -> None:
    arr = np.array(values, dtype=float)
    h = D.histogram(arr, bounds=(0.0, 1.0), bins=bins)
    assert h.counts.sum() == h.n_users == int((~np.isnan(arr)).sum())
    assert h.n_users + h.n_undefined == len(arr)
    assert len(h.edges) == bins + 1
    if h.n_users:
        assert h.mean == pytest.approx(float(np.nanmean(arr)))


def test_distributions_of_a_result() -> None:
    truth = TRUTH.assign(rating=[5.0, 4.0, 3.0])
    recs = pd.concat([RECS, pd.DataFrame({"user_id": [3], "item_id": ["z"], "score": [2.0]})])
    truth = pd.concat([truth, pd.DataFrame({"user_id": [3], "item_id": ["z"],
                                            "rating": [0.0]})])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rv.RecevalWarning)
        ev = rv.evaluate(recs, truth, ["precision@2", "mae", "user_coverage"],
                         missing_predictions="skip")
    hists = D.distributions(ev, bins=2)
    assert set(hists) == {"Precision@2", "MAE"}  # a global metric has no per-user values
    # precision@2: user 1 = 1/2, user 2 = 0; user 3 (no relevant item) is not in the ranking
    # metrics, so the histogram has 2 users
    assert hists["Precision@2"].n_users == 2
    assert hists["Precision@2"].counts.tolist() == [1, 1]
    assert hists["MAE"].aggregation == "micro"
    assert hists["MAE"].value == ev["mae"]


# -- popularity --------------------------------------------------------------------------------
def test_popularity_hand_computed() -> None:
    train = pd.Series(["x", "x", "x", "y", "y", "z"])  # x: 3, y: 2, z: 1 of 6
    recommended = pd.Series(["x", "y", "w", "x"])  # x: 2, y: 1, w (not in training): 1
    p = D.popularity(recommended, train, k=2, head_share=0.2)
    # ranked x, y, z, w (w has no training interaction, so it is last)
    assert p.bin_edges.tolist() == [0, 1, 2, 3, 4]
    np.testing.assert_allclose(p.train_share, [3 / 6, 2 / 6, 1 / 6, 0])
    np.testing.assert_allclose(p.recs_share, [2 / 4, 1 / 4, 0, 1 / 4])
    # the head: the fewest top items reaching 20% of 6 = 1.2 interactions -> x alone (3)
    assert p.n_head == 1
    assert p.recs_in_head == pytest.approx(2 / 4)
    assert (p.n_items, p.n_train_items, p.n_recommended_items) == (4, 3, 3)
    assert (p.n_recommendations, p.n_unseen_recommendations) == (4, 1)
    # 60% of 6 = 3.6 interactions needs x and y (3 + 2)
    assert D.popularity(recommended, train, k=2, head_share=0.6).n_head == 2
    # exactly 50% = 3 interactions: x alone reaches it
    assert D.popularity(recommended, train, k=2, head_share=0.5).n_head == 1


def test_popularity_bad_input() -> None:
    with pytest.raises(rv.exceptions.InvalidParameterError, match="head_share"):
        D.popularity(pd.Series(["x"]), pd.Series(["x"]), k=1, head_share=1.0)
    with pytest.raises(rv.exceptions.InvalidParameterError, match="train is empty"):
        D.popularity(pd.Series(["x"]), pd.Series([], dtype=object), k=1)


def _naive_popularity(recommended: list[int], train: list[int]) -> tuple[list[int], list[int]]:
    items = sorted(set(recommended) | set(train),
                   key=lambda i: (-train.count(i), -recommended.count(i)))
    return [train.count(i) for i in items], [recommended.count(i) for i in items]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 300), min_size=1, max_size=400),
       st.lists(st.integers(0, 300), max_size=200), st.floats(0.01, 0.99))
def test_popularity_against_a_naive_count(train: list[int], recommended: list[int],
                                          head: float) -> None:
    p = D.popularity(pd.Series(recommended, dtype=np.int64), pd.Series(train), k=None,
                     head_share=head)
    t, r = _naive_popularity(recommended, train)
    assert p.n_items == len(t)
    assert p.bin_edges[-1] == len(t)
    assert len(p.bin_edges) - 1 <= D.MAX_ITEM_BINS
    for b in range(len(p.bin_edges) - 1):
        lo, hi = p.bin_edges[b], p.bin_edges[b + 1]
        assert p.train_share[b] == pytest.approx(sum(t[lo:hi]) / len(train))
        if recommended:
            assert p.recs_share[b] == pytest.approx(sum(r[lo:hi]) / len(recommended))
    assert p.train_share.sum() == pytest.approx(1.0)
    # the head reaches its share, and one item fewer would not
    assert sum(t[:p.n_head]) >= head * len(train) - 1e-9
    assert p.n_head == 1 or sum(t[:p.n_head - 1]) < head * len(train)


def test_recommended_items_follow_the_tie_policy_and_k() -> None:
    recs = pd.DataFrame({"user_id": [1, 1, 1, 2, 2], "item_id": ["b", "a", "c", "a", "c"],
                         "score": [1.0, 1.0, 0.5, 2.0, 1.0]})
    truth = pd.DataFrame({"user_id": [1, 2], "item_id": ["a", "c"]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rv.RecevalWarning)
        stable = rv.evaluate(recs, truth, ["precision@1"])
        by_item = rv.evaluate(recs, truth, ["precision@1"], ties="item")
    # stable keeps b before a for user 1; ties='item' puts a first
    assert D.recommended_items(recs, truth, stable, 1).tolist() == ["b", "a"]
    assert D.recommended_items(recs, truth, by_item, 1).tolist() == ["a", "a"]
    assert sorted(D.recommended_items(recs, truth, stable, None)) == ["a", "a", "b", "c", "c"]
    # ids cast as the evaluation cast them: int recs against str truth
    int_recs = recs.assign(user_id=recs["user_id"], item_id=recs["item_id"].map(
        {"a": 1, "b": 2, "c": 3}))
    str_truth = pd.DataFrame({"user_id": [1, 2], "item_id": ["1", "3"]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rv.RecevalWarning)
        cast = rv.evaluate(int_recs, str_truth, ["precision@1"], id_cast="str")
    assert D.recommended_items(int_recs, str_truth, cast, 1).tolist() == ["2", "1"]


# -- figures: the data drawn -------------------------------------------------------------------
def test_curves_figure_draws_the_frame() -> None:
    frame = pd.DataFrame({"NDCG@k": [0.1, np.nan, 0.3], "MAP@k": [0.2, 0.25, 0.3]},
                         index=pd.RangeIndex(1, 4, name="k"))
    fig = F.curves_figure(frame)
    ax = fig.axes[0]
    ndcg, map_ = ax.get_lines()
    assert ndcg.get_label() == "NDCG@k"
    assert map_.get_label() == "MAP@k"
    assert list(ndcg.get_xdata()) == [1, 3]  # the unknown k=2 is not drawn
    np.testing.assert_allclose(ndcg.get_ydata(), [0.1, 0.3])
    np.testing.assert_allclose(map_.get_ydata(), [0.2, 0.25, 0.3])
    assert ax.get_title(loc="left") == "Metric@k for k = 1 ... 3"
    assert ax.get_xlabel()
    assert ax.get_ylabel()


def test_distribution_figure_draws_the_bins_and_the_mean() -> None:
    h = D.histogram(np.array([0.0, 0.0, 0.5, 1.0]), label="NDCG@10", bounds=(0, 1), bins=4)
    ax = F.distribution_figure(h).axes[0]
    (bars,) = ax.patches  # one step patch: the counts over the bin edges
    assert bars.get_data().values.tolist() == [2, 0, 1, 1]
    np.testing.assert_allclose(bars.get_data().edges, [0, 0.25, 0.5, 0.75, 1])
    mean_line = ax.get_lines()[0]
    assert list(mean_line.get_xdata()) == [pytest.approx(0.375)] * 2  # (0+0+.5+1)/4
    assert ax.get_title(loc="left") == "NDCG@10"
    assert ax.get_xlabel() == "per-user value"
    assert ax.get_ylabel() == "users"
    micro = D.histogram(np.array([1.0, 3.0]), bins=2, value=2.5, aggregation="micro")
    lines = [ln for ln in F.distribution_figure(micro).axes[0].get_lines()
             if not ln.get_label().startswith("_")]  # the labelled lines, not their markers
    assert [ln.get_xdata()[0] for ln in lines] == [pytest.approx(2.0), pytest.approx(2.5)]
    grid = F.distributions_figure([h, micro])
    assert len(grid.axes) == 2


def test_popularity_figure_draws_cumulative_shares() -> None:
    p = D.popularity(pd.Series(["x", "y", "w", "x"]), pd.Series(list("xxxyyz")), k=2)
    ax = F.popularity_figure(p).axes[0]
    train, recs, head = ax.get_lines()
    np.testing.assert_allclose(train.get_xdata(), [1, 2, 3, 4])
    np.testing.assert_allclose(train.get_ydata(), [3 / 6, 5 / 6, 1, 1])
    np.testing.assert_allclose(recs.get_ydata(), [2 / 4, 3 / 4, 3 / 4, 1])
    assert list(head.get_xdata()) == [1, 1]  # the short head ends after item 1
    assert ax.get_xscale() == "log"
    assert ax.get_title(loc="left")
    assert "top 2" in recs.get_label()


def test_ev_plot_accessor() -> None:
    from matplotlib.figure import Figure

    ev = small_ev()
    assert isinstance(ev.plot.curves(RECS, TRUTH, max_k=4), Figure)
    assert isinstance(ev.plot("curves"), Figure)
    assert isinstance(ev.plot.distribution(), Figure)
    assert isinstance(ev.plot.distribution("precision@2"), Figure)
    fig = ev.plot.popularity(RECS, TRUTH, pd.DataFrame({"user_id": [9, 9], "item_id": ["a",
                                                                                    "b"]}))
    assert isinstance(fig, Figure)
    with pytest.raises(rv.exceptions.InvalidParameterError, match="kind"):
        ev.plot("pie")
    cov = rv.evaluate(RECS, TRUTH, ["user_coverage", "precision@1"])
    with pytest.raises(rv.exceptions.InvalidParameterError, match="per-user"):
        cov.plot.distribution("user_coverage")
    assert "curves" in repr(ev.plot)


def test_svg_is_standalone_and_labelled() -> None:
    from receval.report._svg import to_svg

    fig = F.curves_figure(D.curves(small_ev(), RECS, TRUTH))
    svg = to_svg(fig, alt='curves "of" <metrics>', prefix="c1")
    assert svg.startswith("<svg role=\"img\" aria-label=\"curves &quot;of&quot; "
                          "&lt;metrics&gt;\"")
    assert "http://" not in svg.replace("http://www.w3.org", "")
    ids = re.findall(r'\bid="([^"]+)"', svg)
    assert ids
    assert all(i.startswith("c1-") for i in ids)
    assert "<text" in svg  # text stays text
    again = to_svg(F.curves_figure(D.curves(small_ev(), RECS, TRUTH)), alt="x", prefix="c1")
    assert again == svg.replace('curves &quot;of&quot; &lt;metrics&gt;', "x")


# -- the page ----------------------------------------------------------------------------------
class _Rows(HTMLParser):
    """Text of every table row."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: object) -> None:
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def table_rows(html: str) -> list[list[str]]:
    parser = _Rows()
    parser.feed(html)
    return parser.rows


def demo_inputs() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    runs, test, train = demo_runs(300, 200, seed=3)
    return runs["most popular"], test, train


def test_evaluation_report_content(tmp_path: object) -> None:
    from pathlib import Path

    recs, test, train = demo_inputs()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rv.RecevalWarning)
        ev = rv.evaluate(recs, test, ["ndcg@10", "recall@5", "map@10", "precision@3"],
                         relevance_threshold=4, convention="ms_recommenders")
    out = ev.report(Path(str(tmp_path)) / "r.html", recs=recs, truth=test, train=train,
                    title="Demo <popular>", generated="2026-01-01")
    html = out.read_text(encoding="utf-8")
    assert "<title>Demo &lt;popular&gt;</title>" in html
    rows = table_rows(html)
    for label, s in ev.summaries.items():  # label and value (4 decimals) in one row
        assert [label, f"{s.value:.4f}"] in [r[:2] for r in rows]
    assert "Convention: ms_recommenders" in html
    for label, v in ev.settings["metrics"].items():
        assert any(r[0] == label and v["library_name"] in r for r in rows)
    acc = {r[0]: r[1] for r in rows if len(r) == 3}
    assert acc["evaluated"] == f"{ev.users.n_evaluated:,}"
    assert acc["no relevant item"] == f"{len(ev.users.no_relevant):,}"
    for fid in ("fig-curves", "fig-dist-1", "fig-popularity"):
        assert f'id="{fid}"' in html
    assert html.count("<svg ") == 1 + 4 + 1  # curves, 4 per-user histograms, popularity
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html)
    assert "<script" not in html
    assert "generated <time>2026-01-01</time>" in html
    assert f"receval <span class=\"version\">{rv.__version__}</span>" in html


def test_report_without_inputs_and_without_curves(tmp_path: object) -> None:
    from pathlib import Path

    ev = rv.evaluate(RECS, TRUTH, ["mrr", "user_coverage"])
    html = ev.report(Path(str(tmp_path)) / "r.html").read_text(encoding="utf-8")
    assert "no metric@k curve to draw" in html
    ev2 = small_ev()
    html2 = rv.report.evaluation_report(ev2)
    assert "pass recs= and truth=" in html2
    with pytest.raises(rv.exceptions.InvalidParameterError, match="train"):
        rv.report.evaluation_report(ev2, train=TRUTH)


def test_notebook_html_needs_no_extras() -> None:
    ev = small_ev()
    html = ev._repr_html_()
    assert "<table>" in html
    assert "Precision@2" in html
    assert f"{ev['precision@2']:.4f}" in html
    code = ("import sys, pandas as pd, receval as rv\n"
            "ev = rv.evaluate(pd.DataFrame({'user_id': [1], 'item_id': [1], 'score': [1.]}),"
            " pd.DataFrame({'user_id': [1], 'item_id': [1]}), ['ndcg@1'])\n"
            "ev._repr_html_(); ev.plot\n"
            "bad = [m for m in ('matplotlib', 'jinja2') if m in sys.modules]\n"
            "assert not bad, bad\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_import_receval_imports_no_plotting_or_templates() -> None:
    code = ("import sys, receval, receval.cli\n"
            "bad = [m for m in ('matplotlib', 'jinja2', 'markupsafe') if m in sys.modules]\n"
            "assert not bad, bad\n")
    subprocess.run([sys.executable, "-c", code], check=True)


# -- the command line --------------------------------------------------------------------------
def test_cli_report_and_evaluate_report(tmp_path: object) -> None:
    from pathlib import Path

    from click.testing import CliRunner

    from receval.cli import cli

    d = Path(str(tmp_path))
    recs, test, train = demo_inputs()
    recs.to_csv(d / "recs.csv", index=False)
    test.to_csv(d / "test.csv", index=False)
    train.to_csv(d / "train.csv", index=False)
    runner = CliRunner()
    res = runner.invoke(cli, ["report", str(d / "recs.csv"), str(d / "test.csv"), "-m",
                              "ndcg@10", "-m", "precision@3", "-t", "4", "--train",
                              str(d / "train.csv"), "-o", str(d / "out.html"),
                              "--max-k", "12"])
    assert res.exit_code == 0, res.output
    assert "wrote" in res.output
    html = (d / "out.html").read_text(encoding="utf-8")
    assert "fig-popularity" in html
    assert "recs.csv" in html
    rows = table_rows(html)
    assert any(r[:1] == ["12"] for r in rows)  # curves reach --max-k
    res = runner.invoke(cli, ["evaluate", str(d / "recs.csv"), str(d / "test.csv"), "-m",
                              "ndcg@5", "-t", "4", "--report", str(d / "ev.html")])
    assert res.exit_code == 0, res.output
    assert "NDCG@5" in (d / "ev.html").read_text(encoding="utf-8")
    res = runner.invoke(cli, ["report", str(d / "recs.csv"), str(d / "test.csv"), "-m",
                              "ndcg@0", "-o", str(d / "bad.html")])
    assert res.exit_code == 2
    assert "cutoff" in res.output
    assert not (d / "bad.html").exists()


def test_progress_steps_are_off_without_a_terminal() -> None:
    from receval.cli._report import Steps

    with Steps(2) as steps:
        assert steps.show is False  # pytest captures stderr: not a terminal
        with steps.step("one"):
            pass
    with Steps(1, show=True) as shown, shown.step("shown"):
        assert shown.show
