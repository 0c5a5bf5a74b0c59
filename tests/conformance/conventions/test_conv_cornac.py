"""Conformance of ``convention="cornac"`` with Cornac 3.0.1, run live.

Definitions matched (``cornac.metrics``), each called per user the way
``cornac.eval_methods.base_method.ranking_eval`` calls it, ``compute(gt_pos=..., pd_rank=...)``
with the user's positive test items and the ranking of the candidate items:

* ``Precision(k)``: ``tp / k`` (k even when the ranking is shorter) == ``precision@k``;
* ``Recall(k)``: ``tp / len(gt_pos)`` == ``recall@k``;
* ``FMeasure(k)`` (named ``F1@k``): ``2PR / (P + R)``, 0 when both are 0 == ``f1@k``;
* ``HitRatio(k)``: 1 when ``tp > 0`` == ``hit_rate@k``;
* ``NDCG(k)``: gain ``2**isin(...) - 1`` (binary), discount ``log2(i + 1)``, ideal
  ``dcg_score(gt_pos, gt_pos, k)`` (min(k, |R|) hits on top) == ``ndcg@k`` with binary gain;
  ``NDCG()`` (k = -1: the whole ranking, ideal over every positive) == ``ndcg``;
* ``MRR()``: 1 / rank of the first positive in the whole ranking (no cutoff) == ``mrr``;
* ``MAP().compute(item_indices=..., pd_scores=..., gt_pos=...)``: over the candidates ranked
  by score, the mean over the positive candidates of (rank among the positives) / (rank
  overall), ranks by ``rankdata(..., "max")`` == ``ap`` (denominator |R|, no cutoff) when
  every positive is a candidate and the scores are distinct;
* ``MAE()`` / ``RMSE()``: ``np.average`` over every test rating (``rating_eval`` with
  ``user_based=False``, pooled) == ``mae`` / ``rmse`` (micro).

Settings of the preset: a test rating is positive when ``>= 1.0`` (``ranking_eval``'s
``rating_threshold=1.0``: ``relevance_threshold=1.0``); users without a positive test item are
skipped (``continue`` in ``ranking_eval``: receval's default ``no_relevant='skip'``); the mean is
``sum(user_results) / len(user_results)`` over the users evaluated; users with
recommendations and no test rating are not test users (``recs_without_truth='ignore'``).

Cornac ranks every candidate item of a test user (positives included), so the random cases
judge only recommended items (``relevant_in_recs=True``) and every truth user has a ranking
(``missing_recs=False``). ``Recommender.rank`` orders tied scores by ``argsort()[::-1]`` or
``argpartition`` (unspecified), so the random scores are distinct; the ranking given to Cornac
is the full score order (``rank(k=-1)``: with a cutoff, ``ranking_eval`` sorts only the top
``max_k`` and MRR past it reads an arbitrary order). Each ``differences`` entry of the preset
has a test below.
"""

from __future__ import annotations

import math
import warnings

import cornac.metrics as cm
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
from receval.exceptions import TiesAtCutoffWarning
from tests.conformance._data import (
    Case,
    RatingCase,
    assert_close,
    cases,
    close,
    rating_cases,
    undefined_warnings_ignored,
)

pytestmark = pytest.mark.conformance

THRESHOLD = 1.0  # ranking_eval(rating_threshold=1.0)


def _topk_pairs(k: int) -> list[tuple[str, cm.RankingMetric]]:
    return [(f"precision@{k}", cm.Precision(k=k)), (f"recall@{k}", cm.Recall(k=k)),
            (f"f1@{k}", cm.FMeasure(k=k)), (f"hit_rate@{k}", cm.HitRatio(k=k)),
            (f"ndcg@{k}", cm.NDCG(k=k))]


WHOLE = [("ndcg", cm.NDCG()), ("mrr", cm.MRR()), ("ap", cm.MAP())]


