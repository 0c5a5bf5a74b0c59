"""Resampling: bootstrap weights and sign flips, drawn once and shared by every column.

Every statistic of a call is a column of one matrix ``Y`` (users x columns). A bootstrap
resample is a row of counts ``w`` (how often each user was drawn, ``sum(w) = n``), so the
resampled sums of every column at once are ``W @ Y``; a sign-flip resample is a row of
``+1 / -1``, so the resampled sums of every column of paired differences are ``S @ D``.
The rows are drawn in fixed blocks from ``numpy.random.default_rng`` seeded with
``(seed, stream)``, so the same seed gives the same numbers in any process and on any
machine, and no Python loop runs per resample.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from receval._kernels.resample import count_draws, weighted_column_sums

__all__ = ["BLOCK", "bootstrap_sums", "exact_signs", "sign_flip_sums"]

#: Resamples drawn per block (fixed: the stream of numbers must not depend on the machine).
BLOCK = 64

_BOOTSTRAP_STREAM = 0
_SIGN_STREAM = 1


def _blocks(n_resamples: int) -> Iterator[int]:
    done = 0
    while done < n_resamples:
        size = min(BLOCK, n_resamples - done)
        yield size
        done += size


def bootstrap_sums(y: np.ndarray, n_resamples: int, seed: int) -> np.ndarray:
    """Column sums of ``y`` over ``n_resamples`` bootstrap resamples of its rows (users).

    Each resample draws ``n`` rows with replacement, uniformly (Efron 1979); the draws are
    the same for every column, so statistics of different metrics and systems are resampled
    jointly (paired).

    Parameters
    ----------
    y : numpy.ndarray, shape (n_users, n_columns)
        Values with 0 where a user has none (a mask column counts the users that have one).
    n_resamples : int
    seed : int

    Returns
    -------
    numpy.ndarray, shape (n_resamples, n_columns)
    """
    n = y.shape[0]
    rng = np.random.default_rng([seed, _BOOTSTRAP_STREAM])
    y_t = np.ascontiguousarray(y.T, dtype=np.float64)
    out = np.empty((n_resamples, y.shape[1]))
    row = 0
    for size in _blocks(n_resamples):
        draws = rng.integers(0, n, size=(size, n), dtype=np.int32 if n < 2 ** 31 else np.int64)
        counts: np.ndarray = np.zeros((size, n), dtype=np.uint8)
        if not count_draws(draws, counts):  # pragma: no cover - needs > 255 equal draws
            counts = np.zeros((size, n))
            np.add.at(counts, (np.arange(size)[:, None], draws), 1.0)
        counts_t = np.ascontiguousarray(counts.T)
        sums_t = np.zeros((y.shape[1], size))
        weighted_column_sums(counts_t, y_t, sums_t)
        out[row:row + size] = sums_t.T
        row += size
    return out


def sign_flip_sums(d: np.ndarray, n_resamples: int, seed: int) -> np.ndarray:
    """Column sums of ``d`` with each row's sign flipped at random (p = 1/2), per resample.

    Returns
    -------
    numpy.ndarray, shape (n_resamples, n_columns)
    """
    n = d.shape[0]
    rng = np.random.default_rng([seed, _SIGN_STREAM])
    out = np.empty((n_resamples, d.shape[1]))
    row = 0
    for size in _blocks(n_resamples):
        signs = rng.integers(0, 2, size=(size, n)).astype(np.float64) * 2.0 - 1.0
        out[row:row + size] = signs @ d
        row += size
    return out


def exact_signs(d: np.ndarray) -> np.ndarray:
    """Column sums of ``d`` under every one of the ``2 ** n`` sign patterns of its rows.

    The first pattern is the identity (all ``+1``).

    Returns
    -------
    numpy.ndarray, shape (2 ** n_users, n_columns)
    """
    n = d.shape[0]
    patterns = np.arange(2 ** n, dtype=np.int64)[:, None] >> np.arange(n, dtype=np.int64)
    signs = 1.0 - 2.0 * (patterns & 1).astype(np.float64)
    return signs @ d
