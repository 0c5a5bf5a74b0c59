"""Write the example reports under docs/ (run: python docs/make_report.py).

The demo's sample data (``receval demo``: 600 users, 400 items, seed 7, each user's latest 20%
held out) and its two baselines, random and most popular, evaluated on the demo's ranking
metrics: ``example-report.html`` compares them (what ``cmp.report(...)`` writes: paired t
tests, Holm's correction, bootstrap intervals), ``example-report-<baseline>.html`` is each
one's evaluation report (what ``ev.report(...)`` writes). ``tests/test_report_example.py`` fails
when a page differs from what this script writes (figures' SVG markup and the receval version
aside, so that a new matplotlib or a release does not make the test fail).
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import receval as rv
from receval.report import comparison_report, evaluation_report

HERE = Path(__file__).resolve().parent
GENERATED = "by docs/make_report.py"
METRICS = ["precision@10", "recall@10", "ndcg@10", "map@10", "mrr@10", "hit_rate@10",
           "item_coverage@10", "user_coverage"]


def demo_runs(n_users: int = 600, n_items: int = 400, *, seed: int = 7, k: int = 10
              ) -> tuple[dict[str, pd.DataFrame], pd.DataFrame, pd.DataFrame]:
    """The demo's data and its two baselines: ``({name: recs}, test, train)``.

    Each user's latest 20% of ratings (at least one) is the test set; "most popular" ranks
    the items by their number of training ratings, "random" by seeded random scores; both
    recommend the top ``k`` items the user did not rate in training.
    """
    ratings = rv.datasets.sample_ratings(n_users, n_items, seed=seed)
    ordered = ratings.sort_values(["user_id", "timestamp"], kind="stable")
    position = ordered.groupby("user_id").cumcount()
    size = ordered.groupby("user_id")["item_id"].transform("size")
    held_out = position >= size - np.maximum(1, np.floor(size * 0.2)).astype(int)
    train = ordered[~held_out].reset_index(drop=True)
    test = ordered[held_out].reset_index(drop=True)
    users = np.sort(test["user_id"].unique())
    items = np.sort(train["item_id"].unique())
    counts = train["item_id"].value_counts().reindex(items).to_numpy(dtype=float)
    scores = {"random": np.random.default_rng(seed).random((len(users), len(items))),
              "most popular": np.tile(counts, (len(users), 1))}
    seen_u = np.searchsorted(users, train["user_id"].to_numpy())
    seen_i = np.searchsorted(items, train["item_id"].to_numpy())
    runs = {}
    for name, matrix in scores.items():
        matrix[seen_u, seen_i] = -np.inf  # every training user is a test user
        top = np.argsort(-matrix, axis=1, kind="stable")[:, :k]
        runs[name] = pd.DataFrame({"user_id": np.repeat(users, k),
                                   "item_id": items[top].ravel(),
                                   "score": np.take_along_axis(matrix, top, 1).ravel()})
    return runs, test, train


def pages() -> dict[str, str]:
    """File name -> HTML of every example report."""
    runs, test, train = demo_runs()
    out = {}
    for name, recs in runs.items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", rv.RecevalWarning)
            ev = rv.evaluate(recs, test, METRICS, relevance_threshold=4)
        file = f"example-report-{name.replace(' ', '-')}.html"
        out[file] = evaluation_report(
            ev, recs=recs, truth=test, train=train, max_k=20,
            title=f"receval demo: {name} baseline", generated=GENERATED,
            names={"recs": f"{name} baseline (top 10 unseen items per user)",
                   "truth": "demo test set (each user's latest 20% of ratings)",
                   "train": "demo training set (the other 80%)"},
            notes=sorted({str(w.message) for w in caught}))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rv.RecevalWarning)  # the same notes as above
        cmp = rv.compare(runs, test, [m for m in METRICS if "coverage" not in m],
                         relevance_threshold=4, test="t", correction="holm", seed=0)
    out["example-report.html"] = comparison_report(
        cmp, title="receval demo: random vs most popular", generated=GENERATED)
    return out


def main() -> None:
    """Write every page; print what was written."""
    for file, html in pages().items():
        (HERE / file).write_text(html, encoding="utf-8")
        print(f"wrote docs/{file} ({len(html.encode()) / 1e3:.0f} kB)", file=sys.stderr)


if __name__ == "__main__":
    main()
