"""Beyond-accuracy variants that reproduce other libraries (issue 22): hand-computed values
(arithmetic in comments), their bounds, items without features, partitions.

The libraries themselves are compared in ``tests/conformance/conventions/``; here each
variant is worked by hand on the small data of ``tests/test_beyond.py``.
"""

from __future__ import annotations

import math
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
from receval.exceptions import DataError, DataWarning, InvalidParameterError
from tests.spark_session import spark  # noqa: F401 - the session fixture
from tests.test_beyond import FEATS, RECS, TRAIN, TRUTH, ev

S2 = 1 / math.sqrt(2)


# -- items without features: 'error', 'skip', 'zero' ------------------------------------------
# u1 is recommended d (1, 0) and e (0, 1) and has trained on a (1, 0) and c, which has no
# feature row; u2 is recommended b (0, 1) and has trained on a.
NF_RECS = pd.DataFrame({"user": [1, 1, 2], "item": ["d", "e", "b"], "score": [2, 1, 1]})
NF_TRAIN = pd.DataFrame({"user": [1, 1, 2], "item": ["a", "c", "a"]})
NF_FEATS = FEATS[FEATS["item"] != "c"]
UNEXP = "unexpectedness(expected=similarity, similarity=cosine)@2"


def _unexpected(policy: str | None, **kw: Any) -> rv.EvaluationResult:
    return rv.evaluate(NF_RECS, NF_RECS, [UNEXP], train=NF_TRAIN, item_features=NF_FEATS,
                       item_features_missing=policy, **kw)


def test_training_item_without_features_is_an_error_by_default() -> None:
    # c is in no list but in u1's history: a mean over the history cannot silently drop it
    with pytest.raises(DataError, match=r"1 training items of users with a list have no "
                                        r"features \(e\.g\. 'c'\).*'skip'.*'zero'"):
        _unexpected(None)


def test_training_item_without_features_skip_and_zero() -> None:
    # skip: u1's history is {a}: unexp(d) = 1 - cos(d, a) = 0, unexp(e) = 1 - 0 = 1 -> 0.5
    # zero: c is the zero vector: unexp(d) = 1 - (1 + 0) / 2 = 0.5, unexp(e) = 1 - 0 = 1
    #       -> 0.75 (Microsoft Recommenders' similarity 0 for a pair without features)
    # u2: b against a: 1 - 0 = 1 under both
    skip = _unexpected("skip")
    zero = _unexpected("zero")
    assert skip.per_user[skip.labels[0]].tolist() == pytest.approx([0.5, 1.0])
    assert zero.per_user[zero.labels[0]].tolist() == pytest.approx([0.75, 1.0])
    assert zero[UNEXP] == pytest.approx((0.75 + 1.0) / 2)
    for r in (skip, zero):
        assert r.settings["beyond"]["items_without_features"] == 1


@pytest.mark.parametrize("door", ["memory", "buckets"])
@pytest.mark.parametrize("metric", [
    "serendipity(expected=similarity, similarity=cosine)@2",
    "unexpectedness(expected=similarity, similarity=jaccard)@2",
    "unexpectedness(expected=similarity, similarity=euclidean)@2",
    "diversity@2"])
def test_items_without_features_by_door(tmp_path: Path, door: str, metric: str) -> None:
    """Every similarity metric, in memory and over Parquet buckets: an item without features
    is an error under 'error' (recommended: e for diversity; in a history: c), and the same
    number in both doors under 'skip' and 'zero'."""
    feats = NF_FEATS[NF_FEATS["item"] != "e"] if metric.startswith("div") else NF_FEATS

    truth = NF_RECS.drop(columns="score")  # every recommended item relevant (no grades)

    def run(policy: str | None) -> rv.EvaluationResult:
        if door == "memory":
            return rv.evaluate(NF_RECS, truth, [metric], train=NF_TRAIN,
                               item_features=feats, item_features_missing=policy)
        NF_RECS.to_parquet(tmp_path / "recs.parquet", index=False)
        truth.to_parquet(tmp_path / "truth.parquet", index=False)
        return rv.evaluate(str(tmp_path / "recs.parquet"), str(tmp_path / "truth.parquet"),
                           [metric], train=NF_TRAIN, item_features=feats,
                           item_features_missing=policy, buckets=2, progress=False)

    with pytest.raises(DataError, match="have no features"):
        run(None)
    for policy in ("skip", "zero"):
        got = run(policy)
        ref = rv.evaluate(NF_RECS, truth, [metric], train=NF_TRAIN, item_features=feats,
                          item_features_missing=policy)
        pd.testing.assert_frame_equal(got.per_user, ref.per_user)
        assert got.settings["beyond"]["items_without_features"] == 1


