"""Conformance of ``convention="elliot"`` with Elliot's metric definitions, re-implemented.

Elliot (sisinflab/elliot 0.3.1) is not on PyPI and its requirements (hyperopt from a git URL,
torch 2.7.1, tensorflow >= 2.19, pyg wheels from data.pyg.org) cannot be installed here, so
there is no live comparison. ``test_conv_elliot_library.py`` compares with values that
Elliot's own evaluation code produced, run from a source checkout
(``fixtures/make_elliot.py``); this module adds hypothesis-drawn cases against a reference
that is an independent implementation of the same definitions, written for
this test from the definitions read in Elliot's v0.3.1 sources (``elliot/evaluation/``, as
recorded in the probe report); it shares no code with Elliot. It checks that the preset
implements those definitions, not that it reproduces an Elliot installation. (While this
test was written, the reference was also cross-checked, outside the project, against a
line-by-line transcription of those Elliot sources on about 2,600 random cases, thresholds
0, 1, 3 and 4: no difference.)

Definitions (Elliot's metric classes, cutoff k, relevance threshold t):

* relevance (``relevance/relevance.py``, ``BinaryRelevance``/``DiscountedRelevance``): a
  test item is relevant when its rating >= t; t = ``relevance_threshold``, 0 when not
  configured (every test rating counts);
* ``Precision@k``: hits in the first k / k (also for a shorter list) == ``precision@k``;
* ``Recall@k``: hits / |R| (R: the relevant test items, recommended or not) == ``recall@k``;
* ``F1@k``: 2PR / (P + R) of those, 0 when both are 0 == ``f1@k``;
* ``HR@k``: 1 if a hit is in the first k == ``hit_rate@k``;
* ``MRR@k``: 1 / rank of the first hit within k, else 0 == ``mrr@k``;
* ``MAP@k``: the mean of P@i over every place i = 1..k (P@i = hits in the first i / i, also
  past the end of a short list), not only the relevant places ==
  ``ap(denominator=k, positions=all)@k``;
* ``nDCG@k``: gain 2^(rating - t + 1) - 1 for a relevant item (0 otherwise), discount
  1 / log2(i + 1), ideal = the min(|R|, k) largest gains of the relevant test items, 0 when
  the DCG is 0 == ``ndcg(gain=shifted_exponential)@k``.

Users (``Evaluator._process_test_data`` and each metric's ``eval_user_metric``): those with a
recommendation list and test data, then only those with at least one relevant item;
``BaseMetric.eval`` is the plain average over them. Preset settings: ``missing_recs='skip'``,
``relevance_threshold=0.0``, receval's defaults otherwise (users without relevant items or
without truth left out; ties in input order). Elliot reads each list in the order given.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
from receval.exceptions import TiesAtCutoffWarning, UnknownMetricError
from tests.conformance._data import Case, assert_close, cases, close, undefined_warnings_ignored

pytestmark = pytest.mark.conformance

METRICS = ("precision", "recall", "f1", "hit_rate", "mrr", "ap", "ndcg")


# -- the reference: Elliot's definitions, written independently --------------------------


#: The probe's means (users u1..u4 of the edge case below), worked out by hand from Elliot's
#: definitions; test_conv_elliot_library.py checks that Elliot's own code gives them too.
PROBE_MEANS = {"precision@3": 0.25, "recall@3": 0.583333, "hit_rate@3": 0.75, "mrr@3": 0.5,
               "ap@3": 0.291667, "ndcg@3": 0.481753, "f1@3": 0.333333, "precision@5": 0.25,
               "recall@5": 0.916667, "hit_rate@5": 1.0, "mrr@5": 0.55, "ap@5": 0.275,
               "ndcg@5": 0.628993, "f1@5": 0.375}


def _lists(recs: pd.DataFrame) -> dict[str, list[str]]:
    """Each user's items by decreasing score; equal scores keep the input order."""
    ordered = recs.assign(_pos=np.arange(len(recs))).sort_values(
        ["user", "score", "_pos"], ascending=[True, False, True], kind="mergesort")
    return {str(u): list(g["item"]) for u, g in ordered.groupby("user", sort=False)}


