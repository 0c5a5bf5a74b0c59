"""Side inputs: ``train=``, ``item_features=`` and the group and propensity tables, read once.

:func:`prepare_side` reads both tables once (in memory, over Parquet buckets and on Spark
alike: Spark ships the prepared arrays, never the tables) into a :class:`SideInputs` of
plain arrays over one item index: training popularity, the user x item training matrix and
the feature matrix. Each partition then maps its own item codes onto that index
(``receval._engine._families._side``), which costs a lookup, not a second read. The group
and propensity tables (``item_groups=``, ``user_groups=``, ``propensities=``) are read by
:mod:`receval.data._groups` into arrays over their own ids, in the same single pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from receval._columns import Columns
from receval.data._encode import cast_ids, id_kind
from receval.data._groups import Groups, Propensities, read_groups, read_propensities
from receval.data._table import _as_frame, _ids, _ids_of
from receval.exceptions import (
    DataError,
    EmptyInputError,
    IdTypeMismatchError,
    InvalidParameterError,
    NonFiniteValueError,
    format_examples,
)

__all__ = ["Features", "SideInputs", "check_id_kind", "prepare_side", "read_features",
           "train_ids"]


def train_ids(data: Any, columns: Columns, id_cast: str | None = None
              ) -> tuple[pd.Series, pd.Series]:
    """The user and item ids of the training interactions (any form receval reads)."""
    frame, _, ucol, icol = _ids_of(data, "train", columns)
    user = cast_ids(_ids(frame, ucol, "train", "user"), id_cast, role="user", table="train",
                    column=ucol)
    item = cast_ids(_ids(frame, icol, "train", "item"), id_cast, role="item", table="train",
                    column=icol)
    return user, item


@dataclass(frozen=True)
class Features:
    """Item ids and one numeric row per item."""

    items: pd.Index
    matrix: np.ndarray
    form: str
    column: str = ""


def _vector_matrix(frame: pd.DataFrame, col: str) -> np.ndarray:
    values = frame[col].tolist()
    try:
        lengths = {len(v) for v in values}
    except TypeError:
        raise InvalidParameterError(
            f"item_features: column {col!r} must hold vectors (lists or arrays)",
            parameter="item_features") from None
    if len(lengths) > 1:
        raise DataError(f"item_features: the vectors in {col!r} have different lengths "
                        f"{sorted(lengths)[:5]}", parameter="item_features")
    try:
        return np.asarray([np.asarray(v, dtype=np.float64) for v in values],
                          dtype=np.float64).reshape(len(values), -1)
    except (TypeError, ValueError):
        raise DataError(f"item_features: the vectors in {col!r} are not numeric",
                        parameter="item_features") from None


def _is_listlike(value: Any) -> bool:
    return isinstance(value, (list, tuple, np.ndarray))


def _category_rows(items: pd.Series, values: pd.Series, col: str, sep: str | None
                   ) -> tuple[pd.Series, pd.Series]:
    """(item, category) pairs of a categorical feature column, multi-valued cells split.

    A cell holds one category, a list of them, or (text) several joined by ``sep`` (e.g.
    MovieLens genres ``"Action|Adventure"``). A missing cell is an error: it would
    otherwise become a category of its own, shared by every item with a missing value.
    """
    missing = values.isna().to_numpy() if not values.map(_is_listlike).any() else \
        values.map(lambda v: not _is_listlike(v) and pd.isna(v)).to_numpy()
    if missing.any():
        rows = np.flatnonzero(missing)
        ex = items.iloc[rows[:5]].tolist()
        raise NonFiniteValueError(
            f"item_features: the feature column {col!r} has {len(rows)} missing values "
            f"(items {format_examples(ex, len(rows))}); drop those rows, or give the items "
            f"a category such as 'unknown'", column=col, n_bad=len(rows), examples=ex)
    if values.map(_is_listlike).any():
        cells = values.map(lambda v: list(v) if _is_listlike(v) else [v])
    elif sep is not None:
        cells = values.astype(str).str.split(sep, regex=False)
    else:
        return items, values.astype(str)
    lengths = cells.map(len).to_numpy()
    flat = pd.Series([str(c).strip() for cell in cells for c in cell], dtype=object)
    out_items = items.iloc[np.repeat(np.arange(len(items)), lengths)].reset_index(drop=True)
    empty = (flat == "").to_numpy()
    if empty.any():
        ex = out_items[empty].unique()[:5].tolist()
        raise DataError(
            f"item_features: the feature column {col!r} has empty categories after splitting "
            f"on {sep!r} (items {format_examples(ex, int(empty.sum()))}), e.g. 'a||b' or a "
            f"trailing separator", column=col, n_bad=int(empty.sum()), examples=ex)
    return out_items, flat


def read_features(data: Any, columns: Columns, *, sep: str | None = "|",
                  id_cast: str | None = None) -> Features:
    """Read ``item_features``: wide (item + numeric columns), long (item, category), vector.

    A long table (exactly one non-item column holding text, categories or lists of them)
    becomes 0/1 columns, one per distinct category; text cells holding ``sep`` (default
    ``"|"``, MovieLens genres) are split into several categories, and an item may take
    several rows. A single column of numeric lists/arrays is a vector column.
    """
    frame = _as_frame(data, "item_features")
    avail = [str(c) for c in frame.columns]
    icol = columns.require("item", avail, table="item_features")
    rest = [c for c in frame.columns if str(c) != icol]
    if not rest:
        raise InvalidParameterError("item_features has no feature column besides the item "
                                    f"column {icol!r}", parameter="item_features")
    if len(frame) == 0:
        raise EmptyInputError("item_features is empty: it has no item", parameter="item_features")
    items = cast_ids(_ids(frame, icol, "item_features", "item"), id_cast, role="item",
                     table="item_features", column=icol)
    first = frame[rest[0]].reset_index(drop=True)
    numeric_lists = (len(rest) == 1 and first.dtype == object and len(first)
                     and _is_listlike(first.iloc[0])
                     and all(pd.api.types.is_number(x) for x in np.ravel(first.iloc[0])[:1]))
    if numeric_lists:
        form, matrix = "vector", _vector_matrix(frame, rest[0])
    elif len(rest) == 1 and not pd.api.types.is_numeric_dtype(first):
        pair_items, cats = _category_rows(items, first, str(rest[0]), sep)
        codes_i, uniq_i = pd.factorize(pair_items, sort=True)
        codes_f, uniq_f = pd.factorize(cats, sort=True)
        matrix = np.zeros((len(uniq_i), len(uniq_f)))
        matrix[codes_i, codes_f] = 1.0
        return Features(pd.Index(uniq_i), matrix, "long", str(rest[0]))
    else:
        form = "wide"
        bad = [str(c) for c in rest if not pd.api.types.is_numeric_dtype(frame[c])]
        if bad:
            raise DataError(f"item_features: wide feature columns must be numeric; "
                            f"{format_examples(bad, len(bad))} are not",
                            parameter="item_features", examples=bad[:5])
        matrix = frame[rest].to_numpy(dtype=np.float64, na_value=np.nan)
    if not np.isfinite(matrix).all():
        rows = np.flatnonzero(~np.isfinite(matrix).all(axis=1))
        ex = items.iloc[rows[:5]].tolist()
        raise DataError(f"item_features: {len(rows)} items have missing or infinite feature "
                        f"values (e.g. {format_examples(ex, len(rows))})",
                        parameter="item_features", n_bad=len(rows), examples=ex)
    if items.duplicated().any():
        dup = items[items.duplicated()].unique()[:5].tolist()
        raise DataError(f"item_features: items repeated in a wide or vector table (e.g. "
                        f"{format_examples(dup, len(dup))})", parameter="item_features",
                        examples=dup)
    return Features(pd.Index(items), matrix, form, str(rest[0]) if len(rest) == 1 else "")


def check_id_kind(reference: pd.Index, other: pd.Index | pd.Series, *, role: str,
                  name: str) -> None:
    """Ids of a side input (``name``) must be of the recommendations' kind (int vs str...).

    ``1`` and ``'1'`` are different ids, so a training table of string ids against integer
    recommendations would silently match nothing (every item absent from train).
    """
    if len(reference) == 0 or len(other) == 0:
        return
    a, b = id_kind(pd.Series(reference[:10_000])), id_kind(pd.Series(other[:10_000]))
    if a != b:
        raise IdTypeMismatchError(
            f"{name}: its {role} ids are {b} ({pd.Series(other[:1]).dtype}) while the "
            f"recommendations' {role} ids are {a} ({reference.dtype}), e.g. {name} has "
            f"{format_examples(list(other[:3]))} and recs {format_examples(list(reference[:3]))}"
            f"; ids are compared exactly and never cast implicitly: convert one side, or pass "
            f"id_cast='str' or 'int'", parameter=name, examples=list(other[:5]))


@dataclass(frozen=True)
class _Train:
    """The training interactions over the side inputs' item index."""

    users: pd.Index  # distinct training users (factorize order)
    user_items: Any  # sparse users x items (0/1): a user counts once per item
    pop_rows: np.ndarray  # training interactions per item
    pop_users: np.ndarray  # distinct training users per item
    n_rows: int
    ratings: Any = None  # sparse users x items: the mean rating of each pair, if read


