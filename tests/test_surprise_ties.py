"""The KNN tie pitfall of issue 24 on MovieLens-shaped data, and how ``ties=`` handles it.

Before: ``Surprise(KNNBasic())`` ranked by clipped estimates and broke ties by item id,
silently; on sparse data most candidates of a user sit at exactly 5.0 (all their few
neighbours rated 5), so every list was the user's smallest unseen item ids.
Now: the ties are reported (``TiesAtCutoffWarning``, ``tied_users_``), and ``ties=``
chooses what to do: item order, a seeded random order, or more neighbours first.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import receval as rv

surprise = pytest.importorskip("surprise")


@pytest.fixture(scope="module")
def fitted() -> tuple[rv.models.Surprise, pd.DataFrame, pd.DataFrame]:
    # sparse like MovieLens: Zipf popularity, ~28 ratings per user, 1322 rated items
    data = rv.datasets.sample_ratings(300, 1500, seed=11)
    data = data[["user_id", "item_id", "rating"]].astype({"rating": float})
    train, test = rv.split.random(data, test_size=0.2, seed=0)
    model = rv.models.Surprise(surprise.KNNBasic(verbose=False)).fit(train)
    return model, train, test


def _recommend(model: rv.models.Surprise, train: pd.DataFrame, test: pd.DataFrame,
               **ties: object) -> tuple[pd.DataFrame, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        recs = model.recommend(np.sort(test["user_id"].unique()), 10, exclude=train, **ties)
    return recs, [str(w.message) for w in caught
                  if issubclass(w.category, rv.exceptions.TiesAtCutoffWarning)]


def test_the_pitfall_is_real_in_surprise(fitted):
    # Surprise's own estimates: for these users, more than 10 unseen items at exactly 5.0, so
    # sorting by estimate then item id gives the 10 smallest unseen ids
    model, train, _ = fitted
    items = np.sort(train["item_id"].unique())
    for user in np.sort(train["user_id"].unique())[:5]:
        unseen = np.setdiff1d(items, train.loc[train["user_id"] == user, "item_id"])
        est = np.array([model.algo.predict(user, i).est for i in unseen])
        assert (est == 5.0).sum() > 10
        top = sorted(zip(-est, unseen, strict=True))[:10]
        assert [i for _, i in top] == unseen[est == 5.0][:10].tolist()


def test_stable_ties_are_reported_not_silent(fitted):
    model, train, test = fitted
    recs, messages = _recommend(model, train, test)
    assert model.tied_users_ > 0.9 * test["user_id"].nunique()
    assert len(messages) == 1
    assert f"for {model.tied_users_} users" in messages[0]
    assert "ties='neighbours'" in messages[0]  # the way out is named
    assert (recs["score"] == 5.0).all()  # the pitfall's lists, now with a warning


def test_neighbours_puts_better_supported_estimates_first(fitted):
    model, train, test = fitted
    stable, _ = _recommend(model, train, test)
    recs, messages = _recommend(model, train, test, ties="neighbours")
    assert len(messages) == 1
    assert "ties='neighbours'" in messages[0]
    # Surprise's own actual_k of each listed pair: within equal estimates, never increasing
    k_used = [model.algo.predict(u, i).details["actual_k"]
              for u, i in zip(recs["user_id"], recs["item_id"], strict=True)]
    recs = recs.assign(actual_k=k_used)
    for _, one in recs.groupby("user_id"):
        s, n = one["score"].to_numpy(), one["actual_k"].to_numpy()
        assert np.all((s[:-1] > s[1:]) | ((s[:-1] == s[1:]) & (n[:-1] >= n[1:])))
    assert recs["actual_k"].mean() > 1.5 * stable.assign(actual_k=[
        model.algo.predict(u, i).details["actual_k"]
        for u, i in zip(stable["user_id"], stable["item_id"], strict=True)])["actual_k"].mean()
    better = rv.evaluate(recs, test, ["ndcg@10"])["ndcg@10"]
    worse = rv.evaluate(stable, test, ["ndcg@10"])["ndcg@10"]
    assert better > 2 * worse  # measured 0.0088 against 0.0016 on these data


def test_random_ties_are_seeded(fitted):
    model, train, test = fitted
    one, messages = _recommend(model, train, test, ties="random", seed=3)
    two, _ = _recommend(model, train, test, ties="random", seed=3)
    other, _ = _recommend(model, train, test, ties="random", seed=4)
    pd.testing.assert_frame_equal(one, two)
    assert not one.equals(other)
    assert "seed=3" in messages[0]
