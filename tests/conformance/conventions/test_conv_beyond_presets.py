"""The beyond-accuracy rules of the presets reproduce each library, per user and on the mean.

``convention="ms_recommenders" | "evidently" | "elliot"`` against the values those libraries
produced on the 200 random and 2 hand-made cases of ``fixtures/beyond_cases.py`` (the
fixtures that ``test_conv_beyond_fixtures.py`` and, under pandas 2,
``test_conv_beyond_live.py`` check against the libraries), and ``convention="recbole"``
against RecBole itself, live. Every metric is evaluated with the convention alone, plus the
inputs the library reads: ``train=``, ``item_features=`` and, where the library counts over
a fixed item set, ``catalog=``. Each preset difference has a test here that shows it.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

import receval as rv
from receval.exceptions import DataError
from tests.conformance._data import load_fixture
from tests.conformance.conventions._beyond_defs import cases_module
from tests.conformance.conventions._beyond_receval import compare, evaluate
from tests.conformance.conventions.test_conv_beyond_fixtures import ELLIOT, EVIDENTLY, MSR

pytestmark = pytest.mark.conformance

#: receval metric (under ms_recommenders) -> the fixture's mean key, per-user key
MSR_METRICS = {
    "novelty": ("novelty", "novelty_per_user"),
    "diversity": ("diversity_cooc", "user_diversity_cooc"),
    "diversity(similarity=cosine)": ("diversity_feat", "user_diversity_feat"),
    "unexpectedness": ("serendipity_cooc_all", "user_serendipity_cooc_all"),
    "unexpectedness(similarity=cosine)": ("serendipity_feat_all", "user_serendipity_feat_all"),
    "serendipity": ("serendipity_cooc_truth", "user_serendipity_cooc_truth"),
    "serendipity(similarity=cosine)": ("serendipity_feat_truth", "user_serendipity_feat_truth"),
    "distributional_coverage": ("distributional_coverage", None),
    "catalog_coverage": ("catalog_coverage", None),
}
EVIDENTLY_METRICS = {
    "novelty": "novelty", "diversity": "diversity", "popularity": "arp",
    "popularity(scale=max)": "arp_normalized", "gini": "gini",
}


def _stored(path: Any) -> list[dict[str, Any]]:
    return list(load_fixture(path)["cases"])


def _labels(ev: rv.EvaluationResult, names: list[str]) -> dict[str, str]:
    return dict(zip(names, ev.labels, strict=True))


def check_msr(case: dict[str, Any]) -> None:
    """Every MS Recommenders value of one case under the ms_recommenders convention."""
    for k, values in case["msr"].items():
        names = [f"{m}@{k}" for m in MSR_METRICS]
        ev = evaluate(case, names, "ms_recommenders")
        judged = {u for u, _, _ in case["truth"]}
        for name, label in _labels(ev, names).items():
            mean_key, user_key = MSR_METRICS[name.split("@")[0]]
            mean, users = values[mean_key], values[user_key] if user_key else None
            if name.startswith("serendipity"):  # users without truth: a listed difference
                users = {u: v for u, v in (users or {}).items() if u in judged}
                mean = sum(users.values()) / len(users) if users else None
            compare(ev, label, mean, users, f"{case['name']} {name}")


def check_evidently(case: dict[str, Any]) -> None:
    """Every Evidently value of one case under the evidently convention."""
    for k, entry in case["evidently"].items():
        names = [f"{m}@{k}" for m in EVIDENTLY_METRICS]
        if case["full"]:  # Personalization assumes lists of k items (a listed difference)
            names.append(f"personalization@{k}")
        ev = evaluate(case, names, "evidently")
        for name, label in _labels(ev, names).items():
            key = EVIDENTLY_METRICS.get(name.split("@")[0], "personalization")
            compare(ev, label, entry["report"][key], entry["per_user"].get(key),
                    f"{case['name']} {name}")
        train_items = sorted({i for _, i in case["train"]})
        top = {i for items in cases_module().top_k(case, int(k)).values() for i in items}
        if top <= set(train_items):  # else receval refuses (a listed difference)
            cov = evaluate(case, [f"catalog_coverage@{k}"], "evidently", catalog=train_items)
            compare(cov, cov.labels[0], entry["report"]["coverage"], None,
                    f"{case['name']} catalog_coverage@{k}")


def _elliot_rows(case: dict[str, Any]) -> list[list[Any]]:
    """The case's rows without the items absent from train (Elliot ranks training items)."""
    train_items = {i for _, i in case["train"]}
    return [r for r in case["recs"] if r[1] in train_items]


