"""Surprise's factor and cluster models scored from their fitted parameters, with numpy.

Each scorer reproduces one algorithm's ``estimate`` (Surprise 1.1, Hug 2020) for a block of
users against every item (``grid``) or for arbitrary pairs (``pairs``), in Surprise's inner
ids (-1: a user or item Surprise does not know):

* SVD / NMF (``biased``): ``mu + b_u + b_i + q_i . p_u``; the terms of an unknown user or item
  are left out (a bias-only estimate); unbiased: ``q_i . p_u``, unknown -> impossible.
* SVD++: ``mu + b_u + b_i + q_i . (p_u + |I_u|^-1/2 sum_{j in I_u} y_j)`` (Koren 2008), the
  implicit sum over the items the user rated (computed once per fit, in the user's list
  order).
* BaselineOnly: ``mu + b_u + b_i`` (each term when known).
* CoClustering (George & Merugu 2005): ``A_co(C_u, C_i) + (mu_u - A_u(C_u)) + (mu_i -
  A_i(C_i))``; an unknown user or item: the global mean.

"Impossible" is Surprise's ``PredictionImpossible``: ``predict`` then returns the default
prediction, the training mean. The sums are taken in Surprise's order; the dot products are
BLAS products, equal to Surprise's ``numpy.dot`` to a few ulps.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

__all__ = ["BaselineScorer", "CoClusteringScorer", "Estimates", "FactorScorer", "csr_of_lists"]


class Estimates(NamedTuple):
    """Unclipped estimates, Surprise's ``was_impossible`` flag and (k-NN) ``actual_k``."""

    est: np.ndarray
    impossible: np.ndarray
    actual_k: np.ndarray | None = None


