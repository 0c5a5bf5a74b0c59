"""Neighbourhood estimates of Surprise's k-NN family and Slope One, for many pairs at once.

The arrays are Surprise's own fitted parameters in its inner ids (no pandas here):

* ``sim`` (n_x x n_x): the similarity matrix; ``x`` is the user (user-based) or the item
  (item-based), ``y`` the other side;
* ``yr_off, yr_x, yr_r``: the CSR of ``trainset.ir`` (user-based) or ``trainset.ur``
  (item-based) **in Surprise's list order**: the ``x2`` who rated ``y`` and their ratings.

The estimate of ``(x, y)`` (Surprise's ``KNNBasic.estimate`` and its siblings, Hug 2020):
the ``k`` neighbours ``x2`` of ``yr[y]`` with the largest ``sim[x, x2]`` (equal similarities:
the earlier in the list first, as ``heapq.nlargest``), of which those with ``sim > 0`` enter

    basic:     sum(sim * r) / sum(sim)
    means:     mu_x + sum(sim * (r - mu_x2)) / sum(sim)
    z-score:   mu_x + sum(sim * (r - mu_x2) / sigma_x2) / sum(sim) * sigma_x
    baseline:  b_ux + sum(sim * (r - (mu + b_x2 + b_y))) / sum(sim)

KNNBasic is computed as ``r_0 + sum(sim * (r - r_0)) / sum(sim)`` with ``r_0`` one
neighbour's rating: equal in exact arithmetic, and exactly ``r`` when every neighbour rated
``r`` (Surprise's own sum gives 4.999999999999999 or 5.000000000000001 depending on the
order, which would rank such items by rounding noise instead of as ties).

``actual_k`` is the number of positive-similarity neighbours used. With fewer than
``min_k``: basic raises ``PredictionImpossible`` (status 1 here), the others drop the
neighbour term; no positive neighbour at all: the others drop the term, basic divides zero
by zero (status 2).
"""

from __future__ import annotations

import numpy as np

from receval._kernels._jit import njit, prange

__all__ = ["BASELINE", "BASIC", "MEANS", "ZSCORE", "knn_grid", "knn_pairs", "slope_one_grid",
           "slope_one_pairs"]

BASIC, MEANS, ZSCORE, BASELINE = 0, 1, 2, 3


@njit()
def _sift_down_from(hs: np.ndarray, hj: np.ndarray, i: int, n: int
                    ) -> None:  # pragma: no cover - compiled
    """Sift ``i`` down the heap ``hs[:n]``.

    The root is the worst kept neighbour: the lowest similarity, then the latest position.
    """
    while True:
        worst, left = i, 2 * i + 1
        for c in (left, left + 1):
            if c < n and (hs[c] < hs[worst] or (hs[c] == hs[worst] and hj[c] > hj[worst])):
                worst = c
        if worst == i:
            return
        hs[i], hs[worst] = hs[worst], hs[i]
        hj[i], hj[worst] = hj[worst], hj[i]
        i = worst


