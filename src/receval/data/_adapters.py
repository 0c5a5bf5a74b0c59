"""Turn every supported input into a pandas DataFrame with named columns.

Accepted: pandas DataFrames (numpy-, Arrow- or categorical-backed); polars DataFrames and
LazyFrames; pyarrow Tables, RecordBatches and RecordBatchReaders; any object with the Arrow
PyCapsule stream interface (``__arrow_c_stream__``: DuckDB relations, nanoarrow, ...);
dicts ``{user: {item: value}}`` as ranx and pytrec_eval take them; dicts
``{user: [items in rank order]}``; 2-D numpy arrays of ranked item ids (row = user); and file
paths (see :mod:`receval.data._files`). Libraries other than pandas and pyarrow are never
imported here: objects are recognised by their module and duck-typed methods.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from receval.data._arrow import arrow_to_pandas as _arrow_to_pandas
from receval.data._spark import refuse_spark
from receval.exceptions import InvalidParameterError, SchemaError

__all__ = ["to_frame"]


def _is_polars(obj: Any) -> bool:
    return type(obj).__module__.split(".")[0] == "polars"


def _from_mapping(obj: Mapping[Any, Any], role: str) -> pd.DataFrame:
    value_col = "score" if role == "recs" else "rating"
    users: list[Any] = []
    items: list[Any] = []
    values: list[Any] = []
    ranked = None
    for user, inner in obj.items():
        if isinstance(inner, Mapping):
            if ranked is True:
                raise SchemaError(f"{role}: mixes {{item: value}} dicts and item lists")
            ranked = False
            users.extend([user] * len(inner))
            items.extend(inner.keys())
            values.extend(inner.values())
        elif isinstance(inner, (list, tuple, np.ndarray, pd.Series)):
            if ranked is False:
                raise SchemaError(f"{role}: mixes {{item: value}} dicts and item lists")
            ranked = True
            seq = list(inner)
            users.extend([user] * len(seq))
            items.extend(seq)
        else:
            raise SchemaError(
                f"{role}: a dict input maps each user to {{item: value}} or to a list of items; "
                f"user {user!r} maps to a {type(inner).__name__}", examples=[user])
    if ranked:
        return pd.DataFrame({"user": pd.Series(users), "item": pd.Series(items)})
    try:
        numbers = pd.Series(values, dtype="float64")
    except (TypeError, ValueError) as exc:
        raise SchemaError(
            f"{role}: a dict input maps users to {{item: {value_col}}}, and every {value_col} "
            f"must be numeric ({exc})", column=value_col) from exc
    return pd.DataFrame({"user": pd.Series(users), "item": pd.Series(items),
                         value_col: numbers})


def _from_array(arr: np.ndarray, role: str, name: str) -> pd.DataFrame:
    if role != "recs":
        raise InvalidParameterError(
            f"a numpy array is read as ranked item ids per user (row = user); {name} needs "
            f"(user, item[, rating]) rows: pass a DataFrame or a dict", parameter=name)
    if arr.ndim != 2:
        raise SchemaError(f"recs: a numpy array of ranked items must be 2-D (users x k), "
                          f"got shape {arr.shape}")
    n_users, k = arr.shape
    return pd.DataFrame({"user": np.repeat(np.arange(n_users), k), "item": arr.ravel()})


def to_frame(obj: Any, role: str, *, format: str | None = None, name: str | None = None,
             ids: tuple[str, ...] = ()) -> pd.DataFrame:
    """Convert ``obj`` (the ``recs`` or the ``truth``) to a pandas DataFrame.

    Parameters
    ----------
    obj : object
        Any supported input (see the module docstring).
    role : {"recs", "truth"}
        Which input it is, for messages and for the meaning of dict values.
    format : str, optional
        For a path: the file format (default: from the extension).
    name : str, optional
        The input's name in messages (e.g. ``"train"``, ``"exclude"``); default ``role``.
    ids : tuple of str
        For a CSV/TSV path: columns to read as ids besides the user and item aliases
        (:func:`receval.data.read_table`).

    Raises
    ------
    InvalidParameterError
        An unsupported type.
    """
    if isinstance(obj, pd.DataFrame):
        return obj
    label = role if name is None else name
    refuse_spark(obj, label)
    kind = type(obj).__module__.split(".")[0], type(obj).__name__
    if isinstance(obj, (pd.Series, pd.Index)) or kind == ("polars", "Series") or (
            kind[0] == "pyarrow" and kind[1].endswith("Array")):  # one column, not a table
        raise InvalidParameterError(
            f"{label} must be a table: got a {kind[0]} {kind[1]}, one column; pass a "
            f"DataFrame with the user and item columns (series.reset_index() for a pandas "
            f"Series indexed by user and item)", parameter=label)
    if isinstance(obj, (str, os.PathLike)):
        from receval.data._files import read_table

        return read_table(obj, format=format, role=role, ids=ids)
    if _is_polars(obj):
        if hasattr(obj, "collect") and not hasattr(obj, "to_arrow"):
            obj = obj.collect()  # LazyFrame
        return _arrow_to_pandas(obj.to_arrow())
    module = type(obj).__module__.split(".")[0]
    if module == "pyarrow":
        import pyarrow as pa

        if isinstance(obj, pa.RecordBatchReader):
            obj = obj.read_all()
        if isinstance(obj, pa.RecordBatch):
            obj = pa.Table.from_batches([obj])
        if isinstance(obj, pa.Table):
            return _arrow_to_pandas(obj)
    if hasattr(obj, "__arrow_c_stream__"):
        import pyarrow as pa

        return _arrow_to_pandas(pa.RecordBatchReader.from_stream(obj).read_all())
    if isinstance(obj, Mapping):
        return _from_mapping(obj, role)
    if isinstance(obj, np.ndarray):
        return _from_array(obj, role, label)
    raise InvalidParameterError(
        f"{label} must be a table: a pandas or polars DataFrame, a pyarrow Table, an object "
        f"with __arrow_c_stream__ (e.g. a DuckDB relation), a dict of dicts, a 2-D numpy "
        f"array or a file path; got {type(obj).__module__}.{type(obj).__name__}",
        parameter=label)
