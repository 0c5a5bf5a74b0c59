"""Hypothesis strategies for random recommendation / ground-truth tables.

``datasets()`` draws ``(recs, truth)`` pandas DataFrames: users 1-8, lists of 0-12 items, item
ids ints or strings, grades 0..4 or binary (or no rating column), scores tied in blocks of at
most 5 items or all distinct. Scores are multiples of 1/4 in [-10, 10], so strictly increasing
transforms such as ``3 s - 7`` or ``exp(s)`` keep ties tied and distinct scores distinct. The
product of the factorials of a user's tied block sizes is kept <= ``MAX_ORDERS`` so that the
brute-force ``expected`` oracle stays cheap. ``examples(n)`` scales example counts by the
environment variable ``RECEVAL_TEST_SCALE`` (e.g. 10 for a long run).
"""

from __future__ import annotations

import math
import os
from typing import Any

import pandas as pd
from hypothesis import strategies as st

USERS = tuple(range(1, 9))
N_ITEMS = 16
MAX_LEN = 12
MAX_BLOCK = 5
MAX_ORDERS = 240
SCORES = tuple(v / 4 for v in range(-40, 41))


def examples(n: int) -> int:
    """``n`` hypothesis examples, scaled by the environment variable RECEVAL_TEST_SCALE."""
    return max(1, round(n * float(os.environ.get("RECEVAL_TEST_SCALE", "1"))))


def item_ids(kind: str) -> list[Any]:
    """The item pool: ints, or strings whose lexicographic order is not the numeric one."""
    if kind == "int":
        return [3 * i + 1 for i in range(N_ITEMS)]
    return [str(3 * i + 1) for i in range(N_ITEMS)]


@st.composite
def block_sizes(draw: st.DrawFn, length: int, ties: bool,
                max_orders: int = MAX_ORDERS) -> list[int]:
    """Sizes of the tied blocks of a list of ``length`` items (all 1 without ties)."""
    sizes: list[int] = []
    remaining, budget = length, max_orders
    while remaining:
        hi = min(MAX_BLOCK, remaining) if ties else 1
        while math.factorial(hi) > budget:
            hi -= 1
        size = draw(st.integers(1, hi))
        budget //= math.factorial(size)
        sizes.append(size)
        remaining -= size
    return sizes


