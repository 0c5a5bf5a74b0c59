"""rv.models.Cornac against Cornac's own ``recommend`` / ``score`` / ``rate`` on the same model."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest
from threadpoolctl import threadpool_limits

import receval as rv
from receval.exceptions import BackendUnavailableError, InvalidModelError, InvalidParameterError
from tests.models_live._data import assert_same_lists, lists, log

cornac = pytest.importorskip("cornac")
from cornac.models import BPR, MF, PMF, SVD, WBPR, ItemKNN, MostPop, UserKNN  # noqa: E402

pytestmark = pytest.mark.usefixtures("library_noise_ignored")

MODELS: dict[str, Callable[[], Any]] = {
    "mf": lambda: MF(k=8, max_iter=30, seed=0),
    "svd": lambda: SVD(k=8, max_iter=30, seed=0),
    "bpr": lambda: BPR(k=8, max_iter=30, seed=0),
    "wbpr": lambda: WBPR(k=8, max_iter=30, seed=0),
    "pmf": lambda: PMF(k=5, max_iter=30, seed=0),
    "itemknn": lambda: ItemKNN(k=20, verbose=False),
    "userknn": lambda: UserKNN(k=20, verbose=False),
    "mostpop": lambda: MostPop(),
}
#: the adapter computes these from the learned factors, the others call model.score per user
FACTORS = {"mf", "svd", "bpr", "wbpr"}
RATING = {"mf", "svd", "pmf", "itemknn", "userknn"}


@pytest.mark.parametrize("ids", ["int", "str"])
@pytest.mark.parametrize("name", list(MODELS))
def test_same_top_k_as_cornac_recommend(name, ids):
    train = log(11, ids=ids)
    model = rv.models.Cornac(MODELS[name]()).fit(train)
    assert model.kind_ == ("factors" if name in FACTORS else "scores")
    m = model.model_
    users = sorted(train["user_id"].unique())[::3]
    k = 10
    got = model.recommend(users, k, exclude=train)
    theirs = [m.recommend(u, k, remove_seen=True, train_set=m.train_set) for u in users]
    # Cornac's own scores of its recommended items (score of a user: every item, index order)
    their_scores = [np.asarray(m.score(m.uid_map[u]), dtype=np.float64)[
        [m.iid_map[i] for i in items]] for u, items in zip(users, theirs, strict=True)]
    our_scores = [got.loc[got.user_id == u, "score"].to_numpy() for u in users]
    assert_same_lists(lists(got, users), theirs, our_scores, their_scores, rtol=1e-5)
    # ids round-trip, with their type
    assert got["item_id"].dtype == train["item_id"].dtype
    assert set(got["user_id"]) == set(users)


@pytest.mark.parametrize("name", list(MODELS))
def test_seen_items_excluded_and_pair_scores_are_cornacs(name):
    train = log(12, ids="str")
    model = rv.models.Cornac(MODELS[name]()).fit(train)
    m = model.model_
    users = train["user_id"].unique()[:30]
    got = model.recommend(users, 12, exclude=train)
    seen = set(zip(train.user_id, train.item_id, strict=True))
    assert not seen & set(zip(got.user_id, got.item_id, strict=True))
    pairs = train.sample(40, random_state=0)[["user_id", "item_id"]]
    scored = model.score(pairs)
    expected = [float(np.asarray(m.score(m.uid_map[u]))[m.iid_map[i]])
                for u, i in zip(pairs.user_id, pairs.item_id, strict=True)]
    np.testing.assert_allclose(scored["score"], expected, rtol=1e-6)


@pytest.mark.parametrize("name", list(MODELS))
def test_predict_only_for_rating_models_and_equal_to_cornac_rate(name):
    train = log(13)
    model = rv.models.Cornac(MODELS[name]()).fit(train)
    assert hasattr(model, "predict") == (name in RATING)
    if name not in RATING:
        return
    m = model.model_
    pairs = pd.concat([train.sample(30, random_state=1)[["user_id", "item_id"]],
                       pd.DataFrame({"user_id": [-5, train.user_id.iloc[0]],
                                     "item_id": [train.item_id.iloc[0], -9]})],
                      ignore_index=True)
    got = model.predict(pairs)
    assert got[["user_id", "item_id"]].equals(pairs)
    expected = [float(m.rate(m.uid_map[u], m.iid_map[i]))
                for u, i in zip(pairs.user_id[:30], pairs.item_id[:30], strict=True)]
    np.testing.assert_allclose(got["score"][:30], expected, rtol=1e-6)
    # unknown user or item: Cornac's default score (the training mean), clipped
    low, high = m.min_rating, m.max_rating
    assert got["score"][30:].tolist() == [pytest.approx(np.clip(m.default_score(), low, high))] * 2
    assert got["score"].between(low, high).all()


def test_mf_scores_from_factors_hand_formula():
    # score(u, i) = global_mean + b_u + b_i + p_u . q_i
    train = log(14)
    model = rv.models.Cornac(MF(k=4, max_iter=20, seed=0)).fit(train)
    m = model.model_
    u, i = train.user_id.iloc[3], train.item_id.iloc[7]
    cu, ci = m.uid_map[u], m.iid_map[i]
    expected = (m.global_mean + m.u_biases[cu] + m.i_biases[ci]
                + float(np.dot(m.u_factors[cu], m.i_factors[ci])))
    got = model.score(pd.DataFrame({"user_id": [u], "item_id": [i]}))["score"].iloc[0]
    assert got == pytest.approx(expected, rel=1e-6)


def test_rating_column_and_one_class_data():
    train = log(15)
    seen = rv.models.Cornac(BPR(k=4, max_iter=5, seed=0)).fit(train.drop(columns="rating"))
    assert seen.model_.train_set.max_rating == 1.0  # no rating column: 1.0 per row
    other = rv.models.Cornac(MF(k=4, max_iter=5, seed=0), rating="stars").fit(
        train.rename(columns={"rating": "stars"}).assign(rating=1.0))
    assert other.model_.train_set.max_rating == pytest.approx(train["rating"].max())
    with pytest.raises(InvalidParameterError, match="rating"):
        rv.models.Cornac(MF(k=4), rating="nope").fit(train)


def test_unknown_users_and_bad_models():
    train = log(16)
    model = rv.models.Cornac(BPR(k=4, max_iter=5, seed=0)).fit(train)
    got = model.recommend([train.user_id.iloc[0], -7], 5, exclude=train)
    assert got["user_id"].nunique() == 1
    assert model.unknown_users_ == 1
    with pytest.raises(InvalidParameterError, match="not in the training data"):
        rv.models.Cornac(BPR(k=4, max_iter=5), unknown_users="error").fit(train).recommend(
            [-7], 5)
    # a user id of another type is not an unknown user: an error naming both types
    with pytest.raises(rv.exceptions.IdTypeMismatchError, match="user ids of type mixed"):
        model.recommend([train.user_id.iloc[0], "someone"], 5)
    with pytest.raises(InvalidParameterError, match="unknown_users"):
        rv.models.Cornac(BPR(), unknown_users="fallback")


@pytest.mark.parametrize("bad", [BPR, None, "bpr", object(), pytest.param(
    "implicit", id="an-implicit-model")])
def test_wrong_model_type(bad):
    if bad == "implicit":
        als = pytest.importorskip("implicit.als")
        bad = als.AlternatingLeastSquares(factors=2)
    with pytest.raises(InvalidModelError, match="Cornac"):
        rv.models.Cornac(bad)


@pytest.mark.parametrize(("name", "base"), [("SPop", "NextItemRecommender"),
                                             ("GPTop", "NextBasketRecommender")])
def test_sequential_models_are_refused_with_the_reason(name, base):
    # their score needs a session's or basket's history (score(user, history_items)); before,
    # fit went through and recommend raised a raw TypeError inside Cornac
    import cornac.models

    model = getattr(cornac.models, name)()
    with pytest.raises(InvalidModelError, match=rf"{name} is a Cornac {base}.*ScoreFunction"):
        rv.models.Cornac(model)


def test_unfitted_and_fit_raising(monkeypatch):
    model = rv.models.Cornac(MF(k=4))
    with pytest.raises(InvalidModelError, match="not fitted"):
        model.recommend([1], 5)

    def boom(*args: Any, **kwargs: Any) -> None:
        raise FloatingPointError("nan loss")

    monkeypatch.setattr(MF, "fit", boom)  # fit fits a copy of model.model
    with pytest.raises(InvalidModelError, match=r"MF.*nan loss") as info:
        model.fit(log(17))
    assert isinstance(info.value.__cause__, FloatingPointError)


@pytest.mark.parametrize("name", list(MODELS))
def test_refit_starts_afresh_on_an_unfitted_copy(name):
    # fit(a) after fit(b) gives the lists (and predictions) of a fresh fit(a); a smaller
    # train after a larger one works (Cornac's own fit kept the old factors: a crash)
    big, small = log(21), log(22, n_users=40, n_items=30, n_rows=300)
    users = sorted(big["user_id"].unique())[::3]
    with threadpool_limits(1, "blas"):
        first = rv.models.Cornac(MODELS[name]()).fit(big)
        fresh = first.recommend(users, 10, exclude=big)
        model = rv.models.Cornac(MODELS[name]())
        model.fit(big)
        small_recs = model.fit(small).recommend(sorted(small["user_id"].unique()), 5)
        again = model.fit(big).recommend(users, 10, exclude=big)
    assert set(small_recs["item_id"]) <= set(small["item_id"])
    pd.testing.assert_frame_equal(again, fresh)
    if hasattr(model, "predict"):
        pd.testing.assert_frame_equal(model.predict(big.head(50)), first.predict(big.head(50)))
    assert model.model_ is not model.model
    assert getattr(model.model, "u_factors", None) is None
    assert getattr(model.model, "train_set", None) is None


def test_cross_validate_rating_metrics_only_for_rating_models():
    data = log(18)
    folds = rv.split.kfold(data, n_splits=2, seed=0)
    cv = rv.cross_validate({"mf": rv.models.Cornac(MF(k=4, max_iter=10, seed=0)),
                            "bpr": rv.models.Cornac(BPR(k=4, max_iter=10, seed=0))},
                           data, ["ndcg@10", "rmse"], split=folds, k=10)
    table = cv.per_fold
    assert np.isfinite(table.loc["mf"].to_numpy()).all()
    assert table.loc["bpr", "NDCG@10"].notna().all()
    assert table.loc["bpr", "RMSE"].isna().all()


def test_missing_library_names_the_extra(monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "cornac", None)
    with pytest.raises(BackendUnavailableError, match=r'pip install "receval\[cornac\]"'):
        rv.models.Cornac(object())


def test_copies_keep_the_kind_of_model():
    import copy
    import pickle

    fitted = rv.models.Cornac(MF(k=4, max_iter=5, seed=0)).fit(log(19))
    for twin in (copy.deepcopy(fitted), pickle.loads(pickle.dumps(fitted))):
        assert type(twin) is type(fitted)
        assert hasattr(twin, "predict")
        pairs = log(19).head(5)
        np.testing.assert_array_equal(twin.predict(pairs)["score"],
                                      fitted.predict(pairs)["score"])


def test_parameters_and_repr():
    model = rv.models.Cornac(BPR(k=4, max_iter=7, seed=3), rating=None)
    assert repr(model).startswith("Cornac(BPR(")
    assert "k=4" in repr(model)
    assert "max_iter=7" in repr(model)
    assert model.get_params() == {"model": model.model, "rating": None, "rating_model": None,
                                  "unknown_users": "skip"}
    assert model.get_params(deep=True)["model__seed"] == 3
