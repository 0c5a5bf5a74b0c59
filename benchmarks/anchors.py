"""One adapter per measured library: build its inputs from the two DataFrames, then compute.

Every adapter returns its metric means under canonical names (``P@5``, ``R@5``, ``F1@5``,
``HR@5``, ``MRR@5``, ``AP@5``, ``nDCG@5``, ...) and says, in ``references``, which receval
metric has the same definition, so that the numbers can be checked against receval.
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from importlib import metadata
from typing import Any, ClassVar

import numpy as np
import pandas as pd

KS = (5, 10, 20)
FAMILIES = ("P", "R", "F1", "HR", "MRR", "AP", "nDCG")
# The timed receval metric set; AP with the relevant-count denominator (trec_eval / ranx MAP).
RECEVAL_NAMES = {"P": "precision", "R": "recall", "F1": "f1", "HR": "hit_rate", "MRR": "mrr",
                 "AP": "ap(denominator=relevant)", "nDCG": "ndcg"}
RECEVAL_METRICS = [f"{RECEVAL_NAMES[f]}@{k}" for k in KS for f in FAMILIES]
CANONICAL = {f"{RECEVAL_NAMES[f]}@{k}": f"{f}@{k}" for k in KS for f in FAMILIES}


@dataclass(frozen=True)
class Reference:
    """The receval metric that has an anchor's definition.

    ``in_recs``: the truth is cut to the recommended items first and users left without a
    relevant item score 0 (for libraries that only see the recommended rows).
    """

    label: str
    in_recs: bool = False


def _same_as_receval(names: tuple[str, ...] = FAMILIES) -> dict[str, Reference]:
    return {f"{f}@{k}": Reference(f"{RECEVAL_NAMES[f]}@{k}") for k in KS for f in names}


def version_of(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def str_ids(col: pd.Series) -> pd.Series:
    """Ids as Python strings in an object column, converting each distinct id once."""
    codes, uniques = pd.factorize(col)
    labels = np.array([str(u) for u in uniques.tolist()], dtype=object)
    return pd.Series(labels[codes], index=col.index, dtype=object)


class Adapter:
    name: ClassVar[str]
    modules: ClassVar[tuple[str, ...]] = ()  # importable names that must be present
    distributions: ClassVar[tuple[str, ...]] = ()  # for the version line
    jit: ClassVar[bool] = False  # uses numba's on-disk cache: cold and warm differ
    regimes: ClassVar[tuple[str, ...]] = ("cold", "warm", "repeat")
    rows: ClassVar[tuple[str, ...]] = ("ordered", "shuffled")  # row orders it is measured on
    is_anchor: ClassVar[bool] = True
    note: ClassVar[str] = ""
    cache_key: ClassVar[str] = ""  # share the warm numba cache with another adapter
    times_internal_build: ClassVar[bool] = False  # has an untimed-by-default input stage

    def unavailable(self) -> str | None:
        """Why the adapter cannot run here, or None."""
        missing = [m for m in self.modules if importlib.util.find_spec(m) is None]
        return f"not installed ({', '.join(missing)})" if missing else None

    def setup(self) -> None:
        """Import what is needed (timed apart, not part of end to end)."""
        for m in self.modules:
            importlib.import_module(m)

    def build(self, recs: pd.DataFrame, truth: pd.DataFrame) -> Any:
        return recs, truth

    def compute(self, inputs: Any) -> dict[str, float]:
        raise NotImplementedError

    def references(self) -> dict[str, Reference]:
        return {}

    def internal_build(self, recs: pd.DataFrame, truth: pd.DataFrame) -> None:
        """The library's own input stage, when it is part of compute (timed apart)."""


