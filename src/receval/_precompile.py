"""Compile receval's kernels ahead of time: the warm-up the wheel build runs.

``python -m receval._precompile`` calls the public API on small generated data so that numba
compiles, and writes to its on-disk cache, exactly the kernel versions that real calls use:
``receval demo``'s experiment, :func:`receval.evaluate` with every metric family and every
tie policy, rating and beyond-accuracy metrics (with ``train=`` and ``item_features=`` in
each form), the Parquet bucket path, the splits, sampled evaluation, the baselines' top-k,
comparisons and their statistics, and :func:`receval.explain`. Then it runs the same calls
again with the thread-pool threshold lowered to one row, so that the ``parallel=True``
versions (used on inputs of ``PARALLEL_MIN`` rows or more) are compiled too.

The wheel build (``hatch_build.py``) runs it on a copy of the sources and ships the cache
files it leaves in each module's ``__pycache__``; see docs/performance.md, "The first run".
``--report FILE`` writes every kernel dispatcher's compiled signatures as JSON (the tests read
it); ``--serial-only`` skips the thread-pool versions.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib
import json
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["dispatchers", "main", "warm_up"]

#: every tie policy of the ranking kernels
TIES = ("stable", "item", "item_desc", "item_str_desc", "optimistic", "pessimistic", "expected")

RANKING_AT_K = [
    "precision@5", "precision(denominator=list_length, aggregation=micro)@5", "recall@5",
    "recall(denominator=min_k_relevant, aggregation=micro)@5", "f1@5", "ndcg@5",
    "ndcg(gain=exponential, discount=breese, ideal=list, zero_ideal=skip)@5",
    "ndcg(discount=ln, ideal=truth_uncut, grades=judged, aggregation=micro)@5", "dcg@5",
    "cg@5", "ap@5", "ap(denominator=relevant)@5", "ap(denominator=k, positions=all)@5",
    "mrr@5", "arhr@5", "hit_rate@5", "rank_score@5", "item_coverage@5", "user_coverage",
]
FAIRNESS = ["miscalibration@5", "popularity_calibration@5", "exposure@5", "ee@5",
            "awrf(precision=float32, times_ndcg=true)@5", "rsp@5", "reo@5", "delta_gap@5",
            "bias_disparity@5", "recall(propensity=popularity)@5", "ap(propensity=popularity)@5",
            "auc(propensity=popularity)"]
RANKING_WHOLE_LIST = ["map", "mrr", "ndcg", "recall", "auc", "rank_score"]
RATING = ["rmse", "mae", "mse", "rmse(aggregation=macro)", "mae(aggregation=macro)",
          "spearman", "kendall", "rating_precision", "rating_recall", "rating_f1",
          "rating_f1(aggregation=macro)"]
BEYOND = [
    "novelty@5", "novelty(popularity=interactions, aggregation=micro, absent=zero)@5",
    "diversity@5", "diversity(similarity=jaccard)@5", "diversity(similarity=euclidean)@5",
    "diversity(similarity=cooccurrence, normalize=items)@5", "serendipity@5",
    "serendipity(expected=similarity, similarity=cosine)@5", "unexpectedness@5",
    "unexpectedness(expected=similarity, similarity=jaccard)@5", "personalization@5",
    "personalization(overlap=k)@5", "gini@5", "gini(items=recommended, normalize=n-1)@5",
    "entropy@5", "entropy(normalize=distinct)@5", "catalog_coverage@5",
    "item_coverage(over=train)@5", "distributional_coverage@5", "popularity@5",
    "popularity(popularity=users, scale=share)@5", "long_tail@5", "long_tail(tail=0.5)@5",
    "long_tail_coverage@5",
]


def dispatchers() -> dict[str, Any]:
    """Every numba dispatcher of receval, by ``module.name``.

    The modules are those whose source uses ``@njit`` (receval's kernels, and the top-k walk
    of :mod:`receval.models`); importing them imports nothing optional.
    """
    from numba.core.dispatcher import Dispatcher

    import receval

    root = Path(receval.__file__).parent
    out: dict[str, Any] = {}
    for path in sorted(root.rglob("*.py")):
        if "@njit" not in path.read_text(encoding="utf-8"):
            continue
        parts = path.relative_to(root).with_suffix("").parts
        module = importlib.import_module(".".join(("receval", *parts)))
        for name, obj in sorted(vars(module).items()):
            if isinstance(obj, Dispatcher) and obj.py_func.__module__ == module.__name__:
                out[f"{module.__name__}.{name}"] = obj
    return out


@contextmanager
def _parallel_from(rows: int) -> Iterator[None]:
    """Run the kernels on the thread pool from ``rows`` rows (``_jit.PARALLEL_MIN``)."""
    from receval._kernels import _jit

    saved = _jit.PARALLEL_MIN
    _jit.PARALLEL_MIN = rows
    try:
        yield
    finally:
        _jit.PARALLEL_MIN = saved


def _data() -> dict[str, Any]:
    """Small generated data: ratings, a split, recommendations, features (seeded)."""
    import receval as rv
    from receval.datasets import sample_genres, sample_ratings

    ratings = sample_ratings(90, 60, seed=3)
    train, test = rv.split.temporal(ratings, test_size=0.25, per_user=True)
    rng = np.random.default_rng(3)
    users = np.sort(test["user_id"].unique())
    items = np.sort(ratings["item_id"].unique())
    recs = pd.DataFrame({"user_id": np.repeat(users, 12),
                         "item_id": np.concatenate([rng.choice(items, 12, replace=False)
                                                    for _ in users])})
    # rounded scores: ties for every tie policy to break
    recs["score"] = np.round(rng.random(len(recs)), 1)
    genres = sample_genres(ratings, seed=3)
    wide = pd.DataFrame({"item_id": items, "x": rng.random(len(items)),
                         "y": rng.random(len(items))})
    return {"ratings": ratings, "train": train, "test": test, "recs": recs, "items": items,
            "long": genres, "wide": wide,
            "vectors": pd.DataFrame({"item_id": items,
                                     "v": list(rng.random((len(items), 3)))})}


def _evaluate_calls(d: dict[str, Any]) -> None:
    import pyarrow as pa

    import receval as rv

    recs, test, train = d["recs"], d["test"], d["train"]
    for ties in TIES:
        rv.evaluate(recs, test, RANKING_AT_K, ties=ties, relevance_threshold=4)
        rv.evaluate(recs, test, RANKING_WHOLE_LIST, ties=ties, relevance_threshold=4)
    ranked = recs.assign(rank=recs.groupby("user_id").cumcount() + 1).drop(columns="score")
    rv.evaluate(ranked, test, ["ndcg@5", "map"])
    rv.evaluate(recs.drop(columns="score"), test.drop(columns="rating"), ["recall@5"])
    rv.evaluate(recs, test, ["ndcg@5"], score_precision="float32", convention="trec_eval")
    strings = recs.assign(user_id="u" + recs["user_id"].astype(str),
                          item_id="i" + recs["item_id"].astype(str))
    truth_s = test.assign(user_id="u" + test["user_id"].astype(str),
                          item_id="i" + test["item_id"].astype(str))
    rv.evaluate(pa.Table.from_pandas(strings), pa.Table.from_pandas(truth_s), ["ndcg@5"])
    pred = test[["user_id", "item_id"]].assign(score=test["rating"] + 0.5)
    rv.evaluate(pred, test, RATING, relevance_threshold=4)
    rv.evaluate(pred, test, "rmse")  # one metric: its parameter column is contiguous too
    for features in ("long", "wide", "vectors"):
        rv.evaluate(recs, test, BEYOND, train=train, item_features=d[features])
    rv.evaluate(recs, test, FAIRNESS, train=train, item_features=d["long"],
                item_groups={i: int(i) % 3 for i in d["items"]})
    rv.explain("ndcg@5", [3, 2, 3, 0, 1, 2])
    rv.explain("ap@5", [1, 0, 1, 1, 0], ideal=[1, 1, 1, 0, 0, 1])


def _bucket_calls(d: dict[str, Any]) -> None:
    import receval as rv

    with tempfile.TemporaryDirectory() as tmp:
        d["recs"].to_parquet(f"{tmp}/recs.parquet")
        d["test"].to_parquet(f"{tmp}/test.parquet")
        rv.evaluate(f"{tmp}/recs.parquet", f"{tmp}/test.parquet", ["ndcg@5", "map"],
                    buckets=3, progress=False)


def _split_calls(d: dict[str, Any]) -> None:
    import pyarrow as pa

    import receval as rv

    ratings = d["ratings"]
    rv.split.random(ratings, test_size=0.2, seed=0)
    rv.split.random(ratings, test_size=0.2, per_user=True, seed=0)
    rv.split.temporal(ratings, test_size=0.2)
    rv.split.temporal(ratings, at=ratings["timestamp"].median())
    rv.split.temporal(ratings, test_size=0.2, per_user=True, ties="train")
    rv.split.leave_k_out(ratings, k=1)
    rv.split.leave_k_out(ratings, k=2, order="random", seed=0)
    rv.split.kfold(ratings, n_splits=3, by="rows", seed=0)
    rv.split.kfold(ratings, n_splits=3, by="users", seed=0)
    # timestamps that are plain numbers (float64; datetimes and integers are int64)
    seconds = ratings.assign(timestamp=ratings["timestamp"].astype("int64") / 1e9)
    rv.split.temporal(seconds, test_size=0.2)
    rv.split.temporal(seconds, test_size=0.2, per_user=True)
    rv.split.leave_k_out(seconds, k=1)
    rv.split.temporal(pa.Table.from_pandas(ratings), test_size=0.2, per_user=True)  # Arrow
    # string user ids: a per-user random split keys each user by the hash of its id's bytes
    named = ratings.assign(user_id="u" + ratings["user_id"].astype(str))
    rv.split.random(named, test_size=0.2, per_user=True, seed=0)


def _model_calls(d: dict[str, Any]) -> None:
    import receval as rv

    train, test = d["train"], d["test"]
    users = test["user_id"].unique()
    for model in (rv.models.Random(seed=0), rv.models.MostPopular(), rv.models.GlobalMean(),
                  rv.models.UserMean(), rv.models.ItemMean(shrinkage=5.0)):
        model.fit(train)
        model.recommend(users, 5)
        model.recommend(users, 5, exclude=train)
        model.recommend(users, 5, exclude=train, ties="random", seed=0)
        model.score(test[["user_id", "item_id"]].loc[test["item_id"].isin(train["item_id"])])
        if hasattr(model, "predict"):
            model.predict(test[["user_id", "item_id"]])


def _neighbour_calls(d: dict[str, Any]) -> None:
    """The k-NN and Slope One kernels of ``rv.models.Surprise``, on arrays of their types.

    Surprise itself is optional (not in the build environment), so the kernels are called
    directly, with the argument types the adapter passes.
    """
    from receval._kernels import neighbours as nb

    ids = np.arange(3, dtype=np.int64)
    off, xs = np.array([0, 2, 3, 3], dtype=np.int64), np.array([1, 2, 0], dtype=np.int64)
    rs, sim, vec = np.array([4.0, 2.0, 5.0]), np.eye(3), np.ones(3)
    for kind in (nb.BASIC, nb.BASELINE):
        nb.knn_grid(ids, ids, kind, sim, off, xs, rs, 2, 1, vec, vec, vec, vec, 3.0, True, 2)
        nb.knn_pairs(ids, ids, kind, sim, off, xs, rs, 2, 1, vec, vec, vec, vec, 3.0, False, 2)
    freq = np.ones((3, 3), dtype=np.int64)
    nb.slope_one_grid(ids, ids, off, xs, freq, sim, vec)
    nb.slope_one_pairs(ids, ids, off, xs, freq, sim, vec)


def _sampled_calls(d: dict[str, Any]) -> None:
    import receval as rv

    train, test = d["train"], d["test"]
    for strategy in ("uniform", "popularity"):
        cand = rv.sampled.negatives(test, n=10, exclude=train, strategy=strategy, seed=0)
        cand["score"] = np.random.default_rng(0).random(len(cand))
        for correction in ("none", "rank_estimate", "minimal_bias", "bias_variance"):
            if strategy == "popularity" and correction != "none":
                continue  # the corrections assume uniform sampling
            rv.sampled.evaluate(cand, test, ["hit_rate@5", "ndcg@5", "auc"],
                                n_items=len(d["items"]), correction=correction)


def _compare_calls(d: dict[str, Any]) -> None:
    import receval as rv

    recs, test, train = d["recs"], d["test"], d["train"]
    rng = np.random.default_rng(1)
    systems = {name: recs.assign(score=np.round(rng.random(len(recs)), 1))
               for name in ("a", "b", "c")}
    metrics = ["ndcg@5", "recall@5"]
    for test_name in ("t", "wilcoxon", "sign", "permutation", "bootstrap"):  # 3 systems: Friedman
        rv.compare(systems, test, metrics, test=test_name, correction="holm",
                   n_resamples=200, relevance_threshold=4)
    results = {name: [rv.evaluate(r, test, metrics)] * 2 for name, r in systems.items()}
    rv.stats.compare_folds(results, test="t", n_resamples=200)
    pred = {name: test[["user_id", "item_id"]].assign(score=test["rating"] + rng.random(len(test)))
            for name in ("a", "b")}
    rv.compare(pred, test, ["rmse"], n_resamples=200)
    ev = rv.evaluate(recs, test, metrics)
    ev.by(rv.stats.activity_groups(train, bins=3))
    rv.stats.by_item_group(recs, test, metrics, rv.stats.popularity_groups(train, head=0.2))


def warm_up(*, parallel: bool = True, log: Callable[[str], None] | None = None) -> None:
    """Call the public API so that every kernel version it uses is compiled (and cached).

    Parameters
    ----------
    parallel : bool
        Then run the calls again on the thread pool (``PARALLEL_MIN`` lowered to one row),
        when numba has more than one thread.
    log : callable, optional
        Receives a line per step with its wall time.
    """
    import numba

    from receval import _demo

    steps: list[tuple[str, Callable[[], Any]]] = [
        ("receval demo", lambda: _demo.experiment(120, 80, k=5))]
    d = _data()
    calls = [("evaluate", _evaluate_calls), ("parquet buckets", _bucket_calls),
             ("split", _split_calls), ("models", _model_calls),
             ("neighbours", _neighbour_calls), ("sampled", _sampled_calls),
             ("compare", _compare_calls)]
    steps += [(name, functools.partial(fn, d)) for name, fn in calls]
    rounds = [False, True] if parallel and numba.get_num_threads() > 1 else [False]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for threads in rounds:
            with _parallel_from(1) if threads else contextlib.nullcontext():
                for name, step in steps:
                    started = time.perf_counter()
                    step()
                    if log is not None:
                        where = "thread pool" if threads else "one thread"
                        log(f"{name} ({where}): {time.perf_counter() - started:.1f} s")


def main(argv: list[str] | None = None) -> int:
    """Command line: ``python -m receval._precompile [--report FILE] [--serial-only]``."""
    parser = argparse.ArgumentParser(prog="python -m receval._precompile",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--report", help="write each dispatcher's signatures as JSON here")
    parser.add_argument("--serial-only", action="store_true",
                        help="skip the thread-pool (parallel=True) versions")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    warm_up(parallel=not args.serial_only, log=lambda line: print(line, flush=True))
    found = dispatchers()
    compiled = sum(1 for disp in found.values() if disp.signatures)
    print(f"{compiled} of {len(found)} kernels compiled in {time.perf_counter() - started:.1f} s",
          flush=True)
    if args.report:
        report = {name: [str(sig) for sig in disp.signatures] for name, disp in found.items()}
        Path(args.report).write_text(json.dumps(report, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
