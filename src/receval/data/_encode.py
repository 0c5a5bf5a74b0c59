"""Encode ids to dense integer codes, jointly over both tables, exactly (never hashed)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from receval.exceptions import IdTypeMismatchError

__all__ = ["encode_ids", "id_kind"]


def id_kind(s: pd.Series) -> str:
    """Classify an id column: ``integer``, ``string``, ``float``, ``bool`` or ``mixed``."""
    dtype = s.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return id_kind(pd.Series(dtype.categories))
    if pd.api.types.is_bool_dtype(dtype):
        return "bool"
    if pd.api.types.is_integer_dtype(dtype):
        return "integer"
    if pd.api.types.is_float_dtype(dtype):
        return "float"
    if pd.api.types.is_string_dtype(dtype) and not pd.api.types.is_object_dtype(dtype):
        return "string"
    inferred = pd.api.types.infer_dtype(s, skipna=True)
    if inferred in ("string", "unicode", "empty"):
        return "string"
    if inferred == "integer":
        return "integer"
    if inferred in ("floating", "mixed-integer-float"):
        return "float" if inferred == "floating" else "mixed"
    if inferred == "boolean":
        return "bool"
    if inferred == "bytes":
        return "bytes"
    return "mixed"


def _check_kind(s: pd.Series, role: str, table: str, column: str) -> str:
    kind = id_kind(s)
    if kind == "mixed":
        types = pd.Series([type(v).__name__ for v in s.head(10_000)]).unique().tolist()
        raise IdTypeMismatchError(
            f"{table}: the {role} id column {column!r} mixes value types {types}; ids are "
            f"compared exactly, so '1' and 1 would be different {role}s: make the column one "
            f"type first", column=column, examples=types)
    return kind


def encode_ids(
    a: pd.Series, b: pd.Series, *, role: str, columns: tuple[str, str]
) -> tuple[np.ndarray, np.ndarray, pd.Index]:
    """Give the ids of two tables common dense codes ``0..n-1`` in sorted id order.

    Parameters
    ----------
    a, b : pandas.Series
        The ids of the recommendations and of the truth.
    role : str
        ``"user"`` or ``"item"``, for messages.
    columns : (str, str)
        The two column names, for messages.

    Returns
    -------
    codes_a, codes_b : numpy.ndarray of int64
        The code of each row.
    uniques : pandas.Index
        The distinct ids, sorted; ``uniques[code]`` is the original id.

    Raises
    ------
    IdTypeMismatchError
        When the two columns hold ids of different kinds (integers vs strings, say), or
        one column mixes kinds. No implicit cast is made: ``1`` and ``'1'`` differ.
    """
    ka = _check_kind(a, role, "recs", columns[0]) if len(a) else None
    kb = _check_kind(b, role, "truth", columns[1]) if len(b) else None
    if ka is not None and kb is not None and ka != kb:
        raise IdTypeMismatchError(
            f"{role} ids have different types: recs column {columns[0]!r} holds {ka} ids "
            f"(dtype {a.dtype}) and truth column {columns[1]!r} holds {kb} ids (dtype "
            f"{b.dtype}); ids are compared exactly and never cast implicitly: convert one "
            f"side first", column=columns[0], examples=[str(a.dtype), str(b.dtype)])
    if isinstance(a.dtype, pd.CategoricalDtype):
        a = a.astype(a.dtype.categories.dtype)
    if isinstance(b.dtype, pd.CategoricalDtype):
        b = b.astype(b.dtype.categories.dtype)
    both = b if not len(a) else a if not len(b) else pd.concat([a, b], ignore_index=True)
    codes, uniques = pd.factorize(both, sort=True)
    codes = codes.astype(np.int64, copy=False)
    return codes[: len(a)], codes[len(a):], pd.Index(uniques)
