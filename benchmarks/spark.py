#!/usr/bin/env python3
"""receval on Spark vs receval in process vs the Spark anchors, on the reference workload.

Spark runs in local mode (``local[2]`` by default) from the generator's Parquet files; each
measurement is one end-to-end call (read, shuffle, compute, results on the driver) after a
warm-up call of the same library on 1k users (which starts the Python workers, loads the
compiled kernels and lets the JVM compile its hot code).

- receval in process: ``rv.evaluate`` on the Parquet files read into pandas (reading
  included), P, R, F1, HR, MRR, AP and nDCG at 5, 10, 20 (21 numbers, run.py's set);
- receval on Spark: the same call on ``spark.read.parquet(...)`` DataFrames;
- Microsoft Recommenders' ``SparkRankingEvaluation`` (if installed): precision, recall, nDCG
  and MAP at 5, 10, 20 (12 numbers: it has no HR, MRR or F1), one evaluator per k;
- RePlay's ``OfflineMetrics`` on Spark DataFrames (if installed): P, R, HR, MRR, MAP, nDCG at
  5, 10, 20 (18 numbers: no F1);
- the Spark floor (``--floor``): what any evaluation that runs its kernel inside Spark pays
  before computing anything. It counts both tables, numbers the rows, unions them in
  receval's shipped layout (user, item, score or rating, row number), shuffles them into
  receval's number of partitions by user, and hands every row to a Python worker as Arrow;
  the workers only count the rows they get. Beside it, the hand-off alone: both tables' user,
  item and score (or rating) columns handed to Python as Arrow in their read partitions, no
  numbering, no shuffle, the workers counting the rows.

Every anchor's means are checked against receval's in-process means under the matching
definitions (``ANCHOR_REFERENCES``) to 1e-9, and receval on Spark against receval in process
(identical). Each measurement records the wall time, the CPU seconds of the whole process tree
(driver, JVM, Python workers: far less sensitive to other jobs on the machine than the wall
time) and the 1-minute load average before and after.

An anchor is not run at a size when its time at the previous size, times the size ratio,
exceeds ``--limit-min``; a run that goes on longer than ``--hard-limit-min`` is cancelled
(``cancelAllJobs``) and reported as stopped.

Example: python benchmarks/spark.py --sizes 100k,1M --out benchmarks/results/spark.md
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from anchors import CANONICAL, KS, RECEVAL_METRICS  # noqa: E402
from run import DEFAULT_GEN, cpu_model, ensure_data, parse_size, size_label  # noqa: E402

TOLERANCE = 1e-9
WARM_USERS = 1000
ANCHORS = ("ms_recommenders", "replay")

# The receval metric with each anchor's definition (checked on the 1k warm-up data too):
# MS Recommenders' Spark evaluator is pyspark.mllib's RankingMetrics (binary relevance,
# log2 discount, MAP@k over min(k, |R|)); RePlay's is binary too, MAP@k over min(k, |R|).
ANCHOR_REFERENCES: dict[str, dict[str, str]] = {
    "ms_recommenders": {
        **{f"P@{k}": f"precision@{k}" for k in KS}, **{f"R@{k}": f"recall@{k}" for k in KS},
        **{f"nDCG@{k}": f"ndcg(gain=binary)@{k}" for k in KS},
        **{f"AP@{k}": f"map(denominator=min_k_relevant)@{k}" for k in KS}},
    "replay": {
        **{f"{f}@{k}": f"{m}@{k}" for k in KS for f, m in
           (("P", "precision"), ("R", "recall"), ("HR", "hit_rate"), ("MRR", "mrr"))},
        **{f"nDCG@{k}": f"ndcg(gain=binary)@{k}" for k in KS},
        **{f"AP@{k}": f"map(denominator=min_k_relevant)@{k}" for k in KS}},
}
NOTES = {
    "ms_recommenders": "`SparkRankingEvaluation(relevancy_method='top_k')`, one evaluator per "
                       "k (a window rank, `collect_list`, a join, then pyspark.mllib "
                       "`RankingMetrics`): P, R, binary nDCG, MAP@k over min(k, |R|); no HR, "
                       "MRR, F1",
    "replay": "`OfflineMetrics([Precision, Recall, HitRate, MRR, MAP, NDCG]([5, 10, 20]))` on "
              "Spark DataFrames (cached enriched lists, then one Python RDD pass per metric "
              "and k): binary nDCG, MAP@k over min(k, |R|); no F1",
}


# --- Spark and the process tree ------------------------------------------------------------------

def session(master: str, memory: str) -> Any:
    import receval

    # the Python workers import the receval the driver imports (this worktree's), not an
    # installed one
    source = str(Path(receval.__file__).resolve().parents[1])
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [source, *filter(None, [os.environ.get("PYTHONPATH")])])
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


def _tree_cpu_s() -> float:
    """CPU seconds (user + system, own + reaped children) of this process and its descendants."""
    tick = os.sysconf("SC_CLK_TCK")
    children: dict[int, list[int]] = {}
    stats: dict[int, list[str]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            raw = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = raw[raw.rindex(")") + 2:].split()  # after "pid (comm) "
        stats[int(entry)] = fields
        children.setdefault(int(fields[1]), []).append(int(entry))
    total, todo = 0.0, [os.getpid()]
    while todo:
        pid = todo.pop()
        f = stats.get(pid)
        if f is not None:  # utime, stime, cutime, cstime are fields 14-17 of stat
            total += sum(int(x) for x in f[11:15]) / tick
        todo += children.get(pid, [])
    return total


def _load1() -> float:
    return os.getloadavg()[0]


class Stopped(RuntimeError):
    pass


def measured(spark: Any, fn: Callable[[], dict[str, float]], limit_s: float
             ) -> dict[str, Any]:
    """One timed call, cancelled (every Spark job) once it runs longer than ``limit_s``."""
    done = threading.Event()
    fired = threading.Event()

    def watchdog() -> None:
        if done.wait(limit_s):
            return
        fired.set()
        while not done.wait(2.0):  # a library may start a new job after a cancelled one
            spark.sparkContext.cancelAllJobs()
        spark.sparkContext.cancelAllJobs()

    record: dict[str, Any] = {"load_before": _load1()}
    cpu0 = _tree_cpu_s()
    thread = threading.Thread(target=watchdog, daemon=True)
    start = time.perf_counter()
    thread.start()
    try:
        record["values"] = fn()
        record["status"] = "ok"
    except Exception as exc:
        if not fired.is_set():
            raise
        record["status"] = f"stopped after {limit_s / 60:.0f} min ({type(exc).__name__})"
        record["values"] = {}
    finally:
        done.set()
    record["seconds"] = time.perf_counter() - start
    thread.join()
    record["cpu_s"] = _tree_cpu_s() - cpu0
    record["load_after"] = _load1()
    return record


# --- the libraries -------------------------------------------------------------------------------

def _canonical(ev: Any) -> dict[str, float]:
    return {CANONICAL[m]: float(ev[m]) for m in RECEVAL_METRICS}


def _in_process_worker(spec_json: str) -> int:
    """In a fresh process: a warm-up call, the timed call, then the anchors' definitions."""
    import resource

    import pandas as pd

    import receval as rv

    spec = json.loads(spec_json)

    def call(data: dict[str, str]) -> dict[str, float]:
        recs, truth = pd.read_parquet(data["recs"]), pd.read_parquet(data["truth"])
        return _canonical(rv.evaluate(recs, truth, RECEVAL_METRICS))

    call(spec["warm"])
    usage = resource.getrusage(resource.RUSAGE_SELF)
    load_before = _load1()
    start = time.perf_counter()
    values = call(spec["data"])
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_SELF)
    out = {"status": "ok", "values": values, "seconds": seconds, "load_before": load_before,
           "load_after": _load1(),
           "cpu_s": after.ru_utime + after.ru_stime - usage.ru_utime - usage.ru_stime,
           "references": references(spec["data"], spec["anchors"])}
    print(json.dumps(out))
    return 0


