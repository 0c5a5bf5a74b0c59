"""rv.split.rolling: hand-computed windows, every input kind, the report, bad input, and
cross-validation / comparison over the windows."""

from __future__ import annotations

import datetime

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

import receval as rv
from receval.exceptions import (
    ColumnNotFoundError,
    EmptyInputError,
    InvalidParameterError,
    NonFiniteValueError,
)
from receval.split._rolling import MAX_WINDOWS


@pytest.fixture
def log() -> pd.DataFrame:
    """Two users, times 1..8; user 2 starts at time 2; item e appears only at time 8."""
    return pd.DataFrame({"user_id": [1, 2, 1, 2, 1, 2, 1, 2],
                         "item_id": list("abcabcde"),
                         "rating": [5, 4, 3, 5, 2, 4, 1, 3],
                         "timestamp": [1, 2, 3, 4, 5, 6, 7, 8]})


def _times(windows: list[rv.split.Split], part: str) -> list[list[int]]:
    return [getattr(w, part)["timestamp"].tolist() for w in windows]


def test_expanding_windows(log: pd.DataFrame) -> None:
    # origins 3, 5, 7 (the next, 9, is after the last time 8); horizon = step = 2
    windows = rv.split.rolling(log, start=3, step=2)
    assert [w.report.cut_time for w in windows] == [3, 5, 7]
    assert _times(windows, "test") == [[3, 4], [5, 6], [7, 8]]
    assert _times(windows, "train") == [[1, 2], [1, 2, 3, 4], [1, 2, 3, 4, 5, 6]]
    assert _times(windows, "dropped") == [[5, 6, 7, 8], [7, 8], []]
    assert [w.report.dropped_by["after_test"] for w in windows] == [4, 2, 0]
    assert all("before_window" not in w.report.dropped_by for w in windows)


def test_fixed_windows(log: pd.DataFrame) -> None:
    # window 3: train [o - 3, o); origins 4, 6, 8
    windows = rv.split.rolling(log, start=4, step=2, window=3)
    assert _times(windows, "train") == [[1, 2, 3], [3, 4, 5], [5, 6, 7]]
    assert _times(windows, "test") == [[4, 5], [6, 7], [8]]
    assert [w.report.dropped_by["before_window"] for w in windows] == [0, 2, 4]
    assert [w.report.settings["train_start"] for w in windows] == [1, 3, 5]
    assert [w.report.settings["test_end"] for w in windows] == [6, 8, 10]


def test_horizon_shorter_and_longer_than_step(log: pd.DataFrame) -> None:
    gaps = rv.split.rolling(log, start=3, step=3, horizon=1)     # test times 3, 6 only
    assert _times(gaps, "test") == [[3], [6]]
    overlap = rv.split.rolling(log, start=5, step=1, horizon=3)  # origins 5..8
    assert _times(overlap, "test") == [[5, 6, 7], [6, 7, 8], [7, 8], [8]]
    assert overlap[0].report.settings["horizon"] == 3
    assert gaps[0].report.settings["horizon"] == 1


def test_a_row_at_the_origin_is_a_test_row_and_ties_stay_together() -> None:
    tied = pd.DataFrame({"user_id": [1, 2, 3, 1, 2], "item_id": [1, 1, 1, 2, 2],
                         "timestamp": [1, 2, 2, 2, 3]})
    (w,) = rv.split.rolling(tied, start=2, step=5)
    assert w.test_rows.tolist() == [1, 2, 3, 4]       # every row at time 2 is in test
    assert w.train_rows.tolist() == [0]
    pd.testing.assert_frame_equal(
        w.test, rv.split.temporal(tied, at=2).test)   # the first window is temporal(at=)


def test_the_report(log: pd.DataFrame) -> None:
    windows = rv.split.rolling(log, start=3, step=2, cold_items="drop")
    r = windows[2].report
    assert r.method == "rolling"
    assert r.settings == {"start": 3, "step": 2, "horizon": 2, "window": None, "fold": 2,
                          "n_splits": 3, "train_start": None, "origin": 7, "test_end": 9,
                          "cold_users": "keep", "cold_items": "drop",
                          "columns": {"user": "user_id", "item": "item_id",
                                      "timestamp": "timestamp"}}
    assert r.cut_time == 7
    assert r.leakage_rows == 0
    assert r.leakage_share is None                    # cold_items="drop" emptied the test
    assert windows[1].report.leakage_share == 0.0
    # window 2: test (1, d) at 7 and (2, e) at 8: d and e never occur before 7
    assert r.cold_items == 2
    assert r.dropped_by == {"small_users": 0, "cold_users": 0, "cold_items": 2, "after_test": 0}
    assert r.rows == {"input": 8, "train": 6, "test": 0, "dropped": 2}
    # window 0: test (1, c) at 3 and (2, a) at 4; c is cold and dropped
    assert repr(windows[0]) == "Split(rolling, fold 0 of 3: train=2 rows, test=1 rows, " \
        "dropped=5, pandas)"
    text = str(rv.split.rolling(log, start=3, step=2)[0].report)
    assert text.splitlines()[0].startswith("rolling split (start=3, step=2, horizon=2, ")
    assert "cut time: 3" in text
    assert "dropped: 4 rows (after_test)" in text


