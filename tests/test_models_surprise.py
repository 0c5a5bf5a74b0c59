"""rv.models.Surprise against Surprise's own predictions (needs scikit-surprise)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import receval as rv

surprise = pytest.importorskip("surprise")


def _log(seed: int, binary: bool) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    log = pd.DataFrame({"user_id": rng.integers(0, 25, 400),
                        "item_id": rng.integers(100, 130, 400)})
    log = log.drop_duplicates(ignore_index=True)
    rating = rng.integers(0, 2, len(log)) if binary else rng.integers(1, 6, len(log))
    return log.assign(rating=rating.astype(float))


def _reference(log: pd.DataFrame, scale: tuple[float, float], algo: object) -> object:
    reader = surprise.Reader(rating_scale=scale)
    data = surprise.Dataset.load_from_df(log[["user_id", "item_id", "rating"]], reader)
    return algo.fit(data.build_full_trainset())  # type: ignore[attr-defined]


@pytest.mark.parametrize("binary", [True, False])
def test_predict_equals_surprise_with_the_data_scale(binary):
    log = _log(1, binary)
    model = rv.models.Surprise(surprise.KNNBasic(k=20, verbose=False)).fit(log)
    assert model.rating_scale_ == ((0.0, 1.0) if binary else (1.0, 5.0))
    ref = _reference(log, model.rating_scale_, surprise.KNNBasic(k=20, verbose=False))
    pairs = pd.DataFrame({"user_id": [0, 3, 7, 99, 4], "item_id": [100, 101, 129, 100, 555]})
    got = model.predict(pairs)["score"].to_numpy()
    expected = [ref.predict(u, i).est for u, i in zip(pairs.user_id, pairs.item_id,  # type: ignore[attr-defined]
                                                      strict=True)]
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=0)
    # user 99 and item 555 are unknown to Surprise: its default prediction, counted
    assert model.fallbacks_["impossible"] >= 2


def test_default_reader_would_clip_binary_relevance():
    # the reason for the data scale: Surprise's (1, 5) clips every 0/1 estimate up to 1
    log = _log(2, True)
    ref = _reference(log, (1, 5), surprise.KNNBasic(k=20, verbose=False))
    clipped = [ref.predict(u, i).est for u, i in zip(log.user_id, log.item_id,  # type: ignore[attr-defined]
                                                     strict=True)]
    assert set(clipped) == {1.0}
    ours = rv.models.Surprise(surprise.KNNBasic(k=20, verbose=False)).fit(log).predict(log)
    assert ours["score"].min() < 1.0


def test_recommend_ranks_unseen_items_by_unclipped_surprise_estimate():
    log = _log(3, False)
    model = rv.models.Surprise(surprise.SVD(random_state=0, n_epochs=5)).fit(log)
    ref = _reference(log, (1.0, 5.0), surprise.SVD(random_state=0, n_epochs=5))
    recs = model.recommend([0, 5, 11], k=4)
    items = sorted(log["item_id"].unique())
    for user in (0, 5, 11):
        seen = set(log.loc[log.user_id == user, "item_id"])
        scored = sorted((-ref.predict(user, i, clip=False).est, i)  # type: ignore[attr-defined]
                        for i in items if i not in seen)[:4]
        got = recs.loc[recs.user_id == user]
        assert got["item_id"].tolist() == [i for _, i in scored]
        np.testing.assert_allclose(got["score"].to_numpy(), [-s for s, _ in scored],
                                   rtol=1e-9, atol=0)  # unclipped estimates rank


def test_recommend_candidates_all_and_exclude():
    log = _log(4, False)
    model = rv.models.Surprise(surprise.KNNBasic(verbose=False), candidates="all").fit(log)
    recs = model.recommend([1], k=30)
    assert len(recs) == log["item_id"].nunique()  # every training item is a candidate
    exclude = pd.DataFrame({"user_id": [1, 1], "item_id": [100, 101]})
    recs = model.recommend([1], k=30, exclude=exclude)
    assert {100, 101}.isdisjoint(recs["item_id"])
    assert len(recs) == log["item_id"].nunique() - 2


def test_bad_input():
    with pytest.raises(rv.exceptions.InvalidParameterError, match="Surprise algorithm"):
        rv.models.Surprise(object())
    with pytest.raises(rv.exceptions.InvalidParameterError, match="candidates"):
        rv.models.Surprise(surprise.KNNBasic(), candidates="some")
    with pytest.raises(rv.exceptions.ColumnNotFoundError, match="rating"):
        rv.models.Surprise(surprise.KNNBasic()).fit(_log(1, True).drop(columns="rating"))
