"""``negatives``: for each test row, ``n`` items its user never touched, drawn from a seed."""

from __future__ import annotations

import numbers
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from receval._columns import Columns
from receval._kernels.sampling import accept_draws
from receval._seeds import check_seed
from receval.data._encode import id_kind
from receval.data._table import _ids, _ids_of
from receval.exceptions import (
    DataError,
    DuplicateRowError,
    IdTypeMismatchError,
    InvalidParameterError,
    format_examples,
)

__all__ = ["ATTRS_KEY", "STRATEGIES", "negatives"]

STRATEGIES = ("uniform", "popularity")
#: ``DataFrame.attrs`` key under which ``negatives`` records how it sampled.
ATTRS_KEY = "receval_sampled"
_CHUNK = 1 << 16  # lists sampled per batch of draws (a constant: part of reproducibility)
_MAX_BUDGET = 1 << 22  # draws per list per batch, at most


@dataclass(frozen=True)
class _Pairs:
    """The user and item ids of one table and their column names."""

    user: pd.Series
    item: pd.Series
    user_col: str
    item_col: str


def read_pairs(data: Any, name: str, columns: Columns) -> _Pairs:
    """Read the user and item columns of any table receval reads."""
    frame, _, ucol, icol = _ids_of(data, name, columns)
    return _Pairs(_ids(frame, ucol, name, "user"), _ids(frame, icol, name, "item"),
                  ucol, icol)


def _same_kind(ids: pd.Series, ref: str, what: str, column: str) -> None:
    kind = id_kind(ids) if len(ids) else ref
    if kind != ref:
        raise IdTypeMismatchError(
            f"{what} ids in column {column!r} are {kind} (dtype {ids.dtype}) while the test "
            f"item ids are {ref}; ids are compared exactly and never cast: convert one side "
            f"first", column=column, examples=[str(ids.dtype)])


def _catalog(items: Iterable[Any] | None, test: _Pairs, train: _Pairs | None) -> pd.Index:
    """The catalog: sorted distinct ids (its order gives the codes, the same in any process)."""
    kind = id_kind(test.item)
    if items is None:
        parts = [test.item] + ([train.item] if train is not None else [])
        cat = pd.Index(pd.concat(parts, ignore_index=True).unique())
    else:
        if isinstance(items, (str, bytes)) or not isinstance(items, Iterable):
            raise InvalidParameterError(
                f"items must be a collection of item ids (list, array, Series, Index), got "
                f"{type(items).__name__}", parameter="items")
        cat = pd.Index(items if isinstance(items, (pd.Series, pd.Index, np.ndarray))
                       else list(items)).unique()
        _same_kind(pd.Series(cat), kind, "items=", "items")
        if cat.hasnans:
            raise DataError("items holds missing ids (None / NaN)", parameter="items")
    if train is not None:
        _same_kind(train.item, kind, "exclude", train.item_col)
    return cat.sort_values()


def _codes(index: pd.Index, ids: pd.Series) -> np.ndarray:
    return np.asarray(index.get_indexer(pd.Index(ids)), dtype=np.int64)