def in_process(data: dict[str, str], warm: dict[str, str], anchors: list[str]
               ) -> dict[str, Any]:
    """receval in process, in a fresh process (no JVM, no Spark worker beside it)."""
    import subprocess

    spec = json.dumps({"data": data, "warm": warm, "anchors": anchors})
    proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--in-process", spec],
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"in-process worker failed:\n{proc.stderr[-2000:]}")
    out: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return out


def receval_spark(spark: Any, data: dict[str, str]) -> dict[str, float]:
    import receval as rv

    recs, truth = spark.read.parquet(data["recs"]), spark.read.parquet(data["truth"])
    return _canonical(rv.evaluate(recs, truth, RECEVAL_METRICS))


FLOOR = "Spark floor (read, shuffle, hand-off)"


def _count_batches(batches: Any) -> Any:
    import pyarrow as pa

    rows = sum(b.num_rows for b in batches)
    yield pa.RecordBatch.from_pydict({"rows": [rows]})


def _both_tables(spark: Any, data: dict[str, str], numbered: bool) -> tuple[Any, int]:
    """Both tables as (user, item, value[, seq]) rows in one frame, and their row count.

    ``numbered``: with receval's row numbers (recs from 0 up, truth complemented).
    """
    from pyspark.sql import functions as F

    recs, truth = spark.read.parquet(data["recs"]), spark.read.parquet(data["truth"])
    n_rows = recs.count() + truth.count()  # receval counts both tables too (one job)
    seq = F.monotonically_increasing_id()
    extra = [[seq.alias("seq")], [(-seq - 1).alias("seq")]] if numbered else [[], []]
    both = recs.select("user", "item", F.col("score").alias("value"), *extra[0]) \
        .unionByName(truth.select("user", "item", F.col("rating").alias("value"), *extra[1]))
    return both, n_rows