def _grades(truth: pd.DataFrame) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for user, item, grade in truth[["user", "item", "rating"]].itertuples(index=False):
        out.setdefault(str(user), {})[str(item)] = float(grade)
    return out


def _precision_at(ranked: list[str], relevant: set[str], i: int) -> float:
    return sum(item in relevant for item in ranked[:i]) / i


def _user_values(ranked: list[str], grades: dict[str, float], k: int,
                 t: float) -> dict[str, float]:
    """Every metric for one user (who has at least one relevant item)."""
    relevant = {item for item, g in grades.items() if g >= t}
    top = ranked[:k]
    hits = [item in relevant for item in top]
    n_hits = sum(hits)
    precision = n_hits / k
    recall = n_hits / len(relevant)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    first = next((i for i, hit in enumerate(hits, start=1) if hit), None)

    def gain(item: str) -> float:
        g = grades.get(item)
        return 2.0 ** (g - t + 1) - 1 if g is not None and g >= t else 0.0

    dcg = sum(gain(item) / math.log2(i + 1) for i, item in enumerate(top, start=1))
    ideal_gains = sorted((gain(item) for item in relevant), reverse=True)[:min(len(relevant), k)]
    idcg = sum(g / math.log2(i + 1) for i, g in enumerate(ideal_gains, start=1))
    return {
        "precision": precision,
        "recall": recall,
        "f1": f1,
        "hit_rate": 1.0 if n_hits else 0.0,
        "mrr": 1.0 / first if first is not None else 0.0,
        "ap": sum(_precision_at(ranked, relevant, i) for i in range(1, k + 1)) / k,
        "ndcg": dcg / idcg if dcg > 0 else 0.0,
    }


def elliot_reference(recs: pd.DataFrame, truth: pd.DataFrame, k: int,
                     t: float = 0.0) -> dict[str, dict[str, float]]:
    """``{metric: {user: value}}`` over the users Elliot evaluates (see the module doc)."""
    lists, grades = _lists(recs), _grades(truth)
    out: dict[str, dict[str, float]] = {m: {} for m in METRICS}
    for user, ranked in lists.items():
        user_grades = grades.get(user, {})
        if not any(g >= t for g in user_grades.values()):
            continue  # no test data, or no relevant item
        for metric, value in _user_values(ranked, user_grades, k, t).items():
            out[metric][user] = value
    return out


def elliot_mae(recs: pd.DataFrame, truth: pd.DataFrame, t: float = 0.0) -> float:
    """Elliot's MAE: absolute errors of the relevant test ratings that have a prediction,
    summed over the users with recommendations, over the number of their relevant test
    ratings (a rating without a prediction adds to the denominator only)."""
    predictions = {(str(u), str(i)): float(s) for u, i, s in recs.itertuples(index=False)}
    users = set(recs["user"].astype(str))
    total, count = 0.0, 0
    for user, item, grade in truth[["user", "item", "rating"]].itertuples(index=False):
        if str(user) not in users or grade < t:
            continue
        count += 1
        if (str(user), str(item)) in predictions:
            total += abs(predictions[str(user), str(item)] - grade)
    return total / count


# -- comparison -----------------------------------------------------------------------------

def _specs(ks: list[int]) -> list[tuple[str, str, int]]:
    return [(metric, f"{metric}@{k}", k) for k in ks for metric in METRICS]


def _compare(recs: pd.DataFrame, truth: pd.DataFrame, ks: list[int],
             threshold: float | None = None) -> rv.EvaluationResult:
    specs = _specs(ks)
    t = 0.0 if threshold is None else threshold
    with undefined_warnings_ignored(), warnings.catch_warnings():
        warnings.simplefilter("ignore", TiesAtCutoffWarning)  # ties: input order in both
        if threshold is None:
            ev = rv.evaluate(recs, truth, [s for _, s, _ in specs], convention="elliot")
        else:
            ev = rv.evaluate(recs, truth, [s for _, s, _ in specs], convention="elliot",
                             relevance_threshold=threshold)
    references = {k: elliot_reference(recs, truth, k, t) for k in ks}
    for (metric, spec, k), label in zip(specs, ev.labels, strict=True):
        theirs = references[k][metric]
        ours = ev.per_user[label].dropna()
        assert set(ours.index) == set(theirs), f"{spec}: users {set(ours.index)} != {set(theirs)}"
        for user, value in theirs.items():
            assert_close(ours[user], value, f"{spec} (t={t}), user {user}")
        mean = float(np.mean(list(theirs.values())))
        assert close(ev[spec], mean), f"{spec} (t={t}): mean {ev[spec]} != {mean}"
    return ev


