"""rv.split on Spark DataFrames: the same rows in each part as the in-memory split of
``toPandas()``, the same report, the same errors, computed in Spark.

Each comparison splits a Spark DataFrame and its ``toPandas()`` (the rows in the order Spark
reads them) with the same options, and asserts that every row is in the same part and that
the reports are equal field by field (the Spark report's settings add ``engine`` and, for
per-user splits, ``buckets``).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import receval as rv
from receval import exceptions as E
from receval._kernels.hashing import hash_positions, seed_key
from receval.data._idhash import id_hashes
from tests.spark_session import spark, to_spark  # noqa: F401 - the session fixture

pytestmark = pytest.mark.slow


def _log(seed: int = 0, n: int = 160, string_ids: bool = False) -> pd.DataFrame:
    """Users 0-11 (ints or strings), items with repeats, times 0-29 (many ties)."""
    rng = np.random.default_rng(seed)
    users = rng.integers(0, 12, n)
    log = pd.DataFrame({"user_id": [f"u{u}" for u in users] if string_ids else users,
                        "item_id": [f"i{i}" for i in rng.integers(0, 25, n)],
                        "timestamp": rng.integers(0, 30, n), "row": np.arange(n)})
    return log


def _parts_in_memory(split: rv.split.Split, frame: pd.DataFrame) -> dict[int, str]:
    rows = frame["row"].to_numpy()
    return {int(rows[i]): name for name, pos in (("train", split.train_rows),
                                                 ("test", split.test_rows),
                                                 ("dropped", split.dropped_rows))
            for i in pos}


def _parts_in_spark(split: Any) -> dict[int, str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = split.labelled("part").select("row", "part").toPandas()
    return dict(zip(got["row"].astype(int), got["part"], strict=True))


def _report(split: rv.split.Split) -> dict[str, Any]:
    out = split.report.to_dict()
    out["settings"] = {k: v for k, v in out["settings"].items() if k not in ("engine", "buckets")}
    return out


def assert_same(sdf: Any, splitter: str, **options: Any) -> Any:
    """Split ``sdf`` in Spark and its ``toPandas()`` in memory; assert the same outcome."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = sdf.toPandas()
    fn = getattr(rv.split, splitter)
    try:
        mem = fn(frame, **options)
    except rv.RecevalError as exc:
        expected = exc
    else:
        dist = fn(sdf, **options)
        assert dist.report.settings["engine"] == "spark"
        assert dist.train.schema == dist.test.schema == dist.dropped.schema == sdf.schema
        assert _report(dist) == _report(mem)
        assert _parts_in_spark(dist) == _parts_in_memory(mem, frame)
        return dist
    with pytest.raises(type(expected)) as err:
        fn(sdf, **options)
    got = err.value
    assert (str(got), got.parameter, got.column, got.n_bad, got.examples) == (
        str(expected), expected.parameter, expected.column, expected.n_bad, expected.examples)
    return None


CASES = [
    ("random", {"test_size": 0.3, "seed": 1}),
    ("random", {"test_size": 0.25, "per_user": True, "seed": 2, "small_users": "drop",
                "min_rows": 14, "cold_items": "drop"}),
    ("temporal", {"test_size": 0.3, "ties": "row_order", "cold_users": "drop",
                  "cold_items": "drop"}),
    ("leave_k_out", {"k": 2, "order": "random", "seed": 3}),
]


@pytest.mark.parametrize(("splitter", "options"), CASES)
def test_each_splitter_gives_the_in_memory_rows(spark, splitter, options):  # noqa: F811
    assert_same(to_spark(spark, _log(string_ids=splitter == "random")), splitter, **options)


def test_worked_example_ties_at_the_cut(spark):  # noqa: F811
    """The ticks of docs/split.md: 0.4 * 5 = 2 rows asked, the 2nd latest time 2 is shared
    by three rows (positions 1-3): test takes the block, train leaves it, row order cuts it."""
    ticks = to_spark(spark, pd.DataFrame({"user_id": [1] * 5, "item_id": list("abcde"),
                                          "timestamp": [1, 2, 2, 2, 3], "row": range(5)}))
    for ties, test in (("test", [1, 2, 3, 4]), ("train", [4]), ("row_order", [3, 4])):
        s = rv.split.temporal(ticks, test_size=0.4, ties=ties)
        assert sorted(r["row"] for r in s.test.collect()) == test
        assert s.report.cut_time == 2
        assert s.report.ties_at_cut == 1
        assert s.report.target_test_rows == 2


