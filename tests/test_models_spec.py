"""Model specs (``rv.models.from_spec``) and parameters (``get_params``, ``clone``, ``repr``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
from receval.exceptions import InvalidModelError, InvalidParameterError

BUILT_INS = [rv.models.Random(seed=4), rv.models.MostPopular(by="rows"),
             rv.models.GlobalMean(), rv.models.UserMean(shrinkage=2),
             rv.models.ItemMean(shrinkage=5)]


class ThirdParty:
    """A model of someone else's: parameters stored as attributes, no get_params."""

    def __init__(self, alpha: float = 0.5) -> None:
        self.alpha = alpha

    def fit(self, train):
        self.fitted_ = True
        return self

    def predict(self, pairs):
        return pd.DataFrame(pairs).assign(score=self.alpha)


class NoCopy(ThirdParty):
    def __deepcopy__(self, memo):
        raise TypeError("holds a socket")


@pytest.mark.parametrize(("spec", "expected"), [
    ("item-mean:shrinkage=5", "ItemMean(shrinkage=5.0)"),
    ("item_mean:shrinkage=5", "ItemMean(shrinkage=5.0)"),
    ("ItemMean(shrinkage=5)", "ItemMean(shrinkage=5.0)"),
    ("item-mean( shrinkage = 2.5 )", "ItemMean(shrinkage=2.5)"),
    ("user-mean", "UserMean(shrinkage=0.0)"),
    ("random:seed=3", "Random(seed=3)"),
    ("  random  ", "Random(seed=0)"),
    ("most-popular", "MostPopular(by='users')"),
    ("popular:by=rows", "MostPopular(by='rows')"),          # a bare word is a string
    ("most-popular:by='rows'", "MostPopular(by='rows')"),
    ("global-mean", "GlobalMean()"),
    ("receval.models:UserMean(shrinkage=1)", "UserMean(shrinkage=1.0)"),
    ("receval.models:Random", "Random(seed=0)"),
    ({"model": "random", "params": {"seed": 9}}, "Random(seed=9)"),
    ({"model": "item-mean"}, "ItemMean(shrinkage=0.0)"),
    ({"model": "tests.test_models_spec:ThirdParty", "params": {"alpha": 2}}, None),
])
def test_from_spec_forms(spec, expected):
    model = rv.models.from_spec(spec)
    if expected is None:
        assert isinstance(model, ThirdParty)
        assert model.alpha == 2
    else:
        assert repr(model) == expected


def test_from_spec_values_are_literals():
    # a dict, a list and negative numbers are read by ast.literal_eval
    model = rv.models.from_spec(
        "tests.test_models_spec:ThirdParty(alpha={'a': [1, -2.5], 'b': (None, True)})")
    assert model.alpha == {"a": [1, -2.5], "b": (None, True)}


