"""``rv.split`` on Spark DataFrames, computed in Spark: the same rows as in memory.

The public splitters send a ``pyspark.sql.DataFrame`` here after validating their
parameters. Nothing but aggregates reaches the driver; the parts are lazy Spark DataFrames.

1. **Validation job**: the columns are resolved from the schema as in memory, and one
   aggregation counts the rows, the missing ids and times, and the range of the times.
2. **Read order**: each row is numbered with ``monotonically_increasing_id`` (partition index
   times ``2**33`` plus the row's index in its partition) before any shuffle: the order in
   which Spark reads the rows, which is the order of ``toPandas()``.
3. **The split**:

   - per-user splits (``per_user=True``, ``leave_k_out``): the rows are shuffled by a bucket
     of the user id (as :mod:`receval.spark._engine` does), and each partition is split in a
     Python worker by the in-memory per-user core, rows in read order
     (:mod:`receval.split._spark._worker`);
   - ``temporal(at=)``: a filter;
   - ``temporal(test_size=)``: the cut time, the ``floor(f n + 1/2)``-th latest time, is
     found by histogram passes (:mod:`receval.spark._select`), and with ``ties="row_order"``
     the last rows at the cut in read order by one more selection on the row numbers;
   - ``random(test_size=)``: each row's position in read order (its partition's offset, from
     one count per partition, plus its index) is keyed by ``xxhash64(seed, position)``, the
     key :func:`receval.split._random.random_rows` gives it in memory, and the ``n_test``
     smallest keys are selected as above.

4. **Policies and report** (:mod:`receval.split._spark._report`): the cold policies are joins;
   the report comes from aggregations.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from receval._columns import Columns
from receval.exceptions import (
    EmptyInputError,
    InvalidParameterError,
    NonFiniteValueError,
    SchemaError,
)
from receval.spark._engine import _bucket, _pyspark_notes_ignored, n_buckets_for
from receval.spark._select import Selected, kth_smallest
from receval.spark._shipped import SEQ
from receval.spark._worker import BUCKET
from receval.split._finish import COLD_POLICIES, global_at_error, global_latest_error
from receval.split._per_user import PerUserPlan
from receval.split._prepare import check_choice, global_counts, resolve_columns
from receval.split._spark._report import SparkSplit, apply_cold, report_of
from receval.split._spark._time import TimeKey, quoted
from receval.split._spark._worker import CODE, DROP_COLD_ITEM, DROP_COLD_USER, split_batches

__all__ = ["per_user_spark", "random_spark", "temporal_spark"]

_ID_KINDS = {"byte": "integer", "short": "integer", "integer": "integer", "long": "integer",
             "float": "float", "double": "float", "string": "string", "varchar": "string",
             "char": "string", "boolean": "bool", "binary": "bytes"}
_KEY = "__receval_key"


@dataclass(frozen=True)
class SparkInput:
    """A Spark DataFrame to split, validated.

    Attributes
    ----------
    frame : pyspark.sql.DataFrame
        The input with the read-order column ``SEQ``.
    names : list of str
        The input's columns.
    roles : dict
        The user, item and timestamp columns.
    user_integer : bool
        Whether the user ids are integers (bucketed by value, not by hash).
    n : int
        Rows.
    time : TimeKey or None
        The timestamp column, with its range.
    partitions : list of (int, int)
        The input's partitions (as numbered in ``SEQ``) and their rows, in order.
    """

    frame: Any
    names: list[str]
    roles: dict[str, str | None]
    user_integer: bool
    n: int
    time: TimeKey | None
    partitions: list[tuple[int, int]]


def _id_kind(field: Any, role: str) -> str:
    kind = _ID_KINDS.get(field.dataType.typeName())
    if kind is None:
        raise SchemaError(
            f"data: the {role} id column {field.name!r} has Spark type "
            f"{field.dataType.simpleString()}; ids are integers, strings, floats, booleans or "
            f"bytes", column=field.name, examples=[field.dataType.simpleString()])
    return kind


def _missing(column: str, kind: str) -> Any:
    from pyspark.sql import functions as F

    col = quoted(column)
    return F.count(F.when(col.isNull() | F.isnan(col) if kind == "float" else col.isNull(), 1))


def read_spark(data: Any, columns: Columns | dict[str, str] | None, need_time: str | None
               ) -> SparkInput:
    """Resolve the columns of ``data``, and check it in one aggregation job.

    Raises what :func:`receval.split._prepare.read_input` raises in memory: a missing
    column, an empty table, missing ids or times, a time column of another type.
    """
    from pyspark.sql import functions as F

    names = list(data.columns)
    repeated = sorted({c for c in names if names.count(c) > 1})
    if repeated:
        raise SchemaError(f"data: repeated column names {repeated}; each column needs its own "
                          f"name", column=repeated[0], examples=repeated)
    reserved = [c for c in names if c.startswith("__receval_")]
    if reserved:
        raise InvalidParameterError(f"data: the column names {reserved} are reserved for "
                                    f"receval's own columns; rename them", parameter="data",
                                    examples=reserved)
    roles = resolve_columns(names, columns, need_time)
    fields = {f.name: f for f in data.schema.fields}
    user, item, tcol = roles["user"], roles["item"], roles["timestamp"]
    assert user is not None
    assert item is not None
    kinds = {role: _id_kind(fields[c], role) for role, c in (("user", user), ("item", item))}
    time = None if tcol is None else TimeKey.of(
        fields[tcol], data.sparkSession.conf.get("spark.sql.session.timeZone"))
    checks = [F.count(F.lit(1)).alias("n"), _missing(user, kinds["user"]).alias("u_missing"),
              _missing(item, kinds["item"]).alias("i_missing")]
    frame = data.withColumn(SEQ, F.monotonically_increasing_id())
    with _pyspark_notes_ignored():  # one row per input partition
        rows = frame.groupBy(F.shiftright(F.col(SEQ), 33).alias("p")) \
            .agg(*checks, *(time.checks() if time is not None else [])).collect()
    row = _combined(rows)
    if row["n"] == 0:
        raise EmptyInputError("data is empty: there are no rows to split", parameter="data")
    for role, column in (("user", user), ("item", item)):
        bad = int(row[f"{role[0]}_missing"])
        if bad:
            raise NonFiniteValueError(
                f"data: the {role} id column {column!r} has {bad} missing values (null or "
                f"NaN)", column=column, n_bad=bad)
    return SparkInput(frame, names, roles, kinds["user"] == "integer", int(row["n"]),
                      None if time is None else time.checked(row),
                      sorted((int(r["p"]), int(r["n"])) for r in rows))


def _combined(rows: list[Any]) -> dict[str, Any]:
    """The validation job's per-partition rows, added up (minimum and maximum of times)."""
    out: dict[str, Any] = {"n": 0}
    for key in rows[0].asDict() if rows else ():
        values = [r[key] for r in rows if r[key] is not None]
        pick = min if key == "t_lo" else max if key == "t_hi" else sum
        out[key] = pick(values) if values else None
    return out


