"""``rv.tune``: validation carved from train only, the best point refitted and tested once."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval.exceptions import InvalidParameterError
from receval.study._tune import candidates
from tests.study_helpers import Spy

pytestmark = pytest.mark.filterwarnings("ignore::receval.exceptions.UndefinedMetricWarning")


@pytest.fixture(scope="module")
def ratings() -> pd.DataFrame:
    return rv.datasets.sample_ratings(60, 40, seed=4)


def test_tuning_never_reads_test(ratings):
    folds = rv.split.kfold(ratings, n_splits=2, seed=0)
    for fold in folds:
        test_pairs = tuple(zip(fold.test["user_id"], fold.test["item_id"], strict=True))
        Spy.LOG.clear()
        # the model raises if any fit sees a test row
        tuning = rv.tune(Spy(forbidden=test_pairs), {"shrinkage": [0.0, 3.0, 30.0]}, ratings,
                         "rmse", split=fold, validation={"method": "random",
                                                         "test_size": 0.25, "seed": 1})
        assert len(tuning.trials) == 3
        test = set(test_pairs)
        fits = {i: rows for i, method, _, rows in Spy.LOG if method == "fit"}
        # every prediction of a test pair is made by the one model fitted on the whole train
        readers = {i for i, method, pairs, _ in Spy.LOG if method == "predict" and pairs & test}
        assert len(readers) == 1
        assert fits[readers.pop()] == len(fold.train)
        # the grid points were fitted on the validation split's training part (75 % of train)
        assert sorted(fits.values())[:3] == [len(fold.train) - round(0.25 * len(fold.train))] * 3


def test_best_point_is_chosen_on_validation_and_tested_once(ratings):
    folds = rv.split.kfold(ratings, n_splits=3, seed=2)
    grid = {"shrinkage": [0.0, 10.0, 100.0]}
    tuning = rv.tune("item-mean", grid, ratings, "rmse", split=folds,
                     metrics=["rmse", "mae"])
    trials = tuning.trials
    assert list(trials.columns) == ["fold", "trial", "shrinkage", "RMSE", "best"]
    for f, fold in enumerate(folds):
        rows = trials[trials["fold"] == f]
        # rmse: lower is better; the chosen point has the smallest validation RMSE
        best = rows.loc[rows["RMSE"].idxmin()]
        assert bool(best["best"])
        assert rows["best"].sum() == 1
        assert tuning.best[f] == {"shrinkage": best["shrinkage"]}
        # the test number is evaluate's on the refitted model
        model = rv.models.ItemMean(shrinkage=best["shrinkage"]).fit(fold.train)
        pairs = fold.test[["user_id", "item_id"]]
        direct = rv.evaluate(model.predict(pairs), fold.test, ["rmse", "mae"])
        assert tuning.cv.results[("tuned", f)]["rmse"] == direct["rmse"]
        assert tuning.cv.results[("tuned", f)]["mae"] == direct["mae"]
        # the validation score is cross_validate's on the same-splitter validation part
        inner = rv.split.kfold(fold.train, n_splits=3, seed=2)[0]
        again = rv.cross_validate({"m": rv.models.ItemMean(shrinkage=best["shrinkage"])},
                                  fold.train, ["rmse"], split=inner, progress=False)
        assert again.results[("m", 0)]["rmse"] == best["RMSE"]
    assert tuning.cv.settings["tuning"]["tuned"]["best"] == tuning.best


def test_higher_is_better_metrics_take_the_maximum(ratings):
    fold = rv.split.temporal(ratings, test_size=0.2, per_user=True)
    tuning = rv.tune(rv.models.Random(), {"seed": [0, 1, 2, 3]}, ratings,
                     "ndcg@5", split=fold, k=5, relevance_threshold=4)
    rows = tuning.trials
    assert rows.loc[rows["best"], "NDCG@5"].iloc[0] == rows["NDCG@5"].max()


def test_random_search_is_seeded_and_draws_distinct_points():
    grid = {"a": [1, 2, 3, 4], "b": ["x", "y", "z"]}
    first = candidates(grid, "random", 5, seed=3)
    assert first == candidates(grid, "random", 5, seed=3)
    assert len({tuple(p.items()) for p in first}) == 5
    assert first != candidates(grid, "random", 5, seed=4)
    # more draws than points: every point, in grid order
    assert candidates(grid, "random", 50, seed=0) == candidates(grid, "grid", None, 0)


def test_random_search_runs(ratings):
    fold = rv.split.random(ratings, test_size=0.2, seed=0)
    tuning = rv.tune("item-mean", {"shrinkage": list(np.arange(6.0))}, ratings, "rmse",
                     split=fold, search="random", n_iter=2, seed=5)
    assert len(tuning.trials) == 2
    assert tuning.best_params == tuning.best[0]


@pytest.mark.parametrize(("grid", "kwargs", "words"), [
    ({}, {}, "non-empty dict"),
    ({"shrinkage": []}, {}, "has no values"),
    ({"shrinkage": [1.0]}, {"search": "bayes"}, "search must be"),
    ({"shrinkage": [1.0]}, {"search": "random"}, "n_iter"),
    ({"shrinkge": [1.0]}, {}, "shrinkge"),
    ({"shrinkage": 5}, {}, r"grid\.shrinkage: expected a list of values to try, got 5"),
    ({"shrinkage": "5"}, {}, "grid.shrinkage: expected a list"),
    ({"shrinkage": [1.0]}, {"validation": {"method": "randm"}},
     "validation.method: \"randm\" is not one of .*did you mean 'random'"),
    ({"shrinkage": [1.0]}, {"validation": {"method": "random", "test_sze": 0.2}},
     "validation.test_sze: unknown key; did you mean 'test_size'"),
    ({"shrinkage": [1.0]}, {"validation": 3}, "validation: expected a splitter table"),
])
def test_bad_tuning_parameters(ratings, grid, kwargs, words):
    fold = rv.split.random(ratings, test_size=0.2, seed=0)
    with pytest.raises(InvalidParameterError, match=words):
        rv.tune(rv.models.ItemMean(), grid, ratings, "rmse", split=fold, **kwargs)


def test_validation_method_name_is_a_splitter_table(ratings):
    fold = rv.split.random(ratings, test_size=0.2, seed=0)
    by_name = rv.tune("item-mean", {"shrinkage": [0.0, 5.0]}, ratings, "rmse", split=fold,
                      validation="random")
    by_table = rv.tune("item-mean", {"shrinkage": [0.0, 5.0]}, ratings, "rmse", split=fold,
                       validation={"method": "random"})
    pd.testing.assert_frame_equal(by_name.trials, by_table.trials)
    assert by_name.settings["validation"] == {"method": "random"}


def test_validation_needs_a_splitter_when_folds_have_no_report(ratings):
    train, test = ratings.iloc[:800], ratings.iloc[800:]
    with pytest.raises(InvalidParameterError, match="validation="):
        rv.tune("item-mean", {"shrinkage": [1.0]}, ratings, "rmse", split=(train, test))
    tuning = rv.tune("item-mean", {"shrinkage": [1.0]}, ratings, "rmse", split=(train, test),
                     validation=lambda part: rv.split.random(part, test_size=0.2, seed=0))
    assert len(tuning.trials) == 1


def test_optuna_search(ratings):
    pytest.importorskip("optuna")
    fold = rv.split.random(ratings, test_size=0.2, seed=0)
    runs = [rv.tune("item-mean", {"shrinkage": [0.0, 1.0, 5.0, 25.0]}, ratings, "rmse",
                    split=fold, search="optuna", n_iter=3, seed=7).trials for _ in range(2)]
    pd.testing.assert_frame_equal(runs[0], runs[1])
