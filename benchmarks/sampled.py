"""Benchmark of rv.sampled: sampling negatives, the correction tables, a corrected evaluation.

    PYTHONPATH=src python benchmarks/sampled.py [--users 100000] [--items 20000] [--n 99]

Synthetic data: ``--users`` users with 20 training rows and one test row each, over
``--items`` items (popularity Zipf-like). The anchor for ``negatives`` is the loop most
scripts write (per user: ``np.setdiff1d`` of the catalog and the user's items, then
``Generator.choice(..., replace=False)``), timed on a subsample of users and scaled to all of
them. Prints the timings and the ratio; ``--markdown`` prints a table for
benchmarks/results/sampled.md.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

import receval as rv
from receval.sampled._corrections import least_squares_table


def data(users: int, items: int, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, items + 1)
    rows = rng.choice(items, size=users * 21, p=weights / weights.sum())
    frame = pd.DataFrame({"user_id": np.repeat(np.arange(users), 21), "item_id": rows})
    frame = frame.drop_duplicates(["user_id", "item_id"])
    last = frame.groupby("user_id").tail(1).index
    return frame.drop(index=last), frame.loc[last]


def anchor(train: pd.DataFrame, test: pd.DataFrame, items: int, n: int, users: int) -> float:
    """Seconds per user of the per-user setdiff1d + choice loop."""
    rng = np.random.default_rng(0)
    catalog = np.arange(items)
    by_user = pd.concat([train, test]).groupby("user_id")["item_id"]
    groups = {u: g.to_numpy() for u, g in by_user}
    start = time.perf_counter()
    for u in list(groups)[:users]:
        rng.choice(np.setdiff1d(catalog, groups[u]), n, replace=False)
    return (time.perf_counter() - start) / users


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--users", type=int, default=100_000)
    ap.add_argument("--items", type=int, default=20_000)
    ap.add_argument("--n", type=int, default=99)
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    train, test = data(args.users, args.items)
    rv.sampled.negatives(test.head(100), n=args.n, items=range(args.items), exclude=train,
                         seed=0)  # compile
    timings: dict[str, float] = {}
    t = time.perf_counter()
    cand = rv.sampled.negatives(test, n=args.n, items=range(args.items), exclude=train,
                                seed=0)
    timings["negatives uniform"] = time.perf_counter() - t
    t = time.perf_counter()
    rv.sampled.negatives(test, n=args.n, items=range(args.items), exclude=train,
                         strategy="popularity", seed=0)
    timings["negatives popularity"] = time.perf_counter() - t
    per_user = anchor(train, test, args.items, args.n, min(2000, args.users))
    timings["anchor: per-user setdiff1d + choice (scaled)"] = per_user * args.users
    values = np.zeros((11, 2))
    values[:10, 0] = 1.0
    values[:10, 1] = 1.0 / np.log2(np.arange(2, 12))
    for gamma in (0.0, 0.01):
        t = time.perf_counter()
        least_squares_table(values, args.items, args.n, gamma)
        timings[f"correction table n={args.items} m={args.n} gamma={gamma}"] = \
            time.perf_counter() - t
    cand["score"] = np.random.default_rng(1).random(len(cand))
    t = time.perf_counter()
    rv.sampled.evaluate(cand, test, ["hr@10", "ndcg@10", "auc"], n_items=args.items,
                        correction="bias_variance")
    timings["evaluate, bias_variance (hr@10, ndcg@10, auc)"] = time.perf_counter() - t
    t = time.perf_counter()
    rv.evaluate(cand[["user_id", "item_id", "score"]], test, ["hr@10", "ndcg@10", "auc"])
    timings["rv.evaluate on the same lists (reference)"] = time.perf_counter() - t
    ratio = timings["anchor: per-user setdiff1d + choice (scaled)"] / \
        timings["negatives uniform"]
    rows = [(name, f"{sec:.2f}") for name, sec in timings.items()]
    title = (f"{args.users} users, {args.items} items, n={args.n} negatives "
             f"({len(cand)} candidate rows); negatives is {ratio:.0f}x the anchor")
    if args.markdown:
        print(f"{title}\n\n| step | seconds |\n|---|---:|")
        for name, sec in rows:
            print(f"| {name} | {sec} |")
    else:
        print(title)
        for name, sec in rows:
            print(f"  {name:<55} {sec:>8} s")


if __name__ == "__main__":
    main()
