"""Group and propensity side inputs: ``item_groups=``, ``user_groups=``, ``propensities=``.

Read once per evaluation by :func:`receval.data._side.prepare_side`, like ``train=`` and
``item_features=``, into plain arrays that every partition (in memory, Parquet buckets,
Spark executors) maps onto its own codes:

* :class:`Groups` -- ids (items or users), group names and a 0/1 membership matrix. An item
  may belong to several groups (a list cell, or text joined by ``sep``, e.g.
  ``"Europe|Asia"``); a user belongs to exactly one.
* :class:`Propensities` -- item ids and each item's observation propensity ``0 < p <= 1``.

Each accepts a mapping (id -> value), a pandas Series indexed by id, or a table (pandas,
polars, Arrow, a file path) with the id column (its role's name or an alias) and one value
column.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from receval._columns import Columns
from receval.data._encode import cast_ids
from receval.data._table import _as_frame, _ids
from receval.exceptions import (
    DataError,
    EmptyInputError,
    InvalidParameterError,
    NonFiniteValueError,
    format_examples,
)

__all__ = ["Groups", "Propensities", "read_groups", "read_propensities"]


@dataclass(frozen=True)
class Groups:
    """Ids and the groups each belongs to.

    Attributes
    ----------
    ids : pandas.Index
        Distinct ids (items or users), in first-seen order.
    names : pandas.Index
        The groups, sorted (first-seen order when they do not order).
    member : scipy.sparse.csr_matrix
        ``ids x names``, 1 where the id belongs to the group.
    role : str
        ``"item"`` or ``"user"``.
    """

    ids: pd.Index
    names: pd.Index
    member: Any
    role: str

    @property
    def n_groups(self) -> int:
        """Number of groups."""
        return len(self.names)

    def sizes(self) -> np.ndarray:
        """Ids per group (an id in several groups counts in each)."""
        return np.asarray(self.member.sum(axis=0)).ravel()

    def rows_of(self, ids: pd.Index) -> np.ndarray:
        """Each of ``ids``' row in :attr:`member`, -1 for an id without a group."""
        return np.asarray(self.ids.get_indexer(ids), dtype=np.int64)

    def matrix_of(self, ids: pd.Index) -> Any:
        """Membership rows of ``ids`` (zero rows for ids without a group), CSR."""
        rows = self.rows_of(ids)
        out = self.member[np.maximum(rows, 0)].tocsr()
        out = sp.diags((rows >= 0).astype(np.float64)) @ out
        return sp.csr_matrix(out)


@dataclass(frozen=True)
class Propensities:
    """Items and each one's observation propensity ``0 < p <= 1``."""

    ids: pd.Index
    values: np.ndarray


def _pairs(data: Any, name: str, role: str, columns: Columns
           ) -> tuple[pd.Series, pd.Series]:
    """(id, value) pairs of a mapping, a Series or a two-column table."""
    if isinstance(data, Mapping):
        if not len(data):
            raise EmptyInputError(f"{name} is empty", parameter=name)
        keys = list(data)
        return pd.Series(keys), pd.Series([data[k] for k in keys], dtype=object)
    if isinstance(data, pd.Series):
        if data.index.has_duplicates:
            dup = data.index[data.index.duplicated()].unique()[:5].tolist()
            raise DataError(f"{name}: ids repeated in the Series index (e.g. "
                            f"{format_examples(dup, len(dup))})", parameter=name,
                            examples=dup)
        return pd.Series(data.index), data.reset_index(drop=True)
    frame = _as_frame(data, name)
    avail = [str(c) for c in frame.columns]
    icol = columns.require(role, avail, table=name)
    rest = [c for c in frame.columns if str(c) != icol]
    if len(rest) != 1:
        raise InvalidParameterError(
            f"{name} must have the {role} column {icol!r} and exactly one other column (the "
            f"value); it has {avail}", parameter=name, examples=avail[:5])
    if len(frame) == 0:
        raise EmptyInputError(f"{name} is empty", parameter=name)
    return _ids(frame, icol, name, role), frame[rest[0]].reset_index(drop=True)


def _is_listlike(value: Any) -> bool:
    return isinstance(value, (list, tuple, set, frozenset, np.ndarray))


