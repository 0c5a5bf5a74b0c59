"""Every metric gives one number through every door (scikit-learn's common tests' spirit).

Parametrised over every registered metric and each of its aggregation options, on lists of
different lengths with tied scores, users without truth and users with truth only in part:
``ev.by`` with one group, ``rv.compare``'s means, ``cross_validate``'s per-fold values, Parquet
buckets, Spark (``local[2]``) and, for one user's list, ``rv.explain`` all equal
``rv.evaluate``'s number, bit for bit.
"""

from __future__ import annotations

import functools
import math
import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval._engine._families import family_of
from receval.metrics import available, parse
from tests.spark_session import spark, to_spark  # noqa: F401 - the session fixture

K = 5


def _variants() -> list[str]:
    """Every registered metric, at its default and at each aggregation option."""
    out = []
    for info in available():
        base = info.name + ("(threshold=3)" if "threshold" in info.parameters else "")
        at = f"@{K}" if info.takes_k else ""
        out.append(base + at)
        options = info.parameters.get("aggregation", {}).get("options") or ()
        for option in options[1:]:
            inner = "threshold=3, " if "threshold" in info.parameters else ""
            out.append(f"{info.name}({inner}aggregation={option!r}){at}")
    return out


#: the variants that reproduce other libraries (issue 22), global ones over every partition
LIBRARY_VARIANTS = [
    f"serendipity(expected=similarity, similarity=cosine, combine=sum)@{K}",
    f"personalization(overlap=k_full)@{K}", f"catalog_coverage(over=train, absent=skip)@{K}",
    f"catalog_coverage(over=dataset, extra_items=1)@{K}",
    f"gini(items=dataset, extra_items=1)@{K}", f"distributional_coverage(weights=lists)@{K}"]
#: propensity-weighted variants (the ranking family's weighted path)
WEIGHTED = ["recall(propensity=popularity)@5", "recall(propensity=column, normalize=pooled)@5",
            "ndcg(propensity=column)@5", "dcg(propensity=popularity, estimator=ips)@5",
            "hit_rate(propensity=recpack, estimator=ips, absent=zero)@5",
            "ap(propensity=popularity, absent=zero)@5", "auc(propensity=column)"]
METRICS = _variants() + LIBRARY_VARIANTS + WEIGHTED
PER_USER = [m for m in METRICS if family_of(parse(m)).per_user]
RANKING = [m for m in METRICS if parse(m).family == "ranking"]
EXPLAINED = [m for m in RANKING if m not in WEIGHTED] + [m for m in METRICS
                       if parse(m).name in ("novelty", "popularity", "diversity")]


