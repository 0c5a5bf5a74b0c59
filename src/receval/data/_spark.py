"""Spark DataFrames as inputs: recognised without importing pyspark, checked on the driver.

A Spark DataFrame also exposes the Arrow stream interface, which would pull every row into
the driver; :func:`receval.evaluate` sends Spark inputs to the Spark engine instead
(:mod:`receval.spark`), and the other readers refuse them (:func:`refuse_spark`).
"""

from __future__ import annotations

from typing import Any

from receval.exceptions import IdTypeMismatchError, InvalidParameterError

__all__ = ["arrow_kind", "arrow_schema", "check_id_kinds", "is_spark_frame", "refuse_spark"]


def is_spark_frame(obj: Any) -> bool:
    """Whether ``obj`` is a ``pyspark.sql.DataFrame`` (classic or Spark Connect)."""
    cls = type(obj)
    return cls.__module__.startswith("pyspark.sql") and cls.__name__ == "DataFrame"


def arrow_schema(frame: Any) -> Any:
    """The Arrow schema of a Spark DataFrame's columns (read from its schema, no job)."""
    from pyspark.sql.pandas.types import to_arrow_schema

    return to_arrow_schema(frame.schema)


def refuse_spark(obj: Any, role: str) -> None:
    """Raise for a Spark DataFrame given where only in-memory inputs are read."""
    if is_spark_frame(obj):
        raise InvalidParameterError(
            f"{role} is a Spark DataFrame: Spark inputs are evaluated inside Spark by "
            f"receval.evaluate (both recs and truth as Spark DataFrames), never pulled into "
            f"the driver", parameter=role)


def arrow_kind(dtype: Any) -> str:
    """The id kind (as :func:`receval.data._encode.id_kind` names it) of an Arrow type."""
    import pyarrow as pa

    if pa.types.is_dictionary(dtype):
        return arrow_kind(dtype.value_type)
    if pa.types.is_boolean(dtype):
        return "bool"
    if pa.types.is_integer(dtype):
        return "integer"
    if pa.types.is_floating(dtype) or pa.types.is_decimal(dtype):
        return "float"
    if pa.types.is_string(dtype) or pa.types.is_large_string(dtype) \
            or pa.types.is_string_view(dtype):
        return "string"
    if pa.types.is_binary(dtype) or pa.types.is_large_binary(dtype):
        return "bytes"
    return str(dtype)


def check_id_kinds(recs_schema: Any, truth_schema: Any, recs_cols: dict[str, str],
                   truth_cols: dict[str, str]) -> None:
    """The in-memory rule on the schemas: user and item ids of one kind in both tables.

    Raises the same :class:`~receval.exceptions.IdTypeMismatchError` as the in-memory
    encoder, before any Spark job runs.
    """
    for role in ("user", "item"):
        a = recs_schema.field(recs_cols[role]).type
        b = truth_schema.field(truth_cols[role]).type
        ka, kb = arrow_kind(a), arrow_kind(b)
        if ka != kb:
            raise IdTypeMismatchError(
                f"{role} ids have different types: recs column {recs_cols[role]!r} holds "
                f"{ka} ids (dtype {a}) and truth column {truth_cols[role]!r} holds {kb} ids "
                f"(dtype {b}); ids are compared exactly and never cast implicitly: convert "
                f"one side first, or pass id_cast='str' or 'int'", column=recs_cols[role],
                examples=[str(a), str(b)])