def _touched(test_u: np.ndarray, test_i: np.ndarray, train_u: np.ndarray,
             train_i: np.ndarray, n_users: int, n_items: int
             ) -> tuple[np.ndarray, np.ndarray]:
    """Each test user's touched catalog items, sorted: CSR offsets and item codes."""
    keep = (train_u >= 0) & (train_i >= 0)
    keys = np.sort(np.concatenate([test_u * n_items + test_i,
                                   train_u[keep] * n_items + train_i[keep]]))
    keys = keys[np.concatenate([[True], keys[1:] != keys[:-1]])] if len(keys) else keys
    off = np.zeros(n_users + 1, dtype=np.int64)
    np.cumsum(np.bincount(keys // n_items, minlength=n_users), out=off[1:])
    return off, keys % n_items


def _duplicates(users: np.ndarray, items: np.ndarray, n_items: int, test: _Pairs) -> None:
    keys = users * n_items + items
    uniq, counts = np.unique(keys, return_counts=True)
    if len(uniq) < len(keys):
        dup = uniq[counts > 1]
        ex = [(test.user.iloc[int(np.flatnonzero(keys == k)[0])],
               test.item.iloc[int(np.flatnonzero(keys == k)[0])]) for k in dup[:5]]
        raise DuplicateRowError(
            f"test repeats {len(dup)} (user, item) pairs, e.g. {format_examples(ex, len(dup))}: "
            f"each test row becomes one list with its item as the positive; drop the "
            f"repeats first", parameter="test", n_bad=len(dup), examples=ex)


def _check_room(n: int, off: np.ndarray, t_items: np.ndarray, weights: np.ndarray | None,
                user_index: pd.Index, n_items: int) -> np.ndarray:
    """Weight the untouched items of each user carry; an error if fewer than n items."""
    if weights is None:
        free_items = n_items - np.diff(off)
        free_weight = free_items.astype(np.float64)
    else:
        positive = (weights > 0).astype(np.int64)
        cum_pos = np.concatenate([[0], np.cumsum(positive[t_items])])
        cum_w = np.concatenate([[0], np.cumsum(weights[t_items])])
        free_items = int(positive.sum()) - (cum_pos[off[1:]] - cum_pos[off[:-1]])
        free_weight = float(weights.sum()) - (cum_w[off[1:]] - cum_w[off[:-1]])
    short = np.flatnonzero(free_items < n)
    if len(short):
        ex = user_index[short[:5]].tolist()
        left = ", ".join(f"{u!r}: {int(free_items[i])}" for u, i in zip(ex, short, strict=False))
        what = "untouched items" if weights is None else \
            "untouched items with a popularity above 0"
        raise DataError(
            f"n={n} negatives are asked for, but {len(short)} users have fewer {what} "
            f"(user: items left = {left}); lower n, widen items=, or drop those users",
            parameter="n", n_bad=len(short), examples=ex)
    return np.asarray(free_weight, dtype=np.float64)


def _draw(rng: np.random.Generator, list_user: np.ndarray, off: np.ndarray,
          t_items: np.ndarray, n: int, n_items: int, cum: np.ndarray | None,
          free_weight: np.ndarray) -> np.ndarray:
    """``n`` distinct untouched item codes per list, by batches of rejection sampling."""
    n_lists = len(list_user)
    out = np.empty((n_lists, n), dtype=np.int64)
    filled = np.zeros(n_lists, dtype=np.int64)
    stamp = np.full(n_items, -1, dtype=np.int64)
    total = n_items if cum is None else int(cum[-1])
    for start in range(0, n_lists, _CHUNK):
        todo = np.arange(start, min(n_lists, start + _CHUNK), dtype=np.int64)
        while len(todo):
            need = (n - filled[todo]).astype(np.float64)
            ratio = total / free_weight[list_user[todo]]
            budget = np.minimum(np.ceil(need * ratio * 1.25) + 8, _MAX_BUDGET).astype(np.int64)
            d_off = np.concatenate([[0], np.cumsum(budget)])
            draws = rng.integers(0, total, size=int(d_off[-1]), dtype=np.int64)
            if cum is not None:
                draws = np.searchsorted(cum, draws, side="right").astype(np.int64)
            accept_draws(todo, list_user, off, t_items, draws, d_off, n, stamp, out, filled)
            todo = todo[filled[todo] < n]
    return out


def negatives(test: Any, n: int = 99, *, items: Iterable[Any] | None = None,
              exclude: Any = None, strategy: str = "uniform", seed: int = 0,
              columns: Columns | dict[str, str] | None = None) -> pd.DataFrame:
    """Sample ``n`` negatives for every test row: the candidates of sampled evaluation.

    Each row of ``test`` becomes one list: its item (the positive, the presumed "hit") and
    ``n`` items its user never touched, drawn without replacement (seed 003's "one hit
    among many presumed misses"; He et al. 2017's leave-one-out protocol with ``n=99``).

    Parameters
    ----------
    test : table
        The held-out rows: user and item columns (any table :func:`receval.evaluate`
        reads). A (user, item) pair may appear once.
    n : int
        Negatives per list, ``>= 1``.
    items : collection, optional
        The catalog to draw from. By default every item of ``test`` and ``exclude``
        (items nobody interacted with can then never be drawn). Test items must be in it;
        ``exclude`` items outside it are ignored.
    exclude : table, optional
        The training rows (user, item). A user's items in ``exclude`` or in ``test`` are
        never drawn for that user. For ``strategy='popularity'`` it also gives the
        popularity: an item's number of rows in ``exclude``.
    strategy : {"uniform", "popularity"}
        ``uniform``: every untouched catalog item equally likely. ``popularity``: drawn
        proportionally to its row count in ``exclude``, renormalised over the items still
        allowed after each pick (successive sampling); items without a row in ``exclude``
        are never drawn.
    seed : int
        The only source of randomness, through :func:`numpy.random.default_rng`; item codes
        follow the sorted ids, so the same seed and inputs give the same rows in any process
        (no Python string hashing).
    columns : Columns or dict, optional
        The user and item column names of ``test`` and ``exclude``, if not the defaults.

    Returns
    -------
    pandas.DataFrame
        ``n + 1`` rows per test row, list after list in test order: the test table's user
        and item columns (``user_id``, ``item_id`` by default) and ``positive`` (bool, one
        True per list). The positive sits at a uniformly drawn place among its list's rows,
        so the input order (``ties='stable'``) breaks score ties at random, not in its
        favour. When some user has several test rows, a ``list_id`` column (the test row's
        position, 0-based) tells the lists apart; :func:`receval.sampled.evaluate` then
        ranks each list on its own. ``frame.attrs['receval_sampled']`` records the strategy,
        ``n``, the seed and the catalog size.

    Raises
    ------
    InvalidParameterError
        ``n < 1``, an unknown ``strategy``, a bad seed, popularity without ``exclude``.
    DataError
        A user with fewer untouched items than ``n`` (the error names them), test items
        outside ``items``, repeated test pairs.

    Examples
    --------
    >>> import pandas as pd
    >>> import receval as rv
    >>> test = pd.DataFrame({"user_id": [1, 2], "item_id": ["a", "b"]})
    >>> cand = rv.sampled.negatives(test, n=2, items=list("abcde"), seed=0)
    >>> cand.groupby("user_id")["positive"].agg(["size", "sum"]).to_dict("list")
    {'size': [3, 3], 'sum': [1, 1]}
    """
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
        raise InvalidParameterError(f"n (negatives per test row) must be an integer >= 1, "
                                    f"got {n!r}", parameter="n", examples=[n])
    if strategy not in STRATEGIES:
        raise InvalidParameterError(
            f"strategy must be one of {', '.join(map(repr, STRATEGIES))}; got {strategy!r}",
            parameter="strategy", examples=[strategy])
    if strategy == "popularity" and exclude is None:
        raise InvalidParameterError(
            "strategy='popularity' draws items by their number of training rows: pass the "
            "training rows as exclude=", parameter="exclude")
    n, seed = int(n), check_seed(seed)
    cols = Columns.coerce(columns)
    tp = read_pairs(test, "test", cols)
    if len(tp.user) == 0:
        raise DataError("test is empty: there is no positive to sample negatives for",
                        parameter="test")
    xp = read_pairs(exclude, "exclude", cols) if exclude is not None else None
    catalog = _catalog(items, tp, xp)
    user_index = pd.Index(tp.user.unique()).sort_values()
    if xp is not None and len(xp.user):
        _same_kind(xp.user, id_kind(tp.user), "exclude user", xp.user_col)
    test_u, test_i = _codes(user_index, tp.user), _codes(catalog, tp.item)
    if (test_i < 0).any():
        bad = np.flatnonzero(test_i < 0)
        missing = pd.unique(tp.item.iloc[bad])
        ex = list(missing[:5])
        raise DataError(f"{len(missing)} test items ({len(bad)} test rows) are not in "
                        f"items=, e.g. {format_examples(ex, len(missing))}; the catalog must "
                        f"hold every positive", parameter="items", n_bad=len(missing),
                        examples=ex)
    n_items = len(catalog)
    _duplicates(test_u, test_i, n_items, tp)
    train_u = _codes(user_index, xp.user) if xp is not None else np.empty(0, np.int64)
    train_i = _codes(catalog, xp.item) if xp is not None else np.empty(0, np.int64)
    off, t_items = _touched(test_u, test_i, train_u, train_i, len(user_index), n_items)
    weights = cum = None
    if strategy == "popularity":
        known = train_i[train_i >= 0]
        weights = np.bincount(known, minlength=n_items).astype(np.int64)
        cum = np.cumsum(weights)
    free = _check_room(n, off, t_items, weights, user_index, n_items)
    rng = np.random.default_rng(seed)
    neg = _draw(rng, test_u, off, t_items, n, n_items, cum, free)
    return _frame(tp, catalog, test_i, neg, rng.integers(0, n + 1, size=len(test_u)),
                  {"strategy": strategy, "n": n, "seed": seed, "n_items": n_items})


def _frame(tp: _Pairs, catalog: pd.Index, test_i: np.ndarray, neg: np.ndarray,
           place: np.ndarray, record: dict[str, Any]) -> pd.DataFrame:
    """The candidate table: each list's positive at its drawn place among its negatives."""
    n_lists, n = neg.shape
    at = np.arange(n + 1)[None, :] == place[:, None]
    codes = np.empty((n_lists, n + 1), dtype=np.int64)
    codes[at] = test_i
    codes[~at] = neg.ravel()
    rows = np.repeat(np.arange(n_lists), n + 1)
    data: dict[str, Any] = {
        tp.user_col: tp.user.take(rows).reset_index(drop=True),
        tp.item_col: pd.Series(catalog.take(codes.ravel())),
        "positive": at.ravel(),
    }
    if tp.user.duplicated().any():
        data["list_id"] = rows
    frame = pd.DataFrame(data)
    frame.attrs[ATTRS_KEY] = record
    return frame
