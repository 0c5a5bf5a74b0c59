"""Compiled helpers that turn integer ids into dense codes through a presence table."""

from __future__ import annotations

import numpy as np

from receval._kernels._jit import n_chunks, njit, prange, readonly, use_parallel

__all__ = ["dense_codes", "mark_present"]


def mark_present(x: np.ndarray, lo: int, present: np.ndarray) -> None:
    """Set ``present[v - lo]`` for every value ``v`` of ``x``."""
    _mark_present(readonly(x), lo, present)


@njit()
def _mark_present(x: np.ndarray, lo: int, present: np.ndarray) -> None:
    for i in range(len(x)):
        present[x[i] - lo] = True


@njit()
def _codes_range(i0: int, i1: int, x: np.ndarray, lo: int, remap: np.ndarray,
                 out: np.ndarray) -> None:
    for i in range(i0, i1):
        out[i] = remap[x[i] - lo]


@njit(parallel=True)
def _codes_parallel(x: np.ndarray, lo: int, remap: np.ndarray, out: np.ndarray,
                    chunks: int) -> None:
    n = len(x)
    for c in prange(chunks):
        _codes_range(c * n // chunks, (c + 1) * n // chunks, x, lo, remap, out)


def dense_codes(x: np.ndarray, lo: int, remap: np.ndarray) -> np.ndarray:
    """``remap[x - lo]`` as int32, without the temporary ``x - lo``."""
    out = np.empty(len(x), dtype=np.int32)
    x = readonly(x)
    if use_parallel(len(x)):
        _codes_parallel(x, lo, remap, out, n_chunks(len(x) // 4096 + 1))
    else:
        _codes_range(0, len(x), x, lo, remap, out)
    return out
