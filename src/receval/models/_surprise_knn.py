"""Surprise's k-NN family and Slope One scored from the fitted similarity and the ratings.

The estimates are computed by the compiled kernels of :mod:`receval._kernels.neighbours`
from ``algo.sim`` (and ``means``, ``sigmas``, ``bu``, ``bi``) and the training ratings in
Surprise's own list order (which decides equal similarities at the k-th neighbour, as
``heapq.nlargest`` does). The ``"neighbours"`` tie policy of :class:`~receval.models.Surprise`
orders equal estimates by ``actual_k``, the number of neighbours behind them, most first
(an estimate from 40 neighbours before one from a single neighbour).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from receval._kernels import neighbours as nb
from receval.models._surprise_factors import Estimates, csr_of_lists

__all__ = ["KNNScorer", "SlopeOneScorer", "neighbour_ties"]

_KINDS = {"KNNBasic": nb.BASIC, "KNNWithMeans": nb.MEANS, "KNNWithZScore": nb.ZSCORE,
          "KNNBaseline": nb.BASELINE}
_NONE = np.zeros(1)


class KNNScorer:
    """KNNBasic, KNNWithMeans, KNNWithZScore and KNNBaseline, user- or item-based."""

    def __init__(self, algo: Any, trainset: Any, items: np.ndarray) -> None:
        self.kind = _KINDS[type(algo).__name__]
        self.user_based = bool(algo.sim_options["user_based"])
        self.items = items
        self.gm = float(trainset.global_mean)
        n_y = trainset.n_items if self.user_based else trainset.n_users
        self.yr = csr_of_lists(algo.yr, n_y)
        self.max_len = int(np.diff(self.yr[0]).max()) if n_y else 0
        self.sim = np.ascontiguousarray(algo.sim, dtype=np.float64)
        self.k, self.min_k = int(algo.k), int(algo.min_k)
        means = self.kind in (nb.MEANS, nb.ZSCORE)
        self.mean = np.asarray(algo.means, dtype=np.float64) if means else _NONE
        self.sigma = np.asarray(algo.sigmas, dtype=np.float64) if self.kind == nb.ZSCORE \
            else _NONE
        if self.kind == nb.BASELINE:
            self.bu = np.asarray(algo.bu, dtype=np.float64)
            self.bi = np.asarray(algo.bi, dtype=np.float64)
            self.bx, self.by = (self.bu, self.bi) if self.user_based else (self.bi, self.bu)
        else:
            self.bu = self.bi = self.bx = self.by = _NONE

    def _args(self) -> tuple[Any, ...]:
        off, xs, rs = self.yr
        return (self.kind, self.sim, off, xs, rs, self.k, self.min_k, self.mean, self.sigma,
                self.bx, self.by, self.gm, self.user_based, self.max_len)

    def _unknown(self, users: np.ndarray, items: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Estimate and impossibility of pairs with an unknown id (Surprise's rules)."""
        if self.kind != nb.BASELINE:  # PredictionImpossible: the default prediction
            return np.full(len(users), self.gm), np.ones(len(users), dtype=bool)
        est = np.full(len(users), self.gm)  # KNNBaseline: the baseline of what is known
        ku, ki = users >= 0, items >= 0
        est[ku] += self.bu[users[ku]]
        est[ki] += self.bi[items[ki]]
        return est, np.zeros(len(users), dtype=bool)

    def grid(self, users: np.ndarray) -> Estimates:
        """Estimates of ``users`` (inner ids, -1 unknown) x every item, with ``actual_k``."""
        n_i = len(self.items)
        est = np.empty((len(users), n_i))
        imp = np.zeros((len(users), n_i), dtype=bool)
        used = np.zeros((len(users), n_i), dtype=np.int64)
        known = np.flatnonzero(users >= 0)
        e, n, s = nb.knn_grid(np.ascontiguousarray(users[known]), self.items, *self._args())
        est[known], used[known], imp[known] = np.where(s > 0, self.gm, e), n, s > 0
        unknown = np.flatnonzero(users < 0)
        if len(unknown):
            ue, ui = self._unknown(np.full(n_i, -1), self.items)
            est[unknown], imp[unknown] = ue, ui
        return Estimates(est, imp, used)

    def pairs(self, users: np.ndarray, items: np.ndarray) -> Estimates:
        """Estimates of the pairs ``(users[p], items[p])`` (inner ids, -1 unknown)."""
        both = (users >= 0) & (items >= 0)
        est = np.empty(len(users))
        imp = np.zeros(len(users), dtype=bool)
        used = np.zeros(len(users), dtype=np.int64)
        e, n, s = nb.knn_pairs(np.ascontiguousarray(users[both]),
                               np.ascontiguousarray(items[both]), *self._args())
        est[both], used[both], imp[both] = np.where(s > 0, self.gm, e), n, s > 0
        est[~both], imp[~both] = self._unknown(users[~both], items[~both])
        return Estimates(est, imp, used)


