"""The Spark engine: the same numbers as in memory, to the last bit, and the same errors.

Every test evaluates the same data in memory (pandas) and in Spark (``local[2]``) and asserts
``==`` on every aggregate, every per-user value and the user accounting.
"""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import receval as rv
from receval import exceptions as E
from receval.data._adapters import to_frame
from tests.conformance._data import cases
from tests.spark_session import spark, to_spark  # noqa: F401 - the session fixture

pytestmark = pytest.mark.slow

RANKING = ["ndcg@5", "ndcg(gain=exponential)@10", "map@10", "map", "precision@3",
           "recall@5", "mrr", "hit_rate@2", "arhr@10", "f1@5",
           "recall(aggregation=micro)@5", "item_coverage@5", "user_coverage"]

#: metrics every convention of the random test defines
COMMON = ["ndcg@5", "map@10", "precision@3", "recall@5", "mrr@10"]


def assert_identical(a: rv.EvaluationResult, b: rv.EvaluationResult) -> None:
    """``==`` on every aggregate, per-user value (NaN where NaN) and accounting."""
    assert a.labels == b.labels
    for label in a.labels:
        x, y = a[label], b[label]
        assert (x == y) or (np.isnan(x) and np.isnan(y)), (label, x, y)
    # the index holds the same ids; its dtype follows the input library (pandas' str for a
    # pandas frame, Arrow's string for what Spark sends), as for any Arrow input in memory
    pd.testing.assert_frame_equal(a.per_user.reset_index(drop=True),
                                  b.per_user.reset_index(drop=True), check_exact=True)
    assert a.per_user.index.tolist() == b.per_user.index.tolist()
    pd.testing.assert_frame_equal(a.users.summary(), b.users.summary(), check_exact=True)
    for name in ("evaluated", "skipped_no_relevant", "skipped_missing_recs",
                 "recs_without_truth", "missing_recs", "rating_evaluated", "rating_skipped"):
        assert sorted(getattr(a.users, name)) == sorted(getattr(b.users, name)), name
    for key in ("convention", "ties", "relevance_threshold", "metrics", "columns"):
        assert a.settings[key] == b.settings[key], key


def both(spark, recs, truth, metrics, **options):  # noqa: F811
    """The in-memory and the Spark result of one call (warnings of both compared)."""
    with warnings.catch_warnings(record=True) as mem_w:
        warnings.simplefilter("always")
        mem = rv.evaluate(recs, truth, metrics, **options)
    with warnings.catch_warnings(record=True) as spark_w:
        warnings.simplefilter("always")
        dist = rv.evaluate(to_spark(spark, recs), to_spark(spark, truth), metrics, **options)
    ours = [(w.category, str(w.message)) for w in mem_w
            if issubclass(w.category, rv.RecevalWarning)]
    theirs = [(w.category, str(w.message)) for w in spark_w
              if issubclass(w.category, rv.RecevalWarning)]
    assert ours == theirs
    return mem, dist


@settings(max_examples=25, deadline=None, derandomize=True,
          phases=[Phase.explicit, Phase.generate],
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(case=cases(ties=True), ties=st.sampled_from(["stable", "item", "expected",
                                                    "optimistic", "item_str_desc"]),
       convention=st.sampled_from([None, None, "trec_eval", "lenskit", "ranx", "recbole"]),
       buckets=st.sampled_from([None, 1, 3, 7]))
def test_random_cases_identical(spark, case, ties, convention, buckets):  # noqa: F811
    options = {"ties": ties, "convention": convention}
    metrics = RANKING[:6] + RANKING[8:] if convention is None else COMMON
    mem, dist = both(spark, case.recs, case.truth, metrics, **options)
    assert_identical(mem, dist)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rv.RecevalWarning)  # compared in both() above
        again = rv.evaluate(to_spark(spark, case.recs), to_spark(spark, case.truth),
                            metrics, buckets=buckets, **options)
    assert_identical(mem, again)
    assert again.settings["engine"] == "spark"


