"""Full-catalog top-k of a block scorer, for the library adapters.

Interim stand-in with the signature of ``receval.models._rank.top_k_scores`` (written on the
issue-24-topk branch); the adapters import it from here, so that switching to the shared
selection is a one-line change of this module.

Per block of users (``block_size`` users, about 2^22 scores at a time): the scorer's dense
scores, excluded pairs set to -inf, ``numpy.partition`` for the k-th largest score of each
user, then every candidate at or above it sorted by (score descending, tie key) with
:func:`~receval.models._topk.top_k_pairs`. Tie key: the item code (``ties="stable"``:
ascending item id) or a seeded random number per (user, item) (``"random"``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from receval.exceptions import InvalidModelError, InvalidParameterError, TiesAtCutoffWarning, warn
from receval.models._topk import top_k_pairs

__all__ = ["RankedBlock", "top_k_scores", "warn_ties"]

TIES = ("stable", "random")
SCORES_PER_BLOCK = 1 << 22


@dataclass(frozen=True)
class RankedBlock:
    """Selected (row, item code, score) triples, best first per row, rows ascending."""

    rows: np.ndarray
    items: np.ndarray
    scores: np.ndarray
    tied_users: int
    tie_policy: str


def warn_ties(tied_users: int, n_users: int, k: int, policy: str) -> None:
    """A :class:`TiesAtCutoffWarning` saying how many users had ties at the k-th score."""
    if tied_users:
        order = "ascending item id" if policy == "stable" else "a seeded random order"
        warn(f"{tied_users} of {n_users} users have more items tied at their k-th score "
             f"than fit in k={k}; ties were broken by {order} (ties={policy!r})",
             TiesAtCutoffWarning)


def top_k_scores(scorer: Callable[[np.ndarray], np.ndarray], user_codes: np.ndarray,
                 n_items: int, k: int, *, exclude_indptr: np.ndarray | None = None,
                 exclude_indices: np.ndarray | None = None, ties: str = "stable",
                 seed: int | None = None, block_size: int | None = None) -> RankedBlock:
    """The ``k`` best items of each user by ``scorer``, excluded items left out.

    Rows of the result index ``user_codes``; excluded items never appear, and users with
    fewer than ``k`` allowed items get all of them. A NaN score is an error.
    """
    if ties not in TIES:
        raise InvalidParameterError(f"ties must be one of {TIES}, got {ties!r}",
                                    parameter="ties", examples=[ties])
    n = len(user_codes)
    if exclude_indptr is None or exclude_indices is None:
        exclude_indptr = np.zeros(n + 1, dtype=np.int64)
        exclude_indices = np.empty(0, dtype=np.int64)
    block = block_size or max(1, SCORES_PER_BLOCK // max(n_items, 1))
    rng = np.random.default_rng(seed)
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    tied = 0
    for start in range(0, n, block):  # a few blocks of users, not a loop over users
        stop = min(start + block, n)
        scores = np.array(scorer(user_codes[start:stop]), dtype=np.float64)
        if scores.shape != (stop - start, n_items):
            raise InvalidModelError(f"the scorer returned shape {scores.shape}, expected "
                                    f"{(stop - start, n_items)}", parameter="model")
        if np.isnan(scores).any():
            raise InvalidModelError("the model scored some items NaN", parameter="model")
        lo, hi = exclude_indptr[start], exclude_indptr[stop]
        scores[np.repeat(np.arange(stop - start), np.diff(exclude_indptr[start:stop + 1])),
               exclude_indices[lo:hi]] = -np.inf
        kk = min(k, n_items)
        kth = -np.partition(-scores, kk - 1, axis=1)[:, kk - 1]
        r, c = np.nonzero(scores >= kth[:, None])
        s = scores[r, c]
        allowed = s > -np.inf
        over = np.bincount(r, minlength=stop - start) > kk
        at_kth = np.bincount(r[s == kth[r]], minlength=stop - start)
        tied += int((over & (at_kth > 1) & (kth > -np.inf)).sum())
        key = c if ties == "stable" else rng.permutation(len(c))
        best = top_k_pairs(r, key, s, kk)
        best = best[allowed[best]]
        parts.append((r[best] + start, c[best], s[best]))
    if not parts:
        empty = np.empty(0, dtype=np.int64)
        return RankedBlock(empty, empty, np.empty(0), 0, ties)
    rows, items, values = (np.concatenate(p) for p in zip(*parts, strict=True))
    return RankedBlock(rows.astype(np.int64), items.astype(np.int64), values, tied, ties)
