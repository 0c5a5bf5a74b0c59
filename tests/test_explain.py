"""``receval.explain``: the value, the worked table and the closing arithmetic, by hand."""

from __future__ import annotations

from math import log2

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval.exceptions import InvalidGradeError, InvalidParameterError, NonFiniteValueError

TOL = 1e-12

DCG_COLUMNS = ["i", "grade", "gain=grade", "discount=1/log2(i+1)", "contribution", "cumulative"]


def test_ndcg6_value_and_terms():
    ex = rv.explain("ndcg@6", [3, 2, 3, 0, 1, 2])
    dcg = 3 / log2(2) + 2 / log2(3) + 3 / log2(4) + 0 / log2(5) + 1 / log2(6) + 2 / log2(7)
    idcg = 3 / log2(2) + 3 / log2(3) + 2 / log2(4) + 2 / log2(5) + 1 / log2(6)
    assert ex.value == pytest.approx(dcg / idcg, abs=TOL)
    assert round(ex.value, 3) == 0.961
    assert float(ex) == ex.value
    assert ex.numerator == pytest.approx(dcg, abs=TOL)
    assert ex.denominator == pytest.approx(idcg, abs=TOL)
    assert ex.grades == (3.0, 2.0, 3.0, 0.0, 1.0, 2.0)
    assert ex.metric == rv.metrics.parse("ndcg@6")
    assert repr(ex) == "Explanation(NDCG@6=0.960808)"


def test_ndcg6_table():
    ex = rv.explain("ndcg@6", [3, 2, 3, 0, 1, 2])
    t = ex.table
    assert list(t.columns) == DCG_COLUMNS
    assert len(t) == 6
    assert t["i"].tolist() == [1, 2, 3, 4, 5, 6]
    assert t["grade"].tolist() == [3.0, 2.0, 3.0, 0.0, 1.0, 2.0]
    assert t["gain=grade"].tolist() == [3.0, 2.0, 3.0, 0.0, 1.0, 2.0]
    disc = [1 / log2(i + 1) for i in range(1, 7)]
    np.testing.assert_allclose(t["discount=1/log2(i+1)"], disc, rtol=TOL, atol=TOL)
    contrib = [3 / log2(2), 2 / log2(3), 3 / log2(4), 0.0, 1 / log2(6), 2 / log2(7)]
    np.testing.assert_allclose(t["contribution"], contrib, rtol=TOL, atol=TOL)
    np.testing.assert_allclose(t["cumulative"], np.cumsum(contrib), rtol=TOL, atol=TOL)
    # the ideal ordering of the list's own relevant grades (the 0 is not relevant)
    it = ex.ideal_table
    assert it is not None
    assert list(it.columns) == DCG_COLUMNS
    assert it["grade"].tolist() == [3.0, 3.0, 2.0, 2.0, 1.0]
    np.testing.assert_allclose(
        it["contribution"], [3 / log2(2), 3 / log2(3), 2 / log2(4), 2 / log2(5), 1 / log2(6)],
        rtol=TOL, atol=TOL)
    assert it["contribution"].sum() == pytest.approx(ex.denominator, abs=TOL)


def test_ndcg6_str():
    text = str(rv.explain("ndcg@6", [3, 2, 3, 0, 1, 2]))
    assert text.startswith("NDCG@6 of grades [3, 2, 3, 0, 1, 2]")
    assert "ideal ordering:" in text
    assert "DCG@6 = 3 + 1.262 + 1.5 + 0 + 0.3869 + 0.7124 = 6.861" in text
    assert "IDCG@6 = 3 + 1.893 + 1 + 0.8614 + 0.3869 = 7.141" in text
    assert "NDCG@6 = 6.861 / 7.141 = 0.960808" in text
    ex = rv.explain("ndcg@6", [3, 2, 3, 0, 1, 2])
    assert ex.lines[0].startswith("DCG@6 = ")
    assert ex.lines[1].startswith("IDCG@6 = ")
    assert all(line in text for line in ex.lines)
    assert "<table" in ex._repr_html_()