def test_distinct_scores_every_metric(spark):  # noqa: F811
    rng = np.random.default_rng(3)
    users = np.repeat(np.arange(300), 20)
    recs = pd.DataFrame({"user_id": users, "item_id": rng.integers(0, 400, len(users)),
                         "score": rng.random(len(users))}).drop_duplicates(
        ["user_id", "item_id"], ignore_index=True)
    truth = pd.DataFrame({"user_id": np.repeat(np.arange(10, 320), 4),
                          "item_id": rng.integers(0, 400, 1240),
                          "rating": rng.integers(0, 6, 1240)}).drop_duplicates(
        ["user_id", "item_id"], ignore_index=True)
    mem, dist = both(spark, recs, truth, RANKING, relevance_threshold=3)
    assert_identical(mem, dist)
    assert dist.settings["partitions"] >= 2  # several buckets really were merged


def test_rating_metrics_and_fill(spark):  # noqa: F811
    rng = np.random.default_rng(5)
    truth = pd.DataFrame({"user": np.repeat(np.arange(40), 5), "item": np.tile(np.arange(5), 40),
                          "rating": rng.integers(1, 6, 200)})
    recs = truth.sample(frac=0.7, random_state=1).rename(columns={"rating": "prediction"})
    recs["prediction"] = rng.random(len(recs)) * 5
    metrics = ["rmse", "mae", "mse(aggregation=macro)", "rating_precision(threshold=4)",
               "spearman", "ndcg@3"]
    for fill in ("skip", "global_mean", 2.5):
        mem, dist = both(spark, recs, truth, metrics, missing_predictions=fill)
        assert_identical(mem, dist)


def test_beyond_accuracy_with_train(spark):  # noqa: F811
    rng = np.random.default_rng(11)
    train = pd.DataFrame({"user_id": rng.integers(0, 60, 900), "item_id": rng.integers(0, 80, 900)}
                         ).drop_duplicates(ignore_index=True)
    recs = pd.DataFrame({"user_id": np.repeat(np.arange(60), 10),
                         "item_id": rng.integers(0, 80, 600), "score": rng.random(600)}
                        ).drop_duplicates(["user_id", "item_id"], ignore_index=True)
    truth = pd.DataFrame({"user_id": np.arange(5, 65), "item_id": rng.integers(0, 80, 60)})
    metrics = ["novelty@5", "gini@5", "entropy@5", "personalization@5", "popularity@5",
               "long_tail@5", "catalog_coverage@5", "ndcg@5"]
    mem, dist = both(spark, recs, truth, metrics, train=train)
    assert_identical(mem, dist)
    with pytest.raises(E.InvalidParameterError, match="train is a Spark DataFrame"):
        rv.evaluate(to_spark(spark, recs), to_spark(spark, truth), metrics,
                    train=to_spark(spark, train))


def test_column_aliases_and_string_ids(spark):  # noqa: F811
    recs = pd.DataFrame({"userId": ["a", "a", "b", "b", "c"], "movieId": ["x", "y", "x", "z", "y"],
                         "rank": [1, 2, 1, 2, 1]})
    truth = pd.DataFrame({"userId": ["a", "b", "b", "d"], "movieId": ["y", "z", "x", "x"],
                          "relevance": [1.0, 2.0, 1.0, 1.0]})
    mem, dist = both(spark, recs, truth, ["ndcg@2", "precision@1", "mrr"])
    assert_identical(mem, dist)
    named = rv.Columns(user="userId", item="movieId", rank="rank", rating="relevance")
    mem, dist = both(spark, recs, truth, ["ndcg@2"], columns=named)
    assert_identical(mem, dist)


def test_rows_in_order_without_score(spark):  # noqa: F811
    recs = pd.DataFrame({"user_id": [2, 2, 2, 1, 1], "item_id": [5, 3, 4, 9, 8]})
    truth = pd.DataFrame({"user_id": [1, 2], "item_id": [8, 4]})
    mem, dist = both(spark, recs, truth, ["mrr", "ndcg@3"])
    assert_identical(mem, dist)
    assert dist["mrr"] == (1 / 2 + 1 / 3) / 2  # user 1: 8 is 2nd; user 2: 4 is 3rd


