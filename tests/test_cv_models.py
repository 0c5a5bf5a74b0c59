"""Every door that takes a model (``rv.cross_validate``, ``rv.models.from_spec``, ``receval cv
--model``) under bad models, bad outputs and bad arguments: an error naming the model."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval import _demo
from receval.exceptions import (
    DataWarning,
    InvalidModelError,
    InvalidParameterError,
    TiesAtCutoffWarning,
)

DATA = _demo.sample_ratings(30, 20, seed=2)
FOLDS = rv.split.kfold(DATA, n_splits=2, seed=1)


def _cv(models: dict[str, Any], metrics: list[str], **kw: Any) -> rv.CrossValidation:
    kw.setdefault("k", 5)
    kw.setdefault("progress", False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rv.RecevalWarning)
        return rv.cross_validate(models, DATA, metrics, split=FOLDS, **kw)


class Scripted:
    """A model whose recommend / predict outputs are given as functions."""

    def __init__(self, recs: Callable[..., Any] | None = None,
                 pred: Callable[..., Any] | None = None) -> None:
        self.recs, self.pred = recs, pred

    def fit(self, train: pd.DataFrame) -> Scripted:
        self.train = train
        return self

    def recommend(self, users: Any, k: int, exclude: Any = None) -> Any:
        assert self.recs is not None
        return self.recs(self, np.asarray(users), k)

    def predict(self, pairs: pd.DataFrame) -> Any:
        assert self.pred is not None
        return self.pred(self, pairs)


def good_recs(self: Scripted, users: np.ndarray, k: int) -> pd.DataFrame:
    """A valid output: each user's first k unseen training items, scores 1, 1/2, 1/3, ..."""
    seen = set(map(tuple, self.train[["user_id", "item_id"]].to_numpy()))
    items = np.sort(self.train["item_id"].unique())
    rows = [(u, i) for u in users for i in items if (u, i) not in seen]
    frame = pd.DataFrame(rows, columns=["user_id", "item_id"])
    frame = frame.groupby("user_id").head(k)
    return frame.assign(score=1.0 / (1 + frame.groupby("user_id").cumcount()))


BAD_RECS = {
    "None": (lambda s, u, k: None, "returned None"),
    "a list": (lambda s, u, k: [(x, 1, 1.0) for x in u], "returned a list"),
    "a 2-D array": (lambda s, u, k: np.ones((len(u), 3)), "2-D numpy array"),
    "a string": (lambda s, u, k: "recs.csv", "returned a str"),
    "a number": (lambda s, u, k: 3.0, "returned a float"),
    "no score": (lambda s, u, k: good_recs(s, u, k).drop(columns="score"), "score"),
    "NaN scores": (lambda s, u, k: good_recs(s, u, k).assign(score=np.nan), "NaN"),
    "inf scores": (lambda s, u, k: good_recs(s, u, k).assign(score=np.inf), "infinite"),
    "string scores": (lambda s, u, k: good_recs(s, u, k).assign(score="1.0"), "dtype"),
    "bool scores": (lambda s, u, k: good_recs(s, u, k).assign(score=True), "dtype bool"),
    "unknown items": (lambda s, u, k: good_recs(s, u, k).assign(
        item_id=lambda d: d["item_id"] + 10**6), "not in the data"),
    "str item ids": (lambda s, u, k: good_recs(s, u, k).assign(
        item_id=lambda d: d["item_id"].astype(str)), "item ids of type string"),
    "str user ids": (lambda s, u, k: good_recs(s, u, k).assign(
        user_id=lambda d: d["user_id"].astype(str)), "user ids of type string"),
    "float item ids": (lambda s, u, k: good_recs(s, u, k).assign(
        item_id=lambda d: d["item_id"] + 0.5), "item ids of type float"),
    "users not asked": (lambda s, u, k: good_recs(s, u, k).assign(
        user_id=lambda d: d["user_id"] + 10**6), "not asked for"),
    "duplicates": (lambda s, u, k: pd.concat([good_recs(s, u, k)] * 2), "duplicate"),
    "more than k": (lambda s, u, k: good_recs(s, u, k + 3), "more than k=5"),
}


@pytest.mark.parametrize("case", list(BAD_RECS))
def test_bad_recommend_output_blames_the_model(case: str) -> None:
    make, words = BAD_RECS[case]
    with pytest.raises(rv.models.ModelOutputError) as info:
        _cv({"mine": Scripted(recs=make)}, ["ndcg@5"])
    message = str(info.value)
    assert isinstance(info.value, InvalidModelError)
    assert "model 'mine': recommend()" in message
    assert words in message, message
    assert "truth" not in message


