"""receval.models._rank.top_k_scores: hand-computed lists, a numpy oracle (hypothesis), the
tie policies, blocks, exclusion, and bad input."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from receval._kernels.hashing import hash_long, hash_longs
from receval._kernels.selection import tie_key
from receval.exceptions import InvalidModelError, InvalidParameterError, TiesAtCutoffWarning
from receval.models._rank import RankedBlock, top_k_scores, warn_ties
from tests.strategies import examples

# 4 users x 6 items; user 3 has no candidate (all -inf or NaN)
S = np.array([
    [3.0, 2.0, 2.0, np.nan, 1.0, 2.0],  # candidates: 0 (3), 1, 2, 5 (2), 4 (1)
    [0.5, 0.5, 0.5, 0.5, 0.5, 0.5],     # all tie
    [1.0, np.inf, 4.0, 4.0, -np.inf, 0.0],
    [-np.inf, np.nan, -np.inf, -np.inf, np.nan, -np.inf],
])


def _lists(r: RankedBlock, n_rows: int) -> list[list[int]]:
    return [r.items[r.rows == i].tolist() for i in range(n_rows)]


def test_hand_computed_stable():
    # k = 2; row 0 excludes item 0: best 2s are items 1, 2 (item 5 also 2 -> tie cut)
    # row 1: six items tie at 0.5: 0, 1 in the list, 2..5 out -> tie cut
    # row 2: inf (item 1), then 4.0 for items 2 and 3 -> item 2 in, 3 out -> tie cut
    # row 3: no candidate -> empty list
    r = top_k_scores(lambda c: S[c], np.arange(4), 6, 2,
                     exclude_indptr=[0, 1, 1, 1, 1], exclude_indices=[0])
    assert _lists(r, 4) == [[1, 2], [0, 1], [1, 2], []]
    assert r.scores.tolist() == [2.0, 2.0, 0.5, 0.5, np.inf, 4.0]
    assert r.rows.tolist() == [0, 0, 1, 1, 2, 2]
    assert r.tied_users == 3
    assert r.tie_policy == "stable"
    assert r.seed is None


def test_no_tie_counted_when_the_group_fits():
    # k = 3: row 0 takes 0 (3) and then 1, 2, 5 all at 2 -> 1 and 2 in, 5 out: tied;
    # k = 4: row 0 takes 0, 1, 2, 5: the whole group of 2s fits -> not tied
    # row 2, k = 3: inf, 4, 4 -> both 4s in -> not tied
    assert top_k_scores(lambda c: S[c], [0], 6, 3).tied_users == 1
    assert top_k_scores(lambda c: S[c], [0], 6, 4).tied_users == 0
    assert top_k_scores(lambda c: S[c], [2], 6, 3).tied_users == 0
    # fewer candidates than k: row 0 has 5 candidates, k = 9 -> all 5, no tie
    r = top_k_scores(lambda c: S[c], [0], 6, 9)
    assert r.items.tolist() == [0, 1, 2, 5, 4]
    assert r.tied_users == 0


def _oracle(scores: np.ndarray, codes: np.ndarray, ptr: np.ndarray, idx: np.ndarray, k: int,
            seed: int | None) -> tuple[list[list[int]], int]:
    """Sort every row by (score desc, tie key asc) with numpy; count tie cuts."""
    key = tie_key(seed)
    lists, tied = [], 0
    for r in range(scores.shape[0]):
        s = scores[r].copy()
        s[idx[ptr[r]:ptr[r + 1]]] = -np.inf
        s[np.isnan(s)] = -np.inf
        items = np.arange(len(s))
        if seed is None:
            tk = items.astype(np.uint64)
        else:
            ukey = np.uint64(hash_long(np.uint64(codes[r]), key))
            tk = hash_longs(items.astype(np.uint64), ukey)
        order = np.lexsort((tk, -s))
        order = order[s[order] > -np.inf][:k]
        lists.append(order.tolist())
        if len(order) == k and (s >= s[order[-1]]).sum() > k:
            tied += 1
    return lists, tied


@st.composite
def _problems(draw):  # type: ignore[no-untyped-def]
    n_users = draw(st.integers(1, 7))
    n_items = draw(st.integers(1, 12))
    values = st.sampled_from([0.0, 0.25, 1.0, 2.0, -3.0, np.inf, -np.inf, np.nan])
    scores = draw(hnp.arrays(np.float64, (n_users, n_items), elements=values))
    excl = [draw(st.lists(st.integers(0, n_items - 1), max_size=4)) for _ in range(n_users)]
    ptr = np.r_[0, np.cumsum([len(e) for e in excl])].astype(np.int64)
    idx = np.array([i for e in excl for i in e], dtype=np.int64)
    codes = np.array(draw(st.permutations(range(100)))[:n_users], dtype=np.int64)
    return scores, codes, ptr, idx, draw(st.integers(1, 14)), draw(st.integers(1, 4))


@settings(max_examples=examples(150), deadline=None)
@given(_problems(), st.sampled_from([None, 0, 7, 2**63 - 1]))
def test_matches_the_numpy_oracle(problem, seed):
    scores, codes, ptr, idx, k, block = problem
    rows_of = {int(c): r for r, c in enumerate(codes)}
    r = top_k_scores(lambda c: scores[[rows_of[int(x)] for x in c]], codes, scores.shape[1],
                     k, exclude_indptr=ptr, exclude_indices=idx,
                     ties="stable" if seed is None else "random", seed=seed, block_size=block)
    want, tied = _oracle(scores, codes, ptr, idx, k, seed)
    assert _lists(r, len(codes)) == want
    assert r.tied_users == tied
    assert np.array_equal(r.scores, np.concatenate(
        [np.empty(0)] + [scores[i, w] for i, w in enumerate(want)]))
    assert np.all(np.diff(r.rows) >= 0)


def test_random_ties_are_seeded_and_local():
    # every score ties: the list is the seed's random order of the user's items
    flat = np.zeros((30, 50))
    a = top_k_scores(lambda c: flat[c], np.arange(30), 50, 5, ties="random", seed=3)
    b = top_k_scores(lambda c: flat[c], np.arange(30), 50, 5, ties="random", seed=3,
                     block_size=7)
    c = top_k_scores(lambda c: flat[c], np.arange(30), 50, 5, ties="random", seed=4)
    assert np.array_equal(a.items, b.items)
    assert not np.array_equal(a.items, c.items)
    assert a.tied_users == 30
    assert a.tie_policy == "random"
    assert a.seed == 3
    # a user's list does not depend on the other users asked for
    d = top_k_scores(lambda c: flat[c], np.array([17, 4]), 50, 5, ties="random", seed=3)
    assert d.items[:5].tolist() == a.items[a.rows == 17].tolist()
    # different users get different orders
    assert len({tuple(a.items[a.rows == u]) for u in range(30)}) == 30


def test_random_ties_same_in_a_fresh_process():
    code = ("import numpy as np; from receval.models._rank import top_k_scores; "
            "r = top_k_scores(lambda c: np.zeros((len(c), 40)), np.arange(9), 40, 4, "
            "ties='random', seed=11); print(r.items.tolist())")
    out = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout for _ in range(2)]
    here = top_k_scores(lambda c: np.zeros((len(c), 40)), np.arange(9), 40, 4,
                        ties="random", seed=11)
    assert out[0] == out[1] == f"{here.items.tolist()}\n"


def test_default_block_keeps_scores_under_64_mb():
    seen = []

    def scorer(codes: np.ndarray) -> np.ndarray:
        seen.append(len(codes))
        return np.zeros((len(codes), 100_000))

    top_k_scores(scorer, np.arange(250), 100_000, 3)
    # 64 MB / (8 bytes x 100,000 items) = 83 users per block
    assert seen == [83, 83, 83, 1]


@pytest.mark.parametrize(("kwargs", "parameter", "words"), [
    ({"ties": "first"}, "ties", "'stable', 'random'"),
    ({"ties": None}, "ties", "'stable', 'random'"),
    ({"ties": "random"}, "seed", "seed"),
    ({"ties": "random", "seed": 1.5}, "seed", "seed"),
    ({"ties": "random", "seed": True}, "seed", "seed"),
    # one rule for every seed (check_seed): -1 was 2**64 - 1, mod 2**64
    ({"ties": "random", "seed": -1}, "seed", "0 to 2**63 - 1"),
    ({"ties": "random", "seed": 2**63}, "seed", "0 to 2**63 - 1"),
    ({"k": 0}, "k", ">= 1"),
    ({"k": 2.0}, "k", ">= 1"),
    ({"block_size": 0}, "block_size", ">= 1"),
    ({"exclude_indptr": [0, 1]}, "exclude_indptr", "together"),
    ({"exclude_indptr": [0, 1], "exclude_indices": [9]}, "exclude_indptr", "offsets"),
    ({"exclude_indptr": [0, 1, 1, 1, 1], "exclude_indices": [6]}, "exclude_indices", "[0, 6)"),
])
def test_bad_arguments_name_the_parameter(kwargs, parameter, words):
    args = {"k": 2, **kwargs}
    with pytest.raises(InvalidParameterError) as err:
        top_k_scores(lambda c: S[c], np.arange(4), 6, **args)
    assert err.value.parameter == parameter
    assert words in str(err.value)


@pytest.mark.parametrize("bad", [
    lambda c: S[c][:, :3],             # too few items
    lambda c: S[c][:1],                 # too few users
    lambda c: None,                     # nothing
    lambda c: S[c].astype(str),         # strings
    lambda c: S[c].ravel(),             # 1-D
])
def test_bad_scorer_output_is_a_model_error(bad):
    with pytest.raises(InvalidModelError, match="expected a float array of shape"):
        top_k_scores(bad, np.arange(4), 6, 2)


def test_warn_ties_says_what_was_done():
    r = top_k_scores(lambda c: S[c], np.arange(4), 6, 2)
    with pytest.warns(TiesAtCutoffWarning, match=r"for 3 users.*ascending item id") as rec:
        warn_ties("MyModel", r, 2)
    assert rec[0].filename == __file__  # attributed to the caller's line
    r = top_k_scores(lambda c: S[c], np.arange(4), 6, 2, ties="random", seed=5)
    with pytest.warns(TiesAtCutoffWarning, match=r"at random with seed=5"):
        warn_ties("MyModel", r, 2, note="MyModel ties every item.")
    r = top_k_scores(lambda c: S[c], np.arange(4), 6, 1)  # row 0 alone at the top: no tie
    r0 = RankedBlock(r.rows, r.items, r.scores, 0, "stable")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warn_ties("MyModel", r0, 1)