@pytest.mark.parametrize("at", [10**9, -1])
def test_at_that_empties_a_part_is_the_in_memory_error(spark, at):  # noqa: F811
    """One rule for every global cut (issue 22): both parts need a row, as in memory."""
    log = pd.DataFrame({"user_id": [1, 2, 1, 2], "item_id": list("abcd"),
                        "timestamp": [5, 1, 7, 3], "row": range(4)})
    assert assert_same(to_spark(spark, log), "temporal", at=at) is None  # the same error
    s = assert_same(to_spark(spark, log), "random", test_size=0.5, seed=4)
    assert s.report.user_leakage_rows is not None


def test_cold_user_of_a_per_user_split_dropped_in_its_partition(spark):  # noqa: F811
    """User 1's three rows share the time 5: its latest row is a block of three, all in test
    under ties="test", so user 1 has no training row: cold, dropped (3 rows). User 2's test
    row (time 3, item d) is kept; d has no training row: a cold item."""
    log = pd.DataFrame({"user_id": [1, 2, 1, 2, 1, 2], "item_id": list("aabbcd"),
                        "timestamp": [5, 1, 5, 2, 5, 3], "row": range(6)})
    s = assert_same(to_spark(spark, log), "leave_k_out", k=1, ties="test", cold_users="drop")
    assert sorted(r["row"] for r in s.dropped.collect()) == [0, 2, 4]
    assert [r["row"] for r in s.test.collect()] == [5]
    r = s.report
    assert (r.cold_users, r.cold_user_rows, r.dropped_by["cold_users"]) == (1, 3, 3)
    assert (r.cold_items, r.cold_item_rows, r.ties_at_cut) == (2, 2, 1)


@st.composite
def calls(draw: st.DrawFn) -> tuple[pd.DataFrame, str, dict[str, Any]]:
    """A random log (int or string ids, int or datetime times, many ties) and a split."""
    n = draw(st.integers(2, 40))
    string_ids = draw(st.booleans())
    users = draw(st.lists(st.integers(0, 5), min_size=n, max_size=n))
    log = pd.DataFrame({
        "user_id": [f"u{u}" for u in users] if string_ids else users,
        "item_id": draw(st.lists(st.integers(0, 7), min_size=n, max_size=n)),
        "timestamp": draw(st.lists(st.integers(0, draw(st.sampled_from([3, 1000]))),
                                   min_size=n, max_size=n)),
        "row": np.arange(n)})
    if draw(st.booleans()):
        log["timestamp"] = pd.to_datetime(log["timestamp"], unit="h")
    share = draw(st.sampled_from([0.2, 0.25, 1 / 3, 0.5, 0.7]))
    cold = {"cold_users": draw(st.sampled_from(["keep", "drop"])),
            "cold_items": draw(st.sampled_from(["keep", "drop", "error"]))}
    ties = draw(st.sampled_from(["test", "train", "row_order"]))
    seed = draw(st.integers(0, 2**40))
    name, options = draw(st.sampled_from([
        ("random", {"test_size": share, "seed": seed}),
        ("random", {"test_size": share, "seed": seed, "per_user": True}),
        ("temporal", {"test_size": share, "ties": ties}),
        ("temporal", {"test_size": share, "ties": ties, "per_user": True}),
        ("leave_k_out", {"k": 1, "ties": ties, "small_users": "drop"}),
    ]))
    return log, name, {**options, **cold}