BAD_PREDICTIONS = {
    "None": (lambda s, p: None, "returned None"),
    "a number": (lambda s, p: 3.0, "returned a float"),
    "a string": (lambda s, p: "3.5", "returned a str"),
    "a 2-D array": (lambda s, p: np.ones((len(p), 2)), "2-D numpy array"),
    "a column array": (lambda s, p: np.ones((len(p), 1)), "2-D numpy array"),
    "too short": (lambda s, p: np.ones(len(p) - 1), "values for"),
    "a list of strings": (lambda s, p: ["a"] * len(p), "dtype"),
    "numeric strings": (lambda s, p: np.full(len(p), "3.5"), "dtype"),
    "NaN": (lambda s, p: np.full(len(p), np.nan), "NaN predictions"),
    "inf": (lambda s, p: np.full(len(p), -np.inf), "infinite"),
    "extra pairs": (lambda s, p: pd.concat([p.assign(score=1.0), pd.DataFrame(
        {"user_id": [999], "item_id": [999], "score": [1.0]})]), "not asked for"),
    "str ids": (lambda s, p: p.astype(str).assign(score=1.0), "user ids of type string"),
    "duplicates": (lambda s, p: pd.concat([p.assign(score=1.0)] * 2), "duplicate"),
    "string table scores": (lambda s, p: p.assign(score="x"), "dtype"),
}


@pytest.mark.parametrize("case", list(BAD_PREDICTIONS))
def test_bad_predict_output_blames_the_model(case: str) -> None:
    make, words = BAD_PREDICTIONS[case]
    with pytest.raises(rv.models.ModelOutputError) as info:
        _cv({"mine": Scripted(recs=good_recs, pred=make)}, ["rmse"])
    message = str(info.value)
    assert "model 'mine': predict()" in message
    assert words in message, message
    assert "truth" not in message


def test_predictions_as_array_list_or_series_are_one_per_pair() -> None:
    # one number per pair, in order: a 1-D array, a list or a Series give the same result
    ref = _cv({"m": Scripted(recs=good_recs, pred=lambda s, p: p.assign(score=3.0))}, ["rmse"])
    for kind in (np.asarray, list, pd.Series):
        got = _cv({"m": Scripted(recs=good_recs,
                                 pred=lambda s, p, kind=kind: kind([3.0] * len(p)))}, ["rmse"])
        pd.testing.assert_frame_equal(got.per_fold, ref.per_fold)


class NoFit:
    def recommend(self, users: Any, k: int, exclude: Any = None) -> None: ...


class FitOnly:
    def fit(self, train: Any) -> None: ...


class Raises:
    def __init__(self, where: str) -> None:
        self.where = where

    def fit(self, train: Any) -> Raises:
        if self.where == "fit":
            raise ZeroDivisionError("division by zero in my model")
        return self

    def recommend(self, users: Any, k: int, exclude: Any = None) -> Any:
        raise KeyError("user 7")

    def predict(self, pairs: Any) -> Any:
        raise RuntimeError("predict broke")


def _not_models() -> dict[str, tuple[Any, list[str]]]:
    cases: dict[str, tuple[Any, list[str]]] = {
        "a class": (rv.models.MostPopular, ["is a class", "MostPopular()"]),
        "no fit": (NoFit(), ["needs fit(train)", "it has recommend"]),
        "fit only": (FitOnly(), ["needs fit(train)", "it has fit"]),
        "a number": (3, ["needs fit(train)", "none of them"]),
        "None": (None, ["needs fit(train)"]),
        "a bad spec": ("item-mean:shrnkage=1", ["model spec", "'shrnkage'"]),
        "an unknown spec": ("knn", ["unknown model 'knn'", "most-popular"]),
    }
    try:
        import surprise

        cases["unwrapped Surprise"] = (surprise.SVD(), ["unwrapped Surprise algorithm",
                                                        "rv.models.Surprise(SVD(...))"])
        cases["unwrapped Surprise KNN"] = (surprise.KNNBasic(), ["rv.models.Surprise("])
    except ImportError:  # pragma: no cover - surprise is installed by .ci/run
        pass
    try:
        from sklearn.linear_model import LinearRegression

        cases["sklearn estimator"] = (LinearRegression(), ["scikit-learn estimator",
                                                           "fit(train) and predict(pairs)"])
    except ImportError:  # pragma: no cover
        pass
    return cases


