"""Group fairness of the lists: RSP, REO (and their popularity forms), delta GAP, bias disparity.

Worked examples on the toy data of ``tests/fairness_toy.py`` (k = 3), arithmetic in the
comments; the numbers Elliot's and ClayRS's own code print on the same data (run from
their sources, fairness-spec sections 7-9) are the conventions' test vectors.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval.exceptions import DataError, InvalidParameterError
from tests.fairness_toy import ITEM_GROUPS, RECS, TEST, TRAIN, USER_GROUPS, evaluate


def ev_groups(metrics: list[str], **kw: object) -> rv.EvaluationResult:
    kw.setdefault("item_groups", ITEM_GROUPS)
    kw.setdefault("user_groups", USER_GROUPS)
    return evaluate(metrics, **kw)  # type: ignore[arg-type]


def rel_std(p: list[float], eps: float = 0.0) -> float:
    return float(np.std(p) / (np.mean(p) + eps))


# -- RSP, REO --------------------------------------------------------------------------------------
def test_rsp_by_hand() -> None:
    # recommended (top 3) per group: g0 = 0 + 1 + 2 + 1 = 4, g1 = 3 + 2 + 1 + 2 = 8;
    # candidates |I_g - T_u|: g0 = 0 + 1 + 2 + 1 = 4 (3 items minus the user's training
    # items of g0), g1 = 5 + 3 + 4 + 4 = 16 -> P = (1, 1/2): std 1/4, mean 3/4
    ev = ev_groups(["rsp@3"])
    table = ev.groups("rsp@3")
    assert table["recommended"].tolist() == [4, 8]
    assert table["candidates"].tolist() == [4, 16]
    assert table["probability"].tolist() == [1.0, 0.5]
    assert ev["rsp@3"] == rel_std([1.0, 0.5]) == 0.3333333333333333  # Elliot: the same


def test_reo_by_hand() -> None:
    # hits per group: g0 = 3 (item 3 for user 2, 2 for 3, 1 for 4), g1 = 2 (4 and 6 for 1);
    # relevant items not in train: g0 = 3 (3, 2, 1), g1 = 6 (4, 6, 8, 7, 5, 8)
    ev = ev_groups(["reo@3"])
    table = ev.groups("reo@3")
    assert table["hits"].tolist() == [3, 2]
    assert table["relevant"].tolist() == [3, 6]
    assert ev["reo@3"] == 0.5000000000000001  # Elliot prints the same


#: Elliot 0.3.1's metric classes on the toy data (fairness-spec 7.4, ran unchanged)
ELLIOT = {"rsp@3": 0.3333333333333333, "reo@3": 0.5000000000000001,
          "rsp(groups=popularity)@3": 0.09090909090909095,
          "reo(groups=popularity)@3": 0.23076923076923078,
          "rsp(groups=popularity, pop_ratio=0.5)@3": 0.16666666666666666,
          "reo(groups=popularity, pop_ratio=0.5)@3": 0.25}


@pytest.mark.parametrize("metric", list(ELLIOT))
def test_elliot_convention(metric: str) -> None:
    ev = ev_groups([metric], convention="elliot")
    assert ev[ev.labels[0]] == ELLIOT[metric]


def test_popularity_groups_by_hand() -> None:
    # short head: items by distinct training users, 1 (3), 2 (3), 3 (2), 4 (1), 5 (1) reach
    # 10 >= 0.8 * 12 -> head {1..5}, tail {6, 7}; item 8 is in neither (skipped).
    # PopRSP: recommended head 8, tail 4; candidates head 5 * 4 - 10 = 10, tail 2 * 4 - 2
    ev = ev_groups(["rsp(groups=popularity, ungrouped=skip)@3"])
    table = ev.groups(ev.labels[0])
    assert table.index.tolist() == ["head", "tail"]
    assert table["recommended"].tolist() == [8, 4]
    assert table["candidates"].tolist() == [10, 6]
    assert ev[ev.labels[0]] == rel_std([0.8, 4 / 6])


def test_zhu_convention_adds_1e_10() -> None:
    ev = ev_groups(["rsp@3", "reo@3"], convention="zhu2020")
    assert ev[ev.labels[0]] == rel_std([1.0, 0.5], 1e-10) == 0.33333333328888887
    assert ev[ev.labels[1]] == rel_std([1.0, 1 / 3], 1e-10)


def test_multi_group_items_count_in_each_group() -> None:
    # item 6 in both groups: each of its 3 top-3 appearances counts in g0 and in g1
    ev = ev_groups(["rsp@3"], item_groups={**ITEM_GROUPS, 6: [0, 1]})
    assert ev.groups("rsp@3")["recommended"].tolist() == [4 + 3, 8]


def test_users_truth_and_empty_group() -> None:
    recs = pd.concat([RECS, pd.DataFrame({"user_id": [9], "item_id": [1], "score": [1.0]})])
    a = ev_groups(["rsp@3", "rsp(users=truth)@3"], recs=recs)
    assert a.summaries[a.labels[0]].n_users == 5
    assert a.summaries[a.labels[1]].n_users == 4
    assert a[a.labels[1]] == ELLIOT["rsp@3"]
    # a group no user can be recommended: its probability is 0 / 0
    with pytest.raises(DataError, match="denominator"):
        ev_groups(["reo@3"], item_groups={**{i: 0 for i in range(1, 9)}, 99: 5})


# -- delta GAP -------------------------------------------------------------------------------------
def test_delta_gap_by_hand() -> None:
    # phi(i) = training rows / 4 users: 1, 2: 0.75; 3: 0.5; 4-7: 0.25; 8: 0
    # popular items: round(0.2 * 7) = 1 -> {1} (1 and 2 tie at 0.75; first seen in train: 1)
    # share of popular items in the profile: user 1 1/3, 2 1/4, 3 1/2, 4 0 -> order 3 1 2 4;
    # shares (0.25, 0.5, 0.25) of 4 users: blockbuster {3}, diverse {1, 2}, niche {4}
    ev = ev_groups(["delta_gap(shares=(0.25, 0.5, 0.25))@3"], convention="clayrs")
    table = ev.groups(ev.labels[0])
    assert table.index.tolist() == ["blockbuster", "diverse", "niche"]
    # blockbuster {3}: lists (0.75 + 0.5 + 0.25) / 3 = 0.5, profile (0.75 + 0.25) / 2 = 0.5
    # diverse {1, 2}: lists (0.25 + 1/3) / 2, profiles (2/3 + 1/2) / 2
    # niche {4}: lists (0.25 + 0.25 + 0.75) / 3, profile (0.75 + 0.5 + 0.25) / 3
    assert table["gap_recs"].tolist() == pytest.approx([0.5, (0.25 + 1 / 3) / 2, 1.25 / 3],
                                                       abs=1e-15)
    assert table["gap_profile"].tolist() == pytest.approx([0.5, (2 / 3 + 0.5) / 2, 0.5],
                                                          abs=1e-15)
    # ClayRS 0.5.1 prints exactly these
    assert table["delta_gap"].tolist() == [0.0, -0.5, -0.16666666666666663]
    # the value: every user together, lists 0.40625 vs profiles 0.5833... -> -0.3077
    recs = (0.25 + 1 / 3 + 0.5 + 1.25 / 3) / 4
    prof = (2 / 3 + 0.5 + 0.5 + 0.5) / 4
    assert ev[ev.labels[0]] == pytest.approx((recs - prof) / prof, abs=1e-15)


def test_delta_gap_given_user_groups() -> None:
    ev = ev_groups(["delta_gap(user_groups=given)@3"])
    table = ev.groups(ev.labels[0])
    assert table.index.tolist() == [0, 1]
    assert table["users"].tolist() == [2, 2]
    with pytest.raises(InvalidParameterError, match="user_groups"):
        evaluate(["delta_gap(user_groups=given)@3"])


def test_delta_gap_default_shares() -> None:
    # (0.2, 0.6, 0.2) of 4 users: slices [0, round(0.8) = 1), [1, round(3.2) = 3), [3, 4)
    a = ev_groups(["delta_gap@3"])
    b = ev_groups(["delta_gap(shares=(0.25, 0.5, 0.25))@3"])
    assert a.groups(a.labels[0]).equals(b.groups(b.labels[0]))


# -- bias disparity --------------------------------------------------------------------------------
def test_bias_disparity_by_hand() -> None:
    # P(C) = (3/8, 5/8). User group 0 (users 1, 2): training items in C0: 3 + 2, in C1: 0 +
    # 2 -> PR_S = (5/7, 2/7), B_S = (5/7 / 3/8, 2/7 / 5/8); lists: C0 1, C1 5 -> B_R =
    # (1/6 / 3/8, 5/6 / 5/8)
    ev = ev_groups(["bias_disparity@3"])
    t = ev.groups("bias_disparity@3")
    assert t.loc[(0, 0), "bs"] == pytest.approx(5 / 7 / (3 / 8), abs=1e-15)
    assert t.loc[(0, 1), "br"] == pytest.approx(5 / 6 / (5 / 8), abs=1e-15)
    # Elliot's BiasDisparityBD prints these four numbers
    assert t["bd"].tolist() == [-0.7666666666666667, 1.9166666666666672,
                                -0.16666666666666663, 0.25000000000000006]
    assert ev["bias_disparity@3"] == pytest.approx(np.mean(np.abs(t["bd"])), abs=1e-15)
    br = ev_groups(["bias_disparity(part=br)@3"])
    assert br[br.labels[0]] == pytest.approx(t["br"].mean(), abs=1e-15)


def test_bias_disparity_without_user_groups_is_one_group() -> None:
    ev = evaluate(["bias_disparity@3"], item_groups=ITEM_GROUPS)
    t = ev.groups("bias_disparity@3")
    assert t.index.get_level_values(0).unique().tolist() == ["all"]
    # every training row: C0 8 of 12 -> B_S = (8/12) / (3/8)
    assert t.loc[("all", 0), "bs"] == pytest.approx(8 / 12 / (3 / 8), abs=1e-15)


# -- user groups input -----------------------------------------------------------------------------
@pytest.mark.parametrize("metric", ["delta_gap(user_groups=given)@3", "bias_disparity@3"])
@pytest.mark.parametrize(("groups", "error", "match"), [
    (pd.DataFrame({"user_id": [1, 1], "g": ["a", "b"]}), DataError, "several groups"),
    ({1: None}, DataError, "no group"),
    ({"1": "a"}, rv.exceptions.IdTypeMismatchError, "user ids"),
    (pd.Series([0, 1], index=[1, 1]), DataError, "repeated"),
])
def test_bad_user_groups(metric: str, groups: object, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        ev_groups([metric], user_groups=groups)


def test_users_without_a_group_are_left_out() -> None:
    ev = ev_groups(["delta_gap(user_groups=given)@3", "bias_disparity@3"],
                   user_groups={1: 0, 2: 0, 3: 1})
    assert ev.groups(ev.labels[0])["users"].tolist() == [2, 1]
    assert ev.summaries[ev.labels[1]].n_users == 3


def test_groups_accessor_errors() -> None:
    ev = ev_groups(["rsp@3", "ndcg@3"])
    with pytest.raises(InvalidParameterError, match="no per-group values"):
        ev.groups("ndcg@3")
    with pytest.raises(rv.exceptions.UnknownMetricError):
        ev.groups("reo@3")


def test_needs_train() -> None:
    for metric in ("rsp@3", "reo@3", "delta_gap@3", "bias_disparity@3"):
        with pytest.raises(InvalidParameterError, match="train"):
            rv.evaluate(RECS, TEST, [metric], item_groups=ITEM_GROUPS,
                        user_groups=USER_GROUPS)
    assert math.isfinite(ev_groups(["rsp@3"], train=TRAIN)["rsp@3"])