@pytest.mark.parametrize(("spec", "error", "words"), [
    # unknown names: the message lists the allowed ones
    ("foo", InvalidModelError, ["'foo'", "item-mean", "most-popular", "position 0"]),
    ("", InvalidModelError, ["forms"]),
    ("   ", InvalidModelError, ["forms"]),
    (42, InvalidModelError, ["forms"]),
    (None, InvalidModelError, ["forms"]),
    ({"model": "random", "seed": 1}, InvalidModelError, ["'model'", "'params'", "seed"]),
    ({"params": {}}, InvalidModelError, ["'model' required"]),
    ({"model": "random", "params": [1]}, InvalidParameterError, ["'params' must be"]),
    ("nosuchmodule.sub:Model()", InvalidModelError, ["cannot import", "nosuchmodule.sub"]),
    ("receval.models:NoSuch", InvalidModelError, ["has no 'NoSuch'"]),
    # not a model class: never called
    ("os:system(command='true')", InvalidModelError, ["not a model class", "position 3"]),
    ("subprocess:Popen(args='true')", InvalidModelError, ["not a model class"]),
    ("receval:evaluate", InvalidModelError, ["not a model class"]),
    # parameters
    ("item-mean:shrnkage=5", InvalidParameterError,
     ["no parameter 'shrnkage'", "['shrinkage']", "position 10"]),
    ("global-mean:shrinkage=5", InvalidParameterError, ["no parameter 'shrinkage'", "none"]),
    ("ItemMean(shrnkage=5)", InvalidParameterError, ["position 9"]),
    ("item-mean:shrinkage=-1", InvalidParameterError, ["shrinkage must be a finite number >= 0"]),
    ("item-mean:shrinkage='x'", InvalidParameterError, ["shrinkage"]),
    ("most-popular:by=items", InvalidParameterError, ["by must be"]),
    ("random:seed=3,seed=4", InvalidParameterError, ["given twice", "position 14"]),
    ("item-mean:5", InvalidParameterError, ["positional", "position 10"]),
    ("item-mean:**{'a': 1}", InvalidParameterError, ["**mappings"]),
    ("item-mean:shrinkage=", InvalidParameterError, ["not a call"]),
    ("item-mean(shrinkage=1", InvalidParameterError, ["not a call", "never closed"]),
    # one list of parameters, never a second call or attribute that would drop the first
    ("item-mean(shrinkage=1)()", InvalidParameterError, ["one list of parameters"]),
    ("item-mean(shrinkage=1).real", InvalidParameterError, ["one list of parameters"]),
    ("random(seed=1) + 1", InvalidParameterError, ["one list of parameters"]),
    ("item-mean:shrinkage=1)(", InvalidParameterError, ["one list of parameters"]),
    ("receval.models:ItemMean(shrinkage=1)()", InvalidModelError, ["expected a class name"]),
    ("receval.models:ItemMean(shrinkage=1) + 1", InvalidModelError, ["expected a class name"]),
    ("item-mean:shrinkage=__import__('os')", InvalidParameterError,
     ["not a literal", "__import__('os')", "position 20"]),
    ("item-mean:shrinkage=1+open('x').read()", InvalidParameterError, ["not a literal"]),
    ("item-mean:shrinkage=[x for x in ()]", InvalidParameterError, ["not a literal"]),
    ({"model": "item-mean:shrinkage=1", "params": {"shrinkage": 2}}, InvalidParameterError,
     ["both in the text and in 'params'"]),
    ({"model": "random", "params": {"sed": 2}}, InvalidParameterError, ["'sed'", "['seed']"]),
    ("tests.test_models_spec:ThirdParty(beta=1)", InvalidParameterError,
     ["no parameter 'beta'", "['alpha']"]),
])
def test_from_spec_bad_specs(spec, error, words):
    with pytest.raises(error) as info:
        rv.models.from_spec(spec)
    message = str(info.value)
    assert "model spec" in message
    for word in words:
        assert word in message, (word, message)


@pytest.mark.parametrize("model", BUILT_INS, ids=repr)
def test_params_round_trip(model):
    params = model.get_params()
    assert list(params) == type(model)._param_names()
    assert repr(model) == f"{type(model).__name__}(" + ", ".join(
        f"{k}={v!r}" for k, v in params.items()) + ")"
    copy = rv.models.clone(model)
    assert copy is not model
    assert type(copy) is type(model)
    assert repr(copy) == repr(model)
    assert rv.models.from_spec(repr(model)).get_params() == params


def test_clone_is_unfitted_and_set_params_checks():
    train = pd.DataFrame({"user_id": [1, 2], "item_id": [1, 1], "rating": [3.0, 4.0]})
    model = rv.models.ItemMean(shrinkage=1).fit(train)
    assert not hasattr(rv.models.clone(model), "items_")
    assert model.set_params(shrinkage=3) is model
    assert model.shrinkage == 3.0
    with pytest.raises(InvalidParameterError, match="shrinkage must be"):
        model.set_params(shrinkage=-2)
    with pytest.raises(InvalidParameterError, match=r"no parameter 'k'.*\['shrinkage'\]"):
        model.set_params(k=3)


def test_clone_third_party():
    original = ThirdParty(alpha=3).fit(None)
    copy = rv.models.clone(original)
    assert copy is not original
    assert copy.alpha == 3
    with pytest.raises(InvalidModelError, match=r"cannot clone model NoCopy.*get_params"):
        rv.models.clone(NoCopy())