NOT_MODELS = _not_models()


@pytest.mark.parametrize("case", list(NOT_MODELS))
def test_not_a_model_is_named(case: str) -> None:
    model, words = NOT_MODELS[case]
    with pytest.raises(InvalidParameterError) as info:
        _cv({"mine": model}, ["ndcg@5"])
    message = str(info.value)
    assert "mine" in message or "model spec" in message
    for word in words:
        assert word in message, message


@pytest.mark.parametrize(("where", "metric", "words", "cause"), [
    ("fit", "ndcg@5", "fit(train) raised ZeroDivisionError", ZeroDivisionError),
    ("recommend", "ndcg@5", "recommend(users, k, exclude) raised KeyError", KeyError),
    ("predict", "rmse", "predict(pairs) raised RuntimeError", RuntimeError),
])
def test_model_errors_are_chained_and_named(where: str, metric: str, words: str,
                                            cause: type) -> None:
    with pytest.raises(InvalidModelError) as info:
        _cv({"mine": Raises(where)}, [metric])
    assert "model 'mine', fold 0:" in str(info.value)
    assert words in str(info.value)
    assert isinstance(info.value.__cause__, cause)


def test_receval_errors_of_a_model_keep_their_class() -> None:
    # ItemMean needs ratings: its own ColumnNotFoundError, with the model and fold named
    with pytest.raises(rv.exceptions.ColumnNotFoundError, match=r"model 'im', fold 0: fit"):
        rv.cross_validate({"im": rv.models.ItemMean()}, DATA.drop(columns="rating"),
                          ["ndcg@5"], split=rv.split.kfold(DATA.drop(columns="rating"), 2),
                          k=5, progress=False)


@pytest.mark.parametrize(("kwargs", "words"), [
    ({"relevance_treshold": 4}, ["'relevance_treshold'", "relevance_threshold"]),
    ({"foo": 1}, ["'foo'", "options are"]),
    ({"recs": DATA}, ["made by cross_validate"]),
    ({"truth": DATA}, ["made by cross_validate"]),
])
def test_unknown_keywords(kwargs: dict[str, Any], words: list[str]) -> None:
    with pytest.raises(InvalidParameterError) as info:
        _cv({"pop": rv.models.MostPopular()}, ["ndcg@5"], **kwargs)
    for word in words:
        assert word in str(info.value)


@pytest.mark.parametrize(("metrics", "k"), [
    (["ndcg@20"], 10), (["precision@6", "ndcg@5"], 5), (["hit_rate@11", "rmse"], 10)])
def test_cutoff_beyond_k(metrics: list[str], k: int) -> None:
    with pytest.raises(InvalidParameterError, match=rf"cut at more than k={k}"):
        _cv({"pop": rv.models.MostPopular()}, metrics, k=k)


def test_cutoff_equal_to_k_is_fine() -> None:
    assert _cv({"pop": rv.models.MostPopular()}, ["ndcg@5", "precision@3"], k=5).labels


def test_rating_metrics_only_without_predict() -> None:
    with pytest.raises(InvalidModelError, match=r"'pop' \(MostPopular\) has no predict\(\)"):
        _cv({"pop": rv.models.MostPopular(), "im": rv.models.ItemMean()}, ["rmse"])


def test_predict_only_model_is_ranked_by_predict() -> None:
    # DESIGN section 7: a model without recommend is ranked by predict over the training items
    class ByMean:
        def __init__(self) -> None:
            self.inner = rv.models.ItemMean()

        def fit(self, train: Any) -> ByMean:
            self.inner.fit(train)
            return self

        def predict(self, pairs: Any) -> Any:
            return self.inner.predict(pairs)

    cv = _cv({"by-mean": ByMean(), "item-mean": rv.models.ItemMean()}, ["ndcg@5", "rmse"])
    assert cv.settings["ranked_by_predict"] == ["by-mean"]
    # the same ranking as ItemMean's own (ties: ascending item id in both)
    pd.testing.assert_frame_equal(cv.per_fold.loc["by-mean"], cv.per_fold.loc["item-mean"])