class Receval(Adapter):
    name = "receval"
    modules = ("receval",)
    distributions = ("receval", "numba")
    jit = True
    is_anchor = False
    times_internal_build = True
    note = "takes the DataFrames as they are: its build (validation, id encoding, join) " \
           "is inside compute"
    metrics: ClassVar[list[str]] = RECEVAL_METRICS

    def compute(self, inputs: Any) -> dict[str, float]:
        import receval as rv

        recs, truth = inputs
        ev = rv.evaluate(recs, truth, self.metrics)
        return {CANONICAL.get(m, m): float(ev[m]) for m in self.metrics}

    def references(self) -> dict[str, Reference]:
        return {CANONICAL.get(m, m): Reference(m) for m in self.metrics}

    def internal_build(self, recs: pd.DataFrame, truth: pd.DataFrame) -> None:
        """receval's own input stage (validate, encode ids, group, join) -- internal API."""
        from receval import Columns
        from receval.data import prepare, recs_table, truth_table

        cols = Columns.coerce(None)
        prepare(recs_table(recs, cols), truth_table(truth, cols), relevance_threshold=None)


class RecevalNdcg(Receval):
    name = "receval[ndcg@10]"
    regimes = ("repeat",)
    cache_key = "receval"
    times_internal_build = False
    note = "receval computing nDCG@10 only, like the lower bound"
    metrics: ClassVar[list[str]] = ["ndcg@10"]


class LowerBound(Adapter):
    name = "lower-bound"
    modules = ("numba",)
    distributions = ("numba",)
    jit = True
    is_anchor = False
    note = "numpy lexsort + searchsorted join + one numba pass, nDCG@10 only " \
           "(benchmarks/lower_bound.py)"

    def setup(self) -> None:
        import lower_bound  # noqa: F401

    def compute(self, inputs: Any) -> dict[str, float]:
        import lower_bound

        recs, truth = inputs
        return {"nDCG@10": lower_bound.ndcg_at_k(recs, truth, 10)}

    def references(self) -> dict[str, Reference]:
        return {"nDCG@10": Reference("ndcg@10")}


class LowerBoundNoSort(LowerBound):
    name = "lower-bound[no-sort]"
    regimes = ("repeat",)
    rows = ("ordered",)  # on shuffled rows it is lower-bound
    cache_key = "lower-bound"
    note = "the same, but it skips the lexsort after an O(n) check that the rows already are " \
           "in (user, score desc) order, as the workload's are"

    def compute(self, inputs: Any) -> dict[str, float]:
        import lower_bound

        recs, truth = inputs
        return {"nDCG@10": lower_bound.ndcg_at_k(recs, truth, 10, skip_sorted=True)}


class LowerBoundCounting(LowerBound):
    name = "lower-bound[counting]"
    regimes = ("repeat",)
    cache_key = "lower-bound"
    note = "a numba counting sort of both tables by user (any row order, O(n)), then one " \
           "numba pass that sorts each user's rows by score and joins them to its truth rows"

    def compute(self, inputs: Any) -> dict[str, float]:
        import lower_bound

        recs, truth = inputs
        return {"nDCG@10": lower_bound.ndcg_at_k_counting(recs, truth, 10)}


class Ranx(Adapter):
    name = "ranx"
    modules = ("ranx",)
    distributions = ("ranx",)
    jit = True
    note = "Qrels.from_df / Run.from_df need string ids in object columns and integer grades"
    metric_names: ClassVar[dict[str, str]] = {
        "P": "precision", "R": "recall", "F1": "f1", "HR": "hit_rate", "MRR": "mrr",
        "AP": "map", "nDCG": "ndcg"}

    def build(self, recs: pd.DataFrame, truth: pd.DataFrame) -> Any:
        from ranx import Qrels, Run

        qrels = Qrels.from_df(pd.DataFrame({
            "q_id": str_ids(truth["user"]), "doc_id": str_ids(truth["item"]),
            "score": truth["rating"].to_numpy().astype(np.int64)}))
        run = Run.from_df(pd.DataFrame({
            "q_id": str_ids(recs["user"]), "doc_id": str_ids(recs["item"]),
            "score": recs["score"].to_numpy()}))
        return qrels, run

    def compute(self, inputs: Any) -> dict[str, float]:
        from ranx import evaluate

        qrels, run = inputs
        names = {f"{self.metric_names[f]}@{k}": f"{f}@{k}" for k in KS for f in FAMILIES}
        res = evaluate(qrels, run, list(names), make_comparable=False)
        return {names[m]: float(v) for m, v in res.items()}

    def references(self) -> dict[str, Reference]:
        return _same_as_receval()