def test_recommended_item_without_features_zero_policy_diversity() -> None:
    # e has no features. u2's list a (1,0), d (1,0), e: zero: pairs ad 1 - 1 = 0, ae 1 - 0,
    # de 1 - 0 -> 2/3; skip: the pair ad alone -> 0; u1 (a, b, c) and u3 (b, c) unchanged
    partial = FEATS[FEATS["item"] != "e"]
    zero = ev(["diversity@3"], item_features=partial, item_features_missing="zero")
    skip = ev(["diversity@3"], item_features=partial, item_features_missing="skip")
    assert zero.per_user["Diversity@3"].loc[2] == pytest.approx(2 / 3)
    assert skip.per_user["Diversity@3"].loc[2] == pytest.approx(0.0)
    u1 = ((1 - 0) + (1 - S2) + (1 - S2)) / 3
    assert zero.per_user["Diversity@3"].loc[1] == pytest.approx(u1)


def test_unknown_missing_policy_is_refused() -> None:
    with pytest.raises(InvalidParameterError, match="item_features_missing"):
        ev(["diversity@3"], item_features_missing="drop")


# -- Evidently's serendipity: a sum over the relevant items ------------------------------------
# features a (1, 0), b (0, 1), c (1, 1), d (-1, 0); every user has trained on a only
SER_FEATS = pd.DataFrame({"item": list("abcd"), "x": [1, 0, 1, -1.0], "y": [0, 1, 1, 0.0]})
SER_RECS = pd.DataFrame({"user": [1, 1, 1, 2, 2, 3, 4],
                         "item": ["b", "c", "d", "b", "c", "b", "d"],
                         "score": [3, 2, 1, 2, 1, 1, 1]})
SER_TRUTH = pd.DataFrame({"user": [1, 1, 2, 3, 4], "item": ["b", "c", "d", "b", "d"]})
SER_TRAIN = pd.DataFrame({"user": [1, 2, 4], "item": ["a", "a", "a"]})


def test_serendipity_sum_hand_computed() -> None:
    # u1: relevant b (cos to a 0) and c (cos 1/sqrt2) in the top 3:
    #     sum: 1 - (0 + 1/sqrt2) = 0.29289; mean: (1 * 1 + 1 * (1 - 1/sqrt2) + 0) / 3
    # u2: its relevant item d is not in its list: sum NaN (left out), mean 0
    # u3: no training row: NaN in both
    # u4: d against a: cos -1: sum 1 - (-1) = 2 (above 1), mean 1 * (1 - (-1)) / 1 = 2
    names = ["serendipity(expected=similarity, similarity=cosine, combine=sum)@3",
             "serendipity(expected=similarity, similarity=cosine)@3"]
    r = rv.evaluate(SER_RECS, SER_TRUTH, names, train=SER_TRAIN, item_features=SER_FEATS)
    summed, mean = (r.per_user[label] for label in r.labels)
    assert summed.loc[[1, 4]].tolist() == pytest.approx([1 - S2, 2.0])
    assert summed.loc[[2, 3]].isna().all()
    assert mean.loc[[1, 2, 4]].tolist() == pytest.approx([(1 + 1 - S2) / 3, 0.0, 2.0])
    assert np.isnan(mean.loc[3])
    assert r[names[0]] == pytest.approx((1 - S2 + 2.0) / 2)
    assert r.summaries[r.labels[0]].n_users == 2


def test_serendipity_sum_bounds_and_unexpectedness_has_no_sum() -> None:
    # 1 - sum of up to k mean cosines in [-1, 1]: [1 - k, 1 + k]; the mean form [0, 2]
    assert rv.metrics.parse("serendipity(expected=similarity, similarity=cosine, "
                            "combine=sum)@3").bounds == (-2.0, 4.0)
    assert rv.metrics.parse("serendipity(expected=similarity, similarity=cosine)@3"
                            ).bounds == (0.0, 2.0)
    assert rv.metrics.parse("serendipity(combine=sum)@3").bounds == (-2.0, 1.0)
    assert rv.metrics.parse("serendipity@3").bounds == (0.0, 1.0)
    assert rv.metrics.parse("unexpectedness(expected=similarity, similarity=euclidean)@3"
                            ).bounds == (-math.inf, 1.0)
    with pytest.raises(InvalidParameterError, match="combine"):
        rv.metrics.parse("unexpectedness(combine=sum)@3")


