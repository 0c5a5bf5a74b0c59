#!/usr/bin/env python3
"""Full-catalog top-k from factors: ``rv.models.Factors.recommend`` against its BLAS floor.

The job: U users x I items x F factors (float64, standard normal), about S seen items per
user drawn at random (the ``exclude`` table), a top-K of the unseen items for every user.

- ``receval``: ``rv.models.Factors(P, Q).recommend(users, K, exclude=seen)``, end to end
  from the pandas table of seen pairs to the ``user_id, item_id, score`` table;
- ``receval-core``: :func:`receval.models.top_k_scores` on the same blocks with the seen
  items as a CSR of codes (no pandas in or out);
- ``blas``: the floor, the blocked products ``P[block] @ Q.T`` alone (same block size as
  receval: a block's scores under 64 MB), results discarded;
- ``naive``: per block, the product, the seen cells set to ``-inf``, ``numpy.argpartition``
  of every row and a sort of its K best (what one writes by hand with numpy).

Each method runs in its own process (``--one``), so that its peak resident memory
(``ru_maxrss``) is its own; the table gives the seconds (best of ``--repeat``), the ratio to
the floor, and the peak RSS of the process and its increase over the data alone.

``--baselines`` times instead ``Random(seed=0).recommend`` against
``MostPopular().recommend`` (top-10, the training rows excluded) at 600 and 6,000 users x
4,000 items and 60,000 users x 40,000 items (30 training rows per user), best of 3 (run it
with ``PYTHONPATH`` pointing at another checkout to compare versions).

Usage::

    python benchmarks/factors.py --baselines
    python benchmarks/factors.py [--users 20000] [--items 100000] [--factors 64] [--k 100] \
        [--seen 100] [--repeat 1] [--methods receval,receval-core,blas,naive] [--markdown]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
import warnings
from typing import Any

import numpy as np
import pandas as pd

METHODS = ("receval", "receval-core", "blas", "naive")


def _data(args: argparse.Namespace) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Factors and the seen items: a CSR (indptr, indices) of about ``seen`` codes per user."""
    rng = np.random.default_rng(0)
    p = rng.standard_normal((args.users, args.factors))
    q = rng.standard_normal((args.items, args.factors))
    counts = rng.poisson(args.seen, args.users).clip(0, args.items)
    indptr = np.r_[0, np.cumsum(counts)].astype(np.int64)
    indices = rng.integers(0, args.items, int(indptr[-1])).astype(np.int64)
    return p, q, indptr, indices


def _maxrss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: KiB


def _run(method: str, args: argparse.Namespace) -> dict[str, Any]:
    import receval as rv
    from receval.models._rank import block_rows, top_k_scores

    p, q, indptr, indices = _data(args)
    users = np.arange(args.users)
    seen = None
    if method == "receval":
        seen = pd.DataFrame({"user_id": np.repeat(users, np.diff(indptr)),
                             "item_id": indices})
    step = block_rows(args.items)
    qt = q.T
    base = _maxrss_mb()  # imports and data, before any block of scores
    # warm-up: compile the kernels (the serial and the parallel loop), touch BLAS
    for n in (4, min(step, args.users)):
        top_k_scores(lambda c: p[c] @ qt, users[:n], args.items, args.k,
                     exclude_indptr=indptr[:n + 1], exclude_indices=indices[:indptr[n]])
    times = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        if method == "receval":
            model = rv.models.Factors(p, q)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = model.recommend(users, args.k, exclude=seen)
            n_out = len(out)
        elif method == "receval-core":
            ranked = top_k_scores(lambda c: p[c] @ qt, users, args.items, args.k,
                                  exclude_indptr=indptr, exclude_indices=indices)
            n_out = len(ranked)
        elif method == "blas":
            for start in range(0, args.users, step):
                p[start:start + step] @ qt
            n_out = 0
        else:
            n_out = 0
            for start in range(0, args.users, step):
                stop = min(start + step, args.users)
                s = p[start:stop] @ qt
                rows = np.repeat(np.arange(stop - start), np.diff(indptr[start:stop + 1]))
                s[rows, indices[indptr[start]:indptr[stop]]] = -np.inf
                part = np.argpartition(-s, args.k, axis=1)[:, :args.k]
                best = np.take_along_axis(s, part, axis=1)
                order = np.argsort(-best, axis=1, kind="stable")
                n_out += np.take_along_axis(part, order, axis=1).size
        times.append(time.perf_counter() - t0)
    return {"method": method, "seconds": min(times), "rows_out": n_out, "block": step,
            "maxrss_mb": _maxrss_mb(), "data_mb": base}


