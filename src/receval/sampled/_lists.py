"""Read scored candidate lists: one positive per list, its negatives, and a score or rank."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from receval._columns import Columns
from receval.data._adapters import to_frame
from receval.data._checks import resolve_duplicates
from receval.data._encode import encode_ids
from receval.data._table import recs_table
from receval.exceptions import DataError, InvalidParameterError, SchemaError, format_examples
from receval.sampled._negatives import ATTRS_KEY, read_pairs

__all__ = ["Lists", "read_lists"]


@dataclass(frozen=True)
class Lists:
    """Scored lists ready for the engine: one row per candidate, one positive per list.

    ``recs`` has the list key (the user column of ``scored``, or ``list_id``), the item
    column and the score or rank column of ``scored``, under their names there (``columns``
    maps them); ``truth`` has one ``(key, item)`` row per list, its positive;
    ``m`` is the number of negatives of each list, indexed by key, counted after the
    ``duplicates`` policy dropped repeated items; ``dropped`` is how many rows it dropped.
    """

    recs: pd.DataFrame
    truth: pd.DataFrame
    columns: Columns
    m: pd.Series
    key: str
    record: dict[str, Any]
    dropped: int = 0


def _flag(frame: pd.DataFrame, name: str) -> np.ndarray | None:
    if name not in frame.columns:
        return None
    col = frame[name]
    if not pd.api.types.is_bool_dtype(col.dtype) or col.isna().any():
        raise SchemaError(f"scored: the {name!r} column must be boolean without missing "
                          f"values, got dtype {col.dtype}", column=name)
    return np.asarray(col.to_numpy(dtype=bool))


def read_lists(scored: Any, test: Any, columns: Columns, n_items: int,
               duplicates: str = "error") -> Lists:
    """Validate the lists of ``scored`` against ``test`` and build the engine's tables.

    An item repeated in a list goes through the ``duplicates`` policy here, before the
    lists are counted: ``m`` is then each list's number of distinct negatives, and the
    error names the columns of ``scored`` (the user or ``list_id`` column, and the item).
    """
    frame = to_frame(scored, "scored")
    record = dict(frame.attrs.get(ATTRS_KEY, {}))
    rt = recs_table(frame, columns)
    tp = read_pairs(test, "test", columns)
    su, tu, _ = encode_ids(rt.user, tp.user, role="user",
                           columns=(rt.columns["user"], tp.user_col))
    si, ti, items = encode_ids(rt.item, tp.item, role="item",
                               columns=(rt.columns["item"], tp.item_col))
    width = max(len(items), 1)
    s_key = su.astype(np.int64) * width + si
    t_key = tu.astype(np.int64) * width + ti
    positive = _member(s_key, np.unique(t_key))
    given = _flag(frame, "positive")
    if given is not None and (given != positive).any():
        bad = np.flatnonzero(given != positive)
        raise DataError(
            f"scored: the 'positive' column disagrees with test on {len(bad)} rows (rows "
            f"{bad[:5].tolist()}): a row is positive when its (user, item) is a test row",
            column="positive", n_bad=len(bad), examples=bad[:5].tolist())
    unlisted = ~_member(t_key, np.unique(s_key[positive]))
    if unlisted.any():
        bad = np.flatnonzero(unlisted)
        ex = [(tp.user.iloc[i], tp.item.iloc[i]) for i in bad[:5]]
        raise DataError(
            f"{len(bad)} test rows have no list in scored, e.g. (user, item) "
            f"{format_examples(ex, len(bad))}: sampled evaluation ranks each test row among "
            f"its negatives; evaluate the test rows you scored", parameter="test",
            n_bad=len(bad), examples=ex)
    key_name = "list_id" if "list_id" in frame.columns else rt.columns["user"]
    keys = frame["list_id"].reset_index(drop=True) if key_name == "list_id" else rt.user
    codes, uniques = pd.factorize(keys, sort=True)
    values = rt.score if rt.score is not None else rt.rank
    best = rt.score if rt.score is not None else (-rt.rank if rt.rank is not None else None)
    unit = ("list_id", "lists") if key_name == "list_id" else ("user", "users")
    named = replace(rt, name="scored", columns={**rt.columns, "user": key_name})
    keep = resolve_duplicates(named, codes, si, uniques, items, duplicates, best, unit)
    dropped = 0
    if keep is not None:
        dropped = int((~keep).sum())
        rows = np.flatnonzero(keep)
        keys, codes, positive = keys.iloc[rows].reset_index(drop=True), codes[rows], positive[rows]
        item_ids = rt.item.iloc[rows].reset_index(drop=True)
        values = values[rows] if values is not None else None
    else:
        item_ids = rt.item
    size = np.bincount(codes, minlength=len(uniques))
    n_pos = np.bincount(codes, weights=positive, minlength=len(uniques)).astype(np.int64)
    _check_lists(uniques, size, n_pos, n_items, key_name)
    role = "score" if rt.score is not None else "rank"
    if values is None:
        raise SchemaError("scored needs a score (higher is better) or a rank column to order "
                          "each list", column="score")
    # the engine's tables keep the columns of scored, so its messages and settings name them
    key_col, item_col, value_col = key_name, rt.columns["item"], rt.columns[role]
    recs = pd.DataFrame({key_col: keys, item_col: item_ids, value_col: values})
    truth = pd.DataFrame({key_col: keys[positive].reset_index(drop=True),
                          item_col: item_ids[positive].reset_index(drop=True)})
    cols = Columns(user=key_col, item=item_col, **{role: value_col})
    m = pd.Series(size - 1, index=pd.Index(uniques), dtype=np.int64)
    return Lists(recs, truth, cols, m, key_name, record, dropped)


def _member(keys: np.ndarray, sorted_unique: np.ndarray) -> np.ndarray:
    """``keys[i] in sorted_unique``, by binary search (the candidates far outnumber them)."""
    if len(sorted_unique) == 0:
        return np.zeros(len(keys), dtype=bool)
    at = np.minimum(np.searchsorted(sorted_unique, keys), len(sorted_unique) - 1)
    return np.asarray(sorted_unique[at] == keys)


def _check_lists(keys: pd.Index, size: np.ndarray, n_pos: np.ndarray, n_items: int,
                 key_name: str) -> None:
    bad = np.flatnonzero(n_pos != 1)
    if len(bad):
        ex = keys[bad[:5]].tolist()
        counts = ", ".join(f"{k!r}: {int(c)}" for k, c in zip(ex, n_pos[bad[:5]], strict=True))
        hint = ("A user with several test rows needs one list per row, told apart by a "
                "'list_id' column (rv.sampled.negatives adds it)")
        raise DataError(f"sampled evaluation needs exactly one positive (test row) per list; "
                        f"{len(bad)} lists ({key_name}) have another number ({counts}). {hint}",
                        parameter="scored", n_bad=len(bad), examples=ex)
    alone = np.flatnonzero(size < 2)
    if len(alone):
        ex = keys[alone[:5]].tolist()
        raise DataError(f"{len(alone)} lists ({key_name}) have no negative, e.g. "
                        f"{format_examples(ex, len(alone))}", parameter="scored",
                        n_bad=len(alone), examples=ex)
    if int(size.max()) > n_items:
        raise InvalidParameterError(
            f"n_items={n_items} is smaller than the longest list ({int(size.max())} items): "
            f"n_items is the number of items a full ranking would rank (the catalog size)",
            parameter="n_items", examples=[n_items])
