"""Compiled passes over top-k rows for the exposure metrics: attention and group sums.

Rows are the top-k places of the lists, one list after the other (``take[u]`` rows for list
``u``). Item group membership is a CSR matrix over item codes (``indptr``, ``indices``,
``data``: an item's groups and weights). Each pass reads every row once, without the
temporaries a sequence of numpy operations would allocate.
"""

from __future__ import annotations

import numpy as np

from receval._kernels._jit import njit
from receval._kernels.exact import _add_at, _propagate

__all__ = ["CASCADE", "LOG", "RBP", "attention_rows", "exact_group_rows", "exposure_sums",
           "group_mass"]

RBP, CASCADE, LOG = 0, 1, 2


@njit()
def attention_rows(take: np.ndarray, rel: np.ndarray, model: int, patience: float,
                   stop: float, out: np.ndarray) -> None:
    """The attention of every row, from tables of powers (no pow per row).

    ``p^(r-1)`` (RBP), ``p^(r-1) (1-s)^h`` (cascade, ``h`` relevant rows above in the
    list) or ``1/log2(r+1)``.
    """
    longest = 0
    for u in range(len(take)):
        longest = max(longest, take[u])
    powers = np.empty(longest + 1)
    stops = np.empty(longest + 1)
    for r in range(longest + 1):
        powers[r] = patience ** r if model != LOG else 1.0 / np.log2(r + 2.0)
        stops[r] = (1.0 - stop) ** r
    row = 0
    for u in range(len(take)):
        above = 0
        for r in range(take[u]):
            value = powers[r]
            if model == CASCADE:
                value = value * stops[above]
                above += rel[row] > 0
            out[row] = value
            row += 1


@njit()
def group_mass(take: np.ndarray, item: np.ndarray, weight: np.ndarray, ok: np.ndarray,
               indptr: np.ndarray, indices: np.ndarray, data: np.ndarray,
               out: np.ndarray) -> None:
    """Each list's weight per group (users x groups).

    ``out[u, g] += weight[row] * data[j]`` for every row ``ok`` of list ``u`` and every group
    ``g = indices[j]`` of its item.
    """
    row = 0
    for u in range(len(take)):
        for _ in range(take[u]):
            if ok[row]:
                i = item[row]
                for j in range(indptr[i], indptr[i + 1]):
                    out[u, indices[j]] += weight[row] * data[j]
            row += 1


@njit()
def exact_group_rows(values: np.ndarray, item: np.ndarray, ok: np.ndarray,
                     indptr: np.ndarray, indices: np.ndarray, data: np.ndarray,
                     acc: np.ndarray, special: np.ndarray, counts: np.ndarray) -> None:
    """The exact sum per group of ``values[row] * data[j]``.

    Over every row ``ok`` and every group ``indices[j]`` of its item:
    :func:`receval._kernels.exact.exact_group_sums` without the (row, group) pairs written
    out.
    """
    since = 0
    cell = np.empty(1)  # a product's bits, read through an int64 view of one cell
    bits = cell.view(np.int64)
    for row in range(len(values)):
        if not ok[row]:
            continue
        i = item[row]
        for j in range(indptr[i], indptr[i + 1]):
            g = np.int64(indices[j])
            cell[0] = values[row] * data[j]
            since += _add_at(acc, g, special, bits[0])
            counts[g] += 1
            if since == 1 << 30:
                for h in range(acc.shape[0]):
                    _propagate(acc[h])
                since = 0
    for h in range(acc.shape[0]):
        _propagate(acc[h])


@njit()
def exposure_sums(take: np.ndarray, e: np.ndarray, grade: np.ndarray, rel: np.ndarray,
                  judged: np.ndarray, seg_end: np.ndarray, level_grade: np.ndarray,
                  level_target: np.ndarray, zero_target: np.ndarray, out: np.ndarray) -> None:
    """Per user, sums of the run's exposure ``e`` and each run row's target ``t``.

    ``out[u] = (sum e^2, sum e t, sum (e - t)^2, sum t^2)`` (expected exposure).

    User ``u``'s relevant levels are ``level_grade[seg_end[u-1]:seg_end[u]]`` (grades in
    decreasing order, one entry per relevant item) with their targets; a relevant row takes
    its grade's target (a binary search), a judged non-relevant row ``zero_target[u]``, any
    other row 0.
    """
    row = 0
    a = 0
    for u in range(len(take)):
        b = seg_end[u]
        for _ in range(take[u]):
            t = 0.0
            if rel[row]:
                g = grade[row]
                lo, hi = a, b
                while lo < hi:  # first place with level_grade <= g (decreasing)
                    mid = (lo + hi) // 2
                    if level_grade[mid] > g:
                        lo = mid + 1
                    else:
                        hi = mid
                if lo < b and level_grade[lo] == g:
                    t = level_target[lo]
            elif judged[row]:
                t = zero_target[u]
            x = e[row]
            out[u, 0] += x * x
            out[u, 1] += x * t
            out[u, 2] += (x - t) * (x - t)
            out[u, 3] += t * t
            row += 1
        a = b