@njit()
def _one(x: int, y: int, kind: int, sim: np.ndarray, yr_off: np.ndarray, yr_x: np.ndarray,
         yr_r: np.ndarray, k: int, min_k: int, mean: np.ndarray, sigma: np.ndarray,
         bx: np.ndarray, by: np.ndarray, gm: float, user_based: bool, hs: np.ndarray,
         hj: np.ndarray) -> tuple[float, int, int]:  # pragma: no cover - compiled
    # the positive neighbours in list order; when more than k, the k best by (similarity
    # desc, list position asc): a bounded heap whose root is the worst kept, replaced only by
    # a strictly larger similarity (on equal ones the earlier stays, as heapq.nlargest)
    n = 0
    stop = yr_off[y + 1] if k > 0 else yr_off[y]  # heapq.nlargest(k <= 0, ...) is empty
    for j in range(yr_off[y], stop):
        s = sim[x, yr_x[j]]
        if s > 0:
            hs[n], hj[n] = s, j
            n += 1
    if n > k:
        for t in range(k // 2 - 1, -1, -1):  # heapify the first k
            _sift_down_from(hs, hj, t, k)
        for t in range(k, n):
            if hs[t] > hs[0]:
                hs[0], hj[0] = hs[t], hj[t]
                _sift_down_from(hs, hj, 0, k)
        n = k
    sum_sim, sum_r, r0 = 0.0, 0.0, 0.0
    if n > 0:
        r0 = yr_r[hj[0]]
    for t in range(n):
        j = hj[t]
        x2, r, s = yr_x[j], yr_r[j], hs[t]
        sum_sim += s
        if kind == BASIC:  # relative to one rating: equal ratings give it exactly
            sum_r += s * (r - r0)
        elif kind == MEANS:
            sum_r += s * (r - mean[x2])
        elif kind == ZSCORE:
            sum_r += s * (r - mean[x2]) / sigma[x2]
        else:
            sum_r += s * (r - (gm + bx[x2] + by[y]))
    used = n
    if kind == BASIC:
        if used < min_k:
            return gm, used, 1
        if used == 0:
            return gm, used, 2
        return r0 + sum_r / sum_sim, used, 0
    if kind == BASELINE:
        est = gm + bx[x] + by[y] if user_based else gm + by[y] + bx[x]
    else:
        est = mean[x]
    if used < min_k:
        sum_r = 0.0
    if used > 0:
        if kind == ZSCORE:
            est += sum_r / sum_sim * sigma[x]
        else:
            est += sum_r / sum_sim
    return est, used, 0


@njit(parallel=True)
def knn_grid(rows: np.ndarray, cols: np.ndarray, kind: int, sim: np.ndarray,
             yr_off: np.ndarray, yr_x: np.ndarray, yr_r: np.ndarray, k: int, min_k: int,
             mean: np.ndarray, sigma: np.ndarray, bx: np.ndarray, by: np.ndarray, gm: float,
             user_based: bool, max_len: int
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """Estimates of every (user ``rows[a]``, item ``cols[b]``) pair (inner ids, all known).

    Returns the estimates, ``actual_k`` and the status (0 ok, 1 too few neighbours, 2 no
    positive neighbour in KNNBasic), each of shape ``(len(rows), len(cols))``.
    """
    n_r, n_c = len(rows), len(cols)
    est = np.empty((n_r, n_c), dtype=np.float64)
    used = np.empty((n_r, n_c), dtype=np.int64)
    status = np.empty((n_r, n_c), dtype=np.int8)
    size = max(max_len, 1)
    for a in prange(n_r):
        hs, hj = np.empty(size, dtype=np.float64), np.empty(size, dtype=np.int64)
        for b in range(n_c):
            x, y = (rows[a], cols[b]) if user_based else (cols[b], rows[a])
            e, n, s = _one(x, y, kind, sim, yr_off, yr_x, yr_r, k, min_k, mean, sigma, bx,
                           by, gm, user_based, hs, hj)
            est[a, b], used[a, b], status[a, b] = e, n, s
    return est, used, status


@njit()
def knn_pairs(users: np.ndarray, items: np.ndarray, kind: int, sim: np.ndarray,
              yr_off: np.ndarray, yr_x: np.ndarray, yr_r: np.ndarray, k: int, min_k: int,
              mean: np.ndarray, sigma: np.ndarray, bx: np.ndarray, by: np.ndarray, gm: float,
              user_based: bool, max_len: int
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """Estimates of the pairs ``(users[p], items[p])`` (inner ids, all known)."""
    n = len(users)
    est = np.empty(n, dtype=np.float64)
    used = np.empty(n, dtype=np.int64)
    status = np.empty(n, dtype=np.int8)
    size = max(max_len, 1)
    hs, hj = np.empty(size, dtype=np.float64), np.empty(size, dtype=np.int64)
    for p in range(n):
        x, y = (users[p], items[p]) if user_based else (items[p], users[p])
        est[p], used[p], status[p] = _one(x, y, kind, sim, yr_off, yr_x, yr_r, k, min_k,
                                          mean, sigma, bx, by, gm, user_based, hs, hj)
    return est, used, status


@njit()
def _slope_one(u: int, i: int, ur_off: np.ndarray, ur_i: np.ndarray, freq: np.ndarray,
               dev: np.ndarray, user_mean: np.ndarray) -> float:  # pragma: no cover
    total, count = 0.0, 0
    for j in range(ur_off[u], ur_off[u + 1]):
        jj = ur_i[j]
        if freq[i, jj] > 0:
            total += dev[i, jj]
            count += 1
    est = user_mean[u]
    if count:
        est += total / count
    return est


@njit(parallel=True)
def slope_one_grid(rows: np.ndarray, cols: np.ndarray, ur_off: np.ndarray, ur_i: np.ndarray,
                   freq: np.ndarray, dev: np.ndarray, user_mean: np.ndarray
                   ) -> np.ndarray:  # pragma: no cover - compiled
    """Slope One (Lemire & Maclachlan 2005) of every (row, col) pair, as Surprise's estimate.

    ``mu_u + mean(dev[i, j] for j rated by u with freq[i, j] > 0)``.
    """
    out = np.empty((len(rows), len(cols)), dtype=np.float64)
    for a in prange(len(rows)):
        for b in range(len(cols)):
            out[a, b] = _slope_one(rows[a], cols[b], ur_off, ur_i, freq, dev, user_mean)
    return out


@njit()
def slope_one_pairs(users: np.ndarray, items: np.ndarray, ur_off: np.ndarray,
                    ur_i: np.ndarray, freq: np.ndarray, dev: np.ndarray,
                    user_mean: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """Slope One estimates of the pairs ``(users[p], items[p])`` (inner ids, all known)."""
    out = np.empty(len(users), dtype=np.float64)
    for p in range(len(users)):
        out[p] = _slope_one(users[p], items[p], ur_off, ur_i, freq, dev, user_mean)
    return out
