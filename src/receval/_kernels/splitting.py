"""Compiled row selection for per-user splits: each user's latest rows, or random rows.

Both kernels read the rows of each user through a stable grouping (``order`` lists row
positions user by user, in input order; user ``g`` is ``order[bounds[g]:bounds[g + 1]]``, as
:func:`receval._kernels.grouping.counting_order` builds it) and mark the chosen test rows in
a boolean mask. Users are independent, so large inputs run over chunks of users on the
thread pool; the result does not depend on the number of threads.
"""

from __future__ import annotations

import numba
import numpy as np

from receval._kernels._jit import n_chunks, njit, prange, use_parallel
from receval._kernels.hashing import hash_long

__all__ = ["TIES_ROW_ORDER", "TIES_TEST", "TIES_TRAIN", "count_parts", "latest_in_groups",
           "leakage_counts", "random_in_groups", "repeated_pairs"]

#: Tie modes of :func:`latest_in_groups`: the block of equal times at the cut goes to test,
#: to train, or is cut by input order (a later row counts as later).
TIES_TEST, TIES_TRAIN, TIES_ROW_ORDER = 0, 1, 2


@njit()
def _latest_range(g0: int, g1: int, order: np.ndarray, bounds: np.ndarray, ts: np.ndarray,
                  n_test: np.ndarray, mode: int, mask: np.ndarray, tied: np.ndarray) -> None:
    for g in range(g0, g1):
        s = bounds[g]
        n = bounds[g + 1] - s
        want = n_test[g]
        if want <= 0 or n == 0:
            continue
        vals = np.empty(n, dtype=ts.dtype)
        for i in range(n):
            vals[i] = ts[order[s + i]]
        o = np.argsort(vals, kind="mergesort")  # stable: equal times keep input order
        c = n - min(want, n)
        cut = vals[o[c]]
        tied[g] = c > 0 and vals[o[c - 1]] == cut
        if mode == TIES_ROW_ORDER:
            for i in range(c, n):
                mask[order[s + o[i]]] = True
        elif mode == TIES_TEST:
            for i in range(n):
                if vals[i] >= cut:
                    mask[order[s + i]] = True
        else:
            for i in range(n):
                if vals[i] > cut:
                    mask[order[s + i]] = True


@njit(parallel=True)
def _latest_parallel(order: np.ndarray, bounds: np.ndarray, ts: np.ndarray, n_test: np.ndarray,
                     mode: int, mask: np.ndarray, tied: np.ndarray, chunks: int) -> None:
    n = len(bounds) - 1
    for c in prange(chunks):
        _latest_range(c * n // chunks, (c + 1) * n // chunks, order, bounds, ts, n_test, mode,
                      mask, tied)


def latest_in_groups(order: np.ndarray, bounds: np.ndarray, ts: np.ndarray,
                     n_test: np.ndarray, mode: int) -> tuple[np.ndarray, np.ndarray]:
    """Mark each group's latest ``n_test[g]`` rows by ``ts``.

    Parameters
    ----------
    order, bounds : ndarray of int64
        The rows of group ``g`` are ``order[bounds[g]:bounds[g + 1]]``, in input order.
    ts : ndarray of int64 or float64
        The time of every row (no NaN).
    n_test : ndarray of int64
        How many rows of each group to mark (0: none).
    mode : int
        :data:`TIES_TEST`: every row with a time >= the cut time (the time of the
        ``n_test``-th latest row) is marked, so a block of equal times at the cut is marked
        whole; :data:`TIES_TRAIN`: only the rows later than the cut time;
        :data:`TIES_ROW_ORDER`: exactly ``n_test`` rows, equal times ordered by input position.

    Returns
    -------
    mask : ndarray of bool
        The marked rows.
    tied : ndarray of bool
        For each group, whether the cut fell inside a block of equal times.
    """
    mask = np.zeros(len(ts), dtype=np.bool_)
    tied = np.zeros(len(bounds) - 1, dtype=np.bool_)
    if use_parallel(len(ts)):
        _latest_parallel(order, bounds, ts, n_test, mode, mask, tied, n_chunks(len(bounds) - 1))
    else:
        _latest_range(0, len(bounds) - 1, order, bounds, ts, n_test, mode, mask, tied)
    return mask, tied


@njit()
def _random_range(g0: int, g1: int, order: np.ndarray, bounds: np.ndarray,
                  user_keys: np.ndarray, n_test: np.ndarray, mask: np.ndarray) -> None:
    for g in range(g0, g1):
        s = bounds[g]
        n = bounds[g + 1] - s
        want = min(n_test[g], n)
        if want <= 0:
            continue
        vals = np.empty(n, dtype=np.uint64)
        for i in range(n):  # the key of the user's i-th row: a bijection of i, no ties
            vals[i] = hash_long(np.uint64(i), user_keys[g])
        o = np.argsort(vals)
        for i in range(want):
            mask[order[s + o[i]]] = True


@njit(parallel=True)
def _random_parallel(order: np.ndarray, bounds: np.ndarray, user_keys: np.ndarray,
                     n_test: np.ndarray, mask: np.ndarray, chunks: int) -> None:
    n = len(bounds) - 1
    for c in prange(chunks):
        _random_range(c * n // chunks, (c + 1) * n // chunks, order, bounds, user_keys, n_test,
                      mask)