class TestSurprise:
    surprise = pytest.importorskip("surprise")

    def test_specs(self):
        model = rv.models.from_spec("surprise:SVD(n_factors=50, random_state=0)")
        assert isinstance(model, rv.models.Surprise)
        assert model.algo.n_factors == 50
        assert model.algo.random_state == 0
        knn = rv.models.from_spec(
            "surprise:KNNBasic(k=20, sim_options={'name': 'cosine', 'user_based': False})")
        assert knn.algo.k == 20
        assert knn.algo.sim_options == {"name": "cosine",
                                                             "user_based": False}
        mapped = rv.models.from_spec({"model": "surprise:SVD", "params": {"n_factors": 5}})
        assert mapped.algo.n_factors == 5
        by_path = rv.models.from_spec(
            "surprise.prediction_algorithms.matrix_factorization:SVD(n_factors=3)")
        assert isinstance(by_path, rv.models.Surprise)
        assert by_path.algo.n_factors == 3

    def test_repr_and_clone(self):
        model = rv.models.Surprise(self.surprise.KNNBaseline(
            k=7, sim_options={"name": "pearson_baseline"}, bsl_options={"method": "sgd"}))
        text = repr(model)
        assert text.startswith("Surprise(algo=KNNBaseline(k=7, min_k=1, "
                               "sim_options={'name': 'pearson_baseline', 'user_based': True}, "
                               "bsl_options={'method': 'sgd'}")
        assert text.endswith("candidates='unseen', vectorised=True)")
        copy = rv.models.clone(model)
        assert copy.algo is not model.algo
        assert repr(copy) == text
        assert copy.algo.sim_options is not model.algo.sim_options
        deep = model.get_params(deep=True)
        assert deep["algo__k"] == 7
        model.set_params(algo__k=9, candidates="all")
        assert model.algo.k == 9
        assert model.candidates == "all"
        assert model.algo.sim_options["name"] == "pearson_baseline"

    @pytest.mark.parametrize(("spec", "words"), [
        ("surprise:SVDD", ["unknown Surprise algorithm 'SVDD'", "'SVD'", "'KNNBasic'"]),
        ("surprise:SVD(3)", ["positional"]),
        ("surprise:KNNBasic(kk=3)", ["no parameter 'kk'", "'sim_options'", "'bsl_options'"]),
        ("surprise:SVD(n_factors=eval('1'))", ["not a literal"]),
        ("surprise:SVD(", ["not a call"]),
        ("surprise:1", ["expected a class name"]),
    ])
    def test_bad_specs(self, spec, words):
        with pytest.raises((InvalidModelError, InvalidParameterError)) as info:
            rv.models.from_spec(spec)
        for word in words:
            assert word in str(info.value), (word, str(info.value))

    def test_set_params_refuses_a_parameter_it_cannot_read_back(self):
        # SVD spreads lr_all over lr_bu ... lr_qi; rebuilding with lr_all and the old lr_bu
        # would silently keep the old rates
        model = rv.models.Surprise(self.surprise.SVD())
        with pytest.raises(InvalidParameterError, match="no parameter 'lr_all'"):
            model.set_params(algo__lr_all=0.1)


# -- properties -------------------------------------------------------------------------------

BUILT = st.one_of(
    st.builds(rv.models.Random, seed=st.integers(0, 2**63 - 1)),
    st.builds(rv.models.MostPopular, by=st.sampled_from(["users", "rows"])),
    st.just(rv.models.GlobalMean()),
    st.builds(rv.models.UserMean, shrinkage=st.floats(0, 1e6, allow_nan=False)),
    st.builds(rv.models.ItemMean, shrinkage=st.integers(0, 10**6)),
)


@settings(max_examples=200, deadline=None)
@given(model=BUILT)
def test_repr_is_a_spec_that_rebuilds_the_model(model):
    again = rv.models.from_spec(repr(model))
    assert type(again) is type(model)
    assert again.get_params() == model.get_params()
    assert repr(rv.models.clone(model)) == repr(model)


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(list("abcdeimnpr-_:=(),'\"[]{}0123456789. ")),
                    max_size=40))
def test_any_text_is_a_model_or_a_receval_error(text):
    # never another exception, never code run: a model, or an error naming the spec
    message, model = "", None
    try:
        model = rv.models.from_spec(text)
    except rv.exceptions.RecevalError as error:
        message = str(error)
    assert "model spec" in message or callable(getattr(model, "fit", None))


