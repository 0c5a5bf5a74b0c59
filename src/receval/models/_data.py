"""Tables in and out of models: canonical columns, id indexes, exclusion lists, checks.

Models see pandas DataFrames with the canonical column names ``user_id``, ``item_id`` and,
when present, ``rating`` and ``timestamp`` (other columns are kept as they are). The checks
here turn a model that breaks the protocol into a :class:`~receval.RecevalError` naming it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from receval._columns import Columns
from receval.exceptions import DataError, NonFiniteValueError, SchemaError

__all__ = [
    "CANONICAL",
    "ModelOutputError",
    "canonical",
    "check_predictions",
    "check_recommendations",
    "exclusion_csr",
    "interactions",
    "sorted_unique",
]

#: Role -> the column name models see.
CANONICAL = {"user": "user_id", "item": "item_id", "rating": "rating",
             "timestamp": "timestamp"}


class ModelOutputError(DataError):
    """A model returned something the protocol forbids: unknown items, duplicates, NaN."""


def canonical(data: Any, columns: Columns | dict[str, str] | None = None, *,
              name: str = "data") -> pd.DataFrame:
    """``data`` as a pandas DataFrame whose role columns carry the canonical names.

    The user and item columns are required, rating and timestamp optional (found by name or
    alias, or set with ``columns=``); every other column is kept unchanged. The input is
    never modified (a renamed shallow copy is returned).
    """
    from receval.data._adapters import to_frame

    cols = Columns.coerce(columns)
    frame = to_frame(data, "truth")
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


def exclusion_csr(exclude: Any, users: pd.Index, items: pd.Index, *,
                  position: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per requested user, the sorted unique codes of the items to leave out.

    Parameters
    ----------
    exclude : table or None
        (user, item) pairs; pairs of users not requested or items the model does not know
        are irrelevant and ignored.
    users, items : pandas.Index
        The requested users (position = row of the output) and the model's items.
    position : numpy.ndarray, optional
        Map item code -> the value stored (e.g. its position in a global order); default the
        code itself.

    Returns
    -------
    offsets, values : numpy.ndarray of int64
        ``values[offsets[u]:offsets[u + 1]]`` are user ``u``'s excluded codes, ascending.
    """
    n = len(users)
    if exclude is None:
        return np.zeros(n + 1, dtype=np.int64), np.empty(0, dtype=np.int64)
    pairs = canonical(exclude, name="exclude")
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


def check_recommendations(recs: Any, model: str, users: pd.Index, catalog: pd.Index | None,
                          k: int) -> pd.DataFrame:
    """Check a model's ``recommend`` output: known users and items, no duplicates, no NaN.

    Returns the table with canonical column names (``user_id, item_id, score``).
    """
    where = f"model {model!r}: recommend()"
    try:
        frame = canonical(recs, name=where)
        score_col = Columns().require("score", [str(c) for c in frame.columns], table=where)
    except SchemaError as exc:
        raise ModelOutputError(f"{exc}", column=exc.column) from None
    frame = frame.rename(columns={score_col: "score"})[["user_id", "item_id", "score"]]
    scores = pd.to_numeric(frame["score"], errors="coerce").to_numpy(dtype=np.float64,
                                                                      na_value=np.nan)
    checks = [
        (np.isnan(scores), "NaN (or non-numeric) scores"),
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
    one number per row of ``pairs``, in order. NaN predictions are an error.
    """
    where = f"model {model!r}: predict()"
    if isinstance(pred, (np.ndarray, pd.Series, list)):
        values = np.asarray(pred, dtype=np.float64).ravel()
        if len(values) != len(pairs):
            raise ModelOutputError(
                f"{where} returned {len(values)} values for {len(pairs)} pairs; return one "
                f"prediction per pair, in order, or a table user_id, item_id, score",
                parameter="models")
        frame = pairs[["user_id", "item_id"]].assign(score=values)
    else:
        frame = check_recommendations(pred, model, pd.Index(pairs["user_id"].unique()), None,
                                      len(pairs) + 1)
        asked = pd.MultiIndex.from_frame(pairs[["user_id", "item_id"]])
        extra = ~pd.MultiIndex.from_frame(frame[["user_id", "item_id"]]).isin(asked)
        if extra.any():
            raise ModelOutputError(
                f"{where} returned {int(extra.sum())} (user, item) pairs it was not asked "
                f"for, e.g. {_examples(frame, extra)}", parameter="models",
                n_bad=int(extra.sum()), examples=_examples(frame, extra))
    bad = np.isnan(frame["score"].to_numpy(dtype=np.float64))
    if bad.any():
        raise ModelOutputError(
            f"{where} returned {int(bad.sum())} NaN predictions, e.g. (user, item) "
            f"{_examples(frame, bad)}", parameter="models", n_bad=int(bad.sum()),
            examples=_examples(frame, bad))
    return frame
