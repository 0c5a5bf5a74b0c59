#!/usr/bin/env python3
"""Where receval's memory goes: a step-by-step RSS trace of one ``rv.evaluate`` call.

Wraps the stages of the input layer and of the ranking step (the names in ``STAGES``; a
name that no longer exists is left out) and prints, for every call, the process's resident
memory (VmRSS) when it starts and ends, its peak (VmHWM, reset at every stage boundary, so
that each stretch of code is charged to the innermost stage running it), and the size of
every array it returns. Numba kernels allocate outside Python's allocator, so ``tracemalloc``
would miss their arrays; RSS sees everything.

Internal APIs: this reads receval's private modules and may need new names when they change.

Example: python benchmarks/memtrace.py benchmarks/data/u1000000 --rows shuffled
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import importlib
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from anchors import RECEVAL_METRICS  # noqa: E402

GB = 1024.0**3

#: (module, attribute) of the wrapped stages; ``Class.method`` for methods.
STAGES = [
    ("receval._engine", "recs_table"), ("receval._engine", "truth_table"),
    ("receval._engine", "prepare"),
    ("receval.data._build", "encode_ids"),
    ("receval._kernels.grouping", "group_rows"),
    ("receval._kernels.grouping", "match_in_groups"),
    ("receval.data._build", "_offsets"),
    ("receval.data._build", "_resolve_duplicates"),
    ("receval._engine", "_account"),
    ("receval._engine", "_run_ranking"),
    ("receval.data._build", "Interactions.ranked"),
    ("receval._kernels.grouping", "gather_relevance"),
    ("receval._kernels.grouping", "order_in_groups"),
    ("receval._kernels.grouping", "sort_groups_desc"),
    ("receval._kernels.ranking", "ranking_kernel"),
    ("receval._engine", "_ties_at_cutoffs"),
    ("receval._engine", "merge"),
]


def _status_kb(field: str) -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def _reset_hwm() -> None:
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")


class Trace:
    """Stage boundaries: each stretch between two is charged to the innermost open stage."""

    def __init__(self) -> None:
        self.stack: list[dict[str, Any]] = []
        self.rows: list[dict[str, Any]] = []
        self.t0 = time.perf_counter()

    def _close_stretch(self) -> int:
        peak = _status_kb("VmHWM")
        for frame in self.stack:
            frame["peak_kb"] = max(frame["peak_kb"], peak)
        _reset_hwm()
        return peak

    def enter(self, name: str) -> dict[str, Any]:
        self._close_stretch()
        rss = _status_kb("VmRSS")
        frame = {"name": name, "depth": len(self.stack), "rss0_kb": rss, "peak_kb": rss,
                 "t0": time.perf_counter()}
        self.stack.append(frame)
        self.rows.append(frame)
        return frame

    def leave(self, frame: dict[str, Any], result: Any) -> None:
        self._close_stretch()
        self.stack.pop()
        frame["rss1_kb"] = _status_kb("VmRSS")
        frame["seconds"] = time.perf_counter() - frame["t0"]
        frame["arrays"] = _arrays(result)


def _arrays(obj: Any, prefix: str = "") -> list[tuple[str, str, float]]:
    """(name, dtype, GB) of every numpy array in a result (tuples and dataclasses walked)."""
    if isinstance(obj, np.ndarray):
        return [(prefix or "out", str(obj.dtype), obj.nbytes / GB)]
    out: list[tuple[str, str, float]] = []
    if isinstance(obj, tuple | list):
        for i, x in enumerate(obj):
            out += _arrays(x, f"{prefix}[{i}]")
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            out += _arrays(getattr(obj, f.name), f"{prefix}.{f.name}" if prefix else f.name)
    return out


def install(trace: Trace) -> list[str]:
    """Wrap every stage that exists; return the names wrapped."""
    done = []
    for module_name, attr in STAGES:
        owner: Any = importlib.import_module(module_name)
        *path, name = attr.split(".")
        for p in path:
            owner = getattr(owner, p, None)
        fn = getattr(owner, name, None) if owner is not None else None
        if fn is None:
            continue

        def wrapped(*args: Any, __fn: Any = fn, __name: str = attr, **kwargs: Any) -> Any:
            frame = trace.enter(__name)
            result = __fn(*args, **kwargs)
            trace.leave(frame, result)
            return result

        functools.update_wrapper(wrapped, fn)
        setattr(owner, name, wrapped)
        done.append(f"{module_name}.{attr}")
    return done


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    ap.add_argument("data_dir", type=Path, help="a directory with recs.parquet, truth.parquet")
    ap.add_argument("--rows", choices=("ordered", "shuffled"), default="ordered")
    ap.add_argument("--warm", type=Path, default=None,
                    help="a small data directory to run once first (compiles/loads kernels)")
    args = ap.parse_args(argv)
    import pandas as pd

    import receval as rv

    suffix = "-shuffled" if args.rows == "shuffled" else ""
    if args.warm is not None:
        rv.evaluate(pd.read_parquet(args.warm / "recs.parquet"),
                    pd.read_parquet(args.warm / "truth.parquet"), RECEVAL_METRICS)
    recs = pd.read_parquet(args.data_dir / f"recs{suffix}.parquet")
    truth = pd.read_parquet(args.data_dir / f"truth{suffix}.parquet")
    frames = (recs.memory_usage(deep=True).sum() + truth.memory_usage(deep=True).sum()) / GB
    trace = Trace()
    wrapped = install(trace)
    rss0 = _status_kb("VmRSS")
    _reset_hwm()
    t = time.perf_counter()
    rv.evaluate(recs, truth, RECEVAL_METRICS)
    seconds = time.perf_counter() - t
    peak = max(_status_kb("VmHWM"), *(r["peak_kb"] for r in trace.rows))
    print(f"input frames (memory_usage(deep=True), recs + truth): {frames:.2f} GB "
          f"({len(recs):,} + {len(truth):,} rows)")
    print(f"rv.evaluate: {seconds:.1f} s; RSS before {rss0 / 2**20:.2f} GB, peak "
          f"{peak / 2**20:.2f} GB, peak increase {(peak - rss0) / 2**20:.2f} GB "
          f"= {(peak - rss0) / 2**20 / frames:.2f}x the input frames")
    print(f"wrapped: {len(wrapped)} stages\n")
    print(f"{'stage':<44} {'s':>6} {'RSS in':>7} {'peak':>7} {'RSS out':>7}  returned (GB)")
    for r in trace.rows:
        arrays = ", ".join(f"{n} {d} {g:.2f}" for n, d, g in r.get("arrays", []) if g >= 0.01)
        print(f"{'  ' * r['depth'] + r['name']:<44} {r.get('seconds', 0):6.2f} "
              f"{r['rss0_kb'] / 2**20:7.2f} {r['peak_kb'] / 2**20:7.2f} "
              f"{r.get('rss1_kb', 0) / 2**20:7.2f}  {arrays}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