def test_specs_as_models_and_parameters_recorded() -> None:
    cv = _cv({"shrunk": "item-mean:shrinkage=5", "rand": {"model": "random",
                                                          "params": {"seed": 3}}},
             ["ndcg@5", "rmse"])
    assert cv.settings["models"] == {"shrunk": "ItemMean(shrinkage=5.0)",
                                     "rand": "Random(seed=3)"}
    assert cv.settings["model_params"] == {"shrunk": {"shrinkage": 5.0},
                                           "rand": {"seed": 3}}


def test_model_params_of_wrapped_and_third_party_models() -> None:
    surprise = pytest.importorskip("surprise")

    class Mine:
        def __init__(self, alpha: float = 0.5) -> None:
            self.alpha = alpha

        def fit(self, train: Any) -> Mine:
            return self

        def recommend(self, users: Any, k: int, exclude: Any = None) -> Any:
            return good_recs(Scripted(), users, k)

    from receval._cv_checks import model_params

    params = model_params({"svd": rv.models.Surprise(surprise.SVD(n_factors=4)),
                           "mine": Mine(alpha=2.0)})
    assert params["mine"] == {"alpha": 2.0}
    assert repr(params["svd"]["algo"]).startswith("SVD(n_factors=4, ")
    assert params["svd"]["candidates"] == "unseen"
    # arrays (factor matrices) by shape and dtype, never their values
    big = model_params({"emb": Mine(alpha=np.zeros((300, 64)))})
    assert repr(big["emb"]["alpha"]) == "<ndarray 300x64, float64>"


def test_surrogate_names_are_replaced_and_warned() -> None:
    with pytest.warns(DataWarning, match="lone surrogates"):
        cv = rv.cross_validate({"a\ud800": rv.models.MostPopular(), "b": rv.models.ItemMean()},
                               DATA, ["ndcg@5", "rmse"], split=FOLDS, k=5, progress=False)
    assert cv.models == ["a\ufffd", "b"]
    assert list(cv.per_fold.index.get_level_values("model").unique()) == ["a\ufffd", "b"]
    alike = dict([("a\ud800", rv.models.MostPopular()), ("a\udc00", rv.models.ItemMean())])
    assert len(alike) == 2
    with pytest.raises(InvalidParameterError, match="two models alike"):
        _cv(alike, ["ndcg@5"])  # both are named 'a\ufffd': an error, never one model lost


@pytest.mark.parametrize("order", [("pop", "im", "um"), ("im", "pop", "um"),
                                   ("um", "im", "pop")])
def test_compare_each_metric_over_the_models_that_have_it(order: tuple[str, ...]) -> None:
    made = {"pop": rv.models.MostPopular, "im": rv.models.ItemMean, "um": rv.models.UserMean}
    cv = _cv({name: made[name]() for name in order}, ["ndcg@5", "rmse"])
    with pytest.warns(DataWarning, match=r"RMSE is compared over .* only: \['pop'\]"):
        cmp = cv.compare(correction="holm")
    assert cmp.systems == list(order)
    assert cmp.settings["left_out"] == {"RMSE": ["pop"]}
    assert np.isnan(cmp.means.loc["pop", "RMSE"])
    assert set(cmp.tests.loc[cmp.tests["metric"] == "RMSE", ["system_a", "system_b"]]
               .to_numpy().ravel()) == {"im", "um"}
    # holm over the 4 tests of the call (3 NDCG pairs, 1 RMSE pair), not per metric:
    # p_adj of the i-th smallest p is max_{j <= i} min(1, (4 - j + 1) p_(j))
    p = np.sort(cmp.tests["p_value"].to_numpy())
    expected = np.maximum.accumulate(np.minimum(1, (4 - np.arange(4)) * p))
    np.testing.assert_allclose(np.sort(cmp.tests["p_adjusted"].to_numpy()), expected)
    # the NDCG tests are those of a comparison of the three alone
    alone = cv.compare(metrics=["ndcg@5"])
    pd.testing.assert_series_equal(
        cmp.means["NDCG@5"], alone.means["NDCG@5"])


