"""The Spark engine: the in-memory per-partition engine run in Spark's executors.

1. On the driver, before any job: the columns are resolved as in memory (names, aliases,
   ``columns=``), the id types of the two tables compared, and every option validated.
2. Each row is numbered with ``monotonically_increasing_id`` before any shuffle (so that
   ``ties="stable"`` sees the order in which Spark read the rows; truth's numbers are
   complemented, negative, which tags the table without a column of its own);
   the columns of both tables travel in one narrow schema (:mod:`receval.spark._shipped`).
   The rows are repartitioned by their user's bucket (``id mod n`` for integer ids, as the
   Parquet buckets do, and ``xxhash64(id) mod n`` otherwise), one bucket per partition
   (:mod:`receval.spark._partition`): every row of a user meets in one partition.
3. ``mapInArrow`` evaluates each bucket with :func:`receval._engine.evaluate_partition`
   (:mod:`receval.spark._worker`); only each bucket's partial result reaches the driver,
   which merges them with :func:`receval._engine.merge`, the function that merges the
   in-memory and Parquet buckets. Every aggregate comes from exact sums, so every number is
   the in-memory number, to the last bit.
4. With ``per_user="spark"`` a partial holds sums, counts and example ids only; the
   per-user values stay in Spark as rows of the same output, which is persisted so that the
   job above computes each bucket once (:mod:`receval.spark._output`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import pickle
import warnings
from collections.abc import Iterable, Iterator
from typing import Any

from receval._engine import Options, Partial, merge, truth_grade_sum
from receval._exact import ExactSum
from receval._result import EvaluationResult
from receval.data._spark import arrow_kind, arrow_schema, check_id_kinds, is_spark_frame
from receval.data._table import roles_of
from receval.exceptions import EmptyInputError, InvalidParameterError, RecevalError
from receval.spark._output import output_layout, spark_result, storage_level
from receval.spark._partition import partition_key
from receval.spark._shipped import SEQ, Shipped, shipped_columns, tagged
from receval.spark._worker import BUCKET, ERROR, KIND, PAYLOAD, evaluate_batches, side_table

__all__ = ["evaluate_spark", "n_buckets_for"]

#: Rows of one bucket aimed at by ``buckets="auto"`` (as the Parquet buckets).
ROWS_PER_BUCKET = 2_000_000


def n_buckets_for(n_rows: int, parallelism: int) -> int:
    """Buckets for ``buckets="auto"``: about 2 million rows each, at least 2 per core."""
    return max(2 * parallelism, math.ceil(n_rows / ROWS_PER_BUCKET), 1)


def _key(column: str, kind: str, id_cast: str | None) -> Any:
    """The user id as the engine will compare it (after ``id_cast``)."""
    from pyspark.sql import functions as F

    col = F.col(f"`{column}`")
    if id_cast == "int" and kind != "integer":
        return col.cast("double").cast("long")
    if id_cast == "str":
        if kind == "float":  # integral floats read as their integer, as in memory
            return F.when(col == F.floor(col), col.cast("long").cast("string")) \
                .otherwise(col.cast("string"))
        return col.cast("string")
    if kind == "float":  # a float and a double of one value, -0.0 and 0.0: one hash
        return col.cast("double") + F.lit(0.0)
    return col


def _bucket(key: Any, integer: bool, n: int) -> Any:
    from pyspark.sql import functions as F

    return F.pmod(key if integer else F.xxhash64(key), F.lit(n)).cast("long")


def _partitioned(recs: Any, truth: Any, shipped: Shipped, kinds: list[str], opts: Options,
                 n: int) -> Any:
    """Both tables as shipped, unioned, one bucket of users per partition.

    The bucket (``id mod n`` for integer ids, ``xxhash64(id) mod n`` otherwise) is computed
    in the shuffle's partitioning expression, from each side's user slot, and not shipped.
    """
    from pyspark.sql import functions as F

    # the key's type after the cast decides the bucket function, the same on both sides
    integer = opts.id_cast == "int" or (opts.id_cast is None and kinds[0] == "integer")
    both = tagged(recs, shipped, 0).unionByName(tagged(truth, shipped, 1))
    slots = [shipped.side(side)[0][0] for side in (0, 1)]  # the user's slot on each side
    buckets = [_bucket(_key(slot, kind, opts.id_cast), integer, n)
               for slot, kind in zip(slots, kinds, strict=True)]
    bucket = buckets[0] if slots[0] == slots[1] else \
        F.when(F.col(SEQ) >= 0, buckets[0]).otherwise(buckets[1])
    return both.repartition(n, partition_key(bucket, n))


@contextlib.contextmanager
def _pyspark_notes_ignored() -> Iterator[None]:
    """Ignore pyspark's own deprecation notes about its pandas support.

    pyspark 3.5 checks the pandas version with distutils' LooseVersion and warns on pandas 3;
    receval's own warnings are emitted after the job, outside this block.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        warnings.filterwarnings("ignore", category=FutureWarning, module="pyspark")
        yield


