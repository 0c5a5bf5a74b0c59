"""rv.models.Implicit against implicit's own ``recommend`` on the same fitted model."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from threadpoolctl import threadpool_limits

import receval as rv
from receval.exceptions import (
    BackendUnavailableError,
    InvalidModelError,
    InvalidParameterError,
    NonFiniteValueError,
    TiesAtCutoffWarning,
)
from tests.models_live._data import assert_same_lists, lists, log

implicit = pytest.importorskip("implicit")
from implicit.als import AlternatingLeastSquares  # noqa: E402
from implicit.bpr import BayesianPersonalizedRanking  # noqa: E402
from implicit.lmf import LogisticMatrixFactorization  # noqa: E402
from implicit.nearest_neighbours import (  # noqa: E402
    BM25Recommender,
    CosineRecommender,
    ItemItemRecommender,
    TFIDFRecommender,
)

pytestmark = pytest.mark.usefixtures("library_noise_ignored")

MODELS: dict[str, Callable[[], Any]] = {
    "als": lambda: AlternatingLeastSquares(factors=8, iterations=5, random_state=0),
    "bpr": lambda: BayesianPersonalizedRanking(factors=8, iterations=20, random_state=0),
    "lmf": lambda: LogisticMatrixFactorization(factors=8, iterations=5, random_state=0),
    "itemitem": lambda: ItemItemRecommender(K=20),
    "cosine": lambda: CosineRecommender(K=20),
    "bm25": lambda: BM25Recommender(K=20),
    "tfidf": lambda: TFIDFRecommender(K=20),
}


def _reference_matrix(train: pd.DataFrame, weight: str | None = None
                      ) -> tuple[np.ndarray, np.ndarray, sp.csr_matrix]:
    """The test's own user x item matrix: ids sorted ascending, 1.0 (or ``weight``) per row."""
    users, u = np.unique(train["user_id"].to_numpy(), return_inverse=True)
    items, i = np.unique(train["item_id"].to_numpy(), return_inverse=True)
    data = np.ones(len(train)) if weight is None else train[weight].to_numpy()
    matrix = sp.csr_matrix((data.astype(np.float32), (u, i)), shape=(len(users), len(items)))
    return users, items, matrix


@pytest.mark.parametrize("ids", ["int", "str"])
@pytest.mark.parametrize("name", list(MODELS))
def test_same_top_k_as_implicit_recommend(name, ids):
    train = log(1, ids=ids)
    model = rv.models.Implicit(MODELS[name]()).fit(train)
    users, items, matrix = _reference_matrix(train)
    matrix = matrix.astype(model.user_items_.dtype)
    assert (model.user_items_ != matrix).nnz == 0  # the adapter fitted on this very matrix
    rows = np.arange(0, len(users), 3)
    k = 10
    got = model.recommend(users[rows], k, exclude=train)
    ids_, scores = model.model_.recommend(rows, matrix[rows], N=k,
                                         filter_already_liked_items=True)
    theirs, their_scores = [], []
    for r in range(len(rows)):  # implicit pads with -1 when it reaches fewer than k items
        keep = ids_[r] >= 0
        theirs.append(items[ids_[r][keep]].tolist())
        their_scores.append(np.asarray(scores[r][keep], dtype=np.float64))
    ours = lists(got, users[rows].tolist())
    our_scores = [got.loc[got.user_id == u, "score"].to_numpy() for u in users[rows]]
    if name in ("itemitem", "cosine", "bm25", "tfidf"):
        # implicit lists only the items reached through the similarity graph; receval
        # fills the list with score-0 items: the reached prefix is implicit's list
        ours = [a[:len(b)] for a, b in zip(ours, theirs, strict=True)]
        our_scores = [a[:len(b)] for a, b in zip(our_scores, their_scores, strict=True)]
        assert all(len(x) == k for x in lists(got, users[rows].tolist()))
    assert_same_lists(ours, theirs, our_scores, their_scores, rtol=2e-5)
    # ids round-trip: the data's own ids, of the data's type
    assert got["user_id"].tolist() == [u for u in users[rows] for _ in range(k)]
    assert set(got["item_id"]) <= set(train["item_id"])
    assert got["item_id"].dtype == train["item_id"].dtype


