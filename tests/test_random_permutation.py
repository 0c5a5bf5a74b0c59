"""rv.models.Random: keyed Feistel permutations of the items, one per user.

The kernel (:mod:`receval._kernels.permutation`) against a plain-Python transcription of the
construction (Black and Rogaway's cycle walking over a six-round Feistel network whose round
function is XXH64); its invariants (a bijection, inverted by ``unpermute``); the uniformity
the module's docstring claims (chi-square tests, fixed keys, so the p-values are
deterministic); and the model built on it: hand-worked lists, scores, exclusions, the
independence of a user's list from the other users, ``score(pairs)``, seeds, speed class.
"""

from __future__ import annotations

import math
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chisquare

import receval as rv
from receval._kernels.hashing import SPARK_SEED, hash_long
from receval._kernels.permutation import (
    MIN_HALF_BITS,
    ROUNDS,
    half_bits,
    permute,
    permuted_top_k,
    ranks_of,
    unpermute,
)
from receval.exceptions import InvalidParameterError

MASK64 = (1 << 64) - 1


# -- a plain-Python transcription of the construction -----------------------------------------
def ref_half_bits(n: int) -> int:
    """The fewest bits holding 0..n-1, halved and rounded up, at least 4."""
    return max(4, math.ceil((n - 1).bit_length() / 2)) if n > 1 else 4


def ref_round(x: int, j: int, key: int, h: int) -> int:
    """F_j(x): the low h bits of XXH64(x + j * 2**32) under the key."""
    return int(hash_long(np.uint64(x + (j << 32)), np.uint64(key))) & ((1 << h) - 1)


def ref_encrypt(x: int, h: int, key: int) -> int:
    left, right = x >> h, x & ((1 << h) - 1)
    for j in range(6):
        left, right = right, left ^ ref_round(right, j, key, h)
    return (left << h) | right


def ref_permute(x: int, n: int, key: int) -> int:
    """Cycle walking: encrypt until the value falls in [0, n)."""
    h = ref_half_bits(n)
    y = ref_encrypt(x, h, key)
    while y >= n:
        y = ref_encrypt(y, h, key)
    return y


def ref_user_key(user: int, seed: int) -> int:
    """Spark's xxhash64(seed, user) for an integer user id: XXH64 of its 8 bytes."""
    seed_key = int(hash_long(np.uint64(seed), np.uint64(SPARK_SEED)))
    return int(hash_long(np.uint64(user & MASK64), np.uint64(seed_key)))


def test_constants_match_the_docstring():
    assert (ROUNDS, MIN_HALF_BITS) == (6, 4)
    for n in [1, 2, 3, 16, 255, 256, 257, 1000, 4096, 4097, 10**6, 2**40]:
        assert half_bits(n) == ref_half_bits(n), n


@pytest.mark.parametrize("n", [1, 2, 3, 5, 7, 16, 100, 256, 257, 1000])
def test_permute_equals_the_transcription(n):
    for key in (1, 0x9E3779B97F4A7C15, MASK64):
        h = half_bits(n)
        got = [permute(x, n, h, np.uint64(key)) for x in range(n)]
        assert got == [ref_permute(x, n, key) for x in range(n)]


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 17, 255, 256, 257, 4096, 4097])
def test_permute_is_a_bijection_inverted_by_unpermute(n):
    for key in (np.uint64(0), np.uint64(12345), np.uint64(MASK64)):
        h = half_bits(n)
        image = [permute(x, n, h, key) for x in range(n)]
        assert sorted(image) == list(range(n))
        assert [unpermute(y, n, h, key) for y in image] == list(range(n))


