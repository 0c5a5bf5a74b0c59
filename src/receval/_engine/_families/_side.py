"""The side inputs under one partition's item codes (read once per evaluation, mapped here).

:func:`receval.data._side.prepare_side` reads ``train`` and ``item_features`` once into arrays
over its own item index; a partition's kernels index items by the partition's codes (the
items of its recs and truth, sorted), extended by the side inputs' other items. This module
builds that extension with index lookups and one pass over the training matrix's entries.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from receval.data import Interactions
from receval.data._side import SideInputs
from receval.exceptions import InvalidParameterError

__all__ = ["Side", "check_inputs", "encode_side"]


@dataclass
class Side:
    """Train and features encoded with the partition's item codes (extended)."""

    items: pd.Index  # item ids of every code: recs/truth items first, then the others
    n_train_users: int
    n_train_rows: int
    pop_rows: np.ndarray  # training interactions per item code
    pop_users: np.ndarray  # distinct training users per item code
    in_train: np.ndarray
    h_starts: np.ndarray  # each partition user's training items (sorted codes)
    h_ends: np.ndarray
    h_item: np.ndarray
    user_items: Any  # sparse users x items (0/1) of train, or None
    feats: np.ndarray
    usable: np.ndarray


def check_inputs(metrics: Sequence[Any], opts: Any) -> None:
    """Every side input the metrics need was given; their tie policy is defined."""
    side: SideInputs = opts.side
    given = {"train": side.train_given, "item_features": side.features is not None}
    for m in metrics:
        for need in m.inputs():
            if need != "truth" and not given[need]:
                raise InvalidParameterError(
                    f"{m.label} needs evaluate({need}=...): "
                    + ("the training interactions (user, item)" if need == "train" else
                       "a table item -> features (wide numeric columns, a long (item, "
                       "feature) table or an item -> vector column)"),
                    parameter=need)
        if (m.ties or opts.ties) == "expected":
            raise InvalidParameterError(
                f"{m.label}: ties='expected' is not defined for beyond-accuracy metrics; "
                f"pass ties='stable' or 'item' for this metric", parameter="ties")


def _extended(data: Interactions, side: SideInputs) -> tuple[pd.Index, np.ndarray]:
    """The partition's items, then the side inputs' other items; each code's side index."""
    ids = data.item_ids
    at = side.items.get_indexer(ids)  # -1: a recs / truth item the side inputs lack
    others = np.setdiff1d(np.arange(len(side.items)), at[at >= 0], assume_unique=True)
    items = ids.append(side.items[others]) if len(others) else ids
    return items, np.concatenate([at, others]).astype(np.int64)


def _history(data: Interactions, side: SideInputs, users: np.ndarray, user_items: Any
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each partition user's training items (sorted codes), CSR over ``users``."""
    assert side.train is not None
    part = side.train.users.get_indexer(data.user_ids[users])
    rows = user_items[np.maximum(part, 0)]
    lengths = np.diff(rows.indptr) * (part >= 0)
    h_ends = np.cumsum(lengths)
    rows.sort_indices()
    keep = np.repeat(part >= 0, np.diff(rows.indptr))
    return h_ends - lengths, h_ends, rows.indices[keep].astype(np.int64)


def encode_side(data: Interactions, side: SideInputs, users: np.ndarray) -> Side:
    """Train and features under the partition's item codes, extended by their own items."""
    items, side_of = _extended(data, side)
    m = len(items)
    known = side_of >= 0
    pop_rows, pop_users = np.zeros(m), np.zeros(m)
    h_starts = h_ends = np.zeros(len(users), dtype=np.int64)
    h_item = np.empty(0, dtype=np.int64)
    user_items = None
    n_users = n_rows = 0
    if side.train is not None:
        train = side.train
        pop_rows[known] = train.pop_rows[side_of[known]]
        pop_users[known] = train.pop_users[side_of[known]]
        code_of = np.full(len(side.items), -1, dtype=np.int64)
        code_of[side_of[known]] = np.flatnonzero(known)
        x = train.user_items
        user_items = sp.csr_matrix((x.data, code_of[x.indices], x.indptr),
                                   shape=(x.shape[0], m))
        user_items.sort_indices()
        n_users, n_rows = x.shape[0], train.n_rows
        h_starts, h_ends, h_item = _history(data, side, users, user_items)
    feats = np.zeros((m, 1))
    usable = np.ones(m, dtype=np.bool_)
    if side.features is not None:
        width = side.features.matrix.shape[1]
        feats = np.zeros((m, width))
        usable = np.zeros(m, dtype=np.bool_)
        code_of_row = items.get_indexer(side.features.items)
        feats[code_of_row] = side.features.matrix
        usable[code_of_row] = True
    return Side(items, n_users, n_rows, pop_rows, pop_users, pop_rows > 0, h_starts, h_ends,
                h_item, user_items, feats, usable)