@pytest.mark.parametrize("name", list(MODELS))
def test_seen_items_excluded_and_scores_of_pairs(name):
    train = log(2)
    model = rv.models.Implicit(MODELS[name]()).fit(train)
    users = train["user_id"].unique()[:40]
    got = model.recommend(users, 15, exclude=train)
    seen = set(zip(train.user_id, train.item_id, strict=True))
    assert not seen & set(zip(got.user_id, got.item_id, strict=True))
    # without exclude the training items compete (and top the lists of factor models)
    free = model.recommend(users, 15)
    assert seen & set(zip(free.user_id, free.item_id, strict=True))
    # score() gives recommend's scores for the same pairs, in the order asked
    scored = model.score(got[["user_id", "item_id"]].iloc[::-1])
    np.testing.assert_allclose(scored["score"].to_numpy(), got["score"].to_numpy()[::-1],
                               rtol=1e-12)
    assert not hasattr(model, "predict")  # no rating metrics in cross_validate


def test_factor_scores_are_the_dot_product_of_implicit_factors():
    train = log(3)
    model = rv.models.Implicit(AlternatingLeastSquares(factors=6, random_state=0)).fit(train)
    users, items, _ = _reference_matrix(train)
    pairs = pd.DataFrame({"user_id": users[[0, 5, 5, 9]], "item_id": items[[3, 0, 7, 1]]})
    uf, vf = model.model_.user_factors, model.model_.item_factors
    # score = sum_f U[u, f] V[i, f] (float64 from implicit's float32 factors)
    expected = [float(np.dot(uf[u].astype(np.float64), vf[i].astype(np.float64)))
                for u, i in [(0, 3), (5, 0), (5, 7), (9, 1)]]
    np.testing.assert_allclose(model.score(pairs)["score"], expected, rtol=1e-12)


def test_neighbour_scores_sum_similarities_of_the_users_items():
    # user 1 saw a (weight 1) and b (weight 2); score(c) = 1 * sim[a, c] + 2 * sim[b, c]
    train = pd.DataFrame({"user_id": [1, 1, 2, 2, 3, 3, 4],
                          "item_id": ["a", "b", "a", "c", "b", "c", "c"],
                          "w": [1.0, 2.0, 1.0, 1.0, 1.0, 1.0, 1.0]})
    model = rv.models.Implicit(ItemItemRecommender(K=5), weight="w").fit(train)
    sim = model.model_.similarity.toarray()  # items a, b, c -> codes 0, 1, 2
    got = model.score(pd.DataFrame({"user_id": [1], "item_id": ["c"]}))["score"].iloc[0]
    assert got == pytest.approx(1.0 * sim[0, 2] + 2.0 * sim[1, 2], rel=1e-12)


def test_weight_column_is_the_confidence_and_repeats_add_up():
    train = log(4)
    model = rv.models.Implicit(AlternatingLeastSquares(factors=4, random_state=0),
                               weight="rating").fit(train)
    _, _, matrix = _reference_matrix(train, "rating")
    np.testing.assert_allclose(model.user_items_.toarray(), matrix.toarray(), rtol=1e-6)
    twice = pd.concat([train.head(1), train.head(1)])
    counted = rv.models.Implicit(ItemItemRecommender(K=5)).fit(twice)
    assert counted.user_items_.toarray().tolist() == [[2.0]]  # 1.0 per row, summed


@pytest.mark.parametrize(("weight", "error"), [
    ("nope", InvalidParameterError), (3, InvalidParameterError),
    ("bad", NonFiniteValueError)])
def test_bad_weights(weight, error):
    train = log(5).assign(bad=np.nan)
    with pytest.raises(error, match="weight"):
        rv.models.Implicit(ItemItemRecommender(K=5), weight=weight).fit(train)