class SlopeOneScorer:
    """Slope One from ``freq``, ``dev`` and ``user_mean``; unknown ids are impossible."""

    def __init__(self, algo: Any, trainset: Any, items: np.ndarray) -> None:
        self.gm = float(trainset.global_mean)
        self.items = items
        self.ur = csr_of_lists(trainset.ur, trainset.n_users)[:2]
        self.freq = np.ascontiguousarray(algo.freq, dtype=np.int64)
        self.dev = np.ascontiguousarray(algo.dev, dtype=np.float64)
        self.user_mean = np.asarray(algo.user_mean, dtype=np.float64)

    def grid(self, users: np.ndarray) -> Estimates:
        """Estimates of ``users`` (inner ids, -1 unknown) x every item."""
        est = np.full((len(users), len(self.items)), self.gm)
        known = np.flatnonzero(users >= 0)
        est[known] = nb.slope_one_grid(np.ascontiguousarray(users[known]), self.items,
                                       *self.ur, self.freq, self.dev, self.user_mean)
        imp = np.broadcast_to((users < 0)[:, None], est.shape).copy()
        return Estimates(est, imp)

    def pairs(self, users: np.ndarray, items: np.ndarray) -> Estimates:
        """Estimates of the pairs ``(users[p], items[p])``."""
        both = (users >= 0) & (items >= 0)
        est = np.full(len(users), self.gm)
        est[both] = nb.slope_one_pairs(np.ascontiguousarray(users[both]),
                                       np.ascontiguousarray(items[both]), *self.ur,
                                       self.freq, self.dev, self.user_mean)
        return Estimates(est, ~both)


def neighbour_ties(score: np.ndarray, used: np.ndarray, allowed: np.ndarray, k: int
                   ) -> tuple[np.ndarray, np.ndarray, int]:
    """Top ``k`` per row by (score desc, ``actual_k`` desc, item code asc).

    Parameters
    ----------
    score, used : numpy.ndarray, shape (rows, items)
        Estimates and their neighbour counts.
    allowed : numpy.ndarray of bool, same shape
        Candidates (False: excluded).
    k : int
        List length.

    Returns
    -------
    order : numpy.ndarray of int64, shape (rows, min(k, items))
        Item codes, best first (entries past a row's candidates are -1).
    taken : numpy.ndarray of int64
        Candidates per row in the list.
    tied : int
        Rows cut inside a group equal in both keys.
    """
    n_rows, n_items = score.shape
    s = np.where(allowed, score, -np.inf)
    order = np.lexsort((-used, -s), axis=1) if n_items else np.zeros((n_rows, 0), np.int64)
    width = min(k, n_items)
    top = order[:, :width]
    taken = np.minimum(allowed.sum(axis=1), width)
    tied = 0
    if n_items > width:
        r = np.arange(n_rows)
        last, nxt = order[:, width - 1], order[:, width]
        same = (s[r, last] == s[r, nxt]) & (used[r, last] == used[r, nxt]) & \
            (taken == width) & np.isfinite(s[r, nxt])
        tied = int(same.sum())
    top = np.where(np.arange(width)[None, :] < taken[:, None], top, -1)
    return top.astype(np.int64), taken.astype(np.int64), tied