def _handed_over(frame: Any, n_rows: int) -> dict[str, float]:
    counted = frame.mapInArrow(_count_batches, "rows long").collect()
    return {"rows": float(sum(r["rows"] for r in counted)), "expected_rows": float(n_rows)}


def spark_floor(spark: Any, data: dict[str, str]) -> dict[str, float]:
    from receval.spark._engine import n_buckets_for

    both, n_rows = _both_tables(spark, data, numbered=True)
    n = n_buckets_for(n_rows, spark.sparkContext.defaultParallelism)
    return _handed_over(both.repartition(n, "user"), n_rows)


HANDOFF = "Spark floor (read, hand-off; no shuffle)"


def spark_handoff(spark: Any, data: dict[str, str]) -> dict[str, float]:
    both, n_rows = _both_tables(spark, data, numbered=False)
    return _handed_over(both, n_rows)


def ms_recommenders(spark: Any, data: dict[str, str]) -> dict[str, float]:
    from recommenders.evaluation.spark_evaluation import SparkRankingEvaluation

    recs, truth = spark.read.parquet(data["recs"]), spark.read.parquet(data["truth"])
    out = {}
    for k in KS:
        ev = SparkRankingEvaluation(truth, recs, k=k, col_user="user", col_item="item",
                                    col_rating="rating", col_prediction="score",
                                    relevancy_method="top_k")
        out |= {f"P@{k}": ev.precision_at_k(), f"R@{k}": ev.recall_at_k(),
                f"nDCG@{k}": ev.ndcg_at_k(), f"AP@{k}": ev.map_at_k()}
    return out


def replay(spark: Any, data: dict[str, str]) -> dict[str, float]:
    from replay.metrics import MAP, MRR, NDCG, HitRate, OfflineMetrics, Precision, Recall

    classes = {"P": Precision, "R": Recall, "HR": HitRate, "MRR": MRR, "AP": MAP, "nDCG": NDCG}
    recs, truth = spark.read.parquet(data["recs"]), spark.read.parquet(data["truth"])
    got = OfflineMetrics([c(list(KS)) for c in classes.values()], query_column="user",
                         item_column="item", rating_column="score")(recs, truth)
    return {f"{f}@{k}": float(got[f"{c.__name__}@{k}"]) for f, c in classes.items() for k in KS}


LIBRARIES: dict[str, Callable[[Any, dict[str, str]], dict[str, float]]] = {
    "receval on Spark": receval_spark, FLOOR: spark_floor, HANDOFF: spark_handoff,
    "ms_recommenders": ms_recommenders,
    "replay": replay}
MODULES = {"ms_recommenders": "recommenders.evaluation.spark_evaluation",
           "replay": "replay.metrics"}


def installed(module: str) -> bool:
    import importlib

    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True