def _cells(values: pd.Series, ids: pd.Series, name: str, sep: str | None) -> list[list[Any]]:
    """Each id's groups: a list cell, text split on ``sep``, or one value."""
    missing = [i for i, v in enumerate(values) if not _is_listlike(v) and pd.isna(v)]
    if missing:
        ex = ids.iloc[missing[:5]].tolist()
        raise NonFiniteValueError(
            f"{name}: {len(missing)} ids have no group (missing value), e.g. "
            f"{format_examples(ex, len(missing))}; give them a group such as 'other', or "
            f"leave them out of the table", parameter=name, n_bad=len(missing), examples=ex)
    out: list[list[Any]] = []
    for v in values:
        if _is_listlike(v):
            out.append(list(v))
        elif isinstance(v, str) and sep is not None:
            out.append([c.strip() for c in v.split(sep)])
        else:
            out.append([v])
    empty = [i for i, c in enumerate(out) if not c or any(x == "" for x in c)]
    if empty:
        ex = ids.iloc[empty[:5]].tolist()
        raise DataError(f"{name}: empty groups after splitting on {sep!r} (ids "
                        f"{format_examples(ex, len(empty))}), e.g. 'a||b' or a trailing "
                        f"separator", parameter=name, n_bad=len(empty), examples=ex)
    return out


def read_groups(data: Any, columns: Columns, *, role: str, name: str, sep: str | None = "|",
                id_cast: str | None = None, single: bool = False) -> Groups:
    """Read ``item_groups`` or ``user_groups``: id -> group (or several, for items).

    Parameters
    ----------
    data : mapping, Series or table
        Id -> group; a table has the id column and one group column, and may give an id
        several rows (one per group).
    role : {"item", "user"}
    name : str
        The parameter's name, for messages.
    sep : str or None
        Text cells holding ``sep`` name several groups (``"a|b"``).
    single : bool
        Every id must have exactly one group (user groups).

    Raises
    ------
    EmptyInputError, NonFiniteValueError, DataError, InvalidParameterError
        An empty table, an id without a group, an empty group name, several groups for a
        user, or a table that is not (id, group).
    """
    ids, values = _pairs(data, name, role, columns)
    ids = cast_ids(ids, id_cast, role=role, table=name, column=role)
    cells = _cells(values, ids, name, sep)
    lengths = np.fromiter((len(c) for c in cells), dtype=np.int64, count=len(cells))
    flat_ids = ids.iloc[np.repeat(np.arange(len(ids)), lengths)].reset_index(drop=True)
    flat = pd.Series([g for c in cells for g in c], dtype=object)
    codes_i, uniq_i = pd.factorize(flat_ids)
    try:
        codes_g, uniq_g = pd.factorize(flat, sort=True)
    except TypeError:  # group names that do not order: first-seen order
        codes_g, uniq_g = pd.factorize(flat)
    member = sp.csr_matrix((np.ones(len(codes_i)), (codes_i, codes_g)),
                           shape=(len(uniq_i), len(uniq_g)))
    member.sum_duplicates()
    member.data[:] = 1.0
    if single:
        per_id = np.diff(member.indptr)
        bad = np.flatnonzero(per_id > 1)
        if len(bad):
            ex = list(pd.Index(uniq_i)[bad[:5]])
            raise DataError(f"{name}: {len(bad)} {role}s have several groups (e.g. "
                            f"{format_examples(ex, len(bad))}); each {role} belongs to one "
                            f"group", parameter=name, n_bad=len(bad), examples=ex)
    return Groups(pd.Index(uniq_i), pd.Index(uniq_g), member, role)


def read_propensities(data: Any, columns: Columns, *, id_cast: str | None = None
                      ) -> Propensities:
    """Read ``propensities``: item -> the probability that its interactions are observed.

    Raises
    ------
    DataError
        A value that is not a number in ``(0, 1]``, or an item given twice.
    """
    ids, values = _pairs(data, "propensities", "item", columns)
    ids = cast_ids(ids, id_cast, role="item", table="propensities", column="item")
    p = pd.to_numeric(values, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    bad = np.flatnonzero(~(np.isfinite(p) & (p > 0) & (p <= 1)))
    if len(bad):
        ex = ids.iloc[bad[:5]].tolist()
        raise DataError(
            f"propensities: {len(bad)} items have a propensity that is not a number in "
            f"(0, 1] (e.g. items {format_examples(ex, len(bad))}: "
            f"{values.iloc[bad[:5]].tolist()}); a propensity is the probability that an "
            f"interaction is observed", parameter="propensities", n_bad=len(bad), examples=ex)
    dup = ids[ids.duplicated()].unique()
    if len(dup):
        raise DataError(f"propensities: items given twice (e.g. "
                        f"{format_examples(list(dup[:5]), len(dup))})",
                        parameter="propensities", n_bad=len(dup), examples=list(dup[:5]))
    return Propensities(pd.Index(ids), p)
