"""Top-k selection for many users at once, with each user's excluded items left out.

Two shapes of problem, both without a per-user Python loop:

* one global order of the items (popularity, item mean) from which each user takes the
  first ``k`` items not excluded: :func:`top_k_global`, a numba kernel that walks the order
  once per user, skipping the user's excluded positions — O(k + |excluded_u|) per user;
* a score for every (user, candidate item) pair (a model's predictions):
  :func:`top_k_pairs`, one lexicographic sort of all pairs.

Ties: in both, items with equal scores are taken in ascending order of their item code,
which is the ascending order of the item ids (models index their items sorted).
"""

from __future__ import annotations

import numpy as np

from receval._kernels._jit import njit

__all__ = ["ties_cut_in_walk", "top_k_global", "top_k_pairs"]


@njit()
def _walk(order: np.ndarray, excl_off: np.ndarray, excl_pos: np.ndarray, k: int
          ) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    n_users = len(excl_off) - 1
    n = len(order)
    counts = np.empty(n_users, dtype=np.int64)
    for u in range(n_users):
        counts[u] = min(k, n - (excl_off[u + 1] - excl_off[u]))
    offsets = np.zeros(n_users + 1, dtype=np.int64)
    for u in range(n_users):
        offsets[u + 1] = offsets[u] + counts[u]
    out = np.empty(offsets[n_users], dtype=np.int64)
    for u in range(n_users):
        j, end, w, p = excl_off[u], excl_off[u + 1], offsets[u], 0
        while w < offsets[u + 1] and p < n:
            if j < end and excl_pos[j] == p:
                j += 1
            else:
                out[w] = p
                w += 1
            p += 1
    return offsets, out


def top_k_global(order: np.ndarray, excl_off: np.ndarray, excl_pos: np.ndarray, k: int
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The first ``k`` positions of a global item order that each user does not exclude.

    Parameters
    ----------
    order : numpy.ndarray of int64
        Item codes, best first.
    excl_off, excl_pos : numpy.ndarray of int64
        CSR of each user's excluded *positions in* ``order``, ascending and unique.
    k : int
        List length; users with fewer than ``k`` allowed items get them all.

    Returns
    -------
    offsets, positions : numpy.ndarray of int64
        User ``u``'s list is ``order[positions[offsets[u]:offsets[u + 1]]]``, best first.
    """
    return _walk(np.ascontiguousarray(order, dtype=np.int64),
                 np.ascontiguousarray(excl_off, dtype=np.int64),
                 np.ascontiguousarray(excl_pos, dtype=np.int64), int(k))


def top_k_pairs(user: np.ndarray, item: np.ndarray, score: np.ndarray, k: int
                ) -> np.ndarray:
    """Indices of the best ``k`` pairs of each user: highest score, then lowest item code.

    Parameters
    ----------
    user, item : numpy.ndarray of int64
        Codes of each (user, candidate item) pair.
    score : numpy.ndarray of float64
        The pair's score (no NaN).
    k : int
        List length.

    Returns
    -------
    numpy.ndarray of int64
        Indices into the pairs, grouped by ascending user code, best first within a user.
    """
    idx = np.lexsort((item, -score, user))
    s_user = user[idx]
    starts = np.flatnonzero(np.r_[True, s_user[1:] != s_user[:-1]]) if len(idx) else \
        np.empty(0, dtype=np.int64)
    rank = np.arange(len(idx)) - np.repeat(starts, np.diff(np.r_[starts, len(idx)]))
    return idx[rank < k]


def ties_cut_in_walk(sorted_values: np.ndarray, offsets: np.ndarray, positions: np.ndarray,
                     excl_off: np.ndarray, excl_pos: np.ndarray, k: int) -> np.ndarray:
    """Which users' lists from :func:`top_k_global` were cut inside a group of equal scores.

    A user's list is cut inside a tie when it is full (``k`` items) and some position after
    its last one, with the same score and not excluded, was left out. The positions of
    equal scores form one run of the order, so this is a count per user: the run's length
    after the last position, minus the user's excluded positions inside it (two binary
    searches in the sorted (user, position) keys of the exclusion CSR).

    Parameters
    ----------
    sorted_values : numpy.ndarray of float64
        The score of each position of the order (non-increasing).
    offsets, positions : numpy.ndarray of int64
        The output of :func:`top_k_global`.
    excl_off, excl_pos : numpy.ndarray of int64
        Its input: each user's excluded positions, ascending.
    k : int
        List length.

    Returns
    -------
    numpy.ndarray of bool
        One flag per user.
    """
    n = len(sorted_values)
    counts = np.diff(offsets)
    full = np.flatnonzero(counts == k)
    flags = np.zeros(len(counts), dtype=bool)
    if not len(full) or not n:
        return flags
    starts = np.flatnonzero(sorted_values[1:] != sorted_values[:-1]) + 1
    run_end = np.r_[starts, n][np.searchsorted(starts, np.arange(n), side="right")]
    last = positions[offsets[full + 1] - 1]
    end = run_end[last]
    keys = np.repeat(np.arange(len(counts), dtype=np.int64), np.diff(excl_off)) * n + excl_pos
    inside = (np.searchsorted(keys, full * n + end, side="left")
              - np.searchsorted(keys, full * n + last, side="right"))
    flags[full] = (end - last - 1 - inside) > 0
    return flags
