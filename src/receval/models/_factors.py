"""Full-catalog ranking from learned factors or from any score function.

:class:`Factors` holds user and item factor matrices (and optional biases) learned elsewhere
(any matrix factorisation, two-tower model, embedding); :class:`ScoreFunction` wraps a
function that scores a block of users against every item. Both rank through
:func:`receval.models._rank.top_k_scores`: blocks of users whose float64 scores stay under
64 MB, a compiled per-row top-k selection that leaves out excluded items, and the ``ties=``
policy. Neither ever holds a users x items matrix.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from receval.exceptions import InvalidModelError, InvalidParameterError
from receval.models._base import rank_by_scores, requested_users
from receval.models._checks import (
    finite_matrix,
    finite_vector,
    id_index,
    unknown_ids,
    unknown_policy,
)
from receval.models._data import TrainingPairs, canonical, training_rows
from receval.models._params import Params
from receval.models._rank import block_rows, pair_scores

__all__ = ["Factors", "ScoreFunction"]

#: ``Factors.score`` multiplies this many pairs' factor rows at a time.
_PAIRS_PER_CHUNK = 1 << 16


class _Catalog:
    """What Factors and ScoreFunction share: ids, the unknown-id policy, seen items."""

    users_: pd.Index
    items_: pd.Index
    unknown: str
    block_size: Any

    def fit(self, train: Any) -> Any:
        """Record the (user, item) pairs of ``train``; ``exclude="seen"`` leaves them out.

        Nothing is learned: the scores come from the factors or the function given to the
        constructor. Returns ``self``.
        """
        self.seen_ = training_rows(train, rating=False, model=self._name())[
            ["user_id", "item_id"]]
        return self

    def _name(self) -> str:
        return type(self).__name__

    def _users(self, users: Any) -> tuple[pd.Index, np.ndarray]:
        """The requested users known to the model and their codes (unknown: policy)."""
        index = requested_users(users, self.users_, self._name())
        codes = self.users_.get_indexer(index)
        unknown = codes < 0
        if unknown.any():
            unknown_ids(self._name(), "users", self.unknown, index[unknown].tolist())
            index, codes = index[~unknown], codes[~unknown]
        return index, codes.astype(np.int64)

    def _pairs(self, pairs: Any) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
        """The known pairs (canonical columns) and their user and item codes."""
        table = canonical(pairs, name="pairs")[["user_id", "item_id"]]
        u = self.users_.get_indexer(pd.Index(table["user_id"]))
        i = self.items_.get_indexer(pd.Index(table["item_id"]))
        bad = (u < 0) | (i < 0)
        if bad.any():
            unknown_ids(self._name(), "pairs", self.unknown,
                          list(table.loc[bad].itertuples(index=False, name=None)))
            table, u, i = table.loc[~bad].reset_index(drop=True), u[~bad], i[~bad]
        return table, u.astype(np.int64), i.astype(np.int64)

    def _seen(self) -> TrainingPairs | None:
        """The pairs given to ``fit`` (what ``exclude="seen"`` leaves out), if any."""
        if not hasattr(self, "seen_"):
            return None
        return TrainingPairs.of(self.seen_)

    def _scores(self, codes: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _finish(self, codes: np.ndarray, scores: np.ndarray) -> np.ndarray:
        """Scores of selected entries: what ranking left out (terms constant per user)."""
        return scores

    def recommend(self, users: Any, k: int, exclude: Any = None, ties: str = "stable",
                  seed: int | None = None) -> pd.DataFrame:
        """The ``k`` best items of each user: ``user_id, item_id, score``, best first.

        Parameters
        ----------
        users : id or collection of ids
            Users to rank for: one id, or a one-dimensional collection of ids (list, tuple, set,
            range, numpy array, pandas Series or Index, or any iterable, e.g. a generator); one list
            per distinct id. A table or a 2-D array is an error naming ``users``: pass its user
            column. Ids of another type than the training ids are an
            :class:`~receval.exceptions.IdTypeMismatchError`. Lists in ascending user id order.
            Unknown users: the ``unknown`` policy.
        k : int
            List length (shorter when a user has fewer candidates).
        exclude : table, path, "seen" or None
            (user, item) pairs never recommended: a table (or the path of one), or ``"seen"``,
            the pairs given to :meth:`fit`. Ids of another type than the training ids are
            an :class:`~receval.exceptions.IdTypeMismatchError` naming ``exclude``.
        ties : {"stable", "random"}
            Order of equal scores: ascending item id, or a seeded random order.
        seed : int, optional
            Seed of ``ties="random"``.
        """
        index, codes = self._users(users)
        return rank_by_scores(self._name(), self._scores, index, codes, self.items_, k,
                              exclude, ties, seed, block_size=self.block_size,
                              finish=lambda rows, s: self._finish(codes[rows], s),
                              seen=self._seen())


def _sorted(index: pd.Index) -> np.ndarray:
    """The permutation that sorts ids ascending (identity when they do not sort)."""
    try:
        return np.argsort(index.to_numpy(), kind="stable")
    except TypeError:
        return np.arange(len(index))


class Factors(Params, _Catalog):
    r"""Rank and score from user and item factors: s(u, i) = p_u . q_i + b_i + b_u + mu.

    The score of user ``u`` and item ``i`` is the dot product of their factor rows plus
    the biases given (``item_bias`` b_i, ``user_bias`` b_u, ``global_bias`` mu), added in
    that order: the prediction rule of biased matrix factorisation (Koren, Bell & Volinsky,
    "Matrix factorization techniques for recommender systems", IEEE Computer 2009, eq. 3).
    The model is already fitted: :meth:`fit` only records the training pairs (for
    ``exclude="seen"``). ``recommend`` computes the scores a block of users at a time
    (one BLAS product per block, under 64 MB of scores by default) and keeps each user's
    best ``k`` with a compiled selection; ``score`` and ``predict`` compute the same
    formula for given pairs (row by row, so equal to ``recommend``'s scores up to the
    summation order of the dot product, ~1e-15 relative).

    Parameters
    ----------
    user_factors, item_factors : array of shape (n_users, f) and (n_items, f)
        Real, finite.
    users, items : sequence of ids, optional
        The id of each row (no missing, no repeat); default ``0 .. n - 1``. Items are
        re-indexed in ascending id order (when the ids sort), so that ``ties="stable"``
        means ascending item id, as for every model of receval.
    user_bias, item_bias : array of shape (n_users,) and (n_items,), optional
        Finite.
    global_bias : float
        Finite.
    unknown : {"error", "skip"}
        Users (in ``recommend``) and pairs (in ``score`` / ``predict``) with an id the
        factors do not have: an :class:`~receval.exceptions.InvalidParameterError` naming a
        few (``"error"``), or left out of the result (``"skip"``: no list, no row).
    block_size : int, optional
        Users scored at a time.
    """

    def __init__(self, user_factors: Any, item_factors: Any, users: Any = None,
                 items: Any = None, user_bias: Any = None, item_bias: Any = None,
                 global_bias: float = 0.0, *, unknown: str = "error",
                 block_size: int | None = None) -> None:
        self.user_factors = user_factors
        self.item_factors = item_factors
        self.users = users
        self.items = items
        self.user_bias = user_bias
        self.item_bias = item_bias
        self.global_bias = global_bias
        self.unknown = unknown_policy(unknown)
        self.block_size = block_size
        p = finite_matrix(user_factors, "user_factors")
        q = finite_matrix(item_factors, "item_factors")
        if p.shape[1] != q.shape[1]:
            raise InvalidParameterError(
                f"user_factors and item_factors must have the same number of columns "
                f"(factors), got {p.shape[1]} and {q.shape[1]}", parameter="item_factors",
                examples=[p.shape, q.shape])
        self.users_ = id_index(users, len(p), "users", "user_factors")
        self.items_ = id_index(items, len(q), "items", "item_factors")
        bu = finite_vector(user_bias, len(p), "user_bias")
        bi = finite_vector(item_bias, len(q), "item_bias")
        mu = finite_vector(global_bias, None, "global_bias")
        order = _sorted(self.items_)
        self.items_ = self.items_.take(order)
        self._p, self._bu, self._mu = p, bu, float(mu[0])
        self._q = np.ascontiguousarray(q[order])
        self._bi = bi[order]
        block_rows(len(q), block_size)  # checks block_size

    def __repr__(self) -> str:
        biases = [name for name in ("user_bias", "item_bias") if getattr(self, name) is not None]
        return (f"Factors({self._p.shape[0]} users x {self._q.shape[0]} items x "
                f"{self._p.shape[1]} factors" + "".join(f", {b}" for b in biases)
                + (f", global_bias={self._mu!r}" if self._mu else "") + ")")

    def _scores(self, codes: np.ndarray) -> np.ndarray:
        """p_u . q_i + b_i for a block of users (b_u + mu, equal for a user, come after)."""
        out = self._p[codes] @ self._q.T
        if self.item_bias is not None:
            out += self._bi
        return out

    def _finish(self, codes: np.ndarray, scores: np.ndarray) -> np.ndarray:
        return (scores + self._bu[codes]) + self._mu

    def score(self, pairs: Any) -> pd.DataFrame:
        """The score of each (user, item) pair: ``user_id, item_id, score`` in pairs order.

        s(u, i) = p_u . q_i + b_i + b_u + mu, the ranking score of :meth:`recommend`
        (for sampled evaluation). Unknown ids: the ``unknown`` policy.
        """
        table, u, i = self._pairs(pairs)
        out = np.empty(len(table), dtype=np.float64)
        for start in range(0, len(table), _PAIRS_PER_CHUNK):  # chunks of pairs
            stop = start + _PAIRS_PER_CHUNK
            uc, ic = u[start:stop], i[start:stop]
            dot = np.einsum("ij,ij->i", self._p[uc], self._q[ic])
            out[start:stop] = ((dot + self._bi[ic]) + self._bu[uc]) + self._mu
        return table.assign(score=out)

    def predict(self, pairs: Any) -> pd.DataFrame:
        """The same as :meth:`score`: factors predict a rating as they rank (no clipping)."""
        return self.score(pairs)


class ScoreFunction(Params, _Catalog):
    """Rank by a function that scores a block of users against every item.

    ``fn(user_ids)`` gets a 1-D numpy array of user ids (a block, at most ``block_size``
    of them; default: as many as keep the block's float64 scores under 64 MB) and returns
    an array of shape ``(len(user_ids), len(items))``: column ``j`` scores ``items[j]``.
    NaN or ``-inf``: not a candidate. The function may be called several times for one
    ``recommend``; it should not keep state between calls.

    Parameters
    ----------
    fn : callable
        The score function.
    users, items : sequence of ids, optional
        The users ``fn`` can score and the items of its columns (no missing, no repeat).
        Without them, :meth:`fit` takes them from the training table (ascending ids).
    unknown : {"error", "skip"}
        Requested users or pairs with an id outside ``users`` / ``items``: an error naming
        a few, or left out.
    block_size : int, optional
        Users per call of ``fn``.
    """

    def __init__(self, fn: Callable[[np.ndarray], Any], users: Any = None, items: Any = None,
                 *, unknown: str = "error", block_size: int | None = None) -> None:
        if not callable(fn):
            raise InvalidModelError(
                f"ScoreFunction needs a callable fn(user_ids) -> scores, got "
                f"{type(fn).__name__}", parameter="fn")
        self.fn = fn
        self.users = users
        self.items = items
        self.unknown = unknown_policy(unknown)
        self.block_size = block_size
        if users is not None:
            self.users_ = id_index(users, None, "users", None)
        if items is not None:
            self.items_ = id_index(items, None, "items", None)

    def __repr__(self) -> str:
        return f"ScoreFunction({getattr(self.fn, '__name__', type(self.fn).__name__)})"

    def fit(self, train: Any) -> ScoreFunction:
        """Record the training pairs; take ``users`` / ``items`` from them if not given."""
        super().fit(train)
        if self.users is None:
            self.users_ = pd.Index(np.sort(self.seen_["user_id"].unique()))
        if self.items is None:
            self.items_ = pd.Index(np.sort(self.seen_["item_id"].unique()))
        return self

    def _require(self) -> None:
        if not (hasattr(self, "users_") and hasattr(self, "items_")):
            raise InvalidModelError(
                "ScoreFunction is not fitted: call fit(train) first (or pass users= and "
                "items=, the ids fn scores)", parameter="model")

    def _scores(self, codes: np.ndarray) -> np.ndarray:
        return self.fn(self.users_.take(codes).to_numpy())  # type: ignore[no-any-return]

    def recommend(self, users: Any, k: int, exclude: Any = None, ties: str = "stable",
                  seed: int | None = None) -> pd.DataFrame:
        """The ``k`` best items of each user by ``fn``: see :meth:`Factors.recommend`."""
        self._require()
        return super().recommend(users, k, exclude, ties, seed)

    def score(self, pairs: Any) -> pd.DataFrame:
        """``fn``'s score of each (user, item) pair, in pairs order (``user_id, item_id, score``).

        ``fn`` is called on the distinct users of the pairs, a block at a time, so the cost
        is (distinct users) x (items) scores. A NaN score is an error naming the pairs.
        """
        self._require()
        table, u, i = self._pairs(pairs)
        distinct, row = np.unique(u, return_inverse=True)
        out = pair_scores(lambda a, b: _checked(self._scores(distinct[a:b]), b - a,
                                                len(self.items_)),
                          row.astype(np.int64), i, len(distinct), len(self.items_),
                          self.block_size)
        bad = np.isnan(out)
        if bad.any():
            raise InvalidModelError(
                f"ScoreFunction: fn returned NaN for {int(bad.sum())} of the pairs, e.g. "
                f"{list(table.loc[bad].head(5).itertuples(index=False, name=None))}",
                parameter="fn", n_bad=int(bad.sum()))
        return table.assign(score=out)


def _checked(block: Any, n_users: int, n_items: int) -> np.ndarray:
    arr = np.asarray(block)
    if arr.shape != (n_users, n_items) or not np.issubdtype(arr.dtype, np.number):
        raise InvalidModelError(
            f"ScoreFunction: fn returned shape {arr.shape} and dtype {arr.dtype} for a block "
            f"of {n_users} users; expected a float array of shape ({n_users}, {n_items})",
            parameter="fn")
    return arr.astype(np.float64, copy=False)
