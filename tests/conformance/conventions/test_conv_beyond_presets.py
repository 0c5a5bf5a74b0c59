"""The beyond-accuracy rules of the presets reproduce each library, per user and on the mean.

``convention="ms_recommenders" | "evidently" | "elliot"`` against the values those libraries
produced on the 200 random and 2 hand-made cases of ``fixtures/beyond_cases.py`` (the
fixtures that ``test_conv_beyond_fixtures.py`` and, under pandas 2,
``test_conv_beyond_live.py`` check against the libraries), and ``convention="recbole"``
against RecBole itself, live. Every metric is evaluated with the convention alone, plus the
inputs the library reads: ``train=`` and ``item_features=`` (MS Recommenders' values with
and without features: its item similarity follows them). Each preset difference has a test
here or in ``test_conv_beyond_findings.py``.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import pytest

import receval as rv
from receval.exceptions import DataWarning
from tests.conformance._data import load_fixture
from tests.conformance.conventions._beyond_defs import cases_module
from tests.conformance.conventions._beyond_receval import compare, evaluate
from tests.conformance.conventions.test_conv_beyond_fixtures import ELLIOT, EVIDENTLY, MSR

pytestmark = pytest.mark.conformance

#: receval metric under ms_recommenders with item_features= -> the fixture's mean key, per-user
#: key: the feature vectors' cosine (item_sim_measure='item_feature_vector'), co-occurrence when
#: the name says so
MSR_METRICS = {
    "novelty": ("novelty", "novelty_per_user"),
    "diversity": ("diversity_feat", "user_diversity_feat"),
    "diversity(similarity=cooccurrence)": ("diversity_cooc", "user_diversity_cooc"),
    "unexpectedness": ("serendipity_feat_all", "user_serendipity_feat_all"),
    "unexpectedness(similarity=cooccurrence)": ("serendipity_cooc_all",
                                                "user_serendipity_cooc_all"),
    "serendipity": ("serendipity_feat_truth", "user_serendipity_feat_truth"),
    "serendipity(similarity=cooccurrence)": ("serendipity_cooc_truth",
                                             "user_serendipity_cooc_truth"),
    "distributional_coverage": ("distributional_coverage", None),
    "catalog_coverage": ("catalog_coverage", None),
}
#: the same without item_features=: co-occurrence (the default item_sim_measure)
MSR_WITHOUT_FEATURES = {
    "diversity": ("diversity_cooc", "user_diversity_cooc"),
    "unexpectedness": ("serendipity_cooc_all", "user_serendipity_cooc_all"),
    "serendipity": ("serendipity_cooc_truth", "user_serendipity_cooc_truth"),
    "novelty": ("novelty", "novelty_per_user"),
}
#: receval metric under evidently -> the Report's key (and the per-user key where stored)
EVIDENTLY_METRICS = {
    "novelty": "novelty", "diversity": "diversity", "serendipity": "serendipity",
    "popularity": "arp", "popularity(scale=max)": "arp_normalized", "gini": "gini",
    "personalization": "personalization", "catalog_coverage": "coverage",
}


def _stored(path: Any) -> list[dict[str, Any]]:
    return list(load_fixture(path)["cases"])


def _labels(ev: rv.EvaluationResult, names: list[str]) -> dict[str, str]:
    return dict(zip(names, ev.labels, strict=True))


def _check_msr_names(case: dict[str, Any], k: str, metrics: dict[str, Any],
                     features: bool) -> None:
    values = case["msr"][k]
    names = [f"{m}@{k}" for m in metrics]
    ev = evaluate(case, names, "ms_recommenders", features=features)
    judged = {u for u, _, _ in case["truth"]}
    for name, label in _labels(ev, names).items():
        mean_key, user_key = metrics[name.split("@")[0]]
        mean, users = values[mean_key], values[user_key] if user_key else None
        if name.startswith("serendipity"):  # users without truth: a listed difference
            users = {u: v for u, v in (users or {}).items() if u in judged}
            mean = sum(users.values()) / len(users) if users else None
        compare(ev, label, mean, users, f"{case['name']} {name} (features: {features})")


def check_msr(case: dict[str, Any]) -> None:
    """Every MS Recommenders value of one case under the ms_recommenders convention: the
    feature similarity with item_features=, co-occurrence without."""
    for k in case["msr"]:
        _check_msr_names(case, k, MSR_METRICS, True)
        _check_msr_names(case, k, MSR_WITHOUT_FEATURES, False)


def check_evidently(case: dict[str, Any]) -> None:
    """Every Evidently value of one case under the evidently convention.

    Personalization warns (DataWarning) where a list is shorter than k: Evidently's formula
    counts it as k items long, and so does the convention.
    """
    for k, entry in case["evidently"].items():
        names = [f"{m}@{k}" for m in EVIDENTLY_METRICS]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore" if not case["full"] else "error", DataWarning)
            ev = evaluate(case, names, "evidently")
        for name, label in _labels(ev, names).items():
            key = EVIDENTLY_METRICS[name.split("@")[0]]
            compare(ev, label, entry["report"][key], entry["per_user"].get(key),
                    f"{case['name']} {name}")


def _elliot_rows(case: dict[str, Any]) -> list[list[Any]]:
    """The case's rows without the items absent from train (Elliot ranks training items)."""
    train_items = {i for _, i in case["train"]}
    return [r for r in case["recs"] if r[1] in train_items]