def _finish(inp: SparkInput, coded: Any, *, method: str, settings: dict[str, Any],
            cold_users: str, cold_items: str, users_done: bool = False,
            **fields: Any) -> SparkSplit:
    """Apply the cold policies (joins), report, and wrap the parts."""
    user, item = inp.roles["user"], inp.roles["item"]
    assert user is not None
    assert item is not None
    if cold_users == "drop" and not users_done:
        coded = apply_cold(coded, user, DROP_COLD_USER)
    if cold_items == "drop":
        coded = apply_cold(coded, item, DROP_COLD_ITEM)
    full = {**settings, "cold_users": cold_users, "cold_items": cold_items,
            "columns": dict(inp.roles), "engine": "spark"}
    with _pyspark_notes_ignored():
        report = report_of(coded, method=method, settings=full, roles=inp.roles,
                           time=inp.time, n_rows=inp.n, **fields)
    return SparkSplit(coded, inp.names, report)


def _check_cold(cold_users: str, cold_items: str) -> None:
    check_choice("cold_users", cold_users, COLD_POLICIES)
    check_choice("cold_items", cold_items, COLD_POLICIES)


def per_user_spark(data: Any, plan: PerUserPlan, *, columns: Columns | dict[str, str] | None,
                   cold_users: str, cold_items: str) -> SparkSplit:
    """A per-user split (``random`` / ``temporal`` with ``per_user=True``, ``leave_k_out``)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import ByteType, StructField, StructType

    _check_cold(cold_users, cold_items)
    need_time = None if plan.order == "random" else (
        "a temporal split" if plan.method == "temporal" else "leave_k_out(order='latest')")
    inp = read_spark(data, columns, need_time)
    # a bucket holds whole rows (every column): no bigger than the input's partitions
    buckets = max(n_buckets_for(inp.n, data.sparkSession.sparkContext.defaultParallelism),
                  len(inp.partitions))
    user = inp.roles["user"]
    assert user is not None
    tagged = inp.frame.withColumn(BUCKET, _bucket(quoted(user), inp.user_integer, buckets))
    schema = StructType([*data.schema.fields, StructField(CODE, ByteType(), False)])
    # "error" is raised on the driver, from the report's counts, with the in-memory message
    worker_plan = dataclasses.replace(plan, small_users="train") \
        if plan.small_users == "error" else plan
    roles, names, drop_cold = dict(inp.roles), list(inp.names), cold_users == "drop"

    def run(batches: Any) -> Any:
        return split_batches(batches, worker_plan, roles, names, SEQ, drop_cold)

    with _pyspark_notes_ignored():
        coded = tagged.repartition(buckets, F.col(BUCKET)).mapInArrow(run, schema)
    return _finish(inp, coded, method=plan.method,
                   settings={**plan.settings(), "buckets": buckets}, cold_users=cold_users,
                   cold_items=cold_items, users_done=True, small_rule=plan.rule,
                   count_ties=plan.order == "latest")


def _positions(inp: SparkInput) -> Any:
    """Each row's position in read order: its partition's offset plus its index in it."""
    from pyspark.sql import functions as F

    shifts: list[Any] = []
    offset = 0
    for p, n in inp.partitions:
        shifts += [F.lit(p), F.lit(offset - (p << 33))]
        offset += n
    return F.col(SEQ) + F.element_at(F.create_map(*shifts), F.shiftright(F.col(SEQ), 33))


def random_spark(data: Any, test_size: float, seed: int, *,
                 columns: Columns | dict[str, str] | None, cold_users: str,
                 cold_items: str) -> SparkSplit:
    """A global random split: the rows of the ``n_test`` smallest ``xxhash64(seed, position)``."""
    from pyspark.sql import functions as F

    _check_cold(cold_users, cold_items)
    inp = read_spark(data, columns, None)
    n_test = global_counts(inp.n, test_size)
    keyed = inp.frame.withColumn(_KEY, F.xxhash64(F.lit(seed).cast("long"), _positions(inp)))
    with _pyspark_notes_ignored():
        cut = kth_smallest(keyed, F.col(_KEY), n_test - 1)
    coded = keyed.withColumn(CODE, F.when(F.col(_KEY) <= F.lit(cut.value), 1).otherwise(0)
                             .cast("tinyint")).drop(_KEY)
    return _finish(inp, coded, method="random",
                   settings={"test_size": test_size, "per_user": False, "seed": seed},
                   cold_users=cold_users, cold_items=cold_items, target_test_rows=n_test)


def _select_time(frame: Any, time: TimeKey, k: int, n: int) -> Selected:
    """The ``k``-th smallest time (0-based); infinite float times are counted, not binned."""
    if time.double and k < time.n_neg_inf:
        return Selected(float("-inf"), 0, time.n_neg_inf)
    if time.double and k >= n - time.n_pos_inf:
        return Selected(float("inf"), n - time.n_pos_inf, time.n_pos_inf)
    skip = time.n_neg_inf if time.double else 0
    got = kth_smallest(frame, time.key(), k - skip, lo=time.lo, hi=time.hi, double=time.double)
    return Selected(got.value, got.n_less + skip, got.n_equal)


def _latest(inp: SparkInput, test_size: float, ties: str) -> tuple[Any, dict[str, Any]]:
    """The test condition of the globally latest share, with the tie rule; report fields."""
    from pyspark.sql import functions as F

    time = inp.time
    assert time is not None
    n_test = global_counts(inp.n, test_size)
    with _pyspark_notes_ignored():
        cut = _select_time(inp.frame, time, inp.n - n_test, inp.n)
    key, at_cut = time.key(), F.lit(cut.value)
    n_later = inp.n - cut.n_less - cut.n_equal
    if ties == "test":
        cond, count = key >= at_cut, inp.n - cut.n_less
    elif ties == "train":
        cond, count = key > at_cut, n_later
    else:  # the last rows at the cut time in read order
        with _pyspark_notes_ignored():
            last = kth_smallest(inp.frame.filter(key == at_cut), F.col(SEQ),
                                cut.n_equal - (n_test - n_later))
        cond = (key > at_cut) | ((key == at_cut) & (F.col(SEQ) >= F.lit(last.value)))
        count = n_test
    if count in (0, inp.n):
        raise global_latest_error(ties, cut.n_equal, time.label(cut.value),
                                  "test" if count == 0 else "train")
    tied = inp.n - cut.n_less > n_test > n_later
    return cond, {"target_test_rows": n_test, "ties_at_cut": int(tied),
                  "cut_time": time.label(cut.value)}


def temporal_spark(data: Any, test_size: float | None, at: Any, ties: str, *,
                   columns: Columns | dict[str, str] | None, cold_users: str,
                   cold_items: str) -> SparkSplit:
    """A global temporal split: the rows from ``at`` on, or the latest share."""
    from pyspark.sql import functions as F

    _check_cold(cold_users, cold_items)
    inp = read_spark(data, columns, "a temporal split")
    assert inp.time is not None
    settings: dict[str, Any] = {"test_size": test_size, "at": at, "per_user": False}
    if at is not None:
        cond, label = inp.time.at(at)
        _check_at(inp, cond, at)
        fields: dict[str, Any] = {"cut_time": label}
    else:
        assert test_size is not None
        cond, fields = _latest(inp, test_size, ties)
        settings["ties"] = ties
    coded = inp.frame.withColumn(CODE, F.when(cond, 1).otherwise(0).cast("tinyint"))
    return _finish(inp, coded, method="temporal", settings=settings, cold_users=cold_users,
                   cold_items=cold_items, **fields)


def _check_at(inp: SparkInput, cond: Any, at: Any) -> None:
    """As in memory: ``at=`` that leaves the test or the training part empty is an error."""
    from pyspark.sql import functions as F

    assert inp.time is not None
    key = inp.time.key()
    with _pyspark_notes_ignored():
        row = inp.frame.agg(F.count(F.when(cond, 1)).alias("n"), F.min(key).alias("lo"),
                            F.max(key).alias("hi")).collect()[0]
    if int(row["n"]) in (0, inp.n):
        raise global_at_error(at, "test" if int(row["n"]) == 0 else "train",
                              inp.time.label(row["lo"]), inp.time.label(row["hi"]),
                              inp.roles["timestamp"])

