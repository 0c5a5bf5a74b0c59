#!/usr/bin/env python3
"""Benchmark receval against the anchor libraries on the reference workload.

Every measurement runs in a fresh Python subprocess (this script in worker mode), so that the
peak memory is the process's own and "cold" really starts with an empty numba cache:

  cold    a new process, NUMBA_CACHE_DIR a new empty directory: the first call compiles
  warm    a new process, NUMBA_CACHE_DIR filled by an earlier run: the first call loads
  repeat  further calls in one process after its first call

Example: python benchmarks/run.py --sizes 10k,100k --markdown --out results.json
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from anchors import ADAPTERS, ANCHORS, Adapter, version_of

HERE = Path(__file__).resolve().parent
DEFAULT_GEN = Path(__file__).resolve().parents[2] / "shared/bench/gen.py"
REGIMES = ("cold", "warm", "repeat")
ROWS = ("ordered", "shuffled")
TOLERANCE = 1e-9
FIELDS = ("build_s", "compute_s", "e2e_s", "peak_mb")
BOUNDS = ("receval[ndcg@10]", "lower-bound", "lower-bound[no-sort]", "lower-bound[counting]")


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# --- command line --------------------------------------------------------------------------------

def parse_size(text: str) -> int:
    text = text.strip().lower().replace("_", "")
    mult = {"k": 1_000, "m": 1_000_000}.get(text[-1:], 1)
    return int(float(text[:-1] if mult > 1 else text) * mult)


def size_label(n: int) -> str:
    if n >= 1_000_000 and n % 1_000_000 == 0:
        return f"{n // 1_000_000}M"
    if n >= 1_000 and n % 1_000 == 0:
        return f"{n // 1_000}k"
    return str(n)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gen", type=Path, default=DEFAULT_GEN,
                    help="the workload generator (default: %(default)s)")
    ap.add_argument("--sizes", default="10000,100000",
                    help="numbers of users, comma-separated; 10k / 1M accepted "
                         "(default: %(default)s; 1000000 on request)")
    ap.add_argument("--data-dir", type=Path, default=HERE / "data",
                    help="where the generated Parquet files live; existing ones are reused "
                         "(default: benchmarks/data/)")
    ap.add_argument("--rows", default="ordered,shuffled",
                    help="row orders to measure: 'ordered' (the generated files: grouped by "
                         "user, best score first) and/or 'shuffled' (the same rows, both "
                         "tables in a random order, seed 0) (default: %(default)s)")
    ap.add_argument("--repeat", type=int, default=3,
                    help="samples per regime, medians reported (default: %(default)s)")
    ap.add_argument("--anchors", default=None,
                    help=f"comma-separated anchors among {', '.join(ANCHORS)}, or 'none' "
                         f"(default: every installed one)")
    ap.add_argument("--bounds", default=",".join(BOUNDS),
                    help="the lower bounds and receval[ndcg@10] to measure beside receval, or "
                         "'none' (default: %(default)s)")
    ap.add_argument("--regimes", default=",".join(REGIMES),
                    help="regimes to measure (default: %(default)s)")
    ap.add_argument("--budget", type=float, default=30.0,
                    help="seconds per (size, library, regime) after which no further sample "
                         "is taken beyond the first (default: %(default)s)")
    ap.add_argument("--max-seconds", type=float, default=180.0,
                    help="skip an anchor at a size when measuring it there is estimated "
                         "(from the previous size) to take longer (default: %(default)s)")
    ap.add_argument("--max-mem-gb", type=float, default=15.0,
                    help="skip an anchor at a size when its process is estimated to need "
                         "more memory (default: %(default)s)")
    ap.add_argument("--timeout", type=float, default=1800.0,
                    help="seconds before a worker process is killed (default: %(default)s)")
    ap.add_argument("--out", type=Path, default=None, help="save all results as JSON")
    ap.add_argument("--markdown", action="store_true",
                    help="print a Markdown table with the machine and versions")
    ap.add_argument("--report", type=Path, default=None, metavar="FILE.json",
                    help="print the table of a saved --out file instead of measuring")
    ap.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker is None:
        args.size_list = [parse_size(s) for s in args.sizes.split(",") if s.strip()]
        args.regime_list = [r.strip() for r in args.regimes.split(",") if r.strip()]
        args.rows_list = [r.strip() for r in args.rows.split(",") if r.strip()]
        args.bound_list = [] if args.bounds.strip().lower() == "none" else \
            [b.strip() for b in args.bounds.split(",") if b.strip()]
        bad = [r for r in args.regime_list if r not in REGIMES]
        bad += [b for b in args.bound_list if b not in BOUNDS]
        bad += [r for r in args.rows_list if r not in ROWS]
        if bad or args.repeat < 1:
            ap.error(f"bad --regimes, --rows or --bounds {bad} or --repeat {args.repeat}")
    return args


def select_libraries(anchors: str | None, bounds: list[str] | None = None
                     ) -> tuple[list[Adapter], list[dict[str, str]]]:
    """receval, its nDCG@10-only run and the lower bounds, then the anchors that can run."""
    libs = [ADAPTERS[n] for n in ("receval", *BOUNDS) if n == "receval" or bounds is None
            or n in bounds]
    skipped = []
    if anchors is None:
        names = ANCHORS
    elif anchors.strip().lower() == "none":
        names = []
    else:
        names = [n.strip() for n in anchors.split(",") if n.strip()]
    for name in names:
        if name not in ADAPTERS or not ADAPTERS[name].is_anchor:
            raise SystemExit(f"unknown anchor {name!r}; known: {', '.join(ANCHORS)}")
        why = ADAPTERS[name].unavailable()
        if why:
            skipped.append({"library": name, "size": "all", "reason": why})
            log(f"skip {name}: {why}")
        else:
            libs.append(ADAPTERS[name])
    return libs, skipped


# --- data ----------------------------------------------------------------------------------------

def ensure_data(gen: Path, data_dir: Path, users: int) -> dict[str, str]:
    out = data_dir / f"u{users}"
    recs, truth = out / "recs.parquet", out / "truth.parquet"
    if not (recs.exists() and truth.exists()):
        if not gen.exists():
            raise SystemExit(f"generator not found: {gen} (use --gen)")
        log(f"generating {size_label(users)} users into {out} ...")
        subprocess.run([sys.executable, str(gen), "--users", str(users), "--out", str(out)],
                       check=True, stdout=sys.stderr)
    return {"recs": str(recs), "truth": str(truth)}


def shuffled_data(data: dict[str, str]) -> dict[str, str]:
    """The same rows in a random order (seed 0), written once next to the ordered files."""
    import numpy as np
    import pyarrow.parquet as pq

    out = {}
    for name, path in data.items():
        target = Path(path).with_name(f"{name}-shuffled.parquet")
        if not target.exists():
            table = pq.read_table(path)
            perm = np.random.default_rng(0).permutation(table.num_rows)
            pq.write_table(table.take(perm), target)
            log(f"wrote {target}")
        out[name] = str(target)
    return out


# --- workers -------------------------------------------------------------------------------------

class WorkerError(RuntimeError):
    pass


def run_worker(spec: dict[str, Any], cache_dir: Path, timeout: float) -> dict[str, Any]:
    cache_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="receval-bench-") as tmp:
        spec = {**spec, "out": str(Path(tmp) / "answer.json")}
        spec_path = Path(tmp) / "spec.json"
        spec_path.write_text(json.dumps(spec))
        # the kernels shipped in an installed wheel would make "cold" warm
        env = {**os.environ, "NUMBA_CACHE_DIR": str(cache_dir), "RECEVAL_SHIPPED_KERNELS": "0"}
        try:
            proc = subprocess.run(
                [sys.executable, str(Path(__file__).resolve()), "--worker", str(spec_path)],
                env=env, capture_output=True, text=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired as exc:
            raise WorkerError(f"timed out after {timeout:.0f} s") from exc
        answer = Path(spec["out"])
        if proc.returncode != 0 or not answer.exists():
            tail = "\n".join((proc.stderr or "").strip().splitlines()[-8:])
            raise WorkerError(f"worker exited with {proc.returncode}:\n{tail}")
        return json.loads(answer.read_text())


class Runner:
    def __init__(self, args: argparse.Namespace, cache_root: Path) -> None:
        self.args = args
        self.cache_root = cache_root
        self.n_cold = 0

    def fresh_cache(self) -> Path:
        self.n_cold += 1
        return self.cache_root / f"cold-{self.n_cold}"

    def warm_cache(self, lib: Adapter) -> Path:
        key = lib.cache_key or lib.name
        return self.cache_root / ("warm-" + "".join(c if c.isalnum() else "_" for c in key))

    def spec(self, lib: Adapter, data: dict[str, str], repeats: int) -> dict[str, Any]:
        return {"mode": "time", "library": lib.name, **data, "repeats": repeats,
                "budget_s": self.args.budget}

    def measure(self, lib: Adapter, users: int, data: dict[str, str]) -> dict[str, Any]:
        """Samples per regime for one library at one size."""
        args = self.args
        regimes = [r for r in lib.regimes if r in args.regime_list]
        if not lib.jit:
            regimes = [r for r in regimes if r != "warm"]  # no compile cache: warm = cold
        repeat_host = next((r for r in ("warm", "cold") if r in regimes), None)
        samples: dict[str, list[dict[str, float]]] = {r: [] for r in regimes}
        out: dict[str, Any] = {"samples": samples, "values": None, "extra": {}, "import_s": [],
                               "rss_mb": [], "frames_mb": None}
        warm = self.warm_cache(lib)

        def process(regime: str, cache: Path, n: int) -> dict[str, Any]:
            reps = args.repeat if ("repeat" in regimes and regime == repeat_host and n == 0) else 0
            ans = run_worker(self.spec(lib, data, reps), cache, args.timeout)
            f = ans["first"]
            log(f"  [{size_label(users)}] {lib.name:<20} {regime:<6} #{n + 1}: e2e "
                f"{f['e2e_s']:8.3f} s (build {f['build_s']:.3f}, compute {f['compute_s']:.3f})"
                f", peak +{f['peak_mb']:.0f} MB" + (f"; {len(ans['repeats'])} repeats, median "
                f"{statistics.median(r['e2e_s'] for r in ans['repeats']):.3f} s"
                if ans["repeats"] else ""))
            if out["values"] is None:
                out["values"] = ans["values"]
            out["import_s"].append(ans["import_s"])
            out["rss_mb"].append(ans["rss_after_load_mb"])
            out["frames_mb"] = ans.get("frames_mb")
            out["extra"].update(ans["extra"])
            if ans["repeats"]:
                samples["repeat"].extend(ans["repeats"])
            return ans

        def regime_loop(regime: str, cache_for: Any) -> None:
            spent = 0.0
            for n in range(args.repeat):
                if n and spent + samples[regime][-1]["e2e_s"] > args.budget:
                    break
                cache = cache_for(n)
                ans = process(regime, cache, n)
                samples[regime].append(ans["first"])
                spent += ans["first"]["e2e_s"]
                if regime == "cold" and lib.jit and not warm.exists():
                    shutil.copytree(cache, warm)  # "filled by a previous run"

        if "cold" in regimes:
            regime_loop("cold", lambda n: self.fresh_cache())
        if "warm" in regimes:
            if not warm.exists():
                log(f"  [{size_label(users)}] {lib.name}: filling the warm cache")
                run_worker(self.spec(lib, data, 0), warm, args.timeout)
            regime_loop("warm", lambda n: warm)
        if "repeat" in regimes and repeat_host is None:  # a process only for repeated calls
            ans = run_worker(self.spec(lib, data, args.repeat), warm, args.timeout)
            out["values"] = ans["values"]
            out["rss_mb"].append(ans["rss_after_load_mb"])
            out["frames_mb"] = ans.get("frames_mb")
            out["extra"].update(ans["extra"])
            samples["repeat"].extend(ans["repeats"])
            log(f"  [{size_label(users)}] {lib.name:<20} repeat: median "
                f"{statistics.median(r['e2e_s'] for r in ans['repeats']):.3f} s")
        return out

    def reference(self, data: dict[str, str], labels: dict[str, list[str]]) -> dict[str, Any]:
        spec = {"mode": "reference", **data, "labels": labels}
        return run_worker(spec, self.warm_cache(ADAPTERS["receval"]), self.args.timeout)


# --- estimates, summaries, agreement -------------------------------------------------------------

def too_big(lib: Adapter, prev: dict[str, Any] | None, users: int,
            args: argparse.Namespace) -> str | None:
    """Why an anchor should be skipped at this size, judging from its previous size.

    Time: one call is estimated as the median repeated call at the previous size times the
    size ratio, and measuring the anchor takes at least one call per regime. Memory: the
    process's RSS after loading the data plus its largest peak increase, times the ratio.
    """
    if not lib.is_anchor:
        return None
    if prev is None:
        if users > 100_000:
            return ("no smaller size measured to extrapolate from: put one before it in "
                    "--sizes (e.g. 100k,1M)")
        return None
    scale = users / prev["users"]
    samples = prev["samples"]
    calls = samples.get("repeat") or [x for rows in samples.values() for x in rows]
    if not calls:
        return None
    est_call = statistics.median(x["e2e_s"] for x in calls) * scale
    est_s = est_call * sum(1 for rows in samples.values() if rows)
    peaks = [x["peak_mb"] for r, rows in samples.items() if r != "repeat" for x in rows]
    est_gb = (prev["rss_mb"] + max(peaks, default=0.0)) * scale / 1024
    where = f"from {size_label(prev['users'])}"
    if est_s > args.max_seconds:
        return (f"estimated {est_s:.0f} s ({est_call:.0f} s a call) > --max-seconds "
                f"{args.max_seconds:.0f}, {where}")
    if est_gb > args.max_mem_gb:
        return f"estimated {est_gb:.1f} GB > --max-mem-gb {args.max_mem_gb:.0f}, {where}"
    return None


def summarise(users: int, lib: Adapter, measured: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for regime in REGIMES:
        got = measured["samples"].get(regime) or []
        if not got:
            continue
        row: dict[str, Any] = {"users": users, "library": lib.name, "regime": regime,
                               "n": len(got)}
        for f in FIELDS:
            row[f] = statistics.median(x[f] for x in got)
        cpu = [x["cpu_s"] for x in got if "cpu_s" in x]  # older files have none
        row["cpu_s"] = statistics.median(cpu) if cpu else None
        row["e2e_min_s"] = min(x["e2e_s"] for x in got)
        row["import_s"] = statistics.median(measured["import_s"]) if measured["import_s"] else None
        row["rss_after_load_mb"] = max(measured["rss_mb"], default=None)
        row["samples"] = got
        rows.append(row)
    return rows


def reference_labels(libs: list[Adapter]) -> dict[str, list[str]]:
    labels: dict[str, set[str]] = {"full": set(), "in_recs": set()}
    for lib in libs:
        for ref in lib.references().values():
            labels["in_recs" if ref.in_recs else "full"].add(ref.label)
    return {k: sorted(v) for k, v in labels.items()}


def agreement(lib: Adapter, values: dict[str, float], ref: dict[str, Any]) -> dict[str, Any]:
    diffs = {}
    checked = 0
    worst = 0.0
    for name, r in lib.references().items():
        if name not in values:
            continue
        expected = ref["in_recs" if r.in_recs else "full"][r.label]
        d = values[name] - expected
        checked += 1
        worst = max(worst, abs(d))
        if not abs(d) <= TOLERANCE:
            diffs[name] = {"value": values[name], "receval": expected, "receval_metric":
                           r.label + (" (truth cut to the recs)" if r.in_recs else ""),
                           "diff": d}
    # float32 libraries: every difference within single precision of the value
    f32 = bool(diffs) and all(abs(d["diff"]) <= 1e-6 * max(abs(d["receval"]), 1e-3)
                              for d in diffs.values())
    return {"checked": checked, "max_abs_diff": worst, "agree": not diffs,
            "float32_level": f32, "diffs": diffs}


# --- output --------------------------------------------------------------------------------------

def fmt_s(x: float | None) -> str:
    if x is None:
        return "—"
    if x < 1:
        return f"{x:.3f}"
    return f"{x:.2f}" if x < 100 else f"{x:.0f}"


def table_rows(results: list[dict[str, Any]]) -> list[list[str]]:
    base = {(r["users"], r.get("rows", "ordered"), r["regime"]): r["e2e_s"]
            for r in results if r["library"] == "receval"}
    rows = []
    for r in results:
        no_build = type(ADAPTERS[r["library"]]).build is Adapter.build
        ref = base.get((r["users"], r.get("rows", "ordered"), r["regime"]))
        ratio = "—" if ref is None or r["library"] == "receval" else f"{ref / r['e2e_s']:.3g}"
        # later calls in a process reuse the heap the first call left: no fair peak for them
        peak = "—" if r["regime"] == "repeat" else f"{r['peak_mb']:.0f}"
        rows.append([size_label(r["users"]), r.get("rows", "ordered"), r["library"],
                     r["regime"], str(r["n"]),
                     "—" if no_build else fmt_s(r["build_s"]), fmt_s(r["compute_s"]),
                     fmt_s(r["e2e_s"]), fmt_s(r.get("cpu_s")), peak, ratio])
    return rows


HEADERS = ["users", "rows", "library", "regime", "n", "build s", "compute s", "end-to-end s",
           "CPU s", "peak MB", "receval ÷ other"]


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def machine(libs: list[Adapter]) -> dict[str, Any]:
    dists = ["receval", "numpy", "pandas", "pyarrow", "numba"]
    for lib in libs:
        dists += [d for d in lib.distributions if d not in dists]
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count() or 0
    return {"date": dt.datetime.now().astimezone().isoformat(timespec="seconds"),
            "cpu": cpu_model(), "cores": os.cpu_count(), "usable_cores": usable,
            "python": platform.python_version(), "platform": platform.platform(),
            "loadavg_at_start": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
            "versions": {d: version_of(d) for d in dists}}


def lower_bound_lines(results: list[dict[str, Any]]) -> list[str]:
    e2e = {(r["users"], r.get("rows", "ordered"), r["library"], r["regime"]): r["e2e_s"]
           for r in results}
    lines = []
    for users, rows in sorted({(r["users"], r.get("rows", "ordered")) for r in results}):
        parts = [f"{name} ÷ {bound} = {e2e[(users, rows, name, 'repeat')] / e2e[key]:.2f}"
                 for bound in ("lower-bound", "lower-bound[no-sort]", "lower-bound[counting]")
                 if (key := (users, rows, bound, "repeat")) in e2e
                 for name in ("receval", "receval[ndcg@10]")
                 if (users, rows, name, "repeat") in e2e]
        ordered = e2e.get((users, "ordered", "receval", "repeat"))
        if rows == "shuffled" and ordered and (users, rows, "receval", "repeat") in e2e:
            parts.append(f"receval shuffled ÷ receval ordered = "
                         f"{e2e[(users, rows, 'receval', 'repeat')] / ordered:.2f}")
        if parts:
            lines.append(f"{size_label(users)}, {rows} rows (repeat, end to end): "
                         + "; ".join(parts))
    return lines


def frames_lines(payload: dict[str, Any]) -> list[str]:
    """The input frames' size next to receval's peak memory (first call in a process)."""
    lines = []
    for where, mb in sorted(payload.get("frames_mb", {}).items(), key=_where_key):
        users, _, rows = where.partition("/")
        peaks = [f"{r['regime']} +{r['peak_mb']:.0f} MB = {r['peak_mb'] / mb:.2f}× (whole "
                 f"process {r['rss_after_load_mb'] + r['peak_mb']:.0f} MB, data loaded)"
                 for r in payload["results"] if r["library"] == "receval"
                 and r["users"] == int(users) and r.get("rows", "ordered") == (rows or "ordered")
                 and r["regime"] != "repeat"]
        lines.append(f"{_where(where)}: input frames (pandas memory_usage(deep=True), recs + "
                     f"truth) = {mb:.0f} MB; receval's peak increase on its first call: "
                     + ("; ".join(peaks) if peaks else "not measured (repeat regime only)"))
    return lines


def _load(meta: dict[str, Any]) -> str:
    got = [meta.get(k) for k in ("loadavg_at_start", "loadavg_at_end")]
    return " → ".join(f"{v[0]:.1f}" for v in got if v) or "unknown"


def _where(key: str) -> str:
    """``"100000/shuffled"`` (or an older file's ``"100000"``) as ``100k, shuffled rows``."""
    users, _, rows = key.partition("/")
    return f"{size_label(int(users))}, {rows or 'ordered'} rows"


def _where_key(item: tuple[str, Any]) -> tuple[int, str]:
    users, _, rows = item[0].partition("/")
    return int(users), rows


def report(payload: dict[str, Any], markdown: bool) -> str:
    from tabulate import tabulate

    results = payload["results"]
    out = []
    meta = payload["machine"]
    if markdown:
        vers = " · ".join(f"{d} {v}" for d, v in meta["versions"].items() if v)
        out += [f"Measured {meta['date'][:10]} on {meta['cpu']}, {meta['cores']} cores "
                f"({meta['usable_cores']} usable), Python {meta['python']}, "
                f"{meta['platform']}; 1-minute load average {_load(meta)}.", "",
                f"Versions: {vers}.", "",
                f"Workload: `gen.py` defaults (100 recommendations per user, ~21 relevant "
                f"items per user graded 1-5); P, R, F1, HR, MRR, AP, nDCG at k = 5, 10, 20; "
                f"medians of n samples (--repeat {payload['args']['repeat']}, "
                f"--budget {payload['args']['budget']:.0f} s).", ""]
    out.append(tabulate(table_rows(results), headers=HEADERS,
                        tablefmt="pipe" if markdown else "simple", disable_numparse=True,
                        colalign=("right", "left", "left", "left", "right", "right",
                                  "right", "right", "right", "right", "right")))
    notes = []
    notes += lower_bound_lines(results)
    for users, extra in sorted(payload["internal"].items(), key=_where_key):
        if "internal_build_s" in extra:
            notes.append(f"{_where(users)}: receval's input stage alone "
                         f"(receval.data.prepare: validate, encode ids, group, join; part of "
                         f"its compute) = {fmt_s(extra['internal_build_s'])} s")
    notes += frames_lines(payload)
    for users, by_lib in sorted(payload["agreement"].items(), key=_where_key):
        for name, a in by_lib.items():
            if a["agree"]:
                notes.append(f"{_where(users)} {name}: agree ({a['checked']} metric "
                             f"mean{'s' * (a['checked'] != 1)}, max |diff| "
                             f"{a['max_abs_diff']:.1e})")
            elif a["float32_level"]:
                notes.append(f"{_where(users)} {name}: differs by more than "
                             f"{TOLERANCE:.0e} on {len(a['diffs'])} of {a['checked']} metric "
                             f"means, all within float32 precision (max |diff| "
                             f"{a['max_abs_diff']:.1e})")
            else:
                notes.append(f"{_where(users)} {name}: DIFFER on "
                             f"{len(a['diffs'])} of {a['checked']} (max |diff| "
                             f"{a['max_abs_diff']:.1e}): " + ", ".join(
                                 f"{m} {d['value']:.10g} vs {d['receval_metric']} "
                                 f"{d['receval']:.10g}" for m, d in a["diffs"].items()))
    for s in payload["skipped"]:
        notes.append(f"skipped {s['library']} at {s['size']}: {s['reason']}")
    notes += [f"{n}: {ADAPTERS[n].note}" for n in payload["libraries"] if ADAPTERS[n].note]
    bullet = "- " if markdown else "  "
    out += ["", "Notes:" if not markdown else "**Notes**", ""] + [bullet + n for n in notes]
    return "\n".join(out)


# --- main ----------------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.worker is not None:
        import worker

        return worker.main(args.worker)
    if args.report is not None:
        payload = json.loads(args.report.read_text())
        print(report(payload, args.markdown))
        return 0
    t_start = time.perf_counter()
    libs, skipped = select_libraries(args.anchors, args.bound_list)
    payload: dict[str, Any] = {
        "machine": machine(libs), "libraries": [lib.name for lib in libs],
        "args": {"sizes": args.size_list, "rows": args.rows_list, "repeat": args.repeat,
                 "budget": args.budget,
                 "regimes": args.regime_list, "max_seconds": args.max_seconds,
                 "max_mem_gb": args.max_mem_gb},
        "results": [], "agreement": {}, "internal": {}, "skipped": skipped, "failures": []}
    previous: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="receval-bench-numba-") as cache_root:
        runner = Runner(args, Path(cache_root))
        for users, rows in ((u, r) for u in args.size_list for r in args.rows_list):
            data = ensure_data(args.gen, args.data_dir, users)
            if rows == "shuffled":
                data = shuffled_data(data)
            where = f"{size_label(users)}/{rows}"
            log(f"== {size_label(users)} users, {rows} rows")
            done: list[tuple[Adapter, dict[str, Any]]] = []
            for lib in libs:
                if rows not in lib.rows:
                    continue
                why = too_big(lib, previous.get(f"{lib.name}/{rows}"), users, args)
                if why:
                    skipped.append({"library": lib.name, "size": where, "reason": why})
                    log(f"  [{size_label(users)}] skip {lib.name}: {why}")
                    continue
                try:
                    measured = runner.measure(lib, users, data)
                except WorkerError as exc:
                    payload["failures"].append({"library": lib.name, "users": users,
                                                "error": str(exc)})
                    skipped.append({"library": lib.name, "size": where,
                                    "reason": f"failed: {str(exc).splitlines()[0]}"})
                    log(f"  [{size_label(users)}] {lib.name} FAILED: {exc}")
                    continue
                previous[f"{lib.name}/{rows}"] = {
                    "users": users, "samples": measured["samples"],
                    "rss_mb": max(measured["rss_mb"], default=0.0)}
                payload["results"] += [{**r, "rows": rows}
                                       for r in summarise(users, lib, measured)]
                if measured["extra"]:
                    payload["internal"][f"{users}/{rows}"] = measured["extra"]
                if lib.name == "receval" and measured["frames_mb"]:
                    payload.setdefault("frames_mb", {})[f"{users}/{rows}"] = \
                        measured["frames_mb"]
                done.append((lib, measured))
            checked = [(lib, m) for lib, m in done if lib.name != "receval" and m["values"]]
            if checked:
                ref = runner.reference(data, reference_labels([lib for lib, _ in checked]))
                payload["agreement"][f"{users}/{rows}"] = {
                    lib.name: agreement(lib, m["values"], ref) for lib, m in checked}
    payload["wall_s"] = time.perf_counter() - t_start
    if hasattr(os, "getloadavg"):
        payload["machine"]["loadavg_at_end"] = list(os.getloadavg())
    text = report(payload, args.markdown)
    print(text)
    print(f"\n(total wall time {payload['wall_s']:.0f} s)")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(payload, indent=1))
        log(f"saved {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