def _count_rows(recs: Any, truth: Any) -> int:
    """Rows of both tables, in one job; an empty table is an error, as in memory."""
    from pyspark.sql import functions as F

    sides = recs.select(F.lit(0).alias("side")).unionByName(
        truth.select(F.lit(1).alias("side")))
    counts = sides.agg(*(F.count(F.when(F.col("side") == side, 1)).alias(str(side))
                         for side in (0, 1))).collect()[0]
    for side, name in ((0, "recs"), (1, "truth")):
        if counts[side] == 0:
            what = "there are no recommendations to evaluate" if name == "recs" \
                else "there is nothing to evaluate against"
            raise EmptyInputError(f"{name} is empty: {what}", parameter=name)
    return int(counts[0] + counts[1])


def _fill_value(recs: Any, truth: Any, column: str | None, opts: Options,
                shipped: Shipped, kinds: list[str], n: int) -> Options:
    """``missing_predictions="global_mean"``: the exactly rounded mean truth grade.

    Each partition sends the exact sum of its grades (:class:`ExactSum`, a few hundred bytes)
    and the driver adds them, so the mean is the in-memory one. With ``duplicates="first"``
    or ``"best"`` the sums are of the rows the policy keeps, as in memory: the truth is then
    shuffled into its buckets of users first (one more job), each bucket deduplicated by the
    in-memory code (:func:`receval._engine.truth_grade_sum`).
    """
    if opts.policies["missing_predictions"] != "global_mean" or column is None:
        return opts
    from pyspark.sql import functions as F

    with _pyspark_notes_ignored():
        if opts.policies["duplicates"] == "error":  # every row is kept (or the call fails)
            grades = truth.select(F.col(f"`{column}`").cast("double").alias("g"))
            rows = grades.mapInArrow(_grade_sums, "payload binary").collect()
        else:
            def kept(batches: Iterable[Any]) -> Iterator[Any]:
                return _kept_grade_sums(batches, opts, shipped)

            bucketed = _partitioned(recs.limit(0), truth, shipped, kinds, opts, n)
            rows = bucketed.mapInArrow(kept, "payload binary").collect()
    total = sum((pickle.loads(row["payload"]) for row in rows), ExactSum())
    if total.n_defined == 0:
        return opts
    return dataclasses.replace(opts, fill_value=total.mean())


def _sum_row(total: ExactSum) -> Any:
    import pyarrow as pa

    return pa.RecordBatch.from_pydict({"payload": [pickle.dumps(total)]},
                                      schema=pa.schema([("payload", pa.binary())]))


def _kept_grade_sums(batches: Iterable[Any], opts: Options, shipped: Shipped
                     ) -> Iterator[Any]:
    """``mapInArrow`` over one bucket of truth rows: the exact sum of the grades kept.

    Bad input (a negative grade...) gives an empty sum here: the evaluation job that follows
    raises it as in memory.
    """
    import pyarrow as pa

    batches = list(batches)
    if not batches:
        return
    table = pa.Table.from_batches(batches)
    truth = side_table(table, 1, shipped.truth)
    no_recs = side_table(table.slice(0, 0), 0, shipped.recs)
    try:
        yield _sum_row(truth_grade_sum(no_recs, truth, opts))
    except RecevalError:
        yield _sum_row(ExactSum())


def _grade_sums(batches: Iterable[Any]) -> Iterator[Any]:
    """``mapInArrow``: the exact sum of one partition's grades (nulls left out)."""
    total = ExactSum()
    for batch in batches:
        column = batch.column(0).drop_null().to_numpy(zero_copy_only=False)
        total = total + ExactSum.of(column)
    yield _sum_row(total)


