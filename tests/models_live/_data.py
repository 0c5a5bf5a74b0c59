"""Small real-shaped interaction logs for the adapter tests, and list comparisons."""

from __future__ import annotations

import numpy as np
import pandas as pd


def log(seed: int, *, ids: str = "int", n_users: int = 120, n_items: int = 80,
        n_rows: int = 2500) -> pd.DataFrame:
    """A log with skewed (Zipf-like) item popularity and user activity, no repeated pair.

    ``ids="int"``: integer ids (users 1000.., items 5000.. — not codes); ``"str"``: string
    ids whose order differs from the integer order ("u7" > "u10"). Ratings 1-5 with a
    random fraction (no two equal), so that the libraries' scores are not tied.
    """
    rng = np.random.default_rng(seed)
    user_w = 1.0 / np.arange(1, n_users + 1) ** 0.6
    item_w = 1.0 / np.arange(1, n_items + 1) ** 0.9
    users = rng.choice(n_users, n_rows, p=user_w / user_w.sum())
    items = rng.choice(n_items, n_rows, p=item_w / item_w.sum())
    frame = pd.DataFrame({"user_id": users, "item_id": items}).drop_duplicates(
        ignore_index=True)
    frame["rating"] = rng.integers(1, 5, len(frame)) + rng.random(len(frame))
    if ids == "str":
        frame["user_id"] = "u" + frame["user_id"].astype(str)
        frame["item_id"] = "i" + frame["item_id"].astype(str)
    else:
        frame["user_id"] += 1000
        frame["item_id"] += 5000
    return frame


def lists(recs: pd.DataFrame, users: list[object]) -> list[list[object]]:
    """Each user's recommended items, best first, in the order of ``users``."""
    grouped = recs.groupby("user_id", sort=False)["item_id"].apply(list)
    return [grouped.get(u, []) for u in users]


def assert_same_lists(ours: list[list[object]], theirs: list[list[object]],
                      our_scores: list[np.ndarray], their_scores: list[np.ndarray], *,
                      rtol: float = 1e-5) -> None:
    """Same lists: equal scores (to ``rtol``), the same item at every position whose score
    is not tied (to ``rtol``) with another in the list or with the last one (which may tie
    with items left out) — the order of tied items is each library's own."""
    assert len(ours) == len(theirs)
    for a, b, sa, sb in zip(ours, theirs, our_scores, their_scores, strict=True):
        assert len(a) == len(b), (a, b)
        np.testing.assert_allclose(sa, sb, rtol=rtol, atol=1e-7)
        close = np.isclose(sa[:, None], sa[None, :], rtol=rtol, atol=1e-7).sum(axis=1) > 1
        if len(sa):  # the last score may tie with items the cutoff left out
            close |= np.isclose(sa, sa[-1], rtol=rtol, atol=1e-7)
        for j in np.flatnonzero(~close):
            assert a[j] == b[j], (j, a, b)
        assert set(a) - set(b) <= set(np.asarray(a, dtype=object)[close].tolist())
