"""User-side fairness: ``ev.disparity`` (summaries and intervals) and ``cmp.disparity`` (tests).

Worked example (fairness-spec section 12): binary nDCG@3 of the toy users is (0.919721,
0.613147, 0.613147, 0.469279); user groups {1, 2} and {3, 4} have means (0.766434, 0.541213).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval.exceptions import EmptyInputError, InvalidParameterError
from tests.fairness_toy import RECS, TEST, USER_GROUPS, evaluate

NDCG = "ndcg(gain=binary)@3"
VALUES = [0.9197207891481876, 0.6131471927654584, 0.6131471927654584, 0.46927872602275644]
MU = [(VALUES[0] + VALUES[1]) / 2, (VALUES[2] + VALUES[3]) / 2]


def ev_toy(metrics: list[str] | None = None, **kw: object) -> rv.EvaluationResult:
    return evaluate(metrics or [NDCG], **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize(("summary", "want"), [
    ("max_gap", MU[0] - MU[1]),  # 0.22522103156271556
    ("mad", MU[0] - MU[1]),  # two groups: the one pair
    ("ratio", MU[1] / MU[0]),  # 0.7061442547954487
    ("cv", float(np.std(MU) / np.mean(MU))),  # 0.1722338216001448
    # Gini of the 4 per-user values sorted ascending: sum (2j - 5) x_(j) / (4 sum x)
    ("gini", sum((2 * j - 5) * x for j, x in enumerate(sorted(VALUES), 1))
     / (4 * sum(VALUES))),
])
def test_summaries_by_hand(summary: str, want: float) -> None:
    d = ev_toy().disparity(USER_GROUPS, summary=summary, n_resamples=200)
    assert d.table.loc[rv.metrics.parse(NDCG).label, "value"] == pytest.approx(want,
                                                                              abs=1e-15)


def test_spec_vectors() -> None:
    label = rv.metrics.parse(NDCG).label
    got = {s: ev_toy().disparity(USER_GROUPS, summary=s, n_resamples=10).table.loc[label,
                                                                                   "value"]
           for s in ("max_gap", "ratio", "cv", "gini")}
    assert got == pytest.approx({"max_gap": 0.22522103156271556,
                                 "ratio": 0.7061442547954487, "cv": 0.1722338216001448,
                                 "gini": 0.1291753662001086}, abs=1e-15)


def test_group_values_are_ev_by() -> None:
    ev = ev_toy([NDCG, "recall(aggregation=micro)@3"])
    d = ev.disparity(USER_GROUPS, n_resamples=10)
    by = ev.by(USER_GROUPS)
    for label in ev.labels:
        assert d.groups.loc[label, "value"].tolist() == by[label].tolist()
    assert d.groups.loc[ev.labels[0], "n_users"].tolist() == [2, 2]


def test_elliot_user_mad_ranking() -> None:
    # Elliot's UserMADranking: its nDCG (gain 2^(r - t + 1) - 1, t = 0) per user, the MAD
    # of the user groups' means; Elliot 0.3.1 prints 0.1078789776440725 on the toy data
    ev = evaluate(["ndcg@3"], convention="elliot")
    d = ev.disparity(USER_GROUPS, summary="mad", n_resamples=10)
    assert d.table["value"].iloc[0] == pytest.approx(0.1078789776440725, abs=1e-15)


def test_three_groups_mad_and_gap() -> None:
    ev = ev_toy()
    groups = {1: "a", 2: "b", 3: "c", 4: "c"}
    mu = [VALUES[0], VALUES[1], (VALUES[2] + VALUES[3]) / 2]
    mad = (abs(mu[0] - mu[1]) + abs(mu[0] - mu[2]) + abs(mu[1] - mu[2])) / 3
    got = ev.disparity(groups, summary="mad", n_resamples=10).table["value"].iloc[0]
    assert got == pytest.approx(mad, abs=1e-15)


def test_interval_is_seeded_and_resamples_within_groups() -> None:
    recs, truth = _coverage_data(np.random.default_rng(1))
    ev = rv.evaluate(recs, truth, ["recall@5"])
    groups = {u: int(u >= 100) for u in range(200)}
    a = ev.disparity(groups, n_resamples=300, seed=5).table
    b = ev.disparity(groups, n_resamples=300, seed=5).table
    c = ev.disparity(groups, n_resamples=300, seed=6).table
    assert a.equals(b)
    assert not a.equals(c)
    lo, hi = a[["low", "high"]].iloc[0]
    assert lo <= a["value"].iloc[0] <= hi
    # within groups: with one group of a single user, that group's mean never moves
    single = {**groups, 0: 2}
    t = ev.disparity(single, summary="max_gap", n_resamples=50).table
    assert t["n_groups"].iloc[0] == 3


def test_users_without_group_are_counted() -> None:
    d = ev_toy().disparity({1: 0, 2: 0, 3: 1}, n_resamples=10)
    assert d.table["without_group"].iloc[0] == 1
    assert d.table["n_users"].iloc[0] == 3


def _coverage_data(rng: np.random.Generator) -> tuple[pd.DataFrame, pd.DataFrame]:
    """200 users, 100 per group; each user's 5 relevant items are in their list of 5 with
    probability 0.5 (group 0) or 0.3 (group 1): recall@5 means 0.5 and 0.3."""
    n = 200
    hits = rng.random((n, 5)) < np.where(np.arange(n) < 100, 0.5, 0.3)[:, None]
    users = np.repeat(np.arange(n), 5)
    relevant = np.tile(np.arange(5), n)
    listed = np.where(hits.ravel(), relevant, relevant + 100)  # a hit, or another item
    recs = pd.DataFrame({"user": users, "item": listed, "score": -np.tile(np.arange(5.0), n)})
    truth = pd.DataFrame({"user": users, "item": relevant})
    return recs, truth


def test_interval_coverage() -> None:
    """The 95 % interval of max_gap covers the true gap (0.2) 93-97 % of the time.

    1000 replicates (the binomial standard error of the coverage is 0.7 %); the percentile
    interval with 100 users per group covers about 94 % (0.945 with 2000 resamples).
    """
    rng = np.random.default_rng(99)
    groups = {u: int(u >= 100) for u in range(200)}
    covered = 0
    replicates = 1000
    for r in range(replicates):
        recs, truth = _coverage_data(rng)
        ev = rv.evaluate(recs, truth, ["recall@5"])
        t = ev.disparity(groups, n_resamples=400, seed=r).table.iloc[0]
        covered += t["low"] <= 0.2 <= t["high"]
    assert 0.93 <= covered / replicates <= 0.97, covered / replicates  # 0.940


# -- comparisons ---------------------------------------------------------------------------------
def _compare(**kw: object) -> rv.Comparison:
    other = RECS.assign(score=-RECS["score"])  # lists reversed
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rv.compare({"a": RECS, "b": other, "c": RECS}, TEST, [NDCG, "recall@3"],
                          n_resamples=500, **kw)  # type: ignore[arg-type]


def test_compare_disparity_rows_and_values() -> None:
    cmp = _compare()
    t = cmp.disparity(USER_GROUPS)
    assert len(t) == 2 * 3  # 2 metrics x 3 pairs
    row = t[(t["metric"] == rv.metrics.parse(NDCG).label) & (t["system_a"] == "a")
            & (t["system_b"] == "c")].iloc[0]
    assert row["value_a"] == pytest.approx(MU[0] - MU[1], abs=1e-15)
    assert row["diff"] == 0.0
    assert row["p_value"] == 1.0  # identical systems
    assert row["ci_low"] == row["ci_high"] == 0.0  # the same draws for both systems


def test_compare_disparity_corrections_and_baseline() -> None:
    cmp = _compare()
    raw = cmp.disparity(USER_GROUPS)
    holm = cmp.disparity(USER_GROUPS, correction="holm")
    assert (holm["p_adjusted"] >= raw["p_value"] - 1e-15).all()
    assert raw["p_adjusted"].tolist() == raw["p_value"].tolist()
    base = _compare(baseline="a").disparity(USER_GROUPS)
    assert set(base["system_b"]) == {"a"}
    assert len(base) == 2 * 2


def test_compare_disparity_detects_a_change() -> None:
    """System b halves group 1's recall: its disparity is larger, significantly."""
    rng = np.random.default_rng(7)
    recs, truth = _coverage_data(rng)
    worse = recs.copy()
    drop = (worse["user"] >= 100) & (worse["item"] < 100) & (rng.random(len(worse)) < 0.6)
    worse.loc[drop, "item"] += 200
    groups = {u: int(u >= 100) for u in range(200)}
    cmp = rv.compare({"a": recs, "b": worse}, truth, ["recall@5"], n_resamples=1000)
    t = cmp.disparity(groups).iloc[0]
    assert t["diff"] < 0
    assert t["significant"]
    assert t["p_value"] < 0.01


