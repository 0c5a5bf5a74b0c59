"""``evaluate(per_user="spark")``: per-user values that stay in Spark, for any number of users.

The per-user Spark DataFrame must hold the in-memory per-user table (``==``, null for NaN),
the aggregates must be the in-memory ones, the user accounting's counts exact with a few
example ids, and every user's groups must be in ``users.frame``; nothing per user is
collected to the driver, so a job whose per-user values exceed ``spark.driver.maxResultSize``
still runs.
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import receval as rv
from receval import exceptions as E
from tests.conformance._data import cases
from tests.spark_session import spark, to_spark  # noqa: F401 - the session fixture

pytestmark = pytest.mark.slow

METRICS = ["ndcg@5", "map@10", "precision@3", "recall(aggregation=micro)@5", "mrr",
           "item_coverage@5", "user_coverage"]


def run(spark, recs, truth, metrics, buckets=None, **options):  # noqa: F811
    """The in-memory result and the Spark result with per_user='spark'."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rv.RecevalWarning)  # compared in tests/test_spark.py
        mem = rv.evaluate(recs, truth, metrics, **options)
        dist = rv.evaluate(to_spark(spark, recs), to_spark(spark, truth), metrics,
                           per_user="spark", buckets=buckets, **options)
    return mem, dist


def collected(frame, user: str) -> pd.DataFrame:
    """A Spark per-user DataFrame as the in-memory table: indexed by user, NaN for null."""
    with warnings.catch_warnings():  # pyspark's own notes on pandas 3
        warnings.simplefilter("ignore")
        out = frame.toPandas()
    return out.set_index(user).rename_axis("user").sort_index().astype(np.float64)


