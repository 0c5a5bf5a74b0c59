"""Bootstrap sums: every column of a matrix summed under many resampling weight vectors.

``out_t[j, b] = sum_i counts_t[i, b] * y_t[j, i]``: the sum of column ``j`` of the users'
values in resample ``b``, where ``counts_t[i, b]`` is how often user ``i`` was drawn. Each
output accumulates over the users in their order, whatever the number of threads (threads
split the columns), so the numbers do not depend on the machine.
"""

from __future__ import annotations

import numpy as np

from receval._kernels._jit import njit, prange

__all__ = ["COLUMNS_PER_TASK", "count_draws", "weighted_column_sums"]

#: Columns one thread accumulates together (the counts row is read once for all of them).
COLUMNS_PER_TASK = 8


@njit(parallel=True)
def weighted_column_sums(counts_t: np.ndarray, y_t: np.ndarray, out_t: np.ndarray) -> None:
    """Add ``y_t @ counts_t`` to ``out_t`` (shapes (n, B) uint8, (C, n), (C, B))."""
    n, n_res = counts_t.shape
    n_cols = y_t.shape[0]
    n_tasks = (n_cols + COLUMNS_PER_TASK - 1) // COLUMNS_PER_TASK
    for task in prange(n_tasks):
        first = task * COLUMNS_PER_TASK
        last = min(first + COLUMNS_PER_TASK, n_cols)
        for i in range(n):
            for j in range(first, last):
                v = y_t[j, i]
                if v != 0.0:
                    for b in range(n_res):
                        out_t[j, b] += counts_t[i, b] * v


@njit()
def count_draws(draws: np.ndarray, counts: np.ndarray) -> bool:
    """``counts[b, i]`` += how often row ``b`` of ``draws`` holds ``i``; False on overflow.

    ``counts`` is uint8, one row per resample (a row of n users stays in cache while it is
    counted); a user drawn more than 255 times in one resample is beyond realistic luck, and
    the caller then counts in a wider type.
    """
    n_res, n = draws.shape
    for b in range(n_res):
        row = counts[b]
        for k in range(n):
            i = draws[b, k]
            if row[i] == 255:
                return False
            row[i] += 1
    return True
