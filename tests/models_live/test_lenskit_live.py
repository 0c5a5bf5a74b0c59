"""rv.models.LensKit against LensKit's own ``recommend`` / ``score`` / ``predict``.

LensKit 2025.8 needs pandas 2: this module runs in CI's pandas-2 environment (``.ci/run``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval.exceptions import BackendUnavailableError, InvalidModelError, InvalidParameterError
from tests.models_live._data import assert_same_lists, lists, log

lenskit = pytest.importorskip("lenskit")
from lenskit import predict as lk_predict  # noqa: E402
from lenskit import recommend as lk_recommend  # noqa: E402
from lenskit import score as lk_score  # noqa: E402
from lenskit.als import BiasedMFScorer, ImplicitMFScorer  # noqa: E402
from lenskit.basic import BiasScorer, PopScorer  # noqa: E402
from lenskit.knn import ItemKNNScorer, UserKNNScorer  # noqa: E402
from lenskit.pipeline import topn_pipeline  # noqa: E402

pytestmark = pytest.mark.usefixtures("library_noise_ignored")

SCORERS: dict[str, Callable[[], Any]] = {
    "implicit-mf": lambda: ImplicitMFScorer(embedding_size=8, epochs=5, rng=0),
    "biased-mf": lambda: BiasedMFScorer(embedding_size=8, epochs=5, rng=0),
    "item-knn": lambda: ItemKNNScorer(k=20, feedback="implicit"),
    "item-knn-explicit": lambda: ItemKNNScorer(k=20, feedback="explicit"),
    "user-knn": lambda: UserKNNScorer(k=20, feedback="implicit"),
    "bias": lambda: BiasScorer(),
    "pop": lambda: PopScorer(),
    "pipeline": lambda: topn_pipeline(ImplicitMFScorer(embedding_size=8, epochs=5, rng=0)),
}
RATING = {"biased-mf", "item-knn-explicit", "bias"}


@pytest.mark.parametrize("ids", ["int", "str"])
@pytest.mark.parametrize("name", list(SCORERS))
def test_same_top_k_as_lenskit_recommend(name, ids):
    train = log(21, ids=ids)
    model = rv.models.LensKit(SCORERS[name]()).fit(train)
    users = sorted(train["user_id"].unique())[::3]
    k = 10
    # LensKit's default candidates: the training items the user has not seen (exclude=train)
    got = model.recommend(users, k, exclude=train)
    theirs = [lk_recommend(model.pipeline_, u, n=k) for u in users]
    their_items = [x.ids().tolist() for x in theirs]
    their_scores = [np.asarray(x.scores(), dtype=np.float64) for x in theirs]
    our_scores = [got.loc[got.user_id == u, "score"].to_numpy() for u in users]
    assert_same_lists(lists(got, users), their_items, our_scores, their_scores, rtol=1e-5)
    assert got["item_id"].dtype == train["item_id"].dtype
    seen = set(zip(train.user_id, train.item_id, strict=True))
    assert not seen & set(zip(got.user_id, got.item_id, strict=True))


@pytest.mark.parametrize("name", list(SCORERS))
def test_pair_scores_and_predictions_are_lenskits(name):
    train = log(22, ids="str")
    model = rv.models.LensKit(SCORERS[name]()).fit(train)
    pairs = train.sample(30, random_state=0)[["user_id", "item_id"]]
    scored = model.score(pairs)
    for u, part in scored.groupby("user_id"):
        ref = lk_score(model.pipeline_, u, part["item_id"].to_numpy()).to_df()
        ref = ref.set_index("item_id")["score"].reindex(part["item_id"])
        np.testing.assert_allclose(part["score"], ref, rtol=1e-5)
    assert hasattr(model, "predict") == (name in RATING)
    if name in RATING:
        got = model.predict(pairs)
        for u, part in got.groupby("user_id"):
            ref = lk_predict(model.pipeline_, u, part["item_id"].to_numpy()).to_df()
            ref = ref.set_index("item_id")["score"].reindex(part["item_id"])
            np.testing.assert_allclose(part["score"], ref, rtol=1e-6)


def test_unknown_users_bad_models_and_unfitted():
    train = log(23)
    model = rv.models.LensKit(PopScorer())
    with pytest.raises(InvalidModelError, match="not fitted"):
        model.recommend([1], 3)
    model.fit(train)
    got = model.recommend([train.user_id.iloc[0], -3], 4, exclude=train)
    assert got["user_id"].nunique() == 1
    assert model.unknown_users_ == 1
    with pytest.raises(InvalidParameterError, match="not in the training data"):
        rv.models.LensKit(PopScorer(), unknown_users="error").fit(train).recommend([-3], 4)
    for bad in (ImplicitMFScorer, None, "als", object()):
        with pytest.raises(InvalidModelError, match="LensKit"):
            rv.models.LensKit(bad)


def test_fit_raising_is_chained(monkeypatch):
    model = rv.models.LensKit(BiasedMFScorer(embedding_size=4))

    def boom(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("no ratings")

    # fit trains a fresh copy of the scorer: the class's train is the one it calls
    monkeypatch.setattr(BiasedMFScorer, "train", boom)
    with pytest.raises(InvalidModelError, match="no ratings") as info:
        model.fit(log(24))
    assert isinstance(info.value.__cause__, RuntimeError)


def test_cross_validate_with_a_lenskit_scorer():
    data = log(25)
    folds = rv.split.kfold(data, n_splits=2, seed=0)
    cv = rv.cross_validate({"bias": rv.models.LensKit(BiasScorer()),
                            "imf": rv.models.LensKit(ImplicitMFScorer(embedding_size=4,
                                                                      epochs=3, rng=0))},
                           data, ["ndcg@10", "rmse"], split=folds, k=10)
    assert cv.per_fold.loc["bias"].notna().all().all()
    assert cv.per_fold.loc["imf", "RMSE"].isna().all()


def test_missing_library_names_the_extra(monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "lenskit", None)
    with pytest.raises(BackendUnavailableError, match=r'pip install "receval\[lenskit\]"'):
        rv.models.LensKit(object())


def test_frame_of_ids_round_trips():
    train = log(26, ids="str")
    model = rv.models.LensKit(ItemKNNScorer(k=10, feedback="implicit")).fit(train)
    users = pd.Series(train["user_id"].unique()[:5])
    got = model.recommend(users, 3)
    assert set(got["user_id"]) <= set(users)
    assert set(got["item_id"]) <= set(train["item_id"])


def test_parameters_and_repr():
    model = rv.models.LensKit(ImplicitMFScorer(embedding_size=8))
    assert repr(model) == "LensKit(ImplicitMFScorer(embedding_size=8))"
    assert model.get_params(deep=True)["model__embedding_size"] == 8
    piped = rv.models.LensKit(topn_pipeline(ItemKNNScorer(k=7)))
    assert repr(piped) == "LensKit(Pipeline(scorer=ItemKNNScorer(max_nbrs=7)))"  # its config name


@pytest.mark.parametrize("make", [lambda: BiasedMFScorer(embedding_size=4, epochs=3),
                                  lambda: ItemKNNScorer(max_nbrs=5)])
def test_a_refit_starts_from_scratch(make):
    """fit trains a new copy: a refit gives the lists of a fresh fit; the scorer given stays."""
    from lenskit.random import set_global_rng

    big, small = log(40), log(24)
    users = sorted(small.user_id.unique())
    set_global_rng(7)  # LensKit's ALS draws its initial factors from the global generator
    fresh = rv.models.LensKit(make()).fit(small).recommend(users, 5)
    model = rv.models.LensKit(make())
    model.fit(big)
    set_global_rng(7)
    again = model.fit(small).recommend(users, 5)
    pd.testing.assert_frame_equal(fresh, again)
