"""The metric registry, the grammar and the public surface."""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest

import receval as rv
from receval.exceptions import InvalidParameterError, UnknownMetricError

ALL = [info.name for info in rv.metrics.available()]


def test_public_all_is_pinned():
    assert sorted(rv.__all__) == sorted([
        "Columns", "EvaluationResult", "Explanation", "MetricSummary", "RecevalError",
        "RecevalWarning", "UserAccounting", "__version__", "conventions", "evaluate",
        "exceptions", "explain", "metrics", "sampled", "Comparison", "compare", "split",
        "stats", "CrossValidation", "cross_validate", "models", "datasets", "protocols",
        "Study", "Tuning", "rerun", "run", "study", "tune"])
    for name in rv.__all__:
        assert hasattr(rv, name)
    assert sorted(rv.conventions.__all__) == sorted([
        "DEFAULTS", "SETTINGS", "Convention", "MetricRule", "SideBySide", "available", "get",
        "side_by_side", "table"])
    for name in rv.conventions.__all__:
        assert hasattr(rv.conventions, name)
    assert sorted(rv.models.__all__) == sorted([
        "GlobalMean", "ItemMean", "Model", "ModelOutputError", "MostPopular", "Predictor",
        "Random", "Recommender", "Surprise", "UserMean",
        "Factors", "RankedBlock", "ScoreFunction", "TiesAtCutoffWarning", "top_k_scores",
        "Cornac", "Implicit", "LensKit", "Params", "clone", "from_spec"])


@pytest.mark.parametrize("name", ALL)
def test_every_metric_is_documented_and_round_trips(name):
    cls = rv.metrics.get(name)
    assert cls.__doc__, name
    assert ".. math::" in cls.__doc__, f"{name} documents its formula"
    for f in cls.parameters():
        assert f.metadata.get("doc"), f"{name}.{f.name} is documented"
    m = cls(k=7) if cls.takes_k else cls()
    assert rv.metrics.parse(repr(m)) == m
    low, high = cls.bounds
    assert low < high


@pytest.mark.parametrize(("text", "label"), [
    ("ndcg@10", "NDCG@10"),
    ("NDCG(gain=exponential)@10", "NDCG(gain='exponential')@10"),
    ("ndcg(gain='exponential', discount=breese, ideal=list)@5",
     "NDCG(gain='exponential', discount='breese', ideal='list')@5"),
    ("map@10", "MAP@10"),
    ("ap(denominator=relevant)@10", "MAP(denominator='relevant')@10"),
    ("p@5", "Precision@5"),
    ("r@5", "Recall@5"),
    ("hr@10", "HitRate@10"),
    ("rr@10", "MRR@10"),
    ("f1@10", "F1@10"),
    ("fbeta(beta=2)@10", "F(beta=2.0)@10"),
    ("rank_score(alpha=3)", "RankScore(alpha=3.0)"),
    ("recall(aggregation=micro)@10", "Recall(aggregation='micro')@10"),
    ("rmse(aggregation=macro)", "RMSE(aggregation='macro')"),
    ("ndcg(ties=expected)@3", "NDCG(ties='expected')@3"),
    ("rating_precision(threshold=4)", "RatingPrecision(threshold=4.0)"),
    ("item_coverage@10", "ItemCoverage@10"),
])
def test_canonical_labels(text, label):
    m = rv.metrics.parse(text)
    assert m.label == label
    assert rv.metrics.parse(label) == m


def test_unknown_metric_suggests_close_matches():
    with pytest.raises(UnknownMetricError, match="did you mean 'ndcg'") as info:
        rv.metrics.parse("ndgc@10")
    assert "ndcg" in info.value.examples
    assert isinstance(info.value, KeyError)


def test_unknown_parameter_lists_parameters():
    with pytest.raises(UnknownMetricError, match=r"no parameter 'gian'.*'gain'"):
        rv.metrics.parse("ndcg(gian=exponential)@10")


@pytest.mark.parametrize("text", ["ndcg(gain=cubic)@10", "ap(denominator=list)@3",
                                  "fbeta(beta=-1)@5", "rank_score(alpha=0)"])
def test_invalid_parameter_values(text):
    with pytest.raises(InvalidParameterError, match="must be"):
        rv.metrics.parse(text)


