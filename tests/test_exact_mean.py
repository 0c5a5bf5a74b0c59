"""Aggregates are exactly rounded: the exact sum over users, divided and rounded once.

``mean = round(sum_u x_u / n)`` with the sum of the doubles taken exactly (no rounding until
the end), so the aggregate is the same whatever the order or the partitioning of the users,
and can differ from numpy's pairwise mean in the last bit.
"""

from __future__ import annotations

import contextlib
import math
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
from receval._exact import ExactSum, MetricSums, exact_mean, exact_ratio
from tests.conformance._data import cases
from tests.strategies import examples

finite = st.floats(allow_nan=False, allow_infinity=False)
arrays = st.lists(finite, min_size=0, max_size=60)


def exact(values: list[float]) -> Fraction:
    return sum((Fraction(v) for v in values), Fraction(0))


def rounded(q: Fraction) -> float:
    """The double nearest to q (int / int is correctly rounded), +-inf beyond the doubles."""
    try:
        return float(q)
    except OverflowError:
        return math.inf if q > 0 else -math.inf


# -- hand-computed -------------------------------------------------------------------------------
def test_precision_of_one_two_and_three_hits_is_exactly_two_tenths() -> None:
    """Three users with 1, 2 and 3 hits in their top 10: P@10 = 0.1, 0.2, 0.3 (as doubles).

    The doubles are 0.1000000000000000055511151231257827, 0.2000000000000000111022302462515654
    and 0.2999999999999999888977697537484346; their exact sum is
    0.6000000000000000055511151231257827 and a third of it 0.2000000000000000018503717077085942,
    whose nearest double is 0.2 (0.2000000000000000111, 9.3e-18 away; the double below,
    0.1999999999999999833, is 1.9e-17 away). Adding left to right rounds twice:
    0.1 + 0.2 = 0.30000000000000004, + 0.3 = 0.6000000000000001, / 3 = 0.20000000000000004.
    """
    recs = pd.DataFrame({"user_id": np.repeat([1, 2, 3], 10), "item_id": np.tile(range(10), 3),
                         "score": np.tile(np.arange(10, 0, -1.0), 3)})
    truth = pd.DataFrame({"user_id": [1, 2, 2, 3, 3, 3], "item_id": [0, 0, 1, 0, 1, 2]})
    ev = rv.evaluate(recs, truth, ["precision@10"])
    assert ev.per_user["Precision@10"].tolist() == [0.1, 0.2, 0.3]
    assert ev["precision@10"] == 0.2
    assert (0.1 + 0.2 + 0.3) / 3 == 0.20000000000000004  # what adding in order gives
    assert float(np.mean([0.1, 0.2, 0.3])) == 0.20000000000000004


def test_cancellation_is_exact() -> None:
    """1 + 1e100 + 1 - 1e100: left to right every 1 is absorbed (sum 0.0); exactly it is 2."""
    values = np.array([1.0, 1e100, 1.0, -1e100])
    assert float(np.sum(values)) == 0.0
    total = ExactSum.of(values)
    assert total.value() == 2.0
    assert total.mean() == 0.5  # 2 / 4


def test_micro_ratio_is_rounded_once() -> None:
    """Micro recall: hits 1, 1, 1 over relevant 3, 3, 3 -> 3 / 9 = 1/3, rounded once.

    Per user 1/3 each; pooled (1 + 1 + 1) / (3 + 3 + 3) = 3/9, whose nearest double is
    fl(1/3) = 0.333333333333333314829616256247.
    """
    num = MetricSums.of(np.full(3, 1 / 3), np.ones(3), np.full(3, 3.0))
    assert num.pooled() == 1 / 3
    tenths = ExactSum.of(np.full(10, 0.1))  # ten times fl(0.1): 1.000000000000000055511...
    assert tenths.value() == 1.0  # the exact sum rounds to 1.0
    assert exact_ratio(tenths, ExactSum.of(np.array([1.0]))) == 1.0
    assert sum([0.1] * 10) == 0.9999999999999999  # left to right: ten roundings


def test_special_values_are_counted_not_added() -> None:
    total = ExactSum.of(np.array([1.0, np.nan, 3.0, np.nan]))
    assert (total.n, total.n_nan, total.mean()) == (2, 2, 2.0)
    assert math.isnan(ExactSum.of(np.array([np.nan])).mean())
    assert math.isnan(ExactSum.of(np.empty(0)).mean())
    assert ExactSum.of(np.array([1.0, np.inf])).mean() == math.inf
    assert math.isnan(ExactSum.of(np.array([np.inf, -np.inf])).mean())
    assert ExactSum.of(np.array([1.7e308, 1.7e308])).value() == math.inf  # beyond the doubles
    assert ExactSum.of(np.array([1.7e308, 1.7e308])).mean() == 1.7e308  # the mean is not
    assert ExactSum.of(np.array([5e-324, 5e-324, 5e-324])).mean() == 5e-324  # subnormals
    assert ExactSum.of(np.array([-0.0, 0.0])).value() == 0.0