def test_datetime_columns_take_durations_and_calendar_offsets(log: pd.DataFrame) -> None:
    dated = log.assign(timestamp=pd.Timestamp("2024-01-01")
                       + pd.to_timedelta(log["timestamp"] * 10, unit="D"))
    # times Jan 11, Jan 21, Jan 31, Feb 10, Feb 20, Mar 1, Mar 11, Mar 21
    week = rv.split.rolling(dated, start="2024-01-31", step="20D")
    assert [str(w.report.cut_time.date()) for w in week] == ["2024-01-31", "2024-02-20",
                                                              "2024-03-11"]
    assert [len(w.test) for w in week] == [2, 2, 2]
    for step in (pd.Timedelta(days=20), datetime.timedelta(days=20), np.timedelta64(20, "D")):
        assert [w.test_rows.tolist() for w in rv.split.rolling(dated, start="2024-01-31",
                                                               step=step)] == \
            [w.test_rows.tolist() for w in week]
    # month starts, from Feb 1: Feb (Feb 10, 20), Mar (Mar 1, 11, 21)
    months = rv.split.rolling(dated, start="2024-02-01", step="MS", window="MS")
    assert [str(w.report.settings["test_end"].date()) for w in months] == ["2024-03-01",
                                                                            "2024-04-01"]
    assert [len(w.test) for w in months] == [2, 3]
    assert [w.train["timestamp"].dt.day.tolist() for w in months] == [[11, 21, 31], [10, 20]]
    assert months[1].report.settings["train_start"] == pd.Timestamp("2024-02-01")


def test_zone_aware_columns_calendar_days_vs_fixed_days() -> None:
    # Madrid moves to summer time on 2024-03-31: a calendar day after Mar 30 12:00 is
    # Mar 31 12:00 (23 h later); a fixed "1D" / "24h" is Mar 31 13:00 ("D" alone is pandas'
    # Day offset: a calendar day in pandas 3, 24 h in pandas 2)
    times = pd.date_range("2024-03-28 12:00", periods=8, freq="12h", tz="Europe/Madrid")
    log = pd.DataFrame({"user_id": [1] * 8, "item_id": range(8), "timestamp": times})
    start = "2024-03-30 12:00+01:00"
    calendar = rv.split.rolling(log, start=start, step=pd.DateOffset(days=1))
    fixed = rv.split.rolling(log, start=start, step="1D")
    assert [w.test_rows.tolist() for w in calendar] == [[4, 5], [6, 7]]
    assert str(calendar[1].report.cut_time) == "2024-03-31 12:00:00+02:00"
    assert str(fixed[1].report.cut_time) == "2024-03-31 13:00:00+02:00"
    with pytest.raises(InvalidParameterError, match=r"start=.* is naive"):
        rv.split.rolling(log, start="2024-03-30", step="1D")


@pytest.mark.parametrize("step", ["MS", "1MS", " 2MS ", pd.offsets.MonthBegin(1)])
def test_ms_is_month_start_never_milliseconds(step: object) -> None:
    # pandas 2's Timedelta reads "1MS" as one millisecond; here it is a month start
    times = pd.to_datetime(["2024-01-15", "2024-02-10", "2024-03-10", "2024-04-10"])
    log = pd.DataFrame({"user_id": [1, 1, 1, 1], "item_id": [1, 2, 3, 4], "timestamp": times})
    windows = rv.split.rolling(log, start="2024-02-01", step=step)
    n = 2 if isinstance(step, str) and "2" in step else 1
    assert str(windows[0].report.settings["test_end"].date()) == f"2024-0{2 + n}-01"


