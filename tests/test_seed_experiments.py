"""The seeds' experiments, run with receval's public API.

Seed 004 (``../shared/seeds/004_*``): a 30 x 10 ``make_blobs`` matrix rounded to 0/1
relevance, laid out as 10 objects (users) x 30 items; a random model (``np.random.seed(10)``,
one N(0, 1) score per row) against Surprise's ``KNNBasic(k=50)`` fitted with
``Reader(rating_scale=(0, 1))`` on every row and asked for every row (train = test, as in
the seed); nDCG, precision and MAP of each object's 30 items ranked by score.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval.datasets import sample_ratings

surprise = pytest.importorskip("surprise")
datasets = pytest.importorskip("sklearn.datasets")


def seed_004_frame() -> pd.DataFrame:
    """The seed's ``R_frame``: columns object, item, relevant (the seed's own code)."""
    r, _ = datasets.make_blobs(n_samples=30, n_features=10, centers=3, random_state=10,
                               cluster_std=5)
    r = np.round((r - r.min()) / (r.max() - r.min())).astype(int)
    index = pd.MultiIndex.from_tuples([(j, i) for j in np.arange(r.shape[1])
                                       for i in np.arange(r.shape[0])],
                                      names=["object", "item"])
    return pd.Series(r.ravel(), index=index, name="relevant").reset_index()


class NormalScores:
    """Seed 004's random model: ``np.random.seed(10); np.random.normal(size=len(rows))``.

    A model of the receval protocol with only ``predict``: cross_validate ranks every
    candidate item by it.
    """

    def fit(self, train: pd.DataFrame) -> NormalScores:
        rng = np.random.RandomState(10)  # the seed's legacy global generator, seeded 10
        self.scores_ = train[["user_id", "item_id"]].assign(score=rng.normal(size=len(train)))
        return self

    def predict(self, pairs: pd.DataFrame) -> pd.DataFrame:
        return pairs[["user_id", "item_id"]].merge(self.scores_, on=["user_id", "item_id"])


# object 8 as the seed prints it: item -> (relevant, random score, KNN score)
OBJECT_8 = {
    0: (1, -2.017719, 0.911927), 1: (0, 0.540541, 0.360036), 2: (1, -1.442299, 0.563100),
    3: (0, -1.608850, 0.763004), 4: (0, -1.006569, 0.638666), 5: (0, -0.257534, 0.253009),
    6: (0, 0.730507, 0.348827), 7: (1, -1.698401, 0.563100), 8: (1, 1.674076, 0.673895),
    9: (0, 1.163724, 0.638666), 10: (1, -0.132574, 0.653047), 11: (1, -0.290246, 0.430756),
    12: (0, -0.953532, 0.186026), 13: (0, 0.588041, 0.350962), 14: (0, 0.068801, 0.771011),
    15: (0, 1.412064, 0.454776), 16: (1, -0.686216, 0.737111), 17: (0, 0.547944, 0.350962),
    18: (1, -0.036383, 0.555094), 19: (1, -0.847016, 0.552959), 20: (1, 1.902304, 0.738984),
    21: (0, 0.279605, 0.172943), 22: (1, 0.620255, 0.537218), 23: (1, -1.068568, 0.631957),
    24: (0, -0.722621, 0.272497), 25: (0, 0.084140, 0.462782), 26: (0, -0.584455, 0.443032),
    27: (1, 0.602022, 0.642905), 28: (0, 0.438365, 0.354960), 29: (0, -0.782343, 0.644799),
}
# the seed's orders I_{1,8} (random) and I_{2,8} (KNN), and relevance sequences R'
I_1_8 = [20, 8, 15, 9, 6, 22, 27, 13, 17, 1, 28, 21, 25, 14, 18, 10, 5, 11, 26, 16, 24, 29, 19,
         12, 4, 23, 2, 3, 7, 0]
I_2_8 = [0, 14, 3, 20, 16, 8, 10, 29, 27, 4, 9, 23, 7, 2, 18, 19, 22, 25, 15, 26, 11, 1, 28,
         17, 13, 6, 24, 5, 12, 21]
R_2_8 = [1, 0, 0, 1, 1, 1, 1, 0, 1, 0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0,
         0]
METRICS = ["ndcg@10", "precision@10", "map@10", "ndcg", "map"]
COLUMNS = rv.Columns(user="object", item="item", rating="relevant")


def run_seed_004() -> rv.CrossValidation:
    data = seed_004_frame()
    models = {"random": NormalScores(),
              "knn": rv.models.Surprise(surprise.KNNBasic(k=50, verbose=False),
                                        candidates="all")}
    # train = test = every row, and every item ranked (k = 30, nothing excluded), as the seed
    with pytest.warns(rv.exceptions.TiesAtCutoffWarning, match="k=10"):
        return rv.cross_validate(models, data, METRICS, split=(data, data), k=30,
                                 exclude_seen=False, columns=COLUMNS)


@pytest.fixture(scope="module")
def cv() -> rv.CrossValidation:
    return run_seed_004()


def _ranked(cv: rv.CrossValidation, obj: int, scores: pd.DataFrame) -> list[int]:
    sub = scores[scores.user_id == obj]
    return sub.sort_values(["score", "item_id"], ascending=[False, True])["item_id"].tolist()


def test_scores_are_the_seeds():
    data = seed_004_frame()
    train = data.rename(columns={"object": "user_id", "item": "item_id", "relevant": "rating"})
    knn = rv.models.Surprise(surprise.KNNBasic(k=50, verbose=False)).fit(train)
    assert knn.rating_scale_ == (0.0, 1.0)  # the seed's Reader(rating_scale=(0, 1))
    knn_scores = knn.predict(train)
    rand_scores = NormalScores().fit(train).predict(train)
    obj = train.user_id == 8
    assert train.loc[obj, "rating"].tolist() == [OBJECT_8[i][0] for i in range(30)]
    np.testing.assert_allclose(rand_scores.loc[obj, "score"],
                               [OBJECT_8[i][1] for i in range(30)], atol=5e-7)
    np.testing.assert_allclose(knn_scores.loc[obj, "score"],
                               [OBJECT_8[i][2] for i in range(30)], atol=5e-7)
    assert _ranked(cv=None, obj=8, scores=rand_scores) == I_1_8  # type: ignore[arg-type]
    knn_order = _ranked(cv=None, obj=8, scores=knn_scores)  # type: ignore[arg-type]
    # the seed sorts with pandas' unstable quicksort: equal KNN scores (items 2 and 7, 4 and
    # 9, 13 and 17) may come in either order; they have equal relevance, so R' is the same
    assert [OBJECT_8[i][0] for i in knn_order] == R_2_8
    assert sorted(knn_order[12:14]) == sorted(I_2_8[12:14]) == [2, 7]
    assert [i for i in knn_order if i not in (2, 7, 4, 9, 13, 17)] == \
        [i for i in I_2_8 if i not in (2, 7, 4, 9, 13, 17)]


def _independent(relevance: list[int], k: int | None) -> dict[str, float]:
    """nDCG, precision and AP of one ranked 0/1 list, straight from the formulas."""
    rel = np.asarray(relevance, dtype=float)
    top = rel[:k] if k else rel
    disc = 1 / np.log2(np.arange(2, len(top) + 2))
    ideal = np.sort(rel)[::-1][:len(top)]
    hits = np.cumsum(top)
    ap_den = min(k, rel.sum()) if k else rel.sum()
    return {"ndcg": float((top * disc).sum() / (ideal * disc).sum()),
            "precision": float(top.sum() / len(top)),
            "ap": float((top * hits / np.arange(1, len(top) + 1)).sum() / ap_den)}


def test_object_8_hand_computed(cv):
    # KNN, object 8, R' = 1,0,0,1,1,1,1,0,1,0 | ...: precision@10 = 6/10
    # DCG@10 = 1/log2 2 + 1/log2 5 + 1/log2 6 + 1/log2 7 + 1/log2 8 + 1/log2 10
    # IDCG@10 = sum_{i=1..10} 1/log2(i + 1) (object 8 has 14 relevant items)
    # AP@10 = (1/1 + 2/4 + 3/5 + 4/6 + 5/7 + 6/9) / min(10, 14)
    per_user = cv.results[("knn", 0)].per_user.loc[8]
    dcg = sum(1 / np.log2(r + 1) for r in (1, 4, 5, 6, 7, 9))
    idcg = sum(1 / np.log2(r + 1) for r in range(1, 11))
    assert per_user["Precision@10"] == pytest.approx(0.6, abs=1e-15)
    assert per_user["NDCG@10"] == pytest.approx(dcg / idcg, abs=1e-15)
    assert per_user["MAP@10"] == pytest.approx((1 + 2 / 4 + 3 / 5 + 4 / 6 + 5 / 7 + 6 / 9) / 10,
                                               abs=1e-15)


def test_every_object_against_the_formulas(cv):
    from sklearn.metrics import ndcg_score

    data = seed_004_frame()
    train = data.rename(columns={"object": "user_id", "item": "item_id", "relevant": "rating"})
    scores = {"random": NormalScores().fit(train).predict(train),
              "knn": rv.models.Surprise(surprise.KNNBasic(k=50, verbose=False)).fit(
                  train).predict(train)}
    for name, frame in scores.items():
        per_user = cv.results[(name, 0)].per_user
        for obj in range(10):
            sub = frame[frame.user_id == obj].merge(train, on=["user_id", "item_id"])
            order = sub.sort_values(["score", "item_id"], ascending=[False, True])
            rel = order["rating"].tolist()
            for k, suffix in ((10, "@10"), (None, "")):
                ref = _independent(rel, k)
                assert per_user.loc[obj, f"NDCG{suffix}"] == pytest.approx(ref["ndcg"],
                                                                           abs=1e-12)
                assert per_user.loc[obj, f"MAP{suffix}"] == pytest.approx(ref["ap"], abs=1e-12)
            assert per_user.loc[obj, "Precision@10"] == pytest.approx(
                _independent(rel, 10)["precision"], abs=1e-15)
            assert per_user.loc[obj, "NDCG@10"] == pytest.approx(
                ndcg_score([sub["rating"]], [sub["score"]], k=10), abs=1e-12)


def test_seed_004_values(cv):
    # the experiment's numbers (means over the 10 objects), pinned
    expected = {
        "random": [0.5174036433613486, 0.49, 0.33335714285714285, 0.7983365755442036,
                   0.5627511636324047],
        "knn": [0.8151537477103918, 0.78, 0.7129682539682539, 0.9302490971635171,
                0.8076385862323521],
    }
    for name, values in expected.items():
        got = cv.per_fold.loc[(name, 0)].tolist()
        assert got == pytest.approx(values, abs=1e-12)
    # the seed's conclusion: KNN ranks relevant items higher than random scores, on every metric
    assert (cv.per_fold.loc[("knn", 0)] > cv.per_fold.loc[("random", 0)]).all()


@pytest.mark.slow
def test_demo_data_kfold_of_the_baselines():
    ratings = sample_ratings(200, 150, seed=3)
    folds = rv.split.kfold(ratings, n_splits=3, by="rows", seed=0)
    models = {"random": rv.models.Random(seed=1), "popular": rv.models.MostPopular(),
              "global mean": rv.models.GlobalMean(), "item mean": rv.models.ItemMean(5)}
    cv = rv.cross_validate(models, ratings, ["precision@10", "rmse"], split=folds, k=10,
                           relevance_threshold=4, no_relevant="zero")
    # popularity beats random; the item mean predicts better than the global mean
    s = cv.summary()
    assert s.loc["popular", ("Precision@10", "mean")] > s.loc["random", ("Precision@10", "mean")]
    assert s.loc["item mean", ("RMSE", "mean")] < s.loc["global mean", ("RMSE", "mean")]
    # fold 0 of MostPopular against an independent pandas computation
    train, test = folds[0]
    count = train.groupby("item_id")["user_id"].nunique()
    ranked = sorted(count.index, key=lambda i: (-count[i], i))
    values = []
    for user, rows in test.groupby("user_id"):
        seen = set(train.loc[train.user_id == user, "item_id"])
        top = [i for i in ranked if i not in seen][:10]
        relevant = set(rows.loc[rows.rating >= 4, "item_id"])
        values.append(len(relevant.intersection(top)) / 10)
    assert cv.per_fold.loc[("popular", 0), "Precision@10"] == pytest.approx(np.mean(values),
                                                                            abs=1e-15)
    # global mean RMSE of fold 0 by hand: sqrt(mean((r - mean(train r))^2))
    mu = train["rating"].mean()
    assert cv.per_fold.loc[("global mean", 0), "RMSE"] == pytest.approx(
        np.sqrt(((test["rating"] - mu) ** 2).mean()), abs=1e-12)
