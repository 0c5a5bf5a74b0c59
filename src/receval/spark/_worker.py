"""What runs inside Spark's Python workers: one partition, one bucket of users, evaluated.

The partition arrives as Arrow record batches of both tables (in the shipped columns of
:mod:`receval.spark._shipped`: the sign of ``SEQ`` tells the table); it is evaluated by the
in-memory engine (:func:`receval._engine.evaluate_partition`). What leaves the worker, as
rows of one output schema (:class:`Layout`):

- one **summary row** per bucket (``kind = 1``): its :class:`~receval._engine.Partial`,
  pickled. With ``per_user="pandas"`` the partial holds the bucket's per-user values, which
  the driver collects; with ``per_user="spark"`` it holds only their exact sums, the counts
  of every group of users and a few example ids (:meth:`~receval._engine.Partial.summary`).
- with ``per_user="spark"``, one **user row** per user of the bucket (``kind = 0``): the
  user id, the user's value of every per-user metric (null where undefined or not
  applicable) and a boolean per group of the user accounting. These rows stay in Spark.

A :class:`~receval.exceptions.RecevalError` is sent back pickled in a summary row (``error``)
and raised on the driver as itself. No input row leaves the worker.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from receval._engine import Options, Partial, evaluate_partition
from receval._engine._merge import per_user_table
from receval._result import UserAccounting, groups_frame
from receval.exceptions import RecevalError
from receval.spark._shipped import SEQ, Shipped

__all__ = ["BUCKET", "ERROR", "GROUP", "IN_PER_USER", "KIND", "PAYLOAD", "USER",
           "VALUE", "Layout", "evaluate_batches", "side_table"]

BUCKET = "__receval_bucket"
KIND, ERROR, PAYLOAD = "__receval_kind", "__receval_error", "__receval_payload"
USER, IN_PER_USER = "__receval_user", "__receval_in_per_user"
VALUE, GROUP = "__receval_value_", "__receval_group_"

#: Rows of one output record batch.
BATCH_ROWS = 65_536


@dataclass(frozen=True)
class Layout:
    """The output of the ``mapInArrow`` step, decided on the driver.

    Attributes
    ----------
    per_user : {"pandas", "spark"}
        Where the per-user values go: in the pickled partials, or in user rows.
    labels : tuple of str
        The metrics with per-user values, in the requested order (columns ``VALUE + j``).
    schema : pyarrow.Schema
        The Arrow schema of every output batch (the Spark schema's Arrow twin).
    """

    per_user: str
    labels: tuple[str, ...]
    schema: Any


def side_table(table: Any, side: int, columns: tuple[tuple[str, str], ...]) -> Any:
    """The rows of one side, in the order Spark read them, under their own column names.

    ``columns``: (shipped slot, column name) pairs. ``SEQ`` is the row's number in read order
    for recs and its bitwise complement (``-1 - number``, negative) for truth. The shuffle
    delivers the rows as runs in read order (one per map task), so a stable sort of the row
    numbers is nearly linear.
    """
    seq = table[SEQ].to_numpy()
    rows = np.flatnonzero(seq >= 0 if side == 0 else seq < 0)
    number = seq[rows] if side == 0 else np.invert(seq[rows])
    rows = rows[np.argsort(number, kind="stable")]
    picked = table.select([slot for slot, _ in columns]).take(rows)
    return picked.rename_columns([name for _, name in columns])


def _summary_row(bucket: int, error: bool, payload: bytes, layout: Layout) -> Any:
    import pyarrow as pa

    known = {KIND: pa.array([1], pa.int8()), BUCKET: pa.array([bucket], pa.int64()),
             ERROR: pa.array([error]), PAYLOAD: pa.array([payload], pa.binary())}
    return pa.RecordBatch.from_arrays(
        [known.get(f.name, pa.nulls(1, f.type)) for f in layout.schema], schema=layout.schema)


def _user_rows(partial: Partial, opts: Options, bucket: int, layout: Layout) -> Iterator[Any]:
    """One row per user of the bucket: metric values (null: undefined) and groups."""
    import pyarrow as pa

    lists = {g: partial.groups.get(g, partial.ranking_users[:0])
             for g in UserAccounting.GROUPS}
    lists["evaluated"], lists["rating_evaluated"] = partial.ranking_users, partial.rating_users
    groups = groups_frame(lists)
    if len(groups) == 0:
        return
    values = per_user_table([partial], opts)
    users = groups.index
    n = len(users)
    arrays = {
        USER: pa.array(users.to_numpy(), type=layout.schema.field(USER).type),
        KIND: pa.array(np.zeros(n, dtype=np.int8)),
        BUCKET: pa.array(np.full(n, bucket, dtype=np.int64)),
        IN_PER_USER: pa.array(users.isin(values.index)),
    }
    for j, label in enumerate(layout.labels):
        column = values[label].reindex(users).to_numpy(dtype=np.float64) \
            if label in values.columns else np.full(n, np.nan)
        arrays[f"{VALUE}{j}"] = pa.array(column, from_pandas=True)  # NaN -> null
    for g in UserAccounting.GROUPS:
        arrays[f"{GROUP}{g}"] = pa.array(groups[g].to_numpy())
    table = pa.Table.from_arrays(
        [arrays.get(f.name, pa.nulls(n, f.type)) for f in layout.schema], schema=layout.schema)
    yield from table.to_batches(max_chunksize=BATCH_ROWS)


def _evaluate_bucket(table: Any, bucket: int, opts: Options, shipped: Shipped,
                     layout: Layout) -> Iterator[Any]:
    try:
        partial = evaluate_partition(side_table(table, 0, shipped.recs),
                                     side_table(table, 1, shipped.truth), opts,
                                     part_of_whole=True)
    except RecevalError as exc:
        yield _summary_row(bucket, True, pickle.dumps(exc), layout)
        return
    if layout.per_user == "spark":
        yield from _user_rows(partial, opts, bucket, layout)
        partial = partial.summary()
    yield _summary_row(bucket, False, pickle.dumps(partial), layout)


def evaluate_batches(batches: Iterable[Any], opts: Options, shipped: Shipped,
                     layout: Layout) -> Iterator[Any]:
    """``mapInArrow`` function: evaluate the bucket of users of one partition.

    The bucket is the partition's number (:mod:`receval.spark._partition`); were Spark to put
    several buckets in one partition, they would be evaluated together, still whole.
    """
    import pyarrow as pa
    from pyspark import TaskContext

    batches = list(batches)
    if not batches:
        return
    table = pa.Table.from_batches(batches)
    if table.num_rows == 0:
        return
    context = TaskContext.get()
    bucket = context.partitionId() if context is not None else 0
    yield from _evaluate_bucket(table.combine_chunks(), bucket, opts, shipped, layout)
