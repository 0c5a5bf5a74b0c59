"""What every built-in model shares: the fitted id indexes, argument checks, output tables."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import pandas as pd

from receval.exceptions import InvalidModelError, InvalidParameterError
from receval.models._data import (
    TrainingPairs,
    canonical,
    check_id_kind,
    check_predictions,
    check_query_ids,
    exclusion_csr,
    training_rows,
)
from receval.models._rank import RankedBlock, Scorer, check_ties, top_k_scores, warn_ties
from receval.models._topk import ties_cut_in_walk, top_k_global, top_k_pairs

__all__ = ["FittedIds", "check_k", "frame", "id_codes", "rank_by_predict", "rank_by_scores",
           "requested_users"]


def check_k(k: Any) -> int:
    """``k`` as an int >= 1, or an error naming it."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise InvalidParameterError(f"k must be an integer >= 1 (the length of each list), "
                                    f"got {k!r}", parameter="k", examples=[k])
    return int(k)


#: What ``users=`` may be, for messages and docstrings.
USERS_KINDS = ("one user id, or a one-dimensional collection of ids: a list, tuple, set, "
               "range, numpy array, pandas Series or Index, or any other iterable of ids")


def _not_users(users: Any, what: str) -> InvalidParameterError:
    return InvalidParameterError(
        f"users must be {USERS_KINDS}; got {what}. From a table, pass its user column, e.g. "
        f"test['user_id']", parameter="users", examples=[type(users).__name__])


def requested_users(users: Any, fitted: pd.Index | None = None, model: str = "model"
                    ) -> pd.Index:
    """The distinct requested user ids, ascending (input order when they do not sort).

    ``users`` is one id (a string, a number, ...) or a one-dimensional collection of ids
    (:data:`USERS_KINDS`; a set or a generator is read once, and sorted like the rest).
    A table (a pandas, polars or Arrow DataFrame), an array of two or more dimensions and
    a collection of unhashable values (lists of lists) are an
    :class:`~receval.exceptions.InvalidParameterError` naming ``users``.

    With ``fitted`` (the model's training users), ids of another kind (``'12'`` asked of a
    model fitted on integer ids, or a mix of kinds) are an
    :class:`~receval.exceptions.IdTypeMismatchError` naming ``model``: each would be an
    unknown user, silently given the fallback list.
    """
    if isinstance(users, (str, bytes, np.generic)) or not isinstance(users, Iterable):
        values: Any = [users]
    elif isinstance(users, pd.DataFrame) or hasattr(users, "columns"):  # polars, Arrow, ...
        raise _not_users(users, f"a table ({type(users).__module__}.{type(users).__name__})")
    elif hasattr(users, "__array__"):
        values = np.asarray(users)
        if values.ndim > 1:
            raise _not_users(users, f"an array of shape {values.shape}")
        values = values.reshape(-1)
    else:
        values = list(users)  # a list, tuple, set, range, generator, ...
    try:
        index = pd.Index(pd.unique(pd.Series(values)))
    except TypeError as exc:  # unhashable values: lists of lists, dicts
        raise _not_users(users, f"values that cannot be ids ({exc})") from None
    if index.hasnans:
        raise InvalidParameterError("users holds missing values", parameter="users")
    if fitted is not None:
        check_id_kind(pd.Series(index), fitted, "user", model, "users")
    try:
        return index.sort_values()
    except TypeError:
        return index