# -- Evidently's personalization ----------------------------------------------------------------
def test_personalization_k_full_hand_computed() -> None:
    # lists (k = 3) u1 a b c, u2 a d e, u3 b c: c_a = c_b = c_c = 2, c_d = c_e = 1,
    # sum c^2 = 14; U = 3: Evidently 1 - (14 - 3 * 3) / (3 * 3 * 2) = 13/18.
    # overlap='k': pairs (1, 2) 1/3, (1, 3) 2/3, (2, 3) 0 -> 1 - (1/3 + 2/3 + 0) / 3 = 12/18;
    # the difference is sum_u (k - |L_u|) / (k U (U - 1)) = 1 / 18 (u3 is one short)
    with pytest.warns(DataWarning, match=r"1 lists are shorter than k \(users 3\)"):
        r = ev(["personalization(overlap=k_full)@3", "personalization(overlap=k)@3"])
    assert r["personalization(overlap=k_full)@3"] == pytest.approx(13 / 18)
    assert r["personalization(overlap=k)@3"] == pytest.approx(12 / 18)
    with pytest.raises(InvalidParameterError, match="needs a cutoff"):
        rv.metrics.parse("personalization(overlap=k_full)")
    assert rv.metrics.parse("personalization(overlap=k_full)@3").bounds == (0.0, 2.0)


def test_personalization_k_full_strict_raises_on_short_lists() -> None:
    with pytest.raises(DataError, match="shorter than k"):
        ev(["personalization(overlap=k_full)@3"], strict=True)
    full = ev(["personalization(overlap=k_full)@2"], strict=True)  # every list reaches 2
    assert full[full.labels[0]] == pytest.approx(ev(["personalization(overlap=k)@2"])[
        "personalization(overlap=k)@2"])


# -- coverage and Gini over the training items and over RecBole's data set ---------------------
def test_item_coverage_over_train_absent_skip() -> None:
    # recommended a..e; training items a, b, c, d, f; e is not in train:
    # count (MS Recommenders) 5/5; skip (Evidently) |{a, b, c, d}| / 5 = 4/5
    r = ev(["catalog_coverage(over=train)@3", "catalog_coverage(over=train, absent=skip)@3"])
    assert r["catalog_coverage(over=train)@3"] == pytest.approx(5 / 5)
    assert r["catalog_coverage(over=train, absent=skip)@3"] == pytest.approx(4 / 5)
    assert rv.metrics.parse("catalog_coverage(over=train)@3").bounds == (0.0, math.inf)
    assert rv.metrics.parse("catalog_coverage(over=train, absent=skip)@3").bounds == (0, 1)


def test_item_coverage_and_gini_over_the_dataset() -> None:
    # the data set: train a, b, c, d, f + truth a, e + recs a..e = a..f, 6 items, + [PAD]
    # coverage 5 / 7. Gini over 7 items: exposure a 2, b 2, c 2, d 1, e 1, f 0, [PAD] 0
    # sorted [0, 0, 1, 1, 2, 2, 2], j = 1..7: sum (2j - 8) c = -2 + 0 + 4 + 8 + 12 = 22,
    # / (7 * 8 rows) = 22/56
    names = ["catalog_coverage(over=dataset, extra_items=1)@3",
             "gini(items=dataset, extra_items=1)@3"]
    r = ev(names)
    assert r[names[0]] == pytest.approx(5 / 7)
    assert r[names[1]] == pytest.approx(22 / 56)
    assert r.settings["beyond"]["dataset_items"] == 6
    # a truth-only item z (user 4) joins the data set: 5 / 8
    truth = pd.concat([TRUTH, pd.DataFrame({"user": [4], "item": ["z"]})])
    more = rv.evaluate(RECS, truth, names[:1], train=TRAIN)
    assert more[names[0]] == pytest.approx(5 / 8)


