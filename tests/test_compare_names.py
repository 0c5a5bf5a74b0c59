"""System names at every door of the comparisons: a repeated name is an error naming it, a
result lacking a metric is an error naming the system."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

import receval as rv
from receval.exceptions import DataWarning, InvalidParameterError, UnknownMetricError
from tests.compare_helpers import result

A = result({"precision@5": [0.2, 0.4, 0.6], "recall@5": [0.5, 0.5, 1.0]})
B = result({"precision@5": [0.0, 0.4, 0.2], "recall@5": [0.0, 0.5, 0.5]})
ONLY_P = result({"precision@5": [0.2, 0.2, 0.4]})


def _cv(systems):
    models = [str(k) for k, _ in systems]
    results = {(str(k), 0): ev for k, ev in systems}
    return rv.CrossValidation(results, models, 1, next(iter(results.values())).labels, {},
                              pd.DataFrame())


def door(name, systems, **kw):
    """Call one comparison door with ``systems``: a list of (name, EvaluationResult)."""
    if name == "compare":
        return rv.compare(systems, n_resamples=10, **kw)
    if name == "compare_dict":
        return rv.compare(dict(systems), n_resamples=10, **kw)
    if name == "compare_folds":
        return rv.stats.compare_folds([(k, [ev, ev]) for k, ev in systems], n_resamples=10,
                                      **kw)
    return _cv(systems).compare(n_resamples=10, **kw)


DOORS = ["compare", "compare_dict", "compare_folds", "cv"]


@pytest.mark.parametrize("name", DOORS[:3])
@pytest.mark.parametrize("metrics", [None, ["precision@5", "recall@5"], "recall@5"])
def test_a_system_without_a_metric_is_named(name, metrics):
    systems = [("knn", A), ("pop", B), ("most_popular", ONLY_P)]
    with pytest.raises(UnknownMetricError) as e:
        door(name, systems, metrics=metrics)
    assert "'most_popular'" in str(e.value)
    assert "Recall@5" in str(e.value) or "recall@5" in str(e.value)
    assert e.value.parameter == "metrics"
    assert "most_popular" in e.value.examples[0]


@pytest.mark.parametrize("metrics", [["precision@5", "recall@5"], "recall@5"])
def test_cv_compares_a_metric_over_the_models_that_have_it(metrics):
    # cv.compare (issue 24): a model without the metric is left out of it, and named
    systems = [("knn", A), ("pop", B), ("most_popular", ONLY_P)]
    with pytest.warns(DataWarning, match=r"Recall@5 is compared over \['knn', 'pop'\] only: "
                                         r"\['most_popular'\]"):
        cmp = door("cv", systems, metrics=metrics)
    assert cmp.settings["left_out"] == {"Recall@5": ["most_popular"]}
    assert set(cmp.tests.loc[cmp.tests["metric"] == "Recall@5", "system_b"]) == {"pop"}


@pytest.mark.parametrize("name", DOORS)
def test_the_first_system_lacking_a_metric_is_named(name):
    # without metrics=, the first system's labels are compared: the others must have them
    systems = [("knn", ONLY_P), ("pop", B)]
    cmp = door(name, systems)  # pop has precision@5 (and more): fine
    assert list(cmp.means.columns) == ["Precision@5"]
    error = UnknownMetricError if name != "cv" else InvalidParameterError
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)  # cv: recall@5 is not compared
        with pytest.raises(error, match="'knn'"):
            door(name, systems, metrics=["recall@5"])


@pytest.mark.parametrize("systems", [
    [("a", A), ("a", B)],
    [(1, A), ("1", B)],
    [("a", A), ("b", B), ("a", ONLY_P)],
], ids=["pairs", "str-collision", "three"])
@pytest.mark.parametrize("name", ["compare", "compare_folds"])
def test_repeated_names_are_an_error_naming_them(systems, name):
    with pytest.raises(InvalidParameterError) as e:
        door(name, systems)
    assert "'a'" in str(e.value) or "'1'" in str(e.value)
    assert e.value.parameter in ("systems", "results")
    assert e.value.examples in (("a",), ("1",))


def test_a_dict_with_keys_alike_is_an_error():
    with pytest.raises(InvalidParameterError, match="'1' 2 times"):
        rv.compare({1: A, "1": B})


def test_pairs_keep_their_order_and_names():
    cmp = rv.compare([("pop", B), ("knn", A)], n_resamples=10)
    assert cmp.systems == ["pop", "knn"]
    assert cmp.tests.iloc[0][["system_a", "system_b"]].tolist() == ["pop", "knn"]


@pytest.mark.parametrize("bad", ["ab", [("a", A)], [("a", A, 1), ("b", B, 2)], 3])
def test_not_a_mapping_or_pairs(bad):
    with pytest.raises(InvalidParameterError) as e:
        rv.compare(bad)
    assert e.value.parameter == "systems"