def references(data: dict[str, str], anchors: list[str]) -> dict[str, float]:
    """receval in process (untimed) on every definition the anchors implement."""
    import pandas as pd

    import receval as rv

    labels = sorted({m for a in anchors for m in ANCHOR_REFERENCES[a].values()})
    if not labels:
        return {}
    ev = rv.evaluate(pd.read_parquet(data["recs"]), pd.read_parquet(data["truth"]), labels)
    return {m: float(ev[m]) for m in labels}


def agreement(values: dict[str, float], expected: dict[str, float]) -> dict[str, Any]:
    diffs = {k: values[k] - expected[k] for k in expected if k in values}
    worst = max((abs(d) for d in diffs.values()), default=0.0)
    bad = {k: d for k, d in diffs.items() if not abs(d) <= TOLERANCE}
    return {"checked": len(diffs), "max_abs_diff": worst, "agree": not bad and bool(diffs),
            "differ": bad}


# --- the run -------------------------------------------------------------------------------------

def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--sizes", default="100k", help="numbers of users (10k, 1M accepted)")
    parser.add_argument("--gen", type=Path, default=DEFAULT_GEN, help="the workload generator")
    parser.add_argument("--data-dir", type=Path, default=HERE / "data")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--driver-memory", default="8g")
    parser.add_argument("--anchors", default=",".join(ANCHORS),
                        help=f"among {', '.join(ANCHORS)}, or 'none'")
    parser.add_argument("--floor", action="store_true",
                        help="also measure the Spark floor: read, shuffle and hand the rows "
                             "to Python, no evaluation; and the hand-off alone, no shuffle")
    parser.add_argument("--shuffle-partitions", default="auto",
                        help="spark.sql.shuffle.partitions for the anchors: 'auto' = receval's "
                             "own bucket count for the size (about 2M rows each, at least 2 per "
                             "core), 'default' = Spark's (200), or a number")
    parser.add_argument("--limit-min", type=float, default=30.0,
                        help="do not run an anchor whose previous size's time times the size "
                             "ratio exceeds this (minutes)")
    parser.add_argument("--hard-limit-min", type=float, default=45.0,
                        help="cancel a call that runs longer than this (minutes)")
    parser.add_argument("--out", type=Path, default=None, help="write the table (Markdown)")
    parser.add_argument("--json", type=Path, default=None, help="write every record (JSON)")
    parser.add_argument("--calm", type=float, default=None, metavar="LOAD",
                        help="before each measurement, wait (up to --calm-wait-s) until the "
                             "1-minute load average is below LOAD")
    parser.add_argument("--calm-wait-s", type=float, default=300.0)
    parser.add_argument("--report", type=Path, default=None, metavar="FILE.json",
                        help="print the table of a saved --json file instead of measuring")
    parser.add_argument("--in-process", default=None, help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def shuffle_partitions(setting: str, n_rows: int, parallelism: int) -> int | None:
    from receval.spark._engine import n_buckets_for

    if setting == "default":
        return None
    if setting == "auto":
        return n_buckets_for(n_rows, parallelism)
    return int(setting)


def n_rows_of(data: dict[str, str]) -> int:
    import pyarrow.parquet as pq

    return sum(pq.ParquetFile(p).metadata.num_rows for p in data.values())


def _skip(name: str, users: int, prev: dict[str, Any] | None, limit_min: float
          ) -> str | None:
    """Why an anchor is not run at this size, from its time at the previous size."""
    if prev is None or not prev.get("seconds"):
        return None
    scale = users / prev["users"]
    est = prev["seconds"] * scale
    if est <= limit_min * 60:
        return None
    return (f"not run: estimated {est / 60:.0f} min ({prev['seconds']:.0f} s at "
            f"{size_label(prev['users'])} × {scale:.0f}) > --limit-min {limit_min:.0f}")


def run_size(spark: Any, args: argparse.Namespace, users: int, anchors: list[str],
             previous: dict[str, dict[str, Any]], log: Callable[[str], None]
             ) -> list[dict[str, Any]]:
    data = ensure_data(args.gen, args.data_dir, users)
    warm = ensure_data(args.gen, args.data_dir, WARM_USERS)
    parts = shuffle_partitions(args.shuffle_partitions, n_rows_of(data),
                               spark.sparkContext.defaultParallelism)
    default_parts = spark.conf.get("spark.sql.shuffle.partitions")

    def logged(rec: dict[str, Any]) -> dict[str, Any]:
        if rec["status"] == "ok":
            log(f"[{size_label(users)}] {rec['library']}: {rec['seconds']:.1f} s wall, "
                f"{rec['cpu_s']:.0f} CPU s, load {rec['load_before']:.1f} -> "
                f"{rec['load_after']:.1f}")
        else:
            log(f"[{size_label(users)}] {rec['library']}: {rec['status']}")
        return rec

    def calm() -> None:
        if args.calm is None:
            return
        start = time.perf_counter()
        while _load1() >= args.calm and time.perf_counter() - start < args.calm_wait_s:
            time.sleep(5.0)

    calm()
    base = in_process(data, warm, anchors)
    ref = base.pop("references")
    records = [logged({"users": users, "library": "receval in process", **base})]
    for name in ["receval on Spark", *([FLOOR, HANDOFF] if args.floor else []), *anchors]:
        rec: dict[str, Any] = {"users": users, "library": name, "shuffle_partitions": None}
        why = _skip(name, users, previous.get(name), args.limit_min) if name in anchors \
            else None
        if why:
            records.append(logged({**rec, "status": why}))
            continue
        if name in anchors and parts is not None:
            spark.conf.set("spark.sql.shuffle.partitions", str(parts))
            rec["shuffle_partitions"] = parts
        fn = LIBRARIES[name]
        calm()
        try:
            rec |= measured(spark, lambda f=fn: f(spark, data), args.hard_limit_min * 60)
        finally:
            spark.conf.set("spark.sql.shuffle.partitions", default_parts)
        if rec["status"] == "ok" and name in (FLOOR, HANDOFF):
            got, want = rec["values"]["rows"], rec["values"]["expected_rows"]
            rec["agreement"] = {"rows": got, "expected": want, "agree": got == want}
        elif rec["status"] == "ok":
            previous[name] = rec
            expected = base["values"] if name == "receval on Spark" else \
                {k: ref[m] for k, m in ANCHOR_REFERENCES[name].items()}
            rec["agreement"] = agreement(rec["values"], expected)
            if name == "receval on Spark":
                rec["agreement"]["identical"] = rec["values"] == base["values"]
        records.append(logged(rec))
    return records


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.in_process is not None:
        return _in_process_worker(args.in_process)
    if args.report is not None:
        from spark_report import markdown

        print(markdown(json.loads(args.report.read_text())))
        return 0

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    wanted = [] if args.anchors == "none" else [a.strip() for a in args.anchors.split(",")]
    unknown = [a for a in wanted if a not in ANCHORS]
    if unknown:
        raise SystemExit(f"unknown anchors {unknown}; known: {', '.join(ANCHORS)}")
    anchors = [a for a in wanted if installed(MODULES[a])]
    missing = [a for a in wanted if a not in anchors]
    load_start = _load1()
    spark = session(args.master, args.driver_memory)
    previous: dict[str, dict[str, Any]] = {}
    records: list[dict[str, Any]] = []
    log(f"warm-up on {size_label(WARM_USERS)} users (also checks the anchors' definitions)")
    records += [{**r, "warm_up": True}
                for r in run_size(spark, args, WARM_USERS, anchors, {}, log)]
    payload = {
        "machine": {"date": dt.datetime.now().astimezone().isoformat(timespec="seconds"),
                    "cpu": cpu_model(), "cores": os.cpu_count(), "spark": spark.version,
                    "master": args.master, "driver_memory": args.driver_memory,
                    "python": platform.python_version(), "loadavg_start": load_start},
        "args": {k: str(v) for k, v in vars(args).items()},
        "missing": missing, "tolerance": TOLERANCE, "notes": NOTES, "records": records}
    for users in [parse_size(s) for s in args.sizes.split(",")]:
        records += run_size(spark, args, users, anchors, previous, log)
        save(payload, args)  # after every size: a later size may not finish
    spark.stop()
    print(save(payload, args))
    return 0


def save(payload: dict[str, Any], args: argparse.Namespace) -> str:
    from spark_report import markdown

    payload["machine"]["loadavg_end"] = _load1()
    text = markdown(payload)
    if args.out:
        args.out.write_text(text + "\n")
    if args.json:
        args.json.write_text(json.dumps(payload, indent=1, default=str))
    return text


if __name__ == "__main__":
    raise SystemExit(main())