def test_compare_a_metric_only_one_model_has() -> None:
    cv = _cv({"pop": rv.models.MostPopular(), "im": rv.models.ItemMean(),
              "rand": rv.models.Random(seed=1)}, ["ndcg@5", "rmse"])
    with pytest.warns(DataWarning, match=r"RMSE is not compared: only \['im'\]"):
        cmp = cv.compare()
    assert list(cmp.means.columns) == ["NDCG@5"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        with pytest.raises(InvalidParameterError, match="nothing to compare"):
            cv.compare(metrics=["rmse"])


def test_ties_at_cutoff_counted_per_model_and_fold() -> None:
    class Tied(Scripted):
        def recommend(self, users: Any, k: int, exclude: Any = None) -> Any:
            rv.exceptions.warn("Tied.recommend: for 7 users, more candidates tie at the k=5-th"
                               " score than fit in the list", TiesAtCutoffWarning)
            return good_recs(self, np.asarray(users), k)

    with pytest.warns(TiesAtCutoffWarning):
        cv = rv.cross_validate({"tied": Tied(), "pop": rv.models.MostPopular()}, DATA,
                               ["ndcg@5"], split=FOLDS, k=5, progress=False)
    ties = cv.settings["ties_at_cutoff"]
    assert {("tied", 0), ("tied", 1)} <= set(ties)
    assert ties[("tied", 0)]["warnings"] == 1
    assert ties[("tied", 0)]["users"] == 7
    # receval's own models count too, when their recommend warns (MostPopular's equal counts)
    for (name, _), entry in ties.items():
        if name == "pop":
            assert entry["users"] is None or entry["users"] >= 1
            assert "MostPopular" in entry["messages"][0] or "pop" in entry["messages"][0]


def test_progress_lines_when_stdout_is_not_a_terminal(capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    _cv({"pop": rv.models.MostPopular()}, ["ndcg@5"], progress=None)
    err = capsys.readouterr().err.splitlines()
    lines = [line for line in err if line.startswith("cross_validate:")]
    assert len(lines) == 2
    assert lines[0].startswith("cross_validate: model 'pop', fold 1/2: ")
    assert "fit " in lines[0]
    assert " s (" in lines[0]
    _cv({"pop": rv.models.MostPopular()}, ["ndcg@5"], progress=False)
    assert "cross_validate:" not in capsys.readouterr().err


def test_progress_bar_when_stdout_is_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    from receval._cv_progress import CvProgress

    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    assert CvProgress(None, 4, 2).mode == "bar"
    assert CvProgress(False, 4, 2).mode == "off"
    monkeypatch.setattr(sys.stdout, "isatty", lambda: False, raising=False)
    assert CvProgress(True, 4, 2).mode == "lines"


def test_cv_report_shows_parameters_and_ties(tmp_path: Path) -> None:
    pytest.importorskip("jinja2")
    pytest.importorskip("matplotlib")
    cv = _cv({"shrunk": "item-mean:shrinkage=5", "pop": rv.models.MostPopular()}, ["ndcg@5"])
    ties = {("pop", 0): {"warnings": 1, "users": 4, "messages": ["MostPopular.recommend: x"]},
            ("pop", 1): {"warnings": 1, "users": 3, "messages": ["MostPopular.recommend: y"]}}
    import dataclasses

    cv = dataclasses.replace(cv, settings={**cv.settings, "ties_at_cutoff": ties})
    html = cv.report(tmp_path / "cv.html").read_text(encoding="utf-8")
    assert "<td>shrinkage=5.0</td>" in html
    assert "<td>by=&#39;users&#39;</td>" in html
    assert "pop: tied scores straddled the cutoff k in 7 lists over 2 fold(s)" in html


@pytest.mark.parametrize("model", [rv.models.GlobalMean(), rv.models.UserMean(),
                                   rv.models.ItemMean(shrinkage=2)], ids=repr)
@pytest.mark.parametrize(("role", "cast"), [
    ("user_id", str), ("item_id", str), ("item_id", float), ("user_id", lambda v: f"u{v}")])
def test_predict_ids_of_another_type_is_an_error(model: Any, role: str,
                                                 cast: Callable[[Any], Any]) -> None:
    # fitted on integer ids, asked about '12': never the global mean for every pair, silently
    fitted = model.fit(DATA)
    pairs = DATA[["user_id", "item_id"]].head(20).copy()
    pairs[role] = pairs[role].map(cast)
    with pytest.raises(rv.exceptions.IdTypeMismatchError) as info:
        fitted.predict(pairs)
    assert type(model).__name__ in str(info.value)
    assert role.split("_")[0] + " ids of type" in str(info.value)
    fitted.predict(DATA[["user_id", "item_id"]].head(20))  # the same kind: fine


def _every_recommender() -> list[Any]:
    users = np.sort(DATA["user_id"].unique())
    items = np.sort(DATA["item_id"].unique())
    rng = np.random.default_rng(0)
    models = [rv.models.Random(seed=1), rv.models.MostPopular(), rv.models.GlobalMean(),
              rv.models.UserMean(), rv.models.ItemMean(shrinkage=2),
              rv.models.Factors(rng.random((len(users), 3)), rng.random((len(items), 3)),
                                users=users, items=items),
              rv.models.ScoreFunction(lambda u: np.ones((len(u), len(items))), users=users,
                                      items=items)]
    try:
        from surprise import SVD
    except ImportError:  # the [surprise] extra
        pass
    else:
        models.append(rv.models.Surprise(SVD(n_epochs=2, random_state=0)))
    return models


@pytest.mark.parametrize("model", _every_recommender(), ids=lambda m: type(m).__name__)
@pytest.mark.parametrize("users", [["12"], [1.5], [12, "12"], [b"12"]],
                         ids=["string", "float", "mixed", "bytes"])
def test_recommend_users_of_another_type_is_an_error(model: Any, users: list[Any]) -> None:
    # fitted on integer user ids, asked for '12': every such user would be unknown and get
    # the fallback list (or none), silently; an error naming the model and both kinds instead
    fitted = model.fit(DATA)
    with pytest.raises(rv.exceptions.IdTypeMismatchError) as info:
        fitted.recommend(users, 3)
    assert type(model).__name__ in str(info.value)
    assert "user ids of type" in str(info.value)
    assert info.value.parameter == "users"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert len(fitted.recommend(DATA["user_id"].unique()[:2], 3)) == 6  # the same kind


# --- a fold whose test pairs are all in its train, with exclude_seen=True -----------------

@pytest.mark.parametrize(("split", "warned"), [
    ((DATA, DATA), [0]),                                   # train == test
    ((DATA, DATA.iloc[:40]), [0]),                         # test a part of train
    ([(DATA, DATA), FOLDS[0]], [0]),                       # only the fold that is
    (FOLDS, []),                                           # ordinary folds: no noise
    ((DATA.iloc[40:], DATA.iloc[:41]), []),                # some test pairs are new
])
def test_test_pairs_all_in_train_warn_per_fold(split: Any, warned: list[int]) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rv.cross_validate({"pop": "popular"}, DATA, ["ndcg@5"], split=split, k=5,
                          progress=False)
    got = [str(w.message) for w in caught if issubclass(w.category, DataWarning)
           and "test (user, item) pairs are also in" in str(w.message)]
    assert len(got) == len(warned), got
    for fold, message in zip(warned, got, strict=True):
        assert f"fold {fold}:" in message
        assert "pass exclude_seen=False" in message


@pytest.mark.parametrize(("metrics", "exclude_seen"), [(["ndcg@5"], False), (["rmse"], True)])
def test_test_pairs_in_train_no_warning_when_nothing_is_excluded(metrics: list[str],
                                                                  exclude_seen: bool) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rv.cross_validate({"m": "item-mean"}, DATA, metrics, split=(DATA, DATA), k=5,
                          exclude_seen=exclude_seen, progress=False)
    assert not [w for w in caught if "pairs are also in" in str(w.message)]


# --- exclude_seen=False reaches a model that leaves training items out by itself ----------

@pytest.mark.parametrize("algo", ["SVD(n_factors=4, n_epochs=5, random_state=0)",
                                  "KNNBasic(k=5, verbose=False)", "BaselineOnly(verbose=False)"])
def test_include_seen_reaches_surprise(algo: str) -> None:
    pytest.importorskip("surprise")
    unseen = rv.models.from_spec(f"surprise:{algo}")
    everything = rv.models.from_spec({"model": f"surprise:{algo}",
                                      "params": {}}).set_params(candidates="all")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rv.RecevalWarning)
        cv = rv.cross_validate({"unseen": unseen, "all": everything}, DATA, ["ndcg@5"],
                               split=(DATA, DATA), k=5, exclude_seen=False, progress=False)
    got = cv.per_fold["NDCG@5"]
    assert got[("unseen", 0)] > 0
    assert got[("unseen", 0)] == got[("all", 0)]
    assert cv.settings["candidates_all"] == ["unseen"]
    assert unseen.candidates == "unseen"  # the model passed in is left as it was
    # exclude_seen=True: the default candidates, nothing changed
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rv.RecevalWarning)
        cv = rv.cross_validate({"unseen": unseen}, DATA, ["ndcg@5"], split=FOLDS, k=5,
                               progress=False)
    assert cv.settings["candidates_all"] == []


