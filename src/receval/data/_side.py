"""Side inputs of the beyond-accuracy metrics: ``train=`` and ``item_features=``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from receval._columns import Columns
from receval.data._table import _as_frame, _ids, _ids_of
from receval.exceptions import DataError, InvalidParameterError, format_examples

__all__ = ["Features", "read_features", "train_ids"]


def train_ids(data: Any, columns: Columns) -> tuple[pd.Series, pd.Series]:
    """The user and item ids of the training interactions (any form receval reads)."""
    frame, _, ucol, icol = _ids_of(data, "train", columns)
    return _ids(frame, ucol, "train", "user"), _ids(frame, icol, "train", "item")


@dataclass(frozen=True)
class Features:
    """Item ids and one numeric row per item."""

    items: pd.Index
    matrix: np.ndarray
    form: str


def _vector_matrix(frame: pd.DataFrame, col: str) -> np.ndarray:
    values = frame[col].tolist()
    try:
        lengths = {len(v) for v in values}
    except TypeError:
        raise InvalidParameterError(
            f"item_features: column {col!r} must hold vectors (lists or arrays)",
            parameter="item_features") from None
    if len(lengths) > 1:
        raise DataError(f"item_features: the vectors in {col!r} have different lengths "
                        f"{sorted(lengths)[:5]}", parameter="item_features")
    try:
        return np.asarray([np.asarray(v, dtype=np.float64) for v in values],
                          dtype=np.float64).reshape(len(values), -1)
    except (TypeError, ValueError):
        raise DataError(f"item_features: the vectors in {col!r} are not numeric",
                        parameter="item_features") from None


def read_features(data: Any, columns: Columns) -> Features:
    """Read ``item_features``: wide (item + numeric columns), long (item, feature), vector.

    A long table (exactly one non-item column holding text or categories) becomes 0/1
    columns, one per distinct feature; a single column of lists/arrays is a vector column.
    """
    frame = _as_frame(data, "item_features")
    avail = [str(c) for c in frame.columns]
    icol = columns.require("item", avail, table="item_features")
    rest = [c for c in frame.columns if str(c) != icol]
    if not rest:
        raise InvalidParameterError("item_features has no feature column besides the item "
                                    f"column {icol!r}", parameter="item_features")
    items = _ids(frame, icol, "item_features", "item")
    first = frame[rest[0]]
    if len(rest) == 1 and first.dtype == object and len(first) and \
            isinstance(first.iloc[0], (list, tuple, np.ndarray)):
        form, matrix = "vector", _vector_matrix(frame, rest[0])
    elif len(rest) == 1 and not pd.api.types.is_numeric_dtype(first):
        form = "long"
        codes_i, uniq_i = pd.factorize(items, sort=True)
        codes_f, uniq_f = pd.factorize(first.astype(str), sort=True)
        matrix = np.zeros((len(uniq_i), len(uniq_f)))
        matrix[codes_i, codes_f] = 1.0
        return Features(pd.Index(uniq_i), matrix, form)
    else:
        form = "wide"
        bad = [str(c) for c in rest if not pd.api.types.is_numeric_dtype(frame[c])]
        if bad:
            raise DataError(f"item_features: wide feature columns must be numeric; "
                            f"{format_examples(bad, len(bad))} are not",
                            parameter="item_features", examples=bad[:5])
        matrix = frame[rest].to_numpy(dtype=np.float64, na_value=np.nan)
    if not np.isfinite(matrix).all():
        rows = np.flatnonzero(~np.isfinite(matrix).all(axis=1))
        ex = items.iloc[rows[:5]].tolist()
        raise DataError(f"item_features: {len(rows)} items have missing or infinite feature "
                        f"values (e.g. {format_examples(ex, len(rows))})",
                        parameter="item_features", n_bad=len(rows), examples=ex)
    if items.duplicated().any():
        dup = items[items.duplicated()].unique()[:5].tolist()
        raise DataError(f"item_features: items repeated in a wide or vector table (e.g. "
                        f"{format_examples(dup, len(dup))})", parameter="item_features",
                        examples=dup)
    return Features(pd.Index(items), matrix, form)