def check_elliot(case: dict[str, Any]) -> None:
    """Elliot's ARP (and SEntropy where every list has k items) under the elliot convention."""
    if case["elliot"] is None:
        return
    rows = _elliot_rows(case)
    for k, values in case["elliot"]["0.8"].items():
        names = [f"popularity@{k}", f"distributional_coverage@{k}"]
        ev = evaluate(case, names, "elliot", recs_rows=rows)
        labels = _labels(ev, names)
        arp = values["ARP"]
        compare(ev, labels[names[0]], arp["mean"], arp["per_user"], f"{case['name']} ARP@{k}")
        compare(ev, labels[names[1]], values["SEntropy"], None,
                f"{case['name']} SEntropy@{k}")


@pytest.mark.slow
@pytest.mark.parametrize(("path", "check"), [(MSR, check_msr), (EVIDENTLY, check_evidently),
                                              (ELLIOT, check_elliot)],
                         ids=["ms_recommenders", "evidently", "elliot"])
def test_preset_reproduces_the_library(path: Any, check: Any) -> None:
    """200 random + 2 hand-made cases, every cutoff, per user and mean, to 1e-9."""
    for case in _stored(path):
        check(case)


def test_catalog_coverage_of_items_outside_train() -> None:
    """edge-mixed recommends item 6, which is not in train (5 training items, 6 distinct
    recommended items). MS Recommenders' catalog_coverage counts it: 6 / 5 = 1.2 (the
    ms_recommenders preset: over='train'); Evidently's PopularityBiasMetric coverage counts
    only the recommended items found in train: 5 / 5 = 1.0 (the evidently preset:
    over='train', absent='skip')."""
    msr = next(c for c in _stored(MSR) if c["name"] == "edge-mixed")
    evidently = next(c for c in _stored(EVIDENTLY) if c["name"] == "edge-mixed")
    assert msr["msr"]["3"]["catalog_coverage"] == 1.2
    ours = evaluate(msr, ["catalog_coverage@3"], "ms_recommenders")
    assert ours[ours.labels[0]] == 6 / 5
    assert evidently["evidently"]["3"]["report"]["coverage"] == 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)  # personalization: lists shorter than k
        theirs = evaluate(evidently, ["catalog_coverage@3"], "evidently")
    assert theirs[theirs.labels[0]] == 5 / 5


def test_difference_msr_serendipity_of_users_without_truth() -> None:
    """Difference (ms_recommenders): serendipity with a relevance column averages over every
    user with a training row, a user without truth scoring 0 (relevance 0 everywhere);
    receval's serendipity needs truth and leaves that user out. edge-same-lists at k = 1:
    u0 and u1 have truth, u2 none."""
    case = next(c for c in _stored(MSR) if c["name"] == "edge-same-lists")
    theirs = case["msr"]["1"]["user_serendipity_feat_truth"]
    assert set(theirs) == {"u0", "u1", "u2"}
    assert theirs["u2"] == 0.0
    ev = evaluate(case, ["serendipity@1"], "ms_recommenders")
    assert set(ev.per_user[ev.labels[0]].dropna().index) == {"u0", "u1"}


def test_evidently_personalization_of_short_lists_warns() -> None:
    """edge-mixed's lists have 3, 1 and 2 items at k = 3: Evidently gives 7/6 > 1
    (hand-computed in test_conv_beyond_hand.py) and so does the preset
    (overlap='k_full'), with a DataWarning naming the two short lists; receval's
    overlap='k' (every pair's overlap / k, no self-overlap assumed) stays in [0, 1]."""
    case = next(c for c in _stored(EVIDENTLY) if c["name"] == "edge-mixed")
    assert math.isclose(case["evidently"]["3"]["report"]["personalization"], 7 / 6)
    with pytest.warns(DataWarning, match=r"2 lists are shorter than k \(users 'u1', 'u2'\)"):
        ev = evaluate(case, ["personalization@3"], "evidently")
    assert math.isclose(ev[ev.labels[0]], 7 / 6, rel_tol=1e-12)
    plain = evaluate(case, ["personalization(overlap=k)@3"], "evidently")
    assert 0.0 <= plain[plain.labels[0]] <= 1.0


def test_evidently_serendipity_is_a_sum_over_relevant_items() -> None:
    """Users with two or more relevant items in the top k, where a sum and a mean differ:
    the preset's serendipity (combine='sum') equals Evidently's stored per-user value on at
    least 20 of them."""
    seen = 0
    for case in _stored(EVIDENTLY):
        for k, entry in case["evidently"].items():
            lists = cases_module().top_k(case, int(k))
            judged = {(u, i) for u, i, _ in case["truth"]}
            several = [u for u, items in lists.items()
                       if sum((u, i) in judged for i in items) > 1
                       and entry["per_user"]["serendipity"].get(u) is not None]
            if not several:
                continue
            ev = evaluate(case, [f"serendipity@{k}"], "evidently")
            col = ev.per_user[ev.labels[0]]
            for user in several:
                assert math.isclose(col[user], entry["per_user"]["serendipity"][user],
                                    rel_tol=1e-9, abs_tol=1e-9)
            seen += len(several)
        if seen >= 20:
            break
    assert seen >= 20
