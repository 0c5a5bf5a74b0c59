"""Every metric of a result per group of users (``ev.by(groups)``), as ``evaluate`` aggregates.

Each group's value goes through :func:`receval._aggregate.aggregate`, the function of the
engine's merge: the exactly rounded mean of the group's defined per-user values (macro), or
``finalize(sum num / sum den)`` over the group's micro terms. So a group holding every user
gives ``ev[label]`` bit for bit.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from receval._aggregate import Column, aggregate
from receval.exceptions import InvalidParameterError, MissingUsersError, format_examples

__all__ = ["as_groups", "by_group"]


def as_groups(groups: Any) -> pd.Series:
    """``groups`` (a mapping or a Series from id to group) as a Series."""
    if isinstance(groups, pd.Series):
        return groups
    if isinstance(groups, Mapping):
        return pd.Series(dict(groups))
    raise InvalidParameterError(
        f"groups must be a mapping or a pandas Series from user id to group; got "
        f"{type(groups).__name__}", parameter="groups")


def _per_group(metric: Any, column: Column, codes: np.ndarray, n_groups: int) -> list[float]:
    """The metric's aggregate over each group's rows (codes -1: no group), one sort."""
    keep = np.flatnonzero(codes >= 0)
    order = keep[np.argsort(codes[keep], kind="stable")]
    ends = np.cumsum(np.bincount(codes[keep], minlength=n_groups))
    starts = ends - np.bincount(codes[keep], minlength=n_groups)
    return [aggregate(metric, column.take(order[a:b]).sums())
            for a, b in zip(starts, ends, strict=True)]


def by_group(ev: Any, groups: Any) -> pd.DataFrame:
    """Every metric of ``ev`` per user group.

    Parameters
    ----------
    ev : EvaluationResult
        (Typed ``Any`` here: results import this module, never the other way round.)
    groups : mapping or pandas.Series
        User id -> group. Every user of ``ev.per_user`` needs a group.

    Returns
    -------
    pandas.DataFrame
        Index: the groups (sorted when they order); columns: ``n_users`` (users of the
        result in the group) and one column per metric label that has per-user values
        (global metrics such as item coverage have none and are left out).

    Raises
    ------
    MissingUsersError
        Users of the result without a group (``parameter='groups'``).
    """
    series = as_groups(groups)
    per_user = ev._pandas_per_user("by(groups)")
    users = per_user.index
    if series.index.has_duplicates:
        dup = series.index[series.index.duplicated()].unique()
        raise InvalidParameterError(
            f"groups gives some users more than one group, e.g. "
            f"{format_examples(list(dup[:5]), len(dup))}", parameter="groups",
            n_bad=len(dup), examples=list(dup[:5]))
    of_user = series.reindex(users)
    lost = users[of_user.isna().to_numpy()]
    if len(lost):
        raise MissingUsersError(
            f"{len(lost)} users of the result have no group, e.g. "
            f"{format_examples(list(lost[:5]), len(lost))}; give every user a group (for "
            f"users absent from a training set, e.g. a group 'cold')", parameter="groups",
            n_bad=len(lost), examples=list(lost[:5]))
    key = of_user.to_numpy()
    out = pd.DataFrame({"n_users": pd.Series(key).value_counts()})
    codes, names = pd.factorize(key)
    for label in per_user.columns:
        metric = ev.summaries[label].metric
        if label in ev._terms:
            idx, num, den = ev._terms[label]
            values = per_user[label].reindex(idx).to_numpy()
            column = Column(idx, values, num, den)
            col_codes = pd.Index(names).get_indexer(series.reindex(idx).to_numpy())
        else:
            column = Column(users, per_user[label].to_numpy())
            col_codes = codes
        out[label] = pd.Series(_per_group(metric, column, col_codes, len(names)),
                               index=names)
    with contextlib.suppress(TypeError):  # groups that do not order stay as they came
        out = out.sort_index()
    out.index.name = "group"
    return out
