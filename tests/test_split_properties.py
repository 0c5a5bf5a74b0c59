"""rv.split: properties of every splitter on random logs (hypothesis), and the report against
a naive pandas computation."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import receval as rv
from tests.strategies import examples

pytestmark = pytest.mark.slow  # hypothesis: several seconds per test

SETTINGS = settings(max_examples=examples(40), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
SHARES = st.sampled_from([0.1, 0.2, 0.25, 0.3, 1 / 3, 0.5, 0.7, 0.9])


@st.composite
def logs(draw: st.DrawFn, min_rows: int = 1) -> pd.DataFrame:
    """Interaction logs: 1-8 users (ints or strings), 1-10 items, times with many ties."""
    n = draw(st.integers(min_rows, 60))
    string_ids = draw(st.booleans())
    users = draw(st.lists(st.integers(0, 7), min_size=n, max_size=n))
    items = draw(st.lists(st.integers(0, 9), min_size=n, max_size=n))
    times = draw(st.lists(st.integers(0, draw(st.sampled_from([3, 20, 1000]))),
                          min_size=n, max_size=n))
    log = pd.DataFrame({
        "user_id": [f"u{u}" for u in users] if string_ids else users,
        "item_id": [f"i{i}" for i in items] if string_ids else items,
        "timestamp": times,
        "extra": np.arange(n, dtype=np.float32),
    })
    if draw(st.booleans()):
        log["timestamp"] = pd.to_datetime(log["timestamp"], unit="h")
    return log


def _bounds(f: float, n: int) -> tuple[int, int]:
    exact = Fraction(f) * n
    return math.floor(exact), math.ceil(exact)


def _check_partition(log: pd.DataFrame, s: rv.split.Split) -> None:
    rows = np.concatenate([s.train_rows, s.test_rows, s.dropped_rows])
    assert np.array_equal(np.sort(rows), np.arange(len(log)))
    for part, idx in ((s.train, s.train_rows), (s.test, s.test_rows), (s.dropped, s.dropped_rows)):
        pd.testing.assert_frame_equal(part, log.iloc[idx])
    assert s.report.rows["train"] == len(s.train_rows)
    assert s.report.rows["test"] == len(s.test_rows)


def _naive_report(log: pd.DataFrame, s: rv.split.Split) -> None:
    """Sizes, cold counts and leakage recomputed with plain pandas."""
    train, test = log.iloc[s.train_rows], log.iloc[s.test_rows]
    r = s.report
    for name, part in (("train", train), ("test", test), ("dropped", log.iloc[s.dropped_rows])):
        assert r.users[name] == part["user_id"].nunique()
        assert r.items[name] == part["item_id"].nunique()
    if r.dropped_by.get("cold_users", 0) == 0 and r.dropped_by.get("cold_items", 0) == 0:
        cold_u = ~test["user_id"].isin(set(train["user_id"]))
        cold_i = ~test["item_id"].isin(set(train["item_id"]))
        assert r.cold_user_rows == int(cold_u.sum())
        assert r.cold_users == test.loc[cold_u, "user_id"].nunique()
        assert r.cold_item_rows == int(cold_i.sum())
        assert r.cold_items == test.loc[cold_i, "item_id"].nunique()
    train_pairs = set(zip(train["user_id"], train["item_id"], strict=True))
    assert r.repeated_test_rows == sum(
        pair in train_pairs for pair in zip(test["user_id"], test["item_id"], strict=True))
    if len(test) and len(train):
        assert r.leakage_rows == int((train["timestamp"] > test["timestamp"].min()).sum())
        assert r.leakage_share == pytest.approx(
            float((test["timestamp"] < train["timestamp"].max()).mean()))
    first_test = test.groupby("user_id")["timestamp"].min().rename("first").reset_index()
    own = train[["user_id", "timestamp"]].merge(first_test, on="user_id")  # users with tests
    assert r.user_leakage_rows == int((own["timestamp"] > own["first"]).sum())


def _check_time_order(log: pd.DataFrame, s: rv.split.Split, strict: bool, per_user: bool
                      ) -> None:
    train, test = log.iloc[s.train_rows], log.iloc[s.test_rows]
    groups = [(train, test)] if not per_user else [
        (train[train["user_id"] == u], test[test["user_id"] == u])
        for u in test["user_id"].unique()]
    for tr, te in groups:
        if len(tr) and len(te):
            first, last = te["timestamp"].min(), tr["timestamp"].max()
            assert first > last if strict else first >= last


@SETTINGS
@given(log=logs(min_rows=2), f=SHARES, seed=st.integers(0, 2**32))
def test_random_global(log, f, seed):
    lo, hi = _bounds(f, len(log))
    try:
        s = rv.split.random(log, test_size=f, seed=seed)
    except rv.exceptions.EmptyInputError:  # a share that leaves a part empty is an error
        assert math.floor(f * len(log) + 0.5) in (0, len(log))
        return
    _check_partition(log, s)
    assert lo <= len(s.test_rows) <= hi
    _naive_report(log, s)


@SETTINGS
@given(log=logs(), f=SHARES, seed=st.integers(0, 2**32),
       small=st.sampled_from(["train", "drop"]))
def test_random_per_user(log, f, seed, small):
    s = rv.split.random(log, test_size=f, per_user=True, seed=seed, small_users=small)
    _check_partition(log, s)
    test_counts = log.iloc[s.test_rows].groupby("user_id").size()
    n_small = 0
    for user, n_u in log.groupby("user_id").size().items():
        lo, hi = _bounds(f, n_u)
        got = int(test_counts.get(user, 0))
        share = math.floor(f * n_u + 0.5)
        if share == 0 or share == n_u:  # too small: all in train, or all dropped
            n_small += 1
            assert got == 0
            where = s.train_rows if small == "train" else s.dropped_rows
            assert (log.iloc[where]["user_id"] == user).sum() == n_u
        else:
            assert lo <= got <= hi
    assert s.report.small_users == n_small
    _naive_report(log, s)


@SETTINGS
@given(log=logs(min_rows=2), f=SHARES, ties=st.sampled_from(["test", "train", "row_order"]))
def test_temporal_global(log, f, ties):
    try:
        s = rv.split.temporal(log, test_size=f, ties=ties)
    except rv.exceptions.EmptyInputError:
        return  # the share rounds to an empty part, or the tie block empties one
    _check_partition(log, s)
    _check_time_order(log, s, strict=ties != "row_order", per_user=False)
    lo, hi = _bounds(f, len(log))
    test_ts = log.iloc[s.test_rows]["timestamp"]
    n_test = len(test_ts)
    if ties == "row_order":
        assert lo <= n_test <= hi
    elif ties == "test":  # the whole block at the cut is in test; without it, too few rows
        assert n_test >= lo
        assert int((test_ts > test_ts.min()).sum()) <= hi - 1
    else:  # the whole block is in train; with it, too many
        assert n_test <= hi
        train_ts = log.iloc[s.train_rows]["timestamp"]
        assert n_test + int((train_ts == train_ts.max()).sum()) >= lo
    _naive_report(log, s)


@SETTINGS
@given(log=logs(), f=SHARES, ties=st.sampled_from(["test", "train", "row_order"]))
def test_temporal_per_user(log, f, ties):
    s = rv.split.temporal(log, test_size=f, per_user=True, ties=ties)
    _check_partition(log, s)
    _check_time_order(log, s, strict=ties != "row_order", per_user=True)
    if ties == "row_order":
        test_counts = log.iloc[s.test_rows].groupby("user_id").size()
        for user, n_u in log.groupby("user_id").size().items():
            share = math.floor(f * n_u + 0.5)
            expected = 0 if share in (0, n_u) else share
            assert int(test_counts.get(user, 0)) == expected
    _naive_report(log, s)


@SETTINGS
@given(log=logs(), data=st.data())
def test_temporal_at(log, data):
    at_row = data.draw(st.integers(0, len(log) - 1))
    at = log["timestamp"].iloc[at_row]
    at = str(at) if isinstance(at, pd.Timestamp) else int(at)
    expected = np.flatnonzero((log["timestamp"] >= pd.Timestamp(at)
                               if isinstance(at, str) else log["timestamp"] >= at).to_numpy())
    if len(expected) in (0, len(log)):  # one rule for every global cut: both parts need a row
        with pytest.raises(rv.exceptions.EmptyInputError, match="would be empty"):
            rv.split.temporal(log, at=at)
        return
    s = rv.split.temporal(log, at=at)
    _check_partition(log, s)
    assert np.array_equal(s.test_rows, expected)
    _naive_report(log, s)


@SETTINGS
@given(log=logs(), k=st.integers(1, 4), how=st.sampled_from(["latest", "random"]),
       seed=st.integers(0, 2**32))
def test_leave_k_out(log, k, how, seed):
    ties = "row_order" if how == "latest" else "test"
    s = rv.split.leave_k_out(log, k=k, order=how, seed=seed, ties=ties)
    _check_partition(log, s)
    sizes = log.groupby("user_id").size()
    held = log.iloc[s.test_rows].groupby("user_id").size()
    for user, n_u in sizes.items():
        assert int(held.get(user, 0)) == (k if n_u > k else 0)
    assert s.report.small_users == int((sizes <= k).sum())
    assert s.report.small_user_rows == int(sizes[sizes <= k].sum())
    if how == "latest":
        _check_time_order(log, s, strict=False, per_user=True)
    _naive_report(log, s)


@SETTINGS
@given(log=logs(min_rows=2), data=st.data(), by=st.sampled_from(["rows", "users"]),
       seed=st.integers(0, 2**32))
def test_kfold_coverage(log, data, by, seed):
    n_keys = len(log) if by == "rows" else log["user_id"].nunique()
    if n_keys < 2:
        return
    n_splits = data.draw(st.integers(2, min(n_keys, 6)))
    folds = rv.split.kfold(log, n_splits=n_splits, by=by, seed=seed)
    assert len(folds) == n_splits
    seen = np.zeros(len(log), dtype=int)
    for f in folds:
        _check_partition(log, f)
        seen[f.test_rows] += 1
        if by == "users":
            assert not set(f.test["user_id"]) & set(f.train["user_id"])
        _naive_report(log, f)
    assert (seen == 1).all()
    sizes = [len(f.test_rows) if by == "rows" else f.report.users["test"] for f in folds]
    assert max(sizes) - min(sizes) <= 1


@SETTINGS
@given(log=logs(), f=SHARES, seed=st.integers(0, 2**32),
       frame=st.sampled_from(["polars", "pyarrow"]))
def test_frame_type_and_dtypes_kept(log, f, seed, frame):
    import pyarrow as pa

    table = pa.Table.from_pandas(log, preserve_index=False)
    if frame == "polars":
        pl = pytest.importorskip("polars")
        data = pl.from_arrow(table)
    else:
        data = table
    s = rv.split.random(data, test_size=f, per_user=True, seed=seed)
    ref = rv.split.random(log, test_size=f, per_user=True, seed=seed)
    assert np.array_equal(s.test_rows, ref.test_rows)
    for part in (s.train, s.test, s.dropped):
        assert type(part) is type(data)
        assert part.schema == data.schema
    got = s.test.to_pandas()
    assert got["extra"].tolist() == log.iloc[s.test_rows]["extra"].tolist()


@SETTINGS
@given(log=logs(min_rows=2), f=SHARES, seed=st.integers(0, 2**32),
       cold=st.sampled_from([("drop", "keep"), ("keep", "drop"), ("drop", "drop")]))
def test_cold_drop_policies_account_for_every_row(log, f, seed, cold):
    kept = rv.split.random(log, test_size=f, seed=seed, per_user=True)
    s = rv.split.random(log, test_size=f, seed=seed, per_user=True, cold_users=cold[0],
                        cold_items=cold[1])
    _check_partition(log, s)
    assert np.array_equal(s.train_rows, kept.train_rows)
    train, test = log.iloc[kept.train_rows], log.iloc[kept.test_rows]
    cold_u = ~test["user_id"].isin(set(train["user_id"])) if cold[0] == "drop" else False
    cold_i = ~test["item_id"].isin(set(train["item_id"])) if cold[1] == "drop" else False
    gone = test.index[cold_u | cold_i].to_numpy()
    assert np.array_equal(s.dropped_rows, np.sort(gone))
    assert sum(s.report.dropped_by.values()) == len(gone)
    assert s.report.cold_user_rows == kept.report.cold_user_rows  # counted before dropping
    _naive_report(log, s)


# ----------------------------------------------------------------- reproducibility

_SCRIPT = """
import json, sys
import numpy as np, pandas as pd, receval as rv
rng = np.random.default_rng(1)
log = pd.DataFrame({"user_id": [f"user-{u}" for u in rng.integers(0, 40, 400)],
                    "item_id": [f"item-{i}" for i in rng.integers(0, 60, 400)],
                    "timestamp": rng.integers(0, 50, 400)})
