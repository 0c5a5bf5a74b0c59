"""Ordered against shuffled rows, call by call in one process: the ratio with less noise.

``run.py`` measures each (rows, library) in a process of its own, one after the other, so on a
shared machine the two row orders can land in different stretches of its load: the same code
gave 1.17-1.49 for shuffled ÷ ordered at 100k users in eight runs of one morning. Here both
pairs of frames are loaded in one process and the calls alternate (ordered, shuffled, ordered,
...), so each shuffled call has an ordered call as its neighbour; the figure reported is the
median of the per-pair ratios, beside the medians of each order. It answers one question
(issue 10: "shuffled rows within 1.5x of receval's own ordered-input time") and is not a
replacement for ``run.py``, which compares libraries.

    python benchmarks/paired.py --size 100k --pairs 15 --out benchmarks/results/paired.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from anchors import RECEVAL_METRICS
from run import cpu_model, ensure_data, parse_size, shuffled_data, size_label

import receval as rv

ROOT = Path(__file__).resolve().parents[1]


def _call(recs: pd.DataFrame, truth: pd.DataFrame) -> tuple[float, float, Any]:
    """One ``evaluate`` call: wall seconds, CPU seconds of the process (all threads), result."""
    c0, t0 = time.process_time(), time.perf_counter()
    result = rv.evaluate(recs, truth, RECEVAL_METRICS)
    return time.perf_counter() - t0, time.process_time() - c0, result


def measure(data: dict[str, str], pairs: int, warm: int) -> dict[str, Any]:
    """Alternate ordered and shuffled calls; check that both give the same numbers."""
    shuffled = shuffled_data(data)
    frames = {
        "ordered": (pd.read_parquet(data["recs"]), pd.read_parquet(data["truth"])),
        "shuffled": (pd.read_parquet(shuffled["recs"]), pd.read_parquet(shuffled["truth"])),
    }
    results = {}
    for rows, (recs, truth) in frames.items():
        for _ in range(warm):
            _, _, results[rows] = _call(recs, truth)
    a, b = results["ordered"].to_dict(), results["shuffled"].to_dict()
    if a != b:
        raise SystemExit(f"ordered and shuffled rows disagree: {a} != {b}")
    samples: dict[str, list[tuple[float, float]]] = {"ordered": [], "shuffled": []}
    for _ in range(pairs):
        for rows, (recs, truth) in frames.items():
            wall, cpu, _ = _call(recs, truth)
            samples[rows].append((wall, cpu))
    return samples


def summary(samples: dict[str, list[tuple[float, float]]]) -> dict[str, float]:
    """Medians of each row order and of the per-pair ratios (wall and CPU)."""
    o, s = np.asarray(samples["ordered"]), np.asarray(samples["shuffled"])
    ratio = s / o
    return {
        "ordered_s": float(np.median(o[:, 0])), "shuffled_s": float(np.median(s[:, 0])),
        "ordered_cpu_s": float(np.median(o[:, 1])), "shuffled_cpu_s": float(np.median(s[:, 1])),
        "ratio_median": float(np.median(ratio[:, 0])),
        "ratio_q1": float(np.quantile(ratio[:, 0], 0.25)),
        "ratio_q3": float(np.quantile(ratio[:, 0], 0.75)),
        "ratio_max": float(ratio[:, 0].max()),
        "cpu_ratio_median": float(np.median(ratio[:, 1])),
        "pairs_within_1_5": int((ratio[:, 0] <= 1.5).sum()),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="100k", help="number of users (10k, 100k, 1M)")
    ap.add_argument("--pairs", type=int, default=15, help="ordered/shuffled call pairs")
    ap.add_argument("--warm", type=int, default=2, help="untimed calls of each order first")
    ap.add_argument("--gen", default=str(ROOT.parent / "shared" / "bench" / "gen.py"))
    ap.add_argument("--data-dir", default=str(ROOT / "benchmarks" / "data"))
    ap.add_argument("--out", help="write the samples and the summary as JSON")
    args = ap.parse_args(argv)
    users = parse_size(args.size)
    data = ensure_data(Path(args.gen), Path(args.data_dir), users)
    samples = measure(data, args.pairs, args.warm)
    stats = summary(samples)
    print(f"{size_label(users)} users, {args.pairs} pairs of calls, {RECEVAL_METRICS[0]} ... "
          f"({len(RECEVAL_METRICS)} metrics), {cpu_model()}, "
          f"{rv.__version__}, {time.strftime('%Y-%m-%d %H:%M')}")
    print(f"ordered {stats['ordered_s']:.3f} s (CPU {stats['ordered_cpu_s']:.2f} s), "
          f"shuffled {stats['shuffled_s']:.3f} s (CPU {stats['shuffled_cpu_s']:.2f} s)")
    print(f"shuffled ÷ ordered, per pair: median {stats['ratio_median']:.2f} "
          f"(quartiles {stats['ratio_q1']:.2f}-{stats['ratio_q3']:.2f}, max "
          f"{stats['ratio_max']:.2f}); CPU {stats['cpu_ratio_median']:.2f}; "
          f"{stats['pairs_within_1_5']} of {args.pairs} pairs within 1.5x")
    if args.out:
        payload = {"users": users, "pairs": args.pairs, "metrics": RECEVAL_METRICS,
                   "machine": {"cpu": cpu_model(), "python": platform.python_version(),
                               "receval": rv.__version__,
                               "date": time.strftime("%Y-%m-%dT%H:%M:%S%z")},
                   "loadavg_at_end": os.getloadavg(), "summary": stats, "samples": samples}
        Path(args.out).write_text(json.dumps(payload, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
