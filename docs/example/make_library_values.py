"""Record each library's own numbers on the worked example of docs/conventions.md.

The worked example (``recs.csv``, ``truth.csv`` here) shows receval's number under every
convention for precision@3, recall@3, ap@3, ndcg@3, mrr@3 and hit_rate@3. This script asks
the libraries themselves: for each library importable in the running interpreter it computes
the library's own mean (the number the library reports) of each of the six metrics at k = 3
that it offers, and merges them into ``libraries.json``::

    {library: {"version": ..., "values": {metric: value | null},
               "errors": {metric: error text}, "notes": {metric: text}}}

``null`` is a metric the library does not offer at k = 3 (``notes`` says why) or a call that
raised (``errors`` holds the exception). The library names are the conventions' names.

Each library is fed the data the way its conformance module feeds it
(``tests/conformance/conventions/test_conv_<name>.py``; LensKit and Evidently through their
fixture scripts ``fixtures/make_<name>.py``), by calling those modules' functions. Elliot
is left out (not installable). The libraries need two environments (LensKit and Evidently
need pandas 2), so run the script in each; every run replaces the records of the libraries
it measured and keeps the others. From the repository root::

    python docs/example/make_library_values.py            # every importable library
    python docs/example/make_library_values.py ranx cornac  # only these

``tests/conformance/conventions/test_conv_docs_example.py`` measures the importable libraries
again and compares them with the file, and lists every cell where a library's number is not
receval's under that library's convention, with the preset's difference that explains it.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import logging
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # the conformance modules are imported as ``tests....``
    sys.path.insert(0, str(ROOT))

from tests.conformance._data import Case, fixture_maker  # noqa: E402

HERE = Path(__file__).resolve().parent
OUT = HERE / "libraries.json"
FIXTURES = ROOT / "tests" / "conformance" / "conventions" / "fixtures"
K = 3
METRICS = [f"{name}@{K}" for name in ("precision", "recall", "ap", "ndcg", "mrr", "hit_rate")]

Values = dict[str, float | None]
#: (values, errors, notes) of one library, by receval metric
Measured = tuple[Values, dict[str, str], dict[str, str]]
Record = dict[str, Any]


def example() -> Case:
    """The worked example as the conformance modules' ``Case`` (rows in the files' order)."""
    recs = pd.read_csv(HERE / "recs.csv", dtype={"user": str, "item": str})
    truth = pd.read_csv(HERE / "truth.csv", dtype={"user": str, "item": str})
    return Case(recs.astype({"score": np.float64}), truth.astype({"rating": np.int64}))


def _rows(frame: pd.DataFrame) -> list[list[Any]]:
    """A frame as the fixture scripts' rows ``[user, item, value]`` (Python scalars)."""
    return [[str(u), str(i), v.item() if hasattr(v, "item") else v]
            for u, i, v in frame.itertuples(index=False)]


def _mean(values: dict[Any, float]) -> float:
    """The arithmetic mean over the users the library evaluated."""
    return float(sum(values.values()) / len(values))


# -- one function per library: {metric: value}, plus notes ----------------------------------

def trec_eval(case: Case) -> Measured:
    """pytrec_eval's P_3, recall_3, map_cut_3, ndcg_cut_3, success_3 and recip_rank.

    recip_rank is measured on the run cut to its top 3 (trec_eval's ``-M 3``, which
    pytrec_eval lacks); the mean is trec_eval's "all" line over the evaluated queries.
    """
    import pytrec_eval  # type: ignore[import-untyped]
    from tests.conformance.conventions import test_conv_trec_eval as conf

    qrels, run = case.qrels(), case.run()
    measures = dict(conf._pairs((K,)))
    full = pytrec_eval.RelevanceEvaluator(qrels, conf._measures((K,))).evaluate(run)
    top = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(conf._top(run, K))
    values: Values = {}
    for metric in METRICS:
        if metric == f"mrr@{K}":
            values[metric] = _mean({q: v["recip_rank"] for q, v in top.items()})
        else:
            values[metric] = _mean({q: v[measures[metric]] for q, v in full.items()})
    return values, {}, {f"mrr@{K}": f"recip_rank of the run cut to its top {K} (trec_eval -M {K})"}


