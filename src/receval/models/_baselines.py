"""The baselines: random, most popular, and the three mean rating predictors.

Every one is fitted on a table with ``user_id`` and ``item_id`` (aliases accepted, see
:class:`receval.Columns`) and, for the mean predictors, a ``rating``; recommends only items
seen in training; and, given ``exclude`` (a table of (user, item) pairs, e.g. the training
rows, or ``"seen"``: the pairs given to ``fit``), never recommends an excluded pair.
``users`` is one id or any one-dimensional collection of ids (see
:meth:`receval.models.Factors.recommend`); an empty ``train`` is an
:class:`~receval.exceptions.EmptyInputError`. Lists are cut at ``k`` (shorter when a user has
fewer allowed items). Equal scores follow ``ties=``: ``"stable"`` (the default: ascending
item id) or ``"random"`` (a seeded random order per user, ``seed=`` required); when the cut at
``k`` falls inside a group of equal scores for some users, ``recommend`` says so with a
:class:`~receval.exceptions.TiesAtCutoffWarning`. ``score(pairs)`` gives the ranking score of
any (user, item) pairs (for sampled evaluation).
"""

from __future__ import annotations

from typing import Any, TypeVar

import numpy as np
import pandas as pd

from receval._kernels.hashing import seed_key
from receval._kernels.permutation import permuted_top_k, ranks_of
from receval._seeds import check_seed
from receval.data._idhash import id_hashes
from receval.exceptions import InvalidParameterError
from receval.models._base import FittedIds, check_k, frame, requested_users
from receval.models._data import exclusion_csr, sorted_unique
from receval.models._params import Params
from receval.models._rank import check_ties

__all__ = ["GlobalMean", "ItemMean", "MostPopular", "Random", "UserMean"]

_CONSTANT = ("gives every item of a user the same score, so every list is the tie "
             "policy's order of the user's allowed items.")


class Random(Params, FittedIds):
    """Recommend items in a random order: a keyed random permutation of the items per user.

    User ``u``'s ranking is the permutation of the ``n`` training items (codes in ascending
    item id order) keyed by Spark's ``xxhash64(seed, u)`` (the key a per-user random split
    gives the user, :mod:`receval.data._idhash`), built by a Feistel network with cycle
    walking (:mod:`receval._kernels.permutation`): the item at rank ``r`` is
    ``permute(r)``, computed alone. ``recommend`` walks ranks ``0, 1, ...`` and keeps the
    first ``k`` items the user does not exclude, so a list costs O(k) hashes (not ``n``
    random numbers), compiled: as fast as :class:`MostPopular`.

    The score of item ``i`` for user ``u`` is ``(n - r) / n``, where ``r`` is the rank of
    ``i`` in ``u``'s permutation: in ``(0, 1]``, distinct for a user's items (no ties, so
    ``ties=`` never applies), the same whatever is excluded, and given for any pair by
    :meth:`score`. A user's list depends only on the seed, the user's id and the training
    items, never on the other users requested, in any process.

    Parameters
    ----------
    seed : int
        Seed of the permutations (0 to 2**63 - 1).

    Notes
    -----
    Until December 2026 the scores were ``numpy.random.default_rng(seed)`` draws, one row
    of ``n`` per requested user: O(users x items) numbers, and a user's list depended on the
    other users requested. The lists of a given seed differ from those (``CHANGELOG.md``).
    Seed 004's random model (one N(0, 1) score per row) is ``examples/seed004_models.py``.
    """

    def __init__(self, seed: int = 0) -> None:
        self.seed = check_seed(seed)

    def __repr__(self) -> str:
        return f"Random(seed={self.seed!r})"

    def fit(self, train: Any) -> Random:
        """Remember the training items (the candidates)."""
        self._fit_table(train)
        return self

    def _keys(self, users: pd.Index) -> np.ndarray:
        return id_hashes(users, seed_key(self.seed))

    def recommend(self, users: Any, k: int, exclude: Any = None, ties: str = "stable",
                  seed: int | None = None) -> pd.DataFrame:
        """``k`` random items per user (never an excluded pair): ``user_id, item_id, score``.

        ``ties``/``seed`` are checked as for every model but never apply (scores are
        distinct).
        """
        self._require_fitted()
        k = check_k(k)
        check_ties(ties, seed)
        index = requested_users(users, self.users_, "Random")
        n = len(self.items_)
        off, codes = exclusion_csr(exclude, index, self.items_, seen=self._seen(),
                                   model="Random")
        offsets, items, ranks = permuted_top_k(self._keys(index), n, off, codes, k)
        rows = np.repeat(np.arange(len(index)), np.diff(offsets))
        return frame(index, rows, self.items_, items, (n - ranks) / n)

    def score(self, pairs: Any) -> pd.DataFrame:
        """The score ``recommend`` gives each pair, ``(n - rank) / n``, in the order of ``pairs``.

        Items absent from training are an error (Random only ranks training items).
        """
        table, _, items = self._pairs(pairs)
        unknown = items < 0
        if unknown.any():
            bad = list(table.loc[unknown].head(5).itertuples(index=False, name=None))
            raise InvalidParameterError(
                f"Random.score: {int(unknown.sum())} pairs have items absent from training "
                f"(Random ranks training items only), e.g. {bad}", parameter="pairs",
                n_bad=int(unknown.sum()), examples=bad)
        index = requested_users(table["user_id"])
        rows = index.get_indexer(pd.Index(table["user_id"])).astype(np.int64)
        n = len(self.items_)
        ranks = ranks_of(self._keys(index), rows, items.astype(np.int64), n)
        return table.assign(score=(n - ranks) / n)


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
        self._fit_table(train)
        codes = self.item_codes_
        if self.by == "users":
            pair = sorted_unique(self.user_codes_ * len(self.items_) + codes)
            codes = pair % len(self.items_)
        self.counts_ = np.bincount(codes, minlength=len(self.items_)).astype(np.float64)
        self.order_ = np.lexsort((np.arange(len(self.items_)), -self.counts_))
        return self

    def recommend(self, users: Any, k: int, exclude: Any = None, ties: str = "stable",
                  seed: int | None = None) -> pd.DataFrame:
        """The ``k`` most popular allowed items per user: ``user_id, item_id, score``.

        Equal counts: ascending item id (``ties="stable"``) or a seeded random order per user
        (``ties="random"``, O(users x items)).
        """
        self._require_fitted()
        return self._rank_global(users, k, exclude, ties, seed, self.order_, self.counts_)

    def score(self, pairs: Any) -> pd.DataFrame:
        """The item's count for each pair (0 for an item absent from training), pairs order."""
        table, _, items = self._pairs(pairs)
        return table.assign(score=np.where(items >= 0, self.counts_[np.maximum(items, 0)],
                                           0.0))


