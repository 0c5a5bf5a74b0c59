"""rv.split: every bad input raises a RecevalError naming the parameter (or column) and value."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval.exceptions import (
    ColumnNotFoundError,
    DataError,
    EmptyInputError,
    IdTypeMismatchError,
    InvalidParameterError,
    NonFiniteValueError,
    SchemaError,
)


@pytest.fixture
def log() -> pd.DataFrame:
    return pd.DataFrame({"user_id": [1, 1, 1, 2, 2, 2], "item_id": [1, 2, 3, 1, 2, 4],
                         "timestamp": [1, 2, 3, 4, 5, 6]})


@pytest.mark.parametrize("bad", [0, 1, -0.1, 1.5, 0.0, 1.0, "0.2", True, None, float("nan")])
@pytest.mark.parametrize("splitter", ["random", "temporal"])
def test_test_size_outside_0_1(log, bad, splitter):
    with pytest.raises(InvalidParameterError, match="test_size") as err:
        getattr(rv.split, splitter)(log, test_size=bad)
    assert err.value.parameter == "test_size"


@pytest.mark.parametrize("bad", [1, 0, -3, 2.5, "5", True])
def test_n_splits_below_2_or_not_an_integer(log, bad):
    with pytest.raises(InvalidParameterError, match="n_splits") as err:
        rv.split.kfold(log, n_splits=bad)
    assert err.value.parameter == "n_splits"


def test_n_splits_more_than_rows_or_users(log):
    with pytest.raises(InvalidParameterError, match=r"n_splits=7 is more than the 6 rows"):
        rv.split.kfold(log, n_splits=7)
    with pytest.raises(InvalidParameterError, match=r"n_splits=3 is more than the 2 users"):
        rv.split.kfold(log, n_splits=3, by="users")


@pytest.mark.parametrize("bad", [0, -1, 1.5, "1", None])
def test_k_below_1(log, bad):
    with pytest.raises(InvalidParameterError, match="k must be an integer") as err:
        rv.split.leave_k_out(log, k=bad)
    assert err.value.parameter == "k"


@pytest.mark.parametrize(("splitter", "kwargs", "parameter"), [
    ("leave_k_out", {"order": "oldest"}, "order"),
    ("kfold", {"by": "items"}, "by"),
    ("temporal", {"test_size": 0.2, "ties": "random"}, "ties"),
    ("leave_k_out", {"ties": "earliest"}, "ties"),
    ("random", {"cold_users": "ignore"}, "cold_users"),
    ("kfold", {"cold_items": "skip"}, "cold_items"),
    ("leave_k_out", {"small_users": "test"}, "small_users"),
    ("random", {"per_user": True, "small_users": "keep"}, "small_users"),
])
def test_unknown_choices(log, splitter, kwargs, parameter):
    with pytest.raises(InvalidParameterError, match=parameter) as err:
        getattr(rv.split, splitter)(log, **kwargs)
    assert err.value.parameter == parameter
    assert err.value.examples == (kwargs[parameter],)


@pytest.mark.parametrize("bad", [-1, 1.5, None, "0", True, 2**63])
def test_seed_must_be_a_non_negative_integer(log, bad):
    with pytest.raises(InvalidParameterError, match="seed") as err:
        rv.split.random(log, seed=bad)
    assert err.value.parameter == "seed"


def test_temporal_without_timestamp_column(log):
    no_time = log.drop(columns="timestamp")
    with pytest.raises(ColumnNotFoundError, match="temporal split needs a timestamp column"):
        rv.split.temporal(no_time, test_size=0.2)
    with pytest.raises(ColumnNotFoundError, match=r"leave_k_out\(order='latest'\) needs"):
        rv.split.leave_k_out(no_time)
    # random orders need no time, and then the report says leakage was not measured
    s = rv.split.leave_k_out(no_time, order="random")
    assert s.report.leakage_rows is None
    assert "not measured" in str(s.report)
    with pytest.raises(ColumnNotFoundError, match="'when'"):
        rv.split.temporal(log, test_size=0.2, columns={"timestamp": "when"})


def test_nan_and_missing_timestamps(log):
    nan = log.assign(timestamp=[1.0, np.nan, 3.0, 4.0, np.nan, 6.0])
    with pytest.raises(NonFiniteValueError, match=r"'timestamp' has 2 missing values") as err:
        rv.split.temporal(nan, test_size=0.5)
    assert err.value.examples == (1, 4)
    nat = log.assign(timestamp=pd.to_datetime(["2024-01-01", None, "2024-01-03", "2024-01-04",
                                               "2024-01-05", "2024-01-06"]))
    with pytest.raises(NonFiniteValueError, match="timestamp"):
        rv.split.leave_k_out(nat)
    # a random split does not need the time, but a NaN in it would falsify the leakage
    with pytest.raises(NonFiniteValueError, match="timestamp"):
        rv.split.random(nan)


def test_timestamp_of_the_wrong_type(log):
    text = log.assign(timestamp=["2024-01-0" + str(i) for i in range(1, 7)])
    with pytest.raises(SchemaError, match=r"must hold numbers .* or datetimes"):
        rv.split.temporal(text, test_size=0.5)


def test_at_of_the_wrong_kind(log):
    with pytest.raises(InvalidParameterError, match="must be a number") as err:
        rv.split.temporal(log, at="2024-06-01")
    assert err.value.parameter == "at"
    dated = log.assign(timestamp=pd.date_range("2024-01-01", periods=6, freq="D"))
    with pytest.raises(InvalidParameterError, match="is a number, but"):
        rv.split.temporal(dated, at=3)
    with pytest.raises(InvalidParameterError, match="not a date"):
        rv.split.temporal(dated, at="yesterday-ish")
    with pytest.raises(InvalidParameterError, match="zone-aware"):
        rv.split.temporal(dated, at="2024-01-03T00:00+02:00")
    aware = dated.assign(timestamp=dated["timestamp"].dt.tz_localize("UTC"))
    with pytest.raises(InvalidParameterError, match="naive"):
        rv.split.temporal(aware, at="2024-01-03")


def test_test_size_and_at_exclusive(log):
    with pytest.raises(InvalidParameterError, match="exactly one of test_size"):
        rv.split.temporal(log)
    with pytest.raises(InvalidParameterError, match="exactly one of test_size"):
        rv.split.temporal(log, test_size=0.2, at=3)
    with pytest.raises(InvalidParameterError, match="per_user") as err:
        rv.split.temporal(log, at=3, per_user=True)
    assert err.value.parameter == "per_user"


@pytest.mark.parametrize(("kwargs", "parameter"), [
    ({"small_users": "drop"}, "small_users"), ({"min_rows": 3}, "min_rows")])
def test_per_user_options_on_global_splits(log, kwargs, parameter):
    with pytest.raises(InvalidParameterError, match="per-user splits") as err:
        rv.split.random(log, **kwargs)
    assert err.value.parameter == parameter
    with pytest.raises(InvalidParameterError, match="per-user splits"):
        rv.split.temporal(log, test_size=0.5, **kwargs)


@pytest.mark.parametrize("bad", [0, -2, 2.5])
def test_min_rows(log, bad):
    with pytest.raises(InvalidParameterError, match="min_rows") as err:
        rv.split.leave_k_out(log, min_rows=bad)
    assert err.value.parameter == "min_rows"


def test_empty_parts_and_empty_input(log):
    with pytest.raises(EmptyInputError, match=r"test_size=0.05 of 6 rows gives 0 test rows"):
        rv.split.random(log, test_size=0.05)
    with pytest.raises(EmptyInputError, match="gives 6 test rows and 0 training"):
        rv.split.temporal(log, test_size=0.95)
    same_time = log.assign(timestamp=1)
    with pytest.raises(EmptyInputError, match="leaves the train part empty") as err:
        rv.split.temporal(same_time, test_size=0.5)
    assert err.value.parameter == "ties"
    with pytest.raises(EmptyInputError, match="no rows to split"):
        rv.split.random(log.iloc[:0])


def test_bad_ids(log):
    with pytest.raises(NonFiniteValueError, match="user id column 'user_id' has 1 missing"):
        rv.split.random(log.assign(user_id=[1, None, 1, 2, 2, 2]))
    mixed = log.assign(item_id=pd.Series([1, "2", 3, 1, 2, 4], dtype=object))
    with pytest.raises(IdTypeMismatchError, match="mixes value types"):
        rv.split.random(mixed)


def test_unsupported_data_and_missing_columns(log):
    with pytest.raises(InvalidParameterError, match="data must be a table") as err:
        rv.split.random([1, 2, 3])
    assert err.value.parameter == "data"
    with pytest.raises(ColumnNotFoundError, match="no user column"):
        rv.split.random(log.rename(columns={"user_id": "who"}))
    s = rv.split.random(log.rename(columns={"user_id": "who"}), columns={"user": "who"})
    assert s.report.settings["columns"]["user"] == "who"


def test_cold_items_error_names_the_items(log):
    with pytest.raises(DataError, match="cold_items='error'") as err:
        rv.split.temporal(log, at=3, cold_items="error")
    assert err.value.parameter == "cold_items"
    assert err.value.examples == (3, 4)


def test_errors_are_value_errors(log):
    with pytest.raises(ValueError, match="test_size"):
        rv.split.random(log, test_size=2)


# --- issue 22: the 'error' policies name the keys; one rule for empty global parts ---------

#: Eight users: user u has u rows (1..8), item ids u*10 + i; times increase within users.
MANY = pd.DataFrame([(u, u * 10 + i, u * 100 + i) for u in range(1, 9) for i in range(u)],
                    columns=["user_id", "item_id", "timestamp"])

SMALL = {  # splitter -> (kwargs, the small users it must name)
    "random": ({"test_size": 0.2, "per_user": True}, [1, 2]),
    "temporal": ({"test_size": 0.2, "per_user": True}, [1, 2]),
    "leave_k_out": ({"k": 2}, [1, 2]),
    "leave_k_out min_rows": ({"k": 1, "min_rows": 7}, [1, 2, 3, 4, 5, "... (6 in all)"]),
}


@pytest.mark.parametrize("case", list(SMALL))
def test_small_users_error_names_up_to_five(case):
    kwargs, named = SMALL[case]
    fn = getattr(rv.split, case.split()[0])
    with pytest.raises(DataError, match="small_users='error'") as err:
        fn(MANY, small_users="error", **kwargs)
    shown = ", ".join(str(u) if isinstance(u, int) else u for u in named)
    assert f"{': ' + shown}; and small_users='error'" in str(err.value)
    assert list(err.value.examples) == [u for u in named if isinstance(u, int)][:5]


COLD = {  # splitter -> kwargs; every item is cold (each row has its own item)
    "random": {"test_size": 0.3},
    "random per user": {"test_size": 0.5, "per_user": True},
    "temporal": {"test_size": 0.3},
    "temporal at": {"at": 650},
    "temporal per user": {"test_size": 0.5, "per_user": True},
    "leave_k_out": {"k": 1},
    "kfold": {"n_splits": 3},
}


@pytest.mark.parametrize("role", ["item", "user"])
@pytest.mark.parametrize("case", list(COLD))
def test_cold_error_names_up_to_five(case, role):
    fn = getattr(rv.split, case.split()[0])
    kwargs = dict(COLD[case])
    if role == "user" and case not in ("temporal", "temporal at", "kfold"):
        kwargs["cold_items"] = "keep"  # these splits keep every user in train: no cold user
        data = MANY.assign(user_id=range(len(MANY)))  # one row per user: every test user cold
        if "per user" in case or case == "leave_k_out":
            return _no_cold_users(fn, data, kwargs)
    else:
        data = MANY
    if case == "kfold" and role == "user":
        kwargs["by"] = "users"
    with pytest.raises(DataError, match=f"cold_{role}s='error'") as err:
        fn(data, **{f"cold_{role}s": "error"}, **kwargs)
    message, examples = str(err.value), list(err.value.examples)
    assert examples
    assert len(examples) <= 5
    assert f"have no training row (cold {role}s): {examples[0]!r}" in message
    assert err.value.n_bad is not None
    if err.value.n_bad > 5:
        assert f"({err.value.n_bad} in all)" in message


def _no_cold_users(fn, data, kwargs):
    """A per-user split keeps one-row users wholly in train: no cold user to name."""
    s = fn(data, cold_users="error", **kwargs)
    assert s.report.cold_users == 0


@pytest.mark.parametrize(("kwargs", "empty"), [
    ({"at": 1000}, "test"), ({"at": 809}, "test"),
    ({"at": 100}, "train"), ({"at": -5}, "train"),
    ({"test_size": 0.01}, "test"), ({"test_size": 0.99}, "train"),
])
def test_a_global_cut_that_empties_a_part_is_an_error(kwargs, empty):
    """temporal(at=) after the last time returned an empty test part; a share was an error."""
    with pytest.raises(EmptyInputError) as err:
        rv.split.temporal(MANY, **kwargs)
    message = str(err.value)
    if "at" in kwargs:
        assert f"the {empty} part would be empty" in message
        assert "choose a time between 100 and 807" in message
        assert err.value.parameter == "at"
    else:
        assert f"0 {'test' if empty == 'test' else 'training'} rows" in message


def test_the_same_rule_from_the_command_line(tmp_path):
    from click.testing import CliRunner

    from receval.cli import cli

    path = tmp_path / "log.csv"
    MANY.to_csv(path, index=False)
    out = CliRunner().invoke(cli, ["split", str(path), "--method", "temporal", "--at", "1000",
                                   "-o", str(tmp_path / "tr.csv"), "-o", str(tmp_path / "te.csv")])
    assert out.exit_code == 2
    assert "at=1000 is after the latest time 807" in out.output
    assert not (tmp_path / "tr.csv").exists()


def test_per_user_leakage_hand_computed():
    log = pd.DataFrame({"user_id": [1, 1, 1, 2, 2, 3], "item_id": [1, 2, 3, 1, 2, 1],
                        "timestamp": [10, 20, 30, 15, 25, 40]})
    # per user latest: test user 1 t=20, 30 and user 2 t=25; train 10, 15 and 40 (user 3: small)
    s = rv.split.temporal(log, test_size=0.5, per_user=True)
    assert s.test_rows.tolist() == [1, 2, 4]  # user 1: floor(1.5 + .5) = 2 rows: 20, 30
    # global: train rows later than min test time 20: 40 -> 1; per user: none
    assert (s.report.leakage_rows, s.report.user_leakage_rows) == (1, 0)
    assert "leakage, per user: 0 training rows" in str(s.report)
    # a global random split: user 1's test row t=10 precedes its training rows 20 and 30
    r = rv.split.random(log, test_size=0.5, seed=3)
    train, test = log.iloc[r.train_rows], log.iloc[r.test_rows]
    expected = sum(int((train.loc[train.user_id == u, "timestamp"] > t).sum())
                   for u, t in test.groupby("user_id")["timestamp"].min().items())
    assert r.report.user_leakage_rows == expected
    no_time = rv.split.random(log.drop(columns="timestamp"), test_size=0.5)
    assert no_time.report.user_leakage_rows is None