def test_dataset_with_a_catalog_is_the_union() -> None:
    # catalog a, b, g: the union with train, truth and recs is a..g, 7 items, + 1: 5 / 8;
    # c, d, e, f are outside the catalog (recorded, not an error)
    name = "catalog_coverage(over=dataset, extra_items=1)@3"
    r = ev([name], catalog=["a", "b", "g"])
    assert r[name] == pytest.approx(5 / 8)
    assert r.settings["beyond"]["dataset_items"] == 7
    assert r.settings["beyond"]["dataset_items_outside_catalog"] == 4
    alone = rv.evaluate(RECS, TRUTH, [name], catalog=list("abcdefgh"))  # no train: catalog
    assert alone[name] == pytest.approx(5 / 9)


@pytest.mark.parametrize("name", ["catalog_coverage(over=dataset)@3", "gini(items=dataset)@3"])
def test_dataset_needs_train_or_catalog(name: str) -> None:
    with pytest.raises(InvalidParameterError, match=r"needs evaluate\(train=\.\.\.\) or catalog="):
        rv.evaluate(RECS, TRUTH, [name])


@pytest.mark.parametrize("text", ["catalog_coverage(absent=skip)@3",
                                  "catalog_coverage(over=train, extra_items=1)@3",
                                  "gini(items=recommended, extra_items=1)@3",
                                  "gini(extra_items=-1)@3"])
def test_parameter_combinations_that_mean_nothing_are_refused(text: str) -> None:
    with pytest.raises(InvalidParameterError):
        rv.metrics.parse(text)


def test_gini_extra_items_over_the_catalog() -> None:
    # catalog a..f (6 items) + 1 extra: the same 7 items as the data set above
    r = ev(["gini(extra_items=1)@3"])
    assert r["gini(extra_items=1)@3"] == pytest.approx(22 / 56)


# -- Elliot's SEntropy: each list weighs 1 ------------------------------------------------------
def test_entropy_weighted_by_lists_hand_computed() -> None:
    # lists u1 a b c (3), u2 a d e (3), u3 b c (2); 8 rows: c = a 2, b 2, c 2, d 1, e 1.
    # w_i = sum over the lists holding i of 1 / |L|: a 2/3, b 5/6, c 5/6, d 1/3, e 1/3
    # (sum 3 = U). SEntropy = (2/3 * 2 + 5/6 * 2 + 5/6 * 2 + 1/3 * 3 + 1/3 * 3) / 3 = 20/9,
    # -log2(2/8) = 2 and -log2(1/8) = 3; the rows' entropy is 3 * 2/8 * 2 + 2 * 1/8 * 3 = 2.25
    r = ev(["distributional_coverage(weights=lists)@3", "distributional_coverage@3",
            "entropy(weights=lists, normalize=distinct)@3"])
    assert r["distributional_coverage(weights=lists)@3"] == pytest.approx(20 / 9)
    assert r["distributional_coverage@3"] == pytest.approx(2.25)
    assert r["entropy(weights=lists, normalize=distinct)@3"] == pytest.approx(
        20 / 9 * math.log(2) / 5)
    # lists of equal length: the two weightings agree (k = 2: every list has 2 items)
    two = ev(["distributional_coverage(weights=lists)@2", "distributional_coverage@2"])
    assert two["distributional_coverage(weights=lists)@2"] == pytest.approx(
        two["distributional_coverage@2"])


# -- partitions: buckets give the in-memory numbers --------------------------------------------
@pytest.mark.parametrize("buckets", [1, 3])
def test_variants_over_buckets_equal_in_memory(tmp_path: Path, buckets: int) -> None:
    rng = np.random.default_rng(5)
    recs = pd.DataFrame({"user": np.repeat(np.arange(40), 4),
                         "item": rng.integers(0, 9, 160), "score": rng.random(160)})
    recs = recs.drop_duplicates(["user", "item"])
    truth = pd.DataFrame({"user": rng.integers(0, 45, 60), "item": rng.integers(0, 12, 60)})
    truth = truth.drop_duplicates()
    recs.to_parquet(tmp_path / "recs.parquet", index=False)
    truth.to_parquet(tmp_path / "truth.parquet", index=False)
    train = pd.DataFrame({"user": rng.integers(0, 50, 90), "item": rng.integers(0, 7, 90)})
    feats = pd.DataFrame({"item": range(12), "x": rng.normal(size=12),
                          "y": rng.normal(size=12)})
    ms = ["catalog_coverage(over=dataset, extra_items=1)@3",
          "gini(items=dataset, extra_items=1)@3", "catalog_coverage(over=train, absent=skip)@3",
          "personalization(overlap=k_full)@3", "distributional_coverage(weights=lists)@3",
          "serendipity(expected=similarity, similarity=cosine, combine=sum)@3"]
    with pytest.warns(DataWarning, match="shorter than k"):
        ref = rv.evaluate(recs, truth, ms, train=train, item_features=feats)
    with pytest.warns(DataWarning, match="shorter than k"):
        got = rv.evaluate(str(tmp_path / "recs.parquet"), str(tmp_path / "truth.parquet"), ms,
                          train=train, item_features=feats, buckets=buckets, progress=False)
    for m in ms:
        assert got[m] == pytest.approx(ref[m], rel=1e-12), m
    assert got.settings["beyond"]["dataset_items"] == ref.settings["beyond"]["dataset_items"]
    pd.testing.assert_frame_equal(got.per_user, ref.per_user)


