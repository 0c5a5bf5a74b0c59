"""The input rules that ``prepare`` enforces on the encoded columns.

Repeated (user, item) pairs (an error, or the row a ``duplicates`` policy keeps), a rank
column that disagrees with the score column, and negative grades. Each error names the
column, the rule, how many rows break it and a few of them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from receval.data._table import InputTable
from receval.exceptions import (
    DuplicateRowError,
    InvalidGradeError,
    RankScoreMismatchError,
    format_examples,
)

__all__ = ["DUPLICATE_POLICIES", "check_grades", "check_rank_agrees", "first_of_each_pair",
           "resolve_duplicates"]

DUPLICATE_POLICIES = ("error", "first", "best")


def first_of_each_pair(user: np.ndarray, item: np.ndarray, n_items: int,
                       priority: np.ndarray | None) -> np.ndarray:
    """Keep-mask of the first row of each (user, item) pair.

    First by ``priority`` (higher first) and then input order, or by input order alone.
    """
    key = user.astype(np.int64) * max(n_items, 1) + item
    order = np.arange(len(key)) if priority is None else np.argsort(-priority, kind="stable")
    order = order[np.argsort(key[order], kind="stable")]
    keep = np.ones(len(key), dtype=bool)
    keep[order[1:]] = key[order[1:]] != key[order[:-1]]
    return keep


def resolve_duplicates(table: InputTable, user: np.ndarray, item: np.ndarray,
                       users: pd.Index, items: pd.Index, policy: str,
                       priority: np.ndarray | None, unit: tuple[str, str] = ("user", "users")
                       ) -> np.ndarray | None:
    """Apply the ``duplicates`` policy; return a keep-mask, or None when nothing repeats.

    ``unit`` names what ``user`` codes in messages (singular, plural): sampled lists are
    ``("list_id", "lists")`` when a user has several.
    """
    keep = first_of_each_pair(user, item, len(items),
                              priority if policy == "best" else None)
    if keep.all():
        return None
    dup = np.flatnonzero(~keep)
    if policy == "error":
        pairs = [(users[user[i]], items[item[i]]) for i in dup[:5]]
        n_users = len(np.unique(user[dup]))
        raise DuplicateRowError(
            f"{table.name}: {len(dup)} repeated ({unit[0]}, item) pairs over {n_users} "
            f"{unit[1]}, e.g. "
            f"{format_examples(pairs, len(dup))}; a repeated item would be counted twice. "
            f"Remove the repeats (columns {table.columns['user']!r}, "
            f"{table.columns['item']!r}) or pass duplicates='first' (keep the first row) or "
            f"'best' (keep the best-scored recommendation / the highest grade)",
            column=table.columns["item"], n_bad=len(dup), examples=pairs)
    return keep


def check_rank_agrees(
    recs: InputTable, score: np.ndarray, rank: np.ndarray, r_user: np.ndarray, users: pd.Index
) -> None:
    """A rank column next to a score column must order each user's items the same way."""
    order = np.lexsort((rank, r_user))
    u, sc, rk = r_user[order], score[order], rank[order]
    same = u[1:] == u[:-1]
    bad = same & ((sc[1:] > sc[:-1]) | ((rk[1:] == rk[:-1]) & (sc[1:] != sc[:-1])))
    if np.any(bad):
        where = np.flatnonzero(bad)
        ex = [users[c] for c in np.unique(u[where])[:5]]
        raise RankScoreMismatchError(
            f"recs: the rank column {recs.columns['rank']!r} and the score column "
            f"{recs.columns['score']!r} disagree for {len(np.unique(u[where]))} users (a "
            f"better rank has a lower score), e.g. users [{format_examples(ex)}]; pass only "
            f"one of them, or "
            f"name the one to use with columns=Columns(score=...) / Columns(rank=...)",
            column=recs.columns["rank"], n_bad=len(np.unique(u[where])), examples=ex)


def check_grades(truth: InputTable, grade: np.ndarray, t_user: np.ndarray, t_item: np.ndarray,
                 users: pd.Index, items: pd.Index) -> None:
    """Raise :class:`InvalidGradeError` when a grade is negative."""
    if not np.any(grade < 0):
        return
    bad = np.flatnonzero(grade < 0)
    ex = [(users[t_user[i]], items[t_item[i]], float(grade[i])) for i in bad[:5]]
    raise InvalidGradeError(
        f"truth: the rating column {truth.columns['rating']!r} has {len(bad)} negative "
        f"grades, e.g. (user, item, grade) {format_examples(ex, len(bad))}; relevance "
        f"grades must be >= 0, or pass "
        f"negative_grades='allow' (they are then never relevant, and rating metrics use "
        f"them as they are)",
        column=truth.columns["rating"], n_bad=len(bad), examples=ex)
