"""Small builders of recommendation and truth frames shared by the hand-computed tests."""

from __future__ import annotations

import pandas as pd


def recs_frame(lists: dict[str, list[str]]) -> pd.DataFrame:
    """One row per (user, item); the score decreases down each list (rank 1 first)."""
    rows = [(u, item, float(len(items) - i)) for u, items in lists.items()
            for i, item in enumerate(items)]
    return pd.DataFrame(rows, columns=["user", "item", "score"])


def truth_frame(truth: dict[str, dict[str, float]]) -> pd.DataFrame:
    """One row per (user, item, grade)."""
    rows = [(u, item, float(g)) for u, graded in truth.items() for item, g in graded.items()]
    return pd.DataFrame(rows, columns=["user", "item", "rating"])