# --- a Series of predictions is read by its index, never by position ----------------------

def _shuffled(pairs: pd.DataFrame) -> pd.Series:
    values = pd.Series(3.0 + (pairs["item_id"].to_numpy() % 3), index=pairs.index)
    return values.sample(frac=1.0, random_state=0)


SERIES_IN_ORDER = {
    "in order": lambda s, p: pd.Series(3.0 + (p["item_id"].to_numpy() % 3), index=p.index),
    "shuffled": lambda s, p: _shuffled(p),
    "reversed": lambda s, p: _shuffled(p).sort_index(ascending=False),
    "a table": lambda s, p: p.assign(score=3.0 + (p["item_id"].to_numpy() % 3)),
}


class PredictOnly:
    """Ranked by predict (no recommend): the Series reaches rank_by_predict too."""

    def __init__(self, pred: Callable[..., Any]) -> None:
        self.pred = pred

    def fit(self, train: pd.DataFrame) -> PredictOnly:
        return self

    def predict(self, pairs: pd.DataFrame) -> Any:
        return self.pred(self, pairs)


@pytest.mark.parametrize("metric", ["rmse", "ndcg@5"])
@pytest.mark.parametrize("case", list(SERIES_IN_ORDER))
def test_predictions_as_a_series_in_another_order(case: str, metric: str) -> None:
    ref = _cv({"m": PredictOnly(SERIES_IN_ORDER["a table"])}, [metric]).per_fold
    got = _cv({"m": PredictOnly(SERIES_IN_ORDER[case])}, [metric]).per_fold
    pd.testing.assert_frame_equal(got, ref)


