"""What sampled evaluation must know (how the negatives were drawn) and say (standard errors,
corrected means outside the metric's range)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval.exceptions import InvalidParameterError, SampledCorrectionWarning
from receval.sampled._negatives import ATTRS_KEY

# user 1: a .9 > p .8 > b .5 > c .1 -> r' = 2; user 2: q first -> r' = 1 (m = 3)
SCORED = pd.DataFrame({
    "user_id": [1, 1, 1, 1, 2, 2, 2, 2],
    "item_id": ["a", "p", "b", "c", "q", "d", "e", "f"],
    "score": [.9, .8, .5, .1, .7, .6, .2, .1],
})
POS = pd.DataFrame({"user_id": [1, 2], "item_id": ["p", "q"]})
CORRECTIONS = ("rank_estimate", "minimal_bias", "bias_variance")


def recorded(strategy, frame=SCORED, n_items=7):
    out = frame.copy()
    if strategy is not None:
        out.attrs[ATTRS_KEY] = {"strategy": strategy, "n": 3, "seed": 0, "n_items": n_items}
    return out


def expected(recorded_as, given, correction):
    """The documented rule: None (accepted, with this strategy) or the error's parameter."""
    if recorded_as not in (None, "uniform", "popularity"):
        return "error", "strategy"
    if given is not None and recorded_as is not None and given != recorded_as:
        return "error", "strategy"
    strategy = given if given is not None else recorded_as
    if correction == "none":
        return "ok", strategy
    if strategy == "popularity":
        return "error", "correction"
    if strategy is None:
        return "error", "strategy"
    return "ok", strategy


@pytest.mark.parametrize("correction", ["none", *CORRECTIONS])
@pytest.mark.parametrize("given", [None, "uniform", "popularity"])
@pytest.mark.parametrize("recorded_as", [None, "uniform", "popularity", "stratified"])
def test_the_strategy_rule(recorded_as, given, correction):
    outcome, detail = expected(recorded_as, given, correction)
    call = {"n_items": 7, "correction": correction, "strategy": given}
    if outcome == "error":
        with pytest.raises(InvalidParameterError) as e:
            rv.sampled.evaluate(recorded(recorded_as), POS, ["hr@2"], **call)
        assert e.value.parameter == detail
        text = str(e.value)
        assert ("popularity" in text or "strategy" in text), text
    else:
        ev = rv.sampled.evaluate(recorded(recorded_as), POS, ["hr@2"], **call)
        assert ev.settings["sampled"]["strategy"] == detail


@pytest.mark.parametrize("correction", CORRECTIONS)
def test_popularity_negatives_from_negatives_are_refused_after_assigning_scores(correction):
    test = pd.DataFrame({"user_id": [0, 1, 2], "item_id": [0, 1, 2]})
    train = pd.DataFrame({"user_id": [5, 5, 6, 6, 7], "item_id": [3, 4, 5, 6, 7]})
    cand = rv.sampled.negatives(test, n=3, items=range(10), exclude=train,
                                strategy="popularity", seed=0)
    cand["score"] = np.arange(len(cand), dtype=float)  # keeps DataFrame.attrs
    assert cand.attrs[ATTRS_KEY]["strategy"] == "popularity"
    with pytest.raises(InvalidParameterError, match="sampled by popularity") as e:
        rv.sampled.evaluate(cand, test, ["hr@2"], n_items=10, correction=correction)
    assert e.value.parameter == "correction"
    assert "recorded by rv.sampled.negatives" in str(e.value)
    # merge drops the record: the strategy is then unknown, and still refused
    scores = pd.DataFrame({c: cand[c].to_numpy() for c in ("user_id", "item_id", "score")})
    merged = cand.drop(columns="score").merge(scores, on=["user_id", "item_id"])
    assert ATTRS_KEY not in merged.attrs
    with pytest.raises(InvalidParameterError, match="strategy='uniform'") as e:
        rv.sampled.evaluate(merged, test, ["hr@2"], n_items=10, correction=correction)
    assert e.value.parameter == "strategy"
    # uncorrected sampled metrics are what they are: allowed, and the strategy recorded
    ev = rv.sampled.evaluate(cand, test, ["hr@2"], n_items=10)
    assert ev.settings["sampled"]["strategy"] == "popularity"


def test_uniform_negatives_keep_working_through_their_record():
    test = pd.DataFrame({"user_id": [0, 1], "item_id": [0, 1]})
    cand = rv.sampled.negatives(test, n=3, items=range(10), seed=0)
    cand["score"] = -cand["item_id"].astype(float)
    ev = rv.sampled.evaluate(cand, test, ["hr@2"], n_items=10, correction="rank_estimate")
    assert ev.settings["sampled"]["strategy"] == "uniform"


def test_n_items_other_than_the_recorded_catalog_warns():
    with pytest.warns(SampledCorrectionWarning, match="n_items=9 differs from the catalog of 7"):
        rv.sampled.evaluate(recorded("uniform"), POS, ["hr@2"], n_items=9,
                            correction="rank_estimate")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rv.sampled.evaluate(recorded("uniform"), POS, ["hr@2"], n_items=9)  # no correction
        rv.sampled.evaluate(recorded("uniform"), POS, ["hr@2"], n_items=7,
                            correction="rank_estimate")


