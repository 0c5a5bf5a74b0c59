"""Conformance of ``convention="ranx"`` with ranx, per user and on the mean.

Every receval metric is written without the parameters the preset supplies; ranx's name is
the one ``rv.conventions.get("ranx").library_name`` gives. Definitions matched (ranx 0.3.21):

* ``precision@k`` (hits / k) == ``precision``, ``recall@k`` == ``recall``, ``f1@k`` ==
  ``f1`` (receval ``fbeta`` with beta 1), ``hit_rate@k`` == ``hit_rate``, ``mrr@k`` ==
  ``mrr``;
* ``map@k`` == ``ap@k`` (the preset's ``denominator='relevant'``: sum of P@i at hits over
  the number of relevant items);
* ``ndcg@k`` (Jarvelin, gain = grade) == ``ndcg@k``, ``ndcg_burges@k`` (gain 2^grade - 1)
  == ``ndcg(gain=exponential)@k``, ``dcg@k`` / ``dcg_burges@k`` == ``dcg@k`` /
  ``dcg(gain=exponential)@k``;
* ``hits@k`` (relevant items within k) == ``cg@k`` (the preset's ``gain='binary'``);
* without ``@k`` ranx reads the whole run, as receval does.

Settings of the preset: ``no_relevant='zero'`` (a query whose judged items are all grade 0
scores 0 in ranx), receval's default ``missing_recs='zero'`` (ranx with
``make_comparable=True`` gives a query missing from the run an empty run, scored 0; run
queries without qrels are dropped, as receval ignores them) and ``relevance_threshold=1``
(ranx's default relevance level: grade >= 1; ``-lN`` is ``relevance_threshold=N``).
ranx's order of tied scores is its unstable sort's (see the difference test), so the random
cases have distinct scores.
"""

from __future__ import annotations

import pandas as pd
import pytest
import ranx  # type: ignore[import-untyped]
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
from tests.conformance._data import Case, assert_close, cases, close

pytestmark = [
    pytest.mark.conformance,
    # ranx's numba functions warn about a uint64 -> int64 cast (doc-id hashes) when they are
    # compiled, i.e. on first use without a numba cache
    pytest.mark.filterwarnings("ignore::numba.core.errors.NumbaTypeSafetyWarning"),
]

CONVENTION = rv.conventions.get("ranx")

# receval metric (read in the convention) -> ranx metric; "{k}" is "@k" or ""
NAMES = {
    "precision{k}": "precision{k}",
    "recall{k}": "recall{k}",
    "f1{k}": "f1{k}",
    "hit_rate{k}": "hit_rate{k}",
    "mrr{k}": "mrr{k}",
    "ap{k}": "map{k}",
    "ndcg{k}": "ndcg{k}",
    "ndcg(gain=exponential){k}": "ndcg_burges{k}",
    "dcg{k}": "dcg{k}",
    "dcg(gain=exponential){k}": "dcg_burges{k}",
    "cg{k}": "hits{k}",
}


def _pairs(ks: list[int | None]) -> list[tuple[str, str]]:
    out = []
    for k in ks:
        at = "" if k is None else f"@{k}"
        out += [(ours.format(k=at), theirs.format(k=at)) for ours, theirs in NAMES.items()]
    return out


def _compare(case: Case, ks: list[int | None], level: int | None = None) -> None:
    pairs = _pairs(ks)
    suffix = "" if level is None else f"-l{level}"
    ev = rv.evaluate(case.recs, case.truth, [m for m, _ in pairs], convention="ranx",
                     relevance_threshold=level)
    run = ranx.Run(case.run())
    names = [theirs + suffix for _, theirs in pairs]
    means = ranx.evaluate(ranx.Qrels(case.qrels()), run, names, make_comparable=True)
    if len(names) == 1:  # ranx returns a bare float for a single metric
        means = {names[0]: means}
    # every truth user, with or without recommendations or a relevant item
    assert set(ev.per_user.index) == case.truth_users == set(run.scores[names[0]])
    for (ours, _), theirs, label in zip(pairs, names, ev.labels, strict=True):
        column = ev.per_user[label].to_dict()
        for user, value in run.scores[theirs].items():
            assert_close(column[user], value, f"{ours} vs ranx {theirs}, user {user}")
        assert close(ev[label], means[theirs]), f"{ours}: mean {ev[label]} != {means[theirs]}"


cutoff_lists = st.lists(st.one_of(st.none(), st.integers(1, 35)), min_size=1, max_size=3,
                        unique=True)


@settings(max_examples=200, deadline=None)
@given(case=cases(ties=False), ks=cutoff_lists)
def test_convention_matches_ranx(case: Case, ks: list[int | None]) -> None:
    """Every metric at random cutoffs (and none), distinct scores, rows in random order.

    Graded (0..4) or binary qrels at ranx's relevance level 1; truth users without
    recommendations score 0 (make_comparable), users whose judged items are all grade 0
    score 0, run-only users are dropped by both.
    """
    _compare(case, ks)


@settings(max_examples=200, deadline=None)
@given(case=cases(graded=True, ties=False), ks=cutoff_lists, level=st.sampled_from([2, 3, 4]))
def test_relevance_level_matches_ranx(case: Case, ks: list[int | None], level: int) -> None:
    """``relevance_threshold=N`` under the convention is ranx's ``metric-lN``.

    Items graded below N are not relevant and have no gain; relevant items keep their raw
    grade as gain (Jarvelin) or 2^grade - 1 (Burges).
    """
    _compare(case, ks, level)