@pytest.mark.parametrize("text", ["ndcg@0", "ndcg@-3", "ndcg@2.5", "ndcg@x", "rmse@10",
                                  "ndcg(", "@10"])
def test_bad_grammar_or_cutoff(text):
    with pytest.raises(InvalidParameterError):
        rv.metrics.parse(text)


def test_k_must_be_a_true_integer():
    with pytest.raises(InvalidParameterError, match="integer >= 1"):
        rv.metrics.NDCG(k=True)


_RECS = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [10, 11, 10], "score": [.9, .8, .7]})
_TRUTH = pd.DataFrame({"user_id": [1, 2], "item_id": [10, 11]})

#: Every public door that reads a metric name.
DOORS = {
    "parse": lambda spec: rv.metrics.parse(spec),
    "evaluate": lambda spec: rv.evaluate(_RECS, _TRUTH, [spec]),
    "evaluate_convention": lambda spec: rv.evaluate(_RECS, _TRUTH, [spec],
                                                    convention="trec_eval"),
    "explain": lambda spec: rv.explain(spec, [1, 0]),
}


@pytest.mark.parametrize("door", sorted(DOORS))
@pytest.mark.parametrize("spec", ["ndcg(gain=exponential, gain=linear)@10",
                                  "ndcg(gain=exponential, GAIN=exponential)@10",
                                  "map(denominator=relevant,denominator=k)@5"])
def test_a_parameter_given_twice_is_refused(door, spec):
    with pytest.raises(InvalidParameterError, match=r"gives the parameter '\w+' twice") as info:
        DOORS[door](spec)
    assert spec in str(info.value)
    assert info.value.parameter in ("gain", "denominator")


@pytest.mark.parametrize("door", sorted(DOORS))
@pytest.mark.parametrize("cut", [2**31, 2**63, 10**20])
@pytest.mark.parametrize("name", ["recall", "ndcg", "map"])
def test_a_cutoff_beyond_the_bound_is_refused(door, cut, name):
    spec = f"{name}@{cut}"
    with pytest.raises(InvalidParameterError, match=r"must be at most 2\*\*31 - 1") as info:
        DOORS[door](spec)
    assert spec in str(info.value)
    assert info.value.parameter == "k"


@pytest.mark.parametrize("cut", [2**31, 2**63])
def test_a_metric_object_cut_beyond_the_bound_is_refused(cut):
    with pytest.raises(InvalidParameterError, match=r"at most 2\*\*31 - 1 = 2147483647"):
        rv.metrics.Recall(k=cut)


def test_the_largest_cutoff_evaluates():
    big = rv.evaluate(_RECS, _TRUTH, [f"recall@{2**31 - 1}", f"ndcg@{2**31 - 1}"])
    whole = rv.evaluate(_RECS, _TRUTH, ["recall", "ndcg"])
    assert list(big.to_dict().values()) == list(whole.to_dict().values())


def test_metrics_are_frozen_and_hashable():
    m = rv.metrics.parse("ndcg@10")
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.k = 5  # type: ignore[misc]
    assert len({m, rv.metrics.parse("NDCG@10")}) == 1


def test_available_describes_parameters():
    info = {i.name: i for i in rv.metrics.available()}
    assert info["ndcg"].parameters["gain"]["options"] == ("linear", "exponential", "binary",
                                                          "shifted_exponential")
    assert "map" in info["ap"].aliases
    assert info["rmse"].higher_is_better is False


def test_result_lookup_accepts_any_spelling():
    recs = pd.DataFrame({"user": [1, 1], "item": [1, 2], "score": [2.0, 1.0]})
    truth = pd.DataFrame({"user": [1], "item": [2], "rating": [1.0]})
    ev = rv.evaluate(recs, truth, ["ndcg@2", "ap(denominator=relevant)@2"])
    assert ev["ndcg@2"] == ev["NDCG@2"] == ev[rv.metrics.parse("ndcg@2")]
    assert ev["map(denominator=relevant)@2"] == ev["MAP(denominator='relevant')@2"] == 0.5
    assert "ndcg@2" in ev
    assert "ndcg@3" not in ev
    with pytest.raises(UnknownMetricError):
        ev["ndcg@3"]
