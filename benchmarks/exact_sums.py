"""What exactly rounded aggregates cost: 1M users x 21 metrics.

1. The accumulation alone: ``ExactSum.of`` over 21 columns of 1M per-user values (the work
   each partition does for its aggregates), against ``numpy.nanmean`` of the same columns.
2. The merge of 64 buckets' sums and the final rounding (what the driver does).
3. End to end: ``evaluate_partition`` and ``merge`` of 1M users with 21 ranking metrics,
   and the share of the exact sums in them.

Run by hand: ``python benchmarks/exact_sums.py [--users 1000000]``. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

import receval as rv
from receval._engine import evaluate_partition, merge
from receval._evaluate import make_options
from receval._exact import ExactSum, MetricSums

METRICS = [f"{name}@{k}" for name in ("ndcg", "map", "precision", "recall", "mrr", "hit_rate",
                                      "arhr") for k in (5, 10, 20)]


def best(fn: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--users", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    n = args.users
    rng = np.random.default_rng(0)
    columns = [rng.random(n) for _ in range(len(METRICS))]
    for c in columns[::3]:
        c[rng.random(n) < 0.1] = np.nan  # undefined users
    ExactSum.of(columns[0][:10])  # compile (or load the cached kernel)
    rows = []
    acc = best(lambda: [ExactSum.of(c) for c in columns], args.repeat)
    ref = best(lambda: [np.nanmean(c) for c in columns], args.repeat)
    rows.append(("ExactSum.of, 21 columns x 1M values", acc))
    rows.append(("numpy.nanmean of the same columns", ref))
    parts = [[ExactSum.of(p) for p in np.array_split(c, 64)] for c in columns]
    rows.append(("merge 64 buckets' sums + round, 21 metrics",
                 best(lambda: [sum(p, ExactSum()).mean() for p in parts], args.repeat)))
    same = sum(ExactSum.of(c).mean() == float(np.nanmean(c)) for c in columns)
    users = np.repeat(np.arange(n), 10)
    recs = pd.DataFrame({"user_id": users, "item_id": rng.integers(0, 5000, len(users)),
                         "score": rng.random(len(users))})
    truth = pd.DataFrame({"user_id": np.repeat(np.arange(n), 2),
                          "item_id": rng.integers(0, 5000, 2 * n)})
    recs = recs.drop_duplicates(["user_id", "item_id"], ignore_index=True)
    truth = truth.drop_duplicates(["user_id", "item_id"], ignore_index=True)
    opts = make_options(METRICS, convention=None, relevance_threshold=None, columns=None,
                        ties=None, no_relevant=None, missing_recs=None, recs_without_truth=None,
                        missing_predictions=None, catalog=None, duplicates="error",
                        negative_grades="error", id_cast=None, strict=False)
    spent: list[float] = []
    original = MetricSums.of

    def timed(*a: Any) -> MetricSums:
        start = time.perf_counter()
        out = original(*a)
        spent.append(time.perf_counter() - start)
        return out

    MetricSums.of = timed  # type: ignore[method-assign]
    start = time.perf_counter()
    partial = evaluate_partition(recs, truth, opts)
    part_s = time.perf_counter() - start
    MetricSums.of = original  # type: ignore[method-assign]
    merge_s = best(lambda: merge([partial], opts), 1)
    rows.append((f"evaluate_partition, {n:,} users, 21 metrics", part_s))
    rows.append(("  of which the exact sums (MetricSums.of)", sum(spent)))
    rows.append(("merge of that partial (aggregates, per-user table, accounting)", merge_s))
    print(f"receval {rv.__version__}; {n:,} users; best of {args.repeat} (end to end: one run)")
    print()
    print("| step | seconds |")
    print("|---|---|")
    for name, seconds in rows:
        print(f"| {name} | {seconds:.3f} |")
    print()
    print(f"exactly rounded mean == numpy.nanmean on {same} of {len(columns)} random columns")


if __name__ == "__main__":
    main()