def _n_buckets(recs: Any, buckets: int | str | None, n_rows: int) -> int:
    if buckets is None or buckets == "auto":
        return n_buckets_for(n_rows, recs.sparkSession.sparkContext.defaultParallelism)
    if isinstance(buckets, int) and not isinstance(buckets, bool) and buckets >= 1:
        return buckets
    raise InvalidParameterError(f"buckets must be 'auto' or an integer >= 1, got "
                                f"{buckets!r}", parameter="buckets", examples=[buckets])


def _check_frames(recs: Any, truth: Any, opts: Options) -> None:
    for frame, name in ((recs, "recs"), (truth, "truth")):
        if not is_spark_frame(frame):
            raise InvalidParameterError(
                f"{name} is a {type(frame).__name__}: with a Spark DataFrame as the other "
                f"input, both recs and truth must be Spark DataFrames (create one with "
                f"spark.createDataFrame)", parameter=name)


def _partials(rows: list[Any]) -> list[Partial]:
    """The buckets' partials in bucket order; a worker's error raised as itself."""
    partials = []
    for row in sorted(rows, key=lambda r: r[BUCKET]):
        payload = pickle.loads(row[PAYLOAD])
        if row[ERROR]:
            if isinstance(payload, RecevalError):
                raise payload
            raise RuntimeError(f"receval's Spark worker failed: {payload!r}")
        partials.append(payload)
    if not partials:  # pragma: no cover - the inputs were checked not to be empty
        raise EmptyInputError("recs is empty: there are no recommendations to evaluate",
                              parameter="recs")
    return partials


def evaluate_spark(recs: Any, truth: Any, opts: Options, *,
                   buckets: int | str | None = None,
                   per_user: str = "pandas") -> EvaluationResult:
    """Evaluate two Spark DataFrames in Spark; see :func:`receval.evaluate`.

    Parameters
    ----------
    recs, truth : pyspark.sql.DataFrame
        Both tables, from any Spark source, in the session they belong to.
    opts : Options
        The validated options of the call.
    buckets : int or "auto", optional
        Buckets of users (default ``"auto"``: about 2 million rows each, at least two per
        core of the session).
    per_user : {"pandas", "spark"}
        ``"pandas"``: the per-user values are collected into ``result.per_user``.
        ``"spark"``: they stay in Spark; ``result.per_user`` and ``result.users.frame``
        are Spark DataFrames over the cached output of the one job that computed the
        aggregates (:mod:`receval.spark._output`; ``result.unpersist()`` frees it).
    """
    _check_frames(recs, truth, opts)
    recs_schema, truth_schema = arrow_schema(recs), arrow_schema(truth)
    recs_cols = roles_of(list(recs_schema.names), "recs", opts.columns)
    truth_cols = roles_of(list(truth_schema.names), "truth", opts.columns)
    if opts.id_cast is None:
        check_id_kinds(recs_schema, truth_schema, recs_cols, truth_cols)
    n = _n_buckets(recs, buckets, _count_rows(recs, truth))
    kinds = [arrow_kind(s.field(c["user"]).type)
             for s, c in ((recs_schema, recs_cols), (truth_schema, truth_cols))]
    shipped = shipped_columns(recs, truth, recs_cols, truth_cols)
    opts = _fill_value(recs, truth, truth_cols.get("rating"), opts, shipped, kinds, n)
    spark_schema, layout = output_layout(recs, truth, recs_cols, truth_cols, opts, per_user)

    def run(batches: Any) -> Any:  # the workers see only the resolved columns
        return evaluate_batches(batches, opts, shipped, layout)

    with _pyspark_notes_ignored():
        both = _partitioned(recs, truth, shipped, kinds, opts, n)
        out = both.mapInArrow(run, spark_schema)
        if per_user == "spark":  # the one job below computes every bucket once and caches it
            out = out.persist(storage_level())
    try:
        with _pyspark_notes_ignored():
            rows = out.filter(out[KIND] == 1).select(BUCKET, ERROR, PAYLOAD).collect()
        result = merge(_partials(rows), opts)  # receval's warnings: outside the block above
    except BaseException:
        out.unpersist()
        raise
    result.settings.update(engine="spark", buckets=n, per_user=per_user)
    if per_user == "spark":
        result = spark_result(result, out, recs_cols["user"], layout)
    return result
