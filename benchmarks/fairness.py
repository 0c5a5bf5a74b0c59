"""Exposure, calibration and debiased metrics against ``ndcg@k`` on the same lists.

Each fairness metric is timed end to end through ``rv.evaluate`` (reading, validating,
encoding, grouping, the side inputs, the metric) on the same recommendations and truth as
``ndcg@k``, and reported as a ratio to it (issue 25's target: exposure and calibration within
3x of ``ndcg@100`` at 100k users x 100 items). The side inputs are read in the timed call, as
a user's call reads them: ``train`` for the calibration metrics and the popularity
propensities, ``item_features`` (multi-valued genres) for miscalibration, ``item_groups``
for the group metrics.

Workload (seeded): ``--users`` users (default 100k), lists of ``--list-length`` items
(default 100) from ``--items`` items (default 2,000; popularity skewed as a power law), 20
training rows and 10 truth rows per user, 20 genres (1-3 per item), 10 provider groups.

Run: ``PYTHONPATH=src python benchmarks/fairness.py`` (``--repeat`` calls of each,
alternating with ndcg; medians and ratios; ``--json`` writes them).
"""

from __future__ import annotations

import argparse
import json
import time
import warnings

import numba
import numpy as np
import pandas as pd

import receval as rv

METRICS = ["exposure@{k}", "exposure(browsing=cascade)@{k}", "expected_exposure@{k}",
           "awrf@{k}", "miscalibration@{k}", "popularity_calibration@{k}", "rsp@{k}",
           "recall(propensity=popularity)@{k}", "ndcg(propensity=popularity)@{k}"]


def make_data(users: int, items: int, length: int, seed: int = 0) -> dict[str, object]:
    rng = np.random.default_rng(seed)
    weight = 1.0 / np.arange(1, items + 1) ** 0.8
    weight /= weight.sum()
    parts, train, truth = [], [], []
    for lo in range(0, users, 10_000):
        n = min(10_000, users - lo)
        u = np.arange(lo, lo + n)
        keys = rng.random((n, items)) ** (1.0 / (weight * items))  # weighted, no repeats
        order = np.argsort(-keys, axis=1)
        listed, seen = order[:, :length], order[:, length:length + 20]
        parts.append(pd.DataFrame({"user": np.repeat(u, length), "item": listed.ravel(),
                                   "score": rng.random(n * length)}))
        train.append(pd.DataFrame({"user": np.repeat(u, 20), "item": seen.ravel(),
                                   "rating": rng.integers(1, 6, n * 20).astype(float)}))
        held = np.where(rng.random((n, 10)) < 0.5, listed[:, :10],
                        order[:, length + 20:length + 30])
        truth.append(pd.DataFrame({"user": np.repeat(u, 10), "item": held.ravel(),
                                   "rating": rng.integers(1, 6, n * 10).astype(float)}))
    genres = [f"g{j}" for j in range(20)]
    feats = pd.DataFrame({"item": np.arange(items), "genre": [
        "|".join(rng.choice(genres, int(rng.integers(1, 4)), replace=False))
        for _ in range(items)]})
    return {"recs": pd.concat(parts, ignore_index=True),
            "truth": pd.concat(truth, ignore_index=True),
            "train": pd.concat(train, ignore_index=True), "features": feats,
            "item_groups": pd.Series(np.arange(items) % 10, index=np.arange(items))}


def timed(d: dict[str, object], metric: str) -> float:
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rv.evaluate(d["recs"], d["truth"], [metric], train=d["train"],
                    item_features=d["features"], item_groups=d["item_groups"])
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=100_000)
    ap.add_argument("--items", type=int, default=2_000)
    ap.add_argument("--list-length", type=int, default=100)
    ap.add_argument("--k", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", help="write the figures to this file")
    args = ap.parse_args()
    d = make_data(args.users, args.items, args.list_length)
    base = f"ndcg@{args.k}"
    metrics = [m.format(k=args.k) for m in METRICS]
    for m in [base, *metrics]:  # compile every kernel first
        timed(d, m)
    rows = []
    for m in metrics:
        t_base, t_m = [], []
        for _ in range(args.repeat):  # alternating, so that drift hits both alike
            t_base.append(timed(d, base))
            t_m.append(timed(d, m))
        row = {"metric": m, "seconds": float(np.median(t_m)),
               "ndcg_seconds": float(np.median(t_base))}
        row["ratio"] = row["seconds"] / row["ndcg_seconds"]
        rows.append(row)
        print(f"{m:45s} {row['seconds']:7.3f} s   {base} {row['ndcg_seconds']:6.3f} s   "
              f"ratio {row['ratio']:.2f}x", flush=True)
    if args.json:
        out = {"users": args.users, "items": args.items, "list_length": args.list_length,
               "k": args.k, "threads": numba.get_num_threads(), "rows": rows}
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