def test_id_cast(spark):  # noqa: F811
    recs = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [10, 11, 10], "score": [3, 2, 1.0]})
    truth = pd.DataFrame({"user_id": ["1", "2"], "item_id": ["11", "10"]})
    mem, dist = both(spark, recs, truth, ["mrr"], id_cast="str")
    assert_identical(mem, dist)
    mem, dist = both(spark, recs, truth, ["mrr"], id_cast="int")
    assert_identical(mem, dist)


# -- bad input: the same error classes as in memory ---------------------------------------------
GOOD_RECS = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [10, 11, 10], "score": [3, 2, 1.0]})
GOOD_TRUTH = pd.DataFrame({"user_id": [1, 2], "item_id": [11, 10], "rating": [1, 2]})


@pytest.mark.parametrize(("recs", "truth", "options", "error"), [
    (GOOD_RECS.assign(score=[3, np.nan, 1]), GOOD_TRUTH, {}, E.NonFiniteValueError),
    (pd.concat([GOOD_RECS, GOOD_RECS.head(1)], ignore_index=True), GOOD_TRUTH, {},
     E.DuplicateRowError),
    (GOOD_RECS, GOOD_TRUTH.assign(rating=[1, -2]), {}, E.InvalidGradeError),
    (GOOD_RECS, GOOD_TRUTH.assign(item_id=["11", "10"]), {}, E.IdTypeMismatchError),
    (GOOD_RECS.rename(columns={"user_id": "who"}), GOOD_TRUTH, {}, E.ColumnNotFoundError),
    (GOOD_RECS.assign(prediction=1.0), GOOD_TRUTH, {}, E.ColumnNotFoundError),
    (GOOD_RECS, GOOD_TRUTH, {"columns": {"rating": "nope"}}, E.ColumnNotFoundError),
    (GOOD_RECS, GOOD_TRUTH.assign(rating=[0, 0]), {}, E.EmptyInputError),
    (GOOD_RECS.assign(rank=[2, 1, 1]), GOOD_TRUTH, {}, E.RankScoreMismatchError),
    (GOOD_RECS, GOOD_TRUTH, {"missing_recs": "bogus"}, E.InvalidParameterError),
    (GOOD_RECS.assign(score=[1.0, 1.0, 1.0]), GOOD_TRUTH, {"strict": True}, E.DataError),
], ids=["nan-score", "duplicate", "negative-grade", "id-types", "no-user-column",
        "ambiguous-score", "unknown-rating-column", "no-relevant", "rank-vs-score",
        "bad-policy", "strict-ties"])
def test_bad_input_same_error(spark, recs, truth, options, error):  # noqa: F811
    metrics = ["precision@1", "ndcg@2"]
    with pytest.raises(error) as in_memory:
        rv.evaluate(recs, truth, metrics, **options)
    with pytest.raises(error) as in_spark:
        rv.evaluate(to_spark(spark, recs), to_spark(spark, truth), metrics, **options)
    assert type(in_spark.value) is type(in_memory.value)
    assert in_spark.value.parameter == in_memory.value.parameter
    assert in_spark.value.column == in_memory.value.column


def test_empty_tables(spark):  # noqa: F811
    from pyspark.sql.types import LongType, StructField, StructType

    schema = StructType([StructField("user_id", LongType()), StructField("item_id", LongType())])
    empty = spark.createDataFrame([], schema)
    with pytest.raises(E.EmptyInputError, match="recs is empty"):
        rv.evaluate(empty, to_spark(spark, GOOD_TRUTH), ["mrr"])
    with pytest.raises(E.EmptyInputError, match="truth is empty"):
        rv.evaluate(to_spark(spark, GOOD_RECS), empty, ["mrr"])


