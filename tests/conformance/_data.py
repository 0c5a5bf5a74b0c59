"""Shared hypothesis strategies, converters and helpers for the conformance tests.

The random data sets are drawn in two layers, to keep hypothesis fast and within its data
budget on 30 users x 30 items: hypothesis draws the *shape* of every data set (number of
users and items, the length of each user's list and ground truth, score style, a seed),
which it explores and shrinks, and a numpy generator seeded by hypothesis fills in the
contents (which items, grades and scores). Every example is reproducible from its draws.

Ids are strings: users ``u<n>`` and items ``i<n>`` (not zero-padded, so that the string
order of item ids, which trec_eval uses to break ties, differs from the numeric order).

Scores are multiples of 1/16 below 2**20 in magnitude, so that they are exact in single
precision: trec_eval stores scores as C ``float`` (see ``test_trec_eval.py``), and two
doubles that differ only beyond single precision would be a tie there and not here.
"""

from __future__ import annotations

import copy
import gzip
import importlib.util
import json
import math
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pandas as pd
from hypothesis import strategies as st

from receval.exceptions import UndefinedMetricWarning

__all__ = [
    "REL_TOL",
    "Case",
    "RatingCase",
    "assert_close",
    "assert_same_record",
    "cases",
    "close",
    "fixture_case",
    "fixture_cases",
    "fixture_maker",
    "inputs_of",
    "load_fixture",
    "rating_cases",
    "undefined_warnings_ignored",
]

REL_TOL = 1e-12
ABS_TOL = 1e-12

MAX_USERS = 30
MAX_LIST = 30
MAX_TRUTH = 15


def close(a: float, b: float) -> bool:
    """Equality to 1e-12 (relative or absolute); two NaNs are equal."""
    a, b = float(a), float(b)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=REL_TOL, abs_tol=ABS_TOL)


def assert_close(ours: float, theirs: float, what: str) -> None:
    """Assert ``close`` with a message naming the metric and user."""
    assert close(ours, theirs), f"{what}: receval {ours!r} != reference {theirs!r}"


@cache
def load_fixture(path: Path) -> dict[str, Any]:
    """A recorded fixture (gzipped JSON with a header and ``cases``), read once."""
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        data: dict[str, Any] = json.load(fh)
    return data


def fixture_cases(path: Path, prefix: str = "") -> list[str]:
    """Names of the fixture's cases that start with ``prefix``."""
    return [c["name"] for c in load_fixture(path)["cases"] if c["name"].startswith(prefix)]


def fixture_case(path: Path, name: str) -> dict[str, Any]:
    """One fixture case by name."""
    return next(c for c in load_fixture(path)["cases"] if c["name"] == name)


@cache
def fixture_maker(path: Path) -> ModuleType:
    """Import a fixture's script (``fixtures/make_<library>.py``) as a module.

    The scripts import their library at the top: only call this where it is installed (the
    live conformance modules, which CI runs in the environment the library needs).
    """
    spec = importlib.util.spec_from_file_location(f"_maker_{path.stem}", path)
    assert spec is not None, path
    assert spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def assert_same_record(stored: Any, live: Any, where: str = "") -> None:
    """Two JSON-like records are equal: the same keys and lists, numbers to 1e-12 (None for
    NaN). Used to check that a stored fixture is what its library still produces."""
    if isinstance(stored, dict):
        assert isinstance(live, dict), f"{where}: {live!r} is not a mapping"
        assert set(stored) == set(live), f"{where}: keys {sorted(stored)} != {sorted(live)}"
        for key in stored:
            assert_same_record(stored[key], live[key], f"{where}.{key}")
    elif isinstance(stored, list):
        assert isinstance(live, list), f"{where}: {live!r} is not a list"
        assert len(stored) == len(live), f"{where}: {len(live)} items, stored {len(stored)}"
        for j, (a, b) in enumerate(zip(stored, live, strict=True)):
            assert_same_record(a, b, f"{where}[{j}]")
    elif isinstance(stored, float) and isinstance(live, (int, float)):
        assert close(stored, live), f"{where}: stored {stored!r} != live {live!r}"
    else:
        assert stored == live, f"{where}: stored {stored!r} != live {live!r}"


