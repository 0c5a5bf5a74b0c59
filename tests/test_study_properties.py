"""Properties of a study's building blocks: content hashes, filters, random search."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from receval.study._data import apply_filters
from receval.study._hashing import frame_sha256
from receval.study._tune import candidates

NONE = {"min_rating": None, "min_user_interactions": 1, "min_item_interactions": 1,
        "k_core": None}

logs = st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6), st.integers(1, 5)),
                min_size=0, max_size=60).map(
    lambda rows: pd.DataFrame(rows, columns=["user_id", "item_id", "rating"]).astype("int64"))


@given(logs, st.integers(1, 4))
@settings(max_examples=60, deadline=None)
def test_k_core_is_the_largest_core(frame, core):
    kept, _ = apply_filters(frame, {**NONE, "k_core": core})
    # every user and item left has at least `core` rows
    assert (kept.groupby("user_id").size() >= core).all()
    assert (kept.groupby("item_id").size() >= core).all()
    # and no dropped row could be added back: the k-core is the largest such subset, so
    # repeating the filter on the kept rows changes nothing, and a brute-force peel agrees
    again, _ = apply_filters(kept, {**NONE, "k_core": core})
    assert again.index.equals(kept.index)
    rows = frame.copy()
    while True:
        small = (rows.groupby("user_id")["item_id"].transform("size") < core) | \
                (rows.groupby("item_id")["user_id"].transform("size") < core)
        if not small.any():
            break
        rows = rows[~small]
    assert rows.index.equals(kept.index)


@given(logs, st.integers(1, 5), st.integers(1, 3), st.integers(1, 3))
@settings(max_examples=60, deadline=None)
def test_filters_keep_rows_in_order_and_count_what_they_drop(frame, rating, users, items):
    kept, dropped = apply_filters(frame, {**NONE, "min_rating": rating,
                                          "min_user_interactions": users,
                                          "min_item_interactions": items})
    assert kept.index.is_monotonic_increasing
    assert (kept["rating"] >= rating).all()
    assert len(kept) + sum(dropped.values()) == len(frame)


@given(logs, st.data())
@settings(max_examples=60, deadline=None)
def test_frame_hash_sees_every_value(frame, data):
    assert frame_sha256(frame) == frame_sha256(frame.copy())
    # the index is not hashed; the row order, every value and every dtype are
    assert frame_sha256(frame) == frame_sha256(frame.set_axis(np.arange(len(frame)) + 7))
    if len(frame):
        i = data.draw(st.integers(0, len(frame) - 1))
        changed = frame.copy()
        changed.iloc[i, 2] += 1
        assert frame_sha256(changed) != frame_sha256(frame)
        assert frame_sha256(frame.astype({"rating": "float64"})) != frame_sha256(frame)
    if len(frame) > 1 and not frame.iloc[0].equals(frame.iloc[-1]):
        assert frame_sha256(frame.iloc[::-1]) != frame_sha256(frame)


@given(st.dictionaries(st.sampled_from("abcd"), st.lists(st.integers(), min_size=1,
                                                          max_size=4, unique=True),
                       min_size=1), st.integers(1, 30), st.integers(0, 2**32 - 1))
@settings(max_examples=60, deadline=None)
def test_random_search_draws_distinct_grid_points(grid, n_iter, seed):
    full = candidates(grid, "grid", None, 0)
    drawn = candidates(grid, "random", n_iter, seed)
    assert len(drawn) == min(n_iter, len(full))
    assert all(point in full for point in drawn)
    assert len({tuple(sorted(p.items())) for p in drawn}) == len(drawn)
    assert drawn == candidates(grid, "random", n_iter, seed)
