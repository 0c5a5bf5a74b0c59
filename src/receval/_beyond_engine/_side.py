"""Side inputs of the beyond-accuracy metrics, encoded with one partition's item codes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from receval.data import Interactions
from receval.data._side import read_features, train_ids
from receval.exceptions import InvalidParameterError
from receval.metrics import _beyond as M

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


def check_inputs(metrics: Sequence[M.BeyondMetric], opts: Any) -> None:
    """Every side input the metrics need was given; their tie policy is defined."""
    for m in metrics:
        for need in m.inputs():
            if need == "truth":
                continue
            if getattr(opts, need) is None:
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


def encode_side(data: Interactions, opts: Any, users: np.ndarray, need_feats: bool) -> Side:
    """Train and features under the partition's item codes, extended by their own items."""
    ids = data.item_ids
    extra: list[Any] = []
    t_user = t_item = None
    if opts.train is not None:
        t_user, t_item = train_ids(opts.train, opts.columns)
        extra.extend(pd.unique(t_item[~t_item.isin(ids)]))
    features = read_features(opts.item_features, opts.columns) if need_feats else None
    if features is not None:
        extra.extend(features.items[~features.items.isin(ids)])
    items = ids.append(pd.Index(pd.unique(pd.Series(extra, dtype=object)))) if extra else ids
    m = len(items)
    pop_rows = np.zeros(m)
    pop_users = np.zeros(m)
    h_starts = h_ends = np.zeros(len(users), dtype=np.int64)
    h_item = np.empty(0, dtype=np.int64)
    n_users = n_rows = 0
    user_items = None
    if t_user is not None and t_item is not None:
        ic = items.get_indexer(pd.Index(t_item))
        uc, uniq = pd.factorize(t_user)
        n_users, n_rows = len(uniq), len(ic)
        pop_rows = np.bincount(ic, minlength=m).astype(np.float64)
        user_items = sp.csr_matrix((np.ones(len(ic)), (uc, ic)), shape=(n_users, m))
        user_items.data[:] = 1.0  # duplicates summed: a user counts once per item
        user_items.sum_duplicates()
        user_items.data[:] = 1.0
        pop_users = np.asarray(user_items.sum(axis=0)).ravel()
        part = pd.Index(uniq).get_indexer(data.user_ids[users])
        rows = user_items[np.maximum(part, 0)]
        lengths = np.diff(rows.indptr) * (part >= 0)
        h_ends = np.cumsum(lengths)
        h_starts = h_ends - lengths
        rows.sort_indices()
        keep = np.repeat(part >= 0, np.diff(rows.indptr))
        h_item = rows.indices[keep].astype(np.int64)
    feats = np.zeros((m, 1))
    usable = np.ones(m, dtype=np.bool_)
    if features is not None:
        feats = np.zeros((m, features.matrix.shape[1]))
        feats[items.get_indexer(features.items)] = features.matrix
        usable = np.zeros(m, dtype=np.bool_)
        usable[items.get_indexer(features.items)] = True
    return Side(items, n_users, n_rows, pop_rows, pop_users, pop_rows > 0, h_starts,
                 h_ends, h_item, user_items, feats, usable)