@pytest.mark.parametrize(("summary", "value_b"), [
    # b hits for users 1, 2 (group 0) only: group values (MU[0], 0)
    ("ratio", 0.0),  # min / max = 0 / MU[0]
    ("cv", 1.0),  # std / mean = (MU[0] / 2) / (MU[0] / 2)
])
def test_compare_disparity_undefined_summary_is_no_test(summary: str, value_b: float) -> None:
    # a never hits: group values (0, 0), so ratio (max 0) and cv (mean 0) are undefined
    miss = RECS.assign(item_id=RECS["item_id"] + 100)
    half = pd.concat([miss[miss["user_id"] >= 3], RECS[RECS["user_id"] <= 2]])
    cmp = rv.compare({"a": miss, "b": half, "c": RECS}, TEST, [NDCG], n_resamples=200)
    with pytest.warns(rv.exceptions.UndefinedMetricWarning,
                      match=rf"summary='{summary}' is undefined.*\(a nan vs b"):
        t = cmp.disparity(USER_GROUPS, summary=summary, correction="bonferroni")
    ab, ac, bc = (t.iloc[i] for i in range(3))
    assert ab["value_b"] == pytest.approx(value_b, abs=1e-15)
    for row in (ab, ac):  # a's summary is NaN: no difference, no test
        assert math.isnan(row["diff"])
        assert math.isnan(row["p_value"])
        assert math.isnan(row["p_adjusted"])
        assert not row["significant"]
    # the one defined test is the correction's only one: m = 1, p_adjusted = min(1, 1 p)
    assert bc["p_adjusted"] == bc["p_value"]
    assert not math.isnan(bc["p_value"])