@pytest.mark.parametrize("make", [
    "SVD(n_factors=3, n_epochs=5, lr_all=0.01, reg_all=0.05, random_state=0)",
    "SVDpp(n_factors=2, n_epochs=2, lr_all=0.01, random_state=1)",
    "NMF(n_factors=2, n_epochs=5, random_state=2)",
    "KNNBaseline(k=3, sim_options={'name': 'pearson_baseline', 'user_based': False}, "
    "bsl_options={'method': 'sgd', 'n_epochs': 3}, verbose=False)",
    "KNNWithMeans(k=2, min_k=2, sim_options={'name': 'msd'}, verbose=False)",
    "BaselineOnly(bsl_options={'method': 'als', 'reg_i': 5}, verbose=False)",
    "CoClustering(n_cltr_u=2, n_cltr_i=2, random_state=3)",
    "SlopeOne()",
])
def test_a_clone_of_a_surprise_model_predicts_as_the_original(make):
    # the clone is rebuilt from the parameters read back (SVD's lr_all spread over lr_bu ...)
    pytest.importorskip("surprise")
    from receval import _demo

    data = _demo.sample_ratings(25, 15, seed=4)
    model = rv.models.from_spec(f"surprise:{make}")
    copy = rv.models.clone(model)
    assert repr(copy) == repr(model)
    pairs = data[["user_id", "item_id"]]
    a = model.fit(data).predict(pairs)["score"].to_numpy()
    b = copy.fit(data).predict(pairs)["score"].to_numpy()
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(("option", "value", "words"), [
    ("sim_options", {"nmae": "cosine"}, ["sim_options has no key 'nmae'",
                                         "did you mean 'name'?", "'user_based'"]),
    ("sim_options", {"user_base": False}, ["no key 'user_base'", "did you mean 'user_based'?"]),
    ("sim_options", {"name": "cosin"}, ["sim_options['name'] must be one of",
                                        "'pearson_baseline'", "did you mean 'cosine'?"]),
    ("sim_options", {"name": 3}, ["sim_options['name'] must be one of", "got 3"]),
    ("sim_options", "cosine", ["sim_options must be a dict"]),
    ("bsl_options", {"methd": "als"}, ["bsl_options has no key 'methd'",
                                       "did you mean 'method'?", "'learning_rate'"]),
    ("bsl_options", {"method": "sgdd"}, ["bsl_options['method'] must be one of ['als', 'sgd']",
                                         "did you mean 'sgd'?"]),
    ("bsl_options", {"method": "SGD"}, ["must be one of ['als', 'sgd']"]),  # Surprise: exact
])
@pytest.mark.parametrize("form", ["text", "mapping", "import path"])
def test_surprise_option_keys_are_checked(option, value, words, form):
    # Surprise reads the keys it knows and ignores the others: a typo fitted the default
    pytest.importorskip("surprise")
    algo = f"KNNBaseline(k=3, {option}={value!r})"
    spec = {"text": f"surprise:{algo}",
            "import path": f"surprise.prediction_algorithms.knns:{algo}",
            "mapping": {"model": "surprise:KNNBaseline(k=3)", "params": {option: value}}}[form]
    with pytest.raises(InvalidParameterError) as info:
        rv.models.from_spec(spec)
    message = str(info.value)
    assert message.startswith(f"model spec {spec!r}")
    assert info.value.parameter == option
    for word in words:
        assert word in message, (word, message)


@pytest.mark.parametrize("options", [
    "sim_options={'name': 'Pearson', 'user_based': False, 'min_support': 2, 'shrinkage': 50}",
    "sim_options={'name': 'pearson_baseline'}, bsl_options={'method': 'sgd', 'reg': 0.1, "
    "'learning_rate': 0.01, 'n_epochs': 3, 'reg_i': 1, 'reg_u': 1}",
    "sim_options={}, bsl_options={}",
])
def test_surprise_documented_options_are_taken(options):
    pytest.importorskip("surprise")
    model = rv.models.from_spec(f"surprise:KNNBaseline(k=3, {options})")
    assert repr(model).startswith("Surprise(algo=KNNBaseline(")


@pytest.mark.parametrize("algo", ["KNNBasic(k=3)", "KNNBaseline(k=3)", "BaselineOnly()"])
def test_surprise_chatter_goes_to_stderr(algo, capsys):
    # Surprise prints "Computing the msd similarity matrix..." (verbose=True, its default)
    pytest.importorskip("surprise")
    from receval import _demo

    rv.models.from_spec(f"surprise:{algo}").fit(_demo.sample_ratings(10, 8, seed=1))
    out, err = capsys.readouterr()
    assert out == ""
    assert "Comput" in err or "Estimating biases" in err
