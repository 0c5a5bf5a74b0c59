"""The worked example of docs/sampled.md: sampling reverses two models, corrections restore.

Two made-up models rank a catalog of N_ITEMS items for N_USERS users, each with one held-out
item (the positive):

* ``sharp`` puts the positive first for 30 % of the users and somewhere in the bottom
  60 % of the catalog for the others;
* ``broad`` puts it between ranks 15 and 40 for everyone.

On the full ranking ``sharp`` is far better at HR@10 and nDCG@10 (``broad`` never reaches the
top 10). Ranked among 99 sampled negatives, ``broad``'s positive lands in the sampled top 10
almost always, and the sampled metrics prefer it. The script evaluates both models exactly
(full ranking) and sampled, with every correction, and writes the table between the markers
of docs/sampled.md. Everything is seeded: ``python docs/make_sampled_example.py`` rewrites the
same numbers, and tests/test_sampled.py checks that the page is current.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

import receval as rv

N_ITEMS, N_USERS, M, SEED = 1000, 500, 99, 0
METRICS = ["hr@10", "ndcg@10"]
PAGE = Path(__file__).resolve().parent / "sampled.md"
START, END = "<!-- example:start -->", "<!-- example:end -->"


def true_ranks(model: str, rng: np.random.Generator) -> np.ndarray:
    """The rank of each user's positive in the model's full ranking."""
    if model == "sharp":
        far = rng.integers(int(0.4 * N_ITEMS), N_ITEMS + 1, size=N_USERS)
        return np.where(rng.random(N_USERS) < 0.3, 1, far)
    return rng.integers(15, 41, size=N_USERS)


def full_scores(ranks: np.ndarray, rng: np.random.Generator) -> pd.DataFrame:
    """Every (user, item) with a score; the positive (item 0) at its true rank."""
    parts = []
    for user, rank in enumerate(ranks):
        order = np.insert(rng.permutation(np.arange(1, N_ITEMS)), rank - 1, 0)
        parts.append(pd.DataFrame({"user_id": user, "item_id": order,
                                   "score": np.arange(N_ITEMS, 0, -1, dtype=float)}))
    return pd.concat(parts, ignore_index=True)


def results() -> dict[tuple[str, str], dict[str, float]]:
    """``{(metric label, evaluation): {model: value}}``: exact, then sampled per correction."""
    rng = np.random.default_rng(SEED)
    test = pd.DataFrame({"user_id": np.arange(N_USERS), "item_id": 0})
    cand = rv.sampled.negatives(test, n=M, items=range(N_ITEMS), seed=SEED)
    out: dict[tuple[str, str], dict[str, float]] = {}
    for model in ("sharp", "broad"):
        full = full_scores(true_ranks(model, rng), rng)
        # merge drops the record negatives() keeps in cand.attrs: say how they were drawn
        scored = cand.merge(full, on=["user_id", "item_id"], how="left")
        exact = rv.evaluate(full, test, METRICS)
        for label in exact:
            out.setdefault((label, "full ranking"), {})[model] = exact[label]
        for correction in rv.sampled.CORRECTIONS:
            ev = rv.sampled.evaluate(scored, test, METRICS, n_items=N_ITEMS,
                                     correction=correction, strategy="uniform")
            for label in ev:
                out.setdefault((label, f"sampled, {correction}"), {})[model] = ev[label]
    return out


def _number(value: float) -> str:
    return f"{value:.4f}" if abs(value) < 1e3 else f"{value:.3g}"


def render() -> str:
    """The Markdown table of the example: one row per (metric, evaluation)."""
    lines = ["| metric | evaluation | sharp | broad | ranks first |",
             "|---|---|---:|---:|---|"]
    for (label, how), values in sorted(results().items(), key=lambda kv: kv[0][0]):
        best = "sharp" if values["sharp"] > values["broad"] else "broad"
        lines.append(f"| {label} | {how} | {_number(values['sharp'])} | "
                     f"{_number(values['broad'])} | {best} |")
    return "\n".join(lines) + "\n"


def page_with(table: str, page: str, start: str = START, end: str = END) -> str:
    """The page with ``table`` between the markers ``start`` and ``end``."""
    head, rest = page.split(start, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{start}\n{table}{end}{tail}"


def main() -> int:
    """Write the table into docs/sampled.md."""
    PAGE.write_text(page_with(render(), PAGE.read_text(encoding="utf-8")), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