def test_float_timestamps() -> None:
    log = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": [1, 2, 1, 3],
                        "timestamp": [0.5, 1.5, 2.25, 3.0]})
    windows = rv.split.rolling(log, start=1.0, step=1.25)     # origins 1.0, 2.25
    assert _times(windows, "test") == [[1.5], [2.25, 3.0]]


@pytest.mark.parametrize("kind", ["polars", "pyarrow"])
def test_polars_and_arrow_give_their_own_parts(log: pd.DataFrame, kind: str) -> None:
    pl = pytest.importorskip("polars")
    import pyarrow as pa

    data = pl.from_pandas(log) if kind == "polars" else pa.Table.from_pandas(log)
    windows = rv.split.rolling(data, start=3, step=2, window=4)
    expected = rv.split.rolling(log, start=3, step=2, window=4)
    for w, e in zip(windows, expected, strict=True):
        assert w.kind == kind
        assert w.test_rows.tolist() == e.test_rows.tolist()
        assert w.train_rows.tolist() == e.train_rows.tolist()
        assert w.report == e.report


def test_columns_by_name(log: pd.DataFrame) -> None:
    renamed = log.rename(columns={"timestamp": "when", "user_id": "who"})
    windows = rv.split.rolling(renamed, start=3, step=2,
                               columns={"timestamp": "when", "user": "who"})
    assert _times(rv.split.rolling(log, start=3, step=2), "test") == \
        [w.test["when"].tolist() for w in windows]


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize("parameter", ["step", "horizon", "window"])
@pytest.mark.parametrize("bad", [0, -2, 1.5, float("nan"), float("inf"), "2", True, [2]])
def test_durations_of_a_number_column(log: pd.DataFrame, parameter: str, bad: object) -> None:
    kwargs: dict[str, object] = {"start": 3, "step": 2, parameter: bad}
    with pytest.raises(InvalidParameterError, match=parameter) as err:
        rv.split.rolling(log, **kwargs)  # type: ignore[arg-type]
    assert err.value.parameter == parameter


@pytest.mark.parametrize("parameter", ["step", "horizon", "window"])
@pytest.mark.parametrize("bad", [0, 3, "0D", "-7D", pd.Timedelta(0), "-1MS", "fortnight",
                                 "2024-01-05", True])
def test_durations_of_a_datetime_column(log: pd.DataFrame, parameter: str,
                                        bad: object) -> None:
    dated = log.assign(timestamp=pd.to_datetime(log["timestamp"], unit="D"))
    kwargs: dict[str, object] = {"start": "1970-01-04", "step": "2D", parameter: bad}
    with pytest.raises(InvalidParameterError, match=parameter) as err:
        rv.split.rolling(dated, **kwargs)  # type: ignore[arg-type]
    assert err.value.parameter == parameter


@pytest.mark.parametrize(("start", "message"), [
    ("1970-01-04", "must be a number"), (None, "start= .* are required"),
    (float("nan"), "NaN"), (True, "must be a number")])
def test_start_of_the_wrong_kind(log: pd.DataFrame, start: object, message: str) -> None:
    with pytest.raises(InvalidParameterError, match=message) as err:
        rv.split.rolling(log, start=start, step=2)
    assert err.value.parameter == "start"


def test_step_is_required(log: pd.DataFrame) -> None:
    with pytest.raises(InvalidParameterError, match="are required") as err:
        rv.split.rolling(log, start=3, step=None)
    assert err.value.parameter == "step"


def test_start_after_the_last_time(log: pd.DataFrame) -> None:
    with pytest.raises(EmptyInputError, match=r"start=9 is after the last time 8") as err:
        rv.split.rolling(log, start=9, step=2)
    assert err.value.parameter == "start"
    assert len(rv.split.rolling(log, start=8, step=2)) == 1       # the last time is fine


@pytest.mark.parametrize("start", [1, 0, -5])
def test_no_training_rows_before_the_first_origin(log: pd.DataFrame, start: int) -> None:
    with pytest.raises(EmptyInputError, match="have no training rows") as err:
        rv.split.rolling(log, start=start, step=2)
    assert err.value.parameter == "start"


def test_windows_without_test_or_training_rows_are_named() -> None:
    gap = pd.DataFrame({"user_id": [1, 1, 1, 1], "item_id": [1, 2, 3, 4],
                        "timestamp": [1, 2, 10, 11]})
    with pytest.raises(EmptyInputError, match=r"3 of the 5 windows have no test rows .*"
                       r"origin 4, 6, 8;") as err:
        rv.split.rolling(gap, start=2, step=2)
    assert err.value.parameter == "horizon"
    assert err.value.examples == (4, 6, 8)
    with pytest.raises(EmptyInputError, match=r"no training rows \(none in \[origin - "
                       r"window, origin\)\)") as err:
        rv.split.rolling(gap, start=10, step=1, window=5)
    assert err.value.parameter == "window"