def test_one_spark_one_pandas_is_an_error(spark):  # noqa: F811
    with pytest.raises(E.InvalidParameterError, match="both recs and truth") as err:
        rv.evaluate(to_spark(spark, GOOD_RECS), GOOD_TRUTH, ["mrr"])
    assert err.value.parameter == "truth"
    with pytest.raises(E.InvalidParameterError, match="never pulled into the driver"):
        to_frame(to_spark(spark, GOOD_RECS), "recs")


def test_raw_rows_never_reach_the_driver(spark):  # noqa: F811
    """The session's spark.driver.maxResultSize is 1 MB; the inputs are ~50 MB: collecting
    them fails, evaluating them does not (only one row of results per user travels)."""
    n_users, per_user = 4_000, 400
    recs = spark.range(n_users * per_user).selectExpr(
        "id div 400 as user_id", "id % 400 as item_id",
        "cast(((id * 7919) % 1000) as double) / 1000 as score",
        "repeat('x', 20) as padding")
    truth = spark.range(n_users * 5).selectExpr(
        "id div 5 as user_id", "(id * 37) % 400 as item_id", "1 as rating")
    with pytest.raises(Exception, match=r"maxResultSize|bigger than"):
        recs.collect()
    result = rv.evaluate(recs, truth, ["ndcg@10", "precision@10"], buckets=8)
    assert result.users.n_evaluated == n_users
    assert 0 < result["ndcg@10"] < 1


def test_import_receval_does_not_import_pyspark():
    code = "import sys, receval; assert 'pyspark' not in sys.modules, 'pyspark imported'"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_float_ids_of_two_widths_meet(spark):  # noqa: F811
    """float32 user ids on one side, float64 on the other, -0.0 beside 0.0: in memory they
    are the same users (1.5 == 1.5, -0.0 == 0.0), so they must meet in one bucket on Spark
    (Spark's hash of a float differs from that of the same double, and -0.0's bits from 0.0's).
    """
    users = np.array([0.5, 1.5, 2.25, 3.0, 4.75, 0.0, 6.5, 7.25], dtype=np.float32)
    recs = pd.DataFrame({"user_id": np.repeat(users, 2),
                         "item_id": np.tile([1, 2], len(users)),
                         "score": np.tile([2.0, 1.0], len(users))})
    truth = pd.DataFrame({"user_id": users.astype(np.float64), "item_id": 2})
    truth.loc[truth["user_id"] == 0.0, "user_id"] = -0.0
    mem = rv.evaluate(recs, truth, ["mrr", "precision@1"])
    assert mem["mrr"] == 0.5  # item 2 is second in every list, of 8 users
    assert len(mem.per_user) == len(users)
    for buckets in (3, 7):
        dist = rv.evaluate(to_spark(spark, recs), to_spark(spark, truth),
                           ["mrr", "precision@1"], buckets=buckets)
        assert_identical(mem, dist)


def test_global_mean_fill_counts_only_the_truth_rows_kept(spark):  # noqa: F811
    """As in memory (tests/test_exact_mean.py): user 1 rates item 1 twice, 5.0 then 1.0, and
    both duplicates='first' and 'best' keep 5.0; the fill is the mean of the rows kept,
    (5 + 2 + 4) / 3 = 11/3 (over every row it would be 12/4 = 3).
    """
    truth = pd.DataFrame({"user_id": [1, 1, 2, 3], "item_id": [1, 1, 1, 1],
                          "rating": [5.0, 1.0, 2.0, 4.0]})
    recs = pd.DataFrame({"user_id": [1, 3], "item_id": [1, 1], "score": [5.0, 4.0]})
    for duplicates in ("first", "best"):
        mem, dist = both(spark, recs, truth, ["mae"], missing_predictions="global_mean",
                         duplicates=duplicates)
        assert_identical(mem, dist)
    # user 2's error |2 - 11/3| = 5/3, users 1 and 3 exact: MAE = (5/3) / 3
    assert mem["mae"] == rv.evaluate(recs, truth.drop(index=1), ["mae"],
                                     missing_predictions="global_mean")["mae"]