class FittedIds:
    """The users and items a model was fitted on, each indexed in ascending id order.

    Subclasses call :meth:`_fit_table` in ``fit`` (an empty ``train`` refused, then
    :meth:`_index`); ``users_`` and ``items_`` are :class:`pandas.Index` objects, and
    ``user_codes_`` / ``item_codes_`` the training rows' positions in them. Before ``fit``,
    every method that needs them raises the same error (:meth:`_require_fitted`).
    """

    users_: pd.Index
    items_: pd.Index
    user_codes_: np.ndarray
    item_codes_: np.ndarray

    @property
    def _label(self) -> str:
        """The model's name in messages."""
        return type(self).__name__

    def _fit_table(self, train: Any, *, rating: bool = False) -> pd.DataFrame:
        """The checked training rows (canonical columns), indexed; an empty train is an error."""
        table = training_rows(train, rating=rating, model=self._label)
        self._index(table)
        return table

    def _index(self, train: pd.DataFrame) -> None:
        self.users_ = pd.Index(np.sort(train["user_id"].unique()))
        self.items_ = pd.Index(np.sort(train["item_id"].unique()))
        self.user_codes_ = self.users_.get_indexer(pd.Index(train["user_id"])).astype(np.int64)
        self.item_codes_ = self.items_.get_indexer(pd.Index(train["item_id"])).astype(np.int64)

    def _seen(self) -> TrainingPairs | None:
        """The training pairs (what ``exclude="seen"`` leaves out); None before ``fit``."""
        if not hasattr(self, "item_codes_"):
            return None
        return TrainingPairs(self.users_, self.items_, self.user_codes_, self.item_codes_)

    def _require_fitted(self) -> None:
        """Every built-in model and adapter, used before ``fit``: one error naming it."""
        if not hasattr(self, "items_"):
            raise InvalidModelError(f"{self._label} is not fitted: call fit(train) first",
                                    parameter="model")

    def _pairs(self, pairs: Any) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
        """The pairs with canonical columns, and their user and item codes (-1: unknown)."""
        self._require_fitted()
        frame = canonical(pairs, name="pairs")[["user_id", "item_id"]]
        check_query_ids(frame, self.users_, self.items_, type(self).__name__)
        return (frame, self.users_.get_indexer(pd.Index(frame["user_id"])),
                self.items_.get_indexer(pd.Index(frame["item_id"])))

    def _rank_global(self, users: Any, k: Any, exclude: Any, ties: Any, seed: Any,
                     order: np.ndarray, value: np.ndarray, *, note: str = "",
                     user_value: Callable[[pd.Index], np.ndarray] | None = None
                     ) -> pd.DataFrame:
        """The top ``k`` of one score per item, the same for every user, excluded left out.

        ``value[c]`` is item code ``c``'s score and ``order`` the item codes by descending
        value, then ascending code. ``ties="stable"``: each user takes the first ``k``
        allowed items of ``order`` (a compiled walk, O(k + |excluded_u|) per user); the
        users whose list was cut inside a run of equal values are counted from the walk.
        ``ties="random"``: every user's row of values goes through
        :func:`~receval.models._rank.top_k_scores` (O(users x items)), each user's tie
        order keyed by a hash of their id. The returned score is ``value`` of the item,
        or ``user_value(users)[row]`` (a model whose score is constant per user).
        """
        self._require_fitted()
        k = check_k(k)
        seed = check_ties(ties, seed)
        index = requested_users(users, self.users_, type(self).__name__)
        n = len(order)
        if ties == "stable":
            position = np.empty(n, dtype=np.int64)
            position[order] = np.arange(n)
            off, pos = exclusion_csr(exclude, index, self.items_, position=position,
                                     seen=self._seen(), model=type(self).__name__)
            offsets, out = top_k_global(order, off, pos, k)
            tied = ties_cut_in_walk(value[order], offsets, out, off, pos, k)
            rows = np.repeat(np.arange(len(index)), np.diff(offsets))
            ranked = RankedBlock(rows, order[out], value[order[out]], int(tied.sum()),
                                 "stable")
        else:
            off, idx = exclusion_csr(exclude, index, self.items_, seen=self._seen(),
                                     model=type(self).__name__)
            ranked = top_k_scores(lambda c: np.broadcast_to(value, (len(c), n)),
                                  id_codes(index), n, k, exclude_indptr=off,
                                  exclude_indices=idx, ties=ties, seed=seed)
        warn_ties(type(self).__name__, ranked, k, note=note)
        score = ranked.scores if user_value is None else user_value(index)[ranked.rows]
        return frame(index, ranked.rows, self.items_, ranked.items, score)


def id_codes(users: pd.Index) -> np.ndarray:
    """A code per user id that depends on the id alone (the key of its random tie order).

    ``pandas.util.hash_array`` (SipHash of the id's value or text under a fixed key): the
    same in any process, and independent of the other users requested.
    """
    return pd.util.hash_array(users.to_numpy()).view(np.int64)


