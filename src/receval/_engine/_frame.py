"""The per-user table of a result: one row per evaluated user, one column per metric."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable

import numpy as np
import pandas as pd

from receval._aggregate import Column

__all__ = ["concat", "per_user_frame", "user_order"]


def concat(indexes: Iterable[pd.Index]) -> pd.Index:
    """The indexes one after the other (empty ones dropped)."""
    parts = [i for i in indexes if len(i)]
    if not parts:
        return pd.Index([])
    return parts[0].append(parts[1:]) if len(parts) > 1 else parts[0]


def user_order(users: pd.Index) -> tuple[pd.Index, np.ndarray | None]:
    """Users sorted by id (as in one in-memory partial), and the permutation, if needed."""
    if users.is_monotonic_increasing:
        return users, None
    try:
        order = np.asarray(users.argsort(), dtype=np.int64)
    except TypeError:  # ids that do not order: keep them as they came
        return users, None
    return users[order], order


def per_user_frame(cols: dict[str, Column], order: list[str], empty: pd.Index
                   ) -> pd.DataFrame:
    """Every column's users (their union, in id order), columns in the requested order.

    ``empty`` is the index of a table without any per-user column (the ids' dtype kept).
    """
    indexes: list[pd.Index] = []
    for column in cols.values():  # columns of one family share their users
        if not any(column.users is seen for seen in indexes):
            indexes.append(column.users)
    if not indexes:
        index = empty
    else:
        index = indexes[0]
        for other in indexes[1:]:
            if not other.equals(index):
                index = index.union(other, sort=False)
    frame = {}
    for label in order:
        if label in cols:
            users, values = cols[label].users, cols[label].values
            if users.equals(index):
                frame[label] = values
            else:
                frame[label] = pd.Series(values, index=users).reindex(index).to_numpy()
    out = pd.DataFrame(frame, index=index.rename("user"))
    if not out.index.is_monotonic_increasing:
        with contextlib.suppress(TypeError):  # ids that do not order: keep the input order
            out = out.sort_index()
    return out
