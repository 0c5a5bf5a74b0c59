"""ev.by(groups), activity and popularity groupings, and the per-item view."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
from receval.exceptions import (
    DataError,
    EmptyInputError,
    IdTypeMismatchError,
    InvalidParameterError,
    MissingUsersError,
)
from receval.stats import activity_groups, by_item_group, popularity_groups
from tests.frames import recs_frame, truth_frame

RECS = recs_frame({"u1": ["i1", "x", "i2"], "u2": ["i3", "y"], "u3": ["z", "i4"]})
TRUTH = truth_frame({"u1": {"i1": 1, "i2": 1}, "u2": {"i3": 1}, "u3": {"i4": 1, "i5": 1}})
METRICS = ["precision@2", "recall@2", "recall(aggregation=micro)@2"]


def test_by_group_by_hand():
    ev = rv.evaluate(RECS, TRUTH, METRICS)
    by = ev.by({"u1": "g1", "u2": "g1", "u3": "g2"})
    # recall@2: u1 hits i1 of {i1, i2} = 1/2; u2 hits i3 of {i3} = 1; u3 hits i4 of 2 = 1/2
    # g1 macro = (1/2 + 1) / 2 = .75; g1 micro = (1 + 1) / (2 + 1) = 2/3; g2 = 1/2 both
    assert by.loc["g1", "Recall@2"] == pytest.approx(0.75)
    assert by.loc["g1", "Recall(aggregation='micro')@2"] == pytest.approx(2 / 3)
    assert by.loc["g2", "Recall(aggregation='micro')@2"] == pytest.approx(0.5)
    # precision@2: every user has one hit in two -> 1/2
    assert by["Precision@2"].tolist() == pytest.approx([0.5, 0.5])
    assert by["n_users"].tolist() == [2, 1]
    assert list(by.columns) == ["n_users", *ev.labels]
    assert by.index.name == "group"


@given(st.lists(st.sampled_from("abc"), min_size=3, max_size=3))
@settings(max_examples=20, deadline=None)
def test_one_group_gives_the_overall_values(names):
    ev = rv.evaluate(RECS, TRUTH, METRICS)
    whole = ev.by(pd.Series("all", index=["u1", "u2", "u3"]))
    assert whole.loc["all", ev.labels].to_dict() == pytest.approx(ev.to_dict())
    parts = ev.by(dict(zip(["u1", "u2", "u3"], names, strict=True)))
    assert parts["n_users"].sum() == 3
    # a macro metric over groups recombines to the overall mean, weighted by group size
    total = (parts["Recall@2"] * parts["n_users"]).sum() / 3
    assert total == pytest.approx(ev["recall@2"])


def test_by_group_errors():
    ev = rv.evaluate(RECS, TRUTH, METRICS)
    with pytest.raises(MissingUsersError, match="1 users of the result have no group") as e:
        ev.by({"u1": "a", "u2": "b"})
    assert e.value.parameter == "groups"
    assert e.value.examples == ("u3",)
    with pytest.raises(InvalidParameterError) as e:
        ev.by(["u1"])
    assert e.value.parameter == "groups"
    with pytest.raises(InvalidParameterError, match="more than one group"):
        ev.by(pd.Series(["a", "b", "c", "d"], index=["u1", "u1", "u2", "u3"]))


def test_activity_groups():
    train = pd.DataFrame({"user": ["a", "b", "b", "c", "c", "c", "d", "d", "d", "d"],
                          "item": list(range(10))})
    groups = activity_groups(train, bins=2)
    # counts a 1, b 2, c 3, d 4; median 2.5 -> bins 1-2 and 3-4
    assert groups.to_dict() == {"a": "1-2", "b": "1-2", "c": "3-4", "d": "3-4"}
    assert list(groups.cat.categories) == ["1-2", "3-4"]
    with pytest.raises(InvalidParameterError) as e:
        activity_groups(train, bins=0)
    assert e.value.parameter == "bins"


def test_popularity_groups():
    train = pd.DataFrame({"user": range(7), "item": ["x", "x", "x", "y", "z", "z", "w"]})
    # counts x 3, z 2, y 1, w 1; head = ceil(.25 * 4) = 1 item (x), then ceil(.5 * 4) = 2
    assert popularity_groups(train, head=0.25).to_dict() == {
        "x": "head", "y": "tail", "z": "tail", "w": "tail"}
    assert popularity_groups(train, head=0.5).to_dict() == {
        "x": "head", "y": "tail", "z": "head", "w": "tail"}
    with pytest.raises(InvalidParameterError) as e:
        popularity_groups(train, head=1.0)
    assert e.value.parameter == "head"


def test_by_item_group_by_hand():
    groups = {"i1": "head", "i3": "head", "i2": "tail", "i4": "tail", "i5": "tail"}
    out = by_item_group(RECS, TRUTH, ["recall@2", "precision@2"], groups)
    # head truth: u1 {i1}, u2 {i3}: both found in the top 2 -> recall 1; precision 1/2 each
    assert out.loc["head", "Recall@2"] == pytest.approx(1.0)
    assert out.loc["head", "Precision@2"] == pytest.approx(0.5)
    # tail truth: u1 {i2} (rank 3: missed) 0; u3 {i4, i5}: i4 at rank 2 -> 1/2; mean 1/4
    # u2 has no tail item: skipped (no_relevant='skip')
    assert out.loc["tail", "Recall@2"] == pytest.approx(0.25)
    assert out.loc["tail", "n_users"] == 2
    assert out.loc["tail", "n_truth_rows"] == 3


def test_integer_group_labels():
    ev = rv.evaluate(RECS, TRUTH, METRICS)
    assert np.isfinite(ev.by({"u1": 1, "u2": 2, "u3": 2}).to_numpy(dtype=float)).all()


# -- classes of bad or unusual group input, at every function that takes groups -------------

INT_RECS = recs_frame({1: [10, 99, 20], 2: [30, 98], 3: [97, 40]})
INT_TRUTH = truth_frame({1: {10: 1, 20: 1}, 2: {30: 1}, 3: {40: 1, 50: 1}})


def _doors(recs, truth):
    """Every public function taking user or item groups, as f(groups)."""
    ev = rv.evaluate(recs, truth, METRICS)
    return {
        "ev.by": lambda groups: ev.by(groups),
        "stats.by_group": lambda groups: rv.stats.by_group(ev, groups),
        "stats.by_item_group": lambda groups: by_item_group(recs, truth, ["recall@2"], groups),
    }


@pytest.mark.parametrize("door", ["ev.by", "stats.by_group", "stats.by_item_group"])
@pytest.mark.parametrize(("ids", "keys", "kinds"), [
    ("str", [1, 2, 3, 4, 5], ("integer", "string")),
    ("str", [1.0, 2.0, 3.0, 4.0, 5.0], ("float", "string")),
    ("int", ["1", "2", "3", "10", "20"], ("string", "integer")),
    ("int", [1.0, 2.0, 3.0, 10.0, 20.0], ("float", "integer")),
    ("int", [True, False, True, False, True], ("bool", "integer")),
])
def test_group_ids_of_another_type_are_an_error_naming_both(door, ids, keys, kinds):
    recs, truth = (RECS, TRUTH) if ids == "str" else (INT_RECS, INT_TRUTH)
    groups = pd.Series(["a", "b", "a", "b", "a"], index=keys)
    with pytest.raises(IdTypeMismatchError) as e:
        _doors(recs, truth)[door](groups)
    assert e.value.parameter == "groups"
    assert kinds[0] in str(e.value)
    assert kinds[1] in str(e.value)
    assert "dtype" in str(e.value)


@pytest.mark.parametrize("door", ["ev.by", "stats.by_group", "stats.by_item_group"])
def test_group_ids_of_mixed_types_are_an_error(door):
    groups = pd.Series(["a", "b", "a"], index=pd.Index(["u1", 2, "i2"], dtype=object))
    with pytest.raises(IdTypeMismatchError, match="mix value types") as e:
        _doors(RECS, TRUTH)[door](groups)
    assert e.value.parameter == "groups"


@pytest.mark.parametrize("door", ["ev.by", "stats.by_group", "stats.by_item_group"])
def test_integer_ids_work_at_every_door(door):
    groups = {1: "a", 2: "b", 3: "a", 10: "a", 20: "b", 30: "a", 40: "b", 50: "a"}
    out = _doors(INT_RECS, INT_TRUTH)[door](groups)
    assert list(out.index) == ["a", "b"]
    assert out["n_users"].sum() >= 2


def test_item_groups_matching_no_truth_item_are_an_error():
    with pytest.raises(EmptyInputError, match="no truth item a group") as e:
        by_item_group(RECS, TRUTH, ["recall@2"], {"nope": "head"})
    assert e.value.parameter == "groups"


def test_item_group_without_truth_rows_is_shown_empty():
    out = by_item_group(RECS, TRUTH, ["recall@2"], {"i1": "head", "x": "tail"},
                        ungrouped="skip")
    assert out.loc["tail", "n_users"] == 0
    assert out.loc["tail", "n_truth_rows"] == 0
    assert np.isnan(out.loc["tail", "Recall@2"])


# truth: u1 {i1, i2}, u2 {i3}, u3 {i4, i5}; the groups below leave i4 and i5 (u3's 2 rows)
# without a group, by absence or by a missing label
UNGROUPED = {
    "absent": {"i1": "head", "i3": "head", "i2": "tail"},
    "None": {"i1": "head", "i3": "head", "i2": "tail", "i4": None, "i5": None},
    "NaN": pd.Series(["head", "head", "tail", np.nan, np.nan],
                     index=["i1", "i3", "i2", "i4", "i5"]),
}


@pytest.mark.parametrize("groups", list(UNGROUPED.values()), ids=list(UNGROUPED))
def test_truth_items_without_a_group_are_an_error_by_default(groups):
    with pytest.raises(DataError, match=r"^2 truth items \(2 truth rows\) have no group") as e:
        by_item_group(RECS, TRUTH, ["recall@2"], groups)
    assert (e.value.parameter, e.value.n_bad, list(e.value.examples)) == (
        "groups", 2, ["i4", "i5"])
    assert "ungrouped='skip'" in str(e.value)


@pytest.mark.parametrize("groups", list(UNGROUPED.values()), ids=list(UNGROUPED))
def test_ungrouped_skip_leaves_them_out_and_counts_them(groups):
    out = by_item_group(RECS, TRUTH, ["recall@2"], groups, ungrouped="skip")
    # head: u1 {i1} found, u2 {i3} found -> 1; tail: u1 {i2} at rank 3 -> 0; u3 in neither
    assert out["Recall@2"].to_dict() == {"head": 1.0, "tail": 0.0}
    assert out["n_truth_rows"].to_dict() == {"head": 2, "tail": 1}  # 5 rows - 2 left out
    assert out.attrs == {"ungrouped_truth_rows": 2, "ungrouped_items": 2}


def test_every_truth_item_grouped_records_none_left_out():
    groups = {"i1": "head", "i3": "head", "i2": "tail", "i4": "tail", "i5": "tail"}
    out = by_item_group(RECS, TRUTH, ["recall@2"], groups)
    assert out.attrs == {"ungrouped_truth_rows": 0, "ungrouped_items": 0}


@pytest.mark.parametrize("policy", ["drop", None, "Skip"])
def test_ungrouped_bad_policy(policy):
    with pytest.raises(InvalidParameterError, match="ungrouped must be one of") as e:
        by_item_group(RECS, TRUTH, ["recall@2"], UNGROUPED["absent"], ungrouped=policy)
    assert e.value.parameter == "ungrouped"


EMPTY_TRAIN = pd.DataFrame({"user": pd.Series([], dtype=object),
                            "item": pd.Series([], dtype=object)})


@pytest.mark.parametrize("grouping", [activity_groups, popularity_groups])
def test_groupings_of_an_empty_train_are_an_error(grouping):
    with pytest.raises(EmptyInputError, match="train is empty") as e:
        grouping(EMPTY_TRAIN)
    assert e.value.parameter == "train"


# -- the order of the groups ------------------------------------------------------------------

ORDERED = pd.CategoricalDtype(["low", "mid", "high"], ordered=True)


@pytest.mark.parametrize("groups", [
    pd.Series(pd.Categorical(["high", "low", "mid"], dtype=ORDERED), index=["u1", "u2", "u3"]),
    pd.Series(pd.Categorical(["high", "low", "mid"], categories=["low", "mid", "high"]),
              index=["u1", "u2", "u3"]),
], ids=["ordered", "unordered"])
def test_categorical_groups_keep_their_categories_order(groups):
    ev = rv.evaluate(RECS, TRUTH, METRICS)
    assert list(ev.by(groups).index) == ["low", "mid", "high"]  # not alphabetical
    items = pd.Series(pd.Categorical(["high", "low", "mid", "low", "high"],
                                     dtype=groups.dtype), index=["i1", "i2", "i3", "i4", "i5"])
    assert list(by_item_group(RECS, TRUTH, ["recall@2"], items).index) == [
        "low", "mid", "high"]


def test_numeric_groups_in_natural_order():
    ev = rv.evaluate(RECS, TRUTH, METRICS)
    assert list(ev.by({"u1": 10, "u2": 9, "u3": 100}).index) == [9, 10, 100]
    assert list(ev.by({"u1": 2.5, "u2": -1.0, "u3": 10.0}).index) == [-1.0, 2.5, 10.0]


def test_activity_groups_order_reaches_by():
    train = pd.DataFrame({"user": ["u1"] * 12 + ["u2"] * 2 + ["u3"] * 9,
                          "item": range(23)})
    groups = activity_groups(train, bins=3)
    # counts u1 12, u2 2, u3 9: bins 2, 9, 12; as strings '12' < '2' < '9'
    by = rv.evaluate(RECS, TRUTH, METRICS).by(groups)
    assert list(by.index) == ["2", "9", "12"]


@pytest.mark.parametrize("count", [1, 2, 7])
@pytest.mark.parametrize("bins", [1, 2, 4])
def test_activity_groups_when_every_user_has_the_same_count(count, bins):
    train = pd.DataFrame({"user": np.repeat(["a", "b", "c"], count),
                          "item": np.tile(np.arange(count), 3)})
    groups = activity_groups(train, bins=bins)
    assert groups.to_dict() == {"a": str(count), "b": str(count), "c": str(count)}
    assert list(groups.cat.categories) == [str(count)]


@given(st.lists(st.integers(1, 30), min_size=1, max_size=40), st.integers(1, 6))
@settings(max_examples=60, deadline=None)
def test_activity_group_labels_hold_their_users_counts(counts, bins):
    users = np.repeat(np.arange(len(counts)), counts)
    train = pd.DataFrame({"user": users, "item": np.arange(len(users))})
    groups = activity_groups(train, bins=bins)
    assert len(groups) == len(counts)
    cats = list(groups.cat.categories)
    assert 1 <= len(cats) <= bins
    assert set(groups.astype(str)) == set(cats)  # no empty bin
    bounds = [tuple(int(x) for x in c.split("-")) if "-" in c else (int(c), int(c))
              for c in cats]
    assert all(lo <= hi for lo, hi in bounds)
    assert all(a[1] < b[0] for a, b in itertools.pairwise(bounds))  # ascending
    for user, label in groups.items():
        lo, hi = bounds[cats.index(label)]
        assert lo <= counts[user] <= hi
