"""The Markdown table of a ``spark.py`` run (its JSON payload)."""

from __future__ import annotations

from typing import Any

from run import size_label

FLOOR_PREFIX = "Spark floor"

__all__ = ["markdown"]


def _check(rec: dict[str, Any], tolerance: float) -> str:
    a = rec.get("agreement")
    if a is None:
        return ""
    if rec["library"].startswith(FLOOR_PREFIX):
        return f"{a['rows']:,.0f} rows handed to Python" + ("" if a["agree"] else
                                                             f" (expected {a['expected']:,.0f})")
    if rec["library"] == "receval on Spark":
        if a.get("identical"):
            return f"identical to in process ({a['checked']} numbers)"
        return f"DIFFERS from in process (max {a['max_abs_diff']:.1e})"
    if a["agree"]:
        return f"agrees with receval ({a['checked']} numbers, max \\|diff\\| " \
               f"{a['max_abs_diff']:.1e})"
    return f"DIFFERS from receval on {len(a['differ'])} of {a['checked']} " \
           f"(max {a['max_abs_diff']:.1e} > {tolerance:.0e})"


def _ratio(rec: dict[str, Any], by_key: dict[tuple[int, str], dict[str, Any]]) -> str:
    if rec.get("status") != "ok":
        return ""
    users = rec["users"]
    if rec["library"] == "receval on Spark" or rec["library"].startswith(FLOOR_PREFIX):
        base = by_key.get((users, "receval in process"))
        if base and base.get("status") == "ok":
            return f"{rec['seconds'] / base['seconds']:.1f}× in-process wall " \
                   f"({rec['cpu_s'] / base['cpu_s']:.1f}× CPU)"
        return ""
    if rec["library"] == "receval in process":
        return ""
    ours = by_key.get((users, "receval on Spark"))
    if ours and ours.get("status") == "ok":
        return f"{rec['seconds'] / ours['seconds']:.2f}× receval on Spark's wall " \
               f"({rec['cpu_s'] / ours['cpu_s']:.2f}× its CPU)"
    return ""


def markdown(payload: dict[str, Any]) -> str:
    m = payload["machine"]
    lines = [
        f"Measured {m['date'][:10]} on {m['cpu']}, {m['cores']} cores, Spark {m['spark']} "
        f"{m['master']} (driver memory {m['driver_memory']}), Python {m['python']}; "
        f"1-minute load average {m['loadavg_start']:.1f} at the start, "
        f"{m['loadavg_end']:.1f} at the end.", "",
        "**The machine was shared**: other jobs (test suites, other benchmarks) ran on its 2 "
        "cores during these measurements, so wall times are noisy (the load average before "
        "and after each call is in the table). The CPU seconds of the whole process tree "
        "(driver, JVM, Python workers) move much less with outside load.", "",
        "Each row is one end-to-end call (reading the Parquet files included) after a warm-up "
        f"call of the same library on {size_label(1000)} users: in the same Spark session for "
        "the Spark rows, in a fresh process without Spark beside it for receval in process "
        "(its CPU seconds are that process's).", "",
        "| users | library | wall s | CPU s | load 1-min before → after | shuffle partitions "
        "| ratio | numbers |",
        "|---|---|---:|---:|---|---:|---|---|"]
    by_key = {(r["users"], r["library"]): r for r in payload["records"]
              if not r.get("warm_up")}
    for r in payload["records"]:
        if r.get("warm_up"):
            continue
        if r.get("status") != "ok":
            lines.append(f"| {size_label(r['users'])} | {r['library']} | | | "
                         f"{_load_cell(r)} | | {r['status']} | |")
            continue
        parts = r.get("shuffle_partitions") or ""
        lines.append(f"| {size_label(r['users'])} | {r['library']} | {_num(r['seconds'])} | "
                     f"{_num(r['cpu_s'])} | {_load_cell(r)} | {parts} | {_ratio(r, by_key)} | "
                     f"{_check(r, payload['tolerance'])} |")
    notes = [f"- {name} not installed" for name in payload.get("missing", [])]
    warm = [r for r in payload["records"] if r.get("warm_up")]
    if warm:
        tol = payload["tolerance"]
        notes.append("- warm-up on 1k users (wall s / check): " + "; ".join(
            f"{r['library']} {r.get('seconds', 0):.1f} s"
            + (f" ({_check(r, tol)})" if r.get("agreement") else "") for r in warm))
    notes += [f"- {name}: {text}" for name, text in payload["notes"].items()]
    notes.append("- receval's numbers for the anchors' definitions: `precision@k`, "
                 "`recall@k`, `hit_rate@k`, `mrr@k`, `ndcg(gain=binary)@k`, "
                 "`map(denominator=min_k_relevant)@k`, computed in process (untimed)")
    return "\n".join([*lines, "", "**Notes**", "", *notes])


def _load_cell(r: dict[str, Any]) -> str:
    if "load_before" not in r:
        return ""
    return f"{r['load_before']:.1f} → {r['load_after']:.1f}"


def _num(x: float) -> str:
    return f"{x:.2f}" if x < 10 else f"{x:.1f}" if x < 100 else f"{x:.0f}"
