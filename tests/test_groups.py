"""ev.by(groups), activity and popularity groupings, and the per-item view."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
from receval.exceptions import InvalidParameterError, MissingUsersError
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