class PytrecEval(Adapter):
    name = "pytrec_eval"
    modules = ("pytrec_eval",)
    distributions = ("pytrec_eval-terrier",)
    note = "per-query results averaged here; F1 from per-query P and R; HR = success_k; " \
           "recip_rank has no cutoff (compared with MRR@100, the whole list)"
    measures: ClassVar[set[str]] = {
        "P.5,10,20", "recall.5,10,20", "success.5,10,20", "map_cut.5,10,20",
        "ndcg_cut.5,10,20", "recip_rank"}
    keys: ClassVar[dict[str, str]] = {"P": "P_{k}", "R": "recall_{k}", "HR": "success_{k}",
                                      "AP": "map_cut_{k}", "nDCG": "ndcg_cut_{k}"}

    @staticmethod
    def _nested(user: pd.Series, item: pd.Series, value: list[Any]) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for u, i, v in zip(str_ids(user).tolist(), str_ids(item).tolist(), value, strict=True):
            d = out.get(u)
            if d is None:
                d = out[u] = {}
            d[i] = v
        return out

    def build(self, recs: pd.DataFrame, truth: pd.DataFrame) -> Any:
        import pytrec_eval

        qrels = self._nested(truth["user"], truth["item"],
                             truth["rating"].to_numpy().astype(np.int64).tolist())
        run = self._nested(recs["user"], recs["item"], recs["score"].to_numpy().tolist())
        return pytrec_eval.RelevanceEvaluator(qrels, self.measures), run

    def compute(self, inputs: Any) -> dict[str, float]:
        evaluator, run = inputs
        per_query = evaluator.evaluate(run)
        keys = [self.keys[f].format(k=k) for k in KS for f in self.keys] + ["recip_rank"]
        table = np.array([[q[key] for key in keys] for q in per_query.values()])
        col = dict(zip(keys, table.T, strict=True))
        out = {f"{f}@{k}": float(col[self.keys[f].format(k=k)].mean())
               for k in KS for f in self.keys}
        for k in KS:
            p, r = col[f"P_{k}"], col[f"recall_{k}"]
            s = p + r
            f1 = np.divide(2 * p * r, s, out=np.zeros_like(s), where=s > 0)
            out[f"F1@{k}"] = float(f1.mean())
        out["MRR@100"] = float(col["recip_rank"].mean())
        return out

    def references(self) -> dict[str, Reference]:
        refs = _same_as_receval(("P", "R", "F1", "HR", "AP", "nDCG"))
        refs["MRR@100"] = Reference("mrr@100")
        return refs


