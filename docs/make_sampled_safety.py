"""When is a sampled-metric correction safe? A seeded simulation at MovieLens's size.

The setting of the report in issue 22: n = 9,066 items, m = 99 uniform negatives per list,
671 lists (ml-latest-small's users, one held-out item each). Two made-up models place their
positive at a true rank ``r = ceil(n U^a)`` (``U`` uniform): ``better`` with ``a = 2.96``
(full HR@10 = 0.10) and ``worse`` with ``a = 2.56`` (0.07). Each run draws every list's true
rank and then its sampled rank ``r' - 1 ~ Binomial(m, (r - 1) / (n - 1))`` (uniform
negatives), and reads each list's value in the correction's table ``T[r']``, which is what
``rv.sampled.evaluate`` does for a list without tied scores; the tables are receval's own,
taken from ``rv.sampled.evaluate`` (and one run is checked against a full call).

For each correction, metric and number of lists the script reports, over RUNS runs: the
mean of the corrected means against the full metric (bias), their spread across runs (the
true standard error) against the mean of the reported ``standard_error``, the share of runs
whose mean leaves [0, 1] and the share whose two models come in the wrong order. It writes
the table between the markers of docs/sampled.md: ``python docs/make_sampled_safety.py``
(seeded, about half a minute); tests/test_sampled.py checks that the page is current.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import receval as rv
from receval.exceptions import SampledCorrectionWarning

N_ITEMS, M, RUNS, SEED = 9066, 99, 200, 0
LISTS = (671, 6040, 60_000)
MODELS = {"better": 2.96, "worse": 2.56}
METRICS = ["hr@10", "ndcg@10"]
PAGE = Path(__file__).resolve().parent / "sampled.md"
START, END = "<!-- safety:start -->", "<!-- safety:end -->"


def tables() -> tuple[dict[str, dict[str, np.ndarray]], dict[str, np.ndarray]]:
    """``T[r' - 1]`` per correction and metric label, and ``M(r)`` for ``r = 1..n``."""
    scored = pd.DataFrame({"user_id": 0, "item_id": np.arange(M + 1),
                           "score": np.arange(M + 1, 0, -1, dtype=float)})
    test = pd.DataFrame({"user_id": [0], "item_id": [0]})
    out = {}
    for correction in rv.sampled.CORRECTIONS:
        if correction == "none":
            continue
        ev = rv.sampled.evaluate(scored, test, METRICS, n_items=N_ITEMS,
                                 correction=correction, strategy="uniform")
        out[correction] = {label: np.asarray(t[M]) for label, t in
                           ev.settings["sampled"]["tables"].items()}
    ranks = np.arange(1, N_ITEMS + 1, dtype=float)
    full = {"HitRate@10": (ranks <= 10).astype(float),
            "NDCG@10": np.where(ranks <= 10, 1.0 / np.log2(ranks + 1.0), 0.0)}
    out["none"] = {label: values[: M + 1] for label, values in full.items()}  # M(r')
    return out, full


def true_ranks(a: float, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` true ranks ``ceil(n U^a)`` of a model's positives."""
    return np.maximum(1, np.ceil(N_ITEMS * rng.random(size) ** a)).astype(np.int64)


def sampled_ranks(r: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``r' = 1 + Binomial(m, (r - 1) / (n - 1))``: uniform negatives outranking the positive."""
    return 1 + rng.binomial(M, (r - 1) / (N_ITEMS - 1))


def check_one_run(tabs: dict[str, dict[str, np.ndarray]], rng: np.random.Generator) -> None:
    """One run of 671 lists through rv.sampled.evaluate equals the table lookup."""
    r_prime = sampled_ranks(true_ranks(MODELS["better"], LISTS[0], rng), rng)
    lists = np.repeat(np.arange(LISTS[0]), M + 1)
    place = np.tile(np.arange(M + 1), LISTS[0])  # the positive is item 0, at place r' - 1
    items = np.where(place == np.repeat(r_prime - 1, M + 1), 0,
                     1 + place - (place > np.repeat(r_prime - 1, M + 1)))
    scored = pd.DataFrame({"user_id": lists, "item_id": items,
                           "score": (M + 1 - place).astype(float)})
    test = pd.DataFrame({"user_id": np.arange(LISTS[0]), "item_id": 0})
    for correction, by_label in tabs.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SampledCorrectionWarning)
            ev = rv.sampled.evaluate(scored, test, METRICS, n_items=N_ITEMS,
                                     correction=correction, strategy="uniform")
        for label, table in by_label.items():
            lookup = table[r_prime - 1]
            assert np.allclose(ev.per_user[label].to_numpy(), lookup, atol=1e-12), correction
            se = ev.settings["sampled"]["standard_error"][label]
            assert np.isclose(se, lookup.std(ddof=1) / np.sqrt(len(lookup))), correction


def simulate() -> list[dict[str, Any]]:
    """One row per (metric, correction, lists): bias, spread, reported SE, failures."""
    rng = np.random.default_rng(SEED)
    tabs, full = tables()
    check_one_run(tabs, rng)
    p = {name: np.diff(np.concatenate([[0.0], (np.arange(1, N_ITEMS + 1) / N_ITEMS)
                                       ** (1.0 / a)])) for name, a in MODELS.items()}
    exact = {(name, label): float(p[name] @ values) for name in MODELS
             for label, values in full.items()}
    rows = []
    for n_lists in LISTS:
        means: dict[tuple[str, str, str], np.ndarray] = {}
        ses: dict[tuple[str, str, str], np.ndarray] = {}
        for name, a in MODELS.items():
            r_prime = np.stack([sampled_ranks(true_ranks(a, n_lists, rng), rng)
                                for _ in range(RUNS)])
            for correction, by_label in tabs.items():
                for label, table in by_label.items():
                    v = table[r_prime - 1]
                    means[name, correction, label] = v.mean(axis=1)
                    ses[name, correction, label] = v.std(axis=1, ddof=1) / np.sqrt(n_lists)
        for label in full:
            for correction in tabs:
                b = means["better", correction, label]
                w = means["worse", correction, label]
                rows.append({
                    "metric": label, "correction": correction, "lists": n_lists,
                    "exact": exact["better", label],
                    "mean": float(b.mean()),
                    "spread": float(b.std(ddof=1)),
                    "reported_se": float(ses["better", correction, label].mean()),
                    "outside": float(np.mean((b < 0) | (b > 1) | (w < 0) | (w > 1))),
                    "reversed": float(np.mean(b <= w)),
                })
    return rows


def render(rows: list[dict[str, Any]] | None = None) -> str:
    """The Markdown table: one row per (metric, lists, correction)."""
    rows = simulate() if rows is None else rows
    lines = [f"| metric (full value of `better`) | lists | correction | mean over {RUNS} runs "
             "| spread across runs | mean reported SE | runs outside [0, 1] "
             "| runs in the wrong order |",
             "|---|---:|---|---:|---:|---:|---:|---:|"]
    lines.extend(
        f"| {row['metric']} ({row['exact']:.4f}) | {row['lists']:,} | {row['correction']} "
        f"| {row['mean']:.4f} | {row['spread']:.4f} | {row['reported_se']:.4f} "
        f"| {100 * row['outside']:.1f} % | {100 * row['reversed']:.1f} % |"
        for row in sorted(rows, key=lambda x: (x["metric"], x["lists"])))
    return "\n".join(lines) + "\n"


def page_with(table: str, page: str) -> str:
    """The page with ``table`` between this script's markers."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from make_sampled_example import page_with as between

    return str(between(table, page, START, END))


def main() -> int:
    """Write the table into docs/sampled.md."""
    PAGE.write_text(page_with(render(), PAGE.read_text(encoding="utf-8")), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
