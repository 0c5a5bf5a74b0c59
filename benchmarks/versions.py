"""Two versions of receval on the same workload, in alternating processes (paired runs).

``run.py`` measures one version; comparing two of its runs mixes the change with the
machine's drift. This script starts one process per sample, alternating the two source
trees (``--a`` and ``--b``, each a ``src`` directory put first on ``PYTHONPATH``); each
process reads the frames (not timed), makes one warm-up call (kernels loaded from their
cache), then times ``--calls`` calls of ``rv.evaluate`` and reports their median. The
per-pair ratios b / a are what the table shows: their median and quartiles, wall and CPU.

Example (the engine change of issue 23 against main, 100k users, the 21 ranking numbers of
``run.py``, then the beyond-accuracy metrics)::

    python benchmarks/versions.py --a /work/main/src --b src --data benchmarks/data/u100000
    python benchmarks/versions.py --a ../main/src --b src --data ... --metrics beyond
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

RANKING = [f"{m}@{k}" for k in (5, 10, 20) for m in
           ("precision", "recall", "f1", "hit_rate", "mrr", "ap(denominator=relevant)", "ndcg")]
BEYOND = ["novelty@10", "popularity@10", "long_tail@10", "diversity@10", "gini@10",
          "entropy@10", "item_coverage@10", "personalization@10"]


def _worker(data: str, metrics: str, calls: int) -> None:
    import numpy as np
    import pandas as pd

    import receval as rv

    recs = pd.read_parquet(f"{data}/recs.parquet")
    truth = pd.read_parquet(f"{data}/truth.parquet")
    names = RANKING if metrics == "ranking" else BEYOND
    options = {}
    if metrics == "beyond":  # training rows: the truth of other users; 8-dim features
        rng = np.random.default_rng(0)
        items = np.unique(recs["item"].to_numpy())
        options = {"train": truth.assign(user=truth["user"] + 10_000_000)[["user", "item"]],
                   "item_features": pd.DataFrame({"item": items,
                                                  **{f"f{j}": rng.random(len(items))
                                                     for j in range(8)}})}
    rv.evaluate(recs, truth, names, **options)  # warm-up: the kernels from their cache
    wall, cpu = [], []
    for _ in range(calls):
        t, c = time.perf_counter(), time.process_time()
        rv.evaluate(recs, truth, names, **options)
        wall.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    print(json.dumps({"wall": statistics.median(wall), "cpu": statistics.median(cpu),
                      "version": rv.__file__}))


def _sample(src: Path, args: argparse.Namespace) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(src.resolve())}
    out = subprocess.run([sys.executable, __file__, "--worker", "--data", str(args.data),
                          "--metrics", args.metrics, "--calls", str(args.calls)],
                         env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--a", type=Path, help="the baseline's src directory")
    ap.add_argument("--b", type=Path, help="the changed version's src directory")
    ap.add_argument("--data", type=Path, required=True,
                    help="a directory with recs.parquet and truth.parquet (gen.py's output)")
    ap.add_argument("--metrics", choices=("ranking", "beyond"), default="ranking")
    ap.add_argument("--pairs", type=int, default=7)
    ap.add_argument("--calls", type=int, default=3)
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        _worker(str(args.data), args.metrics, args.calls)
        return
    rows = []
    for i in range(args.pairs):
        order = [("a", args.a), ("b", args.b)] if i % 2 == 0 else [("b", args.b), ("a", args.a)]
        got = {name: _sample(src, args) for name, src in order}
        rows.append(got)
        print(f"pair {i + 1}: a {got['a']['wall']:.3f} s, b {got['b']['wall']:.3f} s, "
              f"b/a {got['b']['wall'] / got['a']['wall']:.3f}", file=sys.stderr)
    for what in ("wall", "cpu"):
        ratios = sorted(r["b"][what] / r["a"][what] for r in rows)
        q = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else ratios * 3
        a = statistics.median(r["a"][what] for r in rows)
        b = statistics.median(r["b"][what] for r in rows)
        print(f"{args.metrics}, {what}: a median {a:.3f} s, b median {b:.3f} s; b/a per pair: "
              f"median {statistics.median(ratios):.3f} (quartiles {q[0]:.3f}-{q[2]:.3f}, "
              f"{len(ratios)} pairs)")


if __name__ == "__main__":
    main()
