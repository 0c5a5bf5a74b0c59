#!/usr/bin/env python3
"""rv.split on Spark vs in process vs Microsoft Recommenders' Spark splitters.

A log of ``--rows`` rows (``--users`` users with the same number of rows each, 5,000 items,
integer times with ties) is written to Parquet once. Each measurement is one end-to-end
split, after warm-up splits that start the Python workers and compile the kernels:

- receval in process: ``pandas.read_parquet`` and ``rv.split.*`` (reading included);
- receval on Spark: ``rv.split.*`` on ``spark.read.parquet`` (validation, the split, the
  report's aggregations) and the parts written once to Spark's ``noop`` sink through
  ``Split.labelled()``;
- Microsoft Recommenders (if installed): ``spark_random_split``, ``spark_stratified_split``,
  ``spark_timestamp_split`` and ``spark_chrono_split``, both parts written to ``noop`` (no
  report).

Example: python benchmarks/spark_split.py --rows 1000000 --out benchmarks/results/spark_split.md
"""

from __future__ import annotations

import argparse
import datetime as dt
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from spark import session  # noqa: E402

CASES = [  # (label, receval splitter and options, MS Recommenders splitter and options)
    ("random 20 %", "random", {"test_size": 0.2, "seed": 1},
     "spark_random_split", {"ratio": 0.8, "seed": 1}),
    ("random 20 % of each user", "random", {"test_size": 0.2, "per_user": True, "seed": 1},
     "spark_stratified_split", {"ratio": 0.8, "seed": 1}),
    ("latest 20 %", "temporal", {"test_size": 0.2}, "spark_timestamp_split", {"ratio": 0.8}),
    ("latest 20 % of each user", "temporal", {"test_size": 0.2, "per_user": True},
     "spark_chrono_split", {"ratio": 0.8}),
    ("leave-one-out (latest)", "leave_k_out", {"k": 1}, None, {}),
]


def noop(frame: Any) -> None:
    frame.write.format("noop").mode("overwrite").save()


def timed(fn: Any) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--users", type=int, default=10_000)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--memory", default="4g")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    import pandas as pd

    import receval as rv

    spark = session(args.master, args.memory)
    try:
        from recommenders.datasets import spark_splitters as ms
    except ImportError:  # pragma: no cover - optional anchor
        ms = None
    lines = [f"Measured {dt.date.today()} on {platform.machine()}, {args.master}, Spark "
             f"{spark.version}, Python {platform.python_version()}; {args.rows:,} rows, "
             f"{args.users:,} users. Wall seconds of one split, parts written once.", "",
             "| split | receval in process | receval on Spark | MS Recommenders on Spark |",
             "|---|---:|---:|---:|"]
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "log.parquet")
        spark.range(args.rows).selectExpr(
            f"id % {args.users} as userID", "(id * 7919) % 5000 as itemID",
            "cast(id % 97 as double) as rating", f"id div {args.users * 3} as timestamp") \
            .write.parquet(path)
        cols = {"user": "userID", "item": "itemID", "timestamp": "timestamp"}
        # warm-up: the Python workers, and the compiled kernels in them and in this process
        small = pd.read_parquet(path).iloc[::500]
        for _, name, options, _, _ in CASES:
            getattr(rv.split, name)(small, columns=cols, **options)
        rv.split.random(spark.read.parquet(path).limit(1000), per_user=True, columns=cols)
        for label, name, options, ms_name, ms_options in CASES:
            fn = getattr(rv.split, name)

            def local(fn: Any = fn, options: dict[str, Any] = options) -> None:
                fn(pd.read_parquet(path), columns=cols, **options)

            def dist(fn: Any = fn, options: dict[str, Any] = options) -> None:
                noop(fn(spark.read.parquet(path), columns=cols, **options).labelled())

            anchor = ""
            if ms is not None and ms_name is not None:
                def theirs(ms_name: str = ms_name, ms_options: dict[str, Any] = ms_options
                           ) -> None:
                    for part in getattr(ms, ms_name)(spark.read.parquet(path), **ms_options):
                        noop(part)

                anchor = f"{timed(theirs):.1f}"
            row = f"| {label} | {timed(local):.1f} | {timed(dist):.1f} | {anchor} |"
            print(row, flush=True)
            lines.append(row)
    spark.stop()
    if args.out:
        args.out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