@st.composite
def datasets(
    draw: st.DrawFn,
    *,
    ties: bool | None = None,
    all_relevant: bool = False,
    rating: bool | None = None,
    item_kind: str | None = None,
    truth_only_users: bool = True,
    recs_only_users: bool = True,
    max_len: int = MAX_LEN,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Draw ``(recs, truth)``.

    Parameters
    ----------
    ties : bool, optional
        Tied scores in blocks (True), all scores distinct within a user (False), or drawn.
    all_relevant : bool
        Every truth user has at least one relevant item (no ``no_relevant`` users).
    rating : bool, optional
        Whether truth has a rating column (without one every truth row is relevant).
    item_kind : {"int", "str"}, optional
        Type of the item ids, or drawn.
    truth_only_users, recs_only_users : bool
        Whether users with only truth rows / only recommendations may occur.
    max_len : int
        Longest recommendation list.
    """
    ties = draw(st.booleans()) if ties is None else ties
    rating = draw(st.booleans()) if rating is None else rating
    item_kind = draw(st.sampled_from(["int", "str"])) if item_kind is None else item_kind
    graded = draw(st.booleans())
    max_grade = 4 if graded else 1
    pool = item_ids(item_kind)
    users = draw(st.lists(st.sampled_from(USERS), min_size=1, max_size=len(USERS), unique=True))
    roles = ["both"]
    choices = ["both"] * 3 + ["truth"] * truth_only_users + ["recs"] * recs_only_users
    roles += [draw(st.sampled_from(choices)) for _ in users[1:]]

    recs_rows: list[tuple[Any, Any, float]] = []
    truth_rows: list[tuple[Any, Any, int]] = []
    for n, (u, role) in enumerate(zip(users, roles, strict=True)):
        items: list[Any] = []
        if role in ("both", "recs"):
            items = draw(st.lists(st.sampled_from(pool), unique=True,
                                  min_size=1 if n == 0 else 0, max_size=max_len))
            sizes = draw(block_sizes(len(items), ties))
            scores = draw(st.lists(st.sampled_from(SCORES), unique=True, min_size=len(sizes),
                                   max_size=len(sizes)))
            pos = 0
            for size, score in zip(sizes, scores, strict=True):
                recs_rows.extend((u, item, score) for item in items[pos:pos + size])
                pos += size
        if role in ("both", "truth"):
            picked = [it for it in items if draw(st.booleans())]
            others = [it for it in pool if it not in items]
            picked += draw(st.lists(st.sampled_from(others), unique=True,
                                    min_size=0 if picked or role == "both" else 1, max_size=4))
            if n == 0 and not picked:
                picked = [draw(st.sampled_from(pool))]
            picked = draw(st.permutations(picked))
            grades = [draw(st.integers(0, max_grade)) if rating else 1 for _ in picked]
            if (all_relevant or n == 0) and picked and max(grades) == 0:
                grades[0] = draw(st.integers(1, max_grade))
            truth_rows.extend((u, it, g) for it, g in zip(picked, grades, strict=True))

    recs = pd.DataFrame(recs_rows, columns=["user", "item", "score"])
    truth = pd.DataFrame(truth_rows, columns=["user", "item", "rating"])
    if item_kind == "int":
        recs["item"] = recs["item"].astype("int64")
        truth["item"] = truth["item"].astype("int64")
    elif draw(st.booleans()):  # object columns as well as pandas' string dtype
        recs["item"] = recs["item"].astype(object)
        truth["item"] = truth["item"].astype(object)
    recs["user"] = recs["user"].astype("int64")
    truth["user"] = truth["user"].astype("int64")
    recs["score"] = recs["score"].astype("float64")
    if not rating:
        truth = truth.drop(columns="rating")
    if draw(st.booleans()):  # already ranked: grouped by user, best first (a fast path)
        recs = recs.sort_values(["user", "score"], ascending=[True, False], kind="stable")
    else:
        recs = recs.iloc[draw(st.permutations(range(len(recs))))]
    truth = truth.iloc[draw(st.permutations(range(len(truth))))]
    return recs.reset_index(drop=True), truth.reset_index(drop=True)


@st.composite
def perfect_datasets(draw: st.DrawFn) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Truth in which every user has a relevant item, and recs that list each user's truth
    items by decreasing grade with decreasing distinct scores (then maybe irrelevant extras)."""
    item_kind = draw(st.sampled_from(["int", "str"]))
    pool = item_ids(item_kind)
    users = draw(st.lists(st.sampled_from(USERS), min_size=1, max_size=len(USERS), unique=True))
    recs_rows: list[tuple[Any, Any, float]] = []
    truth_rows: list[tuple[Any, Any, int]] = []
    for u in users:
        items = draw(st.lists(st.sampled_from(pool), unique=True, min_size=1, max_size=8))
        grades = [draw(st.integers(1, 4))] + [draw(st.integers(0, 4)) for _ in items[1:]]
        truth_rows.extend(zip([u] * len(items), items, grades, strict=True))
        extras = draw(st.lists(st.sampled_from([it for it in pool if it not in items]),
                               unique=True, max_size=3))
        by_grade = sorted(zip(grades, items, strict=True), key=lambda p: -p[0])
        ranked = [it for _, it in by_grade] + extras
        recs_rows.extend((u, it, float(len(ranked) - r)) for r, it in enumerate(ranked))
    recs = pd.DataFrame(recs_rows, columns=["user", "item", "score"])
    truth = pd.DataFrame(truth_rows, columns=["user", "item", "rating"])
    recs = recs.iloc[draw(st.permutations(range(len(recs))))].reset_index(drop=True)
    truth = truth.iloc[draw(st.permutations(range(len(truth))))].reset_index(drop=True)
    return recs, truth