def test_explain_with_ideal_seed001():
    ex = rv.explain("ndcg(gain=exponential)@5", [5, 3, 2, 1, 2], ideal=[5, 3, 2, 1, 2, 4, 0])
    dcg = ((2**5 - 1) / log2(2) + (2**3 - 1) / log2(3) + (2**2 - 1) / log2(4)
           + (2**1 - 1) / log2(5) + (2**2 - 1) / log2(6))
    idcg = ((2**5 - 1) / log2(2) + (2**4 - 1) / log2(3) + (2**3 - 1) / log2(4)
            + (2**2 - 1) / log2(5) + (2**2 - 1) / log2(6))
    assert ex.value == pytest.approx(dcg / idcg, abs=TOL)
    assert round(ex.value, 4) == 0.8296
    assert ex.table["gain=2^grade-1"].tolist() == [31.0, 7.0, 3.0, 1.0, 3.0]
    assert ex.ideal_table["grade"].tolist() == [5.0, 4.0, 3.0, 2.0, 2.0]
    assert ex.ideal_table["gain=2^grade-1"].tolist() == [31.0, 15.0, 7.0, 3.0, 3.0]
    assert ex.ideal_table["contribution"].sum() == pytest.approx(idcg, abs=TOL)


def test_explain_with_ideal_longer_than_k():
    # the ideal holds a grade-3 item that was not recommended
    ex = rv.explain("ndcg@6", [3, 2, 3, 0, 1, 2], ideal=[3, 2, 3, 0, 1, 2, 3])
    dcg = 3 / log2(2) + 2 / log2(3) + 3 / log2(4) + 1 / log2(6) + 2 / log2(7)
    idcg = 3 / log2(2) + 3 / log2(3) + 3 / log2(4) + 2 / log2(5) + 2 / log2(6) + 1 / log2(7)
    assert ex.value == pytest.approx(dcg / idcg, abs=TOL)
    assert ex.ideal_table["grade"].tolist() == [3.0, 3.0, 3.0, 2.0, 2.0, 1.0]


def test_explain_ideal_list_with_cutoff():
    # seed 004: ideal = the list 10, 20, 3, 7, 10 reordered 20, 10, 10, 7, 3, cut at 3
    ex = rv.explain("ndcg(ideal=list)@3", [10, 20, 3, 7, 10])
    dcg = 10 / log2(2) + 20 / log2(3) + 3 / log2(4)
    idcg = 20 / log2(2) + 10 / log2(3) + 10 / log2(4)
    assert ex.value == pytest.approx(dcg / idcg, abs=TOL)
    assert ex.denominator == pytest.approx(idcg, abs=TOL)
    # the worked ideal table must show the ideal the value uses: 20, 10, 10 (not the first
    # three grades 10, 20, 3 reordered to 20, 10, 3) and add up to the IDCG
    assert ex.ideal_table["grade"].tolist() == [20.0, 10.0, 10.0]
    assert ex.ideal_table["contribution"].sum() == pytest.approx(idcg, abs=TOL)
    assert "IDCG@3 = 20 + 6.309 + 5 = 31.31" in str(ex)


def test_explain_ap():
    # seed 003's list, 12 relevant items in all (7 never recommended)
    grades = [1, 1, 0, 0, 0, 1, 1, 0, 0, 1]
    s = 1 / 1 + 2 / 2 + 3 / 6 + 4 / 7 + 5 / 10
    ex = rv.explain("ap@10", grades, ideal=[1] * 12)
    assert ex.value == pytest.approx(s / min(10, 12), abs=TOL)
    assert list(ex.table.columns) == ["i", "grade", "relevant", "hits", "P@i", "rel*P@i"]
    assert ex.table["hits"].tolist() == [1, 2, 2, 2, 2, 3, 4, 4, 4, 5]
    np.testing.assert_allclose(ex.table["P@i"], [1, 1, 2 / 3, 2 / 4, 2 / 5, 3 / 6, 4 / 7,
                                                 4 / 8, 4 / 9, 5 / 10], rtol=TOL, atol=TOL)
    np.testing.assert_allclose(ex.table["rel*P@i"], [1, 1, 0, 0, 0, 3 / 6, 4 / 7, 0, 0,
                                                     5 / 10], rtol=TOL, atol=TOL)
    assert ex.numerator == pytest.approx(s, abs=TOL)
    assert "D = min(k=10, |R|=12) = 10" in str(ex)
    assert rv.explain("ap(denominator=relevant)@10", grades, ideal=[1] * 12).value == \
        pytest.approx(s / 12, abs=TOL)
    ex_h = rv.explain("ap(denominator=hits)@10", grades, ideal=[1] * 12)
    assert ex_h.value == pytest.approx(s / 5, abs=TOL)
    assert ex_h.denominator == 5
    # without ideal= the list is the whole truth: |R| = 5
    assert rv.explain("ap@10", grades).value == pytest.approx(s / 5, abs=TOL)


def test_explain_precision():
    ex = rv.explain("precision@5", [1, 0, 1, 0, 0, 1])
    assert ex.value == pytest.approx(2 / 5, abs=TOL)
    assert list(ex.table.columns) == ["i", "grade", "relevant", "hits"]
    assert len(ex.table) == 5
    assert "Precision@5 = hits / k = 2 / 5 = 0.4" in str(ex)
    # a list shorter than k: the empty places are misses
    short = rv.explain("precision@5", [1, 0, 1])
    assert short.value == pytest.approx(2 / 5, abs=TOL)
    assert len(short.table) == 3