def test_unknown_users_skipped_and_counted_or_an_error():
    train = log(6)
    model = rv.models.Implicit(CosineRecommender(K=10)).fit(train)
    known = train["user_id"].iloc[0]
    got = model.recommend([known, -1, 99999], 5, exclude=train)
    assert set(got["user_id"]) == {known}
    assert model.unknown_users_ == 2
    strict = rv.models.Implicit(CosineRecommender(K=10), unknown_users="error").fit(train)
    with pytest.raises(InvalidParameterError, match="not in the training data") as info:
        strict.recommend([known, -1, 99999], 5)
    assert info.value.n_bad == 2
    nobody = model.recommend([-1, -2], 5, exclude=train)   # only unknown users: no rows
    assert nobody.empty
    assert list(nobody.columns) == ["user_id", "item_id", "score"]
    assert model.unknown_users_ == 2
    pairs = pd.DataFrame({"user_id": [known, -1, known], "item_id": [5000, 5000, -7]})
    assert len(model.score(pairs)) == 1
    assert model.unknown_pairs_ == 2
    # users of another type than the training ids are not "unknown users", they are an error
    with pytest.raises(rv.exceptions.IdTypeMismatchError,
                       match=r"Implicit\(CosineRecommender\): asked about user ids of type "
                             r"string"):
        model.recommend([str(known)], 5)


@pytest.mark.parametrize("bad", [
    AlternatingLeastSquares,                # the class, not an instance
    None, "als", object(),
    pytest.param("sklearn", id="sklearn-estimator"),
])
def test_wrong_model_type(bad):
    if bad == "sklearn":
        from sklearn.linear_model import LinearRegression
        bad = LinearRegression()
    with pytest.raises(InvalidModelError, match="Implicit"):
        rv.models.Implicit(bad)


def test_unfitted_and_fit_raising(monkeypatch):
    model = rv.models.Implicit(AlternatingLeastSquares(factors=4))
    with pytest.raises(InvalidModelError, match="not fitted"):
        model.recommend([1], 5)
    with pytest.raises(InvalidModelError, match="not fitted"):
        model.score(pd.DataFrame({"user_id": [1], "item_id": [2]}))

    def boom(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("solver diverged")

    monkeypatch.setattr(type(model.model), "fit", boom)  # fit fits a copy of model.model
    with pytest.raises(InvalidModelError, match=r"AlternatingLeastSquares.*solver diverged") \
            as info:
        model.fit(log(7))
    assert isinstance(info.value.__cause__, RuntimeError)


@pytest.mark.parametrize("name", list(MODELS))
def test_refit_starts_afresh_on_an_unfitted_copy(name):
    # fit(a) after fit(b) gives the lists of a fresh fit(a); a smaller train after a larger
    # one (implicit's own fit reuses the old factors: NaN, or a crash) works; the model given
    # to the constructor is never fitted
    big, small = log(21), log(22, n_users=40, n_items=30, n_rows=300)
    users = sorted(big["user_id"].unique())[::3]

    def wrapped() -> Any:
        model = MODELS[name]()
        model.num_threads = 1  # BPR / LMF: one thread, deterministic
        return model

    with threadpool_limits(1, "blas"):
        fresh = rv.models.Implicit(wrapped()).fit(big).recommend(users, 10, exclude=big)
        model = rv.models.Implicit(wrapped())
        model.fit(big)
        small_recs = model.fit(small).recommend(sorted(small["user_id"].unique()), 5)
        again = model.fit(big).recommend(users, 10, exclude=big)
    assert set(small_recs["item_id"]) <= set(small["item_id"])
    pd.testing.assert_frame_equal(again, fresh)
    assert model.model_ is not model.model
    fitted_state = ("user_factors", "similarity")
    assert all(getattr(model.model, attr, None) is None for attr in fitted_state)


def test_ties_of_unreached_items_follow_the_policy():
    # user 1 reaches only items b (through a); the rest of the catalog scores 0: tied
    train = pd.DataFrame({"user_id": [1, 2, 2, 3, 4, 5], "item_id": [0, 0, 1, 2, 3, 4]})
    model = rv.models.Implicit(CosineRecommender(K=5)).fit(train)
    with pytest.warns(TiesAtCutoffWarning, match="1 users"):
        stable = model.recommend([1], 3, exclude=train)
    assert stable["item_id"].tolist() == [1, 2, 3]   # reached b first, then ascending ids
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TiesAtCutoffWarning)
        draws = [model.recommend([1], 3, exclude=train, ties="random", seed=s)
                 ["item_id"].tolist() for s in range(12)]
        again = model.recommend([1], 3, exclude=train, ties="random", seed=0)
    assert all(d[0] == 1 for d in draws)
    assert len({tuple(d) for d in draws}) > 1
    assert again["item_id"].tolist() == draws[0]