class _MeanPredictor(Params, FittedIds):
    """Shared by the mean predictors: the global mean and the fallback accounting."""

    mean_: float
    #: Rows of the last ``predict`` that fell back to the global mean, by reason.
    fallbacks_: dict[str, int]

    def _fit_mean(self, train: Any) -> pd.DataFrame:
        table = self._fit_table(train, rating=True)
        self.rating_ = table["rating"].to_numpy(dtype=np.float64)
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

    def _constant_top_k(self, users: Any, k: int, exclude: Any, ties: Any, seed: Any,
                        per_user: np.ndarray | None) -> pd.DataFrame:
        self._require_fitted()
        n = len(self.items_)
        if per_user is None:
            def value(index: pd.Index) -> np.ndarray:
                return np.full(len(index), self.mean_)
        else:
            def value(index: pd.Index) -> np.ndarray:
                return self._by_code(per_user, self.users_.get_indexer(index), "unknown_users")
        return self._rank_global(users, k, exclude, ties, seed, np.arange(n, dtype=np.int64),
                                 np.zeros(n), note=_CONSTANT,
                                 user_value=value)

    def score(self, pairs: Any) -> pd.DataFrame:
        """The ranking score of each pair: its prediction (see ``predict``)."""
        return self.predict(pairs)  # type: ignore[attr-defined, no-any-return]


def _check_shrinkage(value: Any) -> float:
    """A finite number >= 0 (infinity would make every mean mu's NaN: inf / inf)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not 0 <= value < float("inf"):
        raise InvalidParameterError(f"shrinkage must be a finite number >= 0, got {value!r}",
                                    parameter="shrinkage", examples=[value])
    return float(value)


class GlobalMean(_MeanPredictor):
    """Predict every rating as the mean training rating, mu = sum r / n.

    ``recommend`` gives every allowed item the score mu, so lists are in the tie policy's
    order (ascending item id by default) and it warns that they are: a protocol-complete
    floor, not a ranking.
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

    def recommend(self, users: Any, k: int, exclude: Any = None, ties: str = "stable",
                  seed: int | None = None) -> pd.DataFrame:
        """The first ``k`` allowed items in the tie order (item id by default), score mu."""
        return self._constant_top_k(users, k, exclude, ties, seed, None)


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
    ``recommend`` ranks every allowed item equally: lists in the tie policy's order
    (ascending item id by default), with a warning that says so.

    Parameters
    ----------
    shrinkage : float
        beta >= 0.
    """

    _by = "user"

    def recommend(self, users: Any, k: int, exclude: Any = None, ties: str = "stable",
                  seed: int | None = None) -> pd.DataFrame:
        """The first ``k`` allowed items in the tie order, score the user's mean."""
        self._require_fitted()
        return self._constant_top_k(users, k, exclude, ties, seed, self.means_)


class ItemMean(_ShrunkMean):
    """Predict a rating as the item's mean training rating, shrunk towards the global mean.

    r^(u, i) = (sum_{u in U_i} r_ui + beta mu) / (|U_i| + beta), ``beta = shrinkage``. An item
    absent from training gets mu; the number of such rows is in
    ``fallbacks_["unknown_items"]``. ``recommend`` ranks items by that mean (ties: ``ties=``,
    ascending item id by default), leaving out excluded pairs.

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

    def recommend(self, users: Any, k: int, exclude: Any = None, ties: str = "stable",
                  seed: int | None = None) -> pd.DataFrame:
        """The ``k`` allowed items with the highest mean (ties: ``ties=``)."""
        self._require_fitted()
        return self._rank_global(users, k, exclude, ties, seed, self.order_, self.means_)
