"""Expected exposure of sampled rankings against the same rows as one list per user.

``expected_exposure@k`` with ``evaluate(sample=...)`` (``--samples`` rankings of
``--list-length`` items per user) is timed end to end through ``rv.evaluate`` and compared
with two calls on the same number of rows without samples: ``expected_exposure@k`` and
``ndcg@k`` on one list per user holding every sampled row (``samples x list-length``
distinct items). The sampled call ranks ``users x samples`` lists and repeats each user's
truth once per sample; the ratio says what that costs.

Workload (seeded): ``--users`` users (default 20k), ``--items`` items (default 5,000), 10
truth rows per user (grades 1-5), each sample a random ranking of ``--list-length`` items
(default 20) of the user's candidate pool, ``k = 10``.

Run: ``PYTHONPATH=src python benchmarks/samples.py`` (``--repeat`` calls of each, medians).
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd

import receval as rv


def make_data(users: int, items: int, samples: int, length: int, seed: int = 0
              ) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    pool = samples * length
    cand = np.argsort(rng.random((users, items)), axis=1)[:, :pool]
    u = np.repeat(np.arange(users), pool)
    flat = pd.DataFrame({"user": u, "item": cand.ravel(), "score": rng.random(users * pool)})
    picks = np.argsort(rng.random((users * samples, pool)), axis=1)[:, :length]
    rows = (np.repeat(np.arange(users), samples)[:, None] * pool + picks).ravel()
    sampled = pd.DataFrame({"user": flat["user"].to_numpy()[rows],
                            "sample": np.tile(np.repeat(np.arange(samples), length), users),
                            "item": flat["item"].to_numpy()[rows],
                            "rank": np.tile(np.arange(1, length + 1), users * samples)})
    truth = pd.DataFrame({"user": np.repeat(np.arange(users), 10),
                          "item": cand[:, :10].ravel(),
                          "rating": rng.integers(1, 6, users * 10).astype(float)})
    return {"flat": flat, "sampled": sampled, "truth": truth}


def timed(fn: object, repeat: int) -> float:
    runs = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()  # type: ignore[operator]
        runs.append(time.perf_counter() - t)
    return float(np.median(runs))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--users", type=int, default=20_000)
    ap.add_argument("--items", type=int, default=5_000)
    ap.add_argument("--samples", type=int, default=10)
    ap.add_argument("--list-length", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    d = make_data(args.users, args.items, args.samples, args.list_length)
    warnings.simplefilter("ignore")
    calls = {
        "expected_exposure@10, sample=": lambda: rv.evaluate(
            d["sampled"], d["truth"], "expected_exposure@10", sample="sample"),
        "expected_exposure(groups=item_groups)@10, sample=": lambda: rv.evaluate(
            d["sampled"], d["truth"], "expected_exposure(groups=item_groups)@10",
            sample="sample", item_groups={i: i % 10 for i in range(args.items)}),
        "expected_exposure@10, one list": lambda: rv.evaluate(
            d["flat"], d["truth"], "expected_exposure@10"),
        "ndcg@10, one list": lambda: rv.evaluate(d["flat"], d["truth"], "ndcg@10"),
    }
    for fn in calls.values():  # compile the kernels first
        fn()
    times = {name: timed(fn, args.repeat) for name, fn in calls.items()}
    base = times["ndcg@10, one list"]
    print(f"{args.users} users x {args.samples} samples x {args.list_length} items "
          f"({len(d['sampled'])} rows), median of {args.repeat}")
    print("| call | seconds | / ndcg@10 |\n|---|---|---|")
    for name, t in times.items():
        print(f"| {name} | {t:.3f} | {t / base:.2f} |")


if __name__ == "__main__":
    main()