def test_large_domains_round_trip():
    n = 10**9 + 7  # h = 15: a 30-bit network, walked from 2**30 values
    h = half_bits(n)
    for x in [0, 1, 12345, n // 2, n - 1]:
        y = permute(x, n, h, np.uint64(77))
        assert 0 <= y < n
        assert unpermute(y, n, h, np.uint64(77)) == x


# -- uniformity (the docstring's measurements, on fixed keys) ----------------------------------
KEYS = np.random.default_rng(20261204).integers(0, 2**63, 60_000).astype(np.uint64)


def _orders(n: int, keys: np.ndarray = KEYS) -> np.ndarray:
    """Row u: the items of key u's permutation by rank (the full list)."""
    _offsets, items, _ = permuted_top_k(keys, n, np.zeros(len(keys) + 1, np.int64),
                                       np.empty(0, np.int64), n)
    return items.reshape(len(keys), n)


@pytest.mark.parametrize("n", [3, 4, 5])
def test_every_order_of_a_few_items_is_equally_likely(n):
    codes = (_orders(n) * n ** np.arange(n)).sum(axis=1)
    counts = np.unique(codes, return_counts=True)[1]
    assert len(counts) == math.factorial(n)  # every order is reached
    assert chisquare(counts).pvalue > 1e-3


@pytest.mark.parametrize("n", [2, 7, 33, 300, 4000])
def test_first_item_and_rank_of_an_item_are_uniform(n):
    orders = _orders(n) if n <= 300 else None
    if orders is None:  # the first item only: a top-1 walk
        _offsets, items, _ = permuted_top_k(KEYS, n, np.zeros(len(KEYS) + 1, np.int64),
                                           np.empty(0, np.int64), 1)
        first = items
        ranks = ranks_of(KEYS, np.arange(len(KEYS)), np.zeros(len(KEYS), np.int64), n)
    else:
        first = orders[:, 0]
        ranks = np.argmax(orders == 0, axis=1)
    bins = min(n, 40)  # group ranks / items into bins when n is large
    width = np.bincount(np.arange(n) * bins // n, minlength=bins)  # values per bin
    for values in (first, ranks):
        counts = np.bincount(values * bins // n, minlength=bins)
        assert chisquare(counts, width * len(values) / n).pvalue > 1e-3


def test_pairs_of_items_are_in_either_order_half_the_time():
    orders = _orders(20)
    position = np.argsort(orders, axis=1)  # position[u, i]: the rank of item i
    z = [(np.mean(position[:, a] < position[:, b]) - 0.5) / math.sqrt(0.25 / len(KEYS))
         for a in range(20) for b in range(a + 1, 20)]
    assert max(abs(v) for v in z) < 4.5  # 190 pairs: the largest |z| of 190 normals ~3


def test_neighbouring_keys_give_unrelated_permutations():
    # users 0, 1, 2, ... of one seed: their keys are XXH64 of the ids, so consecutive ids
    # share nothing; the first items of 60,000 consecutive users are uniform
    keys = np.array([ref_user_key(u, 0) for u in range(2000)], dtype=np.uint64)
    _offsets, items, _ = permuted_top_k(keys, 10, np.zeros(len(keys) + 1, np.int64),
                                       np.empty(0, np.int64), 1)
    assert chisquare(np.bincount(items, minlength=10)).pvalue > 1e-3


# -- the model -------------------------------------------------------------------------------
# users 1-3, items a-e; user 1 rated a, b; user 2 rated a, c, d; user 3 rated a, e
TRAIN = pd.DataFrame({"user_id": [1, 1, 2, 2, 2, 3, 3],
                      "item_id": ["a", "b", "a", "c", "d", "a", "e"]})
ITEMS = ["a", "b", "c", "d", "e"]


def test_random_hand_worked():
    # user u's list is item permute(0), permute(1), ... of the 5 training items (codes in
    # ascending id order) under key xxhash64(seed, u); the score of rank r is (5 - r) / 5
    model = rv.models.Random(seed=42).fit(TRAIN)
    recs = model.recommend([2, 1], k=5)
    for user in (1, 2):
        key = ref_user_key(user, 42)
        order = [ITEMS[ref_permute(r, 5, key)] for r in range(5)]
        got = recs.loc[recs.user_id == user]
        assert got["item_id"].tolist() == order
        assert got["score"].tolist() == [1.0, 0.8, 0.6, 0.4, 0.2]
    # pinned: a change of the construction changes these (and every documented number)
    assert recs.groupby("user_id")["item_id"].agg(list).to_dict() == {
        1: PINNED_1, 2: PINNED_2}


PINNED_1 = ["a", "c", "b", "d", "e"]
PINNED_2 = ["e", "a", "c", "b", "d"]


def test_exclusions_are_skipped_and_scores_keep_their_ranks():
    # the list with exclusions is the list without them, the excluded items left out: user 1
    # excludes a, b; each kept item keeps its score (its rank in the user's permutation)
    model = rv.models.Random(seed=42).fit(TRAIN)
    full = model.recommend([1, 2, 3], k=5)
    cut = model.recommend([1, 2, 3], k=2, exclude=TRAIN)
    seen = set(zip(TRAIN.user_id, TRAIN.item_id, strict=True))
    expected = (full[[(u, i) not in seen for u, i in zip(full.user_id, full.item_id, strict=True)]]
                .groupby("user_id").head(2).reset_index(drop=True))
    pd.testing.assert_frame_equal(cut, expected)


def test_a_user_list_depends_on_its_id_not_on_the_other_users():
    log = pd.DataFrame({"user_id": np.arange(400) % 37, "item_id": (np.arange(400) * 7) % 53})
    model = rv.models.Random(seed=5).fit(log)
    everyone = model.recommend(np.arange(37), 10, exclude=log)
    for some in ([3], [36, 0, 11], [11, 99]):
        part = model.recommend(some, 10, exclude=log)
        for user in some:
            a = part[part.user_id == user].reset_index(drop=True)
            b = everyone[everyone.user_id == user].reset_index(drop=True)
            if user < 37:
                pd.testing.assert_frame_equal(a, b)
            else:  # an unknown user gets every item, in its own order
                assert len(a) == 10


@settings(max_examples=60, deadline=None)
@given(n_items=st.integers(1, 40), k=st.integers(1, 50), seed=st.integers(0, 2**63 - 1),
       data=st.data())
def test_random_invariants(n_items, k, seed, data):
    users = data.draw(st.lists(st.integers(-5, 30), min_size=1, max_size=8, unique=True))
    rows = data.draw(st.lists(st.tuples(st.sampled_from(users), st.integers(0, n_items - 1)),
                              max_size=60))
    train = pd.DataFrame({"user_id": [u for u in users] + [u for u, _ in rows],
                          "item_id": [i % n_items for i in range(len(users))]
                          + [i for _, i in rows]})
    model = rv.models.Random(seed=seed).fit(train)
    n = len(model.items_)
    recs = model.recommend(users, k, exclude=train)
    seen = set(zip(train.user_id, train.item_id, strict=True))
    assert not any((u, i) in seen for u, i in zip(recs.user_id, recs.item_id, strict=True))
    for user, group in recs.groupby("user_id"):
        allowed = n - len({i for u, i in seen if u == user})
        assert len(group) == min(k, allowed)
        assert group["item_id"].is_unique
        s = group["score"].to_numpy()
        assert np.all(np.diff(s) < 0)
        assert np.all((s > 0) & (s <= 1))
        assert np.allclose(s * n, np.round(s * n))  # (n - rank) / n
    scored = model.score(recs[["user_id", "item_id"]])
    assert scored["score"].tolist() == recs["score"].tolist()


def test_score_gives_the_rank_of_any_training_pair():
    model = rv.models.Random(seed=1).fit(TRAIN)
    pairs = pd.DataFrame({"user_id": [3, 1, 3, 99], "item_id": ["e", "c", "a", "b"]})
    got = model.score(pairs)["score"].tolist()
    expected = []
    for user, item in zip(pairs.user_id, pairs.item_id, strict=True):
        key = ref_user_key(user, 1)
        rank = [ref_permute(r, 5, key) for r in range(5)].index(ITEMS.index(item))
        expected.append((5 - rank) / 5)
    assert got == expected


def test_score_refuses_items_absent_from_training():
    model = rv.models.Random(seed=1).fit(TRAIN)
    with pytest.raises(InvalidParameterError, match="absent from training"):
        model.score(pd.DataFrame({"user_id": [1], "item_id": ["zz"]}))


@pytest.mark.parametrize("seed", [None, -1, 2**63, 1.5, True, "0", np.float64(3.0)])
def test_random_refuses_seeds_that_are_not_reproducible_integers(seed):
    with pytest.raises(InvalidParameterError, match="seed must be an integer from 0"):
        rv.models.Random(seed=seed)


def test_ties_are_checked_but_never_apply():
    model = rv.models.Random(seed=4).fit(TRAIN)
    stable = model.recommend([1, 2, 3], 3)
    assert stable.equals(model.recommend([1, 2, 3], 3, ties="random", seed=8))
    with pytest.raises(InvalidParameterError, match="seed"):
        model.recommend([1], 3, ties="random")


@pytest.mark.slow
def test_random_same_in_a_fresh_process():
    code = textwrap.dedent("""
        import numpy as np, pandas as pd, receval as rv
        log = pd.DataFrame({"user_id": np.arange(300) % 17,
                            "item_id": [f"i{j}" for j in (np.arange(300) * 7) % 41]})
        recs = rv.models.Random(seed=9).fit(log).recommend(np.arange(20), 5, exclude=log)
        print(recs.to_csv(index=False))
    """)
    import os

    env = {k: v for k, v in os.environ.items() if k in ("PYTHONPATH", "NUMBA_CACHE_DIR",
                                                         "HOME", "PATH")}
    outs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, env={**env, "PYTHONHASHSEED": seed}).stdout
            for seed in ("1", "2")]
    assert outs[0] == outs[1]
    log = pd.DataFrame({"user_id": np.arange(300) % 17,
                        "item_id": [f"i{j}" for j in (np.arange(300) * 7) % 41]})
    here = rv.models.Random(seed=9).fit(log).recommend(np.arange(20), 5, exclude=log)
    assert outs[0] == here.to_csv(index=False) + "\n"  # print adds one
