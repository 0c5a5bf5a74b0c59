"""What a study costs on top of the cross-validation it runs: hashes, manifest, outputs, rerun.

The job: a synthetic log of n rows in a Parquet file (n/50 users, n/200 items with Zipf-like
popularity, ratings 1-5), 5 folds by rows, MostPopular and ItemMean, nDCG@10, recall@10 and
RMSE. Timed, each the median of ``--repeat`` runs in this process after one warm-up:

- ``cross_validate``: ``read_table`` + ``rv.split.kfold`` + ``rv.cross_validate``, what a
  Python script would do;
- ``rv.run``: the same job from a config, with the per-fold tables, ``per_user.parquet`` and
  ``run.json`` (no HTML report), i.e. plus the SHA-256 of the file, of the table and of every
  split part, the manifest and the outputs;
- ``rv.rerun``: the study again from its manifest, and every number compared.

Usage::

    python benchmarks/study.py [--rows 100000 1000000] [--repeat 3] [--markdown]
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd


def _log(n: int, path: Path) -> None:
    rng = np.random.default_rng(0)
    n_users, n_items = max(n // 50, 2), max(n // 200, 2)
    p = 1.0 / np.arange(1, n_items + 1) ** 0.9
    frame = pd.DataFrame({"user_id": rng.integers(0, n_users, n),
                          "item_id": rng.choice(n_items, n, p=p / p.sum()),
                          "rating": rng.integers(1, 6, n)})
    frame.drop_duplicates(["user_id", "item_id"]).to_parquet(path, index=False)


def _median(fn, repeat: int) -> float:  # type: ignore[no-untyped-def]
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def measure(rows: int, repeat: int, tmp: Path) -> dict[str, float]:
    import receval as rv
    from receval.data._files import read_table

    data = tmp / f"log-{rows}.parquet"
    _log(rows, data)
    metrics = ["ndcg@10", "recall@10", "rmse"]
    config = {"data": {"path": str(data)}, "split": {"method": "kfold", "n_splits": 5},
              "models": {"pop": "most-popular", "im": "item-mean"},
              "evaluate": {"metrics": metrics, "k": 10, "relevance_threshold": 4},
              "outputs": {"folder": str(tmp / f"out-{rows}"), "report": False}}

    def direct() -> None:
        frame = read_table(data, role="truth")
        folds = rv.split.kfold(frame, n_splits=5)
        rv.cross_validate({"pop": rv.models.MostPopular(), "im": rv.models.ItemMean()},
                          frame, metrics, split=folds, k=10, relevance_threshold=4,
                          progress=False)

    out = {"cross_validate": _median(direct, repeat),
           "rv.run": _median(lambda: rv.run(config, progress=False), repeat)}
    manifest = tmp / f"out-{rows}" / "run.json"
    out["rv.rerun"] = _median(lambda: rv.rerun(manifest), repeat)
    out["rows"] = float(len(pd.read_parquet(data)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    with tempfile.TemporaryDirectory() as tmp:
        results = {n: measure(n, args.repeat, Path(tmp)) for n in args.rows}
    if args.markdown:
        print(f"{platform.machine()}, Python {platform.python_version()}; median of "
              f"{args.repeat} runs after a warm-up\n")
        print("| rows | cross_validate (s) | rv.run (s) | overhead | rv.rerun (s) |")
        print("|---:|---:|---:|---:|---:|")
    for r in results.values():
        line = (f"| {int(r['rows']):,} | {r['cross_validate']:.2f} | {r['rv.run']:.2f} | "
                f"{r['rv.run'] / r['cross_validate']:.2f}x | {r['rv.rerun']:.2f} |")
        print(line if args.markdown else line.replace("|", " "), file=sys.stdout)


if __name__ == "__main__":
    main()
