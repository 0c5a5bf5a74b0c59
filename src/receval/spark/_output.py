"""The output of the Spark engine's ``mapInArrow`` step, and the per-user DataFrames over it.

One schema holds both kinds of rows the workers write (:mod:`receval.spark._worker`): a
summary row per bucket, which the driver collects, and with ``per_user="spark"`` a user row
per user, which stays in Spark. With ``per_user="spark"`` the output is persisted
(``MEMORY_AND_DISK``) before the one job that collects the summary rows: that job computes
every bucket once and caches its user rows, and ``result.per_user`` and
``result.users.frame`` are views of the cache: reading them computes no bucket again.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from receval._engine import Options, family_of
from receval._result import EvaluationResult, UserAccounting
from receval.data._spark import arrow_kind
from receval.spark._worker import (
    BUCKET,
    ERROR,
    GROUP,
    IN_PER_USER,
    KIND,
    PAYLOAD,
    USER,
    VALUE,
    Layout,
)

__all__ = ["PER_USER", "output_layout", "per_user_labels", "spark_result", "storage_level"]

#: Where ``evaluate(per_user=...)`` puts the per-user values.
PER_USER = ("pandas", "spark")


def per_user_labels(opts: Options) -> tuple[str, ...]:
    """The metrics with a value per user (the columns of ``per_user``), in request order."""
    return tuple(m.label for _, m in opts.specs if family_of(m).per_user)


def _user_type(recs: Any, truth: Any, recs_cols: dict[str, str], truth_cols: dict[str, str],
               id_cast: str | None) -> Any:
    """The Spark type of the user ids the engine compares (after ``id_cast``)."""
    from pyspark.sql import types as T
    from pyspark.sql.pandas.types import to_arrow_type

    if id_cast == "str":
        return T.StringType()
    if id_cast == "int":
        return T.LongType()
    a = recs.schema[recs_cols["user"]].dataType
    b = truth.schema[truth_cols["user"]].dataType
    if a == b:
        return a
    widest = {"integer": T.LongType(), "float": T.DoubleType(), "string": T.StringType()}
    return widest.get(arrow_kind(to_arrow_type(a)), a)


def output_layout(recs: Any, truth: Any, recs_cols: dict[str, str],
                  truth_cols: dict[str, str], opts: Options, per_user: str
                  ) -> tuple[Any, Layout]:
    """The Spark schema of the ``mapInArrow`` output, and the workers' :class:`Layout`."""
    from pyspark.sql import types as T
    from pyspark.sql.pandas.types import to_arrow_schema

    labels = per_user_labels(opts)
    user = _user_type(recs, truth, recs_cols, truth_cols, opts.id_cast)
    fields = [T.StructField(USER, user), T.StructField(KIND, T.ByteType()),
              T.StructField(BUCKET, T.LongType()), T.StructField(ERROR, T.BooleanType()),
              T.StructField(PAYLOAD, T.BinaryType()), T.StructField(IN_PER_USER, T.BooleanType())]
    fields += [T.StructField(f"{VALUE}{j}", T.DoubleType()) for j, _ in enumerate(labels)]
    fields += [T.StructField(f"{GROUP}{g}", T.BooleanType()) for g in UserAccounting.GROUPS]
    schema = T.StructType(fields)
    return schema, Layout(per_user, labels, to_arrow_schema(schema))


def storage_level() -> Any:
    """Where the cached output lives: executor memory, spilling to disk."""
    from pyspark import StorageLevel

    return StorageLevel.MEMORY_AND_DISK


def spark_result(result: EvaluationResult, out: Any, user: str, layout: Layout
                 ) -> EvaluationResult:
    """``result`` with ``per_user`` and ``users.frame`` as Spark DataFrames over ``out``.

    ``per_user``: the user id (named as in recs) and one double column per metric label
    (null where the value is undefined or does not apply), one row per user of the
    in-memory per-user table. ``users.frame``: every user of both inputs, with a boolean
    column per group of :class:`~receval.UserAccounting`.
    """
    rows = out.filter(out[KIND] == 0)
    per_user = rows.filter(rows[IN_PER_USER]).select(
        rows[USER].alias(user),
        *(rows[f"{VALUE}{j}"].alias(label) for j, label in enumerate(layout.labels)))
    frame = rows.select(rows[USER].alias(user),
                        *(rows[f"{GROUP}{g}"].alias(g) for g in UserAccounting.GROUPS))
    users = dataclasses.replace(result.users, _frame=frame)
    return dataclasses.replace(result, per_user=per_user, users=users, _cache=out)
