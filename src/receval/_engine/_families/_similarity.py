"""Item similarities for diversity and unexpectedness: a dense table when it fits."""

from __future__ import annotations

import numpy as np

from receval._engine._families._side import Side
from receval._kernels import beyond as BK
from receval.metrics import _beyond as M

__all__ = ["DENSE_CELLS", "MODES", "diversity", "similarity_inputs", "usable_items"]

#: The kernels' code of each ``similarity=``.
MODES = {"cosine": BK.COSINE, "jaccard": BK.JACCARD, "euclidean": BK.EUCLIDEAN,
          "cooccurrence": BK.COOCCURRENCE}


def _unit(feats: np.ndarray) -> np.ndarray:
    norm = np.linalg.norm(feats, axis=1)
    out = np.zeros_like(feats)
    np.divide(feats, norm[:, None], out=out, where=norm[:, None] > 0)
    return out


def _cooccurrence(side: Side, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted keys ``a * M + b`` and cosine co-occurrence for every recommended ``a``."""
    m = len(side.items)
    rec = np.unique(rows)
    x = side.user_items
    c = (x[:, rec].T @ x).tocoo()
    a = rec[c.row]
    sim = c.data / np.sqrt(side.pop_users[a] * side.pop_users[c.col])
    keys = a.astype(np.int64) * m + c.col
    order = np.argsort(keys)
    return keys[order], sim[order]


#: Largest table of precomputed similarities (recommended items x item codes), in cells.
DENSE_CELLS = 20_000_000


def _dense(side: Side, mode: int, rec: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Similarities of the recommended items (rows) to ``cols`` (item codes), as a table."""
    if mode == BK.COOCCURRENCE:
        x = side.user_items
        c = np.asarray((x[:, rec].T @ x[:, cols]).todense(), dtype=np.float64)
        norm = np.sqrt(np.outer(side.pop_users[rec], side.pop_users[cols]))
        return np.divide(c, norm, out=np.zeros_like(c), where=norm > 0)
    if mode == BK.COSINE:
        unit = _unit(side.feats)
        return np.asarray(unit[rec] @ unit[cols].T)
    if mode == BK.JACCARD:
        nz = (side.feats != 0).astype(np.float64)
        inter = nz[rec] @ nz[cols].T
        union = nz[rec].sum(1)[:, None] + nz[cols].sum(1)[None, :] - inter
        return np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)
    a, b = side.feats[rec], side.feats[cols]
    sq = (a * a).sum(1)[:, None] + (b * b).sum(1)[None, :] - 2 * a @ b.T
    return np.asarray(np.sqrt(np.maximum(sq, 0.0)))


def similarity_inputs(side: Side, mode: int, item: np.ndarray, *, history: bool = False
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Kernel inputs for one similarity: a dense table when it fits, else the raw form."""
    m = len(side.items)
    rec = np.unique(item)
    if len(rec) * (m if history else len(rec)) <= DENSE_CELLS and mode != BK.EUCLIDEAN:
        dense = _dense(side, mode, rec, np.arange(m) if history else rec)
        rows = np.zeros(m, dtype=np.int64)
        rows[rec] = np.arange(len(rec))
        return (rows, np.zeros(1), np.ascontiguousarray(dense),
                BK.DENSE_ROWS if history else BK.DENSE)
    return (*_raw_similarity(side, mode, item), mode)


def _raw_similarity(side: Side, mode: int, item: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if mode == BK.COOCCURRENCE:
        keys, vals = _cooccurrence(side, item)
        return keys, vals, np.zeros((1, 1))
    feats = _unit(side.feats) if mode == BK.COSINE else side.feats
    return np.zeros(1, dtype=np.int64), np.zeros(1), np.ascontiguousarray(feats)


def usable_items(side: Side, mode: int, policy: str) -> np.ndarray:
    """Which item codes a similarity compares (the kernels skip the others).

    Co-occurrence reads train, not features: every item, whatever the features another
    metric of the call reads. Feature similarities skip the items without features under
    ``item_features_missing='skip'``; under ``'zero'`` such an item is compared as the zero
    vector its row holds (cosine and Jaccard similarity 0 to every item, Microsoft
    Recommenders' value; Euclidean distance the other item's norm).
    """
    if mode == BK.COOCCURRENCE or policy == "zero":
        return np.ones(len(side.items), dtype=bool)
    return side.usable


def diversity(metric: M.Diversity, side: Side, item: np.ndarray, take: np.ndarray,
              policy: str = "error") -> tuple[np.ndarray, np.ndarray]:
    """Per list: the sum of pairwise dissimilarities and the denominator of the mean."""
    mode = MODES[metric.similarity]
    usable = usable_items(side, mode, policy)
    keys, vals, feats, mode = similarity_inputs(side, mode, item)
    n = len(take)
    total, pairs, count = np.zeros(n), np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    BK.list_dissimilarity(np.cumsum(take) - take, take, item, usable, mode, feats, keys,
                          vals, len(side.items), total, pairs, count)
    den = pairs if metric.normalize == "pairs" else count
    return total, den.astype(np.float64)
