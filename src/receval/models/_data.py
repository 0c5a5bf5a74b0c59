"""Tables in and out of models: canonical columns, id indexes, exclusion lists, checks.

Models see pandas DataFrames with the canonical column names ``user_id``, ``item_id`` and,
when present, ``rating`` and ``timestamp`` (other columns are kept as they are). The checks
here turn a model that breaks the protocol into a :class:`~receval.RecevalError` naming it.
"""

from __future__ import annotations

import os
import reprlib
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from receval._columns import Columns
from receval.data._encode import id_kind
from receval.exceptions import (
    DataError,
    EmptyInputError,
    IdTypeMismatchError,
    InvalidModelError,
    InvalidParameterError,
    NonFiniteValueError,
    SchemaError,
)

__all__ = [
    "CANONICAL",
    "EXCLUDE_KINDS",
    "ModelOutputError",
    "TrainingPairs",
    "canonical",
    "check_id_kind",
    "check_predictions",
    "check_query_ids",
    "check_recommendations",
    "exclusion_csr",
    "interactions",
    "sorted_unique",
    "training_rows",
]

#: Role -> the column name models see.
CANONICAL = {"user": "user_id", "item": "item_id", "rating": "rating",
             "timestamp": "timestamp"}


class ModelOutputError(InvalidModelError, DataError):
    """A model returned something the protocol forbids; the message names the model.

    An output of the wrong kind (``None``, a list, a 2-D array, a string), non-numeric or
    non-finite scores, ids of another type than the data's, users or pairs not asked for,
    items outside the data, duplicates. An :class:`~receval.InvalidModelError` (the model
    is at fault, not the truth) and a :class:`~receval.DataError`.
    """


def canonical(data: Any, columns: Columns | dict[str, str] | None = None, *,
              name: str = "data") -> pd.DataFrame:
    """``data`` as a pandas DataFrame whose role columns carry the canonical names.

    The user and item columns are required, rating and timestamp optional (found by name or
    alias, or set with ``columns=``); every other column is kept unchanged. The input is
    never modified (a renamed shallow copy is returned).
    """
    from receval.data._adapters import to_frame

    cols = Columns.coerce(columns)
    frame = to_frame(data, "truth", name=name)
    avail = [str(c) for c in frame.columns]
    rename: dict[str, str] = {}
    for role, target in CANONICAL.items():
        found = cols.resolve(role, avail, table=name, required=role in ("user", "item"))
        if found is not None and found != target:
            if target in avail:
                raise SchemaError(
                    f"{name}: the {role} column is {found!r} but the table also has a column "
                    f"{target!r}; rename one of them", column=target, examples=[found, target])
            rename[found] = target
    return frame.rename(columns=rename) if rename else frame


def interactions(data: Any, *, rating: bool, name: str = "train") -> pd.DataFrame:
    """User, item (and rating when ``rating``) columns of ``data``, checked, canonical names.

    Raises
    ------
    ColumnNotFoundError
        No user or item column, or no rating column when ``rating`` is required.
    NonFiniteValueError
        Missing ids, or NaN / infinite ratings.
    """
    frame = canonical(data, name=name)
    keep = ["user_id", "item_id"] + (["rating"] if rating else [])
    if rating and "rating" not in frame.columns:
        Columns().require("rating", [str(c) for c in frame.columns], table=name)
    out = frame[keep]
    for col in keep:
        values = out[col]
        bad = np.flatnonzero(values.isna().to_numpy())
        if col == "rating":
            if not pd.api.types.is_numeric_dtype(values.dtype) or \
                    pd.api.types.is_bool_dtype(values.dtype):
                raise SchemaError(f"{name}: the rating column must be numeric, got dtype "
                                  f"{values.dtype}", column=col)
            bad = np.flatnonzero(~np.isfinite(values.to_numpy(dtype=np.float64,
                                                              na_value=np.nan)))
        if len(bad):
            raise NonFiniteValueError(
                f"{name}: the {col} column has {len(bad)} missing or non-finite values "
                f"(rows {bad[:5].tolist()})", column=col, n_bad=len(bad),
                examples=bad[:5].tolist())
    return out


@dataclass(frozen=True)
class TrainingPairs:
    """The (user, item) pairs a model was fitted on, as codes: what ``exclude="seen"`` means.

    ``users[user_codes[j]]``, ``items[item_codes[j]]`` is training row ``j``'s pair.
    """

    users: pd.Index
    items: pd.Index
    user_codes: np.ndarray
    item_codes: np.ndarray

    @classmethod
    def of(cls, table: pd.DataFrame) -> TrainingPairs:
        """The pairs of a table with canonical ``user_id`` / ``item_id`` columns."""
        u, users = pd.factorize(table["user_id"])
        i, items = pd.factorize(table["item_id"])
        return cls(pd.Index(users), pd.Index(items), u.astype(np.int64), i.astype(np.int64))


