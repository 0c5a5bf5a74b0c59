"""Time a 5-fold cross-validation of MostPopular on a 1M-row log, receval vs LensKit.

The job: deal the rows of a synthetic log into 5 folds at random; for each fold fit a
popularity model on the 4 training parts, recommend the 10 most popular unseen items to every
test user, and compute nDCG@10, precision@10 and recall@10 against the test part.

- receval: ``rv.split.kfold`` + ``rv.cross_validate({"pop": rv.models.MostPopular()}, ...)``
- LensKit (anchor, when importable): ``crossfold_records`` + ``topn_pipeline(PopScorer())``
  + ``batch.recommend`` + ``RunAnalysis(NDCG, Precision, Recall)``. LensKit 2025 needs
  pandas 2, so it runs in another interpreter (``--lenskit-python``, default: this one).

Usage::

    python benchmarks/cv.py [--rows 1000000] [--repeat 3] [--markdown] \
        [--lenskit-python /work/venv-models/bin/python]

The log of n rows: n/50 users (uniform), n/200 items drawn with Zipf-like popularity
(p_i ~ 1/i^0.9), duplicate (user, item) pairs dropped, ratings 1-5, timestamps. LensKit's
batch recommendation runs the pipeline once per user (about 12 ms each here, with
``n_jobs=1``, which is 6 times faster on this 2-core machine than its default worker pool),
so it is measured at ``--lenskit-rows`` (default 100 000) only; receval at every size of
``--rows``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

N_FOLDS, K = 5, 10


def make_log(rows: int, seed: int = 0) -> pd.DataFrame:
    """About ``rows`` distinct (user, item) rows with a long-tailed item popularity."""
    rng = np.random.default_rng(seed)
    n_users, n_items = max(rows // 50, 10), max(rows // 200, 10)
    p = 1.0 / np.arange(1, n_items + 1) ** 0.9
    log = pd.DataFrame({"user_id": np.empty(0, np.int64), "item_id": np.empty(0, np.int64)})
    while len(log) < rows:  # a few rounds: popular pairs repeat and are dropped
        more = pd.DataFrame({"user_id": rng.integers(0, n_users, rows),
                             "item_id": rng.choice(n_items, rows, p=p / p.sum())})
        log = pd.concat([log, more], ignore_index=True).drop_duplicates(ignore_index=True)
    log = log.iloc[:rows]
    return log.assign(rating=rng.integers(1, 6, len(log)).astype(np.float64),
                      timestamp=rng.integers(1_600_000_000, 1_700_000_000, len(log)))


def time_receval(log: pd.DataFrame) -> dict[str, object]:
    import receval as rv

    started = time.perf_counter()
    folds = rv.split.kfold(log, n_splits=N_FOLDS, by="rows", seed=0)
    split_s = time.perf_counter() - started
    cv = rv.cross_validate({"pop": rv.models.MostPopular()}, log,
                           [f"ndcg@{K}", f"precision@{K}", f"recall@{K}"], split=folds, k=K,
                           progress=False)
    total = time.perf_counter() - started
    stages = cv.timings.sum().to_dict()
    lenskit = rv.cross_validate({"pop": rv.models.MostPopular()}, log,
                                [f"ndcg@{K}", f"precision@{K}", f"recall@{K}"], split=folds,
                                k=K, progress=False, convention="lenskit")
    return {"total": total, "split": split_s, **stages,
            "values": cv.summary().xs("mean", axis=1, level=1).loc["pop"].to_dict(),
            "lenskit_values": lenskit.summary().xs("mean", axis=1, level=1).loc["pop"]
            .to_dict()}


LENSKIT = r"""
import json, sys, time
import pandas as pd
from lenskit.basic import PopScorer
from lenskit.batch import recommend
from lenskit.data import from_interactions_df
from lenskit.metrics import NDCG, Precision, Recall, RunAnalysis
from lenskit.pipeline import topn_pipeline
from lenskit.splitting import crossfold_records