def random_in_groups(order: np.ndarray, bounds: np.ndarray, user_keys: np.ndarray,
                     n_test: np.ndarray) -> np.ndarray:
    """Mark ``n_test[g]`` rows of each group ``g`` at random, from the group's key alone.

    The ``i``-th row of group ``g`` (in input order) gets the key
    ``hash_long(i, user_keys[g])`` (:mod:`receval._kernels.hashing`), and the ``n_test[g]``
    rows with the smallest keys are marked: a uniform sample without replacement of the
    group's rows that depends only on the group's key and its number of rows, never on the
    other groups. The keys of one group are distinct (the hash is a bijection of ``i``).
    """
    mask = np.zeros(len(order), dtype=np.bool_)
    if use_parallel(len(order)):
        _random_parallel(order, bounds, user_keys, n_test, mask, n_chunks(len(bounds) - 1))
    else:
        _random_range(0, len(bounds) - 1, order, bounds, user_keys, n_test, mask)
    return mask


@njit()
def count_parts(part: np.ndarray, user: np.ndarray, item: np.ndarray, n_users: int,
                n_items: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows of each user and of each item in each part (``part`` codes 0, 1, 2): one pass.

    Returns arrays of shape ``(3, n_users)`` and ``(3, n_items)``.
    """
    users = np.zeros((3, n_users), dtype=np.int64)
    items = np.zeros((3, n_items), dtype=np.int64)
    for i in range(len(part)):
        p = part[i]
        users[p, user[i]] += 1
        items[p, item[i]] += 1
    return users, items


@njit()
def leakage_counts(part: np.ndarray, ts: np.ndarray, user: np.ndarray, n_users: int
                   ) -> tuple[int, int, int, int, int]:
    """Leakage counts in two passes.

    Returns the training rows later than the earliest test row, the test rows earlier than
    the latest training row, the numbers of training and test rows (part codes 0, 1), and
    the training rows later than the earliest test row of their own user (``user``: each
    row's user code, below ``n_users``).
    """
    n_train = 0
    n_test = 0
    min_test = ts[0]
    max_train = ts[0]
    first_test = np.empty(n_users, dtype=ts.dtype)
    has_test = np.zeros(n_users, dtype=np.bool_)
    for i in range(len(part)):
        if part[i] == 0:
            if n_train == 0 or ts[i] > max_train:
                max_train = ts[i]
            n_train += 1
        elif part[i] == 1:
            if n_test == 0 or ts[i] < min_test:
                min_test = ts[i]
            n_test += 1
            u = user[i]
            if not has_test[u] or ts[i] < first_test[u]:
                first_test[u] = ts[i]
                has_test[u] = True
    late_train = 0
    early_test = 0
    own_late = 0
    if n_train == 0 or n_test == 0:
        return 0, 0, n_train, n_test, 0
    for i in range(len(part)):
        if part[i] == 0 and ts[i] > min_test:
            late_train += 1
            u = user[i]
            if has_test[u] and ts[i] > first_test[u]:
                own_late += 1
        elif part[i] == 1 and ts[i] < max_train:
            early_test += 1
    return late_train, early_test, n_train, n_test, own_late


@njit()
def _repeated_range(g0: int, g1: int, order: np.ndarray, bounds: np.ndarray,
                    part: np.ndarray, item: np.ndarray, seen: np.ndarray) -> int:
    """``seen[item]`` holds the last group with the item in train: one pass, no hashing."""
    count = 0
    for g in range(g0, g1):
        for p in range(bounds[g], bounds[g + 1]):
            r = order[p]
            if part[r] == 0:
                seen[item[r]] = g
        for p in range(bounds[g], bounds[g + 1]):
            r = order[p]
            if part[r] == 1 and seen[item[r]] == g:
                count += 1
    return count


@njit(parallel=True)
def _repeated_parallel(order: np.ndarray, bounds: np.ndarray, part: np.ndarray,
                       item: np.ndarray, n_items: int, chunks: int) -> int:
    n = len(bounds) - 1
    counts = np.zeros(chunks, dtype=np.int64)
    for c in prange(chunks):
        seen = np.full(max(n_items, 1), -1, dtype=np.int64)
        counts[c] = _repeated_range(c * n // chunks, (c + 1) * n // chunks, order, bounds,
                                    part, item, seen)
    return int(counts.sum())


def repeated_pairs(order: np.ndarray, bounds: np.ndarray, part: np.ndarray, item: np.ndarray,
                   n_items: int) -> int:
    """Test rows (part 1) whose item is also in a training row (part 0) of the same group."""
    if use_parallel(len(part)):
        chunks = min(n_chunks(len(bounds) - 1), 4 * max(1, numba.get_num_threads()))
        return int(_repeated_parallel(order, bounds, part, item, n_items, chunks))
    seen = np.full(max(n_items, 1), -1, dtype=np.int64)
    return int(_repeated_range(0, len(bounds) - 1, order, bounds, part, item, seen))
