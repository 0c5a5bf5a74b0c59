"""From two validated tables to the grouped arrays the kernels read.

Everything here is vectorised numpy over whole columns: ids are encoded once, rows are sorted
into user groups once per tie policy, and each group is addressed by ``starts[u]:ends[u]``
(CSR). No per-user Python loop.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from receval._kernels import grouping as G
from receval._kernels import ordering as O
from receval.data._checks import check_grades, check_rank_agrees, resolve_duplicates
from receval.data._encode import encode_ids
from receval.data._table import InputTable
from receval.exceptions import (
    EmptyInputError,
    InvalidParameterError,
)

__all__ = ["Interactions", "RankedLists", "RatingPairs", "TiePolicy", "prepare"]

TiePolicy = Literal["stable", "item", "item_desc", "item_str_desc", "optimistic",
                    "pessimistic", "expected"]
#: Orders of items with equal scores; the one place that lists them.
TIE_POLICIES: tuple[str, ...] = ("stable", "item", "item_desc", "item_str_desc", "optimistic",
                                 "pessimistic", "expected")


@dataclass(frozen=True)
class RankedLists:
    """Ranked lists of the evaluated users, in CSR form.

    Attributes
    ----------
    starts, ends : ndarray of int64, shape (n_users,)
        User ``u``'s list is positions ``starts[u]:ends[u]`` of the position arrays, best first.
    grade : ndarray of float64, shape (n_positions,)
        Grade of the recommended item if it is relevant, else 0.
    rel : ndarray of uint8, shape (n_positions,)
        1 if the recommended item is relevant.
    item : ndarray of int64, shape (n_positions,)
        Item code at each position.
    n_rel : ndarray of int64, shape (n_users,)
        Number of relevant items of each user (recommended or not).
    ideal_starts, ideal_ends, ideal_grade : ndarray
        Grades of each user's relevant items, sorted in decreasing order (CSR).
    key : ndarray of float64 or None
        The ordering key (score, or minus the rank) at each position; None without one.
    block_end : ndarray of int64, shape (n_positions,) or (0,)
        For the ``expected`` tie policy: the end (exclusive) of the block of tied scores
        each position belongs to; empty otherwise.
    block_start : ndarray of int64, shape (n_positions,) or (0,)
        The start of each position's block of ties; empty unless ``expected``.
    """

    starts: np.ndarray
    ends: np.ndarray
    grade: np.ndarray
    rel: np.ndarray
    item: np.ndarray
    n_rel: np.ndarray
    ideal_starts: np.ndarray
    ideal_ends: np.ndarray
    ideal_grade: np.ndarray
    block_start: np.ndarray
    block_end: np.ndarray
    key: np.ndarray | None = None

    @property
    def n_users(self) -> int:
        """Number of lists."""
        return len(self.starts)

    def select(self, users: np.ndarray) -> RankedLists:
        """The lists of some users (row numbers of these lists); positions are shared."""
        return dataclasses.replace(
            self, starts=self.starts[users], ends=self.ends[users], n_rel=self.n_rel[users],
            ideal_starts=self.ideal_starts[users], ideal_ends=self.ideal_ends[users])


@dataclass(frozen=True)
class RatingPairs:
    """Predicted and true ratings of the evaluated users, grouped by user (CSR).

    Attributes
    ----------
    starts, ends : ndarray of int64, shape (n_users,)
        User ``u``'s pairs are ``starts[u]:ends[u]``.
    pred, true : ndarray of float64
        Predicted and true rating of each pair.
    """

    starts: np.ndarray
    ends: np.ndarray
    pred: np.ndarray
    true: np.ndarray


@dataclass(frozen=True)
class Interactions:
    """Both tables, encoded, validated and joined; the single source for every kernel input.

    Attributes
    ----------
    user_ids, item_ids : pandas.Index
        Distinct ids in sorted order; codes index into them.
    r_item : ndarray of int32 or int64
        Item codes of the recommendation rows, grouped by user (input order within a user).
    r_codes : ndarray or None
        Their user codes, or None when the rows were grouped here (:attr:`r_user` builds them
        from ``r_off`` on first use).
    r_off : ndarray of int64
        Recommendation rows of user code ``u`` are ``r_off[u]:r_off[u + 1]``.
    r_key : ndarray of float64 or None
        Ordering key of each row, higher first (the score, or minus the rank); None when
        the rows are already in rank order.
    r_truth : ndarray of int64
        Index of the matching truth row (in the grouped truth), or -1.
    t_user, t_item, t_grade : ndarray
        Truth rows grouped by user, in input order within a user (``t_grade`` is 1.0 when
        the truth has no grades). Nothing that reads them depends on the order within a
        user, except :meth:`rating_pairs`, which puts each user's pairs in item order so
        that every number is the same whatever the row order.
    t_sorted : bool
        Whether the truth rows are also in (user, item) order.
    t_off : ndarray of int64
        Truth rows of user code ``u`` are ``t_off[u]:t_off[u + 1]``.
    t_rel : ndarray of bool
        Whether each truth row is relevant.
    has_grade : bool
        Whether the truth has a grade column.
    relevance_threshold : float or None
        The threshold used for ``t_rel``.
    """

    user_ids: pd.Index
    item_ids: pd.Index
    r_codes: np.ndarray | None
    r_item: np.ndarray
    r_off: np.ndarray
    r_key: np.ndarray | None
    r_score: np.ndarray | None
    r_truth: np.ndarray
    t_user: np.ndarray
    t_item: np.ndarray
    t_off: np.ndarray
    t_grade: np.ndarray
    t_rel: np.ndarray
    has_grade: bool
    relevance_threshold: float | None
    notes: dict[str, int]
    t_sorted: bool = True

    @functools.cached_property
    def r_user(self) -> np.ndarray:
        """The user code of every recommendation row (grouped, as ``r_item``)."""
        if self.r_codes is not None:
            return self.r_codes
        return G.codes_of(self.r_off, np.int32 if len(self.user_ids) < 2**31 else np.int64)

    @property
    def n_users(self) -> int:
        """Number of distinct users over both tables."""
        return len(self.user_ids)

    # -- per-user counts ---------------------------------------------------------------------
    def recs_count(self) -> np.ndarray:
        """Recommendation rows of each user code."""
        return np.diff(self.r_off)

    def truth_count(self) -> np.ndarray:
        """Truth rows of each user code."""
        return np.diff(self.t_off)

    def relevant_count(self) -> np.ndarray:
        """Relevant truth rows of each user code."""
        return G.count_in_groups(self.t_off, self.t_rel)

    # -- ranked lists ------------------------------------------------------------------------
    def ranked(self, users: np.ndarray, ties: str, *, relevant: np.ndarray | None = None,
               grade_shift: float = 0.0, top: int = 0) -> RankedLists:
        """Build the ranked lists of ``users`` (sorted codes) under a tie policy.

        ``relevant`` (one flag per truth row) replaces ``t_rel`` as the rows whose grade is a
        gain (trec_eval's judged grades); ``grade_shift`` is subtracted from every such grade
        (Elliot's ``2^(g - t + 1) - 1`` gain is the exponential gain of ``g - (t - 1)``).
        ``top > 0`` promises that only the first ``top`` places of each list are read (every
        metric has a cutoff below it, and none reads the set of grades of the whole list):
        the lists then hold only those places, found by a stable selection.
        """
        t_rel = self.t_rel if relevant is None else relevant
        t_grade = self.t_grade - grade_shift if grade_shift else self.t_grade
        if ties == "expected":  # a block of ties may straddle any cutoff: whole lists
            top = 0
        tiebreak = self._tiebreak(ties, t_rel, t_grade)
        lists = O.rank_groups(self.r_off, self.r_key, tiebreak, self.r_item, self.r_truth,
                              t_rel, t_grade, top)
        block_start = block_end = np.empty(0, dtype=np.int64)
        if ties == "expected" and lists.key is not None:  # whole lists: r_user still fits
            block_start, block_end = _tie_blocks(self.r_user, lists.key)

        ideal_off = _offsets(self.t_user[t_rel], self.n_users)
        ideal_grade = O.sort_groups_desc(ideal_off, t_grade[t_rel])
        return RankedLists(
            starts=lists.off[users], ends=lists.off[users + 1],
            grade=lists.grade, rel=lists.rel, item=lists.item, n_rel=np.diff(ideal_off)[users],
            ideal_starts=ideal_off[users], ideal_ends=ideal_off[users + 1],
            ideal_grade=ideal_grade, block_start=block_start, block_end=block_end,
            key=lists.key,
        )

    def _tiebreak(self, ties: str, t_rel: np.ndarray, t_grade: np.ndarray) -> np.ndarray:
        """The secondary sort key of a tie policy (empty: row order).

        Rows are ordered by key descending, then by this ascending, then by row order.
        """
        if self.r_key is None or ties in ("stable", "expected"):
            return np.empty(0, dtype=np.float64)
        if ties == "item":
            return self.r_item.astype(np.float64)
        if ties == "item_desc":
            return -self.r_item.astype(np.float64)
        if ties == "item_str_desc":  # trec_eval: docno descending as a byte string
            return -self._text_order()[self.r_item]
        if ties in ("optimistic", "pessimistic"):  # relevant first / last, by grade
            matched = self.r_truth >= 0
            grade = np.zeros(len(self.r_truth))
            rows = self.r_truth[matched]
            grade[matched] = np.where(t_rel[rows], t_grade[rows], 0.0)
            return -grade if ties == "optimistic" else grade
        raise InvalidParameterError(  # pragma: no cover - validated upstream
            f"ties must be one of {TIE_POLICIES}, got {ties!r}", parameter="ties")

    def _text_order(self) -> np.ndarray:
        """Position of each item code when the ids are sorted as text (UTF-8 byte order)."""
        text = np.asarray([str(i) for i in self.item_ids], dtype=object)
        pos = np.empty(len(text), dtype=np.float64)
        pos[np.argsort(text, kind="stable")] = np.arange(len(text), dtype=np.float64)
        return pos

    def in_recommendations(self) -> np.ndarray:
        """Whether each truth row's item is among its user's recommendations."""
        seen = np.zeros(len(self.t_user), dtype=bool)
        seen[self.r_truth[self.r_truth >= 0]] = True
        return seen

    # -- rating pairs ------------------------------------------------------------------------
    def rating_pairs(
        self, users: np.ndarray, fill: np.ndarray | None = None
    ) -> tuple[RatingPairs, np.ndarray]:
        """Pair every truth row of ``users`` with its prediction.

        Returns the pairs (each user's in item order, whatever the row order of the
        input) and a boolean mask over the truth rows telling which rows of ``users`` have
        no prediction. Those rows are dropped, or given ``fill`` (per truth row) if set.
        """
        if self.r_score is None:
            raise InvalidParameterError(
                "rating metrics need predicted ratings: the recs table has no score column",
                parameter="metrics")
        has_pred = np.zeros(len(self.t_user), dtype=bool)
        pred = np.full(len(self.t_user), np.nan)
        matched = self.r_truth >= 0
        has_pred[self.r_truth[matched]] = True
        pred[self.r_truth[matched]] = self.r_score[matched]
        if fill is not None:
            pred = np.where(has_pred, pred, fill)
            keep = np.ones(len(self.t_user), dtype=bool)
        else:
            keep = has_pred.copy()
        in_eval = np.zeros(self.n_users, dtype=bool)
        in_eval[users] = True
        row_in_eval = in_eval[self.t_user]
        no_pred = row_in_eval & ~has_pred
        keep &= row_in_eval
        true = self.t_grade
        if not self.t_sorted:  # each user's pairs in item order: sums in one order
            order = self._truth_item_order
            pred, true, keep = pred[order], true[order], keep[order]
        offs = _offsets(self.t_user[keep], self.n_users)  # order moves rows within users
        pairs = RatingPairs(starts=offs[users], ends=offs[users + 1],
                            pred=pred[keep], true=true[keep])
        return pairs, no_pred

    @functools.cached_property
    def _truth_item_order(self) -> np.ndarray:
        """The truth rows in (user, item) order.

        Two stable counting sorts, by item, then by user (a radix sort, least significant key
        first).
        """
        rows = np.arange(len(self.t_item), dtype=self.t_item.dtype)
        by_item, _, _ = G.group_rows(self.t_item, len(self.item_ids), rows, None, len(rows))
        order, _, _ = G.group_rows(self.t_user[by_item], self.n_users, by_item, None,
                                   len(rows))
        return order


def _float64(a: np.ndarray) -> np.ndarray:
    """A float64 view or copy: the one dtype the kernels are compiled for."""
    return np.ascontiguousarray(a, dtype=np.float64)


def _offsets(sorted_codes: np.ndarray, n: int) -> np.ndarray:
    """Group boundaries of sorted codes ``0..n-1`` (binary search: O(n log rows))."""
    # bounds of the codes' own dtype: a mismatch would make numpy cast (copy) every code
    bounds = np.arange(n + 1, dtype=sorted_codes.dtype if len(sorted_codes) else np.int64)
    return np.searchsorted(sorted_codes, bounds, side="left").astype(np.int64)


def _tie_blocks(s_user: np.ndarray, s_key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start and end of the block of equal keys (within a user) of every sorted position."""
    n = len(s_user)
    new = np.ones(n, dtype=bool)
    if n > 1:
        new[1:] = (s_user[1:] != s_user[:-1]) | (s_key[1:] != s_key[:-1])
    starts = np.flatnonzero(new)
    block_id = np.cumsum(new) - 1
    ends = np.append(starts[1:], n)
    return starts[block_id].astype(np.int64), ends[block_id].astype(np.int64)


def _by_user(code: np.ndarray, n_users: int, item: np.ndarray, value: np.ndarray | None,
             n_items: int) -> tuple[np.ndarray, np.ndarray | None, np.ndarray, bool]:
    """Rows grouped by user code, input order within a user: items, values, offsets.

    Rows already in code order are only delimited (binary search); others go through the
    O(n) counting sort. The flag says whether they were moved (their codes then are
    ``G.codes_of(off)``, built only by what reads them).
    """
    if G.nondecreasing(code):
        return item, value, _offsets(code, n_users), False
    item, value, off = G.group_rows(code, n_users, item, value, n_items)
    return item, value, off, True


def _group_truth(truth: InputTable, t_user: np.ndarray, t_item: np.ndarray,
                 grade: np.ndarray, users: pd.Index, items: pd.Index, duplicates: str
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None, int]:
    """The truth grouped by user (the same counting sort), input order within a user.

    Only the rating pairs need a user's rows in item order (``Interactions.rating_pairs``).
    Repeated pairs go through the ``duplicates`` policy. Returns the user codes, items,
    grades, offsets (None after dropping repeats) and the number of rows dropped.
    """
    t_item, grouped, t_off, moved = _by_user(t_user, len(users), t_item, grade, len(items))
    grade = grouped if grouped is not None else grade
    if moved:
        t_user = G.codes_of(t_off, t_user.dtype)
    if G.repeats_in_groups(t_off, t_item, len(items)):
        keep = resolve_duplicates(truth, t_user, t_item, users, items, duplicates, grade)
        if keep is not None:
            return t_user[keep], t_item[keep], grade[keep], None, int((~keep).sum())
    return t_user, t_item, grade, t_off, 0


def prepare(
    recs: InputTable, truth: InputTable, *, relevance_threshold: float | None,
    duplicates: str = "error", negative_grades: str = "error", allow_empty: bool = False,
) -> Interactions:
    """Validate, encode and join the two tables.

    Parameters
    ----------
    recs, truth : InputTable
        The two inputs.
    relevance_threshold : float, optional
        Grades ``>=`` it are relevant; default: positive grades.
    duplicates : {"error", "first", "best"}
        Repeated (user, item) rows: an error, keep the first row, or keep the best one (the
        highest score or best rank in recs, the highest grade in truth). The number dropped
        is recorded in ``Interactions.notes``.
    negative_grades : {"error", "allow"}
        Negative grades: an error, or allowed (never relevant; rating metrics use them).
    allow_empty : bool
        Accept an empty truth (one bucket of a larger input).

    Raises
    ------
    EmptyInputError
        When the truth is empty.
    DuplicateRowError
        When a (user, item) pair repeats and ``duplicates='error'``.
    InvalidGradeError
        When a grade is negative and ``negative_grades='error'``.
    IdTypeMismatchError
        When ids differ in type between the tables.
    RankScoreMismatchError
        When a rank column and a score column disagree.
    """
    if len(truth) == 0 and not allow_empty:
        raise EmptyInputError("truth is empty: there is nothing to evaluate against",
                              parameter="truth")
    if relevance_threshold is not None and not relevance_threshold >= 0:
        raise InvalidParameterError(
            f"relevance_threshold must be a number >= 0 (grades below it are not relevant), "
            f"got {relevance_threshold!r}", parameter="relevance_threshold")
    r_user, t_user, user_ids = encode_ids(
        recs.user, truth.user, role="user",
        columns=(recs.columns["user"], truth.columns["user"]))
    r_item, t_item, item_ids = encode_ids(
        recs.item, truth.item, role="item",
        columns=(recs.columns["item"], truth.columns["item"]))
    score, rank = recs.score, recs.rank
    has_grade = truth.rating is not None
    grade = _float64(truth.rating) if truth.rating is not None else np.ones(len(truth))
    n_users = len(user_ids)
    if score is not None and rank is not None:
        check_rank_agrees(recs, score, rank, r_user, user_ids)
    score = _float64(score) if score is not None else None
    r_key = score if score is not None else (-_float64(rank) if rank is not None else None)

    code_type = r_user.dtype
    r_item, r_key, r_off, moved = _by_user(r_user, n_users, r_item, r_key, len(item_ids))
    r_codes = None if moved else r_user  # grouped codes: built only if something reads them
    del r_user  # the input-order codes: freed once grouped (a 1M-user input holds 100M)
    score = r_key if score is not None else None

    notes: dict[str, int] = {"recs_duplicates_dropped": 0, "truth_duplicates_dropped": 0}
    t_sorted = G.strictly_sorted_pairs(t_user, t_item)  # and no repeats
    t_off: np.ndarray | None = None
    if not t_sorted:
        t_user, t_item, grade, t_off, notes["truth_duplicates_dropped"] = _group_truth(
            truth, t_user, t_item, grade, user_ids, item_ids, duplicates)
    if has_grade and negative_grades == "error":
        check_grades(truth, grade, t_user, t_item, user_ids, item_ids)
    t_rel = grade >= relevance_threshold if relevance_threshold is not None else grade > 0

    t_off = _offsets(t_user, n_users) if t_off is None else t_off
    r_truth = np.empty(len(r_item), dtype=np.int32 if len(t_user) < 2**31 else np.int64)
    if G.match_in_groups(r_off, r_item, t_off, t_item, r_truth, len(item_ids)):
        if r_codes is None:
            r_codes = G.codes_of(r_off, code_type)
        keep = resolve_duplicates(recs, r_codes, r_item, user_ids, item_ids, duplicates,
                                  r_key)
        if keep is not None:
            notes["recs_duplicates_dropped"] = int((~keep).sum())
            r_codes, r_item, r_truth = r_codes[keep], r_item[keep], r_truth[keep]
            score = score[keep] if score is not None else None
            r_key = r_key[keep] if r_key is not None else None
            r_off = _offsets(r_codes, n_users)
    return Interactions(
        user_ids=user_ids, item_ids=item_ids, r_codes=r_codes, r_item=r_item, r_off=r_off,
        r_key=r_key, r_score=score, r_truth=r_truth, t_user=t_user, t_item=t_item, t_off=t_off,
        t_grade=grade, t_rel=t_rel, has_grade=has_grade,
        relevance_threshold=relevance_threshold, notes=notes, t_sorted=t_sorted,
    )