def _evaluable(case: Case, t: float) -> bool:
    relevant = set(case.truth.loc[case.truth["rating"] >= t, "user"])
    return bool(relevant & case.recs_users)


ks_strategy = st.lists(st.integers(1, 35), min_size=1, max_size=3, unique=True)


@settings(max_examples=200, deadline=None)
@given(case=cases(ties=False, graded=True, max_users=12), ks=ks_strategy)
def test_random_cases_match_elliot_definitions(case: Case, ks: list[int]) -> None:
    """Every metric at each k, per user and mean, with two thresholds.

    The default threshold 0: every truth row is relevant (grade 0 too, with nDCG gain
    2^1 - 1 = 1). ``relevance_threshold=3`` (Elliot's ``relevance_threshold: 3``): grades 3
    and 4 are relevant, with gains 2^1 - 1 and 2^2 - 1, and users without such an item are
    left out (``cases`` gives u0 a recommended item of grade 4, so someone is evaluated).
    Truth users without a list and lists without truth are left out at both.
    """
    _compare(case.recs, case.truth, ks)
    assert _evaluable(case, 3.0)
    _compare(case.recs, case.truth, ks, threshold=3.0)


def _frames(recs: list[tuple[str, str, float]],
            truth: list[tuple[str, str, int]]) -> tuple[pd.DataFrame, pd.DataFrame]:
    return (pd.DataFrame(recs, columns=["user", "item", "score"]),
            pd.DataFrame(truth, columns=["user", "item", "rating"]))


def test_reference_on_the_probe_example() -> None:
    """Values worked out by hand from Elliot's definitions (not by running Elliot) for
    k = 3 and 5, threshold 0: u1 ranks a..e with relevant {b, d, x}, u2 f..j with {f}, u3
    k..o with {o}, u4 p, q (shorter than k) with {q}."""
    recs, truth = _frames(
        [(u, i, float(-j)) for u, items in (("u1", "abcde"), ("u2", "fghij"), ("u3", "klmno"),
                                           ("u4", "pq")) for j, i in enumerate(items)],
        [("u1", "b", 1), ("u1", "d", 1), ("u1", "x", 1), ("u2", "f", 1), ("u3", "o", 1),
         ("u4", "q", 1)])
    ev = _compare(recs, truth, [3, 5])
    for spec, value in PROBE_MEANS.items():
        assert ev[spec] == pytest.approx(value, abs=1e-6), spec
    # u4 at k = 5: (0 + 1/2 + 1/3 + 1/4 + 1/5) / 5, P@i counted past the end of the list
    assert _column(ev, [3, 5], "ap@5")["u4"] == pytest.approx((1 / 2 + 1 / 3 + 1 / 4 + 1 / 5) / 5)


def _column(ev: rv.EvaluationResult, ks: list[int], spec: str) -> pd.Series:
    """The per-user column of ``spec`` in a result of ``_compare(..., ks)``."""
    return ev.per_user[ev.labels[[s for _, s, _ in _specs(ks)].index(spec)]]