def test_library_names_are_ranx_names() -> None:
    """``library_name`` gives ranx's metric names, which ranx accepts."""
    for k in (1, 5, 10):
        for ours, theirs in _pairs([k]):
            assert CONVENTION.library_name(CONVENTION.metric(ours)) == theirs
    assert CONVENTION.library_name(CONVENTION.metric("ndcg(gain=exponential)@5")) == (
        "ndcg_burges@5")
    assert CONVENTION.library_name(CONVENTION.metric("cg@3")) == "hits@3"
    for ours in ("precision", "recall", "f1", "hit_rate", "mrr", "ap", "ndcg", "dcg", "cg"):
        assert CONVENTION.library_name(CONVENTION.metric(ours)) == NAMES[ours + "{k}"].format(
            k="")


def test_library_names_of_variants_without_cutoff() -> None:
    """Without a cutoff ranx's names are ``ndcg_burges`` and ``dcg_burges``."""
    assert CONVENTION.library_name(CONVENTION.metric("ndcg(gain=exponential)")) == (
        "ndcg_burges")
    assert CONVENTION.library_name(CONVENTION.metric("dcg(gain=exponential)")) == "dcg_burges"


# -- hand-made edge cases ---------------------------------------------------------------------

def _frames(run: dict[str, dict[str, float]],
            qrels: dict[str, dict[str, int]]) -> tuple[pd.DataFrame, pd.DataFrame]:
    recs = pd.DataFrame([(u, i, s) for u, d in run.items() for i, s in d.items()],
                        columns=["user", "item", "score"])
    truth = pd.DataFrame([(u, i, g) for u, d in qrels.items() for i, g in d.items()],
                         columns=["user", "item", "rating"])
    return recs, truth


def test_edge_cases_match_ranx() -> None:
    """A short list, users on one side only, all grade 0, graded relevance.

    * ``short``: 2 items, precision@5 divides by 5;
    * ``zero``: judged items all grade 0: 0 in both, counted in the mean;
    * ``no_run``: truth only: 0 in both (make_comparable), counted;
    * ``no_qrels``: run only: dropped by both;
    * ``graded``: grades 1..4, gains by grade (and 2^grade - 1 for Burges).
    """
    run = {"short": {"a": 2.0, "b": 1.0},
           "zero": {"a": 2.0, "b": 1.0},
           "no_qrels": {"a": 1.0},
           "graded": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}}
    qrels = {"short": {"b": 1, "c": 2},
             "zero": {"a": 0, "b": 0},
             "no_run": {"a": 4},
             "graded": {"a": 1, "c": 4, "d": 2, "e": 3, "b": 0}}
    recs, truth = _frames(run, qrels)
    case = Case(recs, truth)
    _compare(case, [None, 1, 2, 5])
    ev = rv.evaluate(recs, truth, ["precision@5", "ndcg@5"], convention="ranx")
    assert ev.per_user.loc["short", ev.labels[0]] == pytest.approx(1 / 5)
    assert ev.per_user.loc["zero"].tolist() == [0.0, 0.0]
    assert ev.per_user.loc["no_run"].tolist() == [0.0, 0.0]
    assert set(ev.per_user.index) == {"short", "zero", "no_run", "graded"}


# -- differences listed in the preset ---------------------------------------------------------

def test_ranx_tie_order_is_not_the_input_order() -> None:
    """Ties: ranx's order of equal scores is its sort's, receval keeps the input order.

    ranx sorts a run with numba's ``np.argsort`` (quicksort, not stable). For 50 items with
    one score, the first item (the relevant one) moves down the list, to a place that even
    depends on how often ranx sorts (``make_comparable=True`` sorts once more). A run given
    as a plain dict is sorted by ``argsort(score)[::-1]``, which reverses a short tied
    block: of two tied items the second comes first. receval (``ties='stable'`` in the
    preset) ranks the first input item first: MRR 1.
    """
    qrels = {"q": {"d0": 1}}
    run = {"q": {f"d{i}": 1.0 for i in range(50)}}
    recs, truth = _frames(run, qrels)
    ours = rv.evaluate(recs, truth, "mrr", convention="ranx")["mrr"]
    theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), "mrr", make_comparable=True)
    assert ours == 1.0
    assert theirs < 1.0
    pair = {"q": {"d0": 1.0, "d1": 1.0}}
    recs, truth = _frames(pair, qrels)
    assert rv.evaluate(recs, truth, "mrr", convention="ranx")["mrr"] == 1.0
    assert ranx.evaluate(qrels, pair, "mrr") == 0.5


def test_missing_run_queries_need_make_comparable() -> None:
    """ranx raises when the run misses a qrels query unless ``make_comparable=True``.

    The convention scores such a user 0, as ``make_comparable`` does; without it ranx
    refuses the input (an AssertionError naming ``make_comparable``).
    """
    qrels = {"q": {"a": 1}, "no_run": {"a": 1}}
    run = {"q": {"a": 1.0}}
    recs, truth = _frames(run, qrels)
    with pytest.raises(AssertionError, match="make_comparable"):
        ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), "ndcg@5")
    theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), "ndcg@5", make_comparable=True)
    ev = rv.evaluate(recs, truth, "ndcg@5", convention="ranx")
    assert theirs == 0.5
    assert ev["ndcg@5"] == 0.5
    assert ev.per_user.loc["no_run", ev.labels[0]] == 0.0