# -- standard errors ---------------------------------------------------------------------------
def test_standard_errors_by_hand():
    ev = rv.sampled.evaluate(SCORED, POS, ["mrr@3", "hr@1", "auc"], n_items=7,
                             correction="rank_estimate", strategy="uniform")
    se = ev.settings["sampled"]["standard_error"]
    # MRR@3 per list: r^ = 3 -> 1/3 and r^ = 1 -> 1; two values: sd = |1 - 1/3| / sqrt 2,
    # se = sd / sqrt 2 = |1 - 1/3| / 2 = 1/3
    assert se["MRR@3"] == pytest.approx(1 / 3)
    # HR@1: r^ = 3 -> 0, r^ = 1 -> 1: se = 1/2; AUC (not corrected): 2/3 and 1 -> 1/6
    assert se["HitRate@1"] == pytest.approx(1 / 2)
    assert se["AUC"] == pytest.approx(1 / 6)
    plain = rv.sampled.evaluate(SCORED, POS, ["mrr@3"], n_items=7)
    # uncorrected: r' = 2 -> 1/2 and 1 -> 1: se = 1/4
    assert plain.settings["sampled"]["standard_error"]["MRR@3"] == pytest.approx(1 / 4)


@pytest.mark.parametrize("correction", ["none", *CORRECTIONS])
def test_standard_error_is_that_of_the_per_list_values(correction):
    rng = np.random.default_rng(0)
    test = pd.DataFrame({"user_id": np.arange(40), "item_id": 0})
    cand = rv.sampled.negatives(test, n=5, items=range(30), seed=1)
    cand["score"] = rng.random(len(cand))
    ev = rv.sampled.evaluate(cand, test, ["hr@3", "ndcg@3"], n_items=30,
                             correction=correction)
    for label, se in ev.settings["sampled"]["standard_error"].items():
        values = ev.per_user[label].to_numpy()
        assert se == pytest.approx(values.std(ddof=1) / math.sqrt(len(values)))


# -- corrected means outside the metric's range ------------------------------------------------
# both lists have r' = 2 (positive second of m + 1 = 4); n = 10, m = 3: the minimal-bias
# tables have T[2] = -0.7242 (HR@2) and -0.9030 (MRR@2), so both means are negative
BOTH_SECOND = pd.DataFrame({
    "user_id": [1, 1, 1, 1, 2, 2, 2, 2],
    "item_id": ["a", "p", "b", "c", "d", "q", "e", "f"],
    "score": [.9, .8, .5, .1, .9, .8, .2, .1],
})


def test_a_negative_corrected_mean_warns_at_the_callers_line():
    with pytest.warns(SampledCorrectionWarning) as caught:
        ev = rv.sampled.evaluate(BOTH_SECOND, POS, ["hr@2", "mrr@2", "auc"], n_items=10,
                                 correction="minimal_bias", strategy="uniform")
    assert ev["hr@2"] == pytest.approx(-0.7242, abs=1e-4)
    message = str(caught[0].message)
    assert "HitRate@2 = -0.7242" in message
    assert "range [0, 1]" in message
    assert "MRR@2" in message
    assert caught[0].filename == __file__
    rec = ev.settings["sampled"]
    assert rec["out_of_range"] == ["HitRate@2", "MRR@2"]
    assert rec["range"]["HitRate@2"] == (0.0, 1.0)
    # the same lists under rank_estimate stay in range: no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fine = rv.sampled.evaluate(BOTH_SECOND, POS, ["hr@2"], n_items=10,
                                   correction="rank_estimate", strategy="uniform")
    assert fine.settings["sampled"]["out_of_range"] == []


# the advice names other remedies than the correction in use
@pytest.mark.parametrize(("correction", "mean", "advice"), [
    ("minimal_bias", -0.7242, "use correction='bias_variance' or 'rank_estimate', or more"),
    ("bias_variance", -0.6216, "use a larger gamma (the weight of the variance), "
                               "correction='rank_estimate', or more lists"),
])
def test_the_advice_never_suggests_the_correction_in_use(correction, mean, advice):
    with pytest.warns(SampledCorrectionWarning) as caught:
        ev = rv.sampled.evaluate(BOTH_SECOND, POS, ["hr@2"], n_items=10,
                                 correction=correction, strategy="uniform")
    assert ev["hr@2"] == pytest.approx(mean, abs=1e-4)
    message = str(caught[0].message)
    assert f"correction={correction!r} gives means outside" in message
    assert advice in message
    assert message.count(repr(correction)) == 1  # only where it says what was used


def test_the_range_is_that_of_one_positive():
    # precision@2 at one positive is 1/2 at most: a corrected mean above 1/2 is outside it
    ev = rv.sampled.evaluate(SCORED, POS, ["p@2"], n_items=7, correction="rank_estimate",
                             strategy="uniform")
    assert ev.settings["sampled"]["range"]["Precision@2"] == (0.0, 0.5)
