"""``rv.explain`` for miscalibration and AWRF: the worked tables of the toy data.

The value of an explanation is :func:`receval.evaluate`'s on a one-user table; its tables
are computed apart, from the metric's parameters. The tests check the hand computation,
that the tables' terms add up to the value, and that the value is the one ``evaluate``
gives each user of the toy data under every variant.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
import pytest

import receval as rv
from receval.exceptions import InvalidParameterError
from tests.fairness_toy import GENRES, ITEM_GROUPS, RECS, TEST, TRAIN

LISTS = {u: RECS[RECS.user_id == u].sort_values("score", ascending=False).item_id.tolist()
         for u in range(1, 5)}


def test_miscalibration_by_hand() -> None:
    # user 1's history {1, 2, 3}: 1 Action|Comedy (1/2 each), 2 Drama, 3 Action:
    # p = (Action 1/2 + 1, Comedy 1/2, Drama 1) / 3 = (1/2, 1/6, 1/3)
    # top 3 {4, 5, 6}: 4 Comedy|Drama, 5 Comedy, 6 Action|Drama: q = (1/6, 1/2, 1/3)
    # q~ = 0.99 q + 0.01 p: Action 0.99/6 + 0.005 = 0.17, Comedy 0.495 + 0.01/6 = 0.49667
    # terms: 0.5 ln(0.5 / 0.17) = 0.539405, (1/6) ln((1/6) / 0.49667) = -0.181987, Drama 0
    e = rv.explain("miscalibration@3", LISTS[1], train=TRAIN, item_features=GENRES, user=1)
    t = e.table.set_index("genre")
    assert list(t["p"]) == pytest.approx([1 / 2, 1 / 6, 1 / 3], abs=1e-15)
    assert list(t["q"]) == pytest.approx([1 / 6, 1 / 2, 1 / 3], abs=1e-15)
    assert t.loc["Action", "q~"] == pytest.approx(0.17, abs=1e-15)
    assert list(t["term"]) == pytest.approx([0.5 * math.log(0.5 / 0.17),
                                             (1 / 6) * math.log((1 / 6) / (0.495 + 0.01 / 6)),
                                             0.0], abs=1e-12)
    assert e.value == pytest.approx(0.357418, abs=1e-6)
    assert "q~" in str(e)
    assert "KL = sum of terms" in str(e)


CALIBRATION = ["miscalibration@3", "miscalibration(divergence=js)@3",
               "miscalibration(divergence=hellinger, rank_weight=log)@3",
               "miscalibration(profile_weight=rating, alpha=0.1)@2",
               "miscalibration(split=binary, order=list_profile, base=2)@3",
               "miscalibration(rank_weight=log)@4"]


@pytest.mark.parametrize("name", CALIBRATION)
def test_miscalibration_terms_give_the_value_of_evaluate(name: str) -> None:
    ev = rv.evaluate(RECS, TEST, name, train=TRAIN, item_features=GENRES)
    m = rv.metrics.parse(name)
    for user, items in LISTS.items():
        e = rv.explain(name, items, train=TRAIN, item_features=GENRES, user=user)
        assert e.value == pytest.approx(ev.per_user.loc[user, m.label], abs=1e-12)
        total = float(e.table["term"].sum())
        want = math.sqrt(0.5 * total) if m.divergence == "hellinger" else total
        assert want == pytest.approx(e.value, abs=1e-12)


def test_awrf_by_hand() -> None:
    # user 1's top 3: items 4, 5, 6, all in group 1; w = 1/log2(max(r, 2)) = 1, 1, 1/log2 3
    # D = (0, 1), uniform T = (1/2, 1/2), M = (1/4, 3/4)
    # JS = 1/2 [1/2 ln(2) + 1/2 ln(2/3)] + 1/2 [ln(4/3)] = 0.215762 -> AWRF = 0.784238
    e = rv.explain("awrf@3", LISTS[1], item_groups=ITEM_GROUPS)
    assert list(e.positions["w"]) == pytest.approx([1, 1, 1 / math.log2(3)], abs=1e-15)
    assert list(e.table["D"]) == [0.0, 1.0]
    js = 0.5 * (0.5 * math.log(2) + 0.5 * math.log(2 / 3)) + 0.5 * math.log(4 / 3)
    assert float(e.table["term"].sum()) == pytest.approx(js, abs=1e-15)
    assert e.value == pytest.approx(1 - js, abs=1e-12)
    assert "rank" in str(e)
    assert "AWRF = 1 - JS" in str(e)


AWRF = ["awrf@3", "awrf(target=population)@3", "awrf(target=relevance)@3",
        "awrf(target=mix, weight=0.3, discount=log2)@4", "awrf(precision=float32)@2",
        "awrf(target=relevance, times_ndcg=true)@3"]


@pytest.mark.parametrize("name", AWRF)
def test_awrf_tables_give_the_value_of_evaluate(name: str) -> None:
    ev = rv.evaluate(RECS, TEST, name, item_groups=ITEM_GROUPS)
    m = rv.metrics.parse(name)
    for user, items in LISTS.items():
        relevant = TEST[TEST.user_id == user].item_id.tolist()
        e = rv.explain(name, items, item_groups=ITEM_GROUPS, relevant=relevant)
        assert e.value == pytest.approx(ev.per_user.loc[user, m.label], abs=1e-7 if
                                        m.precision == "float32" else 1e-12)
        if not m.times_ndcg:
            assert 1 - float(e.table["term"].sum()) == pytest.approx(e.value, abs=1e-7)


@pytest.mark.parametrize(("name", "kw", "words"), [
    ("miscalibration@3", {"item_features": GENRES}, "needs train"),
    ("miscalibration@3", {"train": TRAIN, "item_features": GENRES}, "name whose history"),
    ("awrf@3", {}, "needs item_groups"),
    ("awrf(target=relevance)@3", {"item_groups": ITEM_GROUPS}, "relevant="),
    ("awrf(groups=popularity)@3", {"item_groups": ITEM_GROUPS}, "popularity"),
    ("rsp@3", {"item_groups": ITEM_GROUPS}, "group_exposure metric"),
])
def test_explain_refuses(name: str, kw: dict[str, Any], words: str) -> None:
    with pytest.raises(InvalidParameterError, match=words):
        rv.explain(name, LISTS[1], **kw)


def test_the_table_is_plain_data() -> None:
    e = rv.explain("awrf@3", LISTS[2], item_groups=ITEM_GROUPS)
    assert isinstance(e.table, pd.DataFrame)
    assert isinstance(e.positions, pd.DataFrame)
    assert "<table" in e._repr_html_()