# -- properties ----------------------------------------------------------------------------------
@settings(max_examples=examples(300), deadline=None)
@given(values=arrays)
def test_sum_and_mean_are_the_correctly_rounded_exact_ones(values: list[float]) -> None:
    total = ExactSum.of(np.array(values, dtype=np.float64))
    assert total.fraction == exact(values)
    assert total.n == len(values)
    assert total.value() == rounded(exact(values))
    with contextlib.suppress(OverflowError):  # fsum gives up on intermediate overflow
        assert total.value() == math.fsum(values)
    if values:
        mean = total.mean()
        assert mean == float(exact(values) / len(values))
        assert exact_mean(np.array(values)) == mean


@settings(max_examples=examples(200), deadline=None)
@given(values=st.lists(st.floats(0, 1), min_size=1, max_size=60), data=st.data())
def test_mean_is_independent_of_order_and_partitioning(values: list[float],
                                                       data: st.DataObject) -> None:
    whole = ExactSum.of(np.array(values))
    order = data.draw(st.permutations(range(len(values))))
    shuffled = np.array(values)[order]
    cuts = sorted(data.draw(st.lists(st.integers(0, len(values)), max_size=5)))
    parts = np.split(shuffled, cuts)
    merged = sum((ExactSum.of(p) for p in parts), ExactSum())
    assert merged == whole
    assert merged.mean() == whole.mean() == float(exact(values) / len(values))


@settings(max_examples=examples(40), deadline=None)
@given(case=cases(), seed=st.integers(0, 2**32 - 1))
def test_aggregates_do_not_depend_on_the_users_order(case, seed: int) -> None:
    """Renaming the users (so that they sort in another order) changes no aggregate."""
    metrics = ["ndcg@5", "map", "precision@3", "recall(aggregation=micro)@5", "mrr"]
    users = pd.unique(pd.concat([case.recs["user"], case.truth["user"]]))
    names = dict(zip(users, np.random.default_rng(seed).permutation(len(users)) + 100,
                     strict=True))
    renamed = [frame.assign(user=frame["user"].map(names))
               for frame in (case.recs, case.truth)]
    with warnings.catch_warnings():  # receval's notes on random data are not the point here
        warnings.simplefilter("ignore", rv.RecevalWarning)
        a = rv.evaluate(case.recs, case.truth, metrics)
        b = rv.evaluate(*renamed, metrics)
    for label in a.labels:
        assert a[label] == b[label] or (math.isnan(a[label]) and math.isnan(b[label]))
        column = a.per_user[label].to_numpy()
        defined = column[~np.isnan(column)]
        if a.summaries[label].aggregation == "macro" and len(defined):
            assert a[label] == float(exact(defined.tolist()) / len(defined))


def test_fill_with_the_exact_global_mean() -> None:
    """missing_predictions='global_mean' fills with the exactly rounded mean truth grade.

    Grades 0.1, 0.2, 0.3 (as doubles): exact mean 0.2 (see above); user 2's rating has no
    prediction and is filled with 0.2: errors 0.1 - 0.1 = 0, 0.2 - 0.2 = 0, 0.3 - 0.3 = 0.
    """
    truth = pd.DataFrame({"user_id": [1, 2, 3], "item_id": [1, 1, 1],
                          "rating": [0.1, 0.2, 0.3]})
    recs = pd.DataFrame({"user_id": [1, 3], "item_id": [1, 1], "score": [0.1, 0.3]})
    ev = rv.evaluate(recs, truth, ["mae"], missing_predictions="global_mean")
    assert ev["mae"] == 0.0


def test_global_mean_fill_counts_only_the_truth_rows_kept(tmp_path) -> None:
    """Over Parquet buckets the fill is the mean of the truth rows the duplicates policy keeps.

    User 1 rates item 1 twice, 5.0 then 1.0; duplicates='first' keeps 5.0. The rows kept:
    5.0 (user 1), 2.0 (user 2): mean 3.5, not (5 + 1 + 2) / 3 = 2.67. User 2 has no
    prediction and gets 3.5: MAE = (|5 - 5| + |2 - 3.5|) / 2 users = 0.75.
    """
    truth = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [1, 1, 1],
                          "rating": [5.0, 1.0, 2.0]})
    recs = pd.DataFrame({"user_id": [1], "item_id": [1], "score": [5.0]})
    truth.to_parquet(tmp_path / "truth.parquet")
    recs.to_parquet(tmp_path / "recs.parquet")
    kw = {"missing_predictions": "global_mean", "duplicates": "first"}
    mem = rv.evaluate(recs, truth, ["mae"], **kw)
    assert mem["mae"] == 0.75
    for buckets in (1, 2, 3):
        parquet = rv.evaluate(tmp_path / "recs.parquet", tmp_path / "truth.parquet", ["mae"],
                              buckets=buckets, **kw)
        assert parquet["mae"] == 0.75