def test_edge_graded_threshold_3() -> None:
    """Graded, t = 3 (probe example): u1 a=2 (not relevant), b=5 (gain 7), d=3 (gain 1),
    x=4 (gain 3, not recommended): nDCG@5 = (7/log2 3 + 1/log2 5) / (7 + 3/log2 3 + 1/2);
    u3 has only o=2 below the threshold and is left out."""
    recs, truth = _frames(
        [("u1", i, float(-j)) for j, i in enumerate("abcde")]
        + [("u3", i, float(-j)) for j, i in enumerate("klmno")],
        [("u1", "a", 2), ("u1", "b", 5), ("u1", "d", 3), ("u1", "x", 4), ("u3", "o", 2)])
    ev = _compare(recs, truth, [1, 3, 5], threshold=3.0)
    expected = (7 / math.log2(3) + 1 / math.log2(5)) / (7 + 3 / math.log2(3) + 1 / 2)
    assert ev["ndcg@5"] == pytest.approx(expected, rel=1e-12)
    assert ev["ndcg@5"] == pytest.approx(0.5161, abs=1e-4)
    assert list(ev.users.evaluated) == ["u1"]


def test_edge_users_on_one_side_and_short_lists() -> None:
    """u2 has truth and no list (left out, not 0), u3 a list and no truth (left out), u4 a
    list shorter than k (P divides by k; MAP averages P@i past its end)."""
    recs, truth = _frames(
        [("u1", "a", 3.0), ("u1", "b", 2.0), ("u1", "c", 1.0), ("u3", "a", 1.0),
         ("u4", "b", 2.0), ("u4", "a", 1.0)],
        [("u1", "b", 4), ("u1", "z", 1), ("u2", "a", 3), ("u4", "a", 0)])
    ev = _compare(recs, truth, [1, 2, 4, 10])
    assert set(ev.per_user.dropna(how="all").index) == {"u1", "u4"}
    _compare(recs, truth, [1, 2, 4, 10], threshold=3.0)  # u4's grade 0 not relevant: out


def test_edge_ties_in_input_order() -> None:
    """Elliot reads each list in the order given; with tied scores the list is the input
    order after a stable sort by score, which is receval's ``ties='stable'``."""
    recs, truth = _frames(
        [("u1", "c", 1.0), ("u1", "a", 1.0), ("u1", "b", 1.0), ("u1", "d", 0.5),
         ("u2", "b", 2.0), ("u2", "a", 2.0)],
        [("u1", "a", 4), ("u1", "d", 2), ("u2", "a", 1)])
    _compare(recs, truth, [1, 2, 3])
    _compare(recs, truth, [1, 2, 3], threshold=2.0)


def test_edge_no_relevant_items_only_user() -> None:
    """With t = 3 a user whose grades are all below 3 has no relevant item and is left out
    (Elliot's ``if len(relevant)``; receval ``no_relevant='skip'``)."""
    recs, truth = _frames([("u1", "a", 2.0), ("u1", "b", 1.0), ("u2", "a", 1.0)],
                          [("u1", "a", 1), ("u1", "b", 2), ("u2", "a", 3)])
    ev = _compare(recs, truth, [1, 2], threshold=3.0)
    assert set(ev.per_user.dropna(how="all").index) == {"u2"}


def _refuses(call: Callable[[], object]) -> bool:
    try:
        call()
    except UnknownMetricError:
        return True
    return False


def test_difference_rating_errors_not_offered() -> None:
    """Difference (preset): Elliot's MAE (and RMSE) scores only relevant test ratings and
    divides by every relevant test rating of the users with recommendations, also those
    without a prediction (which add no error); the convention does not offer MAE or RMSE.

    u1: b (5, predicted 4) and d (3, predicted 4) have predictions, x (4) has none: Elliot's
    MAE is (1 + 1) / 3; receval's MAE (without the convention, the common subset) is 1.
    """
    recs, truth = _frames([("u1", "b", 4.0), ("u1", "d", 4.0)],
                          [("u1", "b", 5), ("u1", "d", 3), ("u1", "x", 4)])
    assert elliot_mae(recs, truth) == pytest.approx(2 / 3)
    ours = rv.evaluate(recs, truth, "mae", missing_predictions="skip")["mae"]
    assert ours == 1.0
    assert _refuses(lambda: rv.evaluate(recs, truth, "mae", convention="elliot"))
    assert _refuses(lambda: rv.evaluate(recs, truth, "rmse", convention="elliot"))