log = pd.read_parquet(sys.argv[1])
started = time.perf_counter()
data = from_interactions_df(log, user_col="user_id", item_col="item_id", rating_col="rating")
values = []
for split in crossfold_records(data, 5, rng=0):
    pipe = topn_pipeline(PopScorer(), n=10)
    pipe.train(split.train)
    recs = recommend(pipe, list(split.test.keys()), n=10, n_jobs=1)
    ra = RunAnalysis(NDCG(10), Precision(10), Recall(10))
    values.append(ra.measure(recs, split.test).list_summary()["mean"].to_dict())
total = time.perf_counter() - started
import lenskit
print(json.dumps({"total": total, "version": lenskit.__version__,
                  "values": pd.DataFrame(values).mean().to_dict()}))
"""


def time_lenskit(log: pd.DataFrame, python: str) -> dict[str, object] | None:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "log.parquet")
        log.to_parquet(path)
        done = subprocess.run([python, "-c", LENSKIT, path], capture_output=True, text=True,
                              check=False)
    if done.returncode != 0:
        print(f"LensKit not measured: {done.stderr.strip().splitlines()[-1:]}",
              file=sys.stderr)
        return None
    out: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default="100000,1000000",
                        help="comma-separated log sizes for receval")
    parser.add_argument("--lenskit-rows", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--lenskit-python", default=sys.executable)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    sizes = [int(float(x)) for x in args.rows.split(",")]
    time_receval(make_log(20_000))  # warm up: numba kernels compiled or loaded from cache
    lines = [
        "# 5-fold cross-validation of MostPopular",
        "",
        f"{time.strftime('%Y-%m-%d')}, {platform.machine()}, {os.cpu_count()} cores (shared "
        f"with other jobs), Python {platform.python_version()}; median of {args.repeat} "
        f"receval runs, end to end from a pandas DataFrame (5 folds by rows, fit, top-{K} "
        f"of the unseen items, nDCG/precision/recall@{K} means over folds).",
        "",
        "| rows | library | seconds | ratio | nDCG@10 | P@10 | R@10 |",
        "|---:|---|---:|---:|---:|---:|---:|",
    ]
    for rows in sizes:
        log = make_log(rows)
        print(f"log: {len(log)} rows, {log.user_id.nunique()} users, "
              f"{log.item_id.nunique()} items", file=sys.stderr)
        ours = [time_receval(log) for _ in range(args.repeat)]
        med = statistics.median(float(r["total"]) for r in ours)  # type: ignore[arg-type]
        lines.append(_row(rows, f"receval {_version()}", med, 1.0, ours[0]["values"]))
        lines.append(_row(rows, "receval, convention='lenskit'", float("nan"), float("nan"),
                          ours[0]["lenskit_values"]))
        if rows <= args.lenskit_rows:
            theirs = time_lenskit(log, args.lenskit_python)
            if theirs is not None:
                secs = float(theirs["total"])  # type: ignore[arg-type]
                lines.append(_row(rows, f"LensKit {theirs['version']} (1 run)", secs,
                                  secs / med, theirs["values"]))
        stages = {k: statistics.median(float(r[k]) for r in ours)  # type: ignore[arg-type]
                  for k in ("split", "fit", "recommend", "evaluate")}
        lines.append("|  | receval stages (s, all folds) | "
                     + ", ".join(f"{k} {v:.2f}" for k, v in stages.items()) + " | | | | |")
    lines += ["", "The folds differ between the libraries (each deals the rows with its own "
              "generator), so their values agree up to fold-to-fold noise; receval's values "
              "under `convention='lenskit'` (LensKit's nDCG and recall definitions) are shown "
              "next to LensKit's. Equal popularity counts are ordered by ascending item id in "
              "receval."]
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        out = Path(__file__).parent / "results" / "cv.md"
        out.write_text(text + "\n")
        print(f"written to {out}", file=sys.stderr)


def _row(rows: int, name: str, secs: float, ratio: float, vals: object) -> str:
    v = list(vals.values())  # type: ignore[attr-defined]
    cells = "" if np.isnan(secs) else f"{secs:.2f}"
    times = "" if np.isnan(ratio) else f"{ratio:.1f}x"
    return (f"| {rows:,} | {name} | {cells} | {times} | {v[0]:.4f} | {v[1]:.4f} | "
            f"{v[2]:.4f} |")


def _version() -> str:
    import receval

    return str(receval.__version__)


if __name__ == "__main__":
    main()
