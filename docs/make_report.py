"""Write the example reports under docs/ (run: python docs/make_report.py).

The demo's sample data (``receval demo``: 600 users, 400 items, seed 7, each user's latest 20%
held out) and its two baselines, random and most popular, evaluated on the demo's ranking
metrics; each page is what ``ev.report(...)`` writes. ``tests/test_report_example.py`` fails
when a page differs from what this script writes (figures' SVG markup and the receval version
aside, so that a new matplotlib or a release does not make the test fail).
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import receval as rv
from receval import _demo
from receval.report import evaluation_report

HERE = Path(__file__).resolve().parent
GENERATED = "by docs/make_report.py"
METRICS = ["precision@10", "recall@10", "ndcg@10", "map@10", "mrr@10", "hit_rate@10",
           "item_coverage@10", "user_coverage"]


def pages() -> dict[str, str]:
    """File name -> HTML of every example report."""
    ratings = _demo.sample_ratings(600, 400, seed=7)
    train, test = _demo.temporal_split(ratings, 0.2)
    users = test["user_id"].unique()
    runs = {"random": _demo.random_recommender(train, users, 10, seed=7),
            "most popular": _demo.popular_recommender(train, users, 10)}
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
    return out


def main() -> None:
    """Write every page; print what was written."""
    for file, html in pages().items():
        (HERE / file).write_text(html, encoding="utf-8")
        print(f"wrote docs/{file} ({len(html.encode()) / 1e3:.0f} kB)", file=sys.stderr)


if __name__ == "__main__":
    main()
