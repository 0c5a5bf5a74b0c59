"""receval on a beyond-accuracy case: the inputs as frames, and a comparison of its per-user
values and means with a library's."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

import receval as rv
from receval import EvaluationResult

__all__ = ["TOL", "compare", "evaluate", "frames"]

#: tolerance of the comparisons (sklearn's cosine distances and pandas' sums differ from
#: receval's kernels in the last bits)
TOL = 1e-9


def frames(case: dict[str, Any], recs_rows: list[list[Any]] | None = None
           ) -> dict[str, pd.DataFrame]:
    """recs, truth, train and item_features (a wide table) of the case."""
    dim = len(next(iter(case["features"].values())))
    return {
        "recs": pd.DataFrame(recs_rows if recs_rows is not None else case["recs"],
                             columns=["user", "item", "score"]),
        "truth": pd.DataFrame(case["truth"] or [["nobody", 0, 1]],
                              columns=["user", "item", "rating"]),
        "train": pd.DataFrame(case["train"], columns=["user", "item"]),
        "item_features": pd.DataFrame([[int(i), *v] for i, v in case["features"].items()],
                                      columns=["item", *(f"f{j}" for j in range(dim))]),
    }


def evaluate(case: dict[str, Any], metrics: list[str], convention: str,
             recs_rows: list[list[Any]] | None = None, *, features: bool = True,
             **kwargs: Any) -> EvaluationResult:
    """``rv.evaluate`` of the case under a convention (recs_rows replaces the case's recs).

    ``features``: pass the case's ``item_features`` (a convention may read metric names
    differently with them: MS Recommenders' feature similarity).
    """
    data = frames(case, recs_rows)
    return rv.evaluate(data["recs"], data["truth"], metrics, convention=convention,
                       train=data["train"],
                       item_features=data["item_features"] if features else None, **kwargs)


def _close(a: float, b: float | None) -> bool:
    if b is None or math.isnan(b):
        return math.isnan(a)
    return math.isclose(a, b, rel_tol=TOL, abs_tol=TOL)


def compare(ev: EvaluationResult, label: str, mean: float | None,
            per_user: dict[str, float | None] | None, what: str) -> None:
    """receval's mean (and per-user values, users with a value) equal the library's."""
    assert _close(ev[label], mean), f"{what}: receval {ev[label]!r} != library {mean!r}"
    if per_user is None:
        return
    column = ev.per_user[label].dropna()
    theirs = {u: v for u, v in per_user.items() if v is not None and not math.isnan(v)}
    assert set(column.index) == set(theirs), \
        f"{what}: users {sorted(column.index)} != {sorted(theirs)}"
    for user, value in theirs.items():
        assert _close(float(column[user]), value), \
            f"{what} {user}: receval {column[user]!r} != library {value!r}"
