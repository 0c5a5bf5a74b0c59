"""rv.split: hand-computed splits, reports, frame types, policies."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval.exceptions import DataError, MissingUsersError


def _log(ts: list[int], users: list[str] | None = None, items: list[str] | None = None
         ) -> pd.DataFrame:
    n = len(ts)
    return pd.DataFrame({"user_id": users or ["u"] * n,
                         "item_id": items or [f"i{j}" for j in range(n)],
                         "timestamp": ts})


# ---------------------------------------------------------------- temporal, global


def test_temporal_global_share_hand_computed():
    # 5 rows, test_size 0.4: floor(0.4 * 5 + 1/2) = floor(2.5) = 2 test rows; the 2 latest
    # times are 5 (row 1) and 4 (row 4); cut time = 4
    s = rv.split.temporal(_log([1, 5, 2, 3, 4]), test_size=0.4)
    assert s.test_rows.tolist() == [1, 4]
    assert s.train_rows.tolist() == [0, 2, 3]
    assert s.report.cut_time == 4
    assert s.report.target_test_rows == 2
    assert s.report.ties_at_cut == 0
    assert s.report.leakage_rows == 0
    assert s.report.leakage_share == 0.0


@pytest.mark.parametrize(("ties", "expected"), [
    # times [1, 2, 2, 2, 3], 2 test rows asked: cut time = 2nd latest = 2, a block of 3 rows
    ("test", [1, 2, 3, 4]),     # the whole block (rows 1-3) goes to test: 4 rows
    ("train", [4]),             # the whole block goes to train: only time 3 is later
    ("row_order", [3, 4]),      # exactly 2: time 3, then the last row of the block
])
def test_temporal_global_ties(ties, expected):
    s = rv.split.temporal(_log([1, 2, 2, 2, 3]), test_size=0.4, ties=ties)
    assert s.test_rows.tolist() == expected
    assert s.report.ties_at_cut == 1
    assert s.report.settings["ties"] == ties


def test_temporal_at_epoch_and_datetime():
    log = _log([10, 20, 30, 40])
    assert rv.split.temporal(log, at=30).test_rows.tolist() == [2, 3]
    # a fractional at= on an integer column: t >= 25.5 is t >= 26
    assert rv.split.temporal(log, at=25.5).test_rows.tolist() == [2, 3]
    dated = log.assign(timestamp=pd.to_datetime(["2024-01-01 00:00:00", "2024-05-31 23:59:59",
                                                 "2024-06-01 00:00:00", "2024-07-01 00:00:00"]))
    s = rv.split.temporal(dated, at="2024-06-01")
    assert s.test_rows.tolist() == [2, 3]
    assert s.report.cut_time == pd.Timestamp("2024-06-01")
    aware = dated.assign(timestamp=dated["timestamp"].dt.tz_localize("Europe/Madrid"))
    # 2024-06-01 00:00 in Madrid is 2024-05-31 22:00 UTC
    assert rv.split.temporal(aware, at="2024-05-31T22:00Z").test_rows.tolist() == [2, 3]


def test_temporal_per_user_leakage_and_cold_items_hand_computed():
    log = pd.DataFrame({
        "user_id": ["A", "A", "A", "A", "B", "B"],
        "item_id": ["a", "b", "c", "d", "a", "e"],
        "timestamp": [1, 2, 3, 4, 10, 11]})
    # per user, test_size 0.5: A has floor(0.5 * 4 + 1/2) = 2 test rows (times 3, 4),
    # B floor(0.5 * 2 + 1/2) = 1 (time 11)
    s = rv.split.temporal(log, test_size=0.5, per_user=True)
    assert s.test_rows.tolist() == [2, 3, 5]
    r = s.report
    # the earliest test time is 3; training times 1, 2, 10: one (B's 10) is later
    assert r.leakage_rows == 1
    # the latest training time is 10; test times 3, 4 precede it, 11 does not: 2 of 3
    assert r.leakage_share == pytest.approx(2 / 3)
    # training items a, b, a; test items c, d, e are never seen in train
    assert (r.cold_items, r.cold_item_rows) == (3, 3)
    assert (r.cold_users, r.cold_user_rows) == (0, 0)
    assert r.rows == {"input": 6, "train": 3, "test": 3, "dropped": 0}
    assert r.users == {"input": 2, "train": 2, "test": 2, "dropped": 0}
    assert r.items == {"input": 5, "train": 2, "test": 3, "dropped": 0}


# ---------------------------------------------------------------- leave-k-out


def test_leave_one_out_latest_small_users_and_ties():
    log = pd.DataFrame({
        "user_id": [1, 1, 1, 2, 3, 3, 3],
        "item_id": ["a", "b", "c", "a", "a", "b", "c"],
        "timestamp": [1, 3, 2, 5, 7, 9, 9]})
    s = rv.split.leave_k_out(log, k=1)
    # user 1: latest is time 3 (row 1); user 2 has 1 row <= k: kept in train;
    # user 3: the latest time 9 is shared by rows 5 and 6: ties="test" puts both in test
    assert s.test_rows.tolist() == [1, 5, 6]
    assert (s.report.small_users, s.report.small_user_rows) == (1, 1)
    assert s.report.ties_at_cut == 1
    exact = rv.split.leave_k_out(log, k=1, ties="row_order")
    assert exact.test_rows.tolist() == [1, 6]   # the later row of the tied block
    dropped = rv.split.leave_k_out(log, k=1, small_users="drop")
    assert dropped.dropped_rows.tolist() == [3]
    assert dropped.report.dropped_by["small_users"] == 1
    with pytest.raises(DataError, match="small_users") as err:
        rv.split.leave_k_out(log, k=1, small_users="error")
    assert err.value.examples == (2,)


def test_leave_k_out_random_takes_k_rows_of_each_user():
    rng = np.random.default_rng(3)
    log = pd.DataFrame({"user_id": rng.integers(0, 30, 600), "item_id": rng.integers(0, 50, 600)})
    s = rv.split.leave_k_out(log, k=3, order="random", seed=5)
    sizes = log.groupby("user_id").size()
    held = s.test.groupby("user_id").size()
    assert (held == 3).all()
    assert set(held.index) == set(sizes[sizes > 3].index)


# ---------------------------------------------------------------- random, kfold


def test_random_global_and_per_user_counts():
    log = pd.DataFrame({"user_id": [0] * 10 + [1], "item_id": range(11)})
    # 11 rows, test_size 0.25: floor(2.75 + 0.5) = 3 test rows
    assert len(rv.split.random(log, test_size=0.25, seed=1).test_rows) == 3
    s = rv.split.random(log, test_size=0.25, per_user=True, seed=1)
    # user 0: floor(0.25 * 10 + 1/2) = 3; user 1: floor(0.25 + 1/2) = 0 test rows -> small
    assert len(s.test_rows) == 3
    assert set(s.test["user_id"]) == {0}
    assert (s.report.small_users, s.report.settings["small_users"]) == (1, "train")


def test_random_keys_are_spark_xxhash64():
    """The keys of random splits are Spark's xxhash64, as Spark 4.3 printed them:
    ``xxhash64(7L, 0L)``, ``xxhash64(7L, 1L)`` and ``xxhash64(s)`` of strings (seed 42)."""
    from receval._kernels.hashing import SPARK_SEED, hash_positions, seed_key
    from receval.data._idhash import id_hashes

    assert hash_positions(2, seed_key(7)).tolist() == [-4457042067931036189,
                                                        3110148328363424865]
    strings = pd.Index(["", "a", "hello world", "x" * 40, "é日本"])
    assert id_hashes(strings, np.uint64(SPARK_SEED)).view(np.int64).tolist() == [
        -7444071767201028348, -8582455328737087284, 7620854247404556961,
        -5348608777870439244, 3471320912796264393]
    assert id_hashes(pd.Index([0, -5, 2**62]), np.uint64(SPARK_SEED)).view(np.int64).tolist() \
        == [-5252525462095825812, -5259934538394028452, 8973626371093010265]


def test_random_global_takes_the_rows_of_smallest_key():
    from receval._kernels.hashing import hash_positions, seed_key

    log = pd.DataFrame({"user_id": [0, 0, 1, 1, 2, 2, 2], "item_id": range(7)})
    keys = hash_positions(7, seed_key(3))  # floor(0.4 * 7 + 1/2) = 3 rows
    s = rv.split.random(log, test_size=0.4, seed=3)
    assert s.test_rows.tolist() == sorted(np.argsort(keys)[:3].tolist())


def test_per_user_random_draws_depend_only_on_the_users_own_rows():
    """Splitting some users alone gives them the same test rows as splitting everyone."""
    rng = np.random.default_rng(4)
    log = pd.DataFrame({"user_id": [f"u{u}" for u in rng.integers(0, 40, 800)],
                        "item_id": rng.integers(0, 50, 800), "row": np.arange(800)})
    some = log[log["user_id"].isin([f"u{u}" for u in range(0, 40, 3)])]
    for split in (lambda d: rv.split.random(d, 0.3, per_user=True, seed=9),
                  lambda d: rv.split.leave_k_out(d, 2, order="random", seed=9)):
        whole, part = split(log).test, split(some).test
        assert set(part["row"]) == set(whole["row"][whole["user_id"].isin(some["user_id"])])


def test_kfold_rows_and_users_cover_every_row_once():
    rng = np.random.default_rng(0)
    log = pd.DataFrame({"user_id": rng.integers(0, 20, 203), "item_id": rng.integers(0, 9, 203)})
    folds = rv.split.kfold(log, n_splits=5, seed=2)
    counts = np.zeros(len(log), dtype=int)
    for f in folds:
        counts[f.test_rows] += 1
        assert len(f.train_rows) + len(f.test_rows) == len(log)
    assert (counts == 1).all()
    assert sorted(len(f.test_rows) for f in folds) == [40, 40, 41, 41, 41]  # 203 = 40*2 + 41*3
    by_users = rv.split.kfold(log, n_splits=4, by="users", seed=2)
    for f in by_users:
        test_users = set(f.test["user_id"])
        assert not test_users & set(f.train["user_id"])
        assert f.report.cold_users == len(test_users)
    assert [f.report.settings["fold"] for f in by_users] == [0, 1, 2, 3]


# ---------------------------------------------------------------- cold policies


def test_cold_policies_drop_and_error():
    log = pd.DataFrame({"user_id": ["a", "a", "b", "c"], "item_id": ["x", "y", "x", "z"],
                        "timestamp": [1, 2, 3, 4]})
    # at=3: test rows 2 (b, x) and 3 (c, z); users b, c have no training row; item z neither
    s = rv.split.temporal(log, at=3)
    assert (s.report.cold_users, s.report.cold_user_rows) == (2, 2)
    assert (s.report.cold_items, s.report.cold_item_rows) == (1, 1)
    s = rv.split.temporal(log, at=3, cold_items="drop")
    assert s.dropped_rows.tolist() == [3]
    assert s.test_rows.tolist() == [2]
    assert s.report.rows["dropped"] == 1
    assert len(s.dropped) == 1
    with pytest.raises(MissingUsersError, match="cold_users") as err:
        rv.split.temporal(log, at=3, cold_users="error")
    assert err.value.examples == ("b", "c")


def test_repeated_pairs_counted():
    log = pd.DataFrame({"user_id": [1, 1, 1, 2, 2], "item_id": ["a", "a", "b", "a", "b"],
                        "timestamp": [1, 2, 3, 4, 5]})
    # at=2: train rows 0 (1, a); test rows (1, a), (1, b), (2, a), (2, b); only (1, a) repeats
    s = rv.split.temporal(log, at=2)
    assert s.report.repeated_test_rows == 1
    assert "repeating a training (user, item) pair: 1" in str(s.report)


# ---------------------------------------------------------------- frame types


def _typed_frame() -> pd.DataFrame:
    return pd.DataFrame({
        "user": pd.Series([3, 1, 2, 1, 3, 2], dtype="int32"),
        "item": pd.Series(["x", "y", "x", "z", "y", "z"], dtype="string"),
        "rating": [4.0, 3.5, 1.0, 5.0, 2.0, 3.0],
        "timestamp": pd.to_datetime([1, 2, 3, 4, 5, 6], unit="D"),
        "extra": pd.Categorical(["p", "q", "p", "q", "p", "q"]),
    }).set_axis([10, 11, 12, 13, 14, 15])


def test_pandas_parts_keep_columns_dtypes_index_and_input():
    frame = _typed_frame()
    before = frame.copy()
    train, test = rv.split.temporal(frame, test_size=0.5)
    assert list(train.dtypes) == list(frame.dtypes)
    assert list(test.index) == [13, 14, 15]
    pd.testing.assert_frame_equal(pd.concat([train, test]).sort_index(), frame)
    pd.testing.assert_frame_equal(frame, before)


def test_polars_and_pyarrow_parts_keep_their_type():
    pl = pytest.importorskip("polars")
    import pyarrow as pa

    frame = _typed_frame().reset_index(drop=True)
    table = pa.Table.from_pandas(frame, preserve_index=False)
    s = rv.split.random(table, test_size=0.5, seed=0)
    assert isinstance(s.train, pa.Table)
    assert s.train.schema == table.schema
    assert s.test.num_rows + s.train.num_rows == 6
    pdf = pl.from_pandas(frame)
    s2 = rv.split.random(pdf, test_size=0.5, seed=0)
    assert isinstance(s2.test, pl.DataFrame)
    assert s2.test.schema == pdf.schema
    assert s2.test_rows.tolist() == s.test_rows.tolist()  # same seed, same rows, any frame


def test_report_text_and_dict():
    s = rv.split.leave_k_out(_log([1, 2, 3]), k=1)
    d = s.report.to_dict()
    assert d["method"] == "leave_k_out"
    assert d["settings"]["columns"] == {"user": "user_id", "item": "item_id",
                                        "timestamp": "timestamp"}
    assert "leave_k_out split" in str(s.report)
    assert s.report.summary().loc["test", "rows"] == 1
    assert repr(s) == "Split(leave_k_out: train=2 rows, test=1 rows, pandas)"


def test_other_inputs(tmp_path):
    pl = pytest.importorskip("polars")
    import pyarrow as pa

    frame = _typed_frame().reset_index(drop=True)
    lazy = pl.from_pandas(frame).lazy()
    s = rv.split.leave_k_out(lazy, k=1)
    assert isinstance(s.train, pl.DataFrame)
    batch = pa.RecordBatch.from_pandas(frame, preserve_index=False)
    assert isinstance(rv.split.leave_k_out(batch, k=1).test, pa.Table)
    reader = pa.RecordBatchReader.from_batches(batch.schema, [batch])
    assert rv.split.leave_k_out(reader, k=1).test_rows.tolist() == s.test_rows.tolist()
    # a file path gives pandas parts (the file's rows, as receval reads them)
    path = tmp_path / "log.parquet"
    frame.to_parquet(path)
    from_file = rv.split.leave_k_out(str(path), k=1)
    assert isinstance(from_file.test, pd.DataFrame)
    assert from_file.test_rows.tolist() == s.test_rows.tolist()
    # a dict {user: {item: rating}} (no time): a random leave-one-out
    nested = {"u1": {"a": 5.0, "b": 3.0}, "u2": {"a": 1.0, "c": 2.0, "d": 4.0}}
    d = rv.split.leave_k_out(nested, k=1, order="random", seed=0)
    assert isinstance(d.test, pd.DataFrame)
    assert sorted(d.test["user"]) == ["u1", "u2"]
    duckdb = pytest.importorskip("duckdb")
    rel = duckdb.sql("select * from frame")
    assert rv.split.leave_k_out(rel, k=1).test_rows.tolist() == s.test_rows.tolist()


def test_string_ids_codes_follow_sorted_ids_not_input_order():
    # the same rows in another order give the same split of each (user, item) row: the draw
    # depends on the positions and on the sorted user ids, so reorder only within users
    log = pd.DataFrame({"user_id": ["b", "a", "b", "a", "c"], "item_id": list("vwxyz"),
                        "timestamp": [1, 2, 3, 4, 5]})
    one = rv.split.random(log, 0.5, per_user=True, seed=3)
    two = rv.split.random(log.astype({"user_id": "category"}), 0.5, per_user=True, seed=3)
    assert one.test_rows.tolist() == two.test_rows.tolist()


@pytest.mark.slow
def test_threaded_kernels_equal_the_serial_ones():
    from receval._kernels import splitting as S
    from receval._kernels._jit import PARALLEL_MIN
    from receval._kernels.grouping import counting_order

    n = PARALLEL_MIN + 5_000
    rng = np.random.default_rng(0)
    user = rng.integers(0, 3_000, n).astype(np.int32)
    item = rng.integers(0, 500, n).astype(np.int32)
    ts = rng.integers(0, 50, n).astype(np.int64)
    order, bounds = counting_order(user, 3_000)
    n_test = np.full(3_000, 7, dtype=np.int64)
    for mode in (S.TIES_TEST, S.TIES_TRAIN, S.TIES_ROW_ORDER):
        mask, tied = S.latest_in_groups(order, bounds, ts, n_test, mode)
        m2, t2 = np.zeros(n, dtype=np.bool_), np.zeros(3_000, dtype=np.bool_)
        S._latest_range(0, 3_000, order, bounds, ts, n_test, mode, m2, t2)
        assert np.array_equal(mask, m2)
        assert np.array_equal(tied, t2)
    keys = rng.integers(0, 2**63, 3_000).astype(np.uint64)  # one key per user
    m3 = np.zeros(n, dtype=np.bool_)
    S._random_range(0, 3_000, order, bounds, keys, n_test, m3)
    assert np.array_equal(S.random_in_groups(order, bounds, keys, n_test), m3)
    part = mask.astype(np.uint8)
    seen = np.full(500, -1, dtype=np.int64)
    assert S.repeated_pairs(order, bounds, part, item, 500) == S._repeated_range(
        0, 3_000, order, bounds, part, item, seen)
