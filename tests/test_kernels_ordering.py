"""The kernels that group, join and order rows, against plain numpy definitions.

``group_rows`` (the counting sort by user, in one pass or two), ``order_desc`` (the one
stable sort), ``rank_groups`` (each user's list, whole or its first
``top`` places), ``sort_groups_desc`` and ``match_in_groups`` (the join) are checked on
hand-made cases and on random groups with many ties, on one thread and on the thread pool.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from receval._kernels import _jit, grouping
from receval._kernels.grouping import (
    codes_of,
    group_rows,
    match_in_groups,
    repeats_in_groups,
)
from receval._kernels.ordering import _top_bound, rank_groups, sort_groups_desc
from receval._kernels.sorting import order_desc

EMPTY = np.empty(0)


@contextlib.contextmanager
def _pool(parallel: bool) -> Iterator[None]:
    """Run the kernels on the thread pool (every input is large enough) or on one thread."""
    saved = _jit.PARALLEL_MIN
    _jit.PARALLEL_MIN = 0 if parallel else 10**12
    try:
        yield
    finally:
        _jit.PARALLEL_MIN = saved


def _order(key: np.ndarray, tiebreak: np.ndarray | None = None) -> np.ndarray:
    out = np.empty(len(key), dtype=np.int64)
    order_desc(np.ascontiguousarray(key, dtype=np.float64),
               EMPTY if tiebreak is None else np.ascontiguousarray(tiebreak, dtype=np.float64),
               len(key), out, np.empty(len(key), dtype=np.int64))
    return out


def test_order_desc_by_hand() -> None:
    # keys 0.5, 0.9, 0.5, 0.7: 0.9 (position 1), 0.7 (3), then the tied 0.5s in input order
    assert _order(np.array([0.5, 0.9, 0.5, 0.7])).tolist() == [1, 3, 0, 2]
    # the same keys with a tiebreak: position 2 (tiebreak 0) before position 0 (tiebreak 1)
    assert _order(np.array([0.5, 0.9, 0.5, 0.7]), np.array([1.0, 0, 0, 0])).tolist() == \
        [1, 3, 2, 0]
    assert _order(np.array([])).tolist() == []


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 5), max_size=300), st.booleans(), st.integers(0, 2**31))
def test_order_desc_is_a_stable_lexicographic_sort(keys: list[int], tie: bool, seed: int) -> None:
    key = np.asarray(keys, dtype=np.float64)
    tb = np.random.default_rng(seed).integers(0, 3, len(key)).astype(np.float64) if tie else None
    pos = np.arange(len(key))
    expected = np.lexsort((pos, tb, -key)) if tb is not None else np.lexsort((pos, -key))
    assert _order(key, tb).tolist() == expected.tolist()


def _offsets(sizes: list[int]) -> np.ndarray:
    off = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=off[1:])
    return off


def _naive_lists(off: np.ndarray, key: np.ndarray, tiebreak: np.ndarray, top: int
                 ) -> list[list[int]]:
    lists = []
    for g in range(len(off) - 1):
        rows = np.arange(off[g], off[g + 1])
        tb = tiebreak[rows] if len(tiebreak) else np.zeros(len(rows))
        order = rows[np.lexsort((rows, tb, -key[rows]))]
        lists.append(order[:top].tolist() if top else order.tolist())
    return lists


@pytest.mark.parametrize("parallel", [False, True])
@settings(max_examples=60, deadline=None)
@given(sizes=st.lists(st.integers(0, 120), min_size=1, max_size=30),
       top=st.sampled_from([0, 1, 3, 11, 200]), tie=st.booleans(), seed=st.integers(0, 2**31))
def test_rank_groups_keeps_each_lists_first_places(parallel: bool, sizes: list[int], top: int,
                                                   tie: bool, seed: int) -> None:
    rng = np.random.default_rng(seed)
    off = _offsets(sizes)
    n = int(off[-1])
    key = rng.integers(0, 6, n).astype(np.float64)  # many ties
    tiebreak = rng.integers(0, 3, n).astype(np.float64) if tie else EMPTY
    item = rng.permutation(n).astype(np.int32)
    t_grade = rng.integers(0, 4, n).astype(np.float64)
    t_rel = t_grade > 0
    match = np.where(rng.random(n) < 0.5, rng.integers(0, max(n, 1), n), -1).astype(np.int32)
    with _pool(parallel):
        got = rank_groups(off, key, tiebreak, item, match, t_rel, t_grade, top)
    for g, rows in enumerate(_naive_lists(off, key, tiebreak, top)):
        place = slice(got.off[g], got.off[g + 1])
        rows_a = np.asarray(rows, dtype=np.int64)
        assert got.item[place].tolist() == item[rows_a].tolist()
        assert got.key is not None
        assert got.key[place].tolist() == key[rows_a].tolist()
        m = match[rows_a]
        rel = (m >= 0) & t_rel[np.maximum(m, 0)]
        assert got.rel[place].tolist() == rel.astype(np.uint8).tolist()
        assert got.grade[place].tolist() == np.where(rel, t_grade[np.maximum(m, 0)], 0).tolist()


def test_top_bound_by_hand() -> None:
    # top = 6: ceil(6 / 3) = 2 lanes; row i goes to lane i % 2
    key = np.array([9.0, 1, 8, 2, 7, 3, 6, 4, 5, 0])
    lanes = np.empty((3, 2))
    bound = _top_bound(key, 0, len(key), 6, lanes[0], lanes[1], lanes[2])
    # lane 0 holds 9, 8, 7, 6, 5 (third largest 7); lane 1 holds 1, 2, 3, 4, 0 (third 2)
    assert lanes[:, 0].tolist() == [9, 8, 7]
    assert lanes[:, 1].tolist() == [4, 3, 2]
    assert bound == min(7, 2) == 2  # 3 keys >= 7 in lane 0 and 3 keys >= 2 in lane 1
    assert np.sort(key)[::-1][6 - 1] == 4 >= bound  # the true 6th largest is not below it
    # a lane with fewer than three rows gives no bound
    assert _top_bound(key, 0, 5, 6, lanes[0], lanes[1], lanes[2]) == -np.inf


@settings(max_examples=200, deadline=None)
@given(keys=st.lists(st.floats(-1e6, 1e6) | st.integers(-3, 3).map(float), min_size=1,
                     max_size=400),
       top=st.integers(1, 40))
def test_top_bound_is_below_the_top_th_key(keys: list[float], top: int) -> None:
    key = np.asarray(keys)
    lanes = np.empty((3, (top + 2) // 3))
    bound = _top_bound(key, 0, len(key), top, lanes[0], lanes[1], lanes[2])
    assert (key >= bound).sum() >= min(top, len(key))


@pytest.mark.parametrize("parallel", [False, True])
@settings(max_examples=40, deadline=None)
@given(sizes=st.lists(st.integers(0, 400), min_size=1, max_size=12),
       top=st.integers(1, 40), levels=st.sampled_from([0, 3, 50]), seed=st.integers(0, 2**31))
def test_rank_groups_selects_like_a_stable_sort(parallel: bool, sizes: list[int], top: int,
                                                levels: int, seed: int) -> None:
    # long lists (selection), continuous keys or a few levels (ties), any top
    rng = np.random.default_rng(seed)
    off = _offsets(sizes)
    n = int(off[-1])
    key = rng.normal(size=n) if levels == 0 else rng.integers(0, levels, n).astype(np.float64)
    item = np.arange(n, dtype=np.int32)
    with _pool(parallel):
        got = rank_groups(off, key, EMPTY, item, np.full(n, -1, np.int32), np.array([True]),
                          np.array([1.0]), top)
    for g, rows in enumerate(_naive_lists(off, key, EMPTY, top)):
        assert got.item[got.off[g]:got.off[g + 1]].tolist() == rows


def test_rank_groups_by_hand() -> None:
    # one user, scores 0.2, 0.8, 0.5 (items 10, 11, 12); item 11 matches truth row 0 (grade 3)
    off = np.array([0, 3])
    lists = rank_groups(off, np.array([0.2, 0.8, 0.5]), EMPTY, np.array([10, 11, 12], np.int32),
                        np.array([-1, 0, -1], np.int32), np.array([True]), np.array([3.0]), 2)
    assert lists.off.tolist() == [0, 2]  # top=2: two places kept
    assert lists.item.tolist() == [11, 12]
    assert lists.rel.tolist() == [1, 0]
    assert lists.grade.tolist() == [3.0, 0.0]
    # no key: the rows already are in rank order
    lists = rank_groups(off, None, EMPTY, np.array([10, 11, 12], np.int32),
                        np.array([-1, 0, -1], np.int32), np.array([True]), np.array([3.0]))
    assert lists.key is None
    assert lists.item.tolist() == [10, 11, 12]


def test_sort_groups_desc() -> None:
    off = np.array([0, 3, 3, 5])
    assert sort_groups_desc(off, np.array([1.0, 3, 2, 5, 4])).tolist() == [3, 2, 1, 5, 4]


@pytest.mark.parametrize("parallel", [False, True])
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31), users=st.integers(1, 40), items=st.integers(1, 30))
def test_match_in_groups_is_the_join(parallel: bool, seed: int, users: int, items: int
                                     ) -> None:
    rng = np.random.default_rng(seed)
    r_items = [rng.integers(0, items, rng.integers(0, 8)) for _ in range(users)]  # repeats
    t_items = [np.sort(rng.choice(items, rng.integers(0, items + 1), replace=False))
               for _ in range(users)]
    r_off = np.r_[0, np.cumsum([len(x) for x in r_items])].astype(np.int64)
    t_off = np.r_[0, np.cumsum([len(x) for x in t_items])].astype(np.int64)
    r_item = np.concatenate(r_items).astype(np.int32)
    t_item = np.concatenate(t_items).astype(np.int32)
    out = np.empty(len(r_item), dtype=np.int32)
    with _pool(parallel):
        dups = match_in_groups(r_off, r_item, t_off, t_item, out, items)
    want_dups = 0
    for u in range(users):
        seen: set[int] = set()
        for p in range(r_off[u], r_off[u + 1]):
            x = int(r_item[p])
            want_dups += x in seen
            seen.add(x)
            hit = np.flatnonzero(t_item[t_off[u]:t_off[u + 1]] == x)
            assert out[p] == (t_off[u] + hit[0] if len(hit) else -1)
    assert dups == want_dups


def test_repeats_in_groups_by_hand() -> None:
    # group 0: items 3, 1, 3, 3 -> 2 repeats; group 1: 1, 2 -> none (1 was in another
    # group); group 2: empty; group 3: 2, 2 -> 1
    off = np.array([0, 4, 6, 6, 8], np.int64)
    item = np.array([3, 1, 3, 3, 1, 2, 2, 2], np.int32)
    assert repeats_in_groups(off, item, 4) == 3
    assert repeats_in_groups(off[:2], item[:4], 4) == 2


@pytest.mark.parametrize("parallel", [False, True])
@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31), groups=st.integers(0, 400), items=st.integers(1, 30))
def test_repeats_in_groups_counts_like_sets(parallel: bool, seed: int, groups: int,
                                            items: int) -> None:
    rng = np.random.default_rng(seed)
    sizes = rng.integers(0, 12, groups)
    off = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    item = rng.integers(0, items, int(off[-1])).astype(np.int32)
    want = sum(int(sizes[g]) - len(set(item[off[g]:off[g + 1]].tolist()))
               for g in range(groups))
    with _pool(parallel):
        assert repeats_in_groups(off, item, items) == want


@contextlib.contextmanager
def _passes(two: bool, shift: int) -> Iterator[None]:
    """Group in two passes with blocks of ``2**shift`` codes, or always in one pass."""
    saved = grouping.RADIX_MIN_CODES, grouping.RADIX_SHIFT
    grouping.RADIX_MIN_CODES, grouping.RADIX_SHIFT = (0, shift) if two else (10**9, shift)
    try:
        yield
    finally:
        grouping.RADIX_MIN_CODES, grouping.RADIX_SHIFT = saved


def test_group_rows_by_hand() -> None:
    # codes 2, 0, 2, 1, 0 -> code 0: rows 1, 4; code 1: row 3; code 2: rows 0, 2 (input order)
    code = np.array([2, 0, 2, 1, 0], np.int32)
    item = np.array([20, 21, 22, 23, 24], np.int32)
    value = np.array([0.0, 0.1, 0.2, 0.3, 0.4])
    for two in (False, True):
        with _passes(two, 1):
            items, values, off = group_rows(code, 4, item, value)  # code 3 has no row
        assert items.tolist() == [21, 24, 23, 20, 22]
        assert values is not None
        assert values.tolist() == [0.1, 0.4, 0.3, 0.0, 0.2]
        assert off.tolist() == [0, 2, 3, 5, 5]
        assert codes_of(off).tolist() == [0, 0, 1, 2, 2]


def test_group_rows_packs_places_into_the_top_bits_of_large_items() -> None:
    # two passes of 2-bit blocks: between them a row's place in its block (code & 3) rides
    # in bits 29-30 of its item when the items are below 2**29, and must come off again
    code = np.array([5, 1, 6, 1, 4, 7], np.int32)
    top = 2**29 - 1
    item = np.array([top, 0, top - 1, 7, 1, top - 2], np.int32)
    value = np.arange(6.0)
    for n_items in (None, 2**29, 2**29 + 1):  # not packed, packed, too large to pack
        with _passes(True, 2):
            items, values, off = group_rows(code, 8, item, value, n_items)
        # code 1: rows 1, 3; code 4: row 4; code 5: row 0; code 6: row 2; code 7: row 5
        assert items.tolist() == [0, 7, 1, top, top - 1, top - 2]
        assert values is not None
        assert values.tolist() == [1.0, 3.0, 4.0, 0.0, 2.0, 5.0]
        assert off.tolist() == [0, 0, 2, 2, 2, 3, 4, 5, 6]


@pytest.mark.parametrize("parallel", [False, True])
@pytest.mark.parametrize("two", [False, True])
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31), n_codes=st.integers(1, 300), rows=st.integers(0, 2000),
       shift=st.integers(0, 5), with_value=st.booleans(), bounded=st.booleans())
def test_group_rows_is_a_stable_sort_by_code(parallel: bool, two: bool, seed: int,
                                             n_codes: int, rows: int, shift: int,
                                             with_value: bool, bounded: bool) -> None:
    rng = np.random.default_rng(seed)
    code = rng.integers(0, n_codes, rows).astype(np.int32)
    item = rng.integers(0, 50, rows).astype(np.int32)
    value = rng.random(rows) if with_value else None
    with _pool(parallel), _passes(two, shift):  # bounded items: packed with the places
        items, values, off = group_rows(code, n_codes, item, value, 50 if bounded else None)
        codes = codes_of(off)
    order = np.argsort(code, kind="stable")
    assert np.array_equal(items, item[order])
    assert values is None if value is None else np.array_equal(values, value[order])
    assert np.array_equal(off, np.searchsorted(code[order], np.arange(n_codes + 1)))
    assert np.array_equal(codes, code[order])
