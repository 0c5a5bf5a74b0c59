"""What runs in the fresh subprocess: load the data, time calls, measure peak memory.

``run.py --worker SPEC.json`` calls :func:`main`; the spec names the mode (``time`` or
``reference``), the library, the data files and where to write the JSON answer.
"""

from __future__ import annotations

import gc
import json
import resource
import statistics
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import pandas as pd

_KB = 1024.0


def _status_kb(field: str) -> float | None:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return float(line.split()[1])
    except OSError:
        pass
    return None


def _reset_peak() -> bool:
    """Reset the kernel's peak-RSS mark (VmHWM) to the current RSS (Linux >= 4.0)."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


class PeakMeter:
    """Peak RSS increase over a block, in MB."""

    def __enter__(self) -> PeakMeter:
        self.resettable = _reset_peak()
        self.start_kb = _status_kb("VmRSS") if self.resettable else None
        if self.start_kb is None:  # fall back to ru_maxrss (kB on Linux; not resettable)
            self.start_kb = float(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
        return self

    def __exit__(self, *exc: object) -> None:
        peak = _status_kb("VmHWM") if self.resettable else None
        if peak is None:
            peak = float(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
        self.mb = max(0.0, peak - self.start_kb) / _KB


def load(spec: dict[str, Any]) -> tuple[pd.DataFrame, pd.DataFrame]:
    return pd.read_parquet(spec["recs"]), pd.read_parquet(spec["truth"])


def timed_call(adapter: Any, recs: pd.DataFrame, truth: pd.DataFrame
               ) -> tuple[dict[str, float], dict[str, float]]:
    gc.collect()
    with PeakMeter() as meter:
        cpu0 = time.process_time()
        t0 = time.perf_counter()
        inputs = adapter.build(recs, truth)
        t1 = time.perf_counter()
        values = adapter.compute(inputs)
        t2 = time.perf_counter()
        cpu = time.process_time() - cpu0
        del inputs
    sample = {"build_s": t1 - t0, "compute_s": t2 - t1, "e2e_s": t2 - t0, "cpu_s": cpu,
              "peak_mb": meter.mb}
    return sample, values


def run_timing(spec: dict[str, Any]) -> dict[str, Any]:
    from anchors import ADAPTERS

    adapter = ADAPTERS[spec["library"]]
    t = time.perf_counter()
    recs, truth = load(spec)
    load_s = time.perf_counter() - t
    t = time.perf_counter()
    adapter.setup()
    import_s = time.perf_counter() - t
    gc.collect()
    rss_mb = (_status_kb("VmRSS") or 0.0) / _KB
    frames_mb = float(recs.memory_usage(deep=True).sum()
                      + truth.memory_usage(deep=True).sum()) / _KB / _KB

    first, values = timed_call(adapter, recs, truth)
    repeats: list[dict[str, float]] = []
    spent = 0.0
    while len(repeats) < spec["repeats"]:
        last = repeats[-1]["e2e_s"] if repeats else first["e2e_s"]
        if repeats and spent + last > spec["budget_s"]:
            break
        sample, _ = timed_call(adapter, recs, truth)
        repeats.append(sample)
        spent += sample["e2e_s"]

    extra: dict[str, float] = {}
    if repeats and adapter.times_internal_build:
        times = []
        try:
            for _ in range(min(3, len(repeats))):
                t = time.perf_counter()
                adapter.internal_build(recs, truth)
                times.append(time.perf_counter() - t)
            extra["internal_build_s"] = statistics.median(times)
        except Exception as exc:  # an internal API: report, do not fail the run
            extra["internal_build_error"] = f"{type(exc).__name__}: {exc}"
    return {"library": adapter.name, "load_s": load_s, "import_s": import_s,
            "rss_after_load_mb": rss_mb, "frames_mb": frames_mb, "first": first, "repeats": repeats,
            "values": values, "extra": extra}


def run_reference(spec: dict[str, Any]) -> dict[str, Any]:
    """receval on every definition the anchors need (untimed), for the agreement check."""
    import receval as rv

    recs, truth = load(spec)
    out: dict[str, dict[str, float]] = {"full": {}, "in_recs": {}}
    full = sorted(set(spec["labels"]["full"]))
    if full:
        ev = rv.evaluate(recs, truth, full)
        out["full"] = {m: float(ev[m]) for m in full}
    in_recs = sorted(set(spec["labels"]["in_recs"]))
    if in_recs:
        cut = recs[["user", "item"]].merge(truth, on=["user", "item"], how="left")
        cut["rating"] = cut["rating"].fillna(0.0)
        ev = rv.evaluate(recs, cut, in_recs, no_relevant="zero")
        out["in_recs"] = {m: float(ev[m]) for m in in_recs}
    return out


def main(spec_path: str) -> int:
    warnings.simplefilter("ignore")
    spec = json.loads(Path(spec_path).read_text())
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    answer = run_reference(spec) if spec["mode"] == "reference" else run_timing(spec)
    Path(spec["out"]).write_text(json.dumps(answer))
    return 0
