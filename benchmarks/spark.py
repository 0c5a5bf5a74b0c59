#!/usr/bin/env python3
"""receval on Spark vs receval in process vs the Spark anchors, on the reference workload.

Spark runs in local mode (``local[2]`` by default) from the generator's Parquet files; each
measurement is one end-to-end call (read, shuffle, compute, results on the driver) after a
warm-up job that starts the Python workers and loads the compiled kernels.

- receval in process: ``rv.evaluate`` on the Parquet files read into pandas (reading
  included), P, R, F1, HR, MRR, AP and nDCG at 5, 10, 20 (21 numbers);
- receval on Spark: the same call on ``spark.read.parquet(...)`` DataFrames;
- Microsoft Recommenders' ``SparkRankingEvaluation`` (if installed): precision, recall, nDCG
  and MAP at 5, 10, 20 (12 numbers: it has no HR, MRR or F1), one evaluator per k;
- RePlay's metrics on Spark DataFrames (if installed): the same 21 numbers where RePlay
  has them.

Example: python benchmarks/spark.py --sizes 100k --out benchmarks/results/spark.md
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run import DEFAULT_GEN, ensure_data, parse_size, size_label  # noqa: E402

KS = (5, 10, 20)
METRICS = [f"{m}@{k}" for k in KS for m in
           ("precision", "recall", "f1", "hit_rate", "mrr", "map", "ndcg")]


def session(master: str, memory: str) -> Any:
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master(master).appName("receval-bench")
             .config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.driver.memory", memory)
             .config("spark.sql.execution.arrow.pyspark.enabled", "true")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def timed(fn: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def receval_in_process(data: dict[str, str]) -> tuple[float, dict[str, float]]:
    import pandas as pd

    import receval as rv

    def run() -> dict[str, float]:
        recs, truth = pd.read_parquet(data["recs"]), pd.read_parquet(data["truth"])
        return rv.evaluate(recs, truth, METRICS).to_dict()

    return timed(run)


def receval_spark(spark: Any, data: dict[str, str]) -> tuple[float, dict[str, float]]:
    import receval as rv

    def run() -> dict[str, float]:
        recs, truth = spark.read.parquet(data["recs"]), spark.read.parquet(data["truth"])
        return rv.evaluate(recs, truth, METRICS).to_dict()

    return timed(run)


def ms_recommenders(spark: Any, data: dict[str, str]) -> tuple[float, dict[str, float]] | None:
    try:
        from recommenders.evaluation.spark_evaluation import SparkRankingEvaluation
    except ImportError:
        return None

    def run() -> dict[str, float]:
        recs, truth = spark.read.parquet(data["recs"]), spark.read.parquet(data["truth"])
        out = {}
        for k in KS:
            ev = SparkRankingEvaluation(truth, recs, k=k, col_user="user", col_item="item",
                                        col_rating="rating", col_prediction="score",
                                        relevancy_method="top_k")
            out |= {f"precision@{k}": ev.precision_at_k(), f"recall@{k}": ev.recall_at_k(),
                    f"ndcg@{k}": ev.ndcg_at_k(), f"map@{k}": ev.map_at_k()}
        return out

    return timed(run)


def replay(spark: Any, data: dict[str, str]) -> tuple[float, dict[str, float]] | None:
    try:
        from replay.metrics import MAP, MRR, NDCG, HitRate, OfflineMetrics, Precision, Recall
    except ImportError:
        return None

    def run() -> dict[str, float]:
        recs, truth = spark.read.parquet(data["recs"]), spark.read.parquet(data["truth"])
        metrics = [m(list(KS)) for m in (Precision, Recall, HitRate, MRR, MAP, NDCG)]
        return dict(OfflineMetrics(metrics, query_column="user", item_column="item",
                                   rating_column="score")(recs, truth))

    return timed(run)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="100k")
    parser.add_argument("--gen", type=Path, default=DEFAULT_GEN)
    parser.add_argument("--data-dir", type=Path, default=HERE / "data")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--driver-memory", default="8g")
    parser.add_argument("--anchors", default="ms_recommenders,replay")
    parser.add_argument("--out", type=Path, default=None, help="write the table (Markdown)")
    args = parser.parse_args(argv)
    spark = session(args.master, args.driver_memory)
    warm = ensure_data(args.gen, args.data_dir, 1000)
    receval_spark(spark, warm)  # start the Python workers, load the kernels
    rows = []
    for users in [parse_size(s) for s in args.sizes.split(",")]:
        data = ensure_data(args.gen, args.data_dir, users)
        base_s, base = receval_in_process(data)
        spark_s, values = receval_spark(spark, data)
        same = all(values[k] == base[k] for k in base)
        rows.append((size_label(users), "receval in process", base_s, "", ""))
        rows.append((size_label(users), "receval on Spark", spark_s,
                     f"{spark_s / base_s:.1f}x in-process time",
                     "identical" if same else "DIFFERENT"))
        for name, fn in (("ms_recommenders", ms_recommenders), ("replay", replay)):
            if name not in args.anchors.split(","):
                continue
            got = fn(spark, data)
            if got is None:
                rows.append((size_label(users), name, None, "not installed", ""))
                continue
            secs, theirs = got
            rows.append((size_label(users), name, secs,
                         f"receval on Spark is {secs / spark_s:.1f}x faster",
                         f"{len(theirs)} numbers"))
        print(rows[-1], file=sys.stderr)
    lines = [f"Measured {dt.date.today()} on {platform.machine()}, {os.cpu_count()} cores, "
             f"Spark {spark.version} {args.master}, Python {platform.python_version()}.", "",
             "| users | what | seconds | ratio | numbers |", "|---|---|---:|---|---|"]
    for size, what, secs, ratio, note in rows:
        lines.append(f"| {size} | {what} | {'' if secs is None else f'{secs:.1f}'} | "
                     f"{ratio} | {note} |")
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    spark.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
