"""``rv.sampled.evaluate(candidates, ..., model=fitted)``: the candidates scored by a model."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval.exceptions import InvalidModelError, InvalidParameterError

TRAIN = pd.DataFrame({"user_id": [1, 1, 2, 2, 3, 3, 3],
                      "item_id": ["a", "b", "a", "c", "a", "b", "d"],
                      "rating": [5.0, 3.0, 4.0, 2.0, 5.0, 1.0, 4.0]})
TEST = pd.DataFrame({"user_id": [1, 2], "item_id": ["c", "b"]})
ITEMS = ["a", "b", "c", "d", "e"]
METRICS = ["hit_rate@2", "ndcg@2", "auc"]


def _candidates() -> pd.DataFrame:
    return rv.sampled.negatives(TEST, n=2, items=ITEMS, exclude=TRAIN, seed=0)


def _by_hand(model: Any, cand: pd.DataFrame) -> rv.EvaluationResult:
    scores = model.score(cand[["user_id", "item_id"]])["score"].to_numpy()
    return rv.sampled.evaluate(cand.assign(score=scores), TEST, METRICS, n_items=5,
                               ties="expected")


class OwnPredictor:
    """A model of one's own with predict only: the item's letter position as the score."""

    def predict(self, pairs: pd.DataFrame) -> np.ndarray:
        return np.array([ITEMS.index(i) for i in pairs["item_id"]], dtype=float)


def test_hand_computed():
    # candidates: user 1's positive c and negatives d, e (a, b are training items of user 1);
    # user 2's positive b and two of d, e. MostPopular scores: a 3 users, b 2, c 1, d 1, e 0.
    cand = _candidates()
    ev = rv.sampled.evaluate(cand, TEST, METRICS, n_items=5,
                             model=rv.models.MostPopular().fit(TRAIN), ties="expected")
    # user 1: c (1) ties d (1), above e (0): expected rank 1.5 -> hit@2 = 1,
    #   nDCG@2 = (1/log2(2) + 1/log2(3)) / 2 = (1 + 0.6309) / 2 = 0.8155; AUC = (1 + 0.5) / 2
    # user 2: b (2) above d (1) and e (0): rank 1 -> hit 1, nDCG 1, AUC 1
    assert ev["hit_rate@2"] == 1.0
    assert ev["ndcg@2"] == pytest.approx((0.5 * (1 + 1 / np.log2(3)) + 1.0) / 2)
    assert ev["auc"] == pytest.approx((0.75 + 1.0) / 2)


@pytest.mark.parametrize("model", [rv.models.MostPopular(), rv.models.ItemMean(),
                                   rv.models.UserMean(), rv.models.GlobalMean()],
                         ids=lambda m: type(m).__name__)
def test_equals_scoring_by_hand(model):
    model.fit(TRAIN)
    cand = _candidates()
    got = rv.sampled.evaluate(cand, TEST, METRICS, n_items=5, model=model, ties="expected")
    want = _by_hand(model, cand)
    assert got.to_dict() == want.to_dict()


def test_a_model_with_predict_only():
    cand = _candidates()
    got = rv.sampled.evaluate(cand, TEST, METRICS, n_items=5, model=OwnPredictor())
    scores = OwnPredictor().predict(cand)
    want = rv.sampled.evaluate(cand.assign(score=scores), TEST, METRICS, n_items=5)
    assert got.to_dict() == want.to_dict()


def test_the_recorded_strategy_survives():
    # negatives() records its strategy on the frame; the scored copy keeps it, so a
    # correction is allowed for uniform and refused for popularity-sampled negatives
    model = rv.models.MostPopular().fit(TRAIN)
    ev = rv.sampled.evaluate(_candidates(), TEST, ["hit_rate@2"], n_items=5, model=model,
                             correction="rank_estimate")
    assert ev.settings["sampled"]["strategy"] == "uniform"
    pop = rv.sampled.negatives(TEST, n=1, items=ITEMS, exclude=TRAIN, seed=0,
                               strategy="popularity")  # one popular untouched item each
    with pytest.raises(InvalidParameterError, match="popularity"):
        rv.sampled.evaluate(pop, TEST, ["hit_rate@2"], n_items=5, model=model,
                            correction="rank_estimate")


class _Returns:
    def __init__(self, out: Any) -> None:
        self.out = out

    def score(self, pairs: pd.DataFrame) -> Any:
        return self.out(pairs) if callable(self.out) else self.out


BAD_MODELS = {
    "a class": (rv.models.MostPopular, "got the class MostPopular"),
    "a spec, not a fitted model": ("popular", r"got the spec 'popular', not a fitted model.*"
                                   r"from_spec\('popular'\)\.fit\(train\)"),
    "no score nor predict": (object(), "neither score"),
    "None": (_Returns(None), "one number per pair"),
    "a list of the wrong length": (_Returns([1.0]), "one number per pair"),
    "a 2-D array": (_Returns(lambda p: np.ones((len(p), 2))), "one number per pair"),
    "strings": (_Returns(lambda p: np.array(["x"] * len(p))), "must be numbers"),
    "NaN": (_Returns(lambda p: np.full(len(p), np.nan)), "no finite score"),
    "infinite": (_Returns(lambda p: np.full(len(p), np.inf)), "no finite score"),
    "pairs left out": (_Returns(lambda p: p.head(1).assign(score=1.0)), "no finite score"),
    "a table without score": (_Returns(lambda p: p.copy()), "user_id, item_id and score"),
}


@pytest.mark.parametrize("case", list(BAD_MODELS))
def test_bad_models_are_named(case):
    model, match = BAD_MODELS[case]
    with pytest.raises(InvalidModelError, match=match):
        rv.sampled.evaluate(_candidates(), TEST, METRICS, n_items=5, model=model)


@pytest.mark.parametrize(("candidates", "match"), [
    (lambda c: c.assign(score=1.0), "already have a score column"),
    (lambda c: c.to_dict("list"), "must be a pandas DataFrame"),
])
def test_bad_candidates(candidates, match):
    # the candidates of model= are the unscored output of negatives(), as a pandas frame
    model = rv.models.MostPopular().fit(TRAIN)
    with pytest.raises(InvalidParameterError, match=match):
        rv.sampled.evaluate(candidates(_candidates()), TEST, METRICS, n_items=5, model=model)


def test_a_model_that_cannot_score_a_candidate_says_so():
    # Random ranks training items only: item e (in no training row) is refused, by name
    with pytest.raises(InvalidParameterError, match="absent from training"):
        rv.sampled.evaluate(_candidates(), TEST, METRICS, n_items=5,
                            model=rv.models.Random(seed=0).fit(TRAIN))


@pytest.mark.parametrize("order", ["reversed", "shuffled"])
def test_a_series_is_read_by_its_index(order):
    # a Series indexed like the pairs, in another order, gives each pair its own score
    cand = _candidates()
    popular = rv.models.MostPopular().fit(TRAIN)
    ref = rv.sampled.evaluate(cand, TEST, METRICS, n_items=5, model=popular, ties="expected")

    def series(pairs: pd.DataFrame) -> pd.Series:
        values = pd.Series(popular.score(pairs)["score"].to_numpy(), index=pairs.index)
        return values.iloc[::-1] if order == "reversed" else values.sample(frac=1.0,
                                                                            random_state=1)

    got = rv.sampled.evaluate(cand, TEST, METRICS, n_items=5, model=_Returns(series),
                              ties="expected")
    pd.testing.assert_frame_equal(got.per_user, ref.per_user)
    assert ref["hit_rate@2"] == 1.0  # as test_hand_computed


@pytest.mark.parametrize(("index", "words"), [
    (lambda p: p.index + 100, "are not in pairs.index"),
    (lambda p: [0] * len(p), "its labels repeat"),
])
def test_a_series_with_another_index_is_refused(index, words):
    model = _Returns(lambda p: pd.Series(1.0, index=index(p)))
    with pytest.raises(InvalidModelError, match=words) as info:
        rv.sampled.evaluate(_candidates(), TEST, METRICS, n_items=5, model=model)
    assert "model _Returns: score(pairs)" in str(info.value)
