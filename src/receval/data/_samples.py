"""Sampled rankings of a stochastic ranker: a ``sample`` column of the recommendations.

A stochastic ranker (Diaz et al. 2020) is evaluated from several rankings sampled per user:
the rows of ``recs`` carry a sample label (``evaluate(sample="sample")``), and each
(user, sample) is one ranked list. This module reads and checks that column and builds two
views of the rows:

* the recommendations with one row per (user, item), which the user accounting reads (who
  has recommendations);
* the rows with every (user, sample) as a list of its own (a *pseudo-user*: user code times
  the largest number of samples, plus the sample's number within its user), with the truth
  rows of each user repeated once per sample, so that ranking, ties and relevance of every
  sampled list go through the ordinary encoding.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import pandas as pd

from receval.data._table import InputTable
from receval.exceptions import (
    ColumnNotFoundError,
    DataError,
    DuplicateRowError,
    NonFiniteValueError,
    format_examples,
)

__all__ = ["SampledRows", "sampled_rows"]


@dataclass(frozen=True)
class SampledRows:
    """The recommendations of a stochastic ranker, split into its sampled lists.

    Attributes
    ----------
    recs : InputTable
        One row per (user, item) (the first of each pair): the accounting's view.
    lists : InputTable
        Every row, its user replaced by the pseudo-user of its (user, sample).
    truth : InputTable
        The truth rows of the users with recommendations, once per sample (pseudo-users).
    users : pandas.Index
        The users with recommendations; pseudo-user ``p`` is sample ``p % width`` of user
        ``users[p // width]``.
    n_samples : ndarray of int64
        The number of samples of each of ``users``.
    width : int
        The largest number of samples of a user.
    """

    recs: InputTable
    lists: InputTable
    truth: InputTable
    users: pd.Index
    n_samples: np.ndarray
    width: int


def _sample_column(frame: pd.DataFrame, column: str) -> pd.Series:
    if column not in frame.columns:
        raise ColumnNotFoundError(
            f"recs has no sample column {column!r} (evaluate(sample=...)); its columns are "
            f"{[str(c) for c in frame.columns]}", column=column)
    s = frame[column].reset_index(drop=True)
    missing = s.isna().to_numpy()
    if missing.any():
        bad = np.flatnonzero(missing)
        raise NonFiniteValueError(
            f"recs: the sample column {column!r} has {len(bad)} missing values (rows "
            f"{bad[:5].tolist()}); every sampled row needs the number of its sample",
            column=column, n_bad=len(bad), examples=bad[:5].tolist())
    return s


def sampled_rows(frame: pd.DataFrame, rt: InputTable, tt: InputTable, column: str,
                 duplicates: str = "error") -> SampledRows:
    """Split ``rt`` (read from ``frame``) into sampled lists; check the sample column.

    Raises
    ------
    ColumnNotFoundError
        ``frame`` has no column ``column``.
    NonFiniteValueError
        A missing sample label.
    DuplicateRowError
        An item twice in one (user, sample), under ``duplicates='error'`` (the other
        policies apply per sampled list when the lists are encoded).
    DataError
        Users with different numbers of samples (a few named, with their counts): the
        expected exposure of a user averages over that user's samples, and a ranker that
        returned fewer rankings for some users is more likely a truncated input than a
        choice; evaluate those users apart if it is one.
    """
    sample = _sample_column(frame, column)
    user_code, users = pd.factorize(rt.user)
    sample_code, labels = pd.factorize(sample)
    # (user, sample) pairs in order of first appearance, hashed as one int64 key
    pair_code, pairs = pd.factorize(user_code.astype(np.int64) * max(len(labels), 1)
                                    + sample_code)
    pair_user = np.asarray(pairs, dtype=np.int64) // max(len(labels), 1)
    # the sample's number within its user, in order of first appearance
    number = pd.Series(pair_user).groupby(pair_user).cumcount().to_numpy(dtype=np.int64)
    n_samples = np.bincount(pair_user, minlength=len(users)).astype(np.int64)
    if len(users) and n_samples.min() != n_samples.max():
        common = np.bincount(n_samples).argmax()
        odd = np.flatnonzero(n_samples != common)
        shown = [f"user {users[u]}: {n_samples[u]}" for u in odd[:5]]
        raise DataError(
            f"recs: users have different numbers of samples in column {column!r}: most have "
            f"{common}, {len(odd)} users differ ({format_examples(shown, len(odd))}); give "
            f"every "
            f"user the same number of sampled rankings, or evaluate those users apart",
            column=column, n_bad=len(odd), examples=[users[u] for u in odd[:5]])
    width = int(n_samples.max(initial=1))
    pseudo = user_code.astype(np.int64) * width + number[pair_code]
    lists = dataclasses.replace(rt, user=pd.Series(pseudo))
    item_code = pd.factorize(rt.item)[0].astype(np.int64)
    if duplicates == "error":
        _no_repeats(rt, sample, pseudo * (item_code.max(initial=0) + 1) + item_code, column)
    recs = _rows(rt, _first_rows(user_code.astype(np.int64) * (item_code.max(initial=0) + 1)
                                 + item_code))
    t_code = users.get_indexer(pd.Index(tt.user))
    keep = np.flatnonzero(t_code >= 0)
    reps = n_samples[t_code[keep]]
    rows = np.repeat(keep, reps)
    within = np.arange(len(rows)) - np.repeat(np.cumsum(reps) - reps, reps)
    truth = _rows(tt, rows)
    truth = dataclasses.replace(truth, user=pd.Series(
        t_code[rows].astype(np.int64) * width + within))
    return SampledRows(recs, lists, truth, users, n_samples, width)


def _no_repeats(rt: InputTable, sample: pd.Series, key: np.ndarray, column: str) -> None:
    """An error naming a few (user, sample, item) that repeat within a sampled list."""
    first = _first_rows(key)
    if len(first) == len(key):
        return
    again = np.ones(len(key), dtype=bool)
    again[first] = False
    rows = np.flatnonzero(again)
    shown = [(rt.user.iloc[r], sample.iloc[r], rt.item.iloc[r]) for r in rows[:5]]
    raise DuplicateRowError(
        f"recs: {len(rows)} items repeat within a sampled ranking (user, {column}, item), "
        f"e.g. {format_examples(shown, len(rows))}; a ranking holds each item once: remove "
        f"the repeats or pass duplicates='first' or 'best'", column=column,
        n_bad=len(rows), examples=shown)


def _first_rows(key: np.ndarray) -> np.ndarray:
    """The rows where each key first appears, in row order (one stable sort)."""
    order = np.argsort(key, kind="stable")
    ordered = key[order]
    new = np.ones(len(key), dtype=bool)
    new[1:] = ordered[1:] != ordered[:-1]
    first = np.zeros(len(key), dtype=bool)
    first[order[new]] = True
    return np.flatnonzero(first)


def _rows(t: InputTable, rows: np.ndarray) -> InputTable:
    """Some rows of a table (ids and numeric columns)."""
    def pick(a: np.ndarray | None) -> np.ndarray | None:
        return None if a is None else a[rows]

    return dataclasses.replace(t, user=t.user.iloc[rows].reset_index(drop=True),
                               item=t.item.iloc[rows].reset_index(drop=True),
                               score=pick(t.score), rank=pick(t.rank), rating=pick(t.rating))
