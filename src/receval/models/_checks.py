"""Checks of the arrays and ids given to a model: factor matrices, biases, id lists, policies."""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np
import pandas as pd

from receval.exceptions import InvalidParameterError, NonFiniteValueError

__all__ = ["UNKNOWN_POLICIES", "finite_matrix", "finite_vector", "id_index", "unknown_ids",
           "unknown_policy"]

#: What a model does with ids it does not know.
UNKNOWN_POLICIES = ("error", "skip")


def _real(values: Any, name: str) -> np.ndarray:
    """``values`` as a float64 array; an error naming ``name`` unless real numbers."""
    arr = np.asarray(values)
    if arr.dtype == object:
        with contextlib.suppress(TypeError, ValueError):
            arr = arr.astype(np.float64)
    if arr.dtype.kind not in "iuf":  # bool, complex, strings, objects, datetimes
        raise InvalidParameterError(
            f"{name} must hold real numbers, got dtype {arr.dtype}", parameter=name,
            examples=[str(arr.dtype)])
    out = arr.astype(np.float64, copy=False)
    bad = np.flatnonzero(~np.isfinite(out).reshape(len(out), -1).all(axis=1)) \
        if out.ndim and len(out) else np.flatnonzero(~np.isfinite(out.ravel()))
    if len(bad):
        raise NonFiniteValueError(
            f"{name} has NaN or infinite values in {len(bad)} rows (e.g. rows "
            f"{bad[:5].tolist()})", parameter=name, n_bad=len(bad), examples=bad[:5].tolist())
    return out


def finite_matrix(values: Any, name: str) -> np.ndarray:
    """A 2-D array of finite reals with at least one row and one column (C order, float64)."""
    arr = np.asarray(values) if not hasattr(values, "toarray") else None
    if arr is None:
        raise InvalidParameterError(f"{name} must be a dense 2-D array, got a sparse matrix",
                                    parameter=name)
    if arr.ndim != 2 or 0 in arr.shape:
        raise InvalidParameterError(
            f"{name} must be a 2-D array (one row per id, one column per factor) with at "
            f"least one row and column, got shape {arr.shape}", parameter=name,
            examples=[arr.shape])
    return np.ascontiguousarray(_real(arr, name))


def finite_vector(values: Any, n: int | None, name: str) -> np.ndarray:
    """Zeros when ``values`` is None; else a 1-D array of ``n`` finite reals (a scalar: n=None)."""
    if values is None:
        return np.zeros(1 if n is None else n)
    arr = np.asarray(values)
    if n is None:
        if arr.ndim != 0 or isinstance(values, (bool, np.bool_)):
            raise InvalidParameterError(f"{name} must be a real number, got {values!r}",
                                        parameter=name, examples=[values])
        return _real(arr.reshape(1), name)
    if arr.ndim != 1 or len(arr) != n:
        raise InvalidParameterError(
            f"{name} must be a 1-D array of {n} values (one per row of the factors), got "
            f"shape {arr.shape}", parameter=name, examples=[arr.shape])
    return _real(arr, name)


def id_index(ids: Any, n: int | None, name: str, rows_of: str | None) -> pd.Index:
    """The ids of ``n`` rows as an Index: 0 .. n-1 when None; 1-D, no missing, no repeat."""
    if ids is None:
        if n is None:
            raise InvalidParameterError(f"{name} is required", parameter=name)
        return pd.RangeIndex(n)
    if isinstance(ids, (str, bytes)) or np.ndim(ids) != 1:
        raise InvalidParameterError(f"{name} must be a 1-D sequence of ids, got {ids!r:.60}",
                                    parameter=name)
    index = pd.Index(ids.to_numpy() if isinstance(ids, (pd.Series, pd.Index)) else list(ids))
    if n is not None and len(index) != n:
        raise InvalidParameterError(
            f"{name} has {len(index)} ids but {rows_of} has {n} rows (one id per row)",
            parameter=name, examples=[len(index), n])
    missing = np.flatnonzero(pd.isna(index))
    if len(missing):
        raise NonFiniteValueError(
            f"{name} has {len(missing)} missing ids (positions {missing[:5].tolist()})",
            parameter=name, n_bad=len(missing), examples=missing[:5].tolist())
    dup = index[index.duplicated()].unique()
    if len(dup):
        raise InvalidParameterError(
            f"{name} repeats {len(dup)} ids (each id is one row), e.g. {dup[:5].tolist()}",
            parameter=name, n_bad=len(dup), examples=dup[:5].tolist())
    return index


def unknown_policy(value: Any) -> str:
    """``value`` if it is a policy for unknown ids, else an error naming ``unknown``."""
    if not isinstance(value, str) or value not in UNKNOWN_POLICIES:
        raise InvalidParameterError(
            f"unknown must be one of {', '.join(map(repr, UNKNOWN_POLICIES))}, got {value!r}",
            parameter="unknown", examples=[value])
    return value


def unknown_ids(model: str, what: str, policy: str, keys: list[Any]) -> None:
    """Raise, under ``policy="error"``, naming a few of the ``keys`` the model lacks."""
    if policy == "skip" or not keys:
        return
    kind = "users" if what == "users" else "(user, item) pairs with an unknown id"
    raise InvalidParameterError(
        f"{model}: {len(keys)} {kind} are not in the model, e.g. {keys[:5]}; pass "
        f"unknown='skip' to leave them out", parameter=what, n_bad=len(keys), examples=keys[:5])
