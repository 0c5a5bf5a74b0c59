"""Debiased metrics: IPS and SNIPS recall, hit rate, DCG, nDCG, AP and AUC; Cornac's protocol.

Worked examples on the toy data of ``tests/fairness_toy.py`` (k = 3) with Yang et al.'s
popularity propensities at gamma = 1 (``P_i`` proportional to ``n_i``, so ``w_i`` = max n /
n_i: items 1, 2: 1, item 3: 1.5, items 4-7: 3; item 8 is absent from train and skipped), the
numbers of RecPack's ``IPSHitRateK`` and of Yang et al.'s ``eq()`` (both ran on the same
data, fairness-spec section 11), properties, an MNAR simulation, and bad input.
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
from tests.fairness_toy import RECS, TEST, TRAIN, evaluate, per_user
from tests.strategies import datasets, examples

G1 = "propensity='popularity(gamma=1)'"


def test_snips_recall_by_hand() -> None:
    # scale-free: take w_i = 1 / n_i. User 1: positives 4 (1), 6 (1), both in the top 3:
    # 2 / 2 = 1. User 2: 3 (1/2) hit, 8 skipped: 1. User 3: 2 (1/3) hit, 7 (1) missed:
    # (1/3) / (4/3) = 0.25. User 4: 1 (1/3) hit, 5 (1) missed, 8 skipped: 0.25
    ev = evaluate([f"recall({G1})@3", f"recall({G1}, normalize=pooled)@3",
                   f"recall({G1}, aggregation=micro)@3", "recall@3"])
    snips, pooled, micro, plain = ev.labels
    assert per_user(ev, snips) == [1.0, 1.0, 0.25, 0.25]
    assert ev[snips] == 0.625
    # pooled: mean of hit weight / n_u over mean of total weight / n_u:
    # (2/2 + 0.5/1 + (1/3)/2 + (1/3)/2) / (2/2 + 0.5/1 + (4/3)/2 + (4/3)/2)
    num = 2 / 2 + 0.5 / 1 + (1 / 3) / 2 + (1 / 3) / 2
    den = 2 / 2 + 0.5 / 1 + (4 / 3) / 2 + (4 / 3) / 2
    assert ev[pooled] == pytest.approx(num / den, abs=1e-15)
    assert ev[pooled] == pytest.approx(0.6470588235294119, abs=1e-15)
    # micro: every hit weight over every positive weight: (2 + 0.5 + 1/3 + 1/3) / (2 + 0.5
    # + 4/3 + 4/3)
    assert ev[micro] == pytest.approx((2 + 0.5 + 2 / 3) / (2.5 + 8 / 3), abs=1e-15)
    # the plain metric on the same positives (items 8 left out): (1 + 1 + 1/2 + 1/2) / 4
    assert ev[plain] == pytest.approx((1 + 0.5 + 0.5 + 1 / 3) / 4, abs=1e-15)


def test_weighted_ndcg_dcg_ap_auc_by_hand() -> None:
    ms = [f"ndcg(gain=binary, {G1})@3", f"dcg(gain=binary, {G1}, estimator=ips)@3",
          f"dcg(gain=binary, {G1})@3", f"ap({G1})@3", f"auc({G1})"]
    ev = evaluate(ms)
    ndcg, ips_dcg, snips_dcg, ap, auc = (per_user(ev, m) for m in ev.labels)
    # user 1, w = 1/n: 4 (1) at rank 1, 6 (1) at rank 3: DCG 1 + 1/2; ideal 1 + 1/log2 3
    assert ndcg[0] == pytest.approx(1.5 / (1 + 1 / math.log2(3)), abs=1e-15)
    assert ndcg[0] == pytest.approx(0.919720789148, abs=1e-12)
    # user 3: 2 (w 1/3) at rank 1, 7 (w 1) missed: 1/3 / (1 + (1/3) / log2 3)
    assert ndcg[2] == pytest.approx((1 / 3) / (1 + (1 / 3) / math.log2(3)), abs=1e-15)
    # with gamma = 1 the weights are max n / n_i = 3 / n_i (propensity n_i / max n):
    # IPS-DCG of user 3 = 3 * (1/3) * 1 = 1; SNIPS-DCG = n_u DCG / sum w = 2 * 1 / (1 + 3)
    assert ips_dcg[2] == pytest.approx(1.0, abs=1e-15)
    assert snips_dcg[2] == pytest.approx(2 * 1.0 / 4.0, abs=1e-15)
    # AP@3, min(k, |R|) heaviest weights as denominator. User 1: hits at 1 and 3,
    # w (3, 3): (3 * 1/1 + 3 * 2/3) / (3 + 3)
    assert ap[0] == pytest.approx((3 + 2) / 6, abs=1e-15)
    # user 3: hit 2 (w 1) at rank 1; heaviest two weights of {1, 3}: 4
    assert ap[2] == pytest.approx(1 / 4, abs=1e-15)
    # AUC over the whole list; user 1: 4 5 6 8, positives 4 (above both negatives: 1)
    # and 6 (above 8: 1/2), equal weights -> 3/4; users 2-4: the positive first -> 1
    assert auc == pytest.approx([0.75, 1.0, 1.0, 1.0], abs=1e-15)


#: RecPack 0.3.6's IPSHitRateK on the toy data, fitted on the binary training matrix
RECPACK = {"users": [24.0, 6.0, 4.0, 4.0], "mean": 9.5, "cap 5": 5.75}


def test_recpack_convention() -> None:
    # item_prob = n_i / 12: ip = 1: 4, 2: 4, 3: 6, 4-7: 12, 8: 0 (never interacted);
    # user 1 hits 4 and 6: 12 + 12
    ev = evaluate(["hit_rate@3", "hit_rate(max_weight=5)@3"], convention="recpack")
    assert per_user(ev, ev.labels[0]) == RECPACK["users"]
    assert ev[ev.labels[0]] == RECPACK["mean"]
    assert ev[ev.labels[1]] == RECPACK["cap 5"]  # 10 + 5 + 4 + 4, / 4
    assert ev.settings["propensity"][ev.labels[1]]["clipped"] == 5


#: Yang et al.'s eq() on the toy data: its recall is recall@1 (fairness-spec 11.5)
YANG = {-1.0: 0.625, 0.0: 0.5580127018922194, 1.0: 0.5, 1.5: 0.47604639526553005}


@pytest.mark.parametrize("gamma", list(YANG))
def test_yang2018_convention(gamma: float) -> None:
    ev = evaluate([f"recall(propensity='popularity(gamma={gamma})')@1"],
                  convention="yang2018")
    assert ev[ev.labels[0]] == pytest.approx(YANG[gamma], abs=1e-15)
    assert ev.settings["metrics"][ev.labels[0]]["library_name"] == "eq() recall"


def test_fitted_gamma_is_recorded() -> None:
    from receval._engine._families._weighted import fitted_gamma

    counts = np.array([3, 3, 2, 1, 1, 1, 1.0])
    want = 1 + 7 / np.sum(np.log(counts / 0.5))
    assert fitted_gamma(counts) == pytest.approx(want, abs=1e-15)
    ev = evaluate(["recall(propensity=popularity)@3"])
    info = ev.settings["propensity"][ev.labels[0]]
    assert info["gamma_fitted"] == pytest.approx(want, abs=1e-15)


def test_diagnostics_by_hand() -> None:
    # gamma = 1, weights 3 / n_i of the 7 positives (two of item 8 skipped):
    # 4: 3, 6: 3, 3: 1.5, 2: 1, 7: 3, 1: 1, 5: 3 -> sum 15.5, sum of squares 40.25
    ev = evaluate([f"recall({G1})@3"])
    info = ev.settings["propensity"][ev.labels[0]]
    assert info["positives"] == 7
    assert info["absent"] == 2
    assert info["effective_sample_size"] == pytest.approx(15.5 ** 2 / 40.25, abs=1e-12)
    assert info["largest_weight_share"] == pytest.approx(3 / 15.5, abs=1e-15)


def test_absent_policies() -> None:
    ev = evaluate([f"recall({G1}, absent=zero)@3", f"recall({G1}, absent=cap, max_weight=2)@3"])
    zero, cap = (per_user(ev, m) for m in ev.labels)
    # user 2: 3 (w 3 / 2) hit, 8 weight 0: 1; capped: 8 weighs 2: 1.5 / 3.5
    assert zero[1] == 1.0
    assert cap[1] == pytest.approx(1.5 / (1.5 + 2), abs=1e-15)
    with pytest.raises(DataError, match="no propensity") as err:
        evaluate([f"recall({G1}, absent=error)@3"])
    assert list(err.value.examples) == [8]


def test_user_whose_positives_are_all_skipped_is_left_out() -> None:
    truth = pd.concat([TEST, pd.DataFrame({"user_id": [5], "item_id": [8], "rating": [5]})])
    recs = pd.concat([RECS, pd.DataFrame({"user_id": [5], "item_id": [8], "score": [1.0]})])
    ev = evaluate([f"recall({G1})@3"], truth=truth, recs=recs)
    s = ev.summaries[ev.labels[0]]
    assert s.n_excluded == 1
    assert math.isnan(ev.per_user.loc[5, ev.labels[0]])
    assert s.value == 0.625


def test_column_propensities() -> None:
    # propensities proportional to n_i, given: the same SNIPS numbers as popularity(gamma=1)
    props = {1: 1.0, 2: 1.0, 3: 2 / 3, 4: 1 / 3, 5: 1 / 3, 6: 1 / 3, 7: 1 / 3}
    ev = evaluate(["recall(propensity=column)@3", f"recall({G1})@3"], propensities=props)
    assert per_user(ev, ev.labels[0]) == pytest.approx(per_user(ev, ev.labels[1]), abs=1e-15)
    with pytest.raises(InvalidParameterError, match="propensities"):
        evaluate(["recall(propensity=column)@3"])


# -- properties ------------------------------------------------------------------------------------
#: hit rate has no weighted form that is the plain metric at uniform weights: RecPack's IPS
#: hit rate is the number of hits, SNIPS hit rate is SNIPS recall (docs/fairness.md)
WEIGHTED = ["recall@3", "recall(denominator=min_k_relevant)@3", "dcg@3", "ndcg@3",
            "ndcg(gain=exponential)@3", "ap@3", "ap(denominator=relevant)@3", "auc"]


def _with(metric: str, extra: str) -> str:
    name, _, k = metric.partition("@")
    inner = name[name.index("(") + 1:-1] + ", " if "(" in name else ""
    base = name.split("(")[0]
    return f"{base}({inner}{extra})" + (f"@{k}" if k else "")


@settings(max_examples=examples(30), deadline=None)
@given(datasets(), st.sampled_from([0.2, 0.5, 1.0]))
def test_uniform_propensities_give_the_plain_metric(data: tuple[pd.DataFrame, pd.DataFrame],
                                                    p: float) -> None:
    """SNIPS under any constant propensity, and IPS under propensity 1, are the metric."""
    recs, truth = data
    items = pd.unique(pd.concat([recs["item"], truth["item"]]))
    props = dict.fromkeys(items, p)
    ms = [_with(m, "propensity=column") for m in WEIGHTED]
    ms_ips = [_with(m, "propensity=column, estimator=ips") for m in WEIGHTED]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ties at the cutoff, users left out: noted
        try:
            plain = rv.evaluate(recs, truth, WEIGHTED)
        except rv.RecevalError:
            return  # nothing to evaluate (no relevant item): not this property's case
        weighted = rv.evaluate(recs, truth, ms, propensities=props)
        ones = rv.evaluate(recs, truth, ms_ips, propensities=dict.fromkeys(items, 1.0))
    for a, b in zip(plain.labels, weighted.labels, strict=True):
        assert weighted[b] == pytest.approx(plain[a], abs=1e-12, nan_ok=True), (a, b)
    for label in ones.labels:
        plain_label = parse_plain(label)
        assert ones[label] == pytest.approx(plain[plain_label], abs=1e-12, nan_ok=True)


def parse_plain(label: str) -> str:
    m = rv.metrics.parse(label)
    return m.replace(propensity=None, estimator="snips").label


def test_snips_recall_is_nearer_full_information_on_mnar_data() -> None:
    """A popularity-biased log: SNIPS recall with the true propensities is nearer the recall
    on every relevant item than the plain recall on the observed ones (5 seeded draws)."""
    gaps: list[tuple[float, float, float]] = []
    for seed in range(5):
        rng = np.random.default_rng(seed)
        n_users, n_items, k = 400, 120, 10
        pop = 1.0 / np.arange(1, n_items + 1) ** 0.8  # item 0 the most popular
        propensity = (pop / pop.max()) ** 1.0 * 0.9 + 0.02
        users = np.repeat(np.arange(n_users), 12)
        items = np.concatenate([rng.choice(n_items, 12, replace=False)
                                for _ in range(n_users)])
        full = pd.DataFrame({"user": users, "item": items})
        seen = rng.random(len(full)) < propensity[full["item"]]
        observed = full[seen]
        # a recommender that ranks by popularity (the most popular first), plus noise
        scores = pop[None, :] + 0.3 * rng.random((n_users, n_items)) * pop.mean()
        top = np.argsort(-scores, axis=1)[:, :k]
        recs = pd.DataFrame({"user": np.repeat(np.arange(n_users), k), "item": top.ravel(),
                             "score": -np.tile(np.arange(k, dtype=float), n_users)})
        props = dict(enumerate(propensity))
        truth_users = observed["user"].unique()
        recs = recs[recs["user"].isin(truth_users)]
        full_recall = rv.evaluate(recs, full[full["user"].isin(truth_users)],
                                  [f"recall@{k}"])[f"recall@{k}"]
        ev = rv.evaluate(recs, observed, [f"recall@{k}", f"recall(propensity=column)@{k}",
                                          f"recall(propensity=column, normalize=pooled)@{k}"],
                         propensities=props)
        plain, snips, pooled = (abs(ev[x] - full_recall) for x in ev.labels)
        gaps.append((plain, snips, pooled))
    for plain, snips, pooled in gaps:  # every draw: both SNIPS forms are nearer
        assert snips < plain
        assert pooled < plain


# -- bad input -------------------------------------------------------------------------------------
METRICS = ["recall@3", "hit_rate@3", "dcg@3", "ndcg@3", "ap@3", "auc"]


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize(("props", "match"), [
    ({1: 0.0}, "not a number in"), ({1: 1.5}, "not a number in"), ({1: float("nan")},
                                                                    "not a number in"),
    ({1: "high"}, "not a number in"),
    (pd.DataFrame({"item_id": [1, 1], "p": [0.5, 0.5]}), "twice"),
])
def test_bad_propensities(metric: str, props: object, match: str) -> None:
    with pytest.raises(DataError, match=match):
        evaluate([_with(metric, "propensity=column")], propensities=props)


@pytest.mark.parametrize("metric", METRICS)
def test_weighted_parameters_need_a_propensity(metric: str) -> None:
    with pytest.raises(InvalidParameterError, match="propensity"):
        rv.metrics.parse(_with(metric, "max_weight=10"))


@pytest.mark.parametrize("bad", [
    "recall(propensity=zipf)@3", "recall(propensity='popularity(alpha=1)')@3",
    "ndcg(propensity=popularity, normalize=pooled)@3",
    "recall(propensity=popularity, normalize=pooled, aggregation=micro)@3",
    "ap(propensity=popularity, denominator=hits)@3", "auc(propensity=popularity, ties=expected)",
    "recall(propensity=popularity, absent=cap)@3", "recall(propensity=popularity, max_weight=0)@3",
    "ndcg(propensity=popularity, ideal=list)@3", "ndcg(propensity=popularity, grades=judged)@3"])
def test_bad_parameters(bad: str) -> None:
    with pytest.raises(InvalidParameterError):
        rv.metrics.parse(bad)


# P_i = (n_i / max n)^((gamma + 1) / 2) with n_i / max n in (0, 1] is a propensity in (0, 1]
# only when the exponent (gamma + 1) / 2 >= 0, i.e. gamma >= -1
@pytest.mark.parametrize("gamma", ["-1.0001", "-3", "-1e9"])
def test_popularity_gamma_below_minus_one_is_refused(gamma: str) -> None:
    with pytest.raises(InvalidParameterError, match=r"gamma must be a number >= -1") as err:
        rv.metrics.parse(f"recall(propensity='popularity(gamma={gamma})')@3")
    assert err.value.parameter == "propensity"


@pytest.mark.parametrize("gamma", [-1.0, -0.5, 0.0, 1.0, 1.5])
@pytest.mark.parametrize("absent", ["skip", "zero", "cap"])
def test_valid_gammas_warn_nothing_with_items_absent_from_train(gamma: float,
                                                                absent: str) -> None:
    # item 8 (a positive of users 2 and 4) has no training row: n_8 = 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ev = evaluate([f"recall(propensity='popularity(gamma={gamma})', absent={absent}, "
                       f"max_weight=5)@3"])
    assert np.isfinite(ev[ev.labels[0]])


def test_gamma_minus_one_is_the_plain_metric() -> None:
    # P_i = (n_i / 3)^0 = 1 for every item with a training row; item 8 is skipped:
    # user 1: 2/2, user 2: 1/1 (3 hit), user 3: 1/2 (2 hit, 7 missed), user 4: 1/2 (1 hit,
    # 5 missed) -> (1 + 1 + 1/2 + 1/2) / 4
    ev = evaluate(["recall(propensity='popularity(gamma=-1)')@3"])
    assert per_user(ev, ev.labels[0]) == [1.0, 1.0, 0.5, 0.5]
    assert ev[ev.labels[0]] == 0.75


def test_weights_too_large_to_sum_are_refused_unless_clipped() -> None:
    # gamma = 700: w_i = (3 / n_i)^350.5 -> items 4-7 (n = 1): 3^350.5 ~ 1e167 > 1e100;
    # item 3 (n = 2): 1.5^350.5 ~ 1e62 is allowed
    g700 = "propensity='popularity(gamma=700)'"
    with pytest.raises(InvalidParameterError, match=r"4 relevant items have a weight "
                                                    r"1 / P_i above 1e\+100") as err:
        evaluate([f"recall({g700})@3"])
    assert (err.value.parameter, list(err.value.examples)) == ("propensity", [4, 5, 6, 7])
    # clipped at 10: items 1, 2 weigh 1, items 3-7 weigh 10. User 1: 1; user 2: 1;
    # user 3: 2 (1) hit, 7 (10) missed: 1/11; user 4: 1 (1) hit, 5 (10) missed: 1/11
    ev = evaluate([f"recall({g700}, max_weight=10)@3"])
    assert ev[ev.labels[0]] == pytest.approx((1 + 1 + 1 / 11 + 1 / 11) / 4, abs=1e-15)
    # a propensity column can hold them too
    props = {i: 1.0 for i in range(1, 8)} | {4: 1e-150}
    with pytest.raises(InvalidParameterError, match="max_weight= to clip") as err:
        evaluate(["recall(propensity=column)@3"], propensities=props)
    assert (err.value.parameter, list(err.value.examples)) == ("propensities", [4])


def test_popularity_propensities_need_train() -> None:
    with pytest.raises(InvalidParameterError, match="train"):
        rv.evaluate(RECS, TEST, [f"recall({G1})@3"])
    assert evaluate([f"recall({G1})@3"], train=TRAIN)


# -- propensity-stratified evaluation (Cornac's protocol) ------------------------------------------
#: Cornac's power-law propensities of the toy items (alpha 1.882841800682889, x_min 3, fitted
#: on a synthetic count vector: powerlaw cannot fit 8 counts), fairness-spec 11.7
CORNAC_P = {1: 13.601403298980697, 2: 13.601403298980697, 3: 3.0, 4: 2.0, 5: 2.0, 6: 2.0,
            7: 2.0, 8: 2.0}


def test_stratified_by_hand() -> None:
    st_ = rv.protocols.propensity_stratified(RECS, TEST, ["recall@3"], propensity=CORNAC_P,
                                             train=TRAIN)
    t = st_.table["Recall@3"]
    # bins start at 0.99 * 2 = 1.98 and 1.98 + (1.01 * 13.6014 - 1.98) / 2 = 7.8587: the
    # 7 test rows of items 3-8 in Q1, the 2 rows of items 1 and 2 (users 4 and 3) in Q2
    assert st_.table["rows"].to_dict() == {"closed": 9, "ips": 9, "Q1": 7, "Q2": 2,
                                           "unbiased": 9}
    assert t["closed"] == pytest.approx(7 / 12, abs=1e-15)
    # Q1: user 1 1, user 2 1/2 (3 of {3, 8}), user 3 0 (7), user 4 0 (5, 8): 1.5 / 4
    assert t["Q1"] == 0.375
    assert t["Q2"] == 1.0
    assert t["unbiased"] == pytest.approx(7 / 9 * 0.375 + 2 / 9 * 1.0, abs=1e-15)
    # Cornac before 1.17 (the metrics of fb5c8f68^): IPS Recall@3 = 0.39917004113670335
    assert t["ips"] == pytest.approx(0.39917004113670335, abs=1e-12)


def test_stratified_cornac_propensities_live() -> None:
    """Cornac's own _estimate_propensities and strata, on data powerlaw can fit."""
    cornac = pytest.importorskip("cornac")
    from cornac.eval_methods import PropensityStratifiedEvaluation

    rng = np.random.default_rng(4)
    counts = np.maximum(1, (60 / np.arange(1, 41) ** 1.1).astype(int))
    rows = [(int(u), int(i), 5.0) for i, c in enumerate(counts)
            for u in rng.choice(200, c, replace=False)]
    frame = pd.DataFrame(rows, columns=["user_id", "item_id", "rating"])
    train, test = frame.iloc[::2], frame.iloc[1::2]
    pse = PropensityStratifiedEvaluation.__new__(PropensityStratifiedEvaluation)
    pse.data, pse.verbose = [(str(u), str(i), r) for u, i, r in rows], False
    import warnings

    with warnings.catch_warnings():  # powerlaw's own deprecation warnings
        warnings.simplefilter("ignore")
        want = pse._estimate_propensities()
    from receval.protocols._stratified import cornac_propensities

    got, _, _ = cornac_propensities(pd.concat([train["item_id"], test["item_id"]])
                                    .astype(str))
    assert {k: got[k] for k in want} == pytest.approx(dict(want), rel=1e-12)
    assert cornac.__version__


def test_stratified_bad_input() -> None:
    with pytest.raises(InvalidParameterError, match="n_strata"):
        rv.protocols.propensity_stratified(RECS, TEST, ["recall@3"], n_strata=0, train=TRAIN)
    with pytest.raises(InvalidParameterError, match="propensity"):
        rv.protocols.propensity_stratified(RECS, TEST, ["recall@3"], propensity="zipf",
                                           train=TRAIN)
    with pytest.raises(InvalidParameterError, match="train"):
        rv.protocols.propensity_stratified(RECS, TEST, ["recall@3"])
