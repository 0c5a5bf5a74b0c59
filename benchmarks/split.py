"""Time every rv.split splitter on a MovieLens-25M-sized synthetic log, with anchors.

The log has 162,541 users and 59,047 items (MovieLens 25M's counts), skewed user activity
(at least 20 rows per user, log-normal), Zipf-like item popularity, ratings 0.5-5 and epoch
timestamps in seconds (1995-2019) with same-second ties. Rows are sorted by user, then item,
as MovieLens ships them. It is written once to ``benchmarks/data/split-<rows>.parquet``.

receval is timed end to end from a pandas DataFrame to the train and test DataFrames (every
fold's for k-fold). The anchors run in another interpreter (``--anchors-python``, a venv with
pandas 2, ``recommenders==1.2.1 --no-deps`` and ``lenskit``), one process per anchor call,
each timed from its own pandas DataFrame (LensKit: from its ``Dataset``, whose build is
timed separately) to what the call returns. A ratio above 1 means receval is faster.

    python benchmarks/split.py --rows 1M            # quick look
    python benchmarks/split.py --rows 25M --markdown benchmarks/results/split.md
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
N_USERS, N_ITEMS = 162_541, 59_047

#: receval case -> (MS Recommenders call, LensKit call) that do the same, or None
ANCHORS: dict[str, tuple[str | None, str | None]] = {
    "random": ("python_random_split", "sample_records"),
    "random per_user": ("python_stratified_split", "sample_users SampleFrac(0.2)"),
    "temporal": (None, "split_temporal_fraction"),
    "temporal at": (None, "split_global_time"),
    "temporal per_user": ("python_chrono_split", "sample_users LastFrac(0.2)"),
    "leave_k_out latest": (None, "sample_users LastN(1)"),
    "leave_k_out random": (None, "sample_users SampleN(1)"),
    "kfold rows": (None, "crossfold_records"),
    "kfold users": (None, None),
}


def parse_rows(text: str) -> int:
    text = text.strip().upper()
    scale = {"K": 1_000, "M": 1_000_000}.get(text[-1], 1)
    return int(float(text.rstrip("KM")) * scale)


def make_log(rows: int, seed: int = 0) -> pd.DataFrame:
    """The synthetic log: ``rows`` distinct (user, item) pairs at most, like MovieLens.

    Drawn with 25 % more rows than asked; repeated pairs are dropped and a random subset of
    ``rows`` rows kept (vectorised; about a minute and 3 GB at 25M rows).
    """
    rng = np.random.default_rng(seed)
    target, rows = rows, int(rows * 1.25)
    users = min(N_USERS, max(rows // 40, 2))
    items = min(N_ITEMS, max(rows // 100, 10))
    least = max(1, min(20, rows // users))
    raw = rng.lognormal(0.0, 1.2, users)
    counts = least + np.floor(raw / raw.sum() * (rows - least * users)).astype(np.int64)
    extra = rows - int(counts.sum())
    counts[rng.choice(users, size=extra, replace=False)] += 1
    user = np.repeat(np.arange(1, users + 1, dtype=np.int64), counts)
    pop = 1.0 / np.arange(1, items + 1) ** 0.9
    item = rng.choice(items, size=rows, p=pop / pop.sum()) + 1
    start = rng.integers(789_652_009, 1_574_327_703, users)
    span = np.minimum(rng.exponential(3e7, users), 1_574_327_703 - start).astype(np.int64)
    offset = (rng.random(rows) ** 3 * np.repeat(span, counts)).astype(np.int64)
    timestamp = np.repeat(start, counts) + offset // 60 * 60  # minute steps: ties
    rating = rng.integers(1, 11, rows) / 2.0
    log = pd.DataFrame({"user_id": user, "item_id": item, "rating": rating,
                        "timestamp": timestamp})
    log = log.drop_duplicates(["user_id", "item_id"], ignore_index=True)
    if len(log) > target:
        log = log.iloc[np.sort(rng.choice(len(log), size=target, replace=False))]
    return log.sort_values(["user_id", "item_id"], kind="stable", ignore_index=True)


def data_file(rows: int, data_dir: Path) -> Path:
    path = data_dir / f"split-{rows}.parquet"
    if not path.exists():
        data_dir.mkdir(parents=True, exist_ok=True)
        print(f"writing {path}", file=sys.stderr)
        make_log(rows).to_parquet(path, index=False)
    return path


def receval_cases(log: pd.DataFrame) -> dict[str, Any]:
    import receval as rv

    at = int(np.quantile(log["timestamp"].to_numpy(), 0.8))
    return {
        "random": lambda: rv.split.random(log, 0.2, seed=0),
        "random per_user": lambda: rv.split.random(log, 0.2, per_user=True, seed=0),
        "temporal": lambda: rv.split.temporal(log, 0.2),
        "temporal at": lambda: rv.split.temporal(log, at=at),
        "temporal per_user": lambda: rv.split.temporal(log, 0.2, per_user=True),
        "leave_k_out latest": lambda: rv.split.leave_k_out(log, 1),
        "leave_k_out random": lambda: rv.split.leave_k_out(log, 1, order="random", seed=0),
        "kfold rows": lambda: rv.split.kfold(log, 5, seed=0),
        "kfold users": lambda: rv.split.kfold(log, 5, by="users", seed=0),
    }


def time_receval(path: Path) -> dict[str, float]:
    import receval as rv

    small = make_log(250_000, seed=1)  # above PARALLEL_MIN: the threaded kernels too
    for fn in receval_cases(small).values():  # compile / load the numba kernels first
        fn()
    del rv
    log = pd.read_parquet(path)
    out = {}
    for name, fn in receval_cases(log).items():
        t0 = time.perf_counter()
        result = fn()
        for s in result if isinstance(result, list) else [result]:
            s.train, s.test  # noqa: B018 - the parts are built on first access
        out[name] = time.perf_counter() - t0
        print(f"receval {name:<20} {out[name]:8.2f} s", file=sys.stderr)
        del result
    return out


# ------------------------------------------------------------------ anchor worker


def _msr(call: str, log: pd.DataFrame) -> Any:
    from recommenders.datasets import python_splitters as ps

    df = log.rename(columns={"user_id": "userID", "item_id": "itemID"})
    t0 = time.perf_counter()
    if call == "python_random_split":
        ps.python_random_split(df, ratio=0.8, seed=0)
    elif call == "python_stratified_split":
        ps.python_stratified_split(df, ratio=0.8, filter_by="user", seed=0)
    else:
        ps.python_chrono_split(df, ratio=0.8, filter_by="user")
    return time.perf_counter() - t0


def _lenskit(call: str, log: pd.DataFrame) -> tuple[float, float]:
    from lenskit import splitting as S
    from lenskit.data import from_interactions_df

    t0 = time.perf_counter()
    ds = from_interactions_df(log, user_col="user_id", item_col="item_id",
                              rating_col="rating", timestamp_col="timestamp")
    build = time.perf_counter() - t0
    n_users = ds.user_count
    t0 = time.perf_counter()
    if call == "sample_records":
        S.sample_records(ds, size=round(0.2 * len(log)), rng=0)
    elif call == "split_temporal_fraction":
        S.split_temporal_fraction(ds, 0.2)
    elif call == "split_global_time":
        at = int(np.quantile(log["timestamp"].to_numpy(), 0.8))
        S.split_global_time(ds, at)
    elif call == "crossfold_records":
        list(S.crossfold_records(ds, 5, rng=0))
    else:
        method = {"SampleFrac(0.2)": S.SampleFrac(0.2, rng=0), "LastFrac(0.2)": S.LastFrac(0.2),
                  "LastN(1)": S.LastN(1), "SampleN(1)": S.SampleN(1, rng=0)}[call.split()[1]]
        S.sample_users(ds, n_users, method, rng=0)
    return build, time.perf_counter() - t0


def worker(lib: str, call: str, path: Path) -> None:
    log = pd.read_parquet(path)
    if lib == "msr":
        print(json.dumps({"build": 0.0, "split": _msr(call, log)}))
    else:
        build, split = _lenskit(call, log)
        print(json.dumps({"build": build, "split": split}))


def run_anchor(python: str, lib: str, call: str, path: Path, timeout: float
               ) -> dict[str, float] | str:
    cmd = [python, __file__, "--worker", lib, "--call", call, "--data", str(path)]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return f"> {timeout:.0f} s"
    if done.returncode != 0:
        return "failed: " + (done.stderr.strip().splitlines() or ["?"])[-1][:80]
    return json.loads(done.stdout.strip().splitlines()[-1])


def versions(python: str) -> str:
    import numba

    import receval as rv

    code = ("import importlib.metadata as m;print(' · '.join(f'{p} {m.version(p)}' for p in "
            "('pandas','numpy','recommenders','lenskit')))")
    other = subprocess.run([python, "-c", code], capture_output=True, text=True, check=False)
    return (f"receval {rv.__version__} · pandas {pd.__version__} · numpy {np.__version__} · "
            f"numba {numba.__version__}; anchors' venv: {other.stdout.strip() or '?'}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", default="1M", help="rows of the log (25M: MovieLens 25M)")
    ap.add_argument("--data-dir", type=Path, default=ROOT / "benchmarks" / "data")
    ap.add_argument("--anchors-python", default="/work/venv-split/bin/python")
    ap.add_argument("--anchors", default="msr,lenskit", help="msr,lenskit or none")
    ap.add_argument("--timeout", type=float, default=900.0, help="per anchor call, seconds")
    ap.add_argument("--markdown", type=Path, default=None, help="write the table here")
    ap.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--call", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--data", type=Path, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.worker, args.call, args.data)
        return
    path = data_file(parse_rows(args.rows), args.data_dir)
    rows = len(pd.read_parquet(path, columns=["user_id"]))
    load = os.getloadavg()[0]
    ours = time_receval(path)
    libs = [x for x in args.anchors.split(",") if x in ("msr", "lenskit")]
    lines = ["| splitter | receval s | anchor | anchor split s | anchor build s | "
             "anchor ÷ receval |", "|---|---:|---|---:|---:|---:|"]
    for name, secs in ours.items():
        calls = dict(zip(("msr", "lenskit"), ANCHORS[name], strict=True))
        done = False
        for lib in libs:
            call = calls[lib]
            if call is None:
                continue
            got = run_anchor(args.anchors_python, lib, call, path, args.timeout)
            label = f"{'MS Recommenders' if lib == 'msr' else 'LensKit'} `{call}`"
            if isinstance(got, str):
                lines.append(f"| {name} | {secs:.2f} | {label} | {got} | | |")
            else:
                lines.append(f"| {name} | {secs:.2f} | {label} | {got['split']:.2f} | "
                             f"{got['build']:.2f} | {got['split'] / secs:.1f} |")
            print(lines[-1], file=sys.stderr)
            done = True
        if not done:
            lines.append(f"| {name} | {secs:.2f} | — | | | |")
    head = (f"Measured {dt.date.today()} on {platform.processor() or platform.machine()}, "
            f"{os.cpu_count()} cores, Python {platform.python_version()}; 1-minute load "
            f"average {load:.1f} → {os.getloadavg()[0]:.1f}.\n\n{versions(args.anchors_python)}."
            f"\n\nLog: {rows:,} rows, {min(N_USERS, max(rows // 40, 2)):,} users, "
            f"{min(N_ITEMS, max(rows // 100, 10)):,} items (`benchmarks/split.py`); test share "
            f"0.2, k = 1, 5 folds. One run each.\n")
    table = head + "\n" + "\n".join(lines) + "\n"
    print(table)
    if args.markdown is not None:
        args.markdown.write_text(f"# rv.split benchmark\n\n{table}", encoding="utf-8")


if __name__ == "__main__":
    main()