def inputs_of(case: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """A deep copy of a stored case's inputs (the fields a fixture script reads)."""
    return {key: copy.deepcopy(case[key]) for key in keys if key in case}


@contextmanager
def undefined_warnings_ignored() -> Iterator[list[warnings.WarningMessage]]:
    """Record receval's UndefinedMetricWarning (expected on some data); let others raise."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("error")
        warnings.simplefilter("always", UndefinedMetricWarning)
        yield caught


@dataclass(frozen=True)
class Case:
    """One random ranking data set: recommendations with scores and graded truth.

    Attributes
    ----------
    recs : DataFrame
        Columns user, item, score (float); rows in random order.
    truth : DataFrame
        Columns user, item, rating (int64, 0 = judged non-relevant).
    """

    recs: pd.DataFrame
    truth: pd.DataFrame

    # -- conversions ---------------------------------------------------------------------
    def qrels(self) -> dict[str, dict[str, int]]:
        """Truth as ``{user: {item: grade}}`` (every judged row, grade 0 included)."""
        out: dict[str, dict[str, int]] = {}
        for u, i, g in self.truth.itertuples(index=False):
            out.setdefault(u, {})[i] = int(g)
        return out

    def run(self) -> dict[str, dict[str, float]]:
        """Recommendations as ``{user: {item: score}}`` (users with at least one row)."""
        out: dict[str, dict[str, float]] = {}
        for u, i, s in self.recs.itertuples(index=False):
            out.setdefault(u, {})[i] = float(s)
        return out

    def recs_trec_order(self) -> pd.DataFrame:
        """Rows sorted as trec_eval ranks them: score descending, then docno descending."""
        return self.recs.sort_values(["user", "score", "item"],
                                     ascending=[True, False, False], kind="mergesort")

    @property
    def truth_users(self) -> set[str]:
        """Users with at least one truth row."""
        return set(self.truth["user"])

    @property
    def recs_users(self) -> set[str]:
        """Users with at least one recommendation."""
        return set(self.recs["user"])

    def relevant_users(self) -> set[str]:
        """Users with at least one truth row of grade > 0."""
        return set(self.truth.loc[self.truth["rating"] > 0, "user"])

    @cached_property
    def _lists(self) -> dict[str, tuple[list[str], np.ndarray]]:
        return {str(u): (list(g["item"]), g["score"].to_numpy(dtype=np.float64))
                for u, g in self.recs.groupby("user", sort=False)}

    @cached_property
    def _grades(self) -> dict[str, dict[str, int]]:
        return self.qrels()

    def candidates(self, user: str) -> tuple[np.ndarray, np.ndarray, list[str]]:
        """The user's recommended items: (grades, scores, items), grade 0 when not judged."""
        items, scores = self._lists.get(user, ([], np.empty(0)))
        grades = self._grades.get(user, {})
        y_true = np.array([grades.get(i, 0) for i in items], dtype=np.float64)
        return y_true, scores, items


def _scores(rng: np.random.Generator, n: int, ties: bool, levels: int) -> np.ndarray:
    """``n`` scores: distinct and single-precision exact, or drawn from ``levels`` values."""
    if ties:
        return rng.integers(0, levels, size=n).astype(np.float64)
    return (rng.choice(2**24, size=n, replace=False) - 2**23) / 16.0


@st.composite
def cases(
    draw: Any,
    *,
    graded: bool | None = None,
    ties: bool = False,
    missing_recs: bool = True,
    recs_only: bool = True,
    relevant_in_recs: bool = False,
    need_relevant: bool = True,
    max_users: int = MAX_USERS,
) -> Case:
    """Random recommendations and truth.

    Parameters
    ----------
    graded : bool, optional
        Grades 0..4 (True), 0/1 (False), or either (None, drawn).
    ties : bool
        Scores from a few integer levels (many ties) instead of distinct scores.
    missing_recs : bool
        Allow truth users without any recommendation.
    recs_only : bool
        Allow users with recommendations and no truth row.
    relevant_in_recs : bool
        Judge only recommended items, so that every relevant item is in the user's list.
    need_relevant : bool
        Make sure at least one user with recommendations has a relevant item, so that a
        ranking evaluation with the default policies has someone to evaluate.
    max_users : int
        Upper bound on the number of users (1..max_users).
    """
    if graded is None:
        graded = draw(st.booleans())
    n_users = draw(st.integers(1, max_users))
    n_items = draw(st.integers(1, 60))
    levels = draw(st.integers(1, 4)) if ties else 0
    seed = draw(st.integers(0, 2**32 - 1))
    shuffle = draw(st.booleans())
    top_grade = 4 if graded else 1
    rng = np.random.default_rng(seed)

    recs_rows: list[tuple[str, str, float]] = []
    truth_rows: list[tuple[str, str, int]] = []
    for u in range(n_users):
        user = f"u{u}"
        kind = draw(st.sampled_from(
            ["both", "both", "both", "both"]
            + (["truth_only"] if missing_recs else [])
            + (["recs_only"] if recs_only else [])))
        n_recs = 0 if kind == "truth_only" else draw(st.integers(1, min(MAX_LIST, n_items)))
        rec_items = rng.choice(n_items, size=n_recs, replace=False)
        for item, score in zip(rec_items, _scores(rng, n_recs, ties, levels), strict=True):
            recs_rows.append((user, f"i{item}", float(score)))
        if kind == "recs_only":
            continue
        pool = rec_items if relevant_in_recs else np.arange(n_items)
        if len(pool) == 0:
            pool = np.arange(n_items)  # a truth-only user judges any item
        n_truth = draw(st.integers(1, min(MAX_TRUTH, len(pool))))
        judged = rng.choice(pool, size=n_truth, replace=False)
        grades = rng.integers(0, top_grade + 1, size=n_truth)
        truth_rows.extend((user, f"i{item}", int(g))
                          for item, g in zip(judged, grades, strict=True))

    # guarantee one evaluable user: u0 with a recommendation and a relevant judged item
    # (done on the row lists: pandas 2 warns on concatenating an empty frame)
    if need_relevant or not recs_rows or not truth_rows:
        first = [row for row in recs_rows if row[0] == "u0"]
        if not first:
            first = [("u0", "i0", 0.0)]
            recs_rows.extend(first)
        item = first[0][1]
        truth_rows = [row for row in truth_rows if (row[0], row[1]) != ("u0", item)]
        truth_rows.append(("u0", item, top_grade))
    recs = pd.DataFrame(recs_rows, columns=["user", "item", "score"])
    truth = pd.DataFrame(truth_rows, columns=["user", "item", "rating"])
    if shuffle:
        recs = recs.sample(frac=1.0, random_state=rng.integers(2**31))
        truth = truth.sample(frac=1.0, random_state=rng.integers(2**31))
    recs = recs.reset_index(drop=True).astype({"score": np.float64})
    truth = truth.reset_index(drop=True).astype({"rating": np.int64})
    return Case(recs, truth)


@dataclass(frozen=True)
class RatingCase:
    """Predicted ratings (``recs.score``) and true ratings (``truth.rating``).

    Every truth row has a prediction unless ``dropped`` lists (user, item) pairs without
    one; recs may also hold predictions for items without a truth row (ignored by rating
    metrics).
    """

    recs: pd.DataFrame
    truth: pd.DataFrame
    dropped: frozenset[tuple[str, str]]

    def pairs(self) -> pd.DataFrame:
        """Truth rows joined with their prediction (inner join): user, item, rating, score."""
        return self.truth.merge(self.recs, on=["user", "item"], how="inner")


@st.composite
def rating_cases(draw: Any, *, allow_missing: bool = False, max_users: int = MAX_USERS,
                 max_pairs: int = MAX_LIST) -> RatingCase:
    """Random rating predictions against true ratings.

    True ratings are 1..5 stars (or half stars); predictions are either continuous floats
    around them, or rounded to half stars so that predictions equal to a threshold, and
    ties, are frequent.
    """
    n_users = draw(st.integers(1, max_users))
    seed = draw(st.integers(0, 2**32 - 1))
    half_stars = draw(st.booleans())
    rounded = draw(st.booleans())
    rng = np.random.default_rng(seed)
    recs_rows: list[tuple[str, str, float]] = []
    truth_rows: list[tuple[str, str, float]] = []
    dropped: set[tuple[str, str]] = set()
    for u in range(n_users):
        user = f"u{u}"
        n = draw(st.integers(1, max_pairs))
        extra = draw(st.integers(0, 3))
        items = rng.choice(200, size=n + extra, replace=False)
        if half_stars:
            true = rng.integers(2, 11, size=n) / 2.0
        else:
            true = rng.integers(1, 6, size=n).astype(np.float64)
        pred = true + rng.normal(0.0, 1.2, size=n)
        if rounded:
            pred = np.round(pred * 2.0) / 2.0
        n_drop = draw(st.integers(0, n)) if allow_missing else 0
        drop = set(rng.choice(n, size=n_drop, replace=False).tolist())
        for j in range(n):
            truth_rows.append((user, f"i{items[j]}", float(true[j])))
            if j in drop:
                dropped.add((user, f"i{items[j]}"))
            else:
                recs_rows.append((user, f"i{items[j]}", float(pred[j])))
        recs_rows.extend((user, f"i{items[j]}", float(rng.normal(3.0, 1.0)))
                         for j in range(n, n + extra))
    if len(dropped) == len(truth_rows):  # keep at least one predicted truth rating
        user, item, rating = truth_rows[0]
        dropped.discard((user, item))
        recs_rows.append((user, item, rating + 0.25))
    recs = pd.DataFrame(recs_rows, columns=["user", "item", "score"])
    truth = pd.DataFrame(truth_rows, columns=["user", "item", "rating"])
    return RatingCase(recs, truth, frozenset(dropped))