def test_too_many_windows(log: pd.DataFrame) -> None:
    ns = log.assign(timestamp=log["timestamp"] * 10**9)            # epoch nanoseconds
    with pytest.raises(InvalidParameterError, match=r"step=1 .* gives 5,000,000,001 windows, "
                       rf"more than {MAX_WINDOWS:,}") as err:
        rv.split.rolling(ns, start=3 * 10**9, step=1)
    assert err.value.parameter == "step"
    dated = log.assign(timestamp=pd.Timestamp("2024-01-01")
                       + pd.to_timedelta(log["timestamp"] * 3000, unit="D"))
    with pytest.raises(InvalidParameterError, match="more than"):
        rv.split.rolling(dated, start="2032-01-01", step="B")      # business days: a loop


def test_other_bad_input(log: pd.DataFrame) -> None:
    with pytest.raises(ColumnNotFoundError, match="a rolling split needs a timestamp"):
        rv.split.rolling(log.drop(columns="timestamp"), start=3, step=2)
    with pytest.raises(InvalidParameterError, match="cold_users") as err:
        rv.split.rolling(log, start=3, step=2, cold_users="skip")  # type: ignore[arg-type]
    assert err.value.parameter == "cold_users"
    with pytest.raises(NonFiniteValueError, match="missing values"):
        rv.split.rolling(log.assign(timestamp=[1, 2, None, 4, 5, 6, 7, 8]), start=3, step=2)
    with pytest.raises(EmptyInputError, match="no rows to split"):
        rv.split.rolling(log.iloc[:0], start=3, step=2)
    with pytest.raises(rv.exceptions.DataError, match="cold_items='error'"):
        rv.split.rolling(log, start=3, step=2, cold_items="error")


# ---------------------------------------------------------------- cross-validation


@pytest.fixture(scope="module")
def ratings() -> pd.DataFrame:
    return rv.datasets.sample_ratings(150, 80, seed=5)


def test_cross_validate_over_windows(ratings: pd.DataFrame) -> None:
    windows = rv.split.rolling(ratings, start="2024-07-01", step="MS")
    assert len(windows) == 6                                        # Jul .. Dec
    models = {"pop": rv.models.MostPopular(), "mean": rv.models.ItemMean(shrinkage=5)}
    cv = rv.cross_validate(models, ratings, ["ndcg@10", "rmse"], split=windows, k=10,
                           relevance_threshold=4, no_relevant="zero", progress=False)
    assert cv.n_folds == 6
    assert cv.settings["split_reports"] == [w.report for w in windows]
    for fold, w in enumerate(windows):                               # every number is evaluate's
        model = rv.models.MostPopular()
        model.fit(w.train)
        users = w.test["user_id"].unique()
        recs = model.recommend(users, 10, exclude=w.train[["user_id", "item_id"]])
        ev = rv.evaluate(recs, w.test, ["ndcg@10"], relevance_threshold=4,
                         no_relevant="zero")
        assert cv.results[("pop", fold)]["ndcg@10"] == pytest.approx(ev["ndcg@10"], abs=1e-12)


def test_compare_pairs_users_within_each_window(ratings: pd.DataFrame) -> None:
    windows = rv.split.rolling(ratings, start="2024-09-01", step="MS", window="90D")
    models = {"pop": rv.models.MostPopular(), "rand": rv.models.Random(seed=1)}
    cv = rv.cross_validate(models, ratings, ["ndcg@10"], split=windows, k=10,
                           relevance_threshold=4, no_relevant="zero", progress=False)
    pooled = {m: pd.concat([cv.results[(m, f)].per_user.assign(window=f)
                            for f in range(cv.n_folds)]).set_index("window", append=True)
              for m in models}
    a, b = pooled["pop"]["NDCG@10"].align(pooled["rand"]["NDCG@10"], join="inner")
    # a user tested in several windows is several (window, user) pairs
    repeated = pd.Series([u for w in windows for u in w.test["user_id"].unique()])
    assert repeated.duplicated().any()
    assert len(a) == len(repeated)
    row = cv.compare(test="t").tests.iloc[0]
    assert row["n_users"] == len(a)
    assert row["p_value"] == pytest.approx(sps.ttest_rel(a, b).pvalue, rel=1e-9)
