"""Every metric of a result per group of users (``ev.by(groups)``), as ``evaluate`` aggregates.

Each group's value goes through :func:`receval._aggregate.aggregate`, the function of the
engine's merge: the exactly rounded mean of the group's defined per-user values (macro), or
``finalize(sum num / sum den)`` over the group's micro terms. So a group holding every user
gives ``ev[label]`` bit for bit.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from receval._aggregate import Column, aggregate
from receval.data._encode import id_kind
from receval.exceptions import (
    IdTypeMismatchError,
    InvalidParameterError,
    MissingUsersError,
    format_examples,
)

__all__ = ["as_groups", "by_group", "check_group_ids", "group_order"]


def as_groups(groups: Any) -> pd.Series:
    """``groups`` (a mapping or a Series from id to group) as a Series."""
    if isinstance(groups, pd.Series):
        return groups
    if isinstance(groups, Mapping):
        return pd.Series(dict(groups), dtype=object if not groups else None)
    raise InvalidParameterError(
        f"groups must be a mapping or a pandas Series from id to group; got "
        f"{type(groups).__name__}", parameter="groups")


def check_group_ids(groups: pd.Series, ids: pd.Index | pd.Series, role: str,
                    where: str) -> None:
    """The ids of ``groups`` (its index): of the kind of ``ids`` (those they label), once each.

    Ids are compared exactly and never cast, so group keys ``'1'`` label no user ``1``;
    an index of another kind would otherwise match nothing (an empty table, or every user
    "without a group").

    Raises
    ------
    IdTypeMismatchError
        Naming both kinds and dtypes (``parameter='groups'``).
    InvalidParameterError
        An id given more than one group.
    """
    keys = pd.Series(groups.index)
    if len(keys) and len(ids):
        kind, ref = id_kind(keys), id_kind(pd.Series(ids))
        if kind == "mixed":
            types = keys.map(lambda v: type(v).__name__).unique().tolist()
            raise IdTypeMismatchError(
                f"groups: the {role} ids (its index) mix value types {types}; ids are compared "
                f"exactly: make them one type, that of {where} ({ref}, dtype {ids.dtype})",
                parameter="groups", examples=types)
        if kind != ref:
            raise IdTypeMismatchError(
                f"groups: the {role} ids (its index) are {kind} (dtype {keys.dtype}) while "
                f"{where} has {ref} {role} ids (dtype {ids.dtype}); ids are compared exactly and "
                f"never cast: convert one side first, e.g. groups.index.astype(...)",
                parameter="groups", examples=[str(keys.dtype), str(ids.dtype)])
    if groups.index.has_duplicates:
        dup = groups.index[groups.index.duplicated()].unique()
        raise InvalidParameterError(
            f"groups gives some {role}s more than one group, e.g. "
            f"{format_examples(list(dup[:5]), len(dup))}", parameter="groups",
            n_bad=len(dup), examples=list(dup[:5]))


def group_order(groups: pd.Series, present: Any) -> list[Any]:
    """The groups of ``present`` in the order a table shows them.

    A categorical ``groups`` keeps the order of its categories (ordered or not); other
    labels are sorted when they order (numbers by value, strings alphabetically) and kept
    in their first-appearance order otherwise.
    """
    seen = pd.unique(pd.Series(list(present), dtype=object))
    if isinstance(groups.dtype, pd.CategoricalDtype):
        have = set(seen)
        return [c for c in groups.cat.categories if c in have]
    try:
        return sorted(seen)
    except TypeError:  # labels of several types that do not order
        return list(seen)


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
        Index: the groups, in the order of the categories for a categorical ``groups``
        (e.g. :func:`receval.stats.activity_groups`, from the least to the most active),
        else sorted when they order (numbers by value); columns: ``n_users`` (users of the
        result in the group) and one column per metric label that has per-user values
        (global metrics such as item coverage have none and are left out).

    Raises
    ------
    IdTypeMismatchError
        Group keys of another type than the result's user ids (``parameter='groups'``).
    MissingUsersError
        Users of the result without a group (``parameter='groups'``).
    """
    series = as_groups(groups)
    per_user = ev._pandas_per_user("by(groups)")
    users = per_user.index
    check_group_ids(series, users, "user", "the result")
    of_user = series.reindex(users)
    lost = users[of_user.isna().to_numpy()]
    if len(lost):
        raise MissingUsersError(
            f"{len(lost)} users of the result have no group, e.g. "
            f"{format_examples(list(lost[:5]), len(lost))}; give every user a group (for "
            f"users absent from a training set, e.g. a group 'cold')", parameter="groups",
            n_bad=len(lost), examples=list(lost[:5]))
    key = of_user.to_numpy(dtype=object)
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
    out = out.reindex(pd.Index(group_order(series, key), dtype=object))
    out.index.name = "group"
    return out