def test_explain_recall_f1_hit_rate():
    grades = [1, 0, 1, 1]
    assert rv.explain("recall@3", grades, ideal=[1] * 5).value == pytest.approx(2 / 5, abs=TOL)
    # F1@3 = 2PR / (P + R) with P = 2/3, R = 2/5
    f1 = 2 * (2 / 3) * (2 / 5) / (2 / 3 + 2 / 5)
    ex = rv.explain("f1@3", grades, ideal=[1] * 5)
    assert ex.value == pytest.approx(f1, abs=TOL)
    assert "P = 2/3, R = 2/5" in str(ex)
    assert rv.explain("hit_rate@1", [0, 1]).value == 0.0
    assert rv.explain("hit_rate@2", [0, 1]).value == 1.0


def test_explain_mrr():
    ex = rv.explain("mrr", [0, 0, 1, 0, 1])
    assert ex.value == pytest.approx(1 / 3, abs=TOL)
    assert "first relevant item at rank 3: RR = 1/3" in str(ex)
    none = rv.explain("mrr@2", [0, 0, 1])
    assert none.value == 0.0
    assert "no relevant item within 2" in str(none)


def test_explain_rank_score():
    # hits at 1, 3, 4; 4 relevant in all; alpha = 2
    ex = rv.explain("rank_score(alpha=2)", [1, 0, 1, 1, 0, 0], ideal=[1, 1, 1, 1])
    num = 2 ** (-0 / 2) + 2 ** (-2 / 2) + 2 ** (-3 / 2)
    best = 2 ** (-0 / 2) + 2 ** (-1 / 2) + 2 ** (-2 / 2) + 2 ** (-3 / 2)
    assert ex.value == pytest.approx(num / best, abs=TOL)
    assert ex.numerator == pytest.approx(num, abs=TOL)
    assert ex.denominator == pytest.approx(best, abs=TOL)
    np.testing.assert_allclose(ex.table["discount=2^(-(i-1)/2)"],
                               [2 ** (-(i - 1) / 2) for i in range(1, 7)], rtol=TOL, atol=TOL)
    assert len(ex.ideal_table) == 4
    assert any(line.startswith("max = ") for line in ex.lines)


def test_explain_cg_dcg_arhr():
    assert rv.explain("cg@5", [5, 3, 2, 1, 2]).value == 5 + 3 + 2 + 1 + 2
    assert "CG@5 = 5 + 3 + 2 + 1 + 2 = 13" in str(rv.explain("cg@5", [5, 3, 2, 1, 2]))
    assert rv.explain("dcg(discount=breese)", [4, 3, 0, 5]).value == pytest.approx(
        4 / 1 + 3 / 1 + 0 / log2(3) + 5 / log2(4), abs=TOL)
    assert rv.explain("arhr@5", [0, 1, 0, 1]).value == pytest.approx(1 / 2 + 1 / 4, abs=TOL)


def test_explain_relevance_threshold():
    # grades below 2 are not relevant and have gain 0
    ex = rv.explain("ndcg@3", [3, 1, 2], relevance_threshold=2)
    assert ex.value == pytest.approx((3 / log2(2) + 2 / log2(4)) / (3 / log2(2) + 2 / log2(3)),
                                     abs=TOL)
    assert ex.table["gain=grade"].tolist() == [3.0, 0.0, 2.0]


@pytest.mark.parametrize("spec", ["ndcg@4", "ndcg(gain=exponential, discount=breese)@3",
                                  "ndcg(ideal=list)@2", "map@4", "ap(denominator=relevant)@4",
                                  "ap(denominator=hits)@2", "precision@3", "recall@2", "f1@4",
                                  "fbeta(beta=2)@3", "mrr", "arhr@4", "hit_rate@1", "cg@3",
                                  "dcg@4", "rank_score(alpha=3)@4", "rank_score"])
def test_explain_agrees_with_evaluate(spec):
    grades = [2, 0, 3, 1, 0]
    ideal = [*grades, 2, 1]  # two relevant items were not recommended
    items = [f"i{j}" for j in range(len(ideal))]
    recs = pd.DataFrame({"user": "u", "item": items[:5], "score": [5.0, 4.0, 3.0, 2.0, 1.0]})
    truth = pd.DataFrame({"user": "u", "item": items, "rating": [float(g) for g in ideal]})
    value = rv.evaluate(recs, truth, [spec])[spec]
    assert rv.explain(spec, grades, ideal=ideal).value == pytest.approx(value, abs=TOL)


