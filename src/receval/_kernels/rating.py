"""One compiled pass over (predicted, true) rating pairs grouped by user.

Array contract (see :class:`receval.data.RatingPairs`): user ``u``'s pairs are
``starts[u]:ends[u]`` of ``pred`` and ``true``. Request ``m`` is ``(kind[m], param[m])``;
the kernel writes ``num[u, m]`` and ``den[u, m]``; ``den == 0`` marks an undefined value
(no pairs, no predicted positive, fewer than two distinct values for a correlation).
"""

from __future__ import annotations

import math

import numpy as np

from receval._kernels._jit import n_chunks, njit, prange, use_parallel
from receval._kernels.sorting import order_desc

__all__ = [
    "ABS_ERROR",
    "DEC_F1",
    "DEC_PRECISION",
    "DEC_RECALL",
    "KENDALL",
    "SPEARMAN",
    "SQ_ERROR",
    "rating_kernel",
]

ABS_ERROR, SQ_ERROR, DEC_PRECISION, DEC_RECALL, DEC_F1, SPEARMAN, KENDALL = 0, 1, 2, 3, 4, 5, 6


@njit()
def _average_ranks(x: np.ndarray) -> np.ndarray:
    """Ranks 1..n with ties given the mean of their ranks."""
    n = len(x)
    order = np.empty(n, dtype=np.int64)
    order_desc(-x, np.empty(0), n, order, np.empty(n, dtype=np.int64))  # ascending x
    ranks = np.empty(n)
    i = 0
    while i < n:
        j = i
        while j + 1 < n and x[order[j + 1]] == x[order[i]]:
            j += 1
        avg = (i + j) / 2.0 + 1.0
        for t in range(i, j + 1):
            ranks[order[t]] = avg
        i = j + 1
    return ranks


@njit()
def _pearson(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    n = len(a)
    ma = a.mean()
    mb = b.mean()
    sab = 0.0
    saa = 0.0
    sbb = 0.0
    for i in range(n):
        da = a[i] - ma
        db = b[i] - mb
        sab += da * db
        saa += da * da
        sbb += db * db
    if saa == 0.0 or sbb == 0.0:
        return 0.0, 0.0
    return sab / math.sqrt(saa * sbb), 1.0


@njit()
def _kendall_tau_b(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    n = len(a)
    conc = 0.0
    disc = 0.0
    tie_a = 0.0
    tie_b = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            da = a[i] - a[j]
            db = b[i] - b[j]
            if da == 0.0 and db == 0.0:
                tie_a += 1.0
                tie_b += 1.0
            elif da == 0.0:
                tie_a += 1.0
            elif db == 0.0:
                tie_b += 1.0
            elif (da > 0.0) == (db > 0.0):
                conc += 1.0
            else:
                disc += 1.0
    n0 = n * (n - 1) / 2.0
    if n0 - tie_a == 0.0 or n0 - tie_b == 0.0:
        return 0.0, 0.0
    return (conc - disc) / math.sqrt((n0 - tie_a) * (n0 - tie_b)), 1.0


@njit()
def _rating_serial(starts: np.ndarray, ends: np.ndarray, pred: np.ndarray, true: np.ndarray,
                   kind: np.ndarray, param: np.ndarray, num: np.ndarray,
                   den: np.ndarray) -> None:
    for u in range(len(starts)):
        _rating_user(u, starts, ends, pred, true, kind, param, num, den)


@njit(parallel=True)
def _rating_parallel(starts: np.ndarray, ends: np.ndarray, pred: np.ndarray,
                     true: np.ndarray, kind: np.ndarray, param: np.ndarray, num: np.ndarray,
                     den: np.ndarray, chunks: int) -> None:
    n = len(starts)
    for c in prange(chunks):
        for u in range(c * n // chunks, (c + 1) * n // chunks):
            _rating_user(u, starts, ends, pred, true, kind, param, num, den)


def rating_kernel(starts: np.ndarray, ends: np.ndarray, pred: np.ndarray, true: np.ndarray,
                  kind: np.ndarray, param: np.ndarray, num: np.ndarray,
                  den: np.ndarray) -> None:
    """Fill ``num[u, m]`` and ``den[u, m]`` for every user ``u`` and request ``m``."""
    if use_parallel(len(pred)):
        _rating_parallel(starts, ends, pred, true, kind, param, num, den,
                         n_chunks(len(starts)))
    else:
        _rating_serial(starts, ends, pred, true, kind, param, num, den)


@njit()
def _rating_user(u: int, starts: np.ndarray, ends: np.ndarray, pred: np.ndarray,
                 true: np.ndarray, kind: np.ndarray, param: np.ndarray, num: np.ndarray,
                 den: np.ndarray) -> None:
    s = starts[u]
    e = ends[u]
    for m in range(len(kind)):
        kd = kind[m]
        if kd in (ABS_ERROR, SQ_ERROR):
            total = 0.0
            for i in range(s, e):
                d = pred[i] - true[i]
                total += abs(d) if kd == ABS_ERROR else d * d
            num[u, m] = total
            den[u, m] = e - s
        elif kd in (DEC_PRECISION, DEC_RECALL, DEC_F1):
            t = param[m]
            tp = 0.0
            fp = 0.0
            fn = 0.0
            for i in range(s, e):
                pp = pred[i] >= t
                tt = true[i] >= t
                if pp and tt:
                    tp += 1.0
                elif pp:
                    fp += 1.0
                elif tt:
                    fn += 1.0
            num[u, m] = tp if kd != DEC_F1 else 2.0 * tp
            if kd == DEC_PRECISION:
                den[u, m] = tp + fp
            elif kd == DEC_RECALL:
                den[u, m] = tp + fn
            else:
                den[u, m] = 2.0 * tp + fp + fn
        else:
            if e - s < 2:
                num[u, m] = 0.0
                den[u, m] = 0.0
            elif kd == SPEARMAN:
                num[u, m], den[u, m] = _pearson(_average_ranks(pred[s:e]),
                                                _average_ranks(true[s:e]))
            else:
                num[u, m], den[u, m] = _kendall_tau_b(pred[s:e], true[s:e])
