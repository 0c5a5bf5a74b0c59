"""rv.models: the baselines against independent pandas computations, the Surprise adapter
against Surprise itself, and the protocol's invariants (hypothesis)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
from receval.exceptions import (
    ColumnNotFoundError,
    EmptyInputError,
    InvalidParameterError,
    NonFiniteValueError,
)
from receval.models._data import check_predictions, check_recommendations
from tests.strategies import examples

# users 1-3, items a-e; user 1 rated a, b; user 2 rated a, c, d; user 3 rated a, e
TRAIN = pd.DataFrame({
    "user_id": [1, 1, 2, 2, 2, 3, 3],
    "item_id": ["a", "b", "a", "c", "d", "a", "e"],
    "rating": [5.0, 3.0, 4.0, 2.0, 2.0, 3.0, 1.0],
})


def _lists(recs: pd.DataFrame) -> dict[object, list[object]]:
    return {u: g["item_id"].tolist() for u, g in recs.groupby("user_id", sort=True)}


# -- MostPopular ------------------------------------------------------------------------------
def test_most_popular_hand_computed():
    # counts: a = 3 users, b = c = d = e = 1; ties by ascending item id: a, b, c, d, e
    model = rv.models.MostPopular().fit(TRAIN)
    recs = model.recommend([1, 2, 3, 9], k=2, exclude=TRAIN)
    assert _lists(recs) == {1: ["c", "d"], 2: ["b", "e"], 3: ["b", "c"], 9: ["a", "b"]}
    assert recs.loc[recs.user_id == 9, "score"].tolist() == [3.0, 1.0]
    # without exclude every user gets the global top 2
    assert _lists(model.recommend([1, 2], k=2)) == {1: ["a", "b"], 2: ["a", "b"]}


def test_most_popular_counts_users_or_rows():
    log = pd.DataFrame({"user_id": [1, 1, 1, 2, 3], "item_id": ["x", "x", "x", "y", "y"]})
    # by users: x = 1 user, y = 2 users; by rows: x = 3 rows, y = 2 rows
    assert _lists(rv.models.MostPopular().fit(log).recommend([5], 1)) == {5: ["y"]}
    assert _lists(rv.models.MostPopular(by="rows").fit(log).recommend([5], 1)) == {5: ["x"]}


def test_most_popular_against_pandas():
    rng = np.random.default_rng(3)
    log = pd.DataFrame({"user_id": rng.integers(0, 50, 2000),
                        "item_id": rng.integers(0, 80, 2000)}).drop_duplicates()
    model = rv.models.MostPopular().fit(log)
    recs = model.recommend(np.arange(60), k=7, exclude=log)
    count = log.groupby("item_id")["user_id"].nunique()
    ranked = sorted(count.index, key=lambda i: (-count[i], i))
    for u in range(60):
        seen = set(log.loc[log.user_id == u, "item_id"])
        expected = [i for i in ranked if i not in seen][:7]
        got = recs.loc[recs.user_id == u]
        assert got["item_id"].tolist() == expected
        assert got["score"].tolist() == [float(count[i]) for i in expected]


# -- mean predictors --------------------------------------------------------------------------
PAIRS = pd.DataFrame({"user_id": [1, 2, 3, 7, 1], "item_id": ["c", "b", "z", "a", "a"]})


def test_global_mean_hand_computed():
    # mu = (5 + 3 + 4 + 2 + 2 + 3 + 1) / 7 = 20 / 7
    pred = rv.models.GlobalMean().fit(TRAIN).predict(PAIRS)
    assert pred["score"].tolist() == pytest.approx([20 / 7] * 5, abs=1e-15)
    assert pred[["user_id", "item_id"]].equals(PAIRS)


def test_user_mean_hand_computed_and_fallback():
    # user 1: (5 + 3) / 2 = 4; user 2: (4 + 2 + 2) / 3 = 8/3; user 3: (3 + 1) / 2 = 2;
    # user 7 is unknown -> mu = 20/7 (one fallback row)
    model = rv.models.UserMean().fit(TRAIN)
    pred = model.predict(PAIRS)
    assert pred["score"].tolist() == pytest.approx([4, 8 / 3, 2, 20 / 7, 4], abs=1e-15)
    assert model.fallbacks_ == {"unknown_users": 1}
    # shrinkage 2: user 1 = (8 + 2 * 20/7) / (2 + 2)
    shrunk = rv.models.UserMean(shrinkage=2).fit(TRAIN).predict(PAIRS)
    assert shrunk["score"].iloc[0] == pytest.approx((8 + 40 / 7) / 4, abs=1e-15)


def test_item_mean_hand_computed_fallback_and_ranking():
    # a: (5 + 4 + 3) / 3 = 4; b: 3; c: 2; d: 2; e: 1; z unknown -> mu = 20/7
    model = rv.models.ItemMean().fit(TRAIN)
    pred = model.predict(PAIRS)
    assert pred["score"].tolist() == pytest.approx([2, 3, 20 / 7, 4, 4], abs=1e-15)
    assert model.fallbacks_ == {"unknown_items": 1}
    # ranking by mean: a 4, b 3, c 2 = d 2 (ties by id), e 1
    assert _lists(model.recommend([2, 8], k=3, exclude=TRAIN)) == {
        2: ["b", "e"], 8: ["a", "b", "c"]}


def test_mean_predictors_against_pandas():
    rng = np.random.default_rng(5)
    log = pd.DataFrame({"user_id": rng.integers(0, 40, 900), "item_id": rng.integers(0, 70, 900),
                        "rating": rng.integers(1, 6, 900).astype(float)})
    pairs = pd.DataFrame({"user_id": rng.integers(0, 45, 300),
                          "item_id": rng.integers(0, 75, 300)})
    mu = log["rating"].mean()
    for model, key, beta in [(rv.models.UserMean(3), "user_id", 3),
                             (rv.models.ItemMean(1.5), "item_id", 1.5)]:
        g = log.groupby(key)["rating"].agg(["sum", "count"])
        expected = pairs[key].map((g["sum"] + beta * mu) / (g["count"] + beta)).fillna(mu)
        got = model.fit(log).predict(pairs)["score"]
        np.testing.assert_allclose(got.to_numpy(), expected.to_numpy(), rtol=1e-14)
    np.testing.assert_allclose(rv.models.GlobalMean().fit(log).predict(pairs)["score"], mu,
                               rtol=1e-15)


def test_predict_accepts_aliases_and_keeps_pair_order():
    pairs = pd.DataFrame({"user": [3, 1], "item": ["a", "b"]})
    pred = rv.models.ItemMean().fit(TRAIN.rename(columns={"user_id": "userId"})).predict(pairs)
    assert pred.columns.tolist() == ["user_id", "item_id", "score"]
    assert pred["item_id"].tolist() == ["a", "b"]


# -- Random -----------------------------------------------------------------------------------
def test_random_seed_changes_lists():
    a = rv.models.Random(seed=0).fit(TRAIN).recommend([1, 2, 3], k=3)
    b = rv.models.Random(seed=1).fit(TRAIN).recommend([1, 2, 3], k=3)
    assert not a.equals(b)
    assert a.equals(rv.models.Random(seed=0).fit(TRAIN).recommend([3, 1, 2], k=3))


def _pythonpath() -> dict[str, str]:
    import os

    keep = {k: v for k, v in os.environ.items()
            if k in ("PYTHONPATH", "NUMBA_CACHE_DIR", "HOME")}
    return keep


# -- properties -------------------------------------------------------------------------------
@st.composite
def logs(draw: st.DrawFn) -> pd.DataFrame:
    n = draw(st.integers(1, 60))
    users = draw(st.lists(st.integers(0, 9), min_size=n, max_size=n))
    items = draw(st.lists(st.sampled_from([f"i{j}" for j in range(14)]), min_size=n,
                          max_size=n))
    ratings = draw(st.lists(st.integers(0, 5), min_size=n, max_size=n))
    return pd.DataFrame({"user_id": users, "item_id": items,
                         "rating": np.asarray(ratings, dtype=float)}).drop_duplicates(
        ["user_id", "item_id"], ignore_index=True)


MODELS = [lambda: rv.models.Random(seed=3), rv.models.MostPopular, rv.models.GlobalMean,
          rv.models.UserMean, lambda: rv.models.ItemMean(shrinkage=1)]


@pytest.mark.slow
@settings(max_examples=examples(60), deadline=None)
@given(log=logs(), k=st.integers(1, 16), which=st.integers(0, len(MODELS) - 1),
       extra=st.lists(st.integers(0, 12), max_size=4))
def test_recommend_excludes_and_fills_k(log, k, which, extra):
    model = MODELS[which]().fit(log)
    users = sorted(set(log["user_id"]) | set(extra))
    recs = model.recommend(users, k, exclude=log)
    n_items = log["item_id"].nunique()
    seen = set(zip(log["user_id"], log["item_id"], strict=True))
    assert not any(pair in seen for pair in zip(recs["user_id"], recs["item_id"], strict=True))
    assert not recs.duplicated(["user_id", "item_id"]).any()
    assert not recs["score"].isna().any()
    sizes = recs.groupby("user_id").size().reindex(users, fill_value=0)
    for user in users:
        allowed = n_items - len({i for u, i in seen if u == user})
        assert sizes[user] == min(k, allowed)
    # best first within each user
    assert (recs.groupby("user_id")["score"].diff().fillna(0) <= 0).all()
    check_recommendations(recs, "m", pd.Index(users), pd.Index(log["item_id"].unique()), k)


# -- bad input --------------------------------------------------------------------------------
def test_bad_parameters():
    with pytest.raises(InvalidParameterError, match="k must be an integer >= 1"):
        rv.models.MostPopular().fit(TRAIN).recommend([1], 0)
    with pytest.raises(InvalidParameterError, match="k must be"):
        rv.models.Random().fit(TRAIN).recommend([1], 2.5)
    with pytest.raises(InvalidParameterError, match="by must be"):
        rv.models.MostPopular(by="items")
    with pytest.raises(InvalidParameterError, match="shrinkage"):
        rv.models.ItemMean(shrinkage=-1)
    with pytest.raises(InvalidParameterError, match="not fitted"):
        rv.models.MostPopular().recommend([1], 3)
    with pytest.raises(InvalidParameterError, match="not fitted"):
        rv.models.UserMean().predict(PAIRS)


def test_bad_training_data():
    with pytest.raises(ColumnNotFoundError, match="rating"):
        rv.models.ItemMean().fit(TRAIN.drop(columns="rating"))
    with pytest.raises(ColumnNotFoundError, match="item"):
        rv.models.MostPopular().fit(TRAIN.drop(columns="item_id"))
    with pytest.raises(NonFiniteValueError, match="rating"):
        rv.models.GlobalMean().fit(TRAIN.assign(rating=[1, np.nan, 3, 4, 5, 1, 2]))
    with pytest.raises(NonFiniteValueError, match="user_id"):
        rv.models.MostPopular().fit(TRAIN.assign(user_id=[1, None, 2, 2, 2, 3, 3]))
    with pytest.raises(EmptyInputError, match="train is empty"):
        rv.models.GlobalMean().fit(TRAIN.iloc[:0])


def test_bad_model_output_names_the_model():
    users, catalog = pd.Index([1, 2]), pd.Index(["a", "b"])
    good = pd.DataFrame({"user_id": [1, 2], "item_id": ["a", "b"], "score": [1.0, 2.0]})
    for bad, what in [
        (good.assign(item_id=["a", "zz"]), "items that are not in the data"),
        (good.assign(user_id=[1, 1], item_id=["a", "a"]), "duplicate"),
        (good.assign(score=[np.nan, 1.0]), "NaN"),
        (good.assign(user_id=[1, 5]), "users that were not asked for"),
    ]:
        with pytest.raises(rv.models.ModelOutputError, match=f"model 'mine'.*{what}"):
            check_recommendations(bad, "mine", users, catalog, 5)
    with pytest.raises(rv.models.ModelOutputError, match="more than k=1"):
        check_recommendations(good.assign(user_id=[1, 1]), "mine", users, catalog, 1)
    with pytest.raises(rv.models.ModelOutputError, match=r"model 'mine'.*NaN predictions"):
        check_predictions(np.array([1.0, np.nan]), good, "mine")
    with pytest.raises(rv.models.ModelOutputError, match="3 values for 2 pairs"):
        check_predictions([1.0, 2.0, 3.0], good, "mine")
    with pytest.raises(rv.models.ModelOutputError, match="not asked"):
        check_predictions(good.assign(item_id=["b", "a"]), good, "mine")


def test_protocol_classes():
    assert isinstance(rv.models.MostPopular(), rv.models.Recommender)
    assert isinstance(rv.models.ItemMean(), rv.models.Predictor)
    assert not isinstance(rv.models.Random(), rv.models.Predictor)


@pytest.mark.slow
def test_import_receval_does_not_import_surprise():
    code = "import sys, receval; print('surprise' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "False"


# -- every built-in model and adapter: one rule for each bad input ------------------------------
def _installed(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def _surprise() -> object:
    from surprise import SVD

    return rv.models.Surprise(SVD(n_factors=2, n_epochs=2, random_state=0))


def _implicit() -> object:
    import warnings

    from implicit.als import AlternatingLeastSquares

    with warnings.catch_warnings():  # implicit's advice on BLAS threads, at construction
        warnings.simplefilter("ignore", RuntimeWarning)
        als = AlternatingLeastSquares(factors=2, iterations=1, random_state=0)
    return rv.models.Implicit(als)


def _cornac() -> object:
    from cornac.models import BPR

    return rv.models.Cornac(BPR(k=2, max_iter=2, seed=0))


#: name -> a new model for TRAIN (users 1-3, items a-e): every built-in and every adapter
#: whose library is installed (LensKit needs pandas 2: its live tests run in CI's pandas-2 job)
EVERY_MODEL = {
    "random": lambda: rv.models.Random(seed=3),
    "most-popular": rv.models.MostPopular,
    "global-mean": rv.models.GlobalMean,
    "user-mean": rv.models.UserMean,
    "item-mean": lambda: rv.models.ItemMean(shrinkage=1),
    "factors": lambda: rv.models.Factors(np.arange(6.0).reshape(3, 2),
                                         np.arange(10.0).reshape(5, 2) % 3, users=[1, 2, 3],
                                         items=list("abcde")),
    "score-function": lambda: rv.models.ScoreFunction(
        lambda u: np.tile(np.arange(5.0), (len(u), 1))),
    "surprise": _surprise,
    "implicit": _implicit,
    "cornac": _cornac,
}
_NEEDS = {"surprise": "surprise", "implicit": "implicit", "cornac": "cornac"}
EVERY = [pytest.param(name, marks=pytest.mark.skipif(
    name in _NEEDS and not _installed(_NEEDS[name]), reason=f"{name} is not installed"))
    for name in EVERY_MODEL]
#: the models that need fit(train) before recommend / score / predict (Factors does not)
NEED_FIT = [p for p in EVERY if p.values[0] != "factors"]


def _fitted(name: str) -> object:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return EVERY_MODEL[name]().fit(TRAIN)


def _recommend(model: object, *args: object, **kwargs: object) -> pd.DataFrame:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rv.exceptions.TiesAtCutoffWarning)
        return model.recommend(*args, **kwargs)  # type: ignore[attr-defined, no-any-return]


def _methods_before_fit() -> list[object]:
    """(model, method) for each method the model has (no skips: CI refuses them)."""
    cases = []
    for param in NEED_FIT:
        name = param.values[0]
        missing = name in _NEEDS and not _installed(_NEEDS[name])  # skipped whole
        has = ["recommend", "score", "predict"] if missing else [
            m for m in ("recommend", "score", "predict") if hasattr(EVERY_MODEL[name](), m)]
        cases += [pytest.param(name, m, marks=param.marks) for m in has]
    return cases


@pytest.mark.parametrize(("name", "method"), _methods_before_fit())
def test_every_model_before_fit_says_so(name, method):
    model = EVERY_MODEL[name]()
    call = (lambda: model.recommend([1], 3)) if method == "recommend" else \
        (lambda: getattr(model, method)(PAIRS))
    with pytest.raises(rv.exceptions.InvalidModelError,
                       match=r"is not fitted: call fit\(train\) first") as info:
        call()
    assert info.value.parameter == "model"


@pytest.mark.parametrize("name", EVERY)
def test_every_model_refuses_an_empty_train(name):
    with pytest.raises(EmptyInputError, match="train is empty") as info:
        EVERY_MODEL[name]().fit(TRAIN.iloc[:0])
    assert info.value.parameter == "train"


@pytest.mark.parametrize("name", EVERY)
@pytest.mark.parametrize(("call", "role"), [
    (lambda m: m.fit(None), "train"),
    (lambda m: m.fit([[1, 2, 3]]), "train"),
    (lambda m: m.fit(TRAIN).recommend([1], 2, exclude=[(1, "a")]), "exclude"),
])
def test_every_model_names_the_table_that_is_not_one(name, call, role):
    with pytest.raises(InvalidParameterError, match=rf"^{role} must be a table") as info:
        call(EVERY_MODEL[name]())
    assert info.value.parameter == role


@pytest.mark.parametrize("name", EVERY)
@pytest.mark.parametrize(("role", "exclude"), [
    ("user", TRAIN.assign(user_id=TRAIN["user_id"].astype(str))),   # '1' is not user 1
    ("user", TRAIN.assign(user_id=TRAIN["user_id"].astype(float))),  # nor is 1.0
    ("item", TRAIN.assign(item_id=np.arange(len(TRAIN)))),           # 0 is not item 'a'
])
def test_every_model_refuses_exclude_ids_of_another_type(name, role, exclude):
    # they never matched: nothing was excluded, silently
    model = _fitted(name)
    with pytest.raises(rv.exceptions.IdTypeMismatchError,
                       match=rf"asked about {role} ids of type \w+ in exclude") as info:
        _recommend(model, [1, 2, 3], 5, exclude=exclude)
    assert info.value.parameter == "exclude"
    assert info.value.column == f"{role}_id"


@pytest.mark.parametrize("name", EVERY)
def test_every_model_excludes_seen_as_the_training_pairs(name):
    model = _fitted(name)
    seen = _recommend(model, [1, 2, 3], 5, exclude="seen")
    pd.testing.assert_frame_equal(seen, _recommend(model, [1, 2, 3], 5, exclude=TRAIN))
    pairs = set(zip(TRAIN["user_id"], TRAIN["item_id"], strict=True))
    assert not pairs & set(zip(seen["user_id"], seen["item_id"], strict=True))
    assert len(seen)
    # any other string that is no file: an error naming exclude (was "no such file")
    with pytest.raises(InvalidParameterError, match=r"exclude must be .*'seen'.*'train'") as info:
        _recommend(model, [1], 5, exclude="train")
    assert info.value.parameter == "exclude"


@pytest.mark.parametrize("name", EVERY)
def test_every_model_takes_users_as_any_one_dimensional_collection(name):
    model = _fitted(name)
    want = _recommend(model, [1, 3], 2, exclude=TRAIN)
    for users in ([3, 1, 3], (1, 3), {1, 3}, np.array([3, 1]), pd.Series([1, 3]),
                  pd.Index([3, 1]), range(1, 4, 2), (u for u in [3, 1]), iter([1, 3])):
        pd.testing.assert_frame_equal(_recommend(model, users, 2, exclude=TRAIN), want)
    one = _recommend(model, 1, 2, exclude=TRAIN)
    pd.testing.assert_frame_equal(one, want[want["user_id"] == 1])
    for bad, what in [(TRAIN[["user_id"]], "a table"), (np.array([[1], [3]]), "shape"),
                      ([[1], [3]], "cannot be ids")]:
        with pytest.raises(InvalidParameterError, match=rf"users must be .*{what}") as info:
            _recommend(model, bad, 2)
        assert info.value.parameter == "users"


@pytest.mark.parametrize("seed", [-1, 2**63, 2**64 - 1, 1.0, None])
@pytest.mark.parametrize("name", [p for p in EVERY if p.values[0] != "random"])
def test_every_model_checks_the_tie_seed_as_every_seed(name, seed):
    # check_seed's rule (0 .. 2**63 - 1), as Random(seed=), the splits and the specs; -1 was
    # reduced mod 2**64 (the lists of 2**64 - 1)
    model = _fitted(name)
    with pytest.raises(InvalidParameterError, match="seed must be an integer from 0 to 2"):
        _recommend(model, [1], 2, ties="random", seed=seed)
    _recommend(model, [1], 2, ties="random", seed=2**63 - 1)


def test_surprise_refuses_an_algorithm_class():
    pytest.importorskip("surprise")
    from surprise import SVD

    with pytest.raises(rv.exceptions.InvalidModelError,
                       match=r"needs a Surprise algorithm instance, got the class SVD: write "
                             r"SVD\(\.\.\.\)") as info:
        rv.models.Surprise(SVD)
    assert info.value.parameter == "algo"


@pytest.mark.parametrize("cls", [rv.models.UserMean, rv.models.ItemMean])
@pytest.mark.parametrize("bad", [float("inf"), -float("inf"), float("nan"), -1, True, "2"])
def test_shrinkage_must_be_finite(cls, bad):
    # infinity made every mean inf / inf = NaN, found only when cross_validate scored them
    with pytest.raises(InvalidParameterError, match="shrinkage must be a finite number") \
            as info:
        cls(shrinkage=bad)
    assert info.value.parameter == "shrinkage"
    model = cls(shrinkage=2)
    with pytest.raises(InvalidParameterError, match="shrinkage must be a finite number"):
        model.set_params(shrinkage=bad)
    assert model.shrinkage == 2.0
