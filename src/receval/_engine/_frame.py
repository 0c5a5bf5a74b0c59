"""The per-user table of a result: one row per evaluated user, one column per metric."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable

import numpy as np
import pandas as pd

__all__ = ["concat", "groups_frame", "per_user_frame", "user_order"]


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


def per_user_frame(ranking_users: pd.Index, rating_users: pd.Index,
                   cols: dict[str, tuple[pd.Index, np.ndarray]],
                   order: list[str]) -> pd.DataFrame:
    """Ranking and rating users' values, in user order, columns in the requested order."""
    if len(rating_users) == 0:
        index = ranking_users
    elif len(ranking_users) == 0:
        index = rating_users
    else:
        index = ranking_users.union(rating_users, sort=False)
    frame = {}
    for label in order:
        if label in cols:
            users, values = cols[label]
            if users.equals(index):
                frame[label] = values
            else:
                frame[label] = pd.Series(values, index=users).reindex(index).to_numpy()
    out = pd.DataFrame(frame, index=index.rename("user"))
    if not out.index.is_monotonic_increasing:
        with contextlib.suppress(TypeError):  # ids that do not order: keep the input order
            out = out.sort_index()
    return out


def groups_frame(lists: dict[str, pd.Index]) -> pd.DataFrame:
    """Every user of some lists, one row each (in id order), a boolean column per list."""
    users = [u for u in lists.values() if len(u)]
    index = users[0].append(users[1:]).unique() if users else pd.Index([])
    with contextlib.suppress(TypeError):  # ids that do not order: as they came
        index = index.sort_values()
    return pd.DataFrame({name: index.isin(u) for name, u in lists.items()},
                        index=index.rename("user"))
