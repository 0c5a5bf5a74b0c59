"""Speed of ``rv.compare``: 3 systems x 21 metrics x 100k users.

Times the statistics on EvaluationResults (the evaluation itself is timed separately):
paired tests (t, Wilcoxon, sign, bootstrap) with Holm's correction and 1,000-resample
percentile bootstrap intervals of every mean, and compares the intervals with an anchor,
``scipy.stats.bootstrap`` (vectorised, method='percentile') run once per (system, metric)
column. Prints a Markdown table; ``--out`` writes it to a file.

    python benchmarks/compare.py [--users 100000] [--resamples 1000] [--out FILE.md]
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sps

import receval as rv

METRICS = [f"{m}@{k}" for m in ("precision", "recall", "ndcg", "map", "mrr", "hit_rate", "f1")
           for k in (1, 5, 10)]


def data(n_users: int, seed: int) -> tuple[dict[str, pd.DataFrame], pd.DataFrame]:
    """Truth of 5 items per user among 1,000; three systems of 20 items with rising skill."""
    rng = np.random.default_rng(seed)
    users = np.repeat(np.arange(n_users), 5)
    truth = pd.DataFrame({"user_id": users, "item_id": rng.integers(0, 1000, len(users))})
    truth = truth.drop_duplicates(["user_id", "item_id"])
    systems = {}
    for s, skill in enumerate((0.1, 0.2, 0.3)):
        r = np.random.default_rng(seed + s + 1)
        items = r.integers(0, 1000, (n_users, 20))
        hit = r.random((n_users, 20)) < skill  # copy a truth item into some slots
        first = truth.groupby("user_id")["item_id"].first().to_numpy()
        items = np.where(hit, first[:, None] + np.arange(20) * 0, items)
        recs = pd.DataFrame({"user_id": np.repeat(np.arange(n_users), 20),
                             "item_id": items.ravel(),
                             "score": np.tile(np.arange(20, 0, -1), n_users).astype(float)})
        systems[f"s{s}"] = recs.drop_duplicates(["user_id", "item_id"])
    return systems, truth


def best_of(fn: Callable[[], Any], repeat: int) -> tuple[float, Any, float]:
    """Best wall-clock seconds, the last output, and the CPU seconds (all threads) of the best.

    On a shared machine the wall clock grows with the other processes' load; the CPU time
    of this process does much less.
    """
    best, out, cpu = float("inf"), None, float("nan")
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        wall = time.perf_counter() - t0
        if wall < best:
            best, cpu = wall, time.process_time() - c0
    return best, out, cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    load = os.getloadavg()
    systems, truth = data(args.users, 0)
    t0 = time.perf_counter()
    results = {k: rv.evaluate(v, truth, METRICS) for k, v in systems.items()}
    t_eval = time.perf_counter() - t0
    rows = [("rv.evaluate, 3 systems (not part of the comparison)", t_eval, float("nan"), "")]
    timings = {}
    for test in ("t", "wilcoxon", "sign", "bootstrap"):
        secs, cmp, cpu = best_of(lambda test=test: rv.compare(
            results, test=test, correction="holm", n_resamples=args.resamples, seed=0),
            args.repeat)
        timings[test] = secs
        rows.append((f"rv.compare(test={test!r}, correction='holm'): {len(cmp.tests)} tests "
                     f"+ {len(cmp.ci)} intervals", secs, cpu, ""))
    column = results["s0"].per_user[results["s0"].labels[0]].to_numpy()
    one, _, one_cpu = best_of(lambda: sps.bootstrap((column,), np.mean, n_resamples=args.resamples,
                                           method="percentile", random_state=0), args.repeat)
    anchor = one * len(METRICS) * len(systems)
    rows.append((f"anchor: scipy.stats.bootstrap per column x {len(METRICS) * len(systems)} "
                 f"(intervals only)", anchor, one_cpu * len(METRICS) * len(systems),
                 f"{anchor / timings['t']:.1f}x slower than rv.compare(test='t')"))
    lines = [f"# rv.compare speed: 3 systems x {len(METRICS)} metrics x {args.users:,} users, "
             f"{args.resamples:,} bootstrap resamples",
             "",
             f"{time.strftime('%Y-%m-%d')}, {platform.processor() or platform.machine()}, "
             f"{os.cpu_count()} cores, Python {platform.python_version()}, numpy "
             f"{np.__version__}, best of {args.repeat}; load average before / after: "
             f"{load[0]:.1f} / {os.getloadavg()[0]:.1f} (other processes share the cores)",
             "", "| what | wall s | CPU s (all threads) | note |", "|---|---|---|---|"]
    lines += [f"| {w} | {s:.2f} | {c:.2f} | {n} |" for w, s, c, n in rows]
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
