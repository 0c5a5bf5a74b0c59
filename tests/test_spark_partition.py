"""How the Spark engine ships the rows: one bucket per partition, one narrow schema.

- :func:`murmur3_long` is Spark's ``hash`` of a long, checked against Spark itself;
- :func:`partition_values` sends bucket ``b`` to partition ``b`` and nowhere else (pure
  property, then Spark's own ``spark_partition_id``);
- :func:`shipped_columns` pairs the columns of the same type, hand-checked; the evaluation
  with unpaired columns (null slots) is identical to the in-memory one.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from receval.spark._partition import murmur3_long, partition_values
from receval.spark._shipped import shipped_columns
from tests.spark_session import spark, to_spark  # noqa: F401 - the session fixture
from tests.test_spark import assert_identical, both

LONGS = [0, 1, -1, 7, 42, 2**31 - 1, 2**31, -(2**31), 2**63 - 1, -(2**63), 123456789012345]


def test_murmur3_of_zero_by_hand():
    """MurmurHash3_x86_32 of the 8 zero bytes with seed 42, step by step (uint32 wrap).

    k1 = mix(0) = 0 for both words, so h1 = rotl(42, 13) * 5 + 0xE6546B64 = 344064 * 5 +
    3864292196 = 3866012516 after the low word; the high word gives rotl(3866012516, 13) * 5 +
    0xE6546B64 (mod 2**32); then fmix with length 8.
    """
    m = 2**32

    def rotl(x: int, r: int) -> int:
        return ((x << r) | (x >> (32 - r))) % m

    h = (rotl(42, 13) * 5 + 0xE6546B64) % m
    assert h == 3866012516
    h = (rotl(h, 13) * 5 + 0xE6546B64) % m
    h ^= 8
    h ^= h >> 16
    h = (h * 0x85EBCA6B) % m
    h ^= h >> 13
    h = (h * 0xC2B2AE35) % m
    h ^= h >> 16
    signed = h - m if h >= 2**31 else h
    assert murmur3_long([0]).tolist() == [signed]


@pytest.mark.slow
def test_murmur3_is_sparks_hash(spark):  # noqa: F811
    from pyspark.sql import functions as F

    frame = spark.createDataFrame([(v,) for v in LONGS], "v long")
    theirs = [row[0] for row in frame.select(F.hash("v")).collect()]
    assert murmur3_long(LONGS).tolist() == theirs


@settings(max_examples=50, deadline=None)
@given(n=st.integers(1, 3000))
def test_partition_values_land_in_their_own_partition(n):
    values = np.array(partition_values(n), dtype=np.int64)
    assert len(values) == n
    assert (values >= 0).all()
    assert np.mod(murmur3_long(values).astype(np.int64), n).tolist() == list(range(n))


def test_partition_values_by_hand():
    # one partition: every hash lands in it, so the smallest long, 0, is chosen
    assert partition_values(1) == [0]
    # the values are the smallest ones: no smaller long lands in the same partition
    values = partition_values(7)
    for b, v in enumerate(values):
        smaller = np.mod(murmur3_long(np.arange(v)).astype(np.int64), 7)
        assert b not in smaller.tolist()


@pytest.mark.slow
@pytest.mark.parametrize("n", [1, 2, 7, 61])
def test_one_bucket_per_spark_partition(spark, n):  # noqa: F811
    from pyspark.sql import functions as F

    from receval.spark._partition import partition_key

    rows = spark.range(0, 20 * n).withColumn("b", F.pmod(F.col("id"), F.lit(n)))
    placed = rows.repartition(n, partition_key(F.col("b"), n)) \
        .select("b", F.spark_partition_id().alias("p")).collect()
    assert all(row["b"] == row["p"] for row in placed)
    assert sorted({row["p"] for row in placed}) == list(range(n))  # every partition used


class _Frame:
    """A stand-in for a Spark DataFrame: only ``schema[name].dataType`` is read."""

    def __init__(self, types: dict[str, str]) -> None:
        from types import SimpleNamespace

        self.schema = {name: SimpleNamespace(dataType=t) for name, t in types.items()}


def test_shipped_columns_share_slots_of_one_type():
    recs = _Frame({"u": "long", "i": "long", "s": "double"})
    truth = _Frame({"uu": "long", "ii": "long", "r": "double"})
    shipped = shipped_columns(recs, truth, {"user": "u", "item": "i", "score": "s"},
                              {"user": "uu", "item": "ii", "rating": "r"})
    c = "__receval_c"
    assert shipped.slots == (f"{c}0", f"{c}1", f"{c}2")
    assert shipped.types == ("long", "long", "double")
    assert shipped.recs == ((f"{c}0", "u"), (f"{c}1", "i"), (f"{c}2", "s"))
    assert shipped.truth == ((f"{c}0", "uu"), (f"{c}1", "ii"), (f"{c}2", "r"))


def test_shipped_columns_of_other_types_keep_their_own_slot():
    # item ids of one kind but two widths, an integer rating, a score and a rank:
    # user shared (0); the rank (int) takes the rating's (int) slot (1); recs' item (2) and
    # score (3) alone; truth's item (4) alone
    recs = _Frame({"u": "long", "i": "int", "s": "double", "k": "int"})
    truth = _Frame({"u": "long", "i": "long", "r": "int"})
    shipped = shipped_columns(recs, truth,
                              {"user": "u", "item": "i", "score": "s", "rank": "k"},
                              {"user": "u", "item": "i", "rating": "r"})
    c = "__receval_c"
    assert shipped.slots == tuple(f"{c}{j}" for j in range(5))
    assert shipped.types == ("long", "int", "int", "double", "long")
    assert shipped.recs == ((f"{c}0", "u"), (f"{c}2", "i"), (f"{c}3", "s"), (f"{c}1", "k"))
    assert shipped.truth == ((f"{c}0", "u"), (f"{c}4", "i"), (f"{c}1", "r"))


@pytest.mark.slow
def test_unpaired_columns_identical_to_in_memory(spark):  # noqa: F811
    """Columns of different types on the two sides travel in their own (null) slots."""
    recs = pd.DataFrame({"user_id": np.array([1, 1, 1, 2, 2, 3], dtype=np.int64),
                         "item_id": np.array([10, 11, 12, 10, 13, 11], dtype=np.int32),
                         "score": [0.9, 0.5, 0.5, 0.3, 0.8, 0.1],
                         "rank": np.array([1, 2, 3, 2, 1, 1], dtype=np.int32)})
    truth = pd.DataFrame({"user_id": np.array([1, 1, 2, 3, 4], dtype=np.int64),
                          "item_id": np.array([11, 12, 13, 14, 10], dtype=np.int32),
                          "rating": np.array([2, 5, 1, 3, 4], dtype=np.int64)})
    for columns in ({"score": "score"}, {"rank": "rank"}):
        mem, dist = both(spark, recs, truth, ["ndcg@2", "map@3", "precision@1"],
                         columns=columns)
        assert_identical(mem, dist)


@pytest.mark.slow
def test_partition_key_for_many_buckets(spark):  # noqa: F811
    """20,000 buckets: the values are one SQL array literal, looked up per row."""
    from pyspark.sql import functions as F

    from receval.spark._partition import partition_key

    n = 20_000
    buckets = [0, 1, 7, 12_345, n - 1]
    frame = spark.createDataFrame([(b,) for b in buckets], "b long")
    got = [row[0] for row in frame.select(partition_key(F.col("b"), n)).collect()]
    values = partition_values(n)
    assert got == [values[b] for b in buckets]
