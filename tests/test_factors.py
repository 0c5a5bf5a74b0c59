"""rv.models.Factors and rv.models.ScoreFunction: hand-computed scores, a brute-force numpy
oracle (hypothesis), exclusion, ties, unknown ids and classes of bad input."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
from receval.exceptions import (
    InvalidModelError,
    InvalidParameterError,
    NonFiniteValueError,
    TiesAtCutoffWarning,
)
from tests.strategies import examples

# users u = (1, 0), v = (0, 2); items (given out of order) 30 = (1, 1), 10 = (2, 0), 20 = (0, 1)
P = np.array([[1.0, 0.0], [0.0, 2.0]])
Q = np.array([[1.0, 1.0], [2.0, 0.0], [0.0, 1.0]])


def _model(**kw):  # type: ignore[no-untyped-def]
    args = {"users": ["u", "v"], "items": [30, 10, 20], "item_bias": [0.5, 0.0, 0.0],
            "user_bias": [1.0, 2.0], "global_bias": 3.0, **kw}
    return rv.models.Factors(P, Q, **args)


def _lists(recs: pd.DataFrame) -> dict[object, list[object]]:
    return {u: g["item_id"].tolist() for u, g in recs.groupby("user_id", sort=True)}


def test_hand_computed_scores():
    # s(u, i) = p_u . q_i + b_i + b_u + mu, mu = 3, b_u = 1, b_v = 2, b_30 = 0.5
    # u: 10 -> 2 + 0 + 1 + 3 = 6.0;  30 -> 1 + 0.5 + 1 + 3 = 5.5;  20 -> 0 + 0 + 1 + 3 = 4.0
    # v: 30 -> 2 + 0.5 + 2 + 3 = 7.5; 20 -> 2 + 0 + 2 + 3 = 7.0;  10 -> 0 + 0 + 2 + 3 = 5.0
    m = _model()
    recs = m.recommend(["v", "u"], 2)
    assert recs.to_dict("list") == {"user_id": ["u", "u", "v", "v"],
                                    "item_id": [10, 30, 30, 20],
                                    "score": [6.0, 5.5, 7.5, 7.0]}
    pairs = pd.DataFrame({"user_id": ["v", "u", "v"], "item_id": [10, 20, 30]})
    assert m.score(pairs)["score"].tolist() == [5.0, 4.0, 7.5]
    assert m.predict(pairs).equals(m.score(pairs))
    # without biases: plain dot products; u: 10 -> 2, 30 -> 1, 20 -> 0
    plain = rv.models.Factors(P, Q, users=["u", "v"], items=[30, 10, 20])
    assert plain.recommend("u", 3)["score"].tolist() == [2.0, 1.0, 0.0]


def test_exclude_table_and_seen():
    m = _model()
    train = pd.DataFrame({"user_id": ["u", "v", "x"], "item_id": [10, 30, 10]})
    # u loses 10 -> 30, 20; v loses 30 -> 20, 10
    want = {"u": [30, 20], "v": [20, 10]}
    assert _lists(m.recommend(["u", "v"], 2, exclude=train)) == want
    with pytest.raises(InvalidParameterError, match="needs fit"):
        m.recommend(["u"], 2, exclude="seen")
    assert m.fit(train) is m  # fit records the pairs, changes no score
    assert _lists(m.recommend(["u", "v"], 2, exclude="seen")) == want
    assert m.recommend(["u"], 1)["item_id"].tolist() == [10]
    with pytest.raises(InvalidParameterError, match="'seen'"):
        m.recommend(["u"], 1, exclude="train")


def test_ties_follow_the_policy_and_warn():
    # three items with the same factors: every user ties them all
    m = rv.models.Factors(P, np.ones((3, 2)), users=["u", "v"], items=["c", "a", "b"])
    with pytest.warns(TiesAtCutoffWarning, match=r"Factors.recommend: for 2 users.*item id"):
        recs = m.recommend(["u", "v"], 2)
    assert _lists(recs) == {"u": ["a", "b"], "v": ["a", "b"]}  # ascending item id
    with pytest.warns(TiesAtCutoffWarning, match="seed=4"):
        a = m.recommend(["u", "v"], 2, ties="random", seed=4)
    with pytest.warns(TiesAtCutoffWarning):
        assert a.equals(m.recommend(["u", "v"], 2, ties="random", seed=4))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m.recommend(["u", "v"], 3)  # the whole group fits: no warning
    with pytest.raises(InvalidParameterError, match="seed"):
        m.recommend(["u"], 2, ties="random")
    with pytest.raises(InvalidParameterError, match="'stable', 'random'"):
        m.recommend(["u"], 2, ties="first")


def test_unknown_ids_policy():
    m = _model()
    with pytest.raises(InvalidParameterError, match=r"2 users are not in the model.*'w'") as e:
        m.recommend(["u", "w", "z"], 2)
    assert e.value.parameter == "users"
    pairs = pd.DataFrame({"user_id": ["u", "w", "v"], "item_id": [10, 10, 99]})
    with pytest.raises(InvalidParameterError, match=r"\('w', 10\), \('v', 99\)"):
        m.score(pairs)
    skip = _model(unknown="skip")
    assert set(skip.recommend(["u", "w"], 2)["user_id"]) == {"u"}
    assert skip.score(pairs).to_dict("list") == {"user_id": ["u"], "item_id": [10],
                                                 "score": [6.0]}


@st.composite
def _factors(draw):  # type: ignore[no-untyped-def]
    n_users, n_items, f = draw(st.integers(1, 9)), draw(st.integers(1, 15)), draw(st.integers(1, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    # integer factors: many exact ties
    p = rng.integers(-2, 3, (n_users, f)).astype(float)
    q = rng.integers(-2, 3, (n_items, f)).astype(float)
    bi = rng.integers(-1, 2, n_items).astype(float) if draw(st.booleans()) else None
    seen = rng.random((n_users, n_items)) < 0.3
    return p, q, bi, seen, draw(st.integers(1, 16)), draw(st.integers(1, 5))


@settings(max_examples=examples(100), deadline=None)
@given(_factors())
def test_matches_a_brute_force_sort(case):
    p, q, bi, seen, k, block = case
    items = np.arange(len(q)) * 3 + 1  # ids sort like codes
    m = rv.models.Factors(p, q, users=np.arange(len(p)), items=items, item_bias=bi,
                          block_size=block)
    u, i = np.nonzero(seen)
    exclude = pd.DataFrame({"user_id": u, "item_id": items[i]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TiesAtCutoffWarning)
        recs = m.recommend(np.arange(len(p)), k, exclude=exclude)
    full = p @ q.T + (0 if bi is None else bi)
    for user in range(len(p)):
        order = np.lexsort((np.arange(len(q)), -full[user]))  # score desc, then item
        order = [j for j in order if not seen[user, j]][:k]
        got = recs[recs.user_id == user]
        assert got["item_id"].tolist() == items[order].tolist()
        np.testing.assert_allclose(got["score"], full[user, order], rtol=1e-12)
    np.testing.assert_allclose(m.score(recs)["score"], recs["score"], rtol=1e-12, atol=1e-12)


def test_score_function_matches_factors_and_blocks():
    rng = np.random.default_rng(0)
    p, q = rng.normal(size=(40, 5)), rng.normal(size=(25, 5))
    calls: list[int] = []

    def fn(ids: np.ndarray) -> np.ndarray:
        calls.append(len(ids))
        return p[ids] @ q.T

    f = rv.models.ScoreFunction(fn, users=np.arange(40), items=np.arange(25), block_size=16)
    recs = f.recommend(np.arange(40), 5)
    assert calls == [16, 16, 8]  # never more than block_size users at a time
    assert recs.equals(rv.models.Factors(p, q).recommend(np.arange(40), 5))
    pairs = recs.sample(frac=1.0, random_state=1)[["user_id", "item_id"]]
    np.testing.assert_allclose(f.score(pairs)["score"],
                               np.einsum("ij,ij->i", p[pairs.user_id], q[pairs.item_id]),
                               rtol=1e-12)


def test_score_function_takes_ids_from_fit():
    train = pd.DataFrame({"user_id": ["b", "a", "b"], "item_id": [7, 5, 6]})

    def fn(ids: np.ndarray) -> np.ndarray:  # items 5, 6, 7 -> scores 0, 1, 2 (+10 for "b")
        return np.arange(3.0)[None, :] + 10.0 * (ids == "b")[:, None]

    f = rv.models.ScoreFunction(fn)
    with pytest.raises(InvalidParameterError, match="users= and items="):
        f.recommend(["a"], 2)
    f.fit(train)
    assert _lists(f.recommend(["a", "b"], 2, exclude="seen")) == {"a": [7, 6], "b": [5]}
    assert f.score(pd.DataFrame({"user_id": ["b"], "item_id": [6]}))["score"].tolist() == [11.0]


@pytest.mark.parametrize("bad", [
    lambda ids: None,
    lambda ids: np.zeros(len(ids)),
    lambda ids: np.zeros((len(ids), 2)),
    lambda ids: np.full((len(ids), 3), "x"),
])
def test_score_function_bad_output_names_the_model(bad):
    f = rv.models.ScoreFunction(bad, users=[1, 2], items=[1, 2, 3])
    with pytest.raises(InvalidModelError, match="shape"):
        f.recommend([1, 2], 2)
    with pytest.raises(InvalidModelError, match="shape"):
        f.score(pd.DataFrame({"user_id": [1], "item_id": [2]}))


def test_score_function_nan_pairs_and_not_callable():
    f = rv.models.ScoreFunction(lambda ids: np.full((len(ids), 2), np.nan), users=[1],
                                items=[1, 2])
    assert len(f.recommend([1], 2)) == 0  # NaN: not a candidate
    with pytest.raises(InvalidModelError, match="NaN for 1 of the pairs"):
        f.score(pd.DataFrame({"user_id": [1], "item_id": [2]}))
    with pytest.raises(InvalidModelError, match="callable"):
        rv.models.ScoreFunction(np.zeros((2, 2)))


GOOD = {"user_factors": P, "item_factors": Q, "users": ["u", "v"], "items": [1, 2, 3]}


@pytest.mark.parametrize(("change", "error", "parameter"), [
    # shapes
    ({"user_factors": np.ones(2)}, InvalidParameterError, "user_factors"),
    ({"user_factors": np.ones((2, 2, 1))}, InvalidParameterError, "user_factors"),
    ({"item_factors": np.ones((0, 2))}, InvalidParameterError, "item_factors"),
    ({"item_factors": np.ones((3, 3))}, InvalidParameterError, "item_factors"),
    # dtypes
    ({"user_factors": np.array([["a", "b"], ["c", "d"]])}, InvalidParameterError,
     "user_factors"),
    ({"item_factors": np.ones((3, 2), dtype=bool)}, InvalidParameterError, "item_factors"),
    ({"item_factors": np.ones((3, 2), dtype=complex)}, InvalidParameterError, "item_factors"),
    ({"user_factors": np.array([[1, None], [2, 3]], dtype=object)}, NonFiniteValueError,
     "user_factors"),
    # NaN / inf
    ({"user_factors": np.array([[np.nan, 0.0], [0.0, 1.0]])}, NonFiniteValueError,
     "user_factors"),
    ({"item_factors": np.array([[1.0, np.inf], [0, 0], [0, 0]])}, NonFiniteValueError,
     "item_factors"),
    ({"item_bias": [0.0, np.nan, 0.0]}, NonFiniteValueError, "item_bias"),
    ({"user_bias": [np.inf, 0.0]}, NonFiniteValueError, "user_bias"),
    ({"global_bias": np.nan}, NonFiniteValueError, "global_bias"),
    # biases of the wrong shape or kind
    ({"item_bias": [0.0, 1.0]}, InvalidParameterError, "item_bias"),
    ({"user_bias": [[0.0, 1.0]]}, InvalidParameterError, "user_bias"),
    ({"global_bias": [1.0, 2.0]}, InvalidParameterError, "global_bias"),
    ({"global_bias": "3"}, InvalidParameterError, "global_bias"),
    ({"global_bias": True}, InvalidParameterError, "global_bias"),
    # ids
    ({"users": ["u"]}, InvalidParameterError, "users"),
    ({"items": [1, 2, 2]}, InvalidParameterError, "items"),
    ({"users": ["u", None]}, NonFiniteValueError, "users"),
    ({"items": "abc"}, InvalidParameterError, "items"),
    ({"items": [[1, 2, 3]]}, InvalidParameterError, "items"),
    # policies
    ({"unknown": "ignore"}, InvalidParameterError, "unknown"),
    ({"block_size": 0}, InvalidParameterError, "block_size"),
])
def test_bad_input_names_the_parameter(change, error, parameter):
    with pytest.raises(error) as err:
        rv.models.Factors(**{**GOOD, **change})
    assert err.value.parameter == parameter
    assert parameter in str(err.value) or "ids" in str(err.value)


def test_constructor_arguments_are_attributes():
    m = _model(block_size=7)
    assert m.users == ["u", "v"]
    assert m.global_bias == 3.0
    assert m.block_size == 7
    assert m.unknown == "error"
    assert repr(m) == ("Factors(2 users x 3 items x 2 factors, user_bias, item_bias, "
                       "global_bias=3.0)")


def test_factors_parameters_set_and_cloned() -> None:
    # p = [[1, 0]], q = [[2, 0], [0, 3]]: scores 2 and 0; global_bias=1 adds 1 to each
    model = rv.models.Factors([[1.0, 0.0]], [[2.0, 0.0], [0.0, 3.0]], users=["u"],
                              items=["a", "b"])
    assert model.get_params()["global_bias"] == 0.0
    pairs = pd.DataFrame({"user_id": ["u", "u"], "item_id": ["a", "b"]})
    assert model.score(pairs)["score"].tolist() == [2.0, 0.0]
    model.set_params(global_bias=1.0)
    assert model.score(pairs)["score"].tolist() == [3.0, 1.0]
    copy = rv.models.clone(model)
    assert copy is not model
    assert copy.score(pairs)["score"].tolist() == [3.0, 1.0]
    with pytest.raises(InvalidParameterError, match="has no parameter 'alpha'"):
        model.set_params(alpha=1)