seed = int(sys.argv[1])
out = {
    "random": rv.split.random(log, 0.2, seed=seed).test_rows.tolist(),
    "random_pu": rv.split.random(log, 0.2, per_user=True, seed=seed).test_rows.tolist(),
    "loo": rv.split.leave_k_out(log, 2, order="random", seed=seed).test_rows.tolist(),
    "kfold_rows": [f.test_rows.tolist() for f in rv.split.kfold(log, 3, seed=seed)],
    "kfold_users": [f.test_rows.tolist() for f in rv.split.kfold(log, 3, by="users",
                                                                  seed=seed)],
}
print(json.dumps(out))
"""


def _run(seed: int, hashseed: str) -> dict[str, list[int]]:
    src = str(Path(__file__).resolve().parents[1] / "src")
    env = {**os.environ, "PYTHONHASHSEED": hashseed,
           "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run([sys.executable, "-c", _SCRIPT, str(seed)], env=env, check=True,
                          capture_output=True, text=True, timeout=300)
    return json.loads(done.stdout)


@pytest.mark.slow
def test_same_seed_same_split_in_fresh_processes_any_hashseed():
    a = _run(7, "1")
    b = _run(7, "12345")
    assert a == b
    c = _run(8, "1")
    for key in a:
        assert a[key] != c[key], key