@functools.cache
def data() -> dict[str, pd.DataFrame]:
    """Lists of 2 to 8 items, tied scores, users without truth, truth rows not recommended.

    Every truth user has a list holding each of their truth items (so that rating metrics
    have a prediction for every truth rating); recs-only users have no truth row.
    """
    rng = np.random.default_rng(7)
    items = np.arange(100, 130)
    recs, truth, train = [], [], []
    for user in range(40):
        n = int(rng.integers(2, 9))
        listed = rng.choice(items, size=n, replace=False)
        scores = np.round(rng.uniform(1, 5, size=n), 0)  # few values: ties
        recs += [(user, int(i), float(s)) for i, s in zip(listed, scores, strict=True)]
        if user % 7 != 3:  # users 3, 10, ...: recommendations without truth
            truth.extend((user, int(i), float(rng.integers(1, 6)))
                         for i in listed[rng.random(n) < 0.5])
            if not any(t[0] == user for t in truth):
                truth.append((user, int(listed[0]), 4.0))
        seen = rng.choice(np.setdiff1d(items, listed), size=4, replace=False)
        train += [(user, int(i)) for i in seen]
    genres = ["a", "b", "c", "d"]
    feats = pd.DataFrame({"item_id": items,
                          "genre": [genres[i % 4] + ("|" + genres[(i // 4) % 4] if i % 3 else "")
                                    for i in range(len(items))]})
    # provider groups (some items in two), user groups of every user
    item_groups = pd.DataFrame({"item_id": items, "group": [
        "p" + str(i % 3) + ("|p3" if i % 5 == 0 else "") for i in range(len(items))]})
    return {"recs": pd.DataFrame(recs, columns=["user_id", "item_id", "score"]),
            "truth": pd.DataFrame(truth, columns=["user_id", "item_id", "rating"]),
            "train": pd.DataFrame([*train, (99, 100)], columns=["user_id", "item_id"]),
            "features": feats, "item_groups": item_groups,
            "user_groups": {u: f"u{u % 3}" for u in [*range(40), 99]}}


def _groups() -> dict[str, Any]:
    d = data()
    return {"item_groups": d["item_groups"], "user_groups": d["user_groups"],
            "propensities": {i: 0.1 + (i % 7) / 10 for i in range(100, 130)}}


def _options() -> dict[str, Any]:
    d = data()
    return {"train": d["train"], "item_features": d["features"], **_groups()}


@functools.cache
def reference() -> rv.EvaluationResult:
    d = data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rv.evaluate(d["recs"], d["truth"], METRICS, **_options())


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


@functools.cache
def by_one_group() -> pd.DataFrame:
    ev = reference()
    groups = pd.Series("all", index=ev.per_user.index)
    return ev.by(groups)


@pytest.mark.parametrize("metric", PER_USER)
def test_by_one_group(metric: str) -> None:
    assert _same(by_one_group().loc["all", parse(metric).label], reference()[metric])


@functools.cache
def compared() -> pd.DataFrame:
    d = data()
    # another system, defined wherever the first is (higher predictions: every user with a
    # positive prediction keeps one), so that the users compared are each metric's users
    other = d["recs"].assign(score=d["recs"]["score"] + 0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rv.compare({"a": d["recs"], "b": other}, d["truth"], METRICS,
                          n_resamples=200, **_options()).table()


def _column(table: pd.DataFrame, metric: str) -> str:
    """The comparison table's column of a metric (rating metrics: on the common pairs)."""
    want = parse(metric)
    for column in table.columns:
        name = str(column).removesuffix(" [common]")
        if column != "coverage" and "[fill=" not in str(column) and parse(name) == want:
            return str(column)
    raise KeyError(metric)


@pytest.mark.parametrize("metric", METRICS)
def test_compare_means(metric: str) -> None:
    table = compared()
    assert _same(table.loc["a", _column(table, metric)], reference()[metric])


class _Fixed:
    """A model that recommends the fixed lists and predicts their scores."""

    def fit(self, train: pd.DataFrame) -> _Fixed:
        return self

    def recommend(self, users: Any, k: int, exclude: Any = None) -> pd.DataFrame:
        recs = data()["recs"]
        return recs[recs["user_id"].isin(list(users))]

    def predict(self, pairs: pd.DataFrame) -> np.ndarray:
        recs = data()["recs"].set_index(["user_id", "item_id"])["score"]
        return recs.reindex(pd.MultiIndex.from_frame(pairs[["user_id", "item_id"]])).to_numpy()


@functools.cache
def cross_validated() -> pd.DataFrame:
    d = data()
    test = d["truth"]
    whole = pd.concat([d["train"].assign(rating=3.0), test, d["recs"][["user_id", "item_id"]]
                       .assign(rating=3.0)]).drop_duplicates(["user_id", "item_id"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cv = rv.cross_validate({"fixed": _Fixed()}, whole, METRICS,
                               split=[(d["train"].assign(rating=3.0), test)], k=10,
                               exclude_seen=False, item_features=d["features"],
                               recs_without_truth="ignore", **_groups())
    return cv.per_fold


@pytest.mark.parametrize("metric", METRICS)
def test_cross_validate_per_fold(metric: str) -> None:
    d = data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = rv.evaluate(d["recs"][d["recs"]["user_id"].isin(d["truth"]["user_id"])],
                         d["truth"], [metric], **_options())
    label = parse(metric).label
    assert _same(cross_validated()[label].iloc[0], ev[label])


@functools.cache
def bucketed(tmp: str) -> rv.EvaluationResult:
    d = data()
    d["recs"].to_parquet(f"{tmp}/recs.parquet")
    d["truth"].to_parquet(f"{tmp}/truth.parquet")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rv.evaluate(f"{tmp}/recs.parquet", f"{tmp}/truth.parquet", METRICS,
                           buckets=3, progress=False, **_options())


@pytest.fixture(scope="module")
def parquet_dir(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(tmp_path_factory.mktemp("parity"))


@pytest.mark.parametrize("metric", METRICS)
def test_parquet_buckets(metric: str, parquet_dir: str) -> None:
    got = bucketed(parquet_dir)
    assert _same(got[metric], reference()[metric])
    if metric in PER_USER:
        label = parse(metric).label
        pd.testing.assert_series_equal(got.per_user[label], reference().per_user[label])


@pytest.fixture(scope="module")
def on_spark(spark: Any) -> rv.EvaluationResult:  # noqa: F811 - the session fixture
    d = data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rv.evaluate(to_spark(spark, d["recs"]), to_spark(spark, d["truth"]), METRICS,
                           **_options())


@pytest.mark.slow
@pytest.mark.parametrize("metric", METRICS)
def test_spark(metric: str, on_spark: rv.EvaluationResult) -> None:
    assert _same(on_spark[metric], reference()[metric])
    if metric in PER_USER:
        label = parse(metric).label
        pd.testing.assert_series_equal(on_spark.per_user[label], reference().per_user[label],
                                       check_index_type=False)


def _one_list(user: int) -> tuple[list[float], list[float], list[int]]:
    """One user's grades in rank order (stable ties), all their grades, and the items."""
    d = data()
    recs = d["recs"][d["recs"]["user_id"] == user]
    ranked = recs.iloc[np.argsort(-recs["score"].to_numpy(), kind="stable")]
    grade = d["truth"][d["truth"]["user_id"] == user].set_index("item_id")["rating"]
    return ([float(grade.get(i, 0.0)) for i in ranked["item_id"]], grade.tolist(),
            ranked["item_id"].tolist())


@pytest.mark.parametrize("metric", EXPLAINED)
def test_explain_one_list(metric: str) -> None:
    ev = reference()
    label = parse(metric).label
    for user in (0, 1, 3, 5):
        if user not in ev.per_user.index or np.isnan(ev.per_user.loc[user, label]):
            continue
        grades, ideal, items = _one_list(user)
        if parse(metric).family == "ranking":
            got = rv.explain(metric, grades, ideal).value
        else:
            d = data()
            got = rv.explain(metric, items, train=d["train"], item_features=d["features"]).value
        assert _same(got, ev.per_user.loc[user, label]), user


def test_every_metric_is_covered() -> None:
    names = {parse(m).name for m in METRICS}
    assert names == {info.name for info in available()}
    assert any("micro" in m for m in METRICS)
    d = data()
    lengths = d["recs"].groupby("user_id").size()
    assert lengths.nunique() > 3
    assert d["recs"].duplicated(["user_id", "score"]).any()  # ties
    assert not set(d["recs"]["user_id"]) <= set(d["truth"]["user_id"])  # users without truth


def test_side_inputs_are_read_once_for_every_bucket(monkeypatch: pytest.MonkeyPatch,
                                                    parquet_dir: str) -> None:
    from receval.data import _side

    calls = {"train": 0, "item_features": 0}
    read_train, read_features = _side.train_ids, _side.read_features

    def counted_train(*args: Any, **kwargs: Any) -> Any:
        calls["train"] += 1
        return read_train(*args, **kwargs)

    def counted_features(*args: Any, **kwargs: Any) -> Any:
        calls["item_features"] += 1
        return read_features(*args, **kwargs)

    monkeypatch.setattr(_side, "train_ids", counted_train)
    monkeypatch.setattr(_side, "read_features", counted_features)
    d = data()
    d["recs"].to_parquet(f"{parquet_dir}/recs6.parquet")
    d["truth"].to_parquet(f"{parquet_dir}/truth6.parquet")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = rv.evaluate(f"{parquet_dir}/recs6.parquet", f"{parquet_dir}/truth6.parquet",
                         ["novelty@5", "diversity@5", "gini@5"], buckets=6, progress=False,
                         **_options())
    assert ev.settings["partitions"] == 6
    assert calls == {"train": 1, "item_features": 1}
