"""Beyond-accuracy metrics: receval vs Microsoft Recommenders' python evaluation.

Workload (seeded): ``--users`` users (default 100k), each with a list of ``--k`` scored items
(default 100) drawn with Zipf-like popularity from ``--items`` items (default 1,000), 20
training interactions per user, 20-dimensional item features, one relevant truth item per
user. Every metric is evaluated at ``@k`` (the whole list: the O(k^2) diversity at its
heaviest).

Microsoft Recommenders (MSR) 1.2.1 is slow (pandas merges per pair of items): it is timed on
a subsample of ``--msr-users`` users (recs, train and truth of those users) and extrapolated
linearly to the full size, which flatters it (its item-pair tables grow faster than
linearly). On that subsample receval's value under the MSR variant is compared with MSR's.

Run in an environment with pandas 2 and ``recommenders==1.2.1`` (installed ``--no-deps``):
``PYTHONPATH=src /work/venv-beyond/bin/python benchmarks/beyond.py --markdown``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

import receval as rv

METRICS = ["novelty", "diversity", "diversity(similarity=cooccurrence)", "serendipity",
           "unexpectedness", "personalization", "gini", "entropy", "catalog_coverage",
           "distributional_coverage", "popularity", "long_tail", "long_tail_coverage"]


def make_data(users: int, items: int, k: int, seed: int = 0) -> dict[str, pd.DataFrame]:
    """Recs, truth, train and item features of the workload (recs never repeat train)."""
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, items + 1) ** 0.8
    weights = weights / weights.sum() * items
    n_train = 20
    rec_parts, train_parts = [], []
    for lo in range(0, users, 10_000):  # blocks of users: bounded memory
        n = min(10_000, users - lo)
        keys = rng.random((n, items)) ** (1.0 / weights)  # weighted sampling without repeats
        t_items = np.argpartition(-keys, n_train, axis=1)[:, :n_train]
        keys = rng.random((n, items)) ** (1.0 / weights)
        np.put_along_axis(keys, t_items, -1.0, axis=1)  # never recommend a training item
        top = np.argpartition(-keys, k, axis=1)[:, :k]
        ids = np.repeat(np.arange(lo, lo + n), k)
        rec_parts.append(pd.DataFrame({"user": ids, "item": top.ravel(),
                                       "score": rng.random(n * k)}))
        train_parts.append(pd.DataFrame({"user": np.repeat(np.arange(lo, lo + n), n_train),
                                         "item": t_items.ravel()}))
    recs = pd.concat(rec_parts, ignore_index=True)
    train = pd.concat(train_parts, ignore_index=True)
    truth = recs.groupby("user").sample(1, random_state=seed)[["user", "item"]]
    feats = pd.DataFrame(rng.random((items, 20)), columns=[f"f{j}" for j in range(20)])
    feats.insert(0, "item", np.arange(items))
    return {"recs": recs, "truth": truth, "train": train, "features": feats}


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def receval_times(d: dict[str, pd.DataFrame], k: int) -> dict[str, float]:
    out = {}
    rv.evaluate(d["recs"].head(1000), d["truth"], [f"{m}@{k}" for m in METRICS],
                train=d["train"], item_features=d["features"], missing_recs="skip")  # compile
    for m in METRICS:
        out[m], _ = timed(lambda m=m: rv.evaluate(
            d["recs"], d["truth"], [f"{m}@{k}"], train=d["train"],
            item_features=d["features"]))
    out["all at once"], _ = timed(lambda: rv.evaluate(
        d["recs"], d["truth"], [f"{m}@{k}" for m in METRICS], train=d["train"],
        item_features=d["features"]))
    return out


def msr(d: dict[str, pd.DataFrame], k: int) -> dict[str, tuple[float, float, float]]:
    """MSR time and value, and receval's value under the MSR variant, per metric."""
    from recommenders.evaluation import python_evaluation as pe

    recs, train = d["recs"], d["train"]
    kw = {"col_user": "user", "col_item": "item"}
    relevant = recs.merge(d["truth"].assign(rel=1.0), how="left", on=["user", "item"])
    relevant["rel"] = relevant["rel"].fillna(0.0)
    vec = pd.DataFrame({"item": d["features"]["item"],
                        "features": list(d["features"].iloc[:, 1:].to_numpy())})
    cases = {
        "novelty": (lambda: pe.novelty(train, recs, **kw),
                    "novelty(popularity=interactions, absent=zero, aggregation=micro)"),
        "diversity": (lambda: pe.diversity(train, recs, item_feature_df=vec,
                                           item_sim_measure="item_feature_vector", **kw),
                      "diversity"),
        "diversity(similarity=cooccurrence)": (
            lambda: pe.diversity(train, recs, **kw), "diversity(similarity=cooccurrence)"),
        "serendipity": (lambda: pe.serendipity(train, relevant, col_relevance="rel", **kw),
                        "serendipity(expected=similarity)"),
        "unexpectedness": (lambda: pe.serendipity(train, recs, **kw),
                           "unexpectedness(expected=similarity)"),
        "catalog_coverage": (lambda: pe.catalog_coverage(train, recs, **kw),
                             "catalog_coverage(over=train)"),
        "distributional_coverage": (lambda: pe.distributional_coverage(train, recs, **kw),
                                    "distributional_coverage"),
    }
    out = {}
    for name, (fn, ours) in cases.items():
        seconds, value = timed(fn)
        mine = rv.evaluate(recs, d["truth"], [f"{ours}@{k}"], train=train,
                           item_features=d["features"])
        out[name] = (seconds, float(value), float(mine[mine.labels[0]]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--users", type=int, default=100_000)
    ap.add_argument("--items", type=int, default=1_000)
    ap.add_argument("--k", type=int, default=100)
    ap.add_argument("--msr-users", type=int, default=200)
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    d = make_data(args.users, args.items, args.k)
    ours = receval_times(d, args.k)
    sub_users = np.arange(args.msr_users)
    sub = {n: f[f["user"].isin(sub_users)] if "user" in f else f for n, f in d.items()}
    theirs = msr(sub, args.k)
    scale = args.users / args.msr_users
    rows = []
    for m in [*METRICS, "all at once"]:
        t = ours[m]
        if m in theirs:
            s, v, mine = theirs[m]
            rows.append((m, t, s * scale, s * scale / t, abs(v - mine)))
        else:
            rows.append((m, t, float("nan"), float("nan"), float("nan")))
    head = (f"{args.users:,} users x {args.k} items per list, {args.items:,} items, 20-dim "
            f"features; MSR timed on {args.msr_users} users x {scale:g}")
    print(head)
    sep = "|" if args.markdown else " "
    print(sep.join(["metric", "receval s", "MSR s (extrapolated)", "MSR / receval",
                    "|MSR - receval| on subsample"]))
    if args.markdown:
        print("|".join(["---"] * 5))
    for m, t, s, r, diff in rows:
        print(sep.join([m, f"{t:.2f}", f"{s:.0f}" if s == s else "-",
                        f"{r:.0f}x" if r == r else "-",
                        f"{diff:.1e}" if diff == diff else "-"]))


if __name__ == "__main__":
    main()