def test_cross_validate_ranks_with_the_adapter_and_gives_no_rating_metric():
    data = log(8)
    folds = rv.split.kfold(data, n_splits=2, seed=0)
    cv = rv.cross_validate(
        {"als": rv.models.Implicit(AlternatingLeastSquares(factors=8, random_state=0))},
        data, ["ndcg@10", "precision@10"], split=folds, k=10)
    assert cv.per_fold.shape[0] == 2
    assert list(cv.per_fold.columns) == ["NDCG@10", "Precision@10"]
    assert np.isfinite(cv.per_fold.to_numpy()).all()


def test_missing_library_names_the_extra(monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "implicit", None)
    with pytest.raises(BackendUnavailableError, match=r'pip install "receval\[implicit\]"'):
        rv.models.Implicit(object())


def test_parameters_and_repr():
    model = rv.models.Implicit(AlternatingLeastSquares(factors=8, regularization=10.0),
                               weight="rating")
    # repr: the wrapped model's parameters that differ from implicit's defaults
    assert repr(model) == "Implicit(AlternatingLeastSquares(factors=8, regularization=10.0))"
    params = model.get_params()
    assert params == {"model": model.model, "weight": "rating", "unknown_users": "skip"}
    assert repr(type(model)(**params)) == repr(model)   # scikit-learn's convention
    deep = model.get_params(deep=True)
    assert deep["model__factors"] == 8
    assert deep["model__iterations"] == 15


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), k=st.integers(1, 12), str_ids=st.booleans(),
       factors=st.booleans())
def test_recommend_is_the_sorted_scores_of_every_allowed_pair(seed, k, str_ids, factors):
    # brute force: score() of every (user, item) pair, excluded pairs dropped, sorted by
    # (score descending, item id ascending: ties="stable"), the first k of each user
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 60))
    train = pd.DataFrame({"user_id": rng.integers(0, 8, n), "item_id": rng.integers(0, 12, n)})
    if str_ids:
        train = train.assign(user_id="u" + train.user_id.astype(str),
                             item_id="i" + train.item_id.astype(str))
    lib = (AlternatingLeastSquares(factors=3, iterations=2, random_state=0) if factors
           else ItemItemRecommender(K=4))
    model = rv.models.Implicit(lib).fit(train)
    exclude = train.sample(frac=0.5, random_state=seed % 1000)
    users = train["user_id"].unique()
    every = pd.MultiIndex.from_product([users, model.items_], names=["user_id", "item_id"])
    scored = model.score(every.to_frame(index=False))
    allowed = scored.merge(exclude[["user_id", "item_id"]].drop_duplicates(), how="left",
                           indicator=True)
    allowed = allowed[allowed["_merge"] == "left_only"].drop(columns="_merge")
    expected = (allowed.assign(neg=-allowed["score"])
                .sort_values(["user_id", "neg", "item_id"], kind="stable")
                .groupby("user_id").head(k).drop(columns="neg").reset_index(drop=True))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TiesAtCutoffWarning)
        got = model.recommend(users, k, exclude=exclude)
    assert got[["user_id", "item_id"]].equals(expected[["user_id", "item_id"]])
    np.testing.assert_allclose(got["score"], expected["score"], rtol=1e-12)
