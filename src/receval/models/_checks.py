"""Checks of the arrays and ids of models: factor matrices, biases, id lists, policies.

And of a Series of predictions a model returns (:func:`series_in_order`).
"""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np
import pandas as pd

from receval.exceptions import (
    InvalidParameterError,
    NonFiniteValueError,
    RecevalError,
    format_examples,
)

__all__ = ["UNKNOWN_POLICIES", "finite_matrix", "finite_vector", "id_index",
           "series_in_order", "unknown_ids", "unknown_policy"]

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


def series_in_order(values: Any, pairs: pd.DataFrame, where: str, *,
                    error: type[RecevalError], parameter: str) -> Any:
    """A pandas Series of predictions put in the order of ``pairs``, by its index labels.

    A Series is read by label, never by position: one whose index holds exactly the labels
    of ``pairs.index`` (each once) is reindexed on it, so a Series sorted another way (by
    item, by score) still gives each pair its own value. Anything else is returned as it
    is (arrays and lists are one value per pair, in order).

    Raises
    ------
    RecevalError
        Of class ``error``, naming ``where``: a Series whose index is not that of
        ``pairs`` (other labels, repeated labels, another length), which could only be read
        by position, i.e. perhaps wrongly.
    """
    if not isinstance(values, pd.Series) or values.index.equals(pairs.index):
        return values
    index = values.index
    if len(index) == len(pairs) and index.is_unique and pairs.index.is_unique and \
            bool(index.isin(pairs.index).all()):
        return values.reindex(pairs.index)
    other = index[~index.isin(pairs.index)] if len(index) else index
    detail = f"e.g. labels {format_examples(list(other), len(other))} are not in pairs.index" \
        if len(other) else "its labels repeat" if not index.is_unique else \
        f"it has {len(index)} labels for {len(pairs)} pairs"
    raise error(
        f"{where} returned a pandas Series whose index is not pairs.index ({detail}); a "
        f"Series is matched to the pairs by its index labels, never by position: return it "
        f"indexed like pairs (e.g. pd.Series(values, index=pairs.index)), a numpy array in "
        f"the order of pairs, or a table user_id, item_id, score", parameter=parameter,
        n_bad=len(other) or None, examples=list(other[:5]))
