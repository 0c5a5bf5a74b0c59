"""Calibration: miscalibration (Steck 2018) and popularity calibration (Abdollahpouri 2021).

Hand-computed values on the toy data of ``tests/fairness_toy.py`` (arithmetic in comments),
LibRec's own numbers (``convention="librec"``: its ``MiscalibrationEvaluator.java`` compiled
and run on the same data, see ``tests/fixtures/fairness/README.md``), properties and edge
cases.
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
from tests.fairness_toy import GENRES, RECS, TEST, TRAIN, evaluate, per_user
from tests.strategies import examples

A, C, D = 0, 1, 2  # Action, Comedy, Drama


def kl(p: list[float], q: list[float], alpha: float = 0.01, base: float = math.e) -> float:
    return sum(pg * math.log(pg / ((1 - alpha) * qg + alpha * pg), base)
               for pg, qg in zip(p, q, strict=True) if pg > 0)


def test_miscalibration_user_1_by_hand() -> None:
    # history {1, 2, 3}: item 1 (1/2, 1/2, 0) + item 2 (0, 0, 1) + item 3 (1, 0, 0), / 3
    p = [1.5 / 3, 0.5 / 3, 1 / 3]
    # top 3 {4, 5, 6}: item 4 (0, 1/2, 1/2) + item 5 (0, 1, 0) + item 6 (1/2, 0, 1/2), / 3
    q = [0.5 / 3, 1.5 / 3, 1 / 3]
    # q~ = 0.99 q + 0.01 p = (0.17, 0.49667, 0.33333)
    # KL = 0.5 ln(0.5 / 0.17) + 0.16667 ln(0.16667 / 0.49667) + 0 = 0.539405 - 0.181987
    assert kl(p, q) == pytest.approx(0.357417613933, abs=1e-12)
    ev = evaluate(["miscalibration@3"])
    assert per_user(ev, "miscalibration@3")[0] == pytest.approx(kl(p, q), abs=1e-15)
    # JS base 2: m = (1/3, 1/3, 1/3)
    m = [1 / 3] * 3
    js = 0.5 * kl(p, m, 0, 2) + 0.5 * kl(q, m, 0, 2)
    hel = math.sqrt(0.5 * sum((math.sqrt(a) - math.sqrt(b)) ** 2 for a, b in zip(p, q,
                                                                                   strict=True)))
    ev = evaluate(["miscalibration(divergence=js)@3", "miscalibration(divergence=hellinger)@3"])
    assert per_user(ev, "miscalibration(divergence=js)@3")[0] == pytest.approx(js, abs=1e-15)
    assert js == pytest.approx(0.125814583694, abs=1e-12)
    assert per_user(ev, "miscalibration(divergence=hellinger)@3")[0] == pytest.approx(
        hel, abs=1e-15)
    assert hel == pytest.approx(0.298858490723, abs=1e-12)


#: the spec's test vectors (fairness-spec section 1.5): per user, then the mean
VECTORS = {
    "miscalibration@3": ([0.357417613933, 0.410759249945, 0.128324515264, 0.085549676842],
                         0.245512763996),
    "miscalibration(profile_weight=rating)@3": (
        [0.274528474517, 0.369040456467, 0.161320378886, 0.047107720475], 0.212999257586),
    "miscalibration(rank_weight=log)@3": (
        [0.498963353208, 0.638312947340, 0.233101099451, 0.156819379279], 0.381799194819),
    "miscalibration(base=2)@3": (
        [0.515644619148, 0.592600332894, 0.185133141795, 0.123422094530], 0.354200047092),
    "miscalibration(divergence=js)@3": (
        [0.125814583694, 0.150689277022, 0.048794940695, 0.032529960464], 0.089457190469),
    "miscalibration(divergence=hellinger)@3": (
        [0.298858490723, 0.328285660381, 0.184591911283, 0.150718664429], 0.240613681704),
}


@pytest.mark.parametrize("metric", list(VECTORS))
def test_miscalibration_variants(metric: str) -> None:
    users, mean = VECTORS[metric]
    ev = evaluate([metric])
    assert per_user(ev, metric) == pytest.approx(users, abs=1e-12)
    assert ev[metric] == pytest.approx(mean, abs=1e-12)


def test_profile_weight_rating_by_hand() -> None:
    # user 1 rated 1: 5, 2: 4, 3: 3 -> p = (5/2 + 3, 5/2, 4) / 12 = (0.458333, 0.208333, 0.333333)
    p = [5.5 / 12, 2.5 / 12, 4 / 12]
    q = [0.5 / 3, 1.5 / 3, 1 / 3]
    ev = evaluate(["miscalibration(profile_weight=rating)@3"])
    assert per_user(ev, "miscalibration(profile_weight=rating)@3")[0] == pytest.approx(
        kl(p, q), abs=1e-15)


def test_rank_weight_log_by_hand() -> None:
    # ranks 1, 2, 3 weigh 1, 1/log2 3, 1/2: q = sum w p(g|i) / sum w
    w = [1.0, 1 / math.log2(3), 0.5]
    items = [(0, 0.5, 0.5), (0, 1, 0), (0.5, 0, 0.5)]  # items 4, 5, 6
    q = [sum(wi * it[g] for wi, it in zip(w, items, strict=True)) / sum(w) for g in (A, C, D)]
    assert q == pytest.approx([0.117320, 0.530721, 0.351959], abs=1e-6)
    p = [1.5 / 3, 0.5 / 3, 1 / 3]
    ev = evaluate(["miscalibration(rank_weight=log)@3"])
    assert per_user(ev, "miscalibration(rank_weight=log)@3")[0] == pytest.approx(
        kl(p, q), abs=1e-15)


# -- LibRec ----------------------------------------------------------------------------------------
#: MiscalibrationEvaluator.java (LibRec 3.0.0 @ 296082c) compiled and run on the toy data
LIBREC = {1: 0.9832701324409321, 2: 0.8136556194340342, 3: -0.4449949296935908,
          4: 1.31419294269724, "k=3": 0.6665309412196538, "k=4": 0.39885218755303065,
          "item 6 no genre": 1.1454529295200195}


def test_librec_convention_reproduces_librec() -> None:
    ev = evaluate(["miscalibration@3", "miscalibration@4"], convention="librec")
    assert per_user(ev, "miscalibration@3") == pytest.approx(
        [LIBREC[u] for u in (1, 2, 3, 4)], abs=1e-12)
    assert ev[ev.labels[0]] == pytest.approx(LIBREC["k=3"], abs=1e-12)
    assert ev[ev.labels[1]] == pytest.approx(LIBREC["k=4"], abs=1e-12)
    assert ev.settings["metrics"][ev.labels[0]]["library_name"] == \
        "MiscalibrationEvaluator (rec.recommender.ranking.topn=3)"


def test_librec_user_1_by_hand() -> None:
    # list shares (each genre of an item counts 1, over 3 items): Action 1/3, Comedy 2/3,
    # Drama 2/3; training shares (2/3, 1/3, 1/3); KL(list || 0.99 train + 0.01 list), log2
    lst, trn = [1 / 3, 2 / 3, 2 / 3], [2 / 3, 1 / 3, 1 / 3]
    want = sum(a * math.log2(a / (0.99 * b + 0.01 * a)) for a, b in zip(lst, trn, strict=True))
    assert want == pytest.approx(-0.330925 + 0.657097 + 0.657097, abs=3e-6)
    assert want == pytest.approx(LIBREC[1], abs=1e-12)


def test_librec_item_without_genre_counts_in_the_denominator() -> None:
    # LibRec's item 6 has an all-zero genre row; in receval item 6 is not in item_features
    # and item_features_missing='skip': under split='binary' it still counts in |S|
    genres = GENRES[GENRES["item_id"] != 6]
    ev = evaluate(["miscalibration@3"], convention="librec", item_features=genres,
                  item_features_missing="skip")
    assert ev[ev.labels[0]] == pytest.approx(LIBREC["item 6 no genre"], abs=1e-12)


def test_librec_difference_user_without_training_rows_is_skipped() -> None:
    # LibRec's mean is NaN when user 3 has no training row; receval leaves user 3 out and
    # counts them (the convention's first listed difference)
    train = TRAIN[TRAIN["user_id"] != 3]
    ev = evaluate(["miscalibration@3"], convention="librec", train=train)
    s = ev.summaries[ev.labels[0]]
    assert s.n_undefined == 1
    assert math.isnan(per_user(ev, "miscalibration@3")[2])
    assert s.value == pytest.approx((LIBREC[1] + LIBREC[2] + LIBREC[4]) / 3, abs=1e-12)
    assert ev.settings["calibration"]["users_without_training_rows"] == 1
    assert any("NaN" in d for d in rv.conventions.get("librec").differences)


def test_librec_counts_only_users_with_truth() -> None:
    recs = pd.concat([RECS, pd.DataFrame({"user_id": [9], "item_id": [1], "score": [1.0]})])
    train = pd.concat([TRAIN, pd.DataFrame({"user_id": [9], "item_id": [2], "rating": [3]})])
    plain = evaluate(["miscalibration@3"], recs=recs, train=train)
    assert 9 in plain.per_user.index
    assert not math.isnan(plain.per_user.iloc[-1, 0])
    ev = evaluate(["miscalibration@3"], recs=recs, train=train, convention="librec")
    assert ev[ev.labels[0]] == pytest.approx(LIBREC["k=3"], abs=1e-12)


# -- popularity calibration ------------------------------------------------------------------------
def js2(p: list[float], q: list[float]) -> float:
    m = [(a + b) / 2 for a, b in zip(p, q, strict=True)]
    return 0.5 * kl(p, m, 0, 2) + 0.5 * kl(q, m, 0, 2)


def test_popularity_calibration_by_hand() -> None:
    # training counts 1:3 2:3 3:2 4:1 5:1 6:1 7:1 (12 rows); by count, ties by id:
    # 1 2 3 4 5 6 7. Head: shortest prefix reaching 20 % -> {1} (3/12 = 0.25);
    # tail: longest suffix within 20 % -> {7, 6} (2/12; adding 5 gives 0.25); item 8 absent:
    # tail. Shares (head, mid, tail):
    p = {1: [1 / 3, 2 / 3, 0], 2: [1 / 4, 3 / 4, 0], 3: [1 / 2, 0, 1 / 2], 4: [0, 2 / 3, 1 / 3]}
    q = {1: [0, 2 / 3, 1 / 3], 2: [0, 1 / 3, 2 / 3], 3: [0, 1, 0], 4: [1 / 3, 1 / 3, 1 / 3]}
    want = [js2(p[u], q[u]) for u in (1, 2, 3, 4)]
    assert want == pytest.approx([1 / 3, 0.517650361548, 1.0, 0.207518749639], abs=1e-12)
    ev = evaluate(["popularity_calibration@3"])
    assert per_user(ev, "popularity_calibration@3") == pytest.approx(want, abs=1e-15)
    assert ev["popularity_calibration@3"] == pytest.approx(0.514625611130, abs=1e-12)
    # head = 0.5: H = {1, 2} (6/12), M = {3, 4, 5}, T = {6, 7}
    ev = evaluate(["popularity_calibration(head=0.5)@3"])
    assert ev[ev.labels[0]] == pytest.approx(0.432931646898, abs=1e-12)


def test_popularity_calibration_upd_is_the_mean_of_group_means() -> None:
    ev = evaluate(["popularity_calibration@3"])
    by = ev.by({1: "a", 2: "a", 3: "b", 4: "b"})
    assert by[ev.labels[0]].mean() == pytest.approx(0.514625611130, abs=1e-12)


def test_popularity_calibration_absent_skip_and_by_items() -> None:
    # absent='skip': item 8 (in user 1's and 2's lists beyond k = 3, user 4's too) has no
    # class; with k = 4 user 1's list 4 5 6 8 has three classed items
    ev = evaluate(["popularity_calibration(absent=skip)@4", "popularity_calibration@4"])
    skip, tail = (per_user(ev, m) for m in ev.labels)
    # user 1, history (1/3, 2/3, 0); list without 8: (0, 2/3, 1/3) -> as at k = 3
    assert skip[0] == pytest.approx(1 / 3, abs=1e-15)
    # with 8 in the tail: list (0, 2/4, 2/4)
    assert tail[0] == pytest.approx(js2([1 / 3, 2 / 3, 0], [0, 0.5, 0.5]), abs=1e-15)
    # by items: 7 training items, head floor(0.2 * 7) = 1 item {1}, tail 1 item {7}
    ev = evaluate(["popularity_calibration(by=items)@3"])
    q1 = [0, 1, 0]  # 4 5 6 all mid
    assert per_user(ev, ev.labels[0])[0] == pytest.approx(js2([1 / 3, 2 / 3, 0], q1),
                                                            abs=1e-15)


# -- properties ------------------------------------------------------------------------------------
@st.composite
def profiles(draw: st.DrawFn) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    n_items = draw(st.integers(3, 9))
    genres = pd.DataFrame({"item_id": range(n_items), "genre": [
        "|".join(draw(st.lists(st.sampled_from("abcd"), min_size=1, max_size=3, unique=True)))
        for _ in range(n_items)]})
    rows = []
    for user in range(draw(st.integers(1, 4))):
        items = draw(st.lists(st.integers(0, n_items - 1), min_size=1, max_size=n_items,
                              unique=True))
        rows += [(user, i, float(len(items) - r)) for r, i in enumerate(items)]
    train = pd.DataFrame(rows, columns=["user_id", "item_id", "score"])
    return train, train.rename(columns={"score": "rating"}), genres


METRICS = ["miscalibration", "miscalibration(divergence=js)",
           "miscalibration(divergence=hellinger)", "miscalibration(split=binary)",
           "popularity_calibration", "popularity_calibration(divergence=kl)"]


@settings(max_examples=examples(25), deadline=None)
@given(profiles())
def test_zero_when_the_list_mirrors_the_profile(data: tuple[pd.DataFrame, ...]) -> None:
    recs, train, genres = data  # each user's list is their whole history
    ev = rv.evaluate(recs, recs[["user_id", "item_id"]], METRICS, train=train,
                     item_features=genres)
    assert np.abs(ev.per_user.to_numpy()).max() < 1e-12


@settings(max_examples=examples(25), deadline=None)
@given(profiles(), st.integers(1, 4))
def test_ranges(data: tuple[pd.DataFrame, ...], k: int) -> None:
    recs, train, genres = data
    other = recs.assign(item_id=(recs["item_id"] + 1) % (recs["item_id"].max() + 1))
    ms = [f"{m}@{k}" for m in METRICS[:3]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = rv.evaluate(other, other[["user_id", "item_id"]], ms, train=train,
                         item_features=genres)
    kl_, js_, hel = (ev.per_user[x].to_numpy() for x in ev.labels)
    assert (kl_ >= -1e-12).all()
    assert np.isfinite(kl_).all()
    assert ((js_ >= -1e-12) & (js_ <= 1 + 1e-12)).all()
    assert ((hel >= -1e-12) & (hel <= 1 + 1e-12)).all()


# -- edge cases and bad input ----------------------------------------------------------------------
def test_user_without_training_rows_is_undefined_and_counted() -> None:
    ev = evaluate(["miscalibration@3", "popularity_calibration@3"],
                  train=TRAIN[TRAIN["user_id"] != 2])
    for label in ev.labels:
        assert math.isnan(per_user(ev, label)[1])
        assert ev.summaries[label].n_undefined == 1
        assert ev.summaries[label].n_users == 3


def test_needs_train_and_features() -> None:
    with pytest.raises(InvalidParameterError, match="train"):
        rv.evaluate(RECS, TEST, ["miscalibration@3"], item_features=GENRES)
    with pytest.raises(InvalidParameterError, match="item_features"):
        rv.evaluate(RECS, TEST, ["miscalibration@3"], train=TRAIN)
    with pytest.raises(InvalidParameterError, match="rating"):
        evaluate(["miscalibration(profile_weight=rating)@3"],
                 train=TRAIN[["user_id", "item_id"]])


def test_items_without_categories() -> None:
    genres = GENRES[GENRES["item_id"] != 4]
    with pytest.raises(DataError, match="no features") as err:
        evaluate(["miscalibration@3"], item_features=genres)
    assert "similarit" not in str(err.value)  # miscalibration compares categories
    # skip: item 4 carries no mass and leaves the denominators: user 1's list is {5, 6}
    ev = evaluate(["miscalibration@3"], item_features=genres, item_features_missing="skip")
    p, q = [1.5 / 3, 0.5 / 3, 1 / 3], [0.5 / 2, 1 / 2, 0.5 / 2]
    assert per_user(ev, "miscalibration@3")[0] == pytest.approx(kl(p, q), abs=1e-15)


# item 9 is in user 1's history and has no genre; item 4 is recommended and has none. The
# reason and the remedy are the metric's: categories for miscalibration, similarities for
# diversity and serendipity
@pytest.mark.parametrize(("metric", "drop", "what", "says"), [
    ("miscalibration@3", 9, "1 training items of users with a list",
     "the category distribution of the user's history would leave them out"),
    ("miscalibration@3", 4, "1 recommended items", "count them in no category"),
    ("diversity@3", 4, "1 recommended items", "leave them out of similarities"),
    ("serendipity(expected=similarity, similarity=cosine)@3", 9,
     "1 training items of users with a list",
     "a mean similarity to the user's history would leave them out"),
])
def test_items_without_features_message_names_the_metrics_use(metric: str, drop: int,
                                                              what: str, says: str) -> None:
    train = pd.concat([TRAIN, pd.DataFrame({"user_id": [1], "item_id": [9], "rating": [3]})])
    genres = GENRES[GENRES["item_id"] != drop]
    with pytest.raises(DataError, match=f"^item_features: {what} have no features") as err:
        evaluate([metric], train=train, item_features=genres)
    assert says in str(err.value)
    assert list(err.value.examples) == [drop]


@pytest.mark.parametrize("bad", ["miscalibration(alpha=1.0)@3", "miscalibration(base=1)@3",
                                 "miscalibration(divergence=js, order=list_profile)@3",
                                 "popularity_calibration(head=0.7, tail=0.4)@3",
                                 "miscalibration(ties=expected)@3"])
def test_bad_parameters(bad: str) -> None:
    with pytest.raises(InvalidParameterError):
        evaluate([bad])


def test_negative_wide_features_are_refused() -> None:
    wide = pd.DataFrame({"item_id": range(1, 9), "x": [1.0, -1, 0, 1, 1, 0, 1, 1],
                         "y": [0.0, 1, 1, 1, 0, 1, 0, 1]})
    with pytest.raises(DataError, match="negative"):
        evaluate(["miscalibration@3"], item_features=wide)