def _pairs(ks: list[int], whole: bool = True) -> list[tuple[str, cm.RankingMetric]]:
    out = [p for k in ks for p in _topk_pairs(k)]
    return out + WHOLE if whole else out


def _user_inputs(case: Case, user: str, ids: dict[str, int]) -> dict[str, np.ndarray]:
    """What ranking_eval passes to ``compute`` for one user, with integer item indices."""
    _, scores, items = case.candidates(user)
    indices = np.array([ids[i] for i in items], dtype=np.int64)
    order = np.argsort(-scores, kind="stable")
    truth = case.truth[case.truth["user"] == user]
    positives = truth.loc[truth["rating"] >= THRESHOLD, "item"]
    return {"gt_pos": np.array(sorted(ids[i] for i in positives), dtype=np.int64),
            "pd_rank": indices[order], "item_indices": indices, "pd_scores": scores}


def cornac_per_user(case: Case, pairs: list[tuple[str, cm.RankingMetric]]
                    ) -> dict[str, dict[str, float]]:
    """{receval metric: {user: Cornac's value}} over the users ranking_eval evaluates."""
    ids = {item: n for n, item in enumerate(sorted(set(case.recs["item"])
                                                   | set(case.truth["item"])))}
    out: dict[str, dict[str, float]] = {name: {} for name, _ in pairs}
    for user in sorted(case.truth_users):
        inputs = _user_inputs(case, user, ids)
        if len(inputs["gt_pos"]) == 0:  # ranking_eval: no positive test item -> continue
            continue
        for name, metric in pairs:
            out[name][user] = float(metric.compute(**inputs))
    return out


def _compare(case: Case, pairs: list[tuple[str, cm.RankingMetric]]) -> rv.EvaluationResult:
    with undefined_warnings_ignored():
        ev = rv.evaluate(case.recs, case.truth, [m for m, _ in pairs], convention="cornac")
    theirs = cornac_per_user(case, pairs)
    for (metric, _), label in zip(pairs, ev.labels, strict=True):
        column = ev.per_user[label].dropna()
        assert set(column.index) == set(theirs[metric]), metric
        for user, value in theirs[metric].items():
            assert_close(column[user], value, f"{metric}, user {user}")
        # ranking_eval: sum(user_results[i].values()) / len(user_results[i])
        mean = sum(theirs[metric].values()) / len(theirs[metric])
        assert close(ev[label], mean), f"{metric}: mean {ev[label]} != {mean}"
    return ev


@settings(max_examples=200, deadline=None)
@given(case=cases(ties=False, relevant_in_recs=True, missing_recs=False),
       ks=st.lists(st.integers(1, 35), min_size=1, max_size=3, unique=True))
def test_random_rankings_match_cornac(case: Case, ks: list[int]) -> None:
    """Every metric per user and on the mean, full rankings with distinct scores.

    Grades 0..4 (or 0/1): grade 0 is not positive (< 1.0); users whose test items are all
    grade 0 are skipped on both sides; users with recommendations and no truth are ignored.
    """
    _compare(case, _pairs(ks))


def _frame(rows: list[tuple[str, str, float]], value: str) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["user", "item", value])


EDGE_RECS = _frame([
    ("full", "a", 5.0), ("full", "b", 4.0), ("full", "c", 3.0), ("full", "d", 2.0),
    ("full", "e", 1.0),
    ("short", "a", 0.5), ("short", "b", 0.25),                      # shorter than k
    ("zero", "a", 1.0), ("zero", "b", 2.0),                         # no positive
    ("grades", "a", 3.0), ("grades", "b", 2.0), ("grades", "c", 1.0), ("grades", "d", 0.0),
    ("no_truth", "a", 1.0), ("no_truth", "b", 0.5),                 # recs, no truth
], "score")
EDGE_TRUTH = _frame([
    ("full", "b", 5.0), ("full", "d", 1.0), ("full", "x", 2.0),     # x: not a candidate
    ("short", "b", 2.0), ("short", "a", 1.0), ("short", "z", 4.0),  # z: not a candidate
    ("zero", "a", 0.0), ("zero", "b", 0.0),
    ("grades", "a", 0.5), ("grades", "b", 0.99), ("grades", "c", 1.0), ("grades", "d", 4.0),
], "rating")