def _baselines() -> str:
    import receval as rv

    lines = ["| users x items | MostPopular (s) | Random (s) | Random / MostPopular |",
             "|---|---:|---:|---:|"]
    rng = np.random.default_rng(0)
    for n_users, n_items in ((600, 4000), (6000, 4000), (60_000, 40_000)):
        log = pd.DataFrame({"user_id": rng.integers(0, n_users, n_users * 30),
                            "item_id": rng.integers(0, n_items, n_users * 30)})
        every = pd.DataFrame({"user_id": np.zeros(n_items, dtype=np.int64),
                              "item_id": np.arange(n_items)})  # every item in training
        train = pd.concat([log, every]).drop_duplicates(ignore_index=True)
        users = np.arange(n_users)
        best = {}
        for model in (rv.models.MostPopular(), rv.models.Random(seed=0)):
            model.fit(train)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model.recommend(users[:10], 10, exclude=train)  # compile
                runs = []
                for _ in range(3):
                    t0 = time.perf_counter()
                    model.recommend(users, 10, exclude=train)
                    runs.append(time.perf_counter() - t0)
            best[type(model).__name__] = min(runs)
        lines.append(f"| {n_users:,} x {n_items:,} | {best['MostPopular']:.3f} | "
                     f"{best['Random']:.3f} | {best['Random'] / best['MostPopular']:.1f}x |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--users", type=int, default=20_000)
    ap.add_argument("--items", type=int, default=100_000)
    ap.add_argument("--factors", type=int, default=64)
    ap.add_argument("--k", type=int, default=100)
    ap.add_argument("--seen", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--one", choices=METHODS, help=argparse.SUPPRESS)
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--baselines", action="store_true")
    args = ap.parse_args()
    if args.baselines:
        print(_baselines())
        return
    if args.one:
        print(json.dumps(_run(args.one, args)))
        return
    rows = []
    for method in args.methods.split(","):
        cmd = [sys.executable, __file__, "--one", method] + [
            f"--{name}={getattr(args, name)}" for name in
            ("users", "items", "factors", "k", "seen", "repeat")]
        out = subprocess.run(cmd, capture_output=True, text=True, check=True,
                             env=dict(os.environ))
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
        print(rows[-1], file=sys.stderr)
    floor = next((r["seconds"] for r in rows if r["method"] == "blas"), None)
    load = os.getloadavg()[0]
    head = (f"{args.users:,} users x {args.items:,} items x {args.factors} factors, "
            f"top-{args.k}, ~{args.seen} seen items per user excluded; "
            f"{platform.machine()}, {os.cpu_count()} cores, load average {load:.1f}; "
            f"block of {rows[0]['block']} users (64 MB of scores)")
    lines = [head, "", "| method | seconds | x BLAS floor | peak RSS (MB) | over data (MB) |",
             "|---|---:|---:|---:|---:|"]
    for r in rows:
        ratio = f"{r['seconds'] / floor:.2f}x" if floor else ""
        lines.append(f"| {r['method']} | {r['seconds']:.2f} | {ratio} | "
                     f"{r['maxrss_mb']:.0f} | {r['maxrss_mb'] - r['data_mb']:.0f} |")
    print("\n".join(lines) if args.markdown else json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