#: What ``exclude`` may be, for messages.
EXCLUDE_KINDS = ("a table of (user, item) pairs (or the path of one), None, or 'seen' (the "
                 "pairs given to fit)")


def training_rows(train: Any, *, rating: bool, model: str) -> pd.DataFrame:
    """:func:`interactions` of ``train`` for ``model.fit``; an empty ``train`` is an error.

    Raises
    ------
    EmptyInputError
        ``train`` has no row: naming ``train`` and ``model`` (every model refuses it, rather
        than fitting nothing and failing later, or answering from no data).
    """
    table = interactions(train, rating=rating, name="train")
    if not len(table):
        raise EmptyInputError(f"{model}: train is empty (no rows): there is nothing to fit on",
                              parameter="train")
    return table


def exclusion_csr(exclude: Any, users: pd.Index, items: pd.Index, *,
                  position: np.ndarray | None = None, seen: TrainingPairs | None = None,
                  model: str = "model") -> tuple[np.ndarray, np.ndarray]:
    """Per requested user, the sorted unique codes of the items to leave out.

    Parameters
    ----------
    exclude : table, path, "seen" or None
        (user, item) pairs; pairs of users not requested or items the model does not know
        are irrelevant and ignored. ``"seen"``: the pairs of ``seen``. Ids of another type
        than ``users`` / ``items`` (``'12'`` for user ``12``) are an
        :class:`~receval.exceptions.IdTypeMismatchError` naming ``model`` and ``exclude``:
        they would never match, and exclude nothing, silently.
    users, items : pandas.Index
        The requested users (position = row of the output) and the model's items.
    position : numpy.ndarray, optional
        Map item code -> the value stored (e.g. its position in a global order); default the
        code itself.
    seen : TrainingPairs, optional
        The model's training pairs (``None``: the model records none, and ``"seen"`` is an
        error naming ``model``).
    model : str
        The model's name, for messages.

    Returns
    -------
    offsets, values : numpy.ndarray of int64
        ``values[offsets[u]:offsets[u + 1]]`` are user ``u``'s excluded codes, ascending.
    """
    n = len(users)
    if exclude is None:
        return np.zeros(n + 1, dtype=np.int64), np.empty(0, dtype=np.int64)
    if isinstance(exclude, str) and exclude == "seen":
        if seen is None:
            raise InvalidParameterError(
                f"{model}: exclude='seen' needs fit(train) first (fit records the pairs it "
                f"leaves out)", parameter="exclude", examples=[exclude])
        u = users.get_indexer(seen.users)[seen.user_codes]
        i = seen.item_codes if seen.items is items else \
            items.get_indexer(seen.items)[seen.item_codes]
    else:
        if isinstance(exclude, (str, os.PathLike)) and not os.path.exists(exclude):
            raise InvalidParameterError(
                f"{model}: exclude must be {EXCLUDE_KINDS}; got {exclude!r}, which is no "
                f"file either", parameter="exclude", examples=[exclude])
        pairs = canonical(exclude, name="exclude")
        for role, known in (("user", users), ("item", items)):
            check_id_kind(pairs[f"{role}_id"], known, role, model, "exclude")
        u = users.get_indexer(pd.Index(pairs["user_id"]))
        i = items.get_indexer(pd.Index(pairs["item_id"]))
    ok = (u >= 0) & (i >= 0)
    u, i = u[ok].astype(np.int64), i[ok].astype(np.int64)
    if position is not None:
        i = position[i].astype(np.int64)
    key = sorted_unique(u * max(len(items), 1) + i)  # sorted by user, then value
    u, i = key // max(len(items), 1), key % max(len(items), 1)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(u, minlength=n), out=offsets[1:])
    return offsets, i


def sorted_unique(values: np.ndarray) -> np.ndarray:
    """The distinct values, ascending: a sort and a comparison of neighbours.

    (``numpy.unique`` of numpy 2.3+ hashes integers first, several times slower on arrays of
    millions of int64 keys.)
    """
    out = np.sort(values)
    return out[np.r_[True, out[1:] != out[:-1]]] if len(out) else out


def _examples(frame: pd.DataFrame, mask: np.ndarray) -> list[Any]:
    rows = frame.loc[mask, ["user_id", "item_id"]].head(5)
    return list(rows.itertuples(index=False, name=None))


def _kind_of(value: Any) -> str:
    """What an output is, for messages: ``None``, ``a list``, ``a 2-D numpy array``, ..."""
    if value is None:
        return "None"
    if isinstance(value, np.ndarray):
        return f"a {value.ndim}-D numpy array of shape {value.shape}"
    return f"a {type(value).__name__} ({reprlib.repr(value)})"