def test_edge_cases_match_cornac() -> None:
    """Hand-made users: a positive outside the ranking, a ranking shorter than k, a user with
    only grade-0 ratings (skipped), fractional ratings around the 1.0 threshold (0.5 and 0.99
    are not positive, 1.0 is), a user with recommendations and no truth (not a test user).

    MAP is left out: with positives outside the ranking Cornac divides by the positives among
    the candidates (a listed difference, tested below).
    """
    pairs = [*_pairs([1, 2, 3, 5, 10], whole=False), ("ndcg", cm.NDCG()), ("mrr", cm.MRR())]
    ev = _compare(Case(EDGE_RECS, EDGE_TRUTH), pairs)
    assert set(ev.per_user[ev.labels[-1]].dropna().index) == {"full", "short", "grades"}
    assert list(ev.users.skipped_no_relevant) == ["zero"]
    assert list(ev.users.recs_without_truth) == ["no_truth"]


def test_user_without_ranking_scores_zero_at_k() -> None:
    """A test user with positives and an empty ranking: Cornac's top-k metrics give 0, and
    receval (missing_recs='zero', the default the preset keeps) scores the user 0 too.

    In ``ranking_eval`` this does not happen (every test user ranks every candidate).
    """
    recs = _frame([("a", "i1", 1.0), ("a", "i2", 0.5)], "score")
    truth = _frame([("a", "i1", 1.0), ("b", "i1", 3.0), ("b", "i2", 1.0)], "rating")
    pairs = _pairs([1, 3])
    ev = rv.evaluate(recs, truth, [m for m, _ in pairs], convention="cornac")
    empty = np.array([], dtype=np.int64)
    for (metric, instance), label in zip(pairs, ev.labels, strict=True):
        if metric in ("mrr", "ap"):
            continue  # Cornac: MRR raises, MAP is the mean of nothing (see below)
        value = instance.compute(gt_pos=np.array([1, 2]), pd_rank=empty)
        assert value == 0.0
        assert ev.per_user.loc["b", label] == 0.0


@settings(max_examples=200, deadline=None)
@given(case=rating_cases())
def test_rating_errors_match_cornac(case: RatingCase) -> None:
    """MAE and RMSE pooled over every test rating (``rating_eval(user_based=False)``)."""
    pairs = case.pairs()
    ev = rv.evaluate(case.recs, case.truth, ["mae", "rmse"], convention="cornac")
    truth = pairs["rating"].to_numpy(np.float64)
    pred = pairs["score"].to_numpy(np.float64)
    assert_close(ev["mae"], float(cm.MAE().compute(gt_ratings=truth, pd_ratings=pred)), "mae")
    assert_close(ev["rmse"], float(cm.RMSE().compute(gt_ratings=truth, pd_ratings=pred)),
                 "rmse")


# -- differences listed in the preset -----------------------------------------------------

def test_difference_map_ties_rank_max() -> None:
    """Cornac's MAP ranks tied scores with ``rankdata(method='max')``, overall and among the
    positives: three tied candidates with positives a, b give each rank 3 overall and rank 2
    among the positives, AP = (2/3 + 2/3) / 2 = 2/3. No order of the block gives that (the
    orders give 1, 5/6 or 7/12), so no receval tie policy does: receval keeps an order
    (stable: a, b, c gives 1) or the exact mean over the orders.
    """
    recs = _frame([("u", "a", 1.0), ("u", "b", 1.0), ("u", "c", 1.0)], "score")
    truth = _frame([("u", "a", 1.0), ("u", "b", 1.0)], "rating")
    theirs = float(cm.MAP().compute(item_indices=np.array([0, 1, 2]),
                                    pd_scores=np.ones(3), gt_pos=np.array([0, 1])))
    assert theirs == pytest.approx(2 / 3)
    assert rv.evaluate(recs, truth, "ap", convention="cornac")["ap"] == 1.0
    for ties in ("stable", "item", "item_desc", "optimistic", "pessimistic", "expected"):
        ours = rv.evaluate(recs, truth, "ap", convention="cornac", ties=ties)["ap"]
        assert not math.isclose(ours, theirs), ties