@dataclass(frozen=True)
class SideInputs:
    """``train`` and ``item_features``, read once, as arrays over one item index.

    Attributes
    ----------
    items : pandas.Index
        Every item of train (first-seen order), then the feature table's other items.
    train : object or None
        Training users, the user x item 0/1 matrix, popularity per item (rows and users).
    features : Features or None
        The feature matrix (rows in the feature table's item order), read when a metric
        needs it.
    features_given : bool
        Whether ``item_features=`` was given (read or not).
    item_groups, user_groups : Groups or None
        ``item_groups=`` (an item may be in several groups) and ``user_groups=`` (one group
        per user), each over its own ids.
    propensities : Propensities or None
        ``propensities=``: item -> observation propensity.
    """

    items: pd.Index = field(default_factory=lambda: pd.Index([]))
    train: _Train | None = None
    features: Features | None = None
    features_given: bool = False
    item_groups: Groups | None = None
    user_groups: Groups | None = None
    propensities: Propensities | None = None

    @property
    def train_given(self) -> bool:
        """Whether ``train=`` was given."""
        return self.train is not None

    @property
    def train_items(self) -> pd.Index:
        """The distinct training items."""
        if self.train is None:
            return self.items[:0]
        return self.items[self.train.pop_rows > 0]

    def check_ids(self, user_ids: pd.Index, item_ids: pd.Index) -> None:
        """Raise unless train's and the features' ids are of the partition's id kinds."""
        if self.train is not None:
            check_id_kind(user_ids, self.train.users, role="user", name="train")
            check_id_kind(item_ids, self.train_items, role="item", name="train")
        if self.features is not None:
            check_id_kind(item_ids, self.features.items, role="item", name="item_features")
        for table, ids, role in (("item_groups", self.item_groups, "item"),
                                 ("user_groups", self.user_groups, "user"),
                                 ("propensities", self.propensities, "item")):
            if ids is not None:
                check_id_kind(item_ids if role == "item" else user_ids, ids.ids, role=role,
                              name=table)


