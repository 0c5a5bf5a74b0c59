"""Time a 5-fold cross-validation of Surprise SVD and KNNBasic: receval vs Surprise's own.

The job (issue 24): on 100 000 ratings of MovieLens-100k's shape (943 users x 1682 items,
synthetic), 5 folds dealt by rows; for each model and fold, fit on the training part and

- receval: ``rv.cross_validate({name: rv.models.Surprise(algo)}, data, ["ndcg@10", "rmse"],
  split=folds, k=10, exclude_seen=True)``: every test user's top 10 of all unseen items
  (1682 minus the user's training items) and the test rows' predictions;
- Surprise: ``surprise.model_selection.cross_validate(algo, data, ["rmse"], cv=<the same
  folds>)``: the test rows' predictions only (no ranking).

Also the ``recommend`` of one fitted model for the 943 users, top 10 of the unseen items:
vectorised (this version), the per-pair slow path (``vectorised=False``) and, with
``--before-src``, the code before (a ``src`` tree, e.g. ``git archive main src``) in a
separate process.

Usage::

    python benchmarks/cv_models.py [--repeat 3] [--before-src /tmp/main/src] [--markdown]

The data: item popularity Zipf-like (p_j ~ j^-0.9 over popularity ranks), each user's number
of ratings ~ 20 + a geometric share of the rest (mean 106), ratings
``clip(round(3.5 + b_u + q_j + e), 1, 5)`` with ``b_u ~ N(0, .5^2)``, ``q_j ~ N(0, .7^2)``,
``e ~ N(0, .9^2)``; exactly 100 000 distinct (user, item) pairs.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

N_USERS, N_ITEMS, N_RATINGS, N_FOLDS, K = 943, 1682, 100_000, 5, 10


def make_ratings(seed: int = 0) -> pd.DataFrame:
    """100 000 distinct (user, item, rating) rows, 943 users x 1682 items."""
    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, N_ITEMS + 1) ** 0.9
    p = p[rng.permutation(N_ITEMS)]
    sizes = 20 + rng.geometric(1 / 87, N_USERS)
    sizes = np.minimum(np.ceil(sizes * (N_RATINGS / sizes.sum())).astype(int), N_ITEMS // 2)
    sizes[np.argsort(-sizes)[: sizes.sum() - N_RATINGS]] -= 1  # the largest give one back
    keys = np.log(rng.random((N_USERS, N_ITEMS))) / p  # Gumbel-style weighted sampling
    order = np.argsort(-keys, axis=1)
    users = np.repeat(np.arange(1, N_USERS + 1), sizes)
    items = np.concatenate([order[u, :s] for u, s in enumerate(sizes)]) + 1
    bias, quality = rng.normal(0, 0.5, N_USERS + 1), rng.normal(0, 0.7, N_ITEMS + 1)
    rating = np.clip(np.round(3.5 + bias[users] + quality[items]
                              + rng.normal(0, 0.9, len(users))), 1, 5)
    return pd.DataFrame({"user_id": users, "item_id": items, "rating": rating})


def _algo(name: str) -> Any:
    import surprise

    if name == "SVD":
        return surprise.SVD(random_state=0)
    return surprise.KNNBasic(verbose=False)


def time_receval(data: pd.DataFrame, folds: list[Any], name: str) -> dict[str, Any]:
    import receval as rv

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ties at the cutoff are recorded, not printed here
        started = time.perf_counter()
        cv = rv.cross_validate({name: rv.models.Surprise(_algo(name))}, data,
                               [f"ndcg@{K}", "rmse"], split=folds, k=K, exclude_seen=True,
                               progress=False)
        total = time.perf_counter() - started
    values = cv.summary().xs("mean", axis=1, level=1).loc[name].to_dict()
    return {"total": total, "stages": cv.timings.sum().to_dict(), "values": values}


class _Folds:
    """Surprise's CV-iterator protocol over receval's folds (trainsets built inside)."""

    def __init__(self, folds: list[Any]) -> None:
        self.folds = folds

    def split(self, data: Any) -> Any:
        import surprise

        reader = surprise.Reader(rating_scale=(1, 5))
        for fold in self.folds:
            train = surprise.Dataset.load_from_df(fold.train[["user_id", "item_id", "rating"]],
                                                  reader).build_full_trainset()
            test = list(zip(fold.test["user_id"].tolist(), fold.test["item_id"].tolist(),
                            fold.test["rating"].tolist(), strict=True))
            yield train, test


def time_surprise(data: pd.DataFrame, folds: list[Any], name: str) -> dict[str, Any]:
    import surprise
    from surprise.model_selection import cross_validate

    sdata = surprise.Dataset.load_from_df(data, surprise.Reader(rating_scale=(1, 5)))
    started = time.perf_counter()
    out = cross_validate(_algo(name), sdata, measures=["rmse"], cv=_Folds(folds))
    return {"total": time.perf_counter() - started,
            "values": {"rmse": float(np.mean(out["test_rmse"]))}}


def time_recommend(train: pd.DataFrame, name: str, vectorised: bool) -> float:
    import receval as rv

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = rv.models.Surprise(_algo(name), vectorised=vectorised).fit(train)
        started = time.perf_counter()
        model.recommend(np.arange(1, N_USERS + 1), K, exclude=train)
    return time.perf_counter() - started


BEFORE = r"""
import sys, time, warnings
import numpy as np, pandas as pd
import receval as rv
sys.path.insert(0, sys.argv[3])
from cv_models import _algo
train = pd.read_parquet(sys.argv[1])
model = rv.models.Surprise(_algo(sys.argv[2])).fit(train)
started = time.perf_counter()
model.recommend(np.arange(1, 944), 10, exclude=train)
print(time.perf_counter() - started)
"""


def time_before(train: pd.DataFrame, name: str, src: str) -> float:
    path = Path("/tmp") / f"cv_models_train_{os.getpid()}.parquet"
    train.to_parquet(path)
    try:
        done = subprocess.run([sys.executable, "-c", BEFORE, str(path), name,
                               str(Path(__file__).parent)], capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": src}, check=True)
    finally:
        path.unlink()
    return float(done.stdout.strip().splitlines()[-1])


def main() -> None:
    import receval as rv

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--before-src", default=None)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    data = make_ratings()
    folds = rv.split.kfold(data, n_splits=N_FOLDS, by="rows", seed=0)
    print(f"data: {len(data)} rows, {data.user_id.nunique()} users, "
          f"{data.item_id.nunique()} items", file=sys.stderr)
    time_recommend(folds[0].train, "KNNBasic", True)  # warm-up: kernels loaded or compiled
    lines = [
        "# 5-fold cross-validation of Surprise SVD and KNNBasic (issue 24)",
        "",
        f"{time.strftime('%Y-%m-%d')}, {platform.machine()}, {os.cpu_count()} cores (shared "
        f"with other jobs), Python {platform.python_version()}, scikit-surprise "
        f"{_surprise_version()}; {len(data):,} ratings, {data.user_id.nunique()} users x "
        f"{data.item_id.nunique()} items (synthetic, MovieLens-100k's shape), 5 folds by "
        f"rows; median of {args.repeat} runs.",
        "",
        "| model | receval cross_validate (ndcg@10 + rmse) | Surprise cross_validate (rmse) "
        "| ratio | receval stages (s, 5 folds) | nDCG@10 | RMSE receval | RMSE Surprise |",
        "|---|---:|---:|---:|---|---:|---:|---:|",
    ]
    for name in ("SVD", "KNNBasic"):
        ours = [time_receval(data, folds, name) for _ in range(args.repeat)]
        theirs = [time_surprise(data, folds, name) for _ in range(args.repeat)]
        a = statistics.median(r["total"] for r in ours)
        b = statistics.median(r["total"] for r in theirs)
        stages = ", ".join(f"{k} {statistics.median(r['stages'][k] for r in ours):.2f}"
                           for k in ("fit", "recommend", "predict", "evaluate"))
        v = ours[0]["values"]
        lines.append(f"| {name} | {a:.2f} s | {b:.2f} s | {a / b:.2f}x | {stages} | "
                     f"{v['NDCG@10']:.4f} | {v['RMSE']:.4f} | "
                     f"{theirs[0]['values']['rmse']:.4f} |")
        print(lines[-1], file=sys.stderr)
    lines += ["", f"`recommend` of one fitted model (fold 0: {len(folds[0].train):,} training "
              f"ratings) for all {N_USERS} users, top {K} of the unseen items:", "",
              "| model | vectorised | per-pair predict (vectorised=False) | before |",
              "|---|---:|---:|---:|"]
    for name in ("SVD", "KNNBasic"):
        fast = statistics.median(time_recommend(folds[0].train, name, True)
                                 for _ in range(args.repeat))
        slow = time_recommend(folds[0].train, name, False)
        before = time_before(folds[0].train, name, args.before_src) if args.before_src \
            else float("nan")
        lines.append(f"| {name} | {fast:.3f} s | {slow:.1f} s ({slow / fast:.0f}x) | "
                     + ("" if np.isnan(before) else f"{before:.1f} s ({before / fast:.0f}x)")
                     + " |")
        print(lines[-1], file=sys.stderr)
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        out = Path(__file__).parent / "results" / "cv_models.md"
        out.write_text(text + "\n")
        print(f"written to {out}", file=sys.stderr)


def _surprise_version() -> str:
    import surprise

    return str(surprise.__version__)


if __name__ == "__main__":
    main()