def _is_table(value: Any) -> bool:
    if isinstance(value, pd.DataFrame) or hasattr(value, "__arrow_c_stream__"):
        return True
    return type(value).__module__.split(".")[0] in ("polars", "pyarrow") and \
        hasattr(value, "columns")


def _table(out: Any, where: str) -> pd.DataFrame:
    """The model's output as a canonical table ``user_id, item_id, score``, or an error."""
    if not _is_table(out):
        raise ModelOutputError(
            f"{where} returned {_kind_of(out)}; it must return a table (a pandas or polars "
            f"DataFrame, a pyarrow Table) with columns user_id, item_id, score",
            parameter="models")
    try:
        frame = canonical(out, name=where)
        score_col = Columns().resolve("score", [str(c) for c in frame.columns], table=where,
                                      required=False)
    except SchemaError as exc:
        raise ModelOutputError(f"{exc}", column=exc.column, parameter="models") from None
    if score_col is None:  # columns= names the data's columns, not a model's: no hint of it
        raise ModelOutputError(
            f"{where} returned no score column: its columns are "
            f"{[str(c) for c in frame.columns]}; return the scores in a column named "
            f"'score'", column="score", parameter="models")
    return frame.rename(columns={score_col: "score"})[["user_id", "item_id", "score"]]


def _scores(values: Any, where: str, frame: pd.DataFrame | None,
            noun: str = "scores") -> np.ndarray:
    """Finite float scores, or an error: strings, booleans, NaN and infinities refused."""
    series = pd.Series(values) if not isinstance(values, pd.Series) else values
    if not pd.api.types.is_numeric_dtype(series.dtype) or \
            pd.api.types.is_bool_dtype(series.dtype):
        shown = reprlib.repr(series.head(3).tolist())
        raise ModelOutputError(
            f"{where} returned {noun} of dtype {series.dtype} (e.g. {shown}); {noun} must be "
            f"numbers", parameter="models", column="score")
    scores = series.to_numpy(dtype=np.float64, na_value=np.nan)
    bad = ~np.isfinite(scores)
    if bad.any():
        what = "NaN" if np.isnan(scores[bad]).all() else "NaN or infinite"
        keys = [] if frame is None else _examples(frame, bad)
        raise ModelOutputError(
            f"{where} returned {int(bad.sum())} {what} {noun}"
            + (f", e.g. (user, item) {keys}" if keys else
               f", e.g. at positions {np.flatnonzero(bad)[:5].tolist()}"),
            parameter="models", n_bad=int(bad.sum()), examples=keys)
    return scores


def _check_ids(frame: pd.DataFrame, where: str, role: str, reference: pd.Index | None) -> None:
    """The output's ``role`` ids must be of the data's kind (int vs str ...), never cast."""
    if reference is None or not len(reference) or not len(frame):
        return
    col = f"{role}_id"
    mine, theirs = id_kind(frame[col].iloc[:10_000]), id_kind(pd.Series(reference[:10_000]))
    if mine != theirs:
        raise ModelOutputError(
            f"{where} returned {role} ids of type {mine} ({frame[col].dtype}, e.g. "
            f"{frame[col].head(3).tolist()}) while the data's {role} ids are {theirs} "
            f"({reference.dtype}, e.g. {list(reference[:3])}); return the ids as they are in "
            f"the data (they are compared exactly, never cast)", parameter="models",
            column=col, examples=frame[col].head(5).tolist())


def check_recommendations(recs: Any, model: str, users: pd.Index, catalog: pd.Index | None,
                          k: int, *, method: str = "recommend()") -> pd.DataFrame:
    """Check a model's ``recommend`` output: a table of known users and items, no duplicates.

    Scores must be finite numbers, ids of the data's type; returns the table with
    canonical column names (``user_id, item_id, score``). Every failure is a
    :class:`ModelOutputError` naming ``model`` and ``method``.
    """
    where = f"model {model!r}: {method}"
    frame = _table(recs, where)
    _check_ids(frame, where, "user", users)
    _check_ids(frame, where, "item", catalog)
    scores = _scores(frame["score"], where, frame)
    checks = [
        (users.get_indexer(pd.Index(frame["user_id"])) < 0,
         "rows for users that were not asked for"),
        (frame.duplicated(["user_id", "item_id"]).to_numpy(), "duplicate (user, item) rows"),
    ]
    if catalog is not None:
        checks.append((catalog.get_indexer(pd.Index(frame["item_id"])) < 0,
                       "items that are not in the data"))
    for mask, what in checks:
        if mask.any():
            raise ModelOutputError(
                f"{where} returned {int(mask.sum())} {what}, e.g. (user, item) "
                f"{_examples(frame, mask)}", parameter="models", n_bad=int(mask.sum()),
                examples=_examples(frame, mask))
    sizes = frame.groupby("user_id", sort=False).size()
    if (sizes > k).any():
        over = sizes[sizes > k]
        raise ModelOutputError(
            f"{where} returned more than k={k} items for {len(over)} users, e.g. "
            f"{over.index[:5].tolist()}", parameter="models", n_bad=len(over),
            examples=over.index[:5].tolist())
    return frame.assign(score=scores)