@pytest.mark.parametrize(("make", "words"), [
    (lambda s, p: pd.Series(3.0, index=p.index + 10_000), "are not in pairs.index"),
    (lambda s, p: pd.Series(3.0, index=[0] * len(p)), "its labels repeat"),
    (lambda s, p: pd.Series(3.0, index=p.index.astype(str)), "are not in pairs.index"),
])
def test_a_series_with_another_index_is_refused(make: Callable[..., Any], words: str) -> None:
    with pytest.raises(rv.models.ModelOutputError) as info:
        _cv({"mine": Scripted(pred=make)}, ["rmse"])
    message = str(info.value)
    assert "model 'mine', fold 0: predict()" in message
    assert words in message, message


# --- boolean parameters take booleans only ------------------------------------------------

@pytest.mark.parametrize("value", ["false", "no", 0, 1, None, np.array([True])],
                         ids=repr)
@pytest.mark.parametrize("parameter", ["exclude_seen", "progress", "strict"])
@pytest.mark.parametrize("door", ["cross_validate", "tune"])
def test_boolean_parameters_refuse_other_values(door: str, parameter: str, value: Any) -> None:
    if value is None and parameter == "progress":
        return  # progress=None: the default (on)
    if door == "tune" and parameter == "progress":
        return  # tune has no progress
    call = partial(rv.cross_validate, {"pop": "popular"}, DATA, ["ndcg@5"], split=FOLDS, k=5,
                   **{"progress": False, parameter: value}) if door == "cross_validate" else \
        partial(rv.tune, "item-mean", {"shrinkage": [1.0]}, DATA, "ndcg@5", split=FOLDS, k=5,
                **{parameter: value})
    with pytest.raises(InvalidParameterError) as info:
        call()
    assert info.value.parameter == parameter
    assert f"{parameter} must be True or False" in str(info.value)


@pytest.mark.parametrize("value", [False, np.bool_(False)], ids=repr)
def test_numpy_booleans_are_booleans(value: Any) -> None:
    cv = _cv({"pop": "popular"}, ["ndcg@5"], exclude_seen=value, strict=value)
    assert cv.settings["exclude_seen"] is False


# --- other libraries' models, passed directly or built from a spec ------------------------

class _LensKitLike:
    """Stands in for a LensKit component (LensKit is not always installed)."""

    def fit(self, train: Any) -> None: ...

    def recommend(self, users: Any, k: int, exclude: Any = None) -> None: ...


_LensKitLike.__module__ = "lenskit.als"