def ranx(case: Case) -> Measured:
    """ranx.evaluate with make_comparable=True, as the conformance module calls it."""
    import ranx as rx  # type: ignore[import-untyped]
    from tests.conformance.conventions import test_conv_ranx as conf

    names = {metric: conf.NAMES[metric.split("@")[0] + "{k}"].format(k=f"@{K}")
             for metric in METRICS}
    means = rx.evaluate(rx.Qrels(case.qrels()), rx.Run(case.run()), list(names.values()),
                        make_comparable=True)
    return {metric: float(means[name]) for metric, name in names.items()}, {}, {}


def sklearn(case: Case) -> Measured:
    """ndcg_score(k=3) per user on the row of the recommended items, averaged over them."""
    from sklearn.metrics import ndcg_score  # type: ignore[import-untyped]
    from tests.conformance.conventions import test_conv_sklearn as conf

    per_user = {u: float(ndcg_score(*conf._row(case, u), k=K)) for u in sorted(case.recs_users)}
    values: Values = {m: None for m in METRICS}
    values[f"ndcg@{K}"] = _mean(per_user)
    notes = {m: "not offered by scikit-learn" for m in METRICS if values[m] is None}
    notes[f"ap@{K}"] = "average_precision_score has no cutoff (it reads the whole row)"
    return values, {}, notes


def recbole(case: Case) -> Measured:
    """RecBole's metric classes' calculate_metric on pos_index / pos_len."""
    from tests.conformance.conventions import test_conv_recbole as conf

    _, _, means = conf.recbole_values(case, [K])
    return {m: float(means[m]) for m in METRICS}, {}, {}


def ms_recommenders(case: Case) -> Measured:
    """python_evaluation's precision_at_k, recall_at_k, map_at_k and ndcg_at_k (k=3)."""
    from tests.conformance.conventions import test_conv_ms_recommenders as conf

    values: Values = {m: None for m in METRICS}
    for function in ("precision_at_k", "recall_at_k", "map_at_k", "ndcg_at_k"):
        metric = conf.receval_name(function, K, None, whole=False)
        values[metric] = conf.msr(function, case.truth, case.recs, K)
    notes = {m: "python_evaluation has no such function" for m in METRICS if values[m] is None}
    return values, {}, notes


def replay(case: Case) -> Measured:
    """replay.metrics Precision, Recall, MAP, NDCG, MRR and HitRate (3), pandas frames."""
    from tests.conformance.conventions import test_conv_replay as conf

    out = conf._replay(case, [K])
    return {m: float(out[m][0]) for m in METRICS}, {}, {}


def torchmetrics(case: Case) -> Measured:
    """The modular Retrieval* classes (top_k=3), one query per user with recommendations."""
    from tests.conformance.conventions import test_conv_torchmetrics as conf

    values: Values = {}
    for name, _, cls, kwargs, graded in conf.METRICS:
        if f"{name}@{K}" in METRICS:
            values[f"{name}@{K}"] = conf._modular_mean(case, cls, kwargs, K, graded)
    return values, {}, {}


def lenskit(case: Case) -> Measured:
    """RunAnalysis through fixtures/make_lenskit.py; the mean is list_summary()["mean"]."""
    make = fixture_maker(FIXTURES / "make_lenskit.py")
    data = make.run_case({"name": "docs-example", "recs": _rows(case.recs),
                          "truth": _rows(case.truth), "ks": [K]}, np.random.default_rng(0))
    labels = {f"precision@{K}": "Precision", f"recall@{K}": "Recall", f"ndcg@{K}": "NDCG",
              f"mrr@{K}": "RecipRank", f"hit_rate@{K}": "Hit"}
    values: Values = {m: data["ranking"][f"{label}@{K}"]["mean"] for m, label in labels.items()}
    ap = data["ap"][f"AveragePrecision@{K}"]
    if data["ap_error"] is None:
        values[f"ap@{K}"] = ap["mean"]
        return values, {}, {}
    # the script caught the error and measured AP again without the users lacking truth
    values[f"ap@{K}"] = None
    users = ", ".join(sorted(ap["per_user"]))
    note = (f"RunAnalysis raised; measured again on the users with truth only ({users}), "
            f"list_summary mean {ap['mean']!r}")
    return values, {f"ap@{K}": data["ap_error"]}, {f"ap@{K}": note}


