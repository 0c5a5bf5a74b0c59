"""The baselines: random, most popular, and the three mean rating predictors.

Every one is fitted on a table with ``user_id`` and ``item_id`` (aliases accepted, see
:class:`receval.Columns`) and, for the mean predictors, a ``rating``; recommends only items
seen in training; and, given ``exclude`` (a table of (user, item) pairs, e.g. the training
rows), never recommends an excluded pair. Lists are cut at ``k`` (shorter when a user has
fewer allowed items) and ties are broken by ascending item id.
"""

from __future__ import annotations

from typing import Any, TypeVar

import numpy as np
import pandas as pd

from receval.exceptions import InvalidParameterError
from receval.models._base import FittedIds, check_k, frame, requested_users
from receval.models._data import exclusion_csr, interactions, sorted_unique
from receval.models._params import Params
from receval.models._topk import top_k_pairs

__all__ = ["GlobalMean", "ItemMean", "MostPopular", "Random", "UserMean"]

#: Random scores are drawn for this many (user, item) cells at a time (16 MB of float64).
_CELLS_PER_CHUNK = 1 << 21


class Random(Params, FittedIds):
    """Recommend items in a random order: a uniform random score per (user, item).

    The scores of a call come from ``numpy.random.default_rng(seed)``: one row of
    ``n_items`` uniform numbers per requested user, users in ascending id order, items in
    ascending id order. The same seed, users and training items give the same lists in any
    process. The cost is O(users x items) random numbers (drawn in chunks of 2^21 cells),
    as in seed 004's random model, which scores every item.

    Parameters
    ----------
    seed : int
        Seed of the random scores.
    """

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def __repr__(self) -> str:
        return f"Random(seed={self.seed!r})"

    def fit(self, train: Any) -> Random:
        """Remember the training items (the candidates)."""
        self._index(interactions(train, rating=False))
        return self

    def recommend(self, users: Any, k: int, exclude: Any = None) -> pd.DataFrame:
        """``k`` random items per user (never an excluded pair): ``user_id, item_id, score``."""
        self._require_fitted()
        k, index = check_k(k), requested_users(users)
        n_items = len(self.items_)
        off, codes = exclusion_csr(exclude, index, self.items_)
        rng = np.random.default_rng(self.seed)
        chunk = max(1, _CELLS_PER_CHUNK // max(n_items, 1))
        rows, items, values = [np.empty(0, np.int64)], [np.empty(0, np.int64)], [np.empty(0)]
        for start in range(0, len(index), chunk):  # a few chunks, not a loop over users
            stop = min(start + chunk, len(index))
            scores = rng.random((stop - start, n_items))
            excluded = np.repeat(np.arange(stop - start), np.diff(off[start:stop + 1]))
            scores[excluded, codes[off[start]:off[stop]]] = -1.0  # below any random score
            u = np.repeat(np.arange(start, stop, dtype=np.int64), n_items)
            i = np.tile(np.arange(n_items, dtype=np.int64), stop - start)
            flat = scores.ravel()
            keep = np.flatnonzero(flat >= 0.0)
            best = keep[top_k_pairs(u[keep], i[keep], flat[keep], k)]
            rows.append(u[best])
            items.append(i[best])
            values.append(flat[best])
        return frame(index, np.concatenate(rows), self.items_, np.concatenate(items),
                     np.concatenate(values))


class MostPopular(Params, FittedIds):
    """Recommend the most popular training items the user has not excluded.

    Popularity is the number of distinct training users of the item (``by="users"``, the
    default) or its number of training rows (``by="rows"``; the two differ only when a log
    repeats a (user, item) pair). The score is that count; equal counts are ordered by
    ascending item id. Every user gets the same list minus their excluded items: one walk of
    the global order per user, O(k + |excluded_u|), compiled.

    Parameters
    ----------
    by : {"users", "rows"}
        What is counted.
    """

    def __init__(self, by: str = "users") -> None:
        if by not in ("users", "rows"):
            raise InvalidParameterError(f"by must be 'users' or 'rows', got {by!r}",
                                        parameter="by", examples=[by])
        self.by = by

    def __repr__(self) -> str:
        return f"MostPopular(by={self.by!r})"

    def fit(self, train: Any) -> MostPopular:
        """Count each item's users (or rows) in ``train``."""
        self._index(interactions(train, rating=False))
        codes = self.item_codes_
        if self.by == "users":
            pair = sorted_unique(self.user_codes_ * len(self.items_) + codes)
            codes = pair % len(self.items_)
        self.counts_ = np.bincount(codes, minlength=len(self.items_)).astype(np.float64)
        self.order_ = np.lexsort((np.arange(len(self.items_)), -self.counts_))
        return self

    def recommend(self, users: Any, k: int, exclude: Any = None) -> pd.DataFrame:
        """The ``k`` most popular allowed items per user: ``user_id, item_id, score``."""
        self._require_fitted()
        return self._ranked(users, k, exclude, self.order_, self.counts_)


class _MeanPredictor(Params, FittedIds):
    """Shared by the mean predictors: the global mean and the fallback accounting."""

    mean_: float
    #: Rows of the last ``predict`` that fell back to the global mean, by reason.
    fallbacks_: dict[str, int]

    def _fit_mean(self, train: Any) -> pd.DataFrame:
        table = interactions(train, rating=True)
        self._index(table)
        self.rating_ = table["rating"].to_numpy(dtype=np.float64)
        if not len(self.rating_):
            raise InvalidParameterError("train is empty: a mean needs at least one rating",
                                        parameter="train")
        self.mean_ = float(self.rating_.mean())
        self.fallbacks_ = {}
        return table

    def _shrunk(self, codes: np.ndarray, n: int, shrinkage: float) -> np.ndarray:
        total = np.bincount(codes, weights=self.rating_, minlength=n)
        count = np.bincount(codes, minlength=n)
        return (total + shrinkage * self.mean_) / (count + shrinkage)

    def _by_code(self, values: np.ndarray, codes: np.ndarray, reason: str) -> np.ndarray:
        known = codes >= 0
        self.fallbacks_ = {reason: int((~known).sum())}
        return np.where(known, values[np.maximum(codes, 0)], self.mean_)

    def _constant_top_k(self, users: Any, k: int, exclude: Any,
                        per_user: np.ndarray | None) -> pd.DataFrame:
        order = np.arange(len(self.items_), dtype=np.int64)  # all tie: ascending item id
        index, rows, codes = self._global_top_k(users, k, exclude, order)
        if per_user is None:
            return frame(index, rows, self.items_, codes, np.full(len(rows), self.mean_))
        value = self._by_code(per_user, self.users_.get_indexer(index), "unknown_users")
        return frame(index, rows, self.items_, codes, value[rows])


def _check_shrinkage(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
        raise InvalidParameterError(f"shrinkage must be a number >= 0, got {value!r}",
                                    parameter="shrinkage", examples=[value])
    return float(value)


class GlobalMean(_MeanPredictor):
    """Predict every rating as the mean training rating, mu = sum r / n.

    ``recommend`` gives every allowed item the score mu, so lists are in ascending item id
    order: a protocol-complete floor, not a ranking.
    """

    def __repr__(self) -> str:
        return "GlobalMean()"

    def fit(self, train: Any) -> GlobalMean:
        """Compute the mean rating of ``train``."""
        self._fit_mean(train)
        return self

    def predict(self, pairs: Any) -> pd.DataFrame:
        """mu for every pair: ``user_id, item_id, score`` in the order of ``pairs``."""
        table, _, _ = self._pairs(pairs)
        self.fallbacks_ = {}
        return table.assign(score=np.full(len(table), self.mean_))

    def recommend(self, users: Any, k: int, exclude: Any = None) -> pd.DataFrame:
        """The first ``k`` allowed items by item id, score mu."""
        return self._constant_top_k(users, k, exclude, None)


_S = TypeVar("_S", bound="_ShrunkMean")


class _ShrunkMean(_MeanPredictor):
    """A mean rating per user or per item, shrunk towards mu; mu for the unknown ones."""

    _by: str  # "user" or "item"
    means_: np.ndarray

    def __init__(self, shrinkage: float = 0.0) -> None:
        self.shrinkage = _check_shrinkage(shrinkage)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(shrinkage={self.shrinkage!r})"

    def fit(self: _S, train: Any) -> _S:
        """Compute each user's (item's) shrunk mean rating."""
        self._fit_mean(train)
        codes, n = ((self.user_codes_, len(self.users_)) if self._by == "user"
                    else (self.item_codes_, len(self.items_)))
        self.means_ = self._shrunk(codes, n, self.shrinkage)
        return self

    def predict(self, pairs: Any) -> pd.DataFrame:
        """The mean of the pair's user (item), mu when unknown, in the order of ``pairs``."""
        table, users, items = self._pairs(pairs)
        codes = users if self._by == "user" else items
        return table.assign(score=self._by_code(self.means_, codes, f"unknown_{self._by}s"))


class UserMean(_ShrunkMean):
    """Predict a rating as the user's mean training rating, shrunk towards the global mean.

    r^(u, i) = (sum_{i in I_u} r_ui + beta mu) / (|I_u| + beta), with ``beta = shrinkage``
    (0: the plain mean; Koren, "Factorization meets the neighborhood", KDD 2008, uses
    such damped means as baseline estimates). A user absent from training gets mu; their
    number of rows is in ``fallbacks_["unknown_users"]`` after each ``predict``.
    ``recommend`` ranks every allowed item equally (ascending item id).

    Parameters
    ----------
    shrinkage : float
        beta >= 0.
    """

    _by = "user"

    def recommend(self, users: Any, k: int, exclude: Any = None) -> pd.DataFrame:
        """The first ``k`` allowed items by item id, score the user's mean."""
        return self._constant_top_k(users, k, exclude, self.means_)


class ItemMean(_ShrunkMean):
    """Predict a rating as the item's mean training rating, shrunk towards the global mean.

    r^(u, i) = (sum_{u in U_i} r_ui + beta mu) / (|U_i| + beta), ``beta = shrinkage``. An item
    absent from training gets mu; the number of such rows is in
    ``fallbacks_["unknown_items"]``. ``recommend`` ranks items by that mean (ties: ascending
    item id), leaving out excluded pairs.

    Parameters
    ----------
    shrinkage : float
        beta >= 0.
    """

    _by = "item"

    def fit(self, train: Any) -> ItemMean:
        """Compute each item's (shrunk) mean rating and the order of the items by it."""
        super().fit(train)
        self.order_ = np.lexsort((np.arange(len(self.items_)), -self.means_))
        return self

    def recommend(self, users: Any, k: int, exclude: Any = None) -> pd.DataFrame:
        """The ``k`` allowed items with the highest mean."""
        self._require_fitted()
        return self._ranked(users, k, exclude, self.order_, self.means_)