def frame(users: pd.Index, rows: np.ndarray, items: pd.Index, codes: np.ndarray,
          score: np.ndarray) -> pd.DataFrame:
    """The ``user_id, item_id, score`` table of a recommendation."""
    return pd.DataFrame({"user_id": users.take(rows), "item_id": items.take(codes),
                         "score": np.asarray(score, dtype=np.float64)})


def rank_by_scores(model: str, scorer: Scorer, users: pd.Index, codes: np.ndarray,
                   items: pd.Index, k: Any, exclude: Any, ties: Any, seed: Any, *,
                   block_size: Any = None, note: str = "",
                   finish: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
                   seen: TrainingPairs | None = None) -> pd.DataFrame:
    """The ``user_id, item_id, score`` table of a full-catalog ranking by a score function.

    ``users`` are the requested ids (one list each, in this order), ``codes`` their codes
    (what ``scorer`` takes, and the users of the random tie keys), ``items`` the model's
    items in code order. ``exclude`` (a table of pairs, or ``"seen"``: the pairs of
    ``seen``) is left out; ties follow ``ties``
    (:func:`~receval.models._rank.top_k_scores`) and, when the cut at ``k`` splits a
    group of equal scores for some users, a :class:`~receval.exceptions.TiesAtCutoffWarning`
    names ``model``, their number and the policy applied (``note`` is appended).
    ``finish(rows, scores)`` maps the kept scores (``rows``: positions in ``users``) to the
    ones returned (terms that are the same for every item of a user, e.g. a user bias, are
    added after the ranking).
    """
    k = check_k(k)
    off, idx = exclusion_csr(exclude, users, items, seen=seen, model=model)
    ranked = top_k_scores(scorer, codes, len(items), k, exclude_indptr=off,
                          exclude_indices=idx, ties=ties, seed=seed, block_size=block_size)
    warn_ties(model, ranked, k, note=note)
    scores = ranked.scores if finish is None else finish(ranked.rows, ranked.scores)
    return frame(users, ranked.rows, items, ranked.items, scores)


#: ``rank_by_predict`` asks for the predictions of about this many pairs at a time.
PAIRS_PER_CHUNK = 1 << 20


def rank_by_predict(predict: Any, model: str, users: pd.Index, items: pd.Index,
                    excl: tuple[np.ndarray, np.ndarray], k: int) -> pd.DataFrame:
    """Rank every allowed (user, item) pair by a model's predicted rating; keep the top ``k``.

    The candidates of a user are all of ``items`` except the user's excluded codes
    (``excl``, a CSR from :func:`~receval.models._data.exclusion_csr`). ``predict`` is
    called on tables of about 2^20 pairs (``user_id, item_id``), so the cost is
    ``len(users) x len(items)`` predictions; pairs it leaves out are not ranked, and NaN
    predictions are an error naming ``model``. Ties: ascending item id.
    """
    off, codes = excl
    n_items = len(items)
    chunk = max(1, PAIRS_PER_CHUNK // max(n_items, 1))
    parts = [pd.DataFrame({"user_id": users[:0], "item_id": items[:0],
                           "score": np.empty(0)})]
    for start in range(0, len(users), chunk):  # a few chunks, not a loop over users
        stop = min(start + chunk, len(users))
        allowed = np.ones((stop - start, n_items), dtype=bool)
        allowed[np.repeat(np.arange(stop - start), np.diff(off[start:stop + 1])),
                codes[off[start]:off[stop]]] = False
        u, i = np.nonzero(allowed)
        pairs = pd.DataFrame({"user_id": users.take(u + start), "item_id": items.take(i)})
        pred = check_predictions(predict(pairs), pairs, model)
        pu = users.get_indexer(pd.Index(pred["user_id"])).astype(np.int64)
        pi = items.get_indexer(pd.Index(pred["item_id"])).astype(np.int64)
        best = top_k_pairs(pu, pi, pred["score"].to_numpy(dtype=np.float64), k)
        parts.append(pred.iloc[best].reset_index(drop=True))
    return pd.concat(parts, ignore_index=True)
