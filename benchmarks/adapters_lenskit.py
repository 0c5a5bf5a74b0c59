"""LensKit's own batch top-k against rv.models.LensKit on the same fitted pipeline.

    PYTHONPATH=src python benchmarks/adapters_lenskit.py [--users 2000] [--items 2000]
        [--rows-per-user 30] [--k 100] [--factors 32] [--epochs 5] [--neighbours 20]
        [--scorers als,iknn] [--repeat 3] [--profile] [--markdown]

LensKit 2025.8 needs pandas 2: run it with a Python that has LensKit installed (e.g.
``/work/venv-pandas2/bin/python``). One synthetic log (Zipf-like item popularity, seed 0,
no rating column; LensKit's global RNG seeded with 0 too); for each scorer (``als``:
``lenskit.als.ImplicitMFScorer``, ``iknn``: ``lenskit.knn.ItemKNNScorer(feedback=
"implicit")``) one pipeline fitted once through the adapter
(``rv.models.LensKit(scorer).fit(train)``, which trains LensKit's own
``topn_pipeline(scorer)``, kept as ``adapter.pipeline_``), then, in alternation after a
warm-up call of each on ten users, ``--repeat`` times each:

* ``adapter``: ``adapter.recommend(every user id, k, exclude=train)`` — one run of the
  pipeline's ``"scorer"`` node per user on every training item (history lookup included),
  then receval's exclusion CSR, compiled top-k selection and output table;
* ``lenskit``: ``lenskit.batch.recommend(adapter.pipeline_, every user id, n=k, n_jobs=1)``
  — one run of the pipeline's ``"recommender"`` node per user: history lookup, LensKit's
  candidate selector (every training item except the user's training items, i.e. what
  ``exclude=train`` leaves), the scorer on those candidates, ``TopNRanker``.

``n_jobs=1`` makes LensKit's batch runner call the pipeline in this process (its
``InProcessOpInvoker``) instead of a pool of worker processes; LensKit's parallelism is
initialised with one process, one thread and one backend (torch / BLAS) thread, so both
variants run on one core and the comparison is of work, not of parallelism. Wall and CPU
time (``time.process_time``, every thread of the process) are both reported: on a machine
shared with other jobs the CPU time moves less.

The lists are checked against each other: the number of users whose lists are identical
(the same items in the same order), and whether every other user's list differs only among
near-tied scores (the score at every rank within 1e-5, relative, of LensKit's: LensKit
scores in float32, orders equal scores in no specified order, and receval ranks equal scores
by item id). ``--profile`` also runs one call of each variant under cProfile and prints
where the time goes (by package, and in a few named functions).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import platform
import pstats
import statistics
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd


def make_log(n_users: int, n_items: int, per_user: int, seed: int = 0) -> pd.DataFrame:
    """A seeded synthetic log: ``per_user`` Zipf-like draws per user, duplicates dropped."""
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, n_items + 1) ** 0.8
    items = rng.choice(n_items, n_users * per_user, p=weights / weights.sum())
    users = np.repeat(np.arange(n_users), per_user)
    return pd.DataFrame({"user_id": users, "item_id": items}).drop_duplicates(ignore_index=True)


def make_scorer(name: str, args: argparse.Namespace) -> Any:
    """A fresh LensKit scorer component by short name."""
    if name == "als":
        from lenskit.als import ImplicitMFScorer

        return ImplicitMFScorer(embedding_size=args.factors, epochs=args.epochs)
    if name == "iknn":
        from lenskit.knn import ItemKNNScorer

        return ItemKNNScorer(max_nbrs=args.neighbours, feedback="implicit")
    raise SystemExit(f"unknown scorer {name!r} (als, iknn)")


def ranked(frame: pd.DataFrame) -> pd.DataFrame:
    """``user_id, item_id, score`` best first per user -> the same with a 0-based ``rank``."""
    frame = frame[["user_id", "item_id", "score"]].reset_index(drop=True)
    return frame.assign(rank=frame.groupby("user_id", sort=False).cumcount())


def agreement(ours: pd.DataFrame, theirs: pd.DataFrame, n_users: int) -> dict[str, Any]:
    """How many users get identical lists, the same item sets, and near-tie-only differences.

    Both tables are ``ranked``. A list that differs is *explained* when both lists have the
    same length and the scores at every rank are within 1e-5 (relative) of each other: the
    lists then differ only in the order or choice of near-tied items.
    """
    both = ours.merge(theirs, on=["user_id", "rank"], how="outer", suffixes=("_r", "_l"))
    same_item = (both["item_id_r"] == both["item_id_l"]).groupby(both["user_id"]).all()
    gap = (both["score_r"] - both["score_l"]).abs() / np.maximum(both["score_l"].abs(), 1e-12)
    near = (gap < 1e-5).groupby(both["user_id"]).all()  # NaN (a length mismatch) is False
    sets_r = ours.sort_values(["user_id", "item_id"]).groupby("user_id")["item_id"].agg(tuple)
    sets_l = theirs.sort_values(["user_id", "item_id"]).groupby("user_id")["item_id"].agg(tuple)
    sets_l = sets_l.reindex(sets_r.index.union(sets_l.index))
    same_set = sets_r.reindex(sets_l.index) == sets_l
    return {
        "identical": int(same_item.sum()),
        "same_set": int(same_set.sum()),
        "explained": bool(near[~same_item].all()),
        "users_r": int(ours["user_id"].nunique()),
        "users_l": int(theirs["user_id"].nunique()),
        "rows_r": len(ours),
        "rows_l": len(theirs),
        "n_users": n_users,
    }


#: profile groups: a function's own time goes to the first group whose path part it contains
GROUPS = (("receval", "/receval/"), ("lenskit", "/lenskit/"), ("pandas", "/pandas/"),
          ("numpy", "/numpy/"), ("torch", "/torch/"), ("pyarrow", "/pyarrow/"),
          ("pydantic", "/pydantic"), ("structlog", "/structlog/"))

#: named functions whose cumulative time the profile reports: (label, path part, name, subdirs)
NAMED = (
    ("LensKit scorer __call__", "/lenskit/", "__call__", ("als/", "knn/")),
    ("Pipeline.run_all", "/lenskit/pipeline/_impl.py", "run_all", ()),
    ("PipelineRunner._run_component", "/lenskit/pipeline/runner.py", "_run_component", ()),
    ("component_inputs (get_type_hints + signature, every node run)",
     "/lenskit/pipeline/components.py", "component_inputs", ()),
    ("history lookup __call__", "/lenskit/basic/history.py", "__call__", ()),
    ("candidate selector __call__", "/lenskit/basic/candidates.py", "__call__", ()),
    ("TopNRanker __call__", "/lenskit/basic/topn.py", "__call__", ()),
    ("ItemList.__init__", "/lenskit/data/items.py", "__init__", ()),
    ("adapter _run", "/receval/models/_lenskit.py", "_run", ()),
    ("pandas Index.get_indexer", "/pandas/core/indexes/base.py", "get_indexer", ()),
    ("receval exclusion_csr", "/receval/models/_data.py", "exclusion_csr", ()),
    ("receval compiled selection", "/receval/_kernels/selection.py", "select_top_k", ()),
    ("receval output frame", "/receval/models/_base.py", "frame", ()),
)


def profile(call: Callable[[], Any]) -> tuple[float, dict[str, float], list[str]]:
    """One call under cProfile: total, own time by package, NAMED's cumulative times."""
    prof = cProfile.Profile()
    prof.runcall(call)
    stats = pstats.Stats(prof).stats  # type: ignore[attr-defined]
    total = sum(entry[2] for entry in stats.values())
    by_group: dict[str, float] = {}
    for (path, _, _), entry in stats.items():
        group = next((g for g, part in GROUPS if part in path), "other (builtins, stdlib)")
        by_group[group] = by_group.get(group, 0.0) + entry[2]
    named = []
    for label, part, func_name, subdirs in NAMED:
        hits = [entry for (path, _, func), entry in stats.items()
                if part in path and func == func_name
                and (not subdirs or any(f"/lenskit/{s}" in path for s in subdirs))]
        seconds = sum(entry[3] for entry in hits)  # cumulative (recursion counted once)
        if seconds > 0:
            named.append(f"{label} {seconds:.2f} s ({seconds / total:.0%}, "
                         f"{sum(entry[1] for entry in hits):,} calls)")
    return total, by_group, named


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=2_000)
    parser.add_argument("--items", type=int, default=2_000)
    parser.add_argument("--rows-per-user", type=int, default=30)
    parser.add_argument("--k", type=int, default=100)
    parser.add_argument("--factors", type=int, default=32, help="ALS embedding size")
    parser.add_argument("--epochs", type=int, default=5, help="ALS epochs")
    parser.add_argument("--neighbours", type=int, default=20, help="item kNN max_nbrs")
    parser.add_argument("--scorers", default="als,iknn", help="comma-separated: als, iknn")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", action="store_true",
                        help="also profile one call of each variant with cProfile")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()

    import lenskit
    import lenskit.parallel
    import lenskit.random
    import torch
    from lenskit.batch import recommend as batch_recommend

    import receval as rv

    # one process, one thread, one torch / BLAS thread: both variants run on one core
    lenskit.parallel.initialize(processes=1, threads=1, backend_threads=1)
    lenskit.random.init_global_rng(0)  # ALS's initial embeddings: the same model every run

    train = make_log(args.users, args.items, args.rows_per_user)
    rows: list[str] = []
    notes: list[str] = []
    profiles: list[str] = []
    for name in args.scorers.split(","):
        scorer = make_scorer(name, args)
        t = time.perf_counter()
        model = rv.models.LensKit(scorer).fit(train)
        fit_s = time.perf_counter() - t
        pipeline = model.pipeline_  # the trained topn_pipeline(scorer) the adapter scores with
        users = model.users_.to_numpy()
        user_list = users.tolist()  # LensKit's queries: plain Python ids

        def run_adapter(users: Any = users, model: Any = model) -> pd.DataFrame:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                out = model.recommend(users, args.k, exclude=train)
            run_adapter.caught = [str(w.message) for w in caught]  # type: ignore[attr-defined]
            return out

        def run_lenskit(user_list: Any = user_list, pipeline: Any = pipeline) -> Any:
            return batch_recommend(pipeline, user_list, n=args.k, n_jobs=1)

        runs = {"adapter": run_adapter, "lenskit": run_lenskit}
        # warm-up on a few users: lazy imports, compiled kernels, caches
        model.recommend(users[:10], args.k, exclude=train)
        batch_recommend(pipeline, user_list[:10], n=args.k, n_jobs=1)
        times: dict[str, list[float]] = {v: [] for v in runs}
        cpu: dict[str, list[float]] = {v: [] for v in runs}
        out: dict[str, Any] = {}
        for _ in range(args.repeat):
            for variant, call in runs.items():  # alternating, so that load hits both
                t, c = time.perf_counter(), time.process_time()
                out[variant] = call()
                times[variant].append(time.perf_counter() - t)
                cpu[variant].append(time.process_time() - c)

        ours = ranked(out["adapter"])
        theirs = ranked(out["lenskit"].to_df())
        agree = agreement(ours, theirs, len(users))
        med = {v: statistics.median(x) for v, x in times.items()}
        med_cpu = {v: statistics.median(x) for v, x in cpu.items()}
        label = type(scorer).__name__
        rows.append(
            f"| {label} | {len(users):,} x {len(model.items_):,} | {med['adapter']:.2f} / "
            f"{med_cpu['adapter']:.2f} | {med['lenskit']:.2f} / {med_cpu['lenskit']:.2f} | "
            f"{med['adapter'] / med['lenskit']:.2f}x / "
            f"{med_cpu['adapter'] / med_cpu['lenskit']:.2f}x | "
            f"{agree['identical']:,} identical, {agree['same_set']:,} same items |")
        notes.append(
            f"{label}: fitted through the adapter in {fit_s:.1f} s; wall runs (s) adapter "
            f"{', '.join(f'{x:.2f}' for x in times['adapter'])}, lenskit "
            f"{', '.join(f'{x:.2f}' for x in times['lenskit'])}; {agree['rows_r']:,} / "
            f"{agree['rows_l']:,} rows for {agree['users_r']:,} / {agree['users_l']:,} users "
            f"(adapter / lenskit); lists that differ differ only among near-tied scores: "
            f"{agree['explained']}; adapter warnings: "
            f"{'; '.join(getattr(run_adapter, 'caught', [])) or 'none'}.")
        if args.profile:
            for variant, call in runs.items():
                total, by_group, named = profile(call)
                groups = ", ".join(f"{g} {s / total:.0%}" for g, s in
                                   sorted(by_group.items(), key=lambda kv: -kv[1]) if s > 0)
                profiles.append(f"- {label}, {variant}: {total:.2f} s under cProfile. Own "
                                f"time by package: {groups}. Cumulative: "
                                f"{'; '.join(named)}.")

    load = os.getloadavg()[0]
    lines = [
        f"# rv.models.LensKit against LensKit's own batch top-k ({time.strftime('%Y-%m-%d')})",
        "",
        f"{len(train):,} training rows ({args.rows_per_user} draws per user, Zipf-like "
        f"items, seed 0; LensKit RNG seed 0), top-{args.k} with every training item "
        f"excluded; medians of {args.repeat} alternating runs, wall / CPU seconds. "
        f"ImplicitMFScorer: "
        f"{args.factors} factors, {args.epochs} epochs; ItemKNNScorer: implicit feedback, "
        f"max_nbrs={args.neighbours}. LensKit: batch.recommend(n_jobs=1), parallelism "
        f"initialised with 1 process / 1 thread / 1 backend thread. "
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores (1-minute "
        f"load {load:.1f} at the end), Python {platform.python_version()}, lenskit "
        f"{lenskit.__version__}, torch {torch.__version__}, numpy {np.__version__}, pandas "
        f"{pd.__version__}.",
        "",
        "| scorer | users x items | adapter wall / CPU (s) | LensKit wall / CPU (s) "
        "| adapter / LensKit (wall / CPU) | lists agreeing |",
        "|---|---|---|---|---|---|",
        *rows,
        "",
        *[f"- {note}" for note in notes],
    ]
    if profiles:
        lines += ["", "Profiles (one call each; cProfile adds per-call overhead):", "",
                  *profiles]
    print("\n".join(lines) if args.markdown else "\n".join(lines[4:]))


if __name__ == "__main__":
    main()
