"""Time and size of an evaluation report at scale (run by hand: python benchmarks/report.py).

A seeded workload of N users (20 recommendations each, Zipf-like item popularity, 1 + Poisson(4)
relevant items per user, 20 training rows per user), 21 metrics. Prints the time of each step,
the time of the report relative to the evaluation it reports on (the anchor), and the size of
the HTML file; ``--markdown`` prints a table for benchmarks/results/report.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
import warnings

import numpy as np
import pandas as pd

import receval as rv
from receval.report import _data as D
from receval.report._evaluation import evaluation_page
from receval.report._page import render

METRICS = [f"{m}@{k}" for m in ("ndcg", "map", "precision", "recall", "hit_rate")
           for k in (5, 10, 20)] + ["mrr@10", "arhr@10", "ndcg(gain=exponential)@10",
                                    "f1@10", "item_coverage@20", "user_coverage"]
assert len(METRICS) == 21


def workload(n_users: int, *, n_items: int = 20_000, k: int = 20, seed: int = 0
             ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """recs (user, item, score), truth (user, item, rating), train (user, item)."""
    rng = np.random.default_rng(seed)
    p = 1.0 / (np.arange(n_items) + 10.0)
    p /= p.sum()
    users = np.repeat(np.arange(n_users), k)
    # distinct items per user: a popularity draw offset by the position (mod n_items)
    base = rng.choice(n_items, size=n_users, p=p)
    items = (base[:, None] + np.arange(k)[None, :] * 7919) % n_items
    recs = pd.DataFrame({"user_id": users, "item_id": items.ravel(),
                         "score": np.tile(np.arange(k, 0, -1, dtype=float), n_users)})
    n_rel = 1 + rng.poisson(4, n_users)
    t_user = np.repeat(np.arange(n_users), n_rel)
    t_item = rng.choice(n_items, size=len(t_user), p=p)
    truth = pd.DataFrame({"user_id": t_user, "item_id": t_item,
                          "rating": rng.integers(1, 6, len(t_user)).astype(float)})
    truth = truth.drop_duplicates(["user_id", "item_id"], ignore_index=True)
    train = pd.DataFrame({"user_id": np.repeat(np.arange(n_users), 20),
                          "item_id": rng.choice(n_items, size=20 * n_users, p=p)})
    return recs, truth, train


class _Clock:
    """Wall and CPU seconds of a block (CPU time is less sensitive to a loaded machine)."""

    def __enter__(self) -> _Clock:
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall = time.perf_counter() - self.wall
        self.cpu = time.process_time() - self.cpu


def run(n_users: int) -> dict[str, float]:
    """Wall and CPU seconds of each step and the size of the page."""
    recs, truth, train = workload(n_users)
    out: dict[str, float] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rv.RecevalWarning)
        warm = rv.evaluate(recs.head(1000), truth, METRICS)  # compile the kernels first
        D.curves(warm, recs.head(1000), truth)
        render(evaluation_page(warm))  # and import matplotlib and jinja2
        with _Clock() as c:
            ev = rv.evaluate(recs, truth, METRICS, relevance_threshold=3)
        out["evaluate, wall"], out["evaluate, CPU"] = c.wall, c.cpu
        with _Clock() as c:
            frame = D.curves(ev, recs, truth)
        out["curves (k = 1..20, one evaluate call), wall"] = c.wall
        out["curves, CPU"] = c.cpu
    with _Clock() as c:
        html = render(evaluation_page(ev, recs=recs, truth=truth, train=train, curves=frame))
    out["figures and page, wall"], out["figures and page, CPU"] = c.wall, c.cpu
    out["report (curves + figures), wall"] = out["figures and page, wall"] + out[
        "curves (k = 1..20, one evaluate call), wall"]
    out["report (curves + figures), CPU"] = out["figures and page, CPU"] + out["curves, CPU"]
    out["report / evaluate, CPU"] = out["report (curves + figures), CPU"] / out[
        "evaluate, CPU"]
    out["size (MB)"] = len(html.encode("utf-8")) / 1e6
    return out


def main() -> None:
    """Run each size; print a table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    sizes = [int(s.replace("k", "000").replace("M", "000000")) for s in args.sizes.split(",")]
    results = {n: run(n) for n in sizes}
    rows = list(next(iter(results.values())))
    if args.markdown:
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(f"python {platform.python_version()}, {os.cpu_count()} cores (load average "
              f"{load:.1f} at the end), receval {rv.__version__}, {len(METRICS)} metrics; "
              "seconds, and MB for the size\n")
        print("| step | " + " | ".join(f"{n:,} users" for n in sizes) + " |")
        print("|---|" + "---:|" * len(sizes))
    for row in rows:
        cells = [f"{results[n][row]:.2f}" for n in sizes]
        if args.markdown:
            print(f"| {row} | " + " | ".join(cells) + " |")
        else:
            print(f"{row:<40}" + "".join(f"{c:>12}" for c in cells), file=sys.stdout)


if __name__ == "__main__":
    main()
