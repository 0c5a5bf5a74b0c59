"""rv.split.rolling on random logs (hypothesis): partitions, time order, expanding vs fixed
windows, and every window against a naive pandas computation."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import receval as rv
from receval.exceptions import EmptyInputError
from tests.strategies import examples

pytestmark = pytest.mark.slow  # hypothesis: a few seconds

SETTINGS = settings(max_examples=examples(60), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def cases(draw: st.DrawFn) -> tuple[pd.DataFrame, dict[str, object], dict[str, int | None]]:
    """A log (integer or datetime times, many ties) and rolling parameters, both as given
    and as integers in the log's time unit (hours for the datetime logs)."""
    n = draw(st.integers(2, 50))
    span = draw(st.sampled_from([5, 30, 200]))
    times = draw(st.lists(st.integers(0, span), min_size=n, max_size=n))
    log = pd.DataFrame({"user_id": draw(st.lists(st.integers(0, 5), min_size=n, max_size=n)),
                        "item_id": draw(st.lists(st.integers(0, 8), min_size=n, max_size=n)),
                        "timestamp": times, "row": np.arange(n)})
    plain = {"start": draw(st.integers(min(times) - 2, max(times) + 1)),
             "step": draw(st.integers(1, max(span // 3, 1))),
             "horizon": draw(st.none() | st.integers(1, span)),
             "window": draw(st.none() | st.integers(1, span))}
    given_ = dict(plain)
    if draw(st.booleans()):
        log["timestamp"] = pd.Timestamp("2024-01-01") + pd.to_timedelta(log["timestamp"],
                                                                         unit="h")
        given_["start"] = str(pd.Timestamp("2024-01-01") + pd.Timedelta(hours=plain["start"]))
        for key in ("step", "horizon", "window"):
            if plain[key] is not None:
                given_[key] = f"{plain[key]}h"
    return log, given_, plain


def _naive(times: np.ndarray, plain: dict[str, int | None]) -> list[tuple[list[int],
                                                                          list[int]]]:
    """(train rows, test rows) of every window, by the definition."""
    out = []
    start, step = plain["start"], plain["step"]
    assert start is not None
    assert step is not None
    horizon = step if plain["horizon"] is None else plain["horizon"]
    origin = start
    while origin <= times.max():
        low = -np.inf if plain["window"] is None else origin - plain["window"]
        out.append((np.flatnonzero((times >= low) & (times < origin)).tolist(),
                    np.flatnonzero((times >= origin) & (times < origin + horizon)).tolist()))
        origin += step
    return out


def _hours(log: pd.DataFrame) -> np.ndarray:
    t = log["timestamp"]
    if pd.api.types.is_datetime64_any_dtype(t):
        return ((t - pd.Timestamp("2024-01-01")) / pd.Timedelta(hours=1)).to_numpy().astype(int)
    return t.to_numpy()


@SETTINGS
@given(cases())
def test_every_window_is_the_definition(case: tuple[pd.DataFrame, dict[str, object],
                                                    dict[str, int | None]]) -> None:
    log, given_, plain = case
    times = _hours(log)
    expected = _naive(times, plain)
    if not expected or any(not train or not test for train, test in expected):
        with pytest.raises(EmptyInputError):
            rv.split.rolling(log, **given_)
        return
    windows = rv.split.rolling(log, **given_)
    assert len(windows) == len(expected)
    for i, (w, (train, test)) in enumerate(zip(windows, expected, strict=True)):
        assert w.train_rows.tolist() == train
        assert w.test_rows.tolist() == test
        # the three parts partition the input, and are its rows unchanged
        rows = np.concatenate([w.train_rows, w.test_rows, w.dropped_rows])
        assert np.array_equal(np.sort(rows), np.arange(len(log)))
        pd.testing.assert_frame_equal(w.test, log.iloc[w.test_rows])
        pd.testing.assert_frame_equal(w.dropped, log.iloc[w.dropped_rows])
        # no test row earlier than any training row of its window
        assert times[w.train_rows].max() < times[w.test_rows].min()
        r = w.report
        assert r.method == "rolling"
        assert r.leakage_rows == 0
        assert r.settings["fold"] == i
        assert r.settings["n_splits"] == len(windows)
        assert sum(r.dropped_by.values()) == r.rows["dropped"] == len(w.dropped_rows)
    # windows in time order, origins start + i * step
    origins = [_hours(pd.DataFrame({"timestamp": [w.report.cut_time]}))[0] for w in windows]
    assert origins == [plain["start"] + i * plain["step"] for i in range(len(windows))]


@SETTINGS
@given(cases())
def test_expanding_and_fixed_windows(case: tuple[pd.DataFrame, dict[str, object],
                                                 dict[str, int | None]]) -> None:
    log, given_, plain = case
    if plain["window"] is None:
        return
    try:
        fixed = rv.split.rolling(log, **given_)
    except EmptyInputError:
        return
    expanding = rv.split.rolling(log, **{**given_, "window": None})
    times = _hours(log)
    assert len(fixed) == len(expanding)
    for f, e in zip(fixed, expanding, strict=True):
        assert f.test_rows.tolist() == e.test_rows.tolist()           # the same test parts
        assert set(f.train_rows) <= set(e.train_rows)                 # a slice of the history
        origin = plain["start"] + f.report.settings["fold"] * plain["step"]
        assert (times[f.train_rows] >= origin - plain["window"]).all()
        assert (times[e.train_rows] < origin).all()
        assert len(e.train_rows) == int((times < origin).sum())       # every earlier row
    # an expanding window only grows
    for a, b in itertools.pairwise(expanding):
        assert set(a.train_rows) <= set(b.train_rows)
