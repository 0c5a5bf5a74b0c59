"""rv.cross_validate on hand-made folds, with every number computed by hand."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
from receval.exceptions import InvalidParameterError
from tests.strategies import examples

DATA = pd.DataFrame(
    [(1, "a", 5), (1, "b", 3), (1, "c", 4), (2, "a", 4), (2, "c", 2), (2, "b", 5), (2, "d", 3),
     (3, "a", 2), (3, "d", 4), (3, "b", 1), (3, "e", 5)],
    columns=["user_id", "item_id", "rating"])
TEST0 = DATA.iloc[[2, 5, 6, 10]]  # (1,c,4) (2,b,5) (2,d,3) (3,e,5)
TEST1 = DATA.iloc[[0, 3, 7, 8]]   # (1,a,5) (2,a,4) (3,a,2) (3,d,4)
FOLDS = [(DATA.drop(TEST0.index), TEST0), (DATA.drop(TEST1.index), TEST1)]


def _cv(**kw: Any) -> rv.CrossValidation:
    options: dict[str, Any] = dict(split=FOLDS, k=2)
    options.update(kw)
    models = options.pop("models", {"pop": rv.models.MostPopular(), "mean": rv.models.ItemMean()})
    metrics = options.pop("metrics", ["precision@2", "rmse"])
    return rv.cross_validate(models, DATA, metrics, **options)


def test_hand_computed_folds():
    cv = _cv()
    # fold 0, MostPopular: train counts a 3, b 2, c 1, d 1 (e unseen) -> order a, b, c, d
    #   user 1 (saw a, b) -> [c, d], test {c}: 1/2; user 2 (a, c) -> [b, d], test {b, d}: 2/2
    #   user 3 (a, d, b) -> [c], test {e}: 0/2                        mean (1/2 + 1 + 0) / 3
    # fold 1, MostPopular: counts b 3, c 2, d 1, e 1 (a unseen) -> order b, c, d, e
    #   user 1 (b, c) -> [d, e], test {a}: 0; user 2 (c, b, d) -> [e], test {a}: 0
    #   user 3 (b, e) -> [c, d], test {a, d}: 1/2                     mean (0 + 0 + 1/2) / 3
    assert cv.per_fold.loc[("pop", 0), "Precision@2"] == pytest.approx(0.5, abs=1e-15)
    assert cv.per_fold.loc[("pop", 1), "Precision@2"] == pytest.approx(1 / 6, abs=1e-15)
    assert math.isnan(cv.per_fold.loc[("pop", 0), "RMSE"])  # no predict: no rating metric
    # fold 0, ItemMean: a (5+4+2)/3 = 11/3, b (3+1)/2 = 2, c 2, d 4; mu = 21/7 = 3
    #   errors: (1,c) 2-4, (2,b) 2-5, (2,d) 4-3, (3,e) unseen mu 3-5 -> sqrt((4+9+1+4)/4)
    assert cv.per_fold.loc[("mean", 0), "RMSE"] == pytest.approx(math.sqrt(4.5), abs=1e-15)
    # fold 1: b (3+5+1)/3 = 3, c 3, d 3, e 5; a unseen -> mu = 23/7
    #   errors 5-23/7 = 12/7, 4-23/7 = 5/7, 2-23/7 = -9/7, (3,d) 4-3 = 1 -> 299/49 / 4
    assert cv.per_fold.loc[("mean", 1), "RMSE"] == pytest.approx(math.sqrt(299 / 196),
                                                                  abs=1e-15)
    # ItemMean ranks fold 0 by mean: d 4, a 11/3, b 2, c 2 -> user 1 [d, c] 1/2,
    #   user 2 [d, b] 1, user 3 [c] 0 -> 1/2
    assert cv.per_fold.loc[("mean", 0), "Precision@2"] == pytest.approx(0.5, abs=1e-15)
    assert cv.settings["no_rating_metrics"] == ["pop"]
    assert cv.settings["fallbacks"][("mean", 0)] == {"unknown_items": 1}
    assert cv.settings["fallbacks"][("mean", 1)] == {"unknown_items": 3}


def test_summary_and_per_user_values():
    cv = _cv()
    summary = cv.summary()
    # mean (1/2 + 1/6) / 2 = 1/3; sample std |1/2 - 1/6| / sqrt(2)
    assert summary.loc["pop", ("Precision@2", "mean")] == pytest.approx(1 / 3, abs=1e-15)
    assert summary.loc["pop", ("Precision@2", "std")] == pytest.approx(
        (1 / 3) / math.sqrt(2), abs=1e-15)
    assert list(summary.index) == ["pop", "mean"]
    per_user = cv.results[("pop", 0)].per_user["Precision@2"]
    assert per_user.to_dict() == {1: 0.5, 2: 1.0, 3: 0.0}
    assert list(cv.per_fold.index) == [("pop", 0), ("pop", 1), ("mean", 0), ("mean", 1)]
    assert cv.results[("mean", 1)].users.rating_evaluated.tolist() == [1, 2, 3]
    assert "0.3333 ± 0.2357" in cv.to_markdown()
    assert "CrossValidation(2 models x 2 folds, k=2)" in repr(cv)
    assert set(cv.timings.columns) >= {"fit", "recommend", "evaluate"}


def test_exclude_seen_false():
    cv = _cv(exclude_seen=False, models={"pop": rv.models.MostPopular()},
             metrics=["precision@2"])
    # fold 0: everyone gets [a, b]; user 1 {c} 0, user 2 {b, d} 1/2, user 3 {e} 0
    assert cv.per_fold.loc[("pop", 0), "Precision@2"] == pytest.approx(1 / 6, abs=1e-15)


def test_evaluate_options_pass_through():
    cv = _cv(relevance_threshold=4, models={"pop": rv.models.MostPopular()},
             metrics=["precision@2"], no_relevant="zero")
    # fold 0 relevant (>= 4): user 1 {c}, user 2 {b}, user 3 {e}
    #   [c, d] 1/2, [b, d] 1/2, [c] 0 -> 1/3
    assert cv.per_fold.loc[("pop", 0), "Precision@2"] == pytest.approx(1 / 3, abs=1e-15)
    assert cv.results[("pop", 0)].settings["relevance_threshold"] == 4


class PredictOnly:
    """ItemMean without recommend: cross_validate ranks the training items by predict."""

    def fit(self, train: pd.DataFrame) -> PredictOnly:
        self.inner = rv.models.ItemMean().fit(train)
        return self

    def predict(self, pairs: pd.DataFrame) -> np.ndarray:
        return self.inner.predict(pairs)["score"].to_numpy()


def test_model_without_recommend_is_ranked_by_predict():
    cv = _cv(models={"mean": rv.models.ItemMean(), "predict-only": PredictOnly()})
    pd.testing.assert_series_equal(cv.per_fold.loc["mean"]["Precision@2"],
                                   cv.per_fold.loc["predict-only"]["Precision@2"])
    assert cv.settings["ranked_by_predict"] == ["predict-only"]


@dataclass
class FakeSplit:
    train: pd.DataFrame
    test: pd.DataFrame
    report: str = "a report"


def test_split_forms():
    base = _cv(split=FOLDS[0]).per_fold
    assert len(base) == 2  # one (train, test) pair: one fold
    for split in (FakeSplit(*FOLDS[0]), [FakeSplit(*FOLDS[0])], [FOLDS[0]], iter([FOLDS[0]]),
                  lambda data: FakeSplit(*FOLDS[0])):
        pd.testing.assert_frame_equal(_cv(split=split).per_fold, base)
    assert _cv(split=FakeSplit(*FOLDS[0])).settings["split_reports"] == ["a report"]


def test_columns_and_frame_types():
    renamed = DATA.rename(columns={"user_id": "who", "item_id": "what", "rating": "stars"})
    folds = [(renamed.loc[tr.index], renamed.loc[te.index]) for tr, te in FOLDS]
    cv = rv.cross_validate({"pop": rv.models.MostPopular()}, renamed, ["precision@2"],
                           split=folds, k=2, columns={"user": "who", "item": "what",
                                                      "rating": "stars"})
    assert cv.per_fold["Precision@2"].tolist() == pytest.approx([0.5, 1 / 6], abs=1e-15)
    pa = pytest.importorskip("pyarrow")
    arrow = [(pa.Table.from_pandas(tr), pa.Table.from_pandas(te)) for tr, te in FOLDS]
    cv = _cv(split=arrow, models={"pop": rv.models.MostPopular()}, metrics=["precision@2"])
    assert cv.per_fold["Precision@2"].tolist() == pytest.approx([0.5, 1 / 6], abs=1e-15)


def test_model_object_is_not_fitted():
    model = rv.models.MostPopular()
    _cv(models={"pop": model})
    assert not hasattr(model, "items_")


class Cheater:
    def __init__(self, recs: pd.DataFrame) -> None:
        self.recs = recs

    def fit(self, train: pd.DataFrame) -> None:
        pass

    def recommend(self, users: Any, k: int, exclude: Any = None) -> pd.DataFrame:
        return self.recs


def test_protocol_violations_name_the_model():
    seen = pd.DataFrame({"user_id": [1], "item_id": ["a"], "score": [1.0]})
    with pytest.raises(rv.models.ModelOutputError, match=r"'cheat'.*training rows"):
        _cv(models={"cheat": Cheater(seen)}, metrics=["precision@2"])
    unknown = seen.assign(item_id="zz")
    with pytest.raises(rv.models.ModelOutputError, match=r"'cheat'.*not in the data"):
        _cv(models={"cheat": Cheater(unknown)}, metrics=["precision@2"])
    with pytest.raises(rv.models.ModelOutputError, match=r"'cheat'.*NaN"):
        _cv(models={"cheat": Cheater(seen.assign(item_id="e", score=np.nan))},
            metrics=["precision@2"])


def test_bad_parameters():
    with pytest.raises(InvalidParameterError, match="models must be a non-empty dict"):
        rv.cross_validate([rv.models.MostPopular()], DATA, ["p@2"], split=FOLDS)
    with pytest.raises(InvalidParameterError, match="needs fit"):
        rv.cross_validate({"x": object()}, DATA, ["p@2"], split=FOLDS)
    with pytest.raises(InvalidParameterError, match="split must be"):
        _cv(split=[DATA])
    with pytest.raises(InvalidParameterError, match="split must be"):
        _cv(split=5)
    with pytest.raises(InvalidParameterError, match="k must be"):
        _cv(k=0)
    with pytest.raises(InvalidParameterError, match="metrics is empty"):
        _cv(metrics=[])
    with pytest.raises(InvalidParameterError, match="data is None"):
        rv.cross_validate({"p": rv.models.MostPopular()}, None, ["p@2"],
                          split=lambda d: FOLDS)
    with pytest.raises(rv.exceptions.UnknownMetricError):
        _cv(metrics=["nonsense@2"])
    with pytest.raises(InvalidParameterError, match="ties"):
        _cv(ties="sideways")


def test_warnings_of_every_fold_come_once():
    # user 3 has no relevant item in fold 0 at threshold 5.5: one warning, not one per model
    with pytest.warns(rv.exceptions.UndefinedMetricWarning) as record:
        _cv(relevance_threshold=5, metrics=["precision@2"])
    messages = [str(w.message) for w in record]
    assert len(messages) == len(set(messages))


# -- with rv.split ----------------------------------------------------------------------------
def test_kfold_by_users_each_user_tested_once():
    from receval.datasets import sample_ratings

    data = sample_ratings(90, 60, seed=5)
    folds = rv.split.kfold(data, n_splits=3, by="users", seed=4)
    cv = rv.cross_validate({"pop": rv.models.MostPopular()}, data, ["recall@5"], split=folds,
                           k=5, no_relevant="zero")
    users = [set(cv.results[("pop", f)].per_user.index) for f in range(3)]
    assert set().union(*users) == set(data["user_id"])
    assert sum(len(u) for u in users) == data["user_id"].nunique()
    # every fold's value is rv.evaluate of MostPopular fitted on that fold's train
    for f, (train, test) in enumerate(folds):
        recs = rv.models.MostPopular().fit(train).recommend(test["user_id"].unique(), 5,
                                                             exclude=train)
        expected = rv.evaluate(recs, test, ["recall@5"], no_relevant="zero")["recall@5"]
        assert cv.per_fold.loc[("pop", f), "Recall@5"] == expected
    assert all(r is not None for r in cv.settings["split_reports"])


def test_a_temporal_split_and_polars_frames():
    pl = pytest.importorskip("polars")
    from receval.datasets import sample_ratings

    data = pl.from_pandas(sample_ratings(60, 50, seed=6))
    split = rv.split.temporal(data, test_size=0.25, per_user=True)
    assert isinstance(split.train, pl.DataFrame)
    cv = rv.cross_validate({"mean": rv.models.ItemMean()}, data, ["rmse"], split=split)
    train, test = (part.to_pandas() for part in split)
    mu = train.groupby("item_id")["rating"].mean()
    pred = test["item_id"].map(mu).fillna(train["rating"].mean())
    assert cv.per_fold.loc[("mean", 0), "RMSE"] == pytest.approx(
        np.sqrt(((pred - test["rating"]) ** 2).mean()), abs=1e-12)


def test_progress_bar_on():
    cv = _cv(progress=True, models={"pop": rv.models.MostPopular()}, metrics=["precision@2"])
    assert cv.per_fold["Precision@2"].tolist() == pytest.approx([0.5, 1 / 6], abs=1e-15)


@pytest.mark.slow
@settings(max_examples=examples(25), deadline=None)
@given(seed=st.integers(0, 10_000), n_folds=st.integers(2, 4), k=st.integers(1, 6))
def test_property_every_fold_is_evaluate_of_the_fitted_model(seed, n_folds, k):
    rng = np.random.default_rng(seed)
    log = pd.DataFrame({"user_id": rng.integers(0, 12, 80), "item_id": rng.integers(0, 15, 80),
                        "rating": rng.integers(1, 6, 80).astype(float)}).drop_duplicates(
        ["user_id", "item_id"], ignore_index=True)
    fold_of = rng.permutation(len(log)) % n_folds
    folds = [(log[fold_of != f], log[fold_of == f]) for f in range(n_folds)]
    models = {"pop": rv.models.MostPopular(), "rand": rv.models.Random(seed=seed),
              "mean": rv.models.UserMean(shrinkage=1)}
    cv = rv.cross_validate(models, log, [f"ndcg@{k}", "mae"], split=folds, k=k,
                           no_relevant="zero")
    for (name, f), ev in cv.results.items():
        train, test = folds[f]
        model = {"pop": rv.models.MostPopular(), "rand": rv.models.Random(seed=seed),
                 "mean": rv.models.UserMean(shrinkage=1)}[name].fit(train)
        recs = model.recommend(test["user_id"].unique(), k, exclude=train)
        assert ev[f"ndcg@{k}"] == rv.evaluate(recs, test, [f"ndcg@{k}"],
                                              no_relevant="zero")[f"ndcg@{k}"]
        assert ((ev.per_user[f"NDCG@{k}"] >= 0) & (ev.per_user[f"NDCG@{k}"] <= 1)).all()
        if name == "mean":
            assert ev["mae"] == rv.evaluate(model.predict(test), test, ["mae"])["mae"]
