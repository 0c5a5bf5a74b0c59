"""Full-catalog top-k from a score function: blocks of users, seen items excluded, ties by policy.

Every model that can score a block of users against every item (factors, a score function,
the baselines, the vectorised library adapters) ranks through :func:`top_k_scores`:

* the users are taken in blocks small enough that a block's float64 scores stay under
  :data:`BLOCK_BYTES` (64 MB): memory is bounded by the block, never users x items;
* each row of a block is cut to its best ``k`` candidates by a compiled selection
  (:mod:`receval._kernels.selection`), leaving out the row's excluded items and every
  NaN or ``-inf`` score (not a candidate);
* equal scores are ordered by the tie policy: ``"stable"`` (lower item code first: the
  ascending item id, since models index their items sorted) or ``"random"`` (a seeded
  random order, the same in any process: the order of two tied items of a user is that of
  a keyed 64-bit hash of (seed, user code, item code), so it depends on nothing else, not on
  the block size nor on the other users asked for).

The result counts the users whose list was cut inside a group of tied scores
(``tied_users``): for them the list depends on the tie policy, and :func:`warn_ties` says
so with a :class:`~receval.exceptions.TiesAtCutoffWarning`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from receval._kernels.selection import select_top_k, tie_key
from receval._seeds import check_seed
from receval.exceptions import InvalidModelError, InvalidParameterError, TiesAtCutoffWarning, warn

__all__ = ["BLOCK_BYTES", "TIE_POLICIES", "RankedBlock", "block_rows", "check_ties",
           "pair_scores", "top_k_scores", "warn_ties"]

#: Default upper bound of the float64 scores of one block of users (bytes).
BLOCK_BYTES = 64 << 20

#: The tie policies every ``recommend`` accepts.
TIE_POLICIES = ("stable", "random")

Scorer = Callable[[np.ndarray], Any]


@dataclass(frozen=True)
class RankedBlock:
    """The top-k lists of a set of users, as flat arrays.

    Attributes
    ----------
    rows : numpy.ndarray of int64
        Position of the user in the ``user_codes`` ranked; ascending, and within a row the
        entries are best first.
    items : numpy.ndarray of int64
        Item code of each entry.
    scores : numpy.ndarray of float64
        Its score.
    tied_users : int
        Users whose list was cut inside a group of equal scores: a candidate tied with the
        k-th score is in the list and another is left out.
    tie_policy : str
        ``"stable"`` or ``"random"``: how equal scores were ordered.
    seed : int or None
        The seed of ``"random"`` ties.
    """

    rows: np.ndarray
    items: np.ndarray
    scores: np.ndarray
    tied_users: int
    tie_policy: str
    seed: int | None = None

    def __len__(self) -> int:
        return len(self.rows)


def check_ties(ties: Any, seed: Any) -> int | None:
    """Validate a tie policy; return the seed (``None`` for ``"stable"``).

    Raises
    ------
    InvalidParameterError
        An unknown policy (naming ``ties`` and the allowed values), ``"random"`` without a
        ``seed`` from 0 to 2**63 - 1 (:func:`~receval._seeds.check_seed`: the rule of
        ``Random(seed=)``, the splits and the specs).
    """
    if not isinstance(ties, str) or ties not in TIE_POLICIES:
        raise InvalidParameterError(
            f"ties must be one of {', '.join(map(repr, TIE_POLICIES))}, got {ties!r}",
            parameter="ties", examples=[ties])
    if ties == "stable":
        return None
    return check_seed(seed)


def block_rows(n_items: int, block_size: Any = None) -> int:
    """Users per block: ``block_size``, or as many as keep a block's scores under 64 MB."""
    if block_size is None:
        return max(1, BLOCK_BYTES // (8 * max(int(n_items), 1)))
    if isinstance(block_size, bool) or not isinstance(block_size, (int, np.integer)) \
            or block_size < 1:
        raise InvalidParameterError(
            f"block_size must be an integer >= 1 (users scored at a time), got "
            f"{block_size!r}", parameter="block_size", examples=[block_size])
    return int(block_size)


def _check_csr(indptr: Any, indices: Any, n_rows: int, n_items: int
               ) -> tuple[np.ndarray, np.ndarray]:
    if indptr is None and indices is None:
        return np.zeros(n_rows + 1, dtype=np.int64), np.empty(0, dtype=np.int64)
    if indptr is None or indices is None:
        raise InvalidParameterError("exclude_indptr and exclude_indices go together",
                                    parameter="exclude_indptr")
    ptr = np.ascontiguousarray(indptr, dtype=np.int64)
    idx = np.ascontiguousarray(indices, dtype=np.int64)
    if ptr.shape != (n_rows + 1,) or ptr[0] != 0 or np.any(np.diff(ptr) < 0) \
            or ptr[-1] != len(idx):
        raise InvalidParameterError(
            f"exclude_indptr must be a non-decreasing array of {n_rows + 1} offsets from 0 to "
            f"len(exclude_indices)={len(idx)}", parameter="exclude_indptr")
    if len(idx) and (idx.min() < 0 or idx.max() >= n_items):
        bad = idx[(idx < 0) | (idx >= n_items)]
        raise InvalidParameterError(
            f"exclude_indices must be item codes in [0, {n_items}), got {len(bad)} others",
            parameter="exclude_indices", n_bad=len(bad), examples=bad[:5].tolist())
    return ptr, idx


def _block_scores(scorer: Scorer, codes: np.ndarray, n_items: int) -> np.ndarray:
    out = scorer(codes)
    arr = np.asarray(out)
    if arr.shape != (len(codes), n_items) or not (np.issubdtype(arr.dtype, np.floating)
                                                  or np.issubdtype(arr.dtype, np.integer)):
        raise InvalidModelError(
            f"the score function returned {type(out).__name__} of shape "
            f"{getattr(arr, 'shape', None)} and dtype {getattr(arr, 'dtype', None)} for a block "
            f"of {len(codes)} users; expected a float array of shape ({len(codes)}, {n_items}) "
            f"(one score per user and item)", parameter="scorer")
    return np.ascontiguousarray(arr, dtype=np.float64)


def top_k_scores(scorer: Scorer, user_codes: Any, n_items: int, k: int, *,
                 exclude_indptr: Any = None, exclude_indices: Any = None,
                 ties: str = "stable", seed: Any = None, block_size: Any = None
                 ) -> RankedBlock:
    """The best ``k`` items of each user by a score function, blocks of users at a time.

    Parameters
    ----------
    scorer : callable
        ``scorer(codes)`` -> float array of shape ``(len(codes), n_items)``: the ranking
        scores of a block of user codes (int64) against every item code. NaN or ``-inf``:
        not a candidate. ``+inf`` ranks first. The array is only read.
    user_codes : array of int
        The users to rank (their codes, passed to ``scorer`` and to the random tie keys).
    n_items : int
        Number of item codes.
    k : int
        List length (>= 1); a row with fewer candidates gets them all.
    exclude_indptr, exclude_indices : array of int, optional
        A CSR over the positions of ``user_codes``: row ``r`` leaves out the item codes
        ``exclude_indices[exclude_indptr[r]:exclude_indptr[r + 1]]`` (any order, repeats
        allowed).
    ties : {"stable", "random"}
        Order of equal scores: lower item code first, or a seeded random order.
    seed : int, optional
        Required by ``ties="random"``.
    block_size : int, optional
        Users scored at a time; default: as many as keep a block's scores under 64 MB.

    Returns
    -------
    RankedBlock
        ``rows`` (positions into ``user_codes``), ``items``, ``scores``, best first per row,
        and the number of users whose list was cut inside a group of ties.
    """
    seed_ = check_ties(ties, seed)
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise InvalidParameterError(f"k must be an integer >= 1, got {k!r}", parameter="k",
                                    examples=[k])
    codes = np.ascontiguousarray(user_codes, dtype=np.int64).ravel()
    n_items = int(n_items)
    ptr, idx = _check_csr(exclude_indptr, exclude_indices, len(codes), n_items)
    step = block_rows(n_items, block_size)
    key = tie_key(seed_)
    rows, items, scores, tied = [np.empty(0, np.int64)], [np.empty(0, np.int64)], \
        [np.empty(0)], 0
    for start in range(0, len(codes), step):  # blocks of users, not a loop over users
        stop = min(start + step, len(codes))
        block = _block_scores(scorer, codes[start:stop], n_items)
        bptr = ptr[start:stop + 1] - ptr[start]
        off, it, sc, nt = select_top_k(block, codes[start:stop], bptr,
                                       idx[ptr[start]:ptr[stop]], int(k), key)
        rows.append(np.repeat(np.arange(start, stop, dtype=np.int64), np.diff(off)))
        items.append(it)
        scores.append(sc)
        tied += nt
    return RankedBlock(np.concatenate(rows), np.concatenate(items), np.concatenate(scores),
                       int(tied), ties, seed_)


def pair_scores(block_scores: Callable[[int, int], np.ndarray], rows: np.ndarray,
                cols: np.ndarray, n_rows: int, n_items: int, block_size: Any = None
                ) -> np.ndarray:
    """Scores of given (row, item) cells, computing full rows a block at a time.

    ``block_scores(start, stop)`` returns the scores of rows ``start .. stop - 1`` against
    every item (shape ``(stop - start, n_items)``); blocks are asked for in ascending
    order, each once. ``rows[j]``, ``cols[j]`` is the cell of output ``j``.
    """
    step = block_rows(n_items, block_size)
    out = np.empty(len(rows), dtype=np.float64)
    by_row = np.argsort(rows, kind="stable")
    bounds = np.searchsorted(rows[by_row], np.arange(0, n_rows + step, step))
    for b, start in enumerate(range(0, n_rows, step)):  # blocks of rows
        block = block_scores(start, min(start + step, n_rows))
        take = by_row[bounds[b]:bounds[b + 1]]
        out[take] = block[rows[take] - start, cols[take]]
    return out


def warn_ties(model_name: str, ranked: RankedBlock, k: int, *, note: str = "") -> None:
    """Warn (:class:`~receval.exceptions.TiesAtCutoffWarning`) when ties were cut at ``k``.

    The message names the model, the number of users whose k-th score is tied with a
    candidate left out of the list, and what was done about it; ``note`` is appended after
    the model's name (e.g. "gives every item of a user the same score").
    """
    if ranked.tied_users <= 0:
        return
    how = ("broken by ascending item id (ties='stable'); pass ties='random' with a seed to "
           "draw them at random instead" if ranked.tie_policy == "stable"
           else f"broken at random with seed={ranked.seed} (ties='random')")
    extra = f" {model_name} {note}" if note else ""
    warn(f"{model_name}.recommend: for {ranked.tied_users} users the score at rank k={k} is "
         f"shared by items in the list and items left out; the ties were {how}.{extra}",
         TiesAtCutoffWarning)
