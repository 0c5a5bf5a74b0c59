"""Encode ids to dense integer codes, jointly over both tables, exactly (never hashed)."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pandas as pd

from receval._kernels import encoding as E
from receval.exceptions import IdTypeMismatchError

__all__ = ["ID_CASTS", "cast_ids", "cast_table", "encode_ids", "id_kind", "lookalike_ids"]

ID_CASTS = (None, "str", "int")


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


def _encode_dense_ints(a: pd.Series, b: pd.Series
                       ) -> tuple[np.ndarray, np.ndarray, pd.Index] | None:
    """Codes of integer ids through a presence table, when their range is small enough.

    No hashing and no sort: O(rows + range). Returns None when the range is too wide.
    """
    if isinstance(a.dtype, pd.CategoricalDtype) or isinstance(b.dtype, pd.CategoricalDtype):
        return None
    for s in (a, b):  # uint64 ids beyond the int64 range: let factorize handle them exactly
        base: Any = getattr(s.dtype, "numpy_dtype", s.dtype)
        if len(s) and np.dtype(base) == np.uint64 and int(s.max()) > np.iinfo(np.int64).max:
            return None
    xa = a.to_numpy(dtype=np.int64) if len(a) else np.empty(0, dtype=np.int64)
    xb = b.to_numpy(dtype=np.int64) if len(b) else np.empty(0, dtype=np.int64)
    lo = min(int(x.min()) for x in (xa, xb) if len(x))
    hi = max(int(x.max()) for x in (xa, xb) if len(x))
    span = hi - lo + 1
    if span > max(4 * (len(xa) + len(xb)), 1 << 20) or span >= 2**31:
        return None
    present = np.zeros(span, dtype=np.bool_)
    E.mark_present(xa, lo, present)
    E.mark_present(xb, lo, present)
    remap = (np.cumsum(present, dtype=np.int64) - 1).astype(np.int32)
    uniques = np.flatnonzero(present) + lo
    dtype = a.dtype if len(a) else b.dtype
    return (E.dense_codes(xa, lo, remap), E.dense_codes(xb, lo, remap),
            pd.Index(uniques.astype(np.int64)).astype(dtype))


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
            f"side first, or pass id_cast='str' or 'int' (--id-cast)", column=columns[0],
            examples=[str(a.dtype), str(b.dtype)])
    if (ka == "integer" and kb in ("integer", None)) or (kb == "integer" and ka is None):
        dense = _encode_dense_ints(a, b)
        if dense is not None:
            return dense
    if isinstance(a.dtype, pd.CategoricalDtype):
        a = a.astype(a.dtype.categories.dtype)
    if isinstance(b.dtype, pd.CategoricalDtype):
        b = b.astype(b.dtype.categories.dtype)
    both = b if not len(a) else a if not len(b) else pd.concat([a, b], ignore_index=True)
    codes, uniques = pd.factorize(both, sort=True)
    codes = codes.astype(np.int32 if len(uniques) < 2**31 else np.int64, copy=False)
    return codes[: len(a)], codes[len(a):], pd.Index(uniques)


def cast_ids(s: pd.Series, how: str | None, *, role: str, table: str, column: str
             ) -> pd.Series:
    """Apply the opt-in ``id_cast``: ``"str"`` or ``"int"`` (integral values only)."""
    if how is None:
        return s
    if how == "str":
        if id_kind(s) == "float":
            floats = s.to_numpy(dtype=np.float64)
            if np.all(floats == np.floor(floats)):
                s = pd.Series(floats.astype(np.int64))
        return s.astype(str)
    kind = id_kind(s)
    if kind == "integer":
        return s
    try:
        values = pd.to_numeric(s, errors="raise")
    except (ValueError, TypeError) as exc:
        raise IdTypeMismatchError(
            f"{table}: id_cast='int' cannot read the {role} ids of column {column!r} as "
            f"integers ({exc})", column=column) from exc
    arr = np.asarray(values, dtype=np.float64)
    bad = np.flatnonzero(arr != np.floor(arr))
    if len(bad):
        raise IdTypeMismatchError(
            f"{table}: id_cast='int' found {len(bad)} non-integral {role} ids in column "
            f"{column!r}, e.g. {list(s.iloc[bad[:5]])}", column=column, n_bad=len(bad),
            examples=list(s.iloc[bad[:5]]))
    return pd.Series(np.asarray(values).astype(np.int64))


def lookalike_ids(uniques: pd.Index, codes_a: np.ndarray, codes_b: np.ndarray
                  ) -> list[tuple[str, str]]:
    """Find string ids of one side only that equal an id of the other side once normalised.

    Normalised means Unicode NFC and stripped of spaces: ``café`` written NFC vs NFD.
    """
    import unicodedata

    if len(uniques) == 0 or id_kind(pd.Series(uniques[:1000])) != "string":
        return []
    in_a = np.zeros(len(uniques), dtype=bool)
    in_b = np.zeros(len(uniques), dtype=bool)
    in_a[codes_a] = True
    in_b[codes_b] = True
    only_a = [str(x) for x in uniques[in_a & ~in_b]]
    only_b = [str(x) for x in uniques[in_b & ~in_a]]
    if not only_a or not only_b:
        return []
    norm_b = {unicodedata.normalize("NFC", x).strip(): x for x in only_b}
    return [(a, norm_b[n]) for a in only_a
            if (n := unicodedata.normalize("NFC", a).strip()) in norm_b][:5]


def cast_table(table: Any, how: str | None) -> Any:
    """Both id columns of one :class:`~receval.data.InputTable` cast by ``id_cast``.

    ``None`` leaves them as they are.
    """
    if how is None:
        return table
    user = cast_ids(table.user, how, role="user", table=table.name,
                    column=table.columns["user"])
    item = cast_ids(table.item, how, role="item", table=table.name,
                    column=table.columns["item"])
    return dataclasses.replace(table, user=user, item=item)