def check_elliot(case: dict[str, Any]) -> None:
    """Elliot's ARP (and SEntropy where every list has k items) under the elliot convention."""
    if case["elliot"] is None:
        return
    rows = _elliot_rows(case)
    lengths = [len(v) for v in cases_module().top_k({"recs": rows}, None).values()]
    for k, values in case["elliot"]["0.8"].items():
        names = [f"popularity@{k}"]
        if min(lengths) >= int(k):
            names.append(f"distributional_coverage@{k}")
        ev = evaluate(case, names, "elliot", recs_rows=rows)
        labels = _labels(ev, names)
        arp = values["ARP"]
        compare(ev, labels[names[0]], arp["mean"], arp["per_user"], f"{case['name']} ARP@{k}")
        if len(names) > 1:
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
    """edge-mixed recommends item 6, which is not in train. MS Recommenders'
    catalog_coverage divides the 6 distinct recommended items by the 5 training items, 1.2,
    and the ms_recommenders preset (``over='train'``) gives 1.2. Difference (evidently):
    Evidently counts only the recommended items that are in train, 5/5; receval with
    catalog= the training items refuses a recommended item outside the catalog (DataError)
    rather than drop it."""
    msr = next(c for c in _stored(MSR) if c["name"] == "edge-mixed")
    evidently = next(c for c in _stored(EVIDENTLY) if c["name"] == "edge-mixed")
    assert msr["msr"]["3"]["catalog_coverage"] == 1.2
    ours = evaluate(msr, ["catalog_coverage@3"], "ms_recommenders")
    assert math.isclose(ours[ours.labels[0]], 1.2)
    assert evidently["evidently"]["3"]["report"]["coverage"] == 1.0
    train_items = sorted({i for _, i in msr["train"]})
    with pytest.raises(DataError, match="not in catalog"):
        evaluate(msr, ["catalog_coverage@3"], "evidently", catalog=train_items)


def test_difference_msr_serendipity_of_users_without_truth() -> None:
    """Difference (ms_recommenders): serendipity with a relevance column averages over every
    user with a training row, a user without truth scoring 0 (relevance 0 everywhere);
    receval's serendipity needs truth and leaves that user out. edge-same-lists at k = 1:
    u0 and u1 have truth, u2 none."""
    case = next(c for c in _stored(MSR) if c["name"] == "edge-same-lists")
    theirs = case["msr"]["1"]["user_serendipity_cooc_truth"]
    assert set(theirs) == {"u0", "u1", "u2"}
    assert theirs["u2"] == 0.0
    ev = evaluate(case, ["serendipity@1"], "ms_recommenders")
    assert set(ev.per_user[ev.labels[0]].dropna().index) == {"u0", "u1"}


def test_difference_evidently_personalization_short_lists() -> None:
    """Difference (evidently): Personalization assumes lists of k items; edge-mixed's lists
    have 3, 1 and 2 items at k = 3 and Evidently gives 7/6 > 1 (hand-computed in
    test_conv_beyond_hand.py); receval's value stays in [0, 1]."""
    case = next(c for c in _stored(EVIDENTLY) if c["name"] == "edge-mixed")
    assert math.isclose(case["evidently"]["3"]["report"]["personalization"], 7 / 6)
    ev = evaluate(case, ["personalization@3"], "evidently")
    assert 0.0 <= ev[ev.labels[0]] <= 1.0
