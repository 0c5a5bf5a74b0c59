"""Provider-side exposure: exposure by item group, expected exposure (EE-L/D/R) and AWRF.

Worked examples on the toy data of ``tests/fairness_toy.py`` (k = 3; items 1-3 in group 0,
4-8 in group 1), arithmetic in the comments; properties with hypothesis.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
from receval.exceptions import DataError, InvalidParameterError
from tests.fairness_toy import ITEM_GROUPS, RECS, TEST, evaluate, per_user
from tests.strategies import examples

LISTS = {1: [4, 5, 6], 2: [3, 6, 7], 3: [2, 3, 4], 4: [1, 4, 6]}


def ev_groups(metrics: list[str], **kw: object) -> rv.EvaluationResult:
    kw.setdefault("item_groups", ITEM_GROUPS)
    return evaluate(metrics, **kw)  # type: ignore[arg-type]


# -- exposure@k ------------------------------------------------------------------------------------
def test_exposure_rbp_by_hand() -> None:
    # rbp(0.5): ranks weigh 1, 0.5, 0.25. Group 0 gets: user 1 nothing; user 2 item 3 at rank
    # 1 (1); user 3 items 2, 3 at ranks 1, 2 (1.5); user 4 item 1 at rank 1 (1) -> 3.5.
    # Group 1: 1.75 + 0.75 + 0.25 + 0.75 = 3.5 -> shares 0.5, 0.5, gap 0
    ev = ev_groups(["exposure@3"])
    table = ev.groups("exposure@3")
    assert table["exposure"].tolist() == [3.5, 3.5]
    assert table["share"].tolist() == [0.5, 0.5]
    assert ev["exposure@3"] == 0.0


def test_exposure_log_and_cascade_by_hand() -> None:
    w = [1.0, 1 / math.log2(3), 0.5]
    e0 = sum(w[r] for lst in LISTS.values() for r, i in enumerate(lst) if ITEM_GROUPS[i] == 0)
    e1 = sum(w[r] for lst in LISTS.values() for r, i in enumerate(lst) if ITEM_GROUPS[i] == 1)
    assert e0 == pytest.approx(3.630929753571, abs=1e-12)
    ev = ev_groups(["exposure(browsing=log)@3", "exposure(browsing=cascade)@3"])
    log = ev.groups(ev.labels[0])
    assert log["exposure"].tolist() == pytest.approx([e0, e1], abs=1e-12)
    assert ev[ev.labels[0]] == pytest.approx(e1 / (e0 + e1) - e0 / (e0 + e1), abs=1e-15)
    # cascade(patience 0.5, stop 0.5): g^(r-1) (1/2)^(relevant above). User 1: 4 (relevant)
    # 1, 5: 0.5 * 0.5, 6: 0.25 * 0.5 -> group 1 gets 1.375; user 2: 3 (relevant, group 0) 1,
    # 6 0.25, 7 0.125; user 3: 2 (relevant) 1, 3 0.25, 4 0.125; user 4: 1 (relevant) 1,
    # 4 0.25, 6 0.125. Group 0: 1 + 1 + 0.25 + 1 = 3.25; group 1: 1.375 + 0.375 + 0.125
    # + 0.375 = 2.25
    cas = ev.groups(ev.labels[1])
    assert cas["exposure"].tolist() == [3.25, 2.25]
    assert cas["share"].tolist() == pytest.approx([0.590909090909, 0.409090909091], abs=1e-12)


def test_exposure_multi_group_items_and_mean() -> None:
    groups = {**ITEM_GROUPS, 6: [0, 1]}  # item 6 in both groups
    ev = ev_groups(["exposure@3", "exposure(multi=full)@3", "exposure(normalize=mean)@3"],
                   item_groups=groups)
    split, full, mean = (ev.groups(x) for x in ev.labels)
    assert split.columns.tolist() == ["exposure", "share"]  # as the docstring says
    # item 6 gets 0.25 (user 1), 0.5 (user 2), 0.25 (user 4) = 1 in total: half to each
    # group (split), all of it to each (full)
    assert split["exposure"].tolist() == [4.0, 3.0]
    assert full["exposure"].tolist() == [4.5, 3.5]
    assert mean["exposure"].tolist() == [4.0 / 4, 3.0 / 4]
    assert ev[ev.labels[1]] == pytest.approx(4.5 / 8 - 3.5 / 8, abs=1e-15)


def test_exposure_popularity_groups() -> None:
    # Elliot's short head (80 % of the 12 training pairs): items 1-5; tail 6, 7; item 8
    # (absent from train) has no group and is left out with ungrouped='skip'
    with pytest.raises(DataError, match="no group"):
        evaluate(["exposure(groups=popularity)@4"])
    ev = evaluate(["exposure(groups=popularity, ungrouped=skip)@4"])
    table = ev.groups(ev.labels[0])
    assert table.index.tolist() == ["head", "tail"]
    # tail: item 6 at rank 3 of users 1, 2 (0.25 each), rank 3 of user 4 (0.25) and 7 at
    # rank 3 of user 2... user 2's list is 3 6 7 8: 6 at rank 2 (0.5), 7 at rank 3 (0.25)
    assert table["exposure"]["tail"] == 0.25 + 0.5 + 0.25 + 0.25


# -- expected exposure -----------------------------------------------------------------------------
def test_expected_exposure_rbp_by_hand() -> None:
    # user 1, rbp 0.5: run exposure 4: 1, 5: 0.5, 6: 0.25 -> EE-D = 1 + 0.25 + 0.0625
    # target: grades 5 (item 4) and 4 (item 6) are two levels of one item each:
    # level 5 (b = 0, m = 1): (1 - 0.5) / 0.5 = 1; level 4 (b = 1): (0.5 - 0.25) / 0.5 = 0.5
    # EE-R = 1 * 1 + 0.25 * 0.5 = 1.125; EE-L = (1 - 1)^2 + 0.5^2 + (0.25 - 0.5)^2 = 0.3125
    ms = [f"ee(browsing=rbp, normalize=false, measure={x})@3" for x in "drl"]
    ev = evaluate(ms)
    d, r, l_ = (per_user(ev, m) for m in ms)
    assert (d[0], r[0], l_[0]) == (1.3125, 1.125, 0.3125)
    # users 2, 3: the relevant item first, the other relevant item not in the list:
    # R = 1 * 1, L = 0.5^2 + 0.25^2 + 0.5^2 (the missed target)
    assert r[1:3] == [1.0, 1.0]
    assert l_[1:3] == [0.5625, 0.5625]
    # user 4: item 1 (grade 5) first; items 5 (4), 8 (2) missed: L = 0.5^2 + 0.25^2 +
    # 0.5^2 + 0.25^2
    assert l_[3] == 0.625
    assert d == [1.3125] * 4


def test_expected_exposure_normalised_incomplete() -> None:
    # rbp, incomplete judgments (n infinite): D in [0, 1/(1 - p^2)]; R in [0, |eps*|^2];
    # L in [0, |eps*|^2 + 1/(1 - p)]
    ev = evaluate(["ee(browsing=rbp, measure=d)@3", "ee(browsing=rbp, measure=r)@3",
                   "ee(browsing=rbp)@3"])
    d, r, l_ = (per_user(ev, m) for m in ev.labels)
    assert d[0] == pytest.approx(1.3125 / (1 / 0.75), abs=1e-15)
    assert r[0] == pytest.approx(1.125 / (1 + 0.25), abs=1e-15)
    assert l_[0] == pytest.approx(0.3125 / (1.25 + 2), abs=1e-15)


def test_expected_exposure_gerr_default() -> None:
    # gerr(patience 0.5, stop 0.5): user 1 run 4 (relevant) 1, 5: 0.5 * 0.5, 6: 0.25 * 0.5
    # target pp = p (1 - u) = 0.25: level 5: (1 - 0.25) / 0.75 = 1; level 4 (b = 1):
    # (0.25 - 0.0625) / 0.75 = 0.25 -> L = 0 + 0.25^2 + (0.125 - 0.25)^2 = 0.078125;
    # bound |eps*|^2 + 1/(1 - p u) = 1.0625 + 1/0.75
    ev = evaluate(["ee@3"])
    want = 0.078125 / (1.0625 + 1 / 0.75)
    assert per_user(ev, "ee@3")[0] == pytest.approx(want, abs=1e-15)


def test_expected_exposure_single_level_relevance_is_one() -> None:
    # expeval: with one relevance level the relevance bounds are 0 and normalised EE-R is 1
    ev = evaluate(["ee(measure=r, grades=binary)@3"])
    assert per_user(ev, ev.labels[0]) == [1.0] * 4


def test_expected_exposure_user_without_list() -> None:
    # user 5 has a relevant item and no list: expeval gives disparity = upper bound,
    # relevance = lower bound, difference = |eps*|^2 (raw)
    truth = pd.concat([TEST, pd.DataFrame({"user_id": [5], "item_id": [1], "rating": [5]})])
    ms = [f"ee(browsing=rbp, normalize=false, measure={x})@3" for x in "drl"]
    ev = evaluate(ms, truth=truth)
    assert [ev.per_user.loc[5, m] for m in ev.labels] == [1 / 0.75, 0.0, 1.0]
    skipped = evaluate(ms, truth=truth, missing_recs="skip")
    assert 5 not in skipped.per_user.index


@st.composite
def graded(draw: st.DrawFn) -> tuple[pd.DataFrame, pd.DataFrame]:
    n = draw(st.integers(2, 8))
    grades = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    if not any(grades):
        grades[0] = 1
    order = draw(st.permutations(range(n)))
    recs = pd.DataFrame({"user_id": 1, "item_id": list(order), "score": -np.arange(n,
                                                                              dtype=float)})
    truth = pd.DataFrame({"user_id": 1, "item_id": range(n), "rating": grades})
    return recs, truth


@settings(max_examples=examples(40), deadline=None)
@given(graded(), st.sampled_from(["rbp", "cascade"]), st.sampled_from([0.3, 0.5, 0.8]))
def test_expected_exposure_bounds(data: tuple[pd.DataFrame, pd.DataFrame], model: str,
                                  patience: float) -> None:
    """Complete judgments: a deterministic ranking of every judged item has EE-D at its upper
    bound (normalised 1); EE-D's lower bound, uniform exposure over the n items, is the
    minimum; EE-L is 0 exactly for an ideal ranking of one-item levels."""
    recs, truth = data
    b = f"'{model}(patience={patience})'"
    ms = [f"ee(browsing={b}, judgments=complete, measure={x})" for x in "dl"]
    ms_raw = [f"ee(browsing={b}, judgments=complete, measure=d, normalize=false)"]
    ev = rv.evaluate(recs, truth, ms + ms_raw)
    d, _, raw = (float(ev.per_user[x].iloc[0]) for x in ev.labels)
    n = len(truth)
    if model == "rbp":  # the static ranking is expeval's upper bound
        assert d == pytest.approx(1.0, abs=1e-12)
    assert d <= 1 + 1e-12
    pp = patience if model == "rbp" else patience * 0.5
    uniform = ((1 - pp ** n) / (1 - pp)) ** 2 / n  # each of n items: mean attention
    assert raw >= uniform - 1e-12


def test_expected_exposure_zero_for_the_ideal_ranking() -> None:
    truth = pd.DataFrame({"user_id": 1, "item_id": [1, 2, 3], "rating": [3, 2, 1]})
    recs = pd.DataFrame({"user_id": 1, "item_id": [1, 2, 3], "score": [3.0, 2, 1]})
    ev = rv.evaluate(recs, truth, ["ee(browsing=rbp, normalize=false)",
                                   "ee(normalize=false)"])
    assert [float(ev.per_user[x].iloc[0]) for x in ev.labels] == pytest.approx([0, 0],
                                                                               abs=1e-15)


# -- AWRF ------------------------------------------------------------------------------------------
#: the track's AWRFMetric (fair-trec/trec2022-fair-public @ 6fd105f) on the toy data, run
#: with float32 weights (fairness-spec section 6.3)
TREC = {"uniform": [0.7842384456611643, 0.9926874933581173, 0.963099666841861,
                    0.9926874933581173],
        "population": [0.848204053901979, 0.9999861989308784, 0.9222321466499188,
                       0.9999861989308784],
        "relevance": [1.0, 0.9926874933581173, 0.963099666841861, 0.9988082711428435],
        "mix": [0.9301596277766568, 0.9982944480108009, 0.94461124307998,
                0.9996382974006404]}


def test_awrf_user_1_by_hand() -> None:
    # user 1's list 4 5 6 is all group 1: D = (0, 1); uniform T = (1/2, 1/2), m = (1/4, 3/4)
    # JS = 1/2 (1 ln(1 / 0.75)) + 1/2 (1/2 ln 2 + 1/2 ln(2/3))
    js = 0.5 * math.log(1 / 0.75) + 0.5 * (0.5 * math.log(2) + 0.5 * math.log(2 / 3))
    ev = ev_groups(["awrf@3"])
    assert per_user(ev, "awrf@3")[0] == pytest.approx(1 - js, abs=1e-15)
    # user 2: 3 6 7 with weights 1, 1, 1/log2 3 (ranks 1 and 2 both weigh 1):
    w = [1.0, 1.0, 1 / math.log2(3)]
    d = np.array([w[0], w[1] + w[2]]) / sum(w)
    # (the spec's 0.380093764619 has the track's float32 weights)
    assert d.tolist() == pytest.approx([0.380093764619, 0.619906235381], abs=1e-8)


@pytest.mark.parametrize("target", list(TREC))
def test_awrf_trec_fair_2022(target: str) -> None:
    ev = ev_groups([f"awrf(target={target})@3"], convention="trec_fair_2022")
    assert per_user(ev, ev.labels[0]) == pytest.approx(TREC[target], abs=1e-12)


def test_awrf_float64_differs_from_the_track_by_1e9() -> None:
    ev = ev_groups(["awrf@3"])
    got = per_user(ev, "awrf@3")
    assert got[2] == pytest.approx(0.963099665540, abs=1e-12)
    assert abs(got[2] - TREC["uniform"][2]) > 1e-10


def test_awrf_times_ndcg() -> None:
    # user 1: relevant {4, 6} at ranks 1 and 3: nDCG = (1 + 1/log2 3) / (1 + 1), weights
    # of the track (ranks 1 and 2 weigh 1), all in float32 (the track: 0.8154648542404175)
    ev = ev_groups(["awrf(times_ndcg=true)@3"], convention="trec_fair_2022")
    ndcg = float(np.float32(np.float32(1) + np.reciprocal(np.log2(np.float32(3))))
                 / np.float32(2))
    assert ndcg == 0.8154648542404175
    assert per_user(ev, ev.labels[0])[0] == pytest.approx(TREC["uniform"][0] * ndcg,
                                                           abs=1e-12)


def test_awrf_multi_group_and_unknown_item() -> None:
    # TREC example A2: p1 {a}, p2 {a, b}, p3 {c}, p4 {b}; run p2, p9 (no group), p1, p3, p4;
    # weights 1, 1, 1/log2 3, 1/2, 1/log2 5; p9 is dropped with its weight
    groups = {"p1": "a", "p2": "a|b", "p3": "c", "p4": "b"}
    recs = pd.DataFrame({"user_id": 1, "item_id": ["p2", "p9", "p1", "p3", "p4"],
                         "score": [5.0, 4, 3, 2, 1]})
    truth = pd.DataFrame({"user_id": 1, "item_id": ["p1", "p3", "p4"]})
    ev = rv.evaluate(recs, truth, ["awrf", "awrf(times_ndcg=true)"], item_groups=groups,
                     convention="trec_fair_2022")
    assert float(ev.per_user.iloc[0, 0]) == pytest.approx(0.9867578557157165, abs=1e-12)
    assert float(ev.per_user.iloc[0, 1]) == pytest.approx(
        0.9867578557157165 * 0.593556821346283, abs=1e-9)
    with pytest.raises(DataError, match="no group"):
        rv.evaluate(recs, truth, ["awrf"], item_groups=groups)


@settings(max_examples=examples(20), deadline=None)
@given(st.lists(st.integers(0, 700), min_size=1, max_size=6), st.integers(0, 2 ** 31))
def test_float32_sums_in_numpys_order(lengths: list[int], seed: int) -> None:
    from receval._kernels.fsum import segment_sums_f32

    values = np.random.default_rng(seed).random(sum(lengths)).astype("f4")
    ends = np.cumsum(lengths)
    out = np.zeros(len(lengths), dtype=np.float32)
    segment_sums_f32(values, ends - lengths, ends, out)
    assert out.tolist() == [np.sum(values[e - n:e]) for n, e in zip(lengths, ends,
                                                                    strict=True)]


def test_awrf_population_parameter() -> None:
    ev = ev_groups(["awrf(target=population)@3",
                    "awrf(target=population, population={0: 0.375, 1: 0.625})@3"])
    a, b = (per_user(ev, x) for x in ev.labels)
    assert a == pytest.approx(b, abs=1e-15)
    with pytest.raises(DataError, match="population"):
        ev_groups(["awrf(target=population, population={0: 1.0})@3"])


# the target is population / sum(population): undefined when every weight of the items'
# groups is 0, and not a distribution with an infinite weight
@pytest.mark.parametrize("population", ["{0: 0, 1: 0}", "{0: 0.0}", "{}", "{0: inf, 1: 1}",
                                        "{0: nan, 1: 1}"])
def test_awrf_population_without_a_positive_finite_total_is_refused(population: str) -> None:
    with pytest.raises(InvalidParameterError, match="finite weight >= 0, not all 0") as err:
        rv.metrics.parse(f"awrf(target=population, population={population})@3")
    assert err.value.parameter == "population"


def test_awrf_population_zero_on_the_groups_present_is_refused() -> None:
    # groups 0 and 1 of the items weigh 0; only group 2, which no item has, weighs 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(InvalidParameterError, match="weight 0 to every group") as err:
            ev_groups(["awrf(target=population, population={0: 0, 1: 0, 2: 1})@3"])
    assert (err.value.parameter, list(err.value.examples)) == ("population", [0, 1])


@settings(max_examples=examples(30), deadline=None)
@given(st.lists(st.sampled_from([1, 2, 3, 4, 5, 6, 7, 8]), min_size=1, max_size=8,
                unique=True))
def test_awrf_range(items: list[int]) -> None:
    recs = pd.DataFrame({"user_id": 1, "item_id": items,
                         "score": -np.arange(len(items), dtype=float)})
    ev = rv.evaluate(recs, recs[["user_id", "item_id"]], ["awrf"], item_groups=ITEM_GROUPS)
    v = float(ev.per_user.iloc[0, 0])
    assert 1 - math.log(2) - 1e-12 <= v <= 1 + 1e-12


# -- bad input -------------------------------------------------------------------------------------
GROUP_METRICS = ["exposure@3", "awrf@3", "rsp@3", "reo@3", "bias_disparity@3"]


@pytest.mark.parametrize("metric", GROUP_METRICS)
def test_item_groups_are_needed(metric: str) -> None:
    with pytest.raises(InvalidParameterError, match="item_groups"):
        evaluate([metric])


@pytest.mark.parametrize("metric", GROUP_METRICS)
@pytest.mark.parametrize(("groups", "error", "match"), [
    ({1: 0, 2: None}, DataError, "no group"),
    (pd.DataFrame({"item_id": [1, 2], "group": ["a||b", "c"]}), DataError, "empty groups"),
    (pd.DataFrame({"item_id": [1], "g": ["a"], "h": ["b"]}), InvalidParameterError,
     "exactly one other column"),
    (pd.DataFrame({"item_id": [], "group": []}), DataError, "empty"),
    ({"1": 0, "2": 1}, rv.exceptions.IdTypeMismatchError, "item ids"),
])
def test_bad_item_groups(metric: str, groups: object, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        evaluate([metric], item_groups=groups)


@pytest.mark.parametrize("metric", GROUP_METRICS)
def test_recommended_item_without_group(metric: str) -> None:
    partial = {i: g for i, g in ITEM_GROUPS.items() if i != 5}
    with pytest.raises(DataError, match="no group") as err:
        evaluate([metric], item_groups=partial)
    assert list(err.value.examples) == [5]


@pytest.mark.parametrize("bad", ["exposure(browsing=zipf)@3", "exposure(browsing='rbp(p=2)')@3",
                                 "exposure(browsing='rbp(patience=1.5)')@3",
                                 "ee(browsing=log)@3", "awrf(weight=2)@3",
                                 "awrf(population={0: -1})@3"])
def test_bad_parameters(bad: str) -> None:
    with pytest.raises(InvalidParameterError):
        rv.metrics.parse(bad)


def test_item_groups_from_a_table_and_a_series_agree() -> None:
    table = pd.DataFrame({"item": list(ITEM_GROUPS), "provider": list(ITEM_GROUPS.values())})
    series = pd.Series(ITEM_GROUPS)
    a = ev_groups(["exposure(browsing=log)@3"], item_groups=table)
    b = ev_groups(["exposure(browsing=log)@3"], item_groups=series)
    assert a.to_dict() == b.to_dict()
    assert RECS["item_id"].isin(table["item"]).all()
