"""The baselines' tie policy (ties=, seed=), their TiesAtCutoffWarning, and score(pairs)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
from receval.exceptions import InvalidParameterError, TiesAtCutoffWarning
from receval.models._rank import top_k_scores
from receval.models._topk import ties_cut_in_walk, top_k_global
from tests.strategies import examples

# users 1-3, items a-e; user 1 rated a, b; user 2 rated a, c, d; user 3 rated a, e
TRAIN = pd.DataFrame({
    "user_id": [1, 1, 2, 2, 2, 3, 3],
    "item_id": ["a", "b", "a", "c", "d", "a", "e"],
    "rating": [5.0, 3.0, 4.0, 2.0, 2.0, 3.0, 1.0],
})

MODELS = [lambda: rv.models.Random(seed=3), rv.models.MostPopular, rv.models.GlobalMean,
          rv.models.UserMean, rv.models.ItemMean]


def _lists(recs: pd.DataFrame) -> dict[object, list[object]]:
    return {u: g["item_id"].tolist() for u, g in recs.groupby("user_id", sort=True)}


def test_most_popular_counts_the_users_cut_inside_ties():
    # counts: a = 3, b = c = d = e = 1; k = 2 with the training rows excluded:
    # user 1 (a, b out): c, d in, e (also 1) out -> tied
    # user 2 (a, c, d out): b, e in, nothing left -> not tied
    # user 3 (a, e out): b, c in, d out -> tied;  user 9: a, b in, c, d, e out -> tied
    model = rv.models.MostPopular().fit(TRAIN)
    with pytest.warns(TiesAtCutoffWarning,
                      match=r"MostPopular.recommend: for 3 users the score at rank k=2.*"
                            r"ascending item id") as rec:
        recs = model.recommend([1, 2, 3, 9], k=2, exclude=TRAIN)
    assert len(rec) == 1
    assert _lists(recs) == {1: ["c", "d"], 2: ["b", "e"], 3: ["b", "c"], 9: ["a", "b"]}
    # k = 1: user 2 keeps b, e is left out at the same count -> tied; 9: a alone at 3
    with pytest.warns(TiesAtCutoffWarning, match="for 1 users"):
        model.recommend([2, 9], k=1, exclude=TRAIN)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.recommend([9], k=1)  # a alone at the top: no warning
        model.recommend([2], k=2, exclude=TRAIN)  # b, e: the whole group fits


def test_random_ties_are_seeded_per_user():
    model = rv.models.MostPopular().fit(TRAIN)
    users = list(range(1, 40))
    with pytest.warns(TiesAtCutoffWarning, match="at random with seed=8"):
        a = model.recommend(users, k=2, ties="random", seed=8)
    with pytest.warns(TiesAtCutoffWarning):
        b = model.recommend(users[::-1], k=2, ties="random", seed=8)
    assert a.equals(b)
    lists = _lists(a)
    assert all(items[0] == "a" for items in lists.values())  # the count 3 comes first
    assert len({items[1] for items in lists.values()}) == 4  # b..e all drawn for some user
    assert a["score"].tolist() == [3.0, 1.0] * len(users)


@pytest.mark.parametrize("make", MODELS[1:])
def test_constant_models_and_most_popular_accept_both_policies(make):
    model = make().fit(TRAIN)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TiesAtCutoffWarning)
        stable = model.recommend([1, 2, 3], k=3, exclude=TRAIN)
        rand = model.recommend([1, 2, 3], k=3, exclude=TRAIN, ties="random", seed=0)
    # same users, same list lengths, same scores per rank; only tied items may move
    assert stable.groupby("user_id").size().equals(rand.groupby("user_id").size())
    assert stable["score"].tolist() == rand["score"].tolist()


@pytest.mark.parametrize("model", ["UserMean", "GlobalMean"])
def test_constant_models_say_they_tie_every_item(model):
    m = getattr(rv.models, model)().fit(TRAIN)
    with pytest.warns(TiesAtCutoffWarning,
                      match=f"{model} gives every item of a user the same score"):
        m.recommend([1], k=2)  # 5 allowed items, 2 kept


@pytest.mark.parametrize("make", MODELS)
@pytest.mark.parametrize(("ties", "seed", "parameter"), [
    ("first", None, "ties"), (None, None, "ties"), ("random", None, "seed"),
    ("random", "1", "seed"), ("random", 2.0, "seed"),
])
def test_bad_tie_policy_names_the_parameter(make, ties, seed, parameter):
    with pytest.raises(InvalidParameterError) as err:
        make().fit(TRAIN).recommend([1], 2, ties=ties, seed=seed)
    assert err.value.parameter == parameter


def test_random_is_unchanged_by_the_tie_policy_and_scores_pairs():
    model = rv.models.Random(seed=5).fit(TRAIN)
    recs = model.recommend([3, 1, 2], k=5)
    assert recs.equals(model.recommend([1, 2, 3], k=5, ties="random", seed=1))
    # score: the draws recommend gives the same users, at any pairs, in pairs order
    pairs = recs.sample(frac=1.0, random_state=0)[["user_id", "item_id"]]
    assert np.array_equal(model.score(pairs)["score"].to_numpy(),
                          recs.set_index(["user_id", "item_id"]).loc[
                              list(pairs.itertuples(index=False, name=None)), "score"])
    with pytest.raises(InvalidParameterError, match=r"absent from training.*\(1, 'z'\)"):
        model.score(pd.DataFrame({"user_id": [1], "item_id": ["z"]}))


def test_scores_of_pairs():
    pairs = pd.DataFrame({"user_id": [1, 9, 3], "item_id": ["a", "e", "zz"]})
    # MostPopular: the item's count (a = 3 users, e = 1, unknown zz = 0)
    assert rv.models.MostPopular().fit(TRAIN).score(pairs)["score"].tolist() == [3.0, 1.0, 0.0]
    # the mean predictors score as they predict
    for make in (rv.models.GlobalMean, rv.models.UserMean, rv.models.ItemMean):
        m = make().fit(TRAIN)
        assert m.score(pairs).equals(m.predict(pairs))
    # ItemMean: a = (5 + 4 + 3) / 3 = 4, e = 1, zz -> mu = 20 / 7
    assert rv.models.ItemMean().fit(TRAIN).score(pairs)["score"].tolist() == \
        [4.0, 1.0, 20 / 7]


@st.composite
def _walks(draw):  # type: ignore[no-untyped-def]
    n = draw(st.integers(1, 12))
    values = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), float)
    n_users = draw(st.integers(1, 6))
    excl = [sorted(set(draw(st.lists(st.integers(0, n - 1), max_size=5))))
            for _ in range(n_users)]
    return values, excl, draw(st.integers(1, 13))


@settings(max_examples=examples(150), deadline=None)
@given(_walks())
def test_walk_tie_count_matches_the_selection(case):
    # the compiled walk of a global order + ties_cut_in_walk give the same lists and the
    # same tied users as top_k_scores on every user's row of the same values
    values, excl, k = case
    n = len(values)
    order = np.lexsort((np.arange(n), -values))
    position = np.empty(n, dtype=np.int64)
    position[order] = np.arange(n)
    ptr = np.r_[0, np.cumsum([len(e) for e in excl])].astype(np.int64)
    codes = np.array([c for e in excl for c in e], dtype=np.int64)
    pos = np.concatenate([np.sort(position[e]) for e in excl] + [np.empty(0, np.int64)])
    offsets, out = top_k_global(order, ptr, pos.astype(np.int64), k)
    flags = ties_cut_in_walk(values[order], offsets, out, ptr, pos.astype(np.int64), k)
    ranked = top_k_scores(lambda c: np.broadcast_to(values, (len(c), n)),
                          np.arange(len(excl)), n, k, exclude_indptr=ptr,
                          exclude_indices=codes)
    assert order[out].tolist() == ranked.items.tolist()
    assert int(flags.sum()) == ranked.tied_users


def test_random_ties_of_string_ids_same_in_fresh_processes():
    import os
    import subprocess
    import sys
    from pathlib import Path

    code = ("import warnings, pandas as pd, receval as rv; warnings.simplefilter('ignore'); "
            "t = pd.DataFrame({'user_id': ['u1', 'u2', 'u3'], 'item_id': ['a', 'b', 'c']}); "
            "m = rv.models.MostPopular().fit(t); "
            "print(m.recommend(['u1', 'u2', 'x'], 2, ties='random', seed=3).to_csv())")
    src = str(Path(rv.__file__).resolve().parents[1])
    outs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, env={**os.environ, "PYTHONHASHSEED": seed,
                                            "PYTHONPATH": src}).stdout
            for seed in ("1", "2")]
    assert outs[0] == outs[1]
