"""The vectorised Surprise path against Surprise's own ``predict``, pair by pair.

Every algorithm and option of DESIGN §12 is fitted on a small MovieLens-shaped table
(``rv.datasets.sample_ratings``); the receval scores of every (user, item) pair, with an
unknown user and an unknown item added, must equal ``algo.predict(u, i, clip=False).est``
of the very same fitted algorithm to 1e-9 relative, and ``predict`` its clipped estimate.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest

import receval as rv

surprise = pytest.importorskip("surprise")

UNKNOWN_USER, UNKNOWN_ITEM = -7, 99_999


def _train(seed: int = 3) -> pd.DataFrame:
    log = rv.datasets.sample_ratings(60, 50, seed=seed)
    return log[["user_id", "item_id", "rating"]].astype({"rating": float})


def _knn(cls: type, name: str, user_based: bool, k: int, min_k: int):
    return lambda: cls(k=k, min_k=min_k, verbose=False,
                       sim_options={"name": name, "user_based": user_based})


FACTORS = {
    "SVD": lambda: surprise.SVD(n_factors=8, n_epochs=5, random_state=0),
    "SVD-unbiased": lambda: surprise.SVD(n_factors=8, biased=False, random_state=0),
    "SVDpp": lambda: surprise.SVDpp(n_factors=5, n_epochs=3, random_state=0),
    "NMF": lambda: surprise.NMF(n_factors=6, random_state=0),
    "NMF-biased": lambda: surprise.NMF(n_factors=6, biased=True, random_state=0),
    "BaselineOnly-als": lambda: surprise.BaselineOnly(verbose=False),
    "BaselineOnly-sgd": lambda: surprise.BaselineOnly(bsl_options={"method": "sgd"},
                                                      verbose=False),
    "CoClustering": lambda: surprise.CoClustering(n_cltr_u=3, n_cltr_i=2, random_state=0),
    "SlopeOne": lambda: surprise.SlopeOne(),
}
KNN_CLASSES = ["KNNBasic", "KNNWithMeans", "KNNWithZScore", "KNNBaseline"]
SIMS = ["cosine", "msd", "pearson", "pearson_baseline"]
# (k, min_k): Surprise's defaults; few neighbours with a high floor (many impossible pairs,
# ties at the k-th similarity decided by list order); one neighbour and min_k = 0 (zero
# denominators where the most similar rater is dissimilar)
NEIGHBOURS = [(40, 1), (3, 3), (1, 0)]
KNN = {f"{c}-{s}-{'user' if ub else 'item'}-k{k}-min{m}":
       _knn(getattr(surprise, c), s, ub, k, m)
       for c, s, ub, (k, m) in itertools.product(KNN_CLASSES, SIMS, [True, False],
                                                  NEIGHBOURS)}
ALGOS = {**FACTORS, **KNN}


def _all_pairs(train: pd.DataFrame) -> pd.DataFrame:
    users = [*sorted(train["user_id"].unique()), UNKNOWN_USER]
    items = [*sorted(train["item_id"].unique()), UNKNOWN_ITEM]
    u, i = zip(*itertools.product(users, items), strict=True)
    return pd.DataFrame({"user_id": u, "item_id": i})


def _surprise(algo: object, pairs: pd.DataFrame, clip: bool) -> list:
    return [algo.predict(u, i, clip=clip)  # type: ignore[attr-defined]
            for u, i in zip(pairs["user_id"].tolist(), pairs["item_id"].tolist(),
                            strict=True)]


def _divides(algo: object, u: object, i: object) -> bool:
    try:
        algo.predict(u, i)  # type: ignore[attr-defined]
    except ZeroDivisionError:
        return False
    return True


def _zero_division(name: str) -> bool:
    # KNNBasic with min_k=0 divides 0 by 0 where no neighbour has a positive similarity:
    # Surprise's predict raises ZeroDivisionError there; receval gives the default prediction
    return name.startswith("KNNBasic") and name.endswith("min0")


@pytest.mark.parametrize("name", list(ALGOS))
def test_scores_and_predictions_equal_surprise_on_every_pair(name):
    train = _train()
    model = rv.models.Surprise(ALGOS[name]()).fit(train)
    assert model.path_ == "vectorised"
    pairs = _all_pairs(train)
    got = model.score(pairs)["score"].to_numpy()
    if _zero_division(name):
        ok = np.array([_divides(model.algo, u, i) for u, i in
                       zip(pairs["user_id"], pairs["item_id"], strict=True)])
        assert (got[~ok] == model.algo.trainset.global_mean).all()
        pairs, got = pairs[ok], got[ok]
    ref = _surprise(model.algo, pairs, clip=False)
    np.testing.assert_allclose(got, [p.est for p in ref], rtol=1e-9, atol=0)
    clipped = model.predict(pairs)["score"].to_numpy()
    np.testing.assert_allclose(clipped, [p.est for p in _surprise(model.algo, pairs, True)],
                               rtol=1e-9, atol=0)
    impossible = sum(bool(p.details["was_impossible"]) for p in ref)
    assert model.fallbacks_.get("impossible", 0) == 2 * impossible  # score, then predict
    # the block path of recommend (every candidate of a few users) gives the same estimates
    est = {(u, i): p.est for u, i, p in zip(pairs["user_id"], pairs["item_id"], ref,
                                            strict=True)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rv.exceptions.TiesAtCutoffWarning)
        recs = model.recommend([*sorted(train["user_id"].unique())[:4], UNKNOWN_USER],
                               k=len(train))
    mean = model.algo.trainset.global_mean  # pairs where Surprise divides by zero
    expected = [est.get((u, i), mean)
                for u, i in zip(recs["user_id"], recs["item_id"], strict=True)]
    np.testing.assert_allclose(recs["score"], expected, rtol=1e-9, atol=0)


@pytest.mark.parametrize("name", ["SVD", "SVDpp", "SlopeOne", "CoClustering",
                                  "KNNBaseline-pearson_baseline-item-k3-min3",
                                  "KNNWithZScore-msd-user-k40-min1"])
def test_recommend_ranks_every_unseen_item_by_the_unclipped_estimate(name):
    train = _train(4)
    model = rv.models.Surprise(ALGOS[name]()).fit(train)
    users = [*sorted(train["user_id"].unique())[:12], UNKNOWN_USER]
    n_items = train["item_id"].nunique()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rv.exceptions.TiesAtCutoffWarning)
        recs = model.recommend(users, k=n_items)  # every candidate, best first
    seen = set(zip(train["user_id"], train["item_id"], strict=True))
    expected = {(u, i) for u in users for i in train["item_id"].unique() if (u, i) not in seen}
    assert set(zip(recs["user_id"], recs["item_id"], strict=True)) == expected
    ref = _surprise(model.algo, recs, clip=False)
    np.testing.assert_allclose(recs["score"], [p.est for p in ref], rtol=1e-9, atol=0)
    for _, one in recs.groupby("user_id", sort=False):  # best first, ties by item id
        s, i = one["score"].to_numpy(), one["item_id"].to_numpy()
        assert np.all((s[:-1] > s[1:]) | ((s[:-1] == s[1:]) & (i[:-1] < i[1:])))


def test_recommend_top_k_exclude_and_candidates_all():
    train = _train(5)
    model = rv.models.Surprise(surprise.SVD(n_factors=4, random_state=1),
                               candidates="all").fit(train)
    user = int(train["user_id"].iloc[0])
    everything = model.recommend([user], k=100)
    assert len(everything) == train["item_id"].nunique()  # the user's own items included
    exclude = everything.head(3)[["user_id", "item_id"]]
    top = model.recommend([user], k=5, exclude=exclude)
    assert top["item_id"].tolist() == everything["item_id"].iloc[3:8].tolist()


def test_unclipped_ranking_breaks_the_ties_clipping_makes():
    # an SVD fitted long on high ratings estimates above 5 for many items: clipped they
    # all tie at 5.0, unclipped they are ordered
    train = _train(6)
    train = train.assign(rating=np.minimum(train["rating"] + 2, 5.0))
    model = rv.models.Surprise(surprise.SVD(n_factors=8, n_epochs=60, lr_all=0.02,
                                            random_state=0)).fit(train)
    pairs = _all_pairs(train)
    assert (model.predict(pairs)["score"] == 5.0).sum() > 50
    assert (model.score(pairs)["score"] > 5.0).sum() > 50
    with warnings.catch_warnings():
        warnings.simplefilter("error", rv.exceptions.TiesAtCutoffWarning)
        recs = model.recommend(sorted(train["user_id"].unique()), k=10)
    assert (recs["score"] > 5.0).any()
    assert model.tied_users_ == 0


class Custom(surprise.AlgoBase):  # not a built-in algorithm: the slow path
    def fit(self, trainset):
        surprise.AlgoBase.fit(self, trainset)
        return self

    def estimate(self, u, i):
        if not (self.trainset.knows_user(u) and self.trainset.knows_item(i)):
            raise surprise.PredictionImpossible("unknown")
        return 1.0 + 0.37 * u - 0.11 * i  # outside the rating scale for many pairs


@pytest.mark.parametrize("make", [lambda: (Custom(), True),
                                  lambda: (surprise.SVD(n_factors=3, random_state=0), False)])
def test_other_algorithms_take_the_slow_path_and_say_so(make, capsys):
    algo, custom = make()
    train = _train(7)
    with pytest.warns(rv.exceptions.RecevalWarning, match="slow path"):
        model = rv.models.Surprise(algo, vectorised=False).fit(train)
    assert model.path_ == "per-pair predict"
    pairs = _all_pairs(train)
    got = model.score(pairs)["score"].to_numpy()
    np.testing.assert_allclose(got, [p.est for p in _surprise(algo, pairs, False)],
                               rtol=1e-12)
    assert model.fallbacks_["per_pair_predict"] == len(pairs)
    recs = model.recommend(sorted(train["user_id"].unique())[:3], k=4)
    assert model.fallbacks_["per_pair_predict"] == len(pairs) + 3 * train["item_id"].nunique()
    if custom:  # its estimates are unclipped in the ranking, clipped in predict
        assert recs["score"].min() < 1.0
        assert model.predict(pairs)["score"].min() == 1.0


def test_bad_ties_name_the_parameter():
    train = _train()
    svd = rv.models.Surprise(surprise.SVD(n_factors=2, random_state=0)).fit(train)
    with pytest.raises(rv.exceptions.InvalidParameterError, match=r"neighbours.*k-NN"):
        svd.recommend([1], k=3, ties="neighbours")
    knn = rv.models.Surprise(surprise.KNNBasic(verbose=False)).fit(train)
    for ties in ("best", None, 1):
        with pytest.raises(rv.exceptions.InvalidParameterError, match="ties"):
            knn.recommend([1], k=3, ties=ties)  # type: ignore[arg-type]
    with pytest.raises(rv.exceptions.InvalidParameterError, match="seed"):
        knn.recommend([1], k=3, ties="random")


def test_knn_basic_zero_division_gets_the_default_prediction():
    # users 0 and 1 rated a, b, c oppositely: pearson(0, 1) = -1 (deviations from the means
    # (1+5+3)/3 = 3: -2, 2, 0 against 2, -2, 0); item x is rated by user 1 only, so user 0
    # has no positive neighbour for x: with min_k=0 Surprise computes 0 / 0 and raises
    train = pd.DataFrame({"user_id": [0, 0, 0, 1, 1, 1, 1],
                          "item_id": ["a", "b", "c", "a", "b", "c", "x"],
                          "rating": [1.0, 5.0, 3.0, 5.0, 1.0, 3.0, 4.0]})
    algo = surprise.KNNBasic(min_k=0, sim_options={"name": "pearson"}, verbose=False)
    model = rv.models.Surprise(algo).fit(train)
    assert model.algo.sim[0, 1] == pytest.approx(-1.0)
    with pytest.raises(ZeroDivisionError):
        model.algo.predict(0, "x")
    got = model.score(pd.DataFrame({"user_id": [0], "item_id": ["x"]}))
    assert got["score"].tolist() == [22.0 / 7]  # the training mean (1+5+3+5+1+3+4) / 7
    assert model.fallbacks_ == {"impossible": 1}
    recs = model.recommend([0], k=1)
    assert recs["item_id"].tolist() == ["x"]
    assert recs["score"].tolist() == [22.0 / 7]