def _library_models() -> dict[str, tuple[Callable[[], Any], str | None, list[str]]]:
    """Case -> (the object, its spec or None, words of the message)."""
    cases: dict[str, tuple[Callable[[], Any], str | None, list[str]]] = {
        "lenskit": (_LensKitLike, None, ["unwrapped lenskit model", "rv.models.LensKit("]),
    }
    try:
        from sklearn.linear_model import LinearRegression

        cases["sklearn"] = (LinearRegression, "sklearn.linear_model:LinearRegression()",
                            ["scikit-learn estimator", "fit(train) and predict(pairs)"])
    except ImportError:  # pragma: no cover
        pass
    try:
        import cornac

        cases["cornac"] = (lambda: cornac.models.MF(k=4), "cornac.models:MF(k=4)",
                           ["unwrapped cornac model (MF)", "rv.models.Cornac(MF(...))"])
    except ImportError:  # pragma: no cover
        pass
    try:
        from implicit.cpu.als import AlternatingLeastSquares

        cases["implicit"] = (AlternatingLeastSquares,
                             "implicit.cpu.als:AlternatingLeastSquares()",
                             ["unwrapped implicit model (AlternatingLeastSquares)",
                              "rv.models.Implicit(AlternatingLeastSquares(...))"])
    except ImportError:  # pragma: no cover
        pass
    return cases


LIBRARY_MODELS = _library_models()


@pytest.mark.parametrize(("case", "door"), [
    (case, door) for case, (_, spec, _) in LIBRARY_MODELS.items()
    for door in ("object", "spec", "from_spec", "mapping spec")
    if door == "object" or spec is not None])  # the LensKit stand-in has no importable spec
def test_other_libraries_models_are_refused_at_every_door(case: str, door: str) -> None:
    make, spec, words = LIBRARY_MODELS[case]
    calls = {"object": lambda: _cv({"mine": make()}, ["ndcg@5"]),
             "spec": lambda: _cv({"mine": spec}, ["ndcg@5"]),
             "from_spec": lambda: rv.models.from_spec(spec),
             "mapping spec": lambda: rv.models.from_spec({"model": spec, "params": {}})}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # implicit's OpenBLAS note
        with pytest.raises(InvalidModelError) as info:
            calls[door]()
    message = str(info.value)
    assert "model 'mine'" in message if door == "object" else \
        "model spec" in message and str(spec) in message
    for word in words:
        assert word in message, message
    assert "raised" not in message  # refused up front, never at fit


# --- empty folds, named before any model is fitted ----------------------------------------

@pytest.mark.parametrize(("split", "words"), [
    ((DATA, DATA.iloc[:0]), ["fold 0 (of 1)", "empty test part"]),
    ((DATA.iloc[:0], DATA), ["fold 0 (of 1)", "empty train part"]),
    ((DATA.iloc[:0], DATA.iloc[:0]), ["empty train and an empty test part"]),
    ([FOLDS[0], (FOLDS[1].train, DATA.iloc[:0])], ["fold 1 (of 2)", "empty test part"]),
])
@pytest.mark.parametrize("metric", ["ndcg@5", "rmse"])
def test_empty_folds_are_named(split: Any, words: list[str], metric: str) -> None:
    fitted = []

    class Spy(rv.models.ItemMean):
        def fit(self, train: Any) -> Any:
            fitted.append(len(train))
            return super().fit(train)

    with pytest.raises(rv.exceptions.EmptyInputError) as info:
        rv.cross_validate({"m": Spy()}, DATA, [metric], split=split, k=5, progress=False)
    for word in words:
        assert word in str(info.value), str(info.value)
    assert info.value.parameter == "split"
    assert not fitted


# --- a model output without a score column ------------------------------------------------

@pytest.mark.parametrize("method", ["recommend", "predict"])
def test_output_without_a_score_column(method: str) -> None:
    def no_score(s: Scripted, users_or_pairs: Any, k: int | None = None) -> pd.DataFrame:
        return good_recs(s, users_or_pairs, k or 5).rename(columns={"score": "s"}) \
            if method == "recommend" else users_or_pairs.assign(s=1.0)

    model = Scripted(recs=no_score) if method == "recommend" else Scripted(pred=no_score)
    with pytest.raises(rv.models.ModelOutputError) as info:
        _cv({"m": model}, ["ndcg@5" if method == "recommend" else "rmse"])
    message = str(info.value)
    assert f"model 'm': {method}() returned no score column" in message
    assert "column named 'score'" in message
    assert "Columns(" not in message
    assert "_score=" not in message