def _train(data: Any, columns: Columns, id_cast: str | None) -> tuple[pd.Series, pd.Series]:
    user, item = train_ids(data, columns, id_cast)
    if len(user) == 0:
        raise EmptyInputError("train is empty: the beyond-accuracy metrics read item "
                              "popularity and users' histories from it; give the training "
                              "interactions, or leave train=None", parameter="train")
    return user, item


def train_ratings(data: Any, columns: Columns) -> np.ndarray:
    """The rating of every training row (its ``rating`` column or an alias), checked."""
    from receval.data._table import _numeric

    frame = _as_frame(data, "train")
    col = columns.resolve("rating", [str(c) for c in frame.columns], table="train",
                          required=False)
    if col is None:
        raise InvalidParameterError(
            "a metric weighs the training profile by rating (profile_weight='rating') and "
            f"train has no rating column (its columns: {[str(c) for c in frame.columns]}); "
            "name it with columns=Columns(rating=...)", parameter="train")
    values = _numeric(frame, col, "train", "rating")
    if not np.isfinite(values).all() or (values < 0).any():
        bad = np.flatnonzero(~np.isfinite(values) | (values < 0))
        raise DataError(f"train: the rating column {col!r} has {len(bad)} infinite or "
                        f"negative values (rows {bad[:5].tolist()}); a profile weight is a "
                        f"number >= 0", column=col, n_bad=len(bad), examples=bad[:5].tolist())
    return values


