"""The back end of a Spark split: the cold policies, the report by aggregations, the Split.

Every row carries its code (:data:`~receval.split._spark._worker.CODE`: train, test, or the
policy that dropped it). The cold policies are joins with the users (items) that have a
training row. The report is computed by two aggregation jobs, never by collecting rows:

1. ``cube(user, item)`` counts the rows of each code per (user, item) pair, per user, per
   item and overall; a second aggregation over that turns them into the report's numbers:
   rows, users and items of each part, cold users and items (test rows before the cold
   policies whose user / item has no training row), users too small to split, repeated
   (user, item) pairs, cuts inside a block of equal times, and the earliest test and latest
   training times;
2. the leakage counts: training rows later than the earliest test row, test rows earlier
   than the latest training row, and training rows later than their own user's earliest
   test row (a window over the user).

An ``"error"`` policy raises the in-memory error, its examples (the first five ids in sorted
order) found by one more small job.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

from receval.exceptions import InvalidParameterError
from receval.split._finish import cold_error, small_users_error
from receval.split._spark._time import TimeKey, quoted
from receval.split._spark._worker import (
    CODE,
    DROP_COLD_ITEM,
    DROP_COLD_USER,
    DROP_SMALL,
    TEST,
    TIED,
    TRAIN,
    TRAIN_SMALL,
)
from receval.split._types import Split, SplitReport

__all__ = ["SparkSplit", "apply_cold", "report_of"]

_IN_TRAIN = "__receval_in_train"
_KEY = "__receval_key"
#: The codes of each part.
PART_CODES = {"train": (TRAIN, TRAIN_SMALL), "test": (TEST,),
              "dropped": (DROP_SMALL, DROP_COLD_USER, DROP_COLD_ITEM)}


def _state() -> Any:
    from pyspark.sql import functions as F

    return F.col(CODE).bitwiseAND(F.lit(7))


def apply_cold(frame: Any, column: str, code: int) -> Any:
    """Give the test rows whose ``column`` value has no training row the code ``code``."""
    from pyspark.sql import functions as F

    trained = frame.filter(_state().isin(*PART_CODES["train"])) \
        .select(quoted(column).alias(_KEY)).distinct().withColumn(_IN_TRAIN, F.lit(True))
    joined = frame.join(trained, quoted(column) == F.col(_KEY), "left")
    cold = (_state() == TEST) & F.col(_IN_TRAIN).isNull()
    new = F.when(cold, F.col(CODE).bitwiseAND(F.lit(TIED)).bitwiseOR(F.lit(code))) \
        .otherwise(F.col(CODE)).cast("tinyint")
    return joined.withColumn(CODE, new).drop(_KEY, _IN_TRAIN)


def _count(codes: tuple[int, ...]) -> Any:
    from pyspark.sql import functions as F

    return F.count(F.when(_state().isin(*codes), 1))


def _cube(frame: Any, roles: dict[str, str | None], time: TimeKey | None) -> dict[int, Any]:
    """The second-level aggregates of the cube, by grouping id.

    Grouping id 0: the (user, item) pairs; 1: the users; 2: the items; 3: every row.
    """
    from pyspark.sql import functions as F

    first = [_count((c,)).alias(f"n{c}") for c in range(6)]
    first.append(F.count(F.when(F.col(CODE).bitwiseAND(F.lit(TIED)) != 0, 1)).alias("tied"))
    if time is not None:
        key = time.key()
        first.append(F.min(F.when(_state() == TEST, key)).alias("min_test"))
        first.append(F.max(F.when(_state().isin(*PART_CODES["train"]), key)).alias("max_train"))
    assert roles["user"] is not None
    assert roles["item"] is not None
    # the keys renamed: the aggregates' names cannot meet an input column's
    cubed = frame.cube(quoted(roles["user"]).alias("__receval_u"),
                       quoted(roles["item"]).alias("__receval_i")) \
        .agg(F.grouping_id().alias("gid"), *first)
    n = {c: F.col(f"n{c}") for c in range(6)}
    train, test = n[TRAIN] + n[TRAIN_SMALL], n[TEST]
    dropped = n[DROP_SMALL] + n[DROP_COLD_USER] + n[DROP_COLD_ITEM]
    before_cold = n[TEST] + n[DROP_COLD_USER] + n[DROP_COLD_ITEM]
    cold = (before_cold > 0) & (train == 0)

    def keys(cond: Any) -> Any:
        return F.sum(F.when(cond, 1).otherwise(0))

    second = [F.count(F.lit(1)).alias("keys"), keys(train > 0).alias("k_train"),
              keys(test > 0).alias("k_test"), keys(dropped > 0).alias("k_dropped"),
              keys(cold).alias("cold"), F.sum(F.when(cold, before_cold).otherwise(0))
              .alias("cold_rows"), keys(n[DROP_SMALL] + n[TRAIN_SMALL] > 0).alias("small"),
              F.sum(F.when(train > 0, test).otherwise(0)).alias("repeated"),
              F.sum("tied").alias("tied"), *[F.sum(f"n{c}").alias(f"n{c}") for c in range(6)]]
    if time is not None:
        second += [F.min("min_test").alias("min_test"), F.max("max_train").alias("max_train")]
    return {int(r["gid"]): r for r in cubed.groupBy("gid").agg(*second).collect()}


def _examples(frame: Any, column: str, codes: tuple[int, ...] | None) -> list[Any]:
    """The first five values of ``column`` (sorted) of the rows with ``codes``.

    ``codes=None``: of the cold keys (test rows before the cold policies, no training row).
    """
    from pyspark.sql import functions as F

    col = quoted(column)
    if codes is not None:
        keys = frame.filter(_state().isin(*codes)).select(col.alias(_KEY)).distinct()
    else:
        before = (TEST, DROP_COLD_USER, DROP_COLD_ITEM)
        keys = frame.groupBy(col.alias(_KEY)).agg(_count(PART_CODES["train"]).alias("tr"),
                                                  _count(before).alias("te")) \
            .filter((F.col("te") > 0) & (F.col("tr") == 0))
    return [r[_KEY] for r in keys.orderBy(_KEY).limit(5).collect()]


def _errors(frame: Any, got: dict[int, Any], roles: dict[str, str | None],
            policies: dict[str, str], small_rule: str | None) -> None:
    """Raise the in-memory error of the first ``"error"`` policy that some rows break."""
    user, item = roles["user"], roles["item"]
    assert user is not None
    assert item is not None
    if policies.get("small_users") == "error" and got[1]["small"]:
        raise small_users_error(int(got[1]["small"]), _examples(frame, user, (TRAIN_SMALL,)),
                                user, small_rule or "")
    for role, column, gid in (("user", user, 1), ("item", item, 2)):
        if policies[f"cold_{role}s"] == "error" and got[gid]["cold"]:
            raise cold_error(role, int(got[gid]["cold"]), int(got[gid]["cold_rows"]), column,
                             _examples(frame, column, None))


def _leakage(frame: Any, time: TimeKey | None, total: Any, n_train: int, n_test: int,
             user: str) -> tuple[int | None, float | None, int | None]:
    """Global leakage (late training rows, share of early test rows) and per-user leakage.

    A training row later than its own user's earliest test row is later than the earliest
    test row of all: without global leakage there is none per user, and no job runs.
    """
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    if time is None:
        return None, None, None
    if n_train == 0 or n_test == 0 or total["max_train"] <= total["min_test"]:
        return 0, (0.0 if n_test else None), 0  # no training row after a test row
    key = time.key()
    train = _state().isin(*PART_CODES["train"])
    first_test = F.min(F.when(_state() == TEST, key)).over(Window.partitionBy(quoted(user)))
    row = frame.withColumn("__receval_first_test", first_test).agg(
        F.count(F.when(train & (key > F.lit(total["min_test"])), 1)).alias("late"),
        F.count(F.when((_state() == TEST) & (key < F.lit(total["max_train"])), 1))
        .alias("early"),
        F.count(F.when(train & (key > F.col("__receval_first_test")), 1)).alias("own")
    ).collect()[0]
    return int(row["late"]), float(int(row["early"]) / n_test), int(row["own"])


def report_of(frame: Any, *, method: str, settings: dict[str, Any],
              roles: dict[str, str | None], time: TimeKey | None, n_rows: int,
              small_rule: str | None = None, count_ties: bool = False, **fields: Any
              ) -> SplitReport:
    """The report of the coded ``frame`` (and the ``"error"`` policies' errors).

    ``settings`` holds every parameter, the policies included; ``fields`` are further
    :class:`SplitReport` fields known before (cut time, target rows, ...); ``count_ties``
    counts the users whose code has :data:`TIED` as ``ties_at_cut`` (per-user cuts).
    """
    got = _cube(frame, roles, time)
    _errors(frame, got, roles, settings, small_rule)
    total, users, items = got[3], got[1], got[2]
    rows = {"input": n_rows, "train": int(total[f"n{TRAIN}"] + total[f"n{TRAIN_SMALL}"]),
            "test": int(total[f"n{TEST}"]),
            "dropped": int(sum(total[f"n{c}"] for c in PART_CODES["dropped"]))}
    counts = {name: {"input": int(r["keys"]), **{p: int(r[f"k_{p}"]) for p in PART_CODES}}
              for name, r in (("users", users), ("items", items))}
    assert roles["user"] is not None
    leak_rows, leak_share, own_rows = _leakage(frame, time, total, rows["train"],
                                               rows["test"], roles["user"])
    extra = dict(fields)
    if count_ties:
        extra["ties_at_cut"] = int(users["tied"])
    return SplitReport(
        method=method, settings=settings, rows=rows, users=counts["users"],
        items=counts["items"], small_users=int(users["small"]),
        small_user_rows=int(total[f"n{DROP_SMALL}"] + total[f"n{TRAIN_SMALL}"]),
        cold_users=int(users["cold"]), cold_user_rows=int(users["cold_rows"]),
        cold_items=int(items["cold"]), cold_item_rows=int(items["cold_rows"]),
        dropped_by={"small_users": int(total[f"n{DROP_SMALL}"]),
                    "cold_users": int(total[f"n{DROP_COLD_USER}"]),
                    "cold_items": int(total[f"n{DROP_COLD_ITEM}"])},
        leakage_rows=leak_rows, leakage_share=leak_share, user_leakage_rows=own_rows,
        repeated_test_rows=int(got[0]["repeated"]), **extra)


class SparkSplit(Split):
    """A split of a Spark DataFrame: its parts are lazy Spark DataFrames.

    ``train``, ``test`` and ``dropped`` hold the input's columns (same names, types and
    values) and are computed by Spark when an action runs on them, from the input's lineage
    (persist the input, or the parts, to compute it once). Spark DataFrames have no row order
    and no row positions: ``train_rows`` and the like raise, and :meth:`labelled` gives every
    row with its part in one DataFrame.
    """

    kind = "spark"

    def __init__(self, frame: Any, names: list[str], report: SplitReport) -> None:
        self._frame = frame
        self._names = names
        self.report = report

    def _part(self, name: str) -> Any:
        return self._frame.filter(_state().isin(*PART_CODES[name])) \
            .select(*[quoted(c) for c in self._names])

    train = cached_property(lambda self: self._part("train"))
    train.__doc__ = "The training rows (a lazy Spark DataFrame)."
    test = cached_property(lambda self: self._part("test"))
    test.__doc__ = "The test rows (a lazy Spark DataFrame)."
    dropped = cached_property(lambda self: self._part("dropped"))
    dropped.__doc__ = "The rows a ``\"drop\"`` policy removed (a lazy Spark DataFrame)."

    def labelled(self, column: str = "part") -> Any:
        """Every input row, with a column ``column`` naming its part.

        The part is ``"train"``, ``"test"`` or ``"dropped"``: to write every part in one job
        (e.g. with ``partitionBy(column)``).
        """
        from pyspark.sql import functions as F

        part = F.when(_state().isin(*PART_CODES["train"]), "train") \
            .when(_state() == TEST, "test").otherwise("dropped")
        return self._frame.select(*[quoted(c) for c in self._names], part.alias(column))

    @property
    def train_rows(self) -> Any:
        """Not available on Spark: raises."""
        return _no_positions("train_rows")

    @property
    def test_rows(self) -> Any:
        """Not available on Spark: raises."""
        return _no_positions("test_rows")

    @property
    def dropped_rows(self) -> Any:
        """Not available on Spark: raises."""
        return _no_positions("dropped_rows")


def _no_positions(name: str) -> Any:
    raise InvalidParameterError(
        f"{name}: a split of a Spark DataFrame has no row positions (Spark rows have no "
        f"order); use .train, .test and .dropped, or .labelled()", parameter=name)