# -- bounds hold for every variant --------------------------------------------------------------
VARIANTS = ["serendipity(expected=similarity, similarity=cosine, combine=sum)@3",
            "serendipity(expected=similarity, similarity=cosine)@3",
            "serendipity(expected=similarity, similarity=euclidean, combine=sum)@3",
            "unexpectedness(expected=similarity, similarity=cosine)@3",
            "unexpectedness(expected=similarity, similarity=euclidean)@3",
            "personalization(overlap=k_full)@3", "catalog_coverage(over=train)@3",
            "catalog_coverage(over=train, absent=skip)@3",
            "catalog_coverage(over=dataset, extra_items=1)@3",
            "gini(items=dataset, extra_items=2)@3", "distributional_coverage(weights=lists)@3"]


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(lists=st.lists(st.lists(st.integers(0, 9), min_size=1, max_size=4, unique=True),
                      min_size=2, max_size=7),
       seed=st.integers(0, 2**32 - 1))
def test_every_variant_stays_within_its_bounds(lists: list[list[int]], seed: int) -> None:
    rng = np.random.default_rng(seed)
    rows = [(u, i, -r) for u, items in enumerate(lists) for r, i in enumerate(items)]
    recs = pd.DataFrame(rows, columns=["user", "item", "score"])
    truth = recs.sample(frac=0.6, random_state=seed % 1000)[["user", "item"]]
    train = pd.DataFrame({"user": rng.integers(0, 8, 30), "item": rng.integers(0, 12, 30)})
    feats = pd.DataFrame({"item": range(12), "x": rng.normal(size=12),
                          "y": rng.normal(size=12)})  # negative components: cosines < 0
    with pytest.warns(DataWarning) if any(len(x) < 3 for x in lists) else nullcontext():
        r = rv.evaluate(recs, truth, VARIANTS, train=train.drop_duplicates(),
                        item_features=feats)
    for text, label in zip(VARIANTS, r.labels, strict=True):
        lo, hi = rv.metrics.parse(text).bounds
        values = [r[label]]
        if label in r.per_user.columns:
            values += r.per_user[label].dropna().tolist()
        for v in values:
            assert math.isnan(v) or lo - 1e-12 <= v <= hi + 1e-12, (label, v, (lo, hi))


# -- Spark: the data set's items are the union over every executor's partition ---------------
def test_variants_on_spark_equal_in_memory(spark: Any) -> None:  # noqa: F811
    from tests.test_spark import assert_identical, both

    rng = np.random.default_rng(8)
    recs = pd.DataFrame({"user": np.repeat(np.arange(30), 3),
                         "item": rng.integers(0, 10, 90), "score": rng.random(90)}
                        ).drop_duplicates(["user", "item"], ignore_index=True)
    truth = pd.DataFrame({"user": np.arange(2, 34), "item": rng.integers(0, 14, 32)})
    train = pd.DataFrame({"user": rng.integers(0, 40, 80), "item": rng.integers(0, 8, 80)})
    ms = ["catalog_coverage(over=dataset, extra_items=1)@2",
          "gini(items=dataset, extra_items=1)@2", "catalog_coverage(over=train, absent=skip)@2",
          "personalization(overlap=k_full)@2", "distributional_coverage(weights=lists)@2"]
    mem, dist = both(spark, recs, truth, ms, train=train)
    assert_identical(mem, dist)
    assert mem.settings["beyond"] == dist.settings["beyond"]