def assert_same(mem: rv.EvaluationResult, dist: rv.EvaluationResult, user: str) -> None:
    for label in mem.labels:
        x, y = mem[label], dist[label]
        assert x == y or (np.isnan(x) and np.isnan(y)), (label, x, y)
        same = dataclasses.replace(dist.summaries[label], value=0.0)  # NaN != NaN
        assert dataclasses.replace(mem.summaries[label], value=0.0) == same, label
    table = collected(dist.per_user, user)
    assert list(table.columns) == list(mem.per_user.columns)
    assert table.index.tolist() == mem.per_user.index.tolist()
    np.testing.assert_array_equal(table.to_numpy(), mem.per_user.to_numpy(dtype=np.float64))
    assert mem.users.to_dict() == dist.users.to_dict()
    pd.testing.assert_frame_equal(mem.users.summary(), dist.users.summary(), check_exact=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        groups = dist.users.frame.toPandas().set_index(user).rename_axis("user").sort_index()
    expected = mem.users.frame
    assert groups.index.tolist() == expected.index.tolist()
    pd.testing.assert_frame_equal(groups, expected, check_dtype=False)
    for name in rv.UserAccounting.GROUPS:  # examples: the first ids of each group
        every = getattr(mem.users, name)
        assert list(getattr(dist.users, name)) == sorted(every)[:5], name
        assert dist.users.count(name) == len(every), name


@settings(max_examples=4, deadline=None, derandomize=True,
          phases=[Phase.explicit, Phase.generate],
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(case=cases(ties=True), ties=st.sampled_from(["stable", "expected", "item"]),
       buckets=st.sampled_from([1, 3]))
def test_random_cases_per_user_in_spark(spark, case, ties, buckets):  # noqa: F811
    mem, dist = run(spark, case.recs, case.truth, METRICS, ties=ties)
    assert_same(mem, dist, "user")
    assert dist.per_user_in_spark
    assert not dist.users.complete
    assert dist.settings["per_user"] == "spark"
    dist.unpersist()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rv.RecevalWarning)
        again = rv.evaluate(to_spark(spark, case.recs), to_spark(spark, case.truth), METRICS,
                            ties=ties, buckets=buckets, per_user="spark")
    assert_same(mem, again, "user")
    again.unpersist()


def test_rating_beyond_and_string_ids(spark):  # noqa: F811
    """Rating metrics, a per-list beyond metric, string ids under an alias (userId)."""
    rng = np.random.default_rng(5)
    truth = pd.DataFrame({"userId": [f"u{u}" for u in np.repeat(np.arange(40), 5)],
                          "movieId": np.tile(np.arange(5), 40),
                          "rating": rng.integers(1, 6, 200).astype(float)})
    recs = truth.sample(frac=0.7, random_state=1).rename(columns={"rating": "prediction"})
    recs["prediction"] = rng.random(len(recs)) * 5
    train = pd.DataFrame({"userId": ["x", "y", "y"], "movieId": [0, 1, 2]})
    metrics = ["rmse", "mae(aggregation=macro)", "spearman", "ndcg@3", "novelty@3", "gini@3"]
    mem, dist = run(spark, recs, truth, metrics, missing_predictions="global_mean",
                    train=train)
    assert_same(mem, dist, "userId")
    schema = dist.per_user.schema
    assert schema.names == ["userId", "RMSE", "MAE(aggregation='macro')", "Spearman",
                            "NDCG@3", "Novelty@3"]
    assert schema["userId"].dataType.simpleString() == "string"
    dist.unpersist()


def test_global_mean_fill_of_float_grades(spark):  # noqa: F811
    """missing_predictions='global_mean' with grades that are not short binary fractions:
    the exact sums of the Spark partitions give the in-memory (exactly rounded) mean."""
    rng = np.random.default_rng(8)
    truth = pd.DataFrame({"user_id": np.repeat(np.arange(30), 4), "item_id": np.tile(range(4), 30),
                          "rating": rng.random(120) * 5})
    recs = truth.sample(frac=0.5, random_state=2).rename(columns={"rating": "score"})
    mem, dist = run(spark, recs, truth, ["rmse", "mae(aggregation=macro)"],
                    missing_predictions="global_mean", buckets=3)
    assert_same(mem, dist, "user_id")
    dist.unpersist()


def test_one_job_computes_the_buckets_and_caches_them(spark, tmp_path):  # noqa: F811
    """The job that collects the summaries caches every bucket's user rows; the per-user
    DataFrames read that cache (written here to Parquet, labels as column names)."""
    recs = pd.DataFrame({"user_id": np.repeat(np.arange(50), 4), "item_id": np.tile(range(4), 50),
                         "score": np.tile([4.0, 3, 2, 1], 50)})
    truth = pd.DataFrame({"user_id": np.arange(0, 60), "item_id": np.arange(60) % 5})
    mem, dist = run(spark, recs, truth, ["ndcg@2", "recall(aggregation=micro)@3"], buckets=4)
    cache = dist._cache
    assert cache.is_cached
    storage = spark.sparkContext._jsc.sc().getRDDStorageInfo()
    assert any(info.numCachedPartitions() == info.numPartitions() == 4 for info in storage)
    dist.per_user.write.parquet(str(tmp_path / "per_user"))
    back = pd.read_parquet(tmp_path / "per_user").set_index("user_id").sort_index()
    np.testing.assert_array_equal(back.to_numpy(), mem.per_user.to_numpy())
    assert list(back.columns) == ["NDCG@2", "Recall(aggregation='micro')@3"]
    dist.unpersist()
    assert not cache.is_cached


def test_per_user_values_larger_than_max_result_size(spark):  # noqa: F811
    """spark.driver.maxResultSize is 1 MB in the test session. 60,000 users' per-user values
    cannot be collected: each user has a random 64-bit id and three per-user rating errors
    of random predictions (32 bytes that do not compress, about 1.9 MB in all). With
    per_user='spark' only the buckets' sums, counts and example ids are, and the job runs."""
    n_users = 60_000
    rows = spark.range(n_users * 5).selectExpr(
        "xxhash64(id div 5) as user_id", "id % 5 as item_id",
        "cast(id % 5 + 1 as double) as rating",
        "cast(xxhash64(id, 7) % 1000000 as double) / 200000 as score")
    recs, truth = rows.select("user_id", "item_id", "score"), rows.drop("score")
    metrics = ["mae(aggregation=macro)", "rmse(aggregation=macro)", "mse(aggregation=macro)",
               "ndcg@3"]
    with pytest.raises(Exception, match=r"maxResultSize|bigger than"):
        rv.evaluate(recs, truth, metrics, buckets=4)
    ev = rv.evaluate(recs, truth, metrics, buckets=4, per_user="spark")
    assert ev.users.n_evaluated == ev.users.count("rating_evaluated") == n_users
    assert len(ev.users.evaluated) == 5  # examples
    assert ev.per_user.count() == n_users
    assert ev.per_user.where("`NDCG@3` is null").count() == 0
    assert 0 < ev["ndcg@3"] < 1
    assert 0 < ev["mae(aggregation=macro)"] < 5
    ev.unpersist()


def test_what_needs_the_values_in_memory_says_so(spark):  # noqa: F811
    recs = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [10, 11, 10], "score": [3, 2, 1.0]})
    truth = pd.DataFrame({"user_id": [1, 2], "item_id": [11, 10]})
    _, dist = run(spark, recs, truth, ["mrr"])
    for call in (lambda: dist.by(pd.Series({1: "a", 2: "b"})),
                 lambda: dist.to_json(per_user=True),
                 lambda: rv.compare({"a": dist, "b": dist})):
        with pytest.raises(E.InvalidParameterError, match="per_user='spark'") as err:
            call()
        assert err.value.parameter == "per_user"
    assert "MRR" in dist.to_json()  # aggregates, settings and counts need no per-user values
    dist.unpersist()


def test_bad_input_is_raised_and_nothing_stays_cached(spark):  # noqa: F811
    recs = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [10, 11, 10],
                         "score": [3, np.nan, 1.0]})
    truth = pd.DataFrame({"user_id": [1, 2], "item_id": [11, 10]})
    before = len(spark.sparkContext._jsc.sc().getRDDStorageInfo())
    with pytest.raises(E.NonFiniteValueError):
        rv.evaluate(to_spark(spark, recs), to_spark(spark, truth), ["mrr"], per_user="spark")
    assert len(spark.sparkContext._jsc.sc().getRDDStorageInfo()) == before