def check_predictions(pred: Any, pairs: pd.DataFrame, model: str) -> pd.DataFrame:
    """Check a model's ``predict`` output against the pairs it was asked for.

    ``pred`` is a table with user, item and score (its pairs must be among those asked for,
    each once; pairs it leaves out are missing predictions for ``evaluate`` to handle), or
    one number per row of ``pairs``, in order (a 1-D array, Series or list). Anything else
    (``None``, a 2-D array, a string, a number), non-numeric or non-finite predictions, and
    ids of another type than the pairs' are a :class:`ModelOutputError` naming ``model``.
    """
    where = f"model {model!r}: predict()"
    if isinstance(pred, (np.ndarray, pd.Series, list, tuple)):
        array = pred if isinstance(pred, (np.ndarray, pd.Series)) else np.asarray(pred)
        if array.ndim != 1:
            raise ModelOutputError(
                f"{where} returned {_kind_of(array)}; return one prediction per pair (a 1-D "
                f"array of {len(pairs)} numbers, in the order of the pairs) or a table "
                f"user_id, item_id, score", parameter="models")
        if len(array) != len(pairs):
            raise ModelOutputError(
                f"{where} returned {len(array)} values for {len(pairs)} pairs; return one "
                f"prediction per pair, in order, or a table user_id, item_id, score",
                parameter="models")
        values = _scores(np.asarray(array) if not isinstance(array, pd.Series)
                         else array.reset_index(drop=True), where, pairs, "predictions")
        return pairs[["user_id", "item_id"]].assign(score=values)
    frame = _table(pred, where)
    users = pd.Index(pairs["user_id"].unique())
    _check_ids(frame, where, "user", users)
    _check_ids(frame, where, "item", pd.Index(pairs["item_id"].unique()))
    scores = _scores(frame["score"], where, frame, "predictions")
    asked = pd.MultiIndex.from_frame(pairs[["user_id", "item_id"]])
    checks = [(~pd.MultiIndex.from_frame(frame[["user_id", "item_id"]]).isin(asked),
               "(user, item) pairs it was not asked for"),
              (frame.duplicated(["user_id", "item_id"]).to_numpy(),
               "duplicate (user, item) rows")]
    for mask, what in checks:
        if mask.any():
            raise ModelOutputError(
                f"{where} returned {int(mask.sum())} {what}, e.g. {_examples(frame, mask)}",
                parameter="models", n_bad=int(mask.sum()), examples=_examples(frame, mask))
    return frame.assign(score=scores)


def check_query_ids(pairs: pd.DataFrame, users: pd.Index, items: pd.Index, model: str) -> None:
    """The ids a fitted model is asked about must be of the kind it was fitted on.

    ``'12'`` is not user ``12``: asked about string ids after fitting on integers, a model
    would find every pair unknown and answer its fallback (the global mean) for all of them.
    An :class:`~receval.exceptions.IdTypeMismatchError` naming both kinds instead.
    """
    for role, fitted in (("user", users), ("item", items)):
        check_id_kind(pairs[f"{role}_id"], fitted, role, model, "pairs")


def check_id_kind(ids: pd.Series, fitted: pd.Index, role: str, model: str,
                  parameter: str) -> None:
    """``ids`` (asked about, in ``parameter``) are of the kind of the ``fitted`` ids, or an error.

    The kinds are :func:`~receval.data._encode.id_kind`'s (of the first 10,000 of each);
    mixed kinds among the asked ids never match.
    """
    if not len(fitted) or not len(ids):
        return
    asked, known = id_kind(ids.iloc[:10_000]), id_kind(pd.Series(fitted[:10_000]))
    if asked != known:
        raise IdTypeMismatchError(
            f"{model}: asked about {role} ids of type {asked} in {parameter} ({ids.dtype}, "
            f"e.g. {ids.head(3).tolist()}) but fitted on {role} ids of type {known} "
            f"({fitted.dtype}, e.g. {list(fitted[:3])}); ids are compared exactly, never "
            f"cast, so ids of another type never match a fitted one. Convert the ids of one "
            f"side",
            column=f"{role}_id", parameter=parameter,
            examples=list(pd.unique(ids.iloc[:10_000]))[:5])
