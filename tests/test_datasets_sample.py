"""rv.datasets.sample_ratings / sample_genres: the demo's data, public, seeded and unchanged."""

from __future__ import annotations

import os
import subprocess
import sys

import pandas as pd
import pytest

import receval as rv
from receval import _demo
from receval.exceptions import InvalidParameterError


def test_the_demo_data_is_unchanged() -> None:
    # pinned from receval._demo.sample_ratings before it moved to rv.datasets
    r = rv.datasets.sample_ratings()
    assert len(r) == 16994
    assert int(r["rating"].sum()) == 56631
    assert r.iloc[0].tolist() == [1, 1393, 3, pd.Timestamp("2024-01-02 14:35:41")]
    assert r["timestamp"].max() == pd.Timestamp("2024-12-30 23:02:33")
    small = rv.datasets.sample_ratings(120, 80, seed=2)
    assert (len(small), int(small["rating"].sum())) == (3015, 9922)


def test_shape_and_rules() -> None:
    r = rv.datasets.sample_ratings(50, 40, seed=3)
    assert r.columns.tolist() == ["user_id", "item_id", "rating", "timestamp"]
    assert r["user_id"].between(1, 50).all()
    assert r["item_id"].between(1001, 1040).all()
    assert r["rating"].isin([1, 2, 3, 4, 5]).all()
    assert not r.duplicated(["user_id", "item_id"]).any()
    assert r.groupby("user_id").size().max() <= 40 // 2
    assert (r.sort_values(["user_id", "timestamp"], ignore_index=True) == r).all().all()


def test_the_same_seed_in_another_process() -> None:
    here = rv.datasets.sample_ratings(30, 20, seed=11)
    code = ("import receval as rv; "
            "print(rv.datasets.sample_ratings(30, 20, seed=11).to_csv(index=False), end='')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={**os.environ, "PYTHONHASHSEED": "123"})
    assert out.stdout == here.to_csv(index=False)
    assert not here.equals(rv.datasets.sample_ratings(30, 20, seed=12))


def test_genres_are_the_demo_genres() -> None:
    r = rv.datasets.sample_ratings(40, 30, seed=1)
    g = rv.datasets.sample_genres(r, seed=1)
    pd.testing.assert_frame_equal(g, _demo.genres(r, 1))
    assert g["item_id"].is_monotonic_increasing
    assert g["item_id"].tolist() == sorted(r["item_id"].unique().tolist())
    assert set(g["genre"]) <= set(rv.datasets.GENRES)


@pytest.mark.parametrize(("kwargs", "parameter"), [
    ({"n_users": 0}, "n_users"), ({"n_items": 1}, "n_items"), ({"seed": -1}, "seed"),
    ({"n_users": 2.5}, "n_users"), ({"seed": True}, "seed"), ({"n_items": "40"}, "n_items")])
def test_bad_parameters(kwargs: dict[str, object], parameter: str) -> None:
    with pytest.raises(InvalidParameterError, match=parameter) as err:
        rv.datasets.sample_ratings(**kwargs)  # type: ignore[arg-type]
    assert err.value.parameter == parameter


def test_genres_need_a_frame_with_items() -> None:
    with pytest.raises(InvalidParameterError, match="item_id column") as err:
        rv.datasets.sample_genres(pd.DataFrame({"x": [1]}))
    assert err.value.parameter == "ratings"
    with pytest.raises(InvalidParameterError, match="seed"):
        rv.datasets.sample_genres(rv.datasets.sample_ratings(5, 4), seed=-2)