@settings(max_examples=6, deadline=None, derandomize=True,
          phases=[Phase.explicit, Phase.generate],
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(call=calls())
def test_random_cases_identical(spark, call):  # noqa: F811
    log, splitter, options = call
    assert_same(to_spark(spark, log), splitter, **options)


def test_datetime_and_float_times(spark):  # noqa: F811
    """timestamp and timestamp_ntz columns (at= too), and float times with infinities."""
    log = _log(1, n=60)
    dated = log.assign(timestamp=pd.to_datetime(log["timestamp"], unit="D"))
    sdf = to_spark(spark, dated)
    assert_same(sdf, "temporal", test_size=0.3, ties="row_order")
    ntz = sdf.withColumn("timestamp", sdf["timestamp"].cast("timestamp_ntz"))
    s = assert_same(ntz, "temporal", at="1970-01-21")
    assert s.report.cut_time == pd.Timestamp("1970-01-21")
    floats = log.assign(timestamp=log["timestamp"] / 7).astype({"timestamp": np.float64})
    floats.loc[[0, 5], "timestamp"] = np.inf
    floats.loc[[1, 2], "timestamp"] = -np.inf
    fsdf = to_spark(spark, floats)
    # 1 row asked: the cut is +inf; 18 rows: a finite cut; 59 rows: -inf (train empty)
    for share in (0.02, 0.3, 0.99):
        assert_same(fsdf, "temporal", test_size=share)


def test_aliases_int32_and_float_ids(spark):  # noqa: F811
    """Columns found by their aliases, as in memory; int32 users and float items."""
    log = _log(4, n=50).rename(columns={"user_id": "userId", "item_id": "movieId",
                                        "timestamp": "time"})
    log["movieId"] = log["movieId"].str[1:].astype(np.float64) / 2
    sdf = to_spark(spark, log)
    sdf = sdf.withColumn("userId", sdf["userId"].cast("int"))
    s = assert_same(sdf, "random", test_size=0.3, per_user=True, seed=5, cold_items="drop")
    assert s.report.settings["columns"] == {"user": "userId", "item": "movieId",
                                            "timestamp": "time"}


def test_error_policies_raise_the_in_memory_errors(spark):  # noqa: F811
    sdf = to_spark(spark, _log(2, n=80))
    assert_same(sdf, "leave_k_out", k=1, min_rows=8, small_users="error")
    assert_same(sdf, "temporal", at=20, cold_users="error")
    assert_same(sdf, "temporal", test_size=0.5, per_user=True, cold_items="error")


def test_bad_inputs(spark):  # noqa: F811
    good = _log(3, n=20)
    with pytest.raises(E.InvalidParameterError, match="kfold does not run on a Spark"):
        rv.split.kfold(to_spark(spark, good), n_splits=3)
    nulls = to_spark(spark, good.astype({"user_id": "float64"}).assign(
        user_id=lambda f: f["user_id"].where(f["row"] != 3)))
    with pytest.raises(E.NonFiniteValueError, match="user id column 'user_id' has 1 missing"):
        rv.split.random(nulls)
    text_time = to_spark(spark, good.assign(timestamp=good["timestamp"].astype(str)))
    with pytest.raises(E.SchemaError, match="must hold numbers"):
        rv.split.temporal(text_time, test_size=0.2)
    with pytest.raises(E.EmptyInputError, match="data is empty"):
        rv.split.random(to_spark(spark, good).limit(0))
    with pytest.raises(E.ColumnNotFoundError, match="timestamp"):
        rv.split.temporal(to_spark(spark, good.drop(columns="timestamp")), test_size=0.2)
    s = rv.split.temporal(to_spark(spark, good), at=10)
    with pytest.raises(E.InvalidParameterError, match="no row positions"):
        s.train_rows  # noqa: B018
    assert repr(s).endswith("spark)")
    train, test = s
    assert train.columns == test.columns == list(good.columns)


def test_hashes_are_spark_xxhash64(spark):  # noqa: F811
    """The keys of in-memory random splits are Spark's xxhash64: of positions, and of ids
    of every kind (integers, strings, floats, booleans, bytes)."""
    from pyspark.sql import functions as F

    seed = 2024
    ids = {"integer": pd.Index([0, 1, -7, 2**40]), "string": pd.Index(["", "a", "é日本" * 9]),
           "float": pd.Index([0.5, -0.0, 1e300]), "bool": pd.Index([False, True]),
           "bytes": pd.Index([b"", b"\x00\xff" * 20])}
    casts = {"integer": "long", "float": "double", "bool": "long"}
    for kind, index in ids.items():
        sdf = spark.createDataFrame([(v,) for v in index.tolist()], ["v"]) \
            if kind != "bool" else spark.createDataFrame([(v,) for v in index], "v boolean")
        col = F.col("v").cast(casts[kind]) if kind in casts else F.col("v")
        got = [r["h"] for r in sdf.select(F.xxhash64(F.lit(seed).cast("long"), col)
                                          .alias("h")).collect()]
        assert got == id_hashes(index, seed_key(seed)).view(np.int64).tolist(), kind
    got = [r["h"] for r in spark.range(50).select(
        F.xxhash64(F.lit(seed).cast("long"), F.col("id")).alias("h")).collect()]
    assert got == hash_positions(50, seed_key(seed)).tolist()


def test_raw_rows_never_reach_the_driver(spark):  # noqa: F811
    """maxResultSize is 1 MB; the log is ~6 MB: collecting it fails, splitting it does not."""
    log = spark.range(150_000).selectExpr("id % 3000 as user_id", "(id * 7919) % 5000 as item_id",
                                          "id div 7 as timestamp", "repeat('x', 30) as padding")
    with pytest.raises(Exception, match=r"maxResultSize|bigger than"):
        log.collect()
    s = rv.split.temporal(log, test_size=0.2, per_user=True)
    assert s.report.rows["test"] == 3000 * 10  # floor(0.2 * 50 + 1/2) of each user's 50 rows
    g = rv.split.random(log, test_size=0.1, seed=0)
    assert g.report.rows["test"] == g.test.count() == 15_000