def _groups_and_propensities(item_groups: Any, user_groups: Any, propensities: Any,
                             columns: Columns, id_cast: str | None, sep: str | None
                             ) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if item_groups is not None:
        out["item_groups"] = read_groups(item_groups, columns, role="item", name="item_groups",
                                         sep=sep, id_cast=id_cast)
    if user_groups is not None:
        out["user_groups"] = read_groups(user_groups, columns, role="user", name="user_groups",
                                         sep=None, id_cast=id_cast, single=True)
    if propensities is not None:
        out["propensities"] = read_propensities(propensities, columns, id_cast=id_cast)
    return out


def prepare_side(train: Any, item_features: Any, columns: Columns, *, need_features: bool,
                 id_cast: str | None = None, sep: str | None = "|", need_ratings: bool = False,
                 item_groups: Any = None, user_groups: Any = None, propensities: Any = None
                 ) -> SideInputs:
    """Read and encode the side inputs once (``train`` when given, features when needed).

    ``need_ratings`` also reads train's rating column (a profile weighted by rating);
    ``item_groups``, ``user_groups`` and ``propensities`` are read by
    :mod:`receval.data._groups`.

    Raises
    ------
    InvalidParameterError
        A side input given as a Spark DataFrame (ship it as a pandas, polars or Arrow
        table: every partition needs it whole).
    EmptyInputError, DataError, NonFiniteValueError
        An empty ``train`` or ``item_features``, missing ids or feature values.
    """
    from receval.data._spark import is_spark_frame

    for side, name in ((train, "train"), (item_features, "item_features"),
                       (item_groups, "item_groups"), (user_groups, "user_groups"),
                       (propensities, "propensities")):
        if is_spark_frame(side):
            raise InvalidParameterError(
                f"{name} is a Spark DataFrame: every partition reads {name} whole, so pass it "
                f"as a pandas, polars or Arrow table (e.g. {name}.toPandas() when it fits "
                f"the driver)", parameter=name)
    t_user = t_item = None
    if train is not None:
        t_user, t_item = _train(train, columns, id_cast)
    features = None
    if need_features and item_features is not None:
        features = read_features(item_features, columns, sep=sep, id_cast=id_cast)
    parts = []
    if t_item is not None:
        parts.append(pd.Index(pd.unique(t_item)))
    if features is not None:
        parts.append(features.items)
    given = item_features is not None
    extra = _groups_and_propensities(item_groups, user_groups, propensities, columns, id_cast,
                                     sep)
    if not parts:
        return SideInputs(features_given=given, **extra)
    items = parts[0] if len(parts) == 1 else parts[0].append(
        parts[1][~parts[1].isin(parts[0])])
    m = len(items)
    encoded = None
    if t_user is not None and t_item is not None:
        ic = items.get_indexer(pd.Index(t_item))
        uc, uniq = pd.factorize(t_user)
        user_items = sp.csr_matrix((np.ones(len(ic)), (uc, ic)), shape=(len(uniq), m))
        user_items.sum_duplicates()
        user_items.data[:] = 1.0  # duplicates summed: a user counts once per item
        ratings = None
        if need_ratings:  # the mean rating of each (user, item) pair
            r = train_ratings(train, columns)
            total = sp.csr_matrix((r, (uc, ic)), shape=(len(uniq), m))
            total.sum_duplicates()
            counts = sp.csr_matrix((np.ones(len(ic)), (uc, ic)), shape=(len(uniq), m))
            counts.sum_duplicates()
            ratings = sp.csr_matrix((total.data / counts.data, total.indices, total.indptr),
                                    shape=total.shape)
        encoded = _Train(pd.Index(uniq), user_items,
                         np.bincount(ic, minlength=m).astype(np.float64),
                         np.asarray(user_items.sum(axis=0)).ravel(), len(ic), ratings)
    return SideInputs(items, encoded, features, given, **extra)
