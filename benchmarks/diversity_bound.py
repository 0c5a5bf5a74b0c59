"""diversity@k against its floor: a plain compiled pass over the same pairs.

The floor does the least any exact evaluator of intra-list diversity must do: walk every pair
of each user's first ``k`` items once in compiled code (all threads), computing
``1 - cos(f_i, f_j)`` from unit feature vectors (normalised once). Both read the same
DataFrame, whose rows are already in rank order per user (no score column), so neither sorts;
the floor validates nothing and assumes integer ids ``0..n-1``, users' rows contiguous, no
duplicate rows and every item with features (the workload has them). receval's
``evaluate(recs, truth, ["diversity@k"], item_features=...)`` is timed end to end from the
same frames (reading, validating, encoding, grouping, the similarity table, the pass), and its
value is checked against the floor's. ``--scored`` gives both a score column instead (the
floor then orders each user's rows with one numpy lexsort).

Workload (seeded): ``--users`` users (default 100k) with lists of ``--list-length`` items
(default 50) drawn from ``--items`` items (default 1,000), ``--dims``-dimensional features
(default 20), one truth row per user.

Run: ``PYTHONPATH=src python benchmarks/diversity_bound.py`` (``--repeat`` calls of each; the
median is reported, with the ratio).
"""

from __future__ import annotations

import argparse
import json
import time

import numba
import numpy as np
import pandas as pd

import receval as rv


@numba.njit(cache=True, nogil=True, parallel=True)
def _pairs_pass(starts, lengths, items, unit, k):  # pragma: no cover - compiled
    n = starts.shape[0]
    out = np.empty(n)
    for u in numba.prange(n):
        m = min(k, lengths[u])
        s = starts[u]
        total = 0.0
        for a in range(m):
            ia = items[s + a]
            for b in range(a + 1, m):
                ib = items[s + b]
                dot = 0.0
                for d in range(unit.shape[1]):
                    dot += unit[ia, d] * unit[ib, d]
                total += 1.0 - dot
        pairs = m * (m - 1) / 2
        out[u] = total / pairs if pairs > 0 else np.nan
    return out


def floor(recs: pd.DataFrame, feats: pd.DataFrame, k: int) -> float:
    """Mean over users of the mean pairwise dissimilarity of their top k (the floor)."""
    user = recs["user"].to_numpy()
    items = recs["item"].to_numpy()
    if "score" in recs.columns:
        items = items[np.lexsort((-recs["score"].to_numpy(), user))]
    counts = np.bincount(user)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    matrix = feats.drop(columns="item").to_numpy(dtype=np.float64)
    norm = np.linalg.norm(matrix, axis=1)
    unit = np.zeros_like(matrix)
    np.divide(matrix, norm[:, None], out=unit, where=norm[:, None] > 0)
    values = _pairs_pass(starts, counts, items, unit, k)
    return float(np.nanmean(values))


def make_data(users: int, items: int, length: int, dims: int, seed: int = 0
              ) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    parts = []
    for lo in range(0, users, 10_000):
        n = min(10_000, users - lo)
        listed = np.argsort(rng.random((n, items)), axis=1)[:, :length]
        parts.append(pd.DataFrame({"user": np.repeat(np.arange(lo, lo + n), length),
                                   "item": listed.ravel(), "score": rng.random(n * length)}))
    recs = pd.concat(parts, ignore_index=True)
    truth = recs.groupby("user").sample(1, random_state=seed)[["user", "item"]]
    feats = pd.DataFrame(rng.random((items, dims)), columns=[f"f{j}" for j in range(dims)])
    feats.insert(0, "item", np.arange(items))
    return {"recs": recs, "truth": truth, "features": feats}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=100_000)
    ap.add_argument("--items", type=int, default=1_000)
    ap.add_argument("--list-length", type=int, default=50)
    ap.add_argument("--dims", type=int, default=20)
    ap.add_argument("--k", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--scored", action="store_true",
                    help="rows in random order with a score column (both sort)")
    ap.add_argument("--json", help="write the figures to this file")
    args = ap.parse_args()
    d = make_data(args.users, args.items, args.list_length, args.dims)
    if not args.scored:  # rank order per user, no score: nobody sorts
        recs = d["recs"]
        d["recs"] = recs.iloc[np.lexsort((-recs["score"].to_numpy(),
                                          recs["user"].to_numpy()))][["user", "item"]]
    metric = f"diversity@{args.k}"
    want = floor(d["recs"], d["features"], args.k)  # compiles the floor
    got = rv.evaluate(d["recs"], d["truth"], [metric], item_features=d["features"])[metric]
    times: dict[str, list[float]] = {"receval": [], "floor": []}
    for _ in range(args.repeat):  # alternating, so that drift hits both alike
        t = time.perf_counter()
        rv.evaluate(d["recs"], d["truth"], [metric], item_features=d["features"])
        times["receval"].append(time.perf_counter() - t)
        t = time.perf_counter()
        floor(d["recs"], d["features"], args.k)
        times["floor"].append(time.perf_counter() - t)
    med = {name: float(np.median(v)) for name, v in times.items()}
    out = {"scored": args.scored, "users": args.users, "items": args.items,
           "list_length": args.list_length,
           "dims": args.dims, "k": args.k, "threads": numba.get_num_threads(),
           "receval_s": med["receval"], "floor_s": med["floor"],
           "ratio": med["receval"] / med["floor"], "abs_difference": abs(got - want),
           "times": times}
    print(f"{metric}, {args.users:,} users x {args.list_length} items, {args.dims}-dim "
          f"features: receval {med['receval']:.3f} s, floor {med['floor']:.3f} s, "
          f"ratio {out['ratio']:.2f}x; |receval - floor| = {out['abs_difference']:.1e}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