def csr_of_lists(lists: dict[int, list[tuple[int, float]]], n: int
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A Surprise ``ur`` / ``ir`` dict (inner id -> [(other id, rating)]) as a CSR, list order."""
    sizes = np.fromiter((len(lists[x]) for x in range(n)), dtype=np.int64, count=n)
    off = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(sizes, out=off[1:])
    flat = [pair for x in range(n) for pair in lists[x]]
    ids = np.fromiter((a for a, _ in flat), dtype=np.int64, count=len(flat))
    vals = np.fromiter((r for _, r in flat), dtype=np.float64, count=len(flat))
    return off, ids, vals


def _bias(values: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """``values[code]`` for known codes, 0 for unknown (-1) ones."""
    out = np.zeros(len(codes), dtype=np.float64)
    known = codes >= 0
    out[known] = values[codes[known]]
    return out


class FactorScorer:
    """SVD, NMF and SVD++ from ``pu``, ``qi``, ``bu``, ``bi`` (and ``yj``), the global mean."""

    def __init__(self, algo: Any, trainset: Any, items: np.ndarray) -> None:
        self.gm = float(trainset.global_mean)
        self.biased = bool(getattr(algo, "biased", True))
        self.items = items  # inner id of each receval item code
        self.bu = np.asarray(algo.bu, dtype=np.float64)
        self.bi = np.asarray(algo.bi, dtype=np.float64)
        pu = np.asarray(algo.pu, dtype=np.float64)
        if hasattr(algo, "yj"):  # SVD++: p_u + |I_u|^-1/2 sum_j y_j, once per fit
            off, rated, _ = csr_of_lists(trainset.ur, trainset.n_users)
            yj = np.asarray(algo.yj, dtype=np.float64)
            sums = np.add.reduceat(yj[rated], off[:-1], axis=0) if len(rated) else \
                np.zeros_like(pu)
            pu = pu + sums / np.sqrt(np.diff(off)).astype(np.float64)[:, None]
        self.pu = pu
        self.qi = np.asarray(algo.qi, dtype=np.float64)

    def grid(self, users: np.ndarray) -> Estimates:
        """Estimates of ``users`` (inner ids, -1 unknown) x every item, shape (users, items)."""
        known = users >= 0
        q = self.qi[self.items]
        dot = np.zeros((len(users), len(self.items)))
        dot[known] = self.pu[users[known]] @ q.T
        if not self.biased:
            est = np.where(known[:, None], dot, self.gm)
            return Estimates(est, np.broadcast_to(~known[:, None], est.shape).copy())
        est = (self.gm + _bias(self.bu, users))[:, None] + self.bi[self.items][None, :]
        est += dot
        return Estimates(est, np.zeros(est.shape, dtype=bool))

    def pairs(self, users: np.ndarray, items: np.ndarray) -> Estimates:
        """Estimates of the pairs ``(users[p], items[p])`` (inner ids, -1 unknown)."""
        both = (users >= 0) & (items >= 0)
        dot = np.zeros(len(users))
        dot[both] = np.einsum("ij,ij->i", self.pu[users[both]], self.qi[items[both]])
        if not self.biased:
            return Estimates(np.where(both, dot, self.gm), ~both)
        est = self.gm + _bias(self.bu, users) + _bias(self.bi, items) + dot
        return Estimates(est, np.zeros(len(est), dtype=bool))


class BaselineScorer:
    """BaselineOnly: ``mu + b_u + b_i`` (Koren 2010), each bias when its id is known."""

    def __init__(self, algo: Any, trainset: Any, items: np.ndarray) -> None:
        self.gm = float(trainset.global_mean)
        self.bu = np.asarray(algo.bu, dtype=np.float64)
        self.bi = np.asarray(algo.bi, dtype=np.float64)
        self.items = items

    def grid(self, users: np.ndarray) -> Estimates:
        """Estimates of ``users`` (inner ids, -1 unknown) x every item."""
        est = (self.gm + _bias(self.bu, users))[:, None] + self.bi[self.items][None, :]
        return Estimates(est, np.zeros(est.shape, dtype=bool))

    def pairs(self, users: np.ndarray, items: np.ndarray) -> Estimates:
        """Estimates of the pairs ``(users[p], items[p])``."""
        est = self.gm + _bias(self.bu, users) + _bias(self.bi, items)
        return Estimates(est, np.zeros(len(est), dtype=bool))


class CoClusteringScorer:
    """CoClustering from its clusters and cluster averages; unknown ids: the global mean."""

    def __init__(self, algo: Any, trainset: Any, items: np.ndarray) -> None:
        self.gm = float(trainset.global_mean)
        self.items = items
        self.cu = np.asarray(algo.cltr_u, dtype=np.int64)
        self.ci = np.asarray(algo.cltr_i, dtype=np.int64)
        self.co = np.asarray(algo.avg_cocltr, dtype=np.float64)
        self.au = np.asarray(algo.avg_cltr_u, dtype=np.float64)
        self.ai = np.asarray(algo.avg_cltr_i, dtype=np.float64)
        self.um = np.asarray(algo.user_mean, dtype=np.float64)
        self.im = np.asarray(algo.item_mean, dtype=np.float64)

    def _est(self, u: np.ndarray, i: np.ndarray) -> np.ndarray:
        cu, ci = self.cu[u], self.ci[i]
        # Surprise's order: ((A_co + mu_u) - A_u) + mu_i) - A_i
        return self.co[cu, ci] + self.um[u] - self.au[cu] + self.im[i] - self.ai[ci]

    def grid(self, users: np.ndarray) -> Estimates:
        """Estimates of ``users`` (inner ids, -1 unknown) x every item."""
        est = np.full((len(users), len(self.items)), self.gm)
        known = np.flatnonzero(users >= 0)
        est[known] = self._est(users[known][:, None], self.items[None, :])
        return Estimates(est, np.zeros(est.shape, dtype=bool))

    def pairs(self, users: np.ndarray, items: np.ndarray) -> Estimates:
        """Estimates of the pairs ``(users[p], items[p])``."""
        est = np.full(len(users), self.gm)
        both = (users >= 0) & (items >= 0)
        est[both] = self._est(users[both], items[both])
        return Estimates(est, np.zeros(len(est), dtype=bool))