class Replay(Adapter):
    name = "replay"
    modules = ("replay", "polars")
    distributions = ("replay-rec", "polars")
    note = "polars engine (OfflineMetrics); binary relevance: NDCG is binary-gain and MAP " \
           "divides by min(k, |relevant|); no F1"
    classes: ClassVar[dict[str, str]] = {"P": "Precision", "R": "Recall", "HR": "HitRate",
                                         "MRR": "MRR", "AP": "MAP", "nDCG": "NDCG"}

    def setup(self) -> None:
        import polars  # noqa: F401
        import replay.metrics  # noqa: F401

    def build(self, recs: pd.DataFrame, truth: pd.DataFrame) -> Any:
        import polars as pl

        r = pl.from_pandas(recs[["user", "item", "score"]]).rename(
            {"user": "query_id", "item": "item_id", "score": "rating"})
        t = pl.from_pandas(truth[["user", "item"]]).rename(
            {"user": "query_id", "item": "item_id"})
        return r, t

    def compute(self, inputs: Any) -> dict[str, float]:
        import replay.metrics as rm

        recs, truth = inputs
        metrics = [getattr(rm, c)(list(KS)) for c in self.classes.values()]
        res = rm.OfflineMetrics(metrics)(recs, truth)
        return {f"{f}@{k}": float(res[f"{c}@{k}"]) for f, c in self.classes.items() for k in KS}

    def references(self) -> dict[str, Reference]:
        refs = _same_as_receval(("P", "R", "HR", "MRR"))
        for k in KS:
            refs[f"AP@{k}"] = Reference(f"map(denominator=min_k_relevant)@{k}")
            refs[f"nDCG@{k}"] = Reference(f"ndcg(gain=binary)@{k}")
        return refs


class Torchmetrics(Adapter):
    name = "torchmetrics"
    modules = ("torch", "torchmetrics")
    distributions = ("torchmetrics", "torch")
    note = "sees only the recommended rows (recall and nDCG ignore unrecommended relevant " \
           "items); AP divides by the hits in the top k; float32 results; no F1"
    classes: ClassVar[dict[str, str]] = {
        "P": "RetrievalPrecision", "R": "RetrievalRecall", "HR": "RetrievalHitRate",
        "MRR": "RetrievalMRR", "AP": "RetrievalMAP", "nDCG": "RetrievalNormalizedDCG"}

    def setup(self) -> None:
        import torch  # noqa: F401
        import torchmetrics.retrieval  # noqa: F401

    def build(self, recs: pd.DataFrame, truth: pd.DataFrame) -> Any:
        import torch

        rows = recs[["user", "item", "score"]].merge(
            truth[["user", "item", "rating"]], on=["user", "item"], how="left")
        grade = torch.from_numpy(rows["rating"].fillna(0).to_numpy(np.int64, copy=True))
        preds = torch.from_numpy(rows["score"].to_numpy(np.float64, copy=True))
        indexes = torch.from_numpy(rows["user"].to_numpy(np.int64, copy=True))
        return preds, grade, grade > 0, indexes

    def compute(self, inputs: Any) -> dict[str, float]:
        import torchmetrics.retrieval as tr

        preds, grade, binary, indexes = inputs
        out = {}
        for f, c in self.classes.items():
            target = grade if f == "nDCG" else binary
            for k in KS:
                metric = getattr(tr, c)(top_k=k)
                metric.update(preds, target, indexes=indexes)
                out[f"{f}@{k}"] = float(metric.compute())
        return out

    def references(self) -> dict[str, Reference]:
        refs = _same_as_receval(("P", "HR", "MRR"))
        for k in KS:
            refs[f"R@{k}"] = Reference(f"recall@{k}", in_recs=True)
            refs[f"AP@{k}"] = Reference(f"ap(denominator=hits)@{k}")
            refs[f"nDCG@{k}"] = Reference(f"ndcg@{k}", in_recs=True)
        return refs


class Recometrics(Adapter):
    name = "recometrics"
    modules = ("recometrics",)
    distributions = ("recometrics",)

    def unavailable(self) -> str | None:
        return super().unavailable() or (
            "not applicable: calc_reco_metrics ranks the whole catalog by factor products "
            "A @ B.T, it cannot take given top-k lists with scores")


ADAPTERS: dict[str, Adapter] = {a.name: a for a in (
    Receval(), RecevalNdcg(), LowerBound(), LowerBoundNoSort(), LowerBoundCounting(), Ranx(),
    PytrecEval(), Replay(),
    Torchmetrics(), Recometrics())}
ANCHORS = [n for n, a in ADAPTERS.items() if a.is_anchor]
