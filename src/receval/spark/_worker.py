"""What runs inside Spark's Python workers: one partition's buckets of users, evaluated.

The partition arrives as Arrow record batches of both tables (tagged by ``__side``); each
bucket of users in it is evaluated by the in-memory engine
(:func:`receval._engine.evaluate_partition`), and only its :class:`~receval._engine.Partial`
(per-user values and counts, no input rows) leaves the worker, pickled, with the bucket
number. A :class:`~receval.exceptions.RecevalError` is sent back the same way and raised on the
driver as itself.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from receval._engine import Options, evaluate_partition
from receval.exceptions import RecevalError

__all__ = ["BUCKET", "OUTPUT_SCHEMA", "SEQ", "SIDE", "evaluate_batches", "side_table"]

SIDE, SEQ, BUCKET = "__receval_side", "__receval_seq", "__receval_bucket"
#: The DDL schema of what each partition returns (one row per bucket of users).
OUTPUT_SCHEMA = "bucket long, error boolean, payload binary"


def side_table(table: Any, side: int, columns: dict[str, str]) -> Any:
    """The rows of one side, in the order Spark read them, under their own column names."""
    import pyarrow as pa
    import pyarrow.compute as pc

    rows = table.filter(pc.equal(table[SIDE], pa.scalar(side, pa.int8())))
    rows = rows.sort_by([(SEQ, "ascending")])
    prefix = "r:" if side == 0 else "t:"
    return rows.select([prefix + name for name in columns.values()]).rename_columns(
        list(columns.values()))


def _evaluate_bucket(table: Any, opts: Options, recs_cols: dict[str, str],
                     truth_cols: dict[str, str]) -> tuple[bool, bytes]:
    try:
        partial = evaluate_partition(side_table(table, 0, recs_cols),
                                     side_table(table, 1, truth_cols), opts,
                                     part_of_whole=True)
    except RecevalError as exc:
        return True, pickle.dumps(exc)
    return False, pickle.dumps(partial)


def evaluate_batches(batches: Iterable[Any], opts: Options, recs_cols: dict[str, str],
                     truth_cols: dict[str, str]) -> Iterator[Any]:
    """``mapInArrow`` function: evaluate each bucket of users of one partition."""
    import pyarrow as pa

    batches = list(batches)
    if not batches:
        return
    table = pa.Table.from_batches(batches)
    if table.num_rows == 0:
        return
    table = table.sort_by([(BUCKET, "ascending")])
    buckets = table[BUCKET].to_numpy()
    starts = np.flatnonzero(np.r_[True, buckets[1:] != buckets[:-1]])
    ends = np.r_[starts[1:], len(buckets)]
    out: dict[str, list[Any]] = {"bucket": [], "error": [], "payload": []}
    for start, end in zip(starts.tolist(), ends.tolist(), strict=True):
        error, payload = _evaluate_bucket(table.slice(start, end - start), opts, recs_cols,
                                          truth_cols)
        out["bucket"].append(int(buckets[start]))
        out["error"].append(error)
        out["payload"].append(payload)
    yield pa.RecordBatch.from_pydict(out, schema=pa.schema(
        [("bucket", pa.int64()), ("error", pa.bool_()), ("payload", pa.binary())]))
