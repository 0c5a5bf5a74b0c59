"""Side inputs (train=, item_features=, catalog=): read once, checked like the main tables.

Classes of bad input, each through every door that takes the side input: ids of another type
than the recommendations', missing values, multi-valued categories, empty tables.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval.exceptions import (
    EmptyInputError,
    IdTypeMismatchError,
    NonFiniteValueError,
    UndefinedMetricWarning,
)

RECS = pd.DataFrame({"user": [1, 1, 1, 2, 2], "item": [10, 11, 12, 10, 13],
                     "score": [3.0, 2.0, 1.0, 2.0, 1.0]})
TRUTH = pd.DataFrame({"user": [1, 2], "item": [10, 13]})
TRAIN = pd.DataFrame({"user": [1, 2, 3, 3], "item": [10, 11, 10, 12]})
FEATS = pd.DataFrame({"item": [10, 11, 12, 13], "genre": ["a", "b", "a|b", "c"]})


def _evaluate(metric: str, **side: Any) -> Any:
    return rv.evaluate(RECS, TRUTH, [metric], **side)


def _compare(metric: str, **side: Any) -> Any:
    return rv.compare({"a": RECS, "b": RECS.assign(score=-RECS["score"])}, TRUTH, [metric],
                      n_resamples=50, **side)


def _buckets(metric: str, **side: Any) -> Any:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        RECS.to_parquet(f"{tmp}/r.parquet")
        TRUTH.to_parquet(f"{tmp}/t.parquet")
        return rv.evaluate(f"{tmp}/r.parquet", f"{tmp}/t.parquet", [metric], buckets=2,
                           progress=False, **side)


def _explain(metric: str, **side: Any) -> Any:
    return rv.explain(metric, [10, 11, 12], **side)


DOORS: dict[str, Callable[..., Any]] = {"evaluate": _evaluate, "compare": _compare,
                                        "buckets": _buckets, "explain": _explain}


def _as_str(frame: pd.DataFrame, column: str) -> pd.DataFrame:
    return frame.assign(**{column: frame[column].astype(str)})


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize(("metric", "side", "bad"), [
    ("novelty@3", "train", lambda: _as_str(TRAIN, "item")),
    ("novelty@3", "train", lambda: _as_str(TRAIN, "user")),
    ("diversity@3", "item_features", lambda: _as_str(FEATS, "item")),
])
def test_side_input_ids_of_another_type_are_an_error(door: str, metric: str, side: str,
                                                    bad: Callable[[], pd.DataFrame]) -> None:
    good = {"train": TRAIN, "item_features": FEATS}
    with pytest.raises(IdTypeMismatchError, match=side) as info:
        DOORS[door](metric, **{**good, side: bad()})
    assert info.value.parameter == side


def test_train_of_string_user_ids_is_named() -> None:
    # the users of train: a different type from the recommendations' users
    with pytest.raises(IdTypeMismatchError, match="train: its user ids are string"):
        _evaluate("serendipity@3", train=_as_str(TRAIN, "user"))


def test_catalog_ids_of_another_type() -> None:
    with pytest.raises(IdTypeMismatchError, match="catalog"):
        _evaluate("item_coverage@3", catalog=["10", "11", "12", "13"])


def test_id_cast_applies_to_side_inputs() -> None:
    got = rv.evaluate(RECS, TRUTH, ["novelty@3"], train=_as_str(TRAIN, "item"),
                      id_cast="str")
    want = rv.evaluate(RECS, TRUTH, ["novelty@3"], train=TRAIN)
    assert got["novelty@3"] == want["novelty@3"]


@pytest.mark.parametrize("door", ["evaluate", "buckets", "explain"])
def test_missing_feature_value_in_a_long_table(door: str) -> None:
    feats = pd.DataFrame({"item": [10, 11, 12, 13], "genre": ["a", None, "a", "c"]})
    with pytest.raises(NonFiniteValueError, match=r"genre.*missing values.*11"):
        DOORS[door]("diversity@3", item_features=feats)


def test_multi_valued_categories_are_split() -> None:
    # MovieLens-style genres. Items: 10 {a}, 11 {b}, 12 {a, b}: binary vectors
    # 10 = (1, 0), 11 = (0, 1), 12 = (1, 1). Cosine: 10-11 = 0, 10-12 = 1/sqrt2,
    # 11-12 = 1/sqrt2. User 1's list (10, 11, 12): diversity = mean(1 - s) over 3 pairs
    # = (1 + 2 (1 - 1/sqrt2)) / 3 = 0.52860
    want = (1 + 2 * (1 - 1 / math.sqrt(2))) / 3
    ev = _evaluate("diversity@3", item_features=FEATS)
    assert ev.per_user.loc[1, "Diversity@3"] == pytest.approx(want, abs=1e-15)
    # read as one category per string, 'a|b' would be a third category: every pair
    # dissimilar (1.0); the same table with the categories as lists gives the split values
    whole = _evaluate("diversity@3", item_features=FEATS, item_features_sep=None)
    assert whole.per_user.loc[1, "Diversity@3"] == 1.0
    as_lists = FEATS.assign(genre=FEATS["genre"].str.split("|"))
    assert _evaluate("diversity@3", item_features=as_lists).per_user.loc[1, "Diversity@3"] \
        == ev.per_user.loc[1, "Diversity@3"]
    long = FEATS.assign(genre=FEATS["genre"].str.split("|")).explode("genre")
    assert _evaluate("diversity@3", item_features=long)["diversity@3"] == ev["diversity@3"]
    assert _explain("diversity@3", item_features=FEATS).value == \
        ev.per_user.loc[1, "Diversity@3"]


def test_other_separators() -> None:
    feats = FEATS.assign(genre=FEATS["genre"].str.replace("|", ", "))
    got = _evaluate("diversity@3", item_features=feats, item_features_sep=",")
    assert got["diversity@3"] == _evaluate("diversity@3", item_features=FEATS)["diversity@3"]


@pytest.mark.parametrize("sep", ["", 3, ["|"]])
def test_bad_separator(sep: Any) -> None:
    with pytest.raises(rv.exceptions.InvalidParameterError, match="item_features_sep"):
        _evaluate("diversity@3", item_features=FEATS, item_features_sep=sep)


@pytest.mark.parametrize("door", ["evaluate", "buckets", "compare"])
@pytest.mark.parametrize("metric", ["novelty@3", "popularity@3", "long_tail@3",
                                    "unexpectedness@3", "item_coverage(over=train)@3"])
def test_empty_train_is_named(door: str, metric: str) -> None:
    with pytest.raises(EmptyInputError, match="train is empty") as info:
        DOORS[door](metric, train=TRAIN.iloc[:0])
    assert info.value.parameter == "train"


def test_personalization_of_one_list_warns() -> None:
    one = RECS[RECS["user"] == 1]
    with pytest.warns(UndefinedMetricWarning, match="undefined"):
        ev = rv.evaluate(one, TRUTH[TRUTH["user"] == 1], ["personalization@3"])
    assert np.isnan(ev["personalization@3"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rv.evaluate(RECS, TRUTH, ["personalization@3"])