def test_difference_map_denominator_positives_among_candidates() -> None:
    """Cornac's MAP averages over the positives that are candidates (``isin(item_indices,
    gt_pos)``), so a positive outside the ranked items does not count: positives a and x, a
    ranked first, x not a candidate, gives AP = 1. receval divides by every relevant item
    (|R| = 2): AP = 1/2. (In ``ranking_eval`` every positive is a candidate unless it is
    unknown to the training set.)
    """
    recs = _frame([("u", "a", 2.0), ("u", "b", 1.0)], "score")
    truth = _frame([("u", "a", 1.0), ("u", "x", 1.0)], "rating")
    theirs = float(cm.MAP().compute(item_indices=np.array([0, 1]),
                                    pd_scores=np.array([2.0, 1.0]), gt_pos=np.array([0, 9])))
    assert theirs == 1.0
    assert rv.evaluate(recs, truth, "ap", convention="cornac")["ap"] == 0.5


def test_difference_mrr_raises_without_a_ranked_positive() -> None:
    """Cornac's MRR raises ValueError when no positive is in the ranking (and so would
    ``ranking_eval``); receval scores the user 0.
    """
    recs = _frame([("u", "a", 2.0), ("u", "b", 1.0), ("v", "a", 1.0)], "score")
    truth = _frame([("u", "x", 1.0), ("v", "a", 1.0)], "rating")
    with pytest.raises(ValueError, match="No matched"):
        cm.MRR().compute(gt_pos=np.array([9]), pd_rank=np.array([0, 1]))
    ev = rv.evaluate(recs, truth, "mrr", convention="cornac")
    assert ev.per_user.loc["u", ev.labels[0]] == 0.0
    assert ev["mrr"] == 0.5


def test_difference_tied_scores_in_descending_item_index() -> None:
    """Difference (preset): ``Recommender.rank`` sorts scores with ``argsort()[::-1]``, so
    equal scores come out by Cornac's item index, descending. MostPop on five items seen
    once each (indexed i0..i4 in input order) gives them all score 1: Cornac ranks i4 first;
    receval keeps the input order (i0 first). With i0 relevant, Precision@1 is 0 in Cornac,
    1 in receval."""
    from cornac.data import Dataset
    from cornac.models import MostPop

    items = [f"i{j}" for j in range(5)]
    train = Dataset.from_uir([(f"v{j}", item, 1.0) for j, item in enumerate(items)], seed=0)
    model = MostPop()
    model.fit(train)
    assert [train.iid_map[i] for i in items] == [0, 1, 2, 3, 4]
    ranked, scores = model.rank(0)
    assert len(set(scores.tolist())) == 1
    assert ranked.tolist() == [4, 3, 2, 1, 0]
    theirs = cm.Precision(k=1).compute(gt_pos=np.array([0]), pd_rank=ranked)
    recs = pd.DataFrame([("u", item, float(scores[train.iid_map[item]])) for item in items],
                        columns=["user", "item", "score"])
    truth = pd.DataFrame([("u", "i0", 1)], columns=["user", "item", "rating"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TiesAtCutoffWarning)
        ours = rv.evaluate(recs, truth, "precision@1", convention="cornac")["precision@1"]
    assert (ours, theirs) == (1.0, 0.0)
