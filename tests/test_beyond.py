"""Beyond-accuracy metrics: hand-computed values (arithmetic in comments), properties, bad input."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
from receval.exceptions import DataError, InvalidParameterError

# Three lists (scores make the order a>b>c, a>d>e, b>c), truth for users 1, 2 and 4 (4 has
# no list), five training users.
RECS = pd.DataFrame({"user": [1, 1, 1, 2, 2, 2, 3, 3],
                     "item": ["a", "b", "c", "a", "d", "e", "b", "c"],
                     "score": [3, 2, 1, 3, 2, 1, 2, 1]})
TRUTH = pd.DataFrame({"user": [1, 2, 4], "item": ["a", "e", "a"]})
TRAIN = pd.DataFrame({"user": [1, 1, 2, 2, 3, 4, 4, 5],
                      "item": ["a", "b", "a", "c", "a", "b", "d", "f"]})
FEATS = pd.DataFrame({"item": list("abcdef"), "x": [1, 0, 1, 1, 0, 1.0],
                      "y": [0, 1, 1, 0, 1, 1.0]})


def ev(metrics: list[str], **kw: object) -> rv.EvaluationResult:
    kw.setdefault("train", TRAIN)
    kw.setdefault("item_features", FEATS)
    return rv.evaluate(RECS, TRUTH, metrics, **kw)  # type: ignore[arg-type]


def test_novelty_hand_computed() -> None:
    # training users: a by {1,2,3} = 3, b by {1,4} = 2, c by {2} = 1, d by {4} = 1, e: none;
    # 5 training users.  user 1: (-log2 3/5 - log2 2/5 - log2 1/5) / 3
    u1 = (-math.log2(3 / 5) - math.log2(2 / 5) - math.log2(1 / 5)) / 3
    # user 2: a, d, e (absent: counted as one user -> -log2 1/5)
    u2 = (-math.log2(3 / 5) - math.log2(1 / 5) - math.log2(1 / 5)) / 3
    u3 = (-math.log2(2 / 5) - math.log2(1 / 5)) / 2
    r = ev(["novelty@3"])
    assert r.per_user["Novelty@3"].loc[[1, 2, 3]].tolist() == pytest.approx([u1, u2, u3])
    assert r["novelty@3"] == pytest.approx((u1 + u2 + u3) / 3)
    assert 4 not in r.per_user.index  # truth user without a list: left out, counted
    assert r.settings["beyond"]["truth_users_without_list"] == 1


def test_novelty_ms_recommenders_variant() -> None:
    # 8 training rows: a 3, b 2, c 1, d 1; e absent -> 0; pooled over the 8 recommended rows
    info = {"a": -math.log2(3 / 8), "b": -math.log2(2 / 8), "c": -math.log2(1 / 8),
            "d": -math.log2(1 / 8), "e": 0.0}
    want = sum(info[i] for i in RECS["item"]) / 8
    r = ev(["novelty(popularity=interactions, absent=zero, aggregation=micro)@3"])
    assert r[r.labels[0]] == pytest.approx(want)


def test_novelty_skip_and_error() -> None:
    r = ev(["novelty(absent=skip)@3"])
    u2 = (-math.log2(3 / 5) - math.log2(1 / 5)) / 2  # e left out of user 2's mean
    assert r.per_user.iloc[1, 0] == pytest.approx(u2)
    with pytest.raises(DataError, match="absent from train"):
        ev(["novelty(absent=error)@3"])


def test_diversity_cosine_hand_computed() -> None:
    # unit vectors: a (1,0), b (0,1), c (1,1)/sqrt2, d (1,0), e (0,1)
    # user 1: pairs ab cos 0, ac 1/sqrt2, bc 1/sqrt2 -> mean dissimilarity
    s = 1 / math.sqrt(2)
    u1 = ((1 - 0) + (1 - s) + (1 - s)) / 3
    u2 = ((1 - 1) + (1 - 0) + (1 - 0)) / 3  # a~d identical, e orthogonal to both
    u3 = 1 - s
    r = ev(["diversity@3", "diversity(normalize=items)@3"])
    assert r.per_user["Diversity@3"].loc[[1, 2, 3]].tolist() == pytest.approx([u1, u2, u3])
    # Evidently: sum over pairs / list length
    items = r.per_user["Diversity(normalize='items')@3"].loc[[1, 2, 3]].tolist()
    assert items == pytest.approx([u1 * 3 / 3, u2 * 3 / 3, u3 * 1 / 2])


def test_diversity_cooccurrence_hand_computed() -> None:
    # co-occurrence in train: a&b by user 1 -> 1/sqrt(3*2); a&c by user 2 -> 1/sqrt(3*1);
    # b&c never -> 0.  user 1: (1 - 1/sqrt6 + 1 - 1/sqrt3 + 1) / 3
    u1 = (3 - 1 / math.sqrt(6) - 1 / math.sqrt(3)) / 3
    r = ev(["diversity(similarity=cooccurrence)@3"])
    assert r.per_user.iloc[0, 0] == pytest.approx(u1)


def test_unexpectedness_and_serendipity_hand_computed() -> None:
    # popularity by interactions: a 3, b 2, then c 1, d 1, f 1 (ties by id).  Expected list
    # (k=2) = the 2 most popular training items the user has not seen:
    # user 1 saw a, b -> {c, d}; top 2 (a, b): both unexpected -> 1.0
    # user 2 saw a, c -> {b, d}; top 2 (a, d): a unexpected, d expected -> 0.5
    # user 3 saw a    -> {b, c}; top 2 (b, c): both expected -> 0.0
    r = ev(["unexpectedness@2", "serendipity@2"])
    assert r.per_user["Unexpectedness@2"].loc[[1, 2, 3]].tolist() == [1.0, 0.5, 0.0]
    # serendipity: relevant and unexpected / 2: user 1 a relevant+unexpected -> 1/2;
    # user 2: relevant e is not in the top 2 -> 0; user 3 has no truth -> left out
    per = r.per_user["Serendipity@2"]
    assert per.loc[1] == 0.5
    assert per.loc[2] == 0.0
    assert np.isnan(per.loc[3])
    assert r["serendipity@2"] == pytest.approx(0.25)


def test_global_exposure_hand_computed() -> None:
    # exposure within the top 3: a 2, b 2, c 2, d 1, e 1 (8 rows)
    p = np.array([2, 2, 2, 1, 1]) / 8
    h = float(-(p * np.log(p)).sum())
    r = ev(["entropy@3", "distributional_coverage@3", "entropy(normalize=distinct)@3",
            "gini@3", "gini(items=recommended, normalize=n-1)@3", "personalization@3",
            "catalog_coverage@3"])
    assert r["entropy@3"] == pytest.approx(h)
    assert r["distributional_coverage@3"] == pytest.approx(h / math.log(2))
    assert r["entropy(normalize=distinct)@3"] == pytest.approx(h / 5)  # RecBole
    # catalog = train + recommended items = a..f (6); f never recommended: c = 0,1,1,2,2,2
    c = np.array([0, 1, 1, 2, 2, 2.0])
    j = np.arange(1, 7)
    assert r["gini@3"] == pytest.approx(((2 * j - 7) * c).sum() / (6 * 8))
    c5, j5 = c[1:], np.arange(1, 6)
    assert r["gini(items=recommended, normalize=n-1)@3"] == pytest.approx(
        ((2 * j5 - 6) * c5).sum() / (4 * 8))
    # overlaps: (1,2) {a} 1/sqrt(3*3); (1,3) {b,c} 2/sqrt(3*2); (2,3) none
    mean = (1 / 3 + 2 / math.sqrt(6) + 0) / 3
    assert r["personalization@3"] == pytest.approx(1 - mean)
    assert r["catalog_coverage@3"] == pytest.approx(5 / 6)
    assert "Gini@3" not in r.per_user.columns  # global: no per-user column
    assert r.summaries["Gini@3"].aggregation == "global"


def test_popularity_and_long_tail_hand_computed() -> None:
    # interactions: a 3, b 2, c 1, d 1, f 1; e absent (0). 5 training items; head = top
    # floor(0.2 * 5) = 1 item = {a}; tail = b, c, d, f and absent e.
    r = ev(["arp@3", "aplt@3", "aclt@3", "aplt(tail=0.4, absent=not_tail)@3"])
    assert r.per_user["Popularity@3"].loc[[1, 2, 3]].tolist() == pytest.approx(
        [(3 + 2 + 1) / 3, (3 + 1 + 0) / 3, (2 + 1) / 2])
    assert r.per_user["LongTail@3"].loc[[1, 2, 3]].tolist() == pytest.approx(
        [2 / 3, 2 / 3, 1.0])
    assert r.per_user["LongTailCoverage@3"].loc[[1, 2, 3]].tolist() == [2, 2, 2]
    # RecBole: bottom max(int(0.4 * 5), 1) = 2 items by (count, id): c, d; e is not tail
    assert r.per_user["LongTail(tail=0.4, absent='not_tail')@3"].loc[[1, 2, 3]].tolist() \
        == pytest.approx([1 / 3, 1 / 3, 1 / 2])


def test_missing_inputs_and_features() -> None:
    with pytest.raises(InvalidParameterError, match="train"):
        rv.evaluate(RECS, TRUTH, ["novelty@3"])
    with pytest.raises(InvalidParameterError, match="item_features"):
        rv.evaluate(RECS, TRUTH, ["diversity@3"], train=TRAIN)
    partial = FEATS[FEATS["item"] != "e"]
    with pytest.raises(DataError, match="no features"):
        ev(["diversity@3"], item_features=partial)
    r = ev(["diversity@3"], item_features=partial, item_features_missing="skip")
    assert r.per_user.iloc[1, 0] == pytest.approx(0.0)  # a, d identical; e skipped
    assert r.settings["beyond"]["items_without_features"] == 1
    with pytest.raises(InvalidParameterError):
        rv.metrics.parse("long_tail(head=1.5)@3")


def test_feature_forms_agree() -> None:
    vec = pd.DataFrame({"item": FEATS["item"], "v": list(FEATS[["x", "y"]].to_numpy())})
    long = pd.DataFrame({"item": ["a", "b", "c", "c", "d", "e", "f", "f"],
                         "feature": ["x", "y", "x", "y", "x", "y", "x", "y"]})
    base = ev(["diversity@3"])["diversity@3"]
    assert ev(["diversity@3"], item_features=vec)["diversity@3"] == pytest.approx(base)
    # 0/1 features: the long table gives the same vectors
    assert ev(["diversity@3"], item_features=long)["diversity@3"] == pytest.approx(base)


# -- properties --------------------------------------------------------------------------------
lists = st.lists(st.lists(st.integers(0, 9), min_size=1, max_size=5, unique=True),
                 min_size=2, max_size=8)


def _frames(ls: list[list[int]]) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    rows = [(u, i, -r) for u, items in enumerate(ls) for r, i in enumerate(items)]
    recs = pd.DataFrame(rows, columns=["user", "item", "score"])
    truth = recs.groupby("user").head(1)[["user", "item"]]
    rng = np.random.default_rng(0)
    train = pd.DataFrame({"user": rng.integers(0, 6, 40), "item": rng.integers(0, 10, 40)})
    return recs, truth, train.drop_duplicates()


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(lists)
def test_bounds_and_order_invariance(ls: list[list[int]]) -> None:
    recs, truth, train = _frames(ls)
    feats = pd.DataFrame({"item": range(10), "x": np.arange(10) % 3, "y": np.arange(10) % 2})
    ms = ["diversity@5", "unexpectedness@5", "serendipity@5", "personalization@5", "gini@5",
          "aplt@5", "novelty@5", "entropy@5"]
    a = rv.evaluate(recs, truth, ms, train=train, item_features=feats)
    for label in ("Diversity@5", "Unexpectedness@5", "Serendipity@5", "LongTail@5"):
        v = a.per_user[label].dropna()
        assert ((v >= -1e-12) & (v <= 1 + 1e-12)).all()
    assert 0 <= a["gini@5"] <= 1
    assert 0 <= a["personalization@5"] <= 1 + 1e-12
    perm = recs.sample(frac=1, random_state=1)
    b = rv.evaluate(perm, truth, ms, train=train.iloc[::-1], item_features=feats)
    for m in ms:
        assert b[m] == pytest.approx(a[m], nan_ok=True)


def test_identical_items_zero_diversity_and_gini_extremes() -> None:
    recs = pd.DataFrame({"user": [1, 1, 1, 2], "item": ["a", "b", "c", "a"],
                         "score": [3, 2, 1, 1]})
    feats = pd.DataFrame({"item": ["a", "b", "c"], "x": [1.0, 2.0, 3.0]})  # same direction
    r = rv.evaluate(recs, recs, ["diversity@3"], item_features=feats)
    assert r.per_user.loc[1].iloc[0] == pytest.approx(0.0)
    uniform = pd.DataFrame({"user": [1, 2, 3], "item": ["a", "b", "c"], "score": 1.0})
    assert rv.evaluate(uniform, uniform, ["gini@1"])["gini@1"] == pytest.approx(0.0)
    one = pd.DataFrame({"user": range(100), "item": "a", "score": 1.0})
    cat = [f"i{j}" for j in range(999)] + ["a"]
    g = rv.evaluate(one, one, ["gini@1"], catalog=cat)["gini@1"]
    assert g == pytest.approx(1 - 1 / 1000)  # (n - 1) / n: near 1


def test_more_popular_list_has_lower_novelty() -> None:
    recs = pd.DataFrame({"user": [1, 2], "item": ["a", "d"], "score": 1.0})
    r = rv.evaluate(recs, recs, ["novelty@1"], train=TRAIN)
    assert r.per_user.loc[1].iloc[0] < r.per_user.loc[2].iloc[0]  # a (3 users) vs d (1)


def test_explain_lists() -> None:
    e = rv.explain("diversity@3", ["a", "b", "c"], item_features=FEATS)
    s = 1 / math.sqrt(2)
    assert e.value == pytest.approx((1 + 2 * (1 - s)) / 3)
    assert e.table["dissimilarity"].mean() == pytest.approx(e.value)  # table = value
    assert "a" in str(e)
    n = rv.explain("novelty@3", ["a", "b", "e"], train=TRAIN)
    # a: 3 of 5 users, b: 2 of 5, e absent -> counted as one user
    want = (-math.log2(3 / 5) - math.log2(2 / 5) - math.log2(1 / 5)) / 3
    assert n.value == pytest.approx(want)
    assert n.table["self_information"].mean() == pytest.approx(n.value)
    c = rv.explain("diversity(similarity=cooccurrence)@3", ["a", "b", "c"], train=TRAIN)
    assert c.table["dissimilarity"].mean() == pytest.approx(c.value)
    p = rv.explain("arp@2", ["a", "d"], train=TRAIN)
    assert p.value == pytest.approx((3 + 1) / 2)
    with pytest.raises(InvalidParameterError):
        rv.explain("gini@3", ["a"], train=TRAIN)


# -- against reference implementations (brute force, SciPy, scikit-learn) ----------------------
@pytest.mark.slow
@settings(max_examples=30, deadline=None)
@given(lists, st.integers(1, 5))
def test_against_references(ls: list[list[int]], k: int) -> None:
    from itertools import combinations

    from scipy.stats import entropy
    from sklearn.metrics.pairwise import cosine_similarity

    recs, truth, train = _frames(ls)
    rng = np.random.default_rng(len(ls))
    f = rng.random((10, 3))
    feats = pd.DataFrame({"item": range(10), "a": f[:, 0], "b": f[:, 1], "c": f[:, 2]})
    r = rv.evaluate(recs, truth, [f"diversity@{k}", f"personalization@{k}", f"gini@{k}",
                                  f"entropy@{k}"], train=train, item_features=feats,
                    catalog=range(10))
    tops = [items[:k] for items in ls]
    sim = cosine_similarity(f)
    ild = [np.mean([1 - sim[a, b] for a, b in combinations(t, 2)]) for t in tops
           if len(t) > 1]
    assert r[f"diversity@{k}"] == pytest.approx(np.mean(ild) if ild else np.nan, nan_ok=True)
    pairs = [len(set(x) & set(y)) / np.sqrt(len(x) * len(y)) for x, y in combinations(tops, 2)]
    assert r[f"personalization@{k}"] == pytest.approx(1 - np.mean(pairs))
    c = np.bincount([i for t in tops for i in t], minlength=10).astype(float)
    mad = np.abs(c[:, None] - c[None, :]).sum() / (2 * 10 * c.sum())  # mean abs difference
    assert r[f"gini@{k}"] == pytest.approx(mad)
    assert r[f"entropy@{k}"] == pytest.approx(entropy(c[c > 0]))


def test_catalog_coverage_over_train() -> None:
    # distinct recommended a..e = 5; distinct training items a, b, c, d, f = 5 -> 1.0;
    # default catalog = train + recommended = a..f = 6 -> 5/6
    r = ev(["catalog_coverage(over=train)@3", "catalog_coverage@3"])
    assert r["catalog_coverage(over=train)@3"] == pytest.approx(5 / 5)
    assert r["catalog_coverage@3"] == pytest.approx(5 / 6)
    with pytest.raises(InvalidParameterError, match="train"):
        rv.evaluate(RECS, TRUTH, ["catalog_coverage(over=train)@3"])


def test_gini_catalog_without_train_is_truth_and_recs() -> None:
    # no train: catalog = truth + recommended items = a..e (truth adds none here) plus the
    # truth-only item "z" -> c = 0 (z), 1 (d), 1 (e), 2, 2, 2 over 6 items
    truth = pd.concat([TRUTH, pd.DataFrame({"user": [4], "item": ["z"]})])
    r = rv.evaluate(RECS, truth, ["gini@3"])
    c = np.array([0, 1, 1, 2, 2, 2.0])
    j = np.arange(1, 7)
    assert r["gini@3"] == pytest.approx(((2 * j - 7) * c).sum() / (6 * 8))


@pytest.mark.parametrize("buckets", [1, 3])
def test_buckets_equal_in_memory(tmp_path: object, buckets: int) -> None:
    from pathlib import Path

    path = Path(str(tmp_path))
    rng = np.random.default_rng(3)
    recs = pd.DataFrame({"user": np.repeat(np.arange(60), 4),
                         "item": rng.integers(0, 6, 240), "score": rng.random(240)})
    recs = recs.drop_duplicates(["user", "item"])
    truth = recs.groupby("user").head(1)[["user", "item"]].iloc[:50]
    recs.to_parquet(path / "recs.parquet", index=False)
    truth.to_parquet(path / "truth.parquet", index=False)
    train = pd.DataFrame({"user": rng.integers(0, 80, 200), "item": rng.integers(0, 7, 200)})
    feats = pd.DataFrame({"item": range(7), "x": rng.random(7), "y": rng.random(7)})
    ms = ["novelty@3", "diversity@3", "personalization@3", "gini@3", "entropy@3",
          "serendipity@3", "aplt@3", "catalog_coverage@3"]
    ref = rv.evaluate(recs, truth, ms, train=train, item_features=feats)
    ev = rv.evaluate(str(path / "recs.parquet"), str(path / "truth.parquet"), ms,
                     train=train, item_features=feats, buckets=buckets, progress=False)
    for m in ms:
        assert ev[m] == pytest.approx(ref[m])
    pd.testing.assert_frame_equal(ev.per_user, ref.per_user)


@pytest.mark.parametrize("sim", ["cosine", "jaccard", "cooccurrence"])
def test_dense_and_sparse_similarity_paths_agree(monkeypatch: pytest.MonkeyPatch,
                                                 sim: str) -> None:
    from receval._engine._families import _similarity

    ms = [f"diversity(similarity={sim})@3", f"unexpectedness(expected=similarity, "
          f"similarity={sim})@3"]
    dense = ev(ms)
    monkeypatch.setattr(_similarity, "DENSE_CELLS", 0)  # pair by pair, no table
    sparse = ev(ms)
    for m in ms:
        assert sparse[m] == pytest.approx(dense[m])


def test_cooccurrence_similarity_ignores_the_features_other_metrics_read() -> None:
    # item 'a' has no feature row: diversity (cosine, items without features skipped) needs
    # the features, co-occurrence unexpectedness reads only train; asking both in one call
    # must not drop 'a' from the co-occurrence history
    feats = FEATS[FEATS["item"] != "a"]
    unexp = "unexpectedness(expected=similarity, similarity=cooccurrence)@3"
    alone = ev([unexp], item_features=feats).per_user[parse_label(unexp)]
    both = ev([unexp, "diversity@3"], item_features=feats,
              item_features_missing="skip").per_user[parse_label(unexp)]
    pd.testing.assert_series_equal(alone, both)


def parse_label(metric: str) -> str:
    return rv.metrics.parse(metric).label