@pytest.mark.parametrize("spec", ["rmse", "mae", "mse(aggregation=macro)", "spearman",
                                  "kendall", "rating_precision(threshold=4)", "user_coverage",
                                  "item_coverage@5"])
def test_explain_non_ranking_metric_raises(spec):
    with pytest.raises(InvalidParameterError):
        rv.explain(spec, [1, 2, 3])


def test_explain_bad_grades():
    with pytest.raises(InvalidGradeError):
        rv.explain("ndcg@3", [1, -1, 2])
    with pytest.raises(NonFiniteValueError):
        rv.explain("ndcg@3", [1, float("nan"), 2])


def _explain_cli(spec, grades, ideal=None, relevance_threshold=None):
    """The ``receval explain`` door: raises the RecevalError text it prints, as an error."""
    from click.testing import CliRunner

    from receval.cli import cli

    args = ["explain", spec, *[str(g) for g in grades]]
    if ideal is not None:
        args += ["--ideal", ",".join(str(g) for g in ideal)]
    if relevance_threshold is not None:
        args += ["-t", str(relevance_threshold)]
    out = CliRunner().invoke(cli, args, catch_exceptions=False)
    if out.exit_code:
        assert out.exit_code == 2, out.output
        assert "Traceback" not in out.output
        raise InvalidParameterError(out.output)
    return out.output


EXPLAIN_DOORS = {"python": lambda *a, **kw: rv.explain(*a, **kw), "cli": _explain_cli}
RANKING = ["ndcg@3", "recall@3", "map@3", "precision@3", "f1@3", "ndcg(ideal=list)@3",
           "dcg@3", "mrr"]


@pytest.mark.parametrize("door", sorted(EXPLAIN_DOORS))
@pytest.mark.parametrize("spec", RANKING)
@pytest.mark.parametrize(("grades", "ideal", "lacking"), [
    ([3, 2, 1], [3], "2, 1"),            # nDCG 1.59, recall 3, MAP 3 before
    ([3, 3, 0], [3, 2], "3"),            # a multiset: two 3s need two 3s
    ([1, 0, 1], [0], "1, 1"),            # no relevant judged grade at all
    ([2, 1, 0], [1, 1, 0, 0], "2"),
])
def test_explain_refuses_an_ideal_without_the_lists_grades(door, spec, grades, ideal, lacking):
    with pytest.raises(InvalidParameterError, match="ideal must hold all of the user's judged "
                       "grades") as info:
        EXPLAIN_DOORS[door](spec, grades, ideal)
    assert f"lacks the list's relevant grades {lacking}" in str(info.value)


@pytest.mark.parametrize("door", sorted(EXPLAIN_DOORS))
@pytest.mark.parametrize("spec", RANKING)
def test_explain_ideal_needs_only_the_relevant_grades(door, spec):
    """Non-relevant grades (0, or below the threshold) need not be in ideal."""
    EXPLAIN_DOORS[door](spec, [3, 0, 2], [3, 2, 2])
    EXPLAIN_DOORS[door](spec, [3, 1, 2], [3, 2], relevance_threshold=2)
    EXPLAIN_DOORS[door](spec, [3, 1, 2], [3, 2, 1, 1])


@pytest.mark.parametrize("door", sorted(EXPLAIN_DOORS))
@pytest.mark.parametrize("threshold", [float("nan"), -1, -0.5, "4", True])
def test_explain_checks_the_threshold_as_evaluate_does(door, threshold):
    if door == "cli" and not isinstance(threshold, float):
        threshold = float("nan") if threshold in ("4", True) else threshold  # click: a float
    rule = r"relevance_threshold must be a number >= 0 \(grades below it are not relevant\)"
    with pytest.raises(InvalidParameterError, match=rule):
        EXPLAIN_DOORS[door]("ndcg@3", [1, 0], relevance_threshold=threshold)
    if door == "python":
        recs = pd.DataFrame({"user": 1, "item": [1, 2], "score": [2.0, 1.0]})
        with pytest.raises(InvalidParameterError, match=rule):
            rv.evaluate(recs, recs[["user", "item"]], ["ndcg@3"],
                        relevance_threshold=threshold)


@pytest.mark.parametrize("door", sorted(EXPLAIN_DOORS))
@pytest.mark.parametrize("spec", ["ndcg@99999999999999999999", f"recall@{2**63}"])
def test_explain_refuses_a_huge_cutoff(door, spec):
    with pytest.raises(InvalidParameterError, match=r"at most 2\*\*31 - 1"):
        EXPLAIN_DOORS[door](spec, [1, 0])
