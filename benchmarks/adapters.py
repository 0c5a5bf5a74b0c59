"""implicit's own batched top-k against rv.models.Implicit on the same fitted ALS model.

    python benchmarks/adapters.py [--users 20000] [--items 20000] [--factors 64] [--k 100]
                                  [--rows-per-user 50] [--repeat 3] [--markdown]

One synthetic log (Zipf-like item popularity, seed 0), one ALS model fitted once through
the adapter (``rv.models.Implicit(AlternatingLeastSquares(...)).fit(train)``), then, in
alternation after a warm-up call of each on ten users, ``--repeat`` times each:

* ``implicit``: ``model.recommend(every user code, user_items, N=k,
  filter_already_liked_items=True)`` — implicit's batched top-k (what ``recommend_all``
  calls), on the matrix it was fitted on;
* ``receval``: ``adapter.recommend(every user id, k, exclude=train)`` — ids in and out, the
  exclusion CSR built from the training table, blocked float64 scores and the compiled
  selection (``models._rank.top_k_scores``), the output table;
* ``receval core``: ``top_k_scores`` alone on the same codes and exclusion CSR (no table
  work), to show where the time goes.

Wall and CPU time (``time.process_time``: every thread of the process, implicit's and
BLAS's) are both reported: on a machine shared with other jobs the CPU time moves less.
It checks that the lists agree (the same items in the same order for every user, except
where two float32 scores are within rounding) and prints medians and ratios.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

import numpy as np
import pandas as pd


def make_log(n_users: int, n_items: int, per_user: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, n_items + 1) ** 0.8
    items = rng.choice(n_items, n_users * per_user, p=weights / weights.sum())
    users = np.repeat(np.arange(n_users), per_user)
    frame = pd.DataFrame({"user_id": users, "item_id": items}).drop_duplicates(ignore_index=True)
    return frame


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=20_000)
    parser.add_argument("--items", type=int, default=20_000)
    parser.add_argument("--factors", type=int, default=64)
    parser.add_argument("--k", type=int, default=100)
    parser.add_argument("--rows-per-user", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()

    import implicit
    from implicit.als import AlternatingLeastSquares
    from threadpoolctl import threadpool_limits

    import receval as rv
    from receval.models._data import exclusion_csr
    from receval.models._rank import top_k_scores

    train = make_log(args.users, args.items, args.rows_per_user)
    with threadpool_limits(1, "blas"):
        als = AlternatingLeastSquares(factors=args.factors, iterations=3, random_state=0)
    t = time.perf_counter()
    model = rv.models.Implicit(als).fit(train)
    fit_s = time.perf_counter() - t
    codes = np.arange(len(model.users_))
    users = model.users_.to_numpy()
    matrix = model.user_items_

    def run_implicit() -> tuple[np.ndarray, np.ndarray]:
        return als.recommend(codes, matrix, N=args.k, filter_already_liked_items=True)

    def run_receval() -> pd.DataFrame:
        return model.recommend(users, args.k, exclude=train)

    off, excl = exclusion_csr(train, model.users_, model.items_)

    def run_core() -> object:
        return top_k_scores(model._scorer, codes, len(model.items_), args.k,
                            exclude_indptr=off, exclude_indices=excl)

    runs = {"implicit": run_implicit, "receval": run_receval, "receval core": run_core}
    # warm-up on a few users: compiled kernels loaded, thread pools started
    als.recommend(codes[:10], matrix[:10], N=args.k, filter_already_liked_items=True)
    model.recommend(users[:10], args.k, exclude=train)
    times: dict[str, list[float]] = {name: [] for name in runs}
    cpu: dict[str, list[float]] = {name: [] for name in runs}
    out: dict[str, object] = {}
    for _ in range(args.repeat):
        for name, call in runs.items():  # alternating, so that load hits every variant
            t, c = time.perf_counter(), time.process_time()
            out[name] = call()
            times[name].append(time.perf_counter() - t)
            cpu[name].append(time.process_time() - c)

    ids, scores = out["implicit"]  # type: ignore[misc]
    recs = out["receval"]
    ours = model.items_.get_indexer(pd.Index(recs["item_id"])).reshape(len(users), args.k)
    our_scores = recs["score"].to_numpy().reshape(len(users), args.k)
    same = (ours == ids).all(axis=1)
    # a differing list must differ only where implicit's float32 scores are within rounding
    gap = np.abs(our_scores - scores) / np.maximum(np.abs(scores), 1e-12)
    explained = all(gap[u].max() < 1e-5 for u in np.flatnonzero(~same))

    med = {name: statistics.median(v) for name, v in times.items()}
    med_cpu = {name: statistics.median(v) for name, v in cpu.items()}
    load = os.getloadavg()[0]
    lines = [
        f"# rv.models.Implicit against implicit's own top-k ({time.strftime('%Y-%m-%d')})",
        "",
        f"{len(users):,} users x {len(model.items_):,} items, {len(train):,} training rows, "
        f"ALS {args.factors} factors (fitted once through the adapter in {fit_s:.1f} s), "
        f"top-{args.k} with every training item excluded; medians of {args.repeat} "
        f"alternating runs. {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores (shared with other jobs; 1-minute load {load:.1f} at the "
        f"end), Python "
        f"{platform.python_version()}, implicit {implicit.__version__}, numpy "
        f"{np.__version__}, pandas {pd.__version__}.",
        "",
        "| variant | median wall (s) | runs (s) | / implicit | median CPU (s) | / implicit |",
        "|---|---|---|---|---|---|",
    ]
    lines.extend(f"| {name} | {med[name]:.3f} | "
                 f"{', '.join(f'{x:.3f}' for x in times[name])} | "
                 f"{med[name] / med['implicit']:.2f}x | {med_cpu[name]:.2f} | "
                 f"{med_cpu[name] / med_cpu['implicit']:.2f}x |" for name in runs)
    lines += ["", f"Lists identical for {same.sum():,} of {len(users):,} users; the others "
              f"differ only among scores within float32 rounding: {explained}."]
    print("\n".join(lines) if args.markdown else "\n".join(lines[4:]))


if __name__ == "__main__":
    main()