@pytest.mark.parametrize(("users", "value_a", "n_users"), [
    # common: user 4 (no list from a) is left out, as in cmp.tests; groups {1, 2}, {3}:
    # MU[0] - VALUES[2] = 0.766434 - 0.613147 = 0.153287
    ("common", MU[0] - VALUES[2], 3),
    # union: user 4 scored 0 (missing_recs='zero'): MU[0] - (VALUES[2] + 0) / 2 = 0.459860
    ("union", MU[0] - VALUES[2] / 2, 4),
])
def test_compare_disparity_uses_the_compared_users(users: str, value_a: float,
                                                   n_users: int) -> None:
    other = RECS.assign(score=-RECS["score"])
    cmp = rv.compare({"a": RECS[RECS["user_id"] != 4], "b": other}, TEST, [NDCG],
                     users=users, n_resamples=200)
    assert cmp.tests["n_users"].tolist() == [n_users]
    row = cmp.disparity(USER_GROUPS).iloc[0]
    assert row["value_a"] == pytest.approx(value_a, abs=1e-15)
    assert row["n_users"] == n_users


def test_fold_comparison_disparity_groups_by_user() -> None:
    # two folds of the same lists: users (fold, user) take the group of user; group values
    # and the gap are those of one fold, MU[0] - MU[1], over 2 x 4 users
    ev, other = ev_toy(), ev_toy(recs=RECS.assign(score=-RECS["score"]))
    cmp = rv.stats.compare_folds({"a": [ev, ev], "b": [other, other]}, n_resamples=100)
    row = cmp.disparity(USER_GROUPS).iloc[0]
    assert row["value_a"] == pytest.approx(MU[0] - MU[1], abs=1e-15)
    assert row["n_users"] == 8


@pytest.mark.parametrize("groups", [
    {str(u): g for u, g in USER_GROUPS.items()},  # '1': ids are integers
    {float(u): g for u, g in USER_GROUPS.items()},  # 1.0
    {1: 0, "2": 0, 3: 1, 4: 1},  # one key of another type: user 2 would be 'without group'
])
def test_group_keys_of_another_type_are_refused_as_by_ev_by(groups: dict) -> None:
    for call in (ev_toy().by, ev_toy().disparity, _compare().disparity):
        with pytest.raises(rv.exceptions.IdTypeMismatchError) as e:
            call(groups)
        assert e.value.parameter == "groups"


@pytest.mark.parametrize(("kwargs", "error"), [
    ({"summary": "range"}, InvalidParameterError), ({"confidence": 1.0}, InvalidParameterError),
    ({"n_resamples": 0}, InvalidParameterError), ({"seed": -1}, InvalidParameterError),
])
def test_bad_options(kwargs: dict[str, object], error: type) -> None:
    with pytest.raises(error):
        ev_toy().disparity(USER_GROUPS, **kwargs)  # type: ignore[arg-type]
    with pytest.raises(error):
        _compare().disparity(USER_GROUPS, **kwargs)  # type: ignore[arg-type]


def test_bad_groups() -> None:
    ev = ev_toy()
    with pytest.raises(EmptyInputError, match="at least two"):
        ev.disparity({1: "a", 2: "a", 3: "a", 4: "a"})
    with pytest.raises(InvalidParameterError, match="mapping"):
        ev.disparity(["a", "b"])
    with pytest.raises(InvalidParameterError, match="more than one group"):
        ev.disparity(pd.Series(["a", "b"], index=[1, 1]))
    with pytest.raises(InvalidParameterError, match="correction"):
        _compare().disparity(USER_GROUPS, correction="sidak")


def test_global_metric_has_no_disparity() -> None:
    ev = evaluate([NDCG, "exposure@3"], item_groups={i: i > 3 for i in range(1, 9)})
    assert list(ev.disparity(USER_GROUPS, n_resamples=10).table.index) == [ev.labels[0]]
    with pytest.raises(InvalidParameterError, match="per-user"):
        ev.disparity(USER_GROUPS, ["exposure@3"])
    assert math.isfinite(ev[ev.labels[1]])