def evidently(case: Case) -> Measured:
    """The Report API through fixtures/make_evidently.py.

    One frame of the recommended rows with their targets; NDCG and MRR at k are read in the
    row the Report labels k + 1 (as the conformance module reads them).
    """
    from tests.conformance.conventions import test_conv_evidently as conf

    make = fixture_maker(FIXTURES / "make_evidently.py")
    data = make.run_case({"name": "docs-example", "recs": _rows(case.recs),
                          "truth": _rows(case.truth), "ks": [K]})
    values: Values = {}
    notes: dict[str, str] = {}
    for name, metric in conf.NAMES.items():
        values[f"{metric}@{K}"] = conf._library(data, name, K)
        if name in conf.SHIFTED:
            notes[f"{metric}@{K}"] = (
                f"the Report labels this value rank {K + 1}; its row labelled {K} holds "
                f"{conf._row(data, name, K, K)!r} (the value at {K - 1})")
    return values, {}, notes


def cornac(case: Case) -> Measured:
    """Cornac's Precision, Recall, HitRatio and NDCG (k=3).

    Computed per test user with a positive and averaged as ``ranking_eval`` does; MAP() and
    MRR() read the whole ranking (they take no k).
    """
    from tests.conformance.conventions import test_conv_cornac as conf

    pairs = [(name, metric) for name, metric in conf._topk_pairs(K) if name in METRICS]
    per_user = conf.cornac_per_user(case, pairs)
    values: Values = {m: None for m in METRICS}
    for name, _ in pairs:
        values[name] = _mean(per_user[name])
    notes = {f"ap@{K}": "MAP() has no cutoff (it reads the whole ranking)",
             f"mrr@{K}": "MRR() has no cutoff (it reads the whole ranking)"}
    return values, {}, notes


# library (the convention's name) -> (import that must be found, distribution, function)
LIBRARIES: dict[str, tuple[str, str, Callable[[Case], Measured]]] = {
    "trec_eval": ("pytrec_eval", "pytrec-eval-terrier", trec_eval),
    "ranx": ("ranx", "ranx", ranx),
    "sklearn": ("sklearn", "scikit-learn", sklearn),
    "recbole": ("recbole", "recbole", recbole),
    "ms_recommenders": ("recommenders", "recommenders", ms_recommenders),
    "lenskit": ("lenskit", "lenskit", lenskit),
    "replay": ("replay", "replay-rec", replay),
    "torchmetrics": ("torchmetrics", "torchmetrics", torchmetrics),
    "evidently": ("evidently", "evidently", evidently),
    "cornac": ("cornac", "cornac", cornac),
}


def available() -> list[str]:
    """The libraries importable in the running interpreter."""
    return [name for name, (module, _, _) in LIBRARIES.items()
            if importlib.util.find_spec(module) is not None]


def measure(library: str) -> Record:
    """One library's record: its version, its value of each metric, errors and notes."""
    _, dist, function = LIBRARIES[library]
    with warnings.catch_warnings():  # the libraries' own deprecation and 0/0 warnings
        warnings.simplefilter("ignore")
        logging.disable(logging.WARNING)  # LensKit: "could not find test data"
        try:
            values, errors, notes = function(example())
        except Exception as exc:  # recorded: the library raised on this data
            values, notes = {}, {}
            errors = {m: f"{type(exc).__name__}: {exc}" for m in METRICS}
        finally:
            logging.disable(logging.NOTSET)
    return {"version": importlib.metadata.version(dist),
            "values": {m: None if values.get(m) is None else float(values[m]) for m in METRICS},
            "errors": errors, "notes": notes}


def load() -> dict[str, Record]:
    """The recorded values (empty before the first run)."""
    if not OUT.exists():
        return {}
    data: dict[str, Record] = json.loads(OUT.read_text(encoding="utf-8"))
    return data


def main(argv: list[str]) -> None:
    """Measure the importable libraries (or those named) and merge them into the file."""
    names = argv or available()
    unknown = [n for n in names if n not in LIBRARIES]
    if unknown:
        raise SystemExit(f"unknown libraries {unknown}; known: {sorted(LIBRARIES)}")
    records = load()
    for name in names:
        records[name] = measure(name)
        print(f"{name} {records[name]['version']}: {records[name]['values']}", file=sys.stderr)
    ordered = {name: records[name] for name in LIBRARIES if name in records}
    OUT.write_text(json.dumps(ordered, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)} ({', '.join(ordered)})", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
