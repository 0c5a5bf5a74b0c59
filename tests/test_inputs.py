"""Every accepted input shape gives the same numbers as a plain pandas DataFrame.

The baseline is ``rv.evaluate`` on two pandas DataFrames with numpy dtypes. Each other shape
(Arrow-backed pandas, categoricals, polars, pyarrow, DuckDB, dicts, numpy arrays, files of
every format, column aliases and overrides, pre-ranked lists) must give exactly the same
aggregates and per-user values. The larger-than-memory path (Parquet inputs split into buckets
of users) must also give exactly the in-memory result.
"""

from __future__ import annotations

import gzip
import math
import re
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import receval as rv
import receval.data
from receval.exceptions import ColumnNotFoundError, UndefinedMetricWarning

METRICS = ["ndcg@3", "ap(denominator=relevant)@3", "precision@2", "recall@3", "mrr"]

# Four users 0..3 with four recommendations each, listed best first (distinct scores), and a
# graded truth; user 3's item 19 is relevant and never recommended.
RECS = pd.DataFrame({
    "user": [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3],
    "item": [10, 11, 12, 13, 10, 14, 15, 11, 11, 12, 16, 17, 13, 14, 10, 18],
    "score": [.9, .8, .7, .6, .95, .5, .3, .2, .4, .35, .2, .1, .99, .7, .1, .05],
})
TRUTH = pd.DataFrame({
    "user": [0, 0, 1, 1, 2, 3, 3],
    "item": [11, 13, 15, 16, 12, 10, 19],
    "rating": [2.0, 1.0, 3.0, 1.0, 1.0, 2.0, 1.0],
})


def baseline() -> rv.EvaluationResult:
    return rv.evaluate(RECS, TRUTH, METRICS)


def as_str(df: pd.DataFrame) -> pd.DataFrame:
    return df.assign(user=df["user"].astype(str), item=df["item"].astype(str))


def assert_same(ev: rv.EvaluationResult, base: rv.EvaluationResult) -> None:
    """Same labels, aggregates and per-user values (ids compared as text, since some shapes
    turn integer ids into strings), and the same user accounting."""
    assert ev.labels == base.labels
    for label in base.labels:
        assert ev[label] == base[label], (label, ev[label], base[label])
        assert ev.summaries[label].n_users == base.summaries[label].n_users
    a = ev.per_user.rename(index=str).sort_index()
    b = base.per_user.rename(index=str).sort_index()
    assert list(a.index) == list(b.index)
    np.testing.assert_array_equal(a.to_numpy(), b.to_numpy())
    assert ev.users.to_dict() == base.users.to_dict()


def test_baseline_values() -> None:
    """The baseline itself, by hand (ranks of the relevant items, grades, |R|):

    u0: 11 at 2 (g2), 13 at 4 (g1)   u1: 15 at 3 (g3), 16 not listed (g1)
    u2: 12 at 2 (g1)                 u3: 10 at 3 (g2), 19 not listed (g1)
    """
    ev = baseline()
    d = [1 / math.log2(i + 1) for i in range(1, 5)]
    ndcg = [2 * d[1] / (2 + d[1]), 3 * d[2] / (3 + d[1]), d[1] / 1, 2 * d[2] / (2 + d[1])]
    ap = [(1 / 2) / 2, (1 / 3) / 2, (1 / 2) / 1, (1 / 3) / 2]
    assert math.isclose(ev["ndcg@3"], sum(ndcg) / 4, rel_tol=1e-12)
    assert math.isclose(ev["ap(denominator=relevant)@3"], sum(ap) / 4, rel_tol=1e-12)
    assert ev["precision@2"] == (1 / 2 + 0 + 1 / 2 + 0) / 4
    assert ev["recall@3"] == (1 / 2 + 1 / 2 + 1 + 1 / 2) / 4
    assert math.isclose(ev["mrr"], (1 / 2 + 1 / 3 + 1 / 2 + 1 / 3) / 4, rel_tol=1e-12)


# -- in-memory shapes --------------------------------------------------------------------------
def _duckdb_global() -> tuple[Any, Any]:
    recs_frame, truth_frame = RECS, TRUTH  # noqa: F841 (found by DuckDB's replacement scan)
    return (duckdb.sql("SELECT * FROM recs_frame"), duckdb.sql("SELECT * FROM truth_frame"))


def _duckdb_connection() -> tuple[Any, Any]:
    con = duckdb.connect()
    con.register("recs_view", RECS)
    con.register("truth_view", TRUTH)
    return con.sql("SELECT * FROM recs_view"), con.sql("SELECT * FROM truth_view")


def _polars(lazy: bool) -> tuple[Any, Any]:
    r, t = pl.from_pandas(RECS), pl.from_pandas(TRUTH)
    return (r.lazy(), t.lazy()) if lazy else (r, t)


def _nested(df: pd.DataFrame, value: str) -> dict[Any, dict[Any, float]]:
    out: dict[Any, dict[Any, float]] = {}
    for u, i, v in zip(df["user"], df["item"], df[value], strict=True):
        out.setdefault(int(u), {})[int(i)] = float(v)
    return out


def _ranked_lists() -> dict[int, list[int]]:
    return {int(u): [int(i) for i in g.sort_values("score", ascending=False)["item"]]
            for u, g in RECS.groupby("user")}


def _arrow_string_ids() -> tuple[pd.DataFrame, pd.DataFrame]:
    dtype = pd.ArrowDtype(pa.string())
    r, t = as_str(RECS), as_str(TRUTH)
    return (r.astype({"user": dtype, "item": dtype}), t.astype({"user": dtype, "item": dtype}))


def _categorical() -> tuple[pd.DataFrame, pd.DataFrame]:
    # each table has its own categories, with unused ones and a different order
    r = RECS.assign(user=pd.Categorical(RECS["user"], categories=[3, 2, 1, 0, 9]),
                    item=pd.Categorical(RECS["item"]))
    t = TRUTH.assign(user=pd.Categorical(TRUTH["user"], categories=[0, 1, 2, 3]),
                     item=pd.Categorical(TRUTH["item"], categories=list(range(30))))
    return r, t


def _categorical_str() -> tuple[pd.DataFrame, pd.DataFrame]:
    r, t = as_str(RECS), as_str(TRUTH)
    return (r.astype({"user": "category", "item": "category"}),
            t.astype({"user": "category", "item": "category"}))


SHAPES: dict[str, Callable[[], tuple[Any, Any]]] = {
    "pandas-numpy": lambda: (RECS.copy(), TRUTH.copy()),
    "pandas-object-str-ids": lambda: (as_str(RECS).astype({"user": object, "item": object}),
                                      as_str(TRUTH).astype({"user": object, "item": object})),
    "pandas-pyarrow-dtypes": lambda: (RECS.convert_dtypes(dtype_backend="pyarrow"),
                                      TRUTH.convert_dtypes(dtype_backend="pyarrow")),
    "pandas-nullable-dtypes": lambda: (RECS.convert_dtypes(), TRUTH.convert_dtypes()),
    "pandas-arrow-string-ids": _arrow_string_ids,
    "pandas-categorical-ids": _categorical,
    "pandas-categorical-str-ids": _categorical_str,
    "pandas-int32-float32": lambda: (
        RECS.astype({"user": "int32", "item": "int32", "score": "float32"}),
        TRUTH.astype({"user": "int32", "item": "int32", "rating": "float32"})),
    "pandas-uint64": lambda: (RECS.astype({"user": "uint64", "item": "uint64"}),
                              TRUTH.astype({"user": "uint64", "item": "uint64"})),
    "pandas-unsorted": lambda: (RECS.sample(frac=1, random_state=3),
                                TRUTH.sample(frac=1, random_state=4)),
    "pandas-odd-index": lambda: (RECS.set_axis(range(100, 100 + len(RECS))[::-1]),
                                 TRUTH.set_axis(["x"] * len(TRUTH))),
    "polars-dataframe": lambda: _polars(lazy=False),
    "polars-lazyframe": lambda: _polars(lazy=True),
    "pyarrow-table": lambda: (pa.Table.from_pandas(RECS), pa.Table.from_pandas(TRUTH)),
    "pyarrow-recordbatch": lambda: (pa.RecordBatch.from_pandas(RECS),
                                    pa.RecordBatch.from_pandas(TRUTH)),
    "pyarrow-recordbatchreader": lambda: (pa.Table.from_pandas(RECS).to_reader(max_chunksize=5),
                                          pa.Table.from_pandas(TRUTH).to_reader()),
    "pyarrow-chunked-table": lambda: (
        pa.concat_tables([pa.Table.from_pandas(RECS.iloc[:7], preserve_index=False),
                          pa.Table.from_pandas(RECS.iloc[7:], preserve_index=False)]),
        pa.Table.from_pandas(TRUTH)),
    "duckdb-sql": _duckdb_global,
    "duckdb-connection-sql": _duckdb_connection,
    "dict-of-dicts": lambda: (_nested(RECS, "score"), _nested(TRUTH, "rating")),
    "dict-of-ranked-lists": lambda: (_ranked_lists(), _nested(TRUTH, "rating")),
    "numpy-2d-array": lambda: (np.array([_ranked_lists()[u] for u in range(4)]),
                               _nested(TRUTH, "rating")),
    "mixed-shapes": lambda: (pa.Table.from_pandas(RECS), _nested(TRUTH, "rating")),
}


@pytest.mark.parametrize("shape", list(SHAPES))
def test_in_memory_shapes(shape: str) -> None:
    recs, truth = SHAPES[shape]()
    assert_same(rv.evaluate(recs, truth, METRICS), baseline())


def test_numpy_array_rows_are_users() -> None:
    arr = np.array([_ranked_lists()[u] for u in range(4)])
    ev = rv.evaluate(arr, _nested(TRUTH, "rating"), METRICS)
    assert list(ev.per_user.index) == [0, 1, 2, 3]


def test_numpy_array_of_strings() -> None:
    arr = np.array([[str(i) for i in _ranked_lists()[u]] for u in range(4)])
    truth = as_str(TRUTH).assign(user=TRUTH["user"])
    assert_same(rv.evaluate(arr, truth, METRICS), baseline())


def test_dict_of_grades_with_string_keys() -> None:
    recs = {str(u): {str(i): s for i, s in d.items()} for u, d in _nested(RECS, "score").items()}
    truth = {str(u): {str(i): g for i, g in d.items()}
             for u, d in _nested(TRUTH, "rating").items()}
    assert_same(rv.evaluate(recs, truth, METRICS), baseline())


def test_dict_of_binary_truth() -> None:
    # truth given as {user: {item: 1}}: the same as a DataFrame with every grade 1
    truth = {u: dict.fromkeys(d, 1) for u, d in _nested(TRUTH, "rating").items()}
    ev = rv.evaluate(RECS, truth, METRICS)
    flat = rv.evaluate(RECS, TRUTH.assign(rating=1.0), METRICS)
    assert_same(ev, flat)


# -- files -------------------------------------------------------------------------------------
def _write_csv(df: pd.DataFrame, path: Path, **kwargs: Any) -> Path:
    df.to_csv(path, index=False, **kwargs)
    return path


def _write_zst(df: pd.DataFrame, path: Path) -> Path:
    with pa.CompressedOutputStream(str(path), "zstd") as out:
        out.write(df.to_csv(index=False).encode())
    return path


def _write_gz(df: pd.DataFrame, path: Path) -> Path:
    with gzip.open(path, "wt") as f:
        f.write(df.to_csv(index=False))
    return path


def _write_parquet_dir(df: pd.DataFrame, path: Path, parts: int = 3) -> Path:
    path.mkdir()
    for n, chunk in enumerate(np.array_split(np.arange(len(df)), parts)):
        df.iloc[chunk].to_parquet(path / f"part-{n}.parquet", index=False)
    return path


def _write_parquet(df: pd.DataFrame, path: Path) -> Path:
    df.to_parquet(path, index=False)
    return path


def _write_jsonl(df: pd.DataFrame, path: Path) -> Path:
    df.to_json(path, orient="records", lines=True)
    return path


def _write_trec(tmp: Path) -> tuple[Path, Path]:
    run, qrels = tmp / "system.run", tmp / "judgments.qrels"
    lines = []
    for u, g in RECS.groupby("user"):
        g = g.sort_values("score", ascending=False)
        lines += [f"{u} Q0 {i} {r} {s} tag" for r, (i, s) in
                  enumerate(zip(g["item"], g["score"], strict=True), 1)]
    run.write_text("\n".join(lines) + "\n")
    qrels.write_text("".join(f"{u} 0 {i} {int(g)}\n" for u, i, g in
                             TRUTH.itertuples(index=False)))
    return run, qrels


FILES: dict[str, Callable[[Path], tuple[Path, Path]]] = {
    "csv-header": lambda d: (_write_csv(RECS, d / "r.csv"), _write_csv(TRUTH, d / "t.csv")),
    "csv-no-header": lambda d: (_write_csv(RECS, d / "r.csv", header=False),
                                _write_csv(TRUTH, d / "t.csv", header=False)),
    "tsv": lambda d: (_write_csv(RECS, d / "r.tsv", sep="\t"),
                      _write_csv(TRUTH, d / "t.tsv", sep="\t")),
    "tsv-no-header": lambda d: (_write_csv(RECS, d / "r.tsv", sep="\t", header=False),
                                _write_csv(TRUTH, d / "t.tsv", sep="\t", header=False)),
    "parquet": lambda d: (_write_parquet(RECS, d / "r.parquet"),
                          _write_parquet(TRUTH, d / "t.parquet")),
    "parquet-directory": lambda d: (_write_parquet_dir(RECS, d / "recs"),
                                    _write_parquet_dir(TRUTH, d / "truth", parts=2)),
    "jsonl": lambda d: (_write_jsonl(RECS, d / "r.jsonl"), _write_jsonl(TRUTH, d / "t.jsonl")),
    "trec": _write_trec,
    "csv-gz": lambda d: (_write_gz(RECS, d / "r.csv.gz"), _write_gz(TRUTH, d / "t.csv.gz")),
    "csv-zst": lambda d: (_write_zst(RECS, d / "r.csv.zst"),
                          _write_zst(TRUTH, d / "t.csv.zst")),
    "mixed-parquet-and-csv": lambda d: (_write_parquet(RECS, d / "r.parquet"),
                                        _write_csv(TRUTH, d / "t.csv")),
}


@pytest.mark.parametrize("fmt", list(FILES))
@pytest.mark.parametrize("as_text", [True, False], ids=["str-path", "pathlib"])
def test_files(tmp_path: Path, fmt: str, as_text: bool) -> None:
    recs, truth = FILES[fmt](tmp_path)
    if as_text:
        recs, truth = str(recs), str(truth)  # type: ignore[assignment]
    assert_same(rv.evaluate(recs, truth, METRICS), baseline())


def test_files_with_string_ids(tmp_path: Path) -> None:
    recs = _write_csv(as_str(RECS).assign(user="u" + as_str(RECS)["user"]), tmp_path / "r.csv")
    truth = _write_csv(as_str(TRUTH).assign(user="u" + as_str(TRUTH)["user"]),
                       tmp_path / "t.csv")
    ev = rv.evaluate(str(recs), str(truth), METRICS)
    base = baseline()
    for label in base.labels:
        assert ev[label] == base[label]
    assert list(ev.per_user.index) == ["u0", "u1", "u2", "u3"]


@pytest.mark.parametrize("fmt", ["csv-header", "parquet", "trec", "jsonl", "csv-zst"])
def test_read_table(tmp_path: Path, fmt: str) -> None:
    if "read_table" in receval.data.__all__:
        read_table = receval.data.read_table
    else:  # not exported (yet): the reader that evaluate uses
        from receval.data._files import read_table
    recs_path, truth_path = FILES[fmt](tmp_path)
    recs = read_table(recs_path, role="recs")
    truth = read_table(truth_path, role="truth")
    assert isinstance(recs, pd.DataFrame)
    assert len(recs) == len(RECS)
    assert len(truth) == len(TRUTH)
    assert_same(rv.evaluate(recs, truth, METRICS), baseline())


def test_read_table_is_exported() -> None:
    assert "read_table" in receval.data.__all__
    assert callable(receval.data.read_table)


# -- columns: aliases and overrides -----------------------------------------------------------
def test_column_aliases() -> None:
    recs = RECS.rename(columns={"user": "userId", "item": "movieId", "score": "prediction"})
    truth = TRUTH.rename(columns={"user": "userId", "item": "movieId", "rating": "relevance"})
    ev = rv.evaluate(recs, truth, METRICS)
    assert_same(ev, baseline())
    assert ev.settings["columns"]["user"] == "userId"
    assert ev.settings["columns"]["truth_rating"] == "relevance"


@pytest.mark.parametrize("aliases", [
    {"user": "user_id", "item": "item_id", "score": "score", "rating": "rating"},
    {"user": "query_id", "item": "doc_id", "score": "pred", "rating": "grade"},
    {"user": "qid", "item": "docno", "score": "estimate", "rating": "label"},
])
def test_more_aliases(aliases: dict[str, str]) -> None:
    recs = RECS.rename(columns={k: v for k, v in aliases.items() if k != "rating"})
    truth = TRUTH.rename(columns={k: v for k, v in aliases.items() if k != "score"})
    assert_same(rv.evaluate(recs, truth, METRICS), baseline())


def _renamed() -> tuple[pd.DataFrame, pd.DataFrame]:
    recs = RECS.rename(columns={"user": "session", "item": "product", "score": "logit"})
    truth = TRUTH.rename(columns={"user": "session", "item": "product", "rating": "stars"})
    return recs, truth


def test_columns_override() -> None:
    recs, truth = _renamed()
    cols = rv.Columns(user="session", item="product", score="logit", rating="stars")
    ev = rv.evaluate(recs, truth, METRICS, columns=cols)
    assert_same(ev, baseline())
    assert ev.settings["columns"]["score"] == "logit"


def test_columns_dict_form() -> None:
    recs, truth = _renamed()
    cols = {"user": "session", "item": "product", "score": "logit", "rating": "stars"}
    assert_same(rv.evaluate(recs, truth, METRICS, columns=cols), baseline())


def test_columns_override_wins_over_aliases() -> None:
    # a column named 'score' is present but the override says to rank by 'logit'
    recs = RECS.rename(columns={"score": "logit"}).assign(score=-RECS["score"])
    ev = rv.evaluate(recs, TRUTH, METRICS, columns={"score": "logit"})
    assert_same(ev, baseline())


@pytest.mark.parametrize(("table", "extra"), [("recs", "user_id"), ("truth", "user_id"),
                                              ("recs", "userId"), ("truth", "item_id")])
def test_ambiguous_alias(table: str, extra: str) -> None:
    recs, truth = RECS.copy(), TRUTH.copy()
    target = recs if table == "recs" else truth
    target[extra] = target["user" if extra.startswith("user") else "item"]
    with pytest.raises(ColumnNotFoundError, match=rf"{table}: several columns could hold the "
                       rf"(user|item): .*'{extra}'"):
        rv.evaluate(recs, truth, METRICS)
    # naming the column resolves it
    role = "user" if extra.startswith("user") else "item"
    assert_same(rv.evaluate(recs, truth, METRICS, columns={role: role}), baseline())


# -- pre-ranked input --------------------------------------------------------------------------
def test_rank_column_without_score() -> None:
    ranks = RECS.groupby("user")["score"].rank(ascending=False).astype(int)
    recs = RECS.drop(columns="score").assign(rank=ranks).sample(frac=1, random_state=5)
    assert_same(rv.evaluate(recs, TRUTH, METRICS), baseline())


@pytest.mark.parametrize("alias", ["position", "pos"])
def test_rank_aliases(alias: str) -> None:
    ranks = RECS.groupby("user")["score"].rank(ascending=False).astype(int)
    recs = RECS.drop(columns="score").assign(**{alias: ranks})
    assert_same(rv.evaluate(recs, TRUTH, METRICS), baseline())


def test_rank_and_score_that_agree() -> None:
    ranks = RECS.groupby("user")["score"].rank(ascending=False).astype(int)
    assert_same(rv.evaluate(RECS.assign(rank=ranks), TRUTH, METRICS), baseline())


def test_rows_in_rank_order_without_score_or_rank() -> None:
    recs = RECS.drop(columns="score")  # rows already best first within each user
    assert_same(rv.evaluate(recs, TRUTH, METRICS), baseline())


def test_rows_in_rank_order_interleaved_users() -> None:
    # users interleaved, but each user's rows in rank order: the input order within a user
    order = RECS.assign(pos=RECS.groupby("user").cumcount()).sort_values(["pos", "user"])
    recs = order.drop(columns=["score", "pos"])
    assert_same(rv.evaluate(recs, TRUTH, METRICS), baseline())


def test_truth_without_grades() -> None:
    truth = TRUTH.drop(columns="rating")
    ev = rv.evaluate(RECS, truth, METRICS)
    assert_same(ev, rv.evaluate(RECS, TRUTH.assign(rating=1.0), METRICS))


# -- larger than memory ------------------------------------------------------------------------
def _big_data(seed: int, str_ids: bool) -> tuple[pd.DataFrame, pd.DataFrame]:
    """60 recommendation users, 60 truth users, 45 in common; graded truth; ratings that
    lack a prediction; items drawn from 40."""
    rng = np.random.default_rng(seed)
    rows = []
    for u in range(60):
        items = rng.choice(40, size=int(rng.integers(1, 9)), replace=False)
        scores = rng.permutation(len(items)) + rng.random()
        rows += [(u, int(i), float(s)) for i, s in zip(items, scores, strict=True)]
    recs = pd.DataFrame(rows, columns=["user", "item", "score"])
    rows = []
    for u in range(15, 75):
        items = rng.choice(40, size=int(rng.integers(1, 6)), replace=False)
        rows += [(u, int(i), float(rng.integers(0, 5))) for i in items]
    truth = pd.DataFrame(rows, columns=["user", "item", "rating"])
    if str_ids:
        recs = recs.assign(user="user-" + recs["user"].astype(str),
                           item="item-" + recs["item"].astype(str))
        truth = truth.assign(user="user-" + truth["user"].astype(str),
                             item="item-" + truth["item"].astype(str))
    return recs, truth


BIG_METRICS = [*METRICS, "ndcg(gain=exponential)@5", "map@5", "hit_rate@1",
               "precision(aggregation=micro)@3", "rmse", "mae(aggregation=macro)", "spearman",
               "item_coverage@2", "item_coverage", "user_coverage"]


def _evaluate(recs: Any, truth: Any, **kwargs: Any) -> rv.EvaluationResult:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)  # spearman, no-relevant users
        return rv.evaluate(recs, truth, BIG_METRICS, missing_predictions="global_mean",
                           **kwargs)


def assert_identical(ev: rv.EvaluationResult, ref: rv.EvaluationResult) -> None:
    """Bit-for-bit the same aggregates, per-user frame and accounting."""
    assert ev.labels == ref.labels
    for label in ref.labels:
        a, b = ev.summaries[label], ref.summaries[label]
        assert a.value == b.value or (math.isnan(a.value) and math.isnan(b.value)), \
            (label, a.value, b.value)
        assert (a.n_users, a.n_undefined, a.n_ties_at_cutoff) == (
            b.n_users, b.n_undefined, b.n_ties_at_cutoff), label
    assert list(ev.per_user.index) == list(ref.per_user.index)
    assert list(ev.per_user.columns) == list(ref.per_user.columns)
    np.testing.assert_array_equal(ev.per_user.to_numpy(), ref.per_user.to_numpy())
    assert ev.users.to_dict() == ref.users.to_dict()
    for name in ("evaluated", "skipped_no_relevant", "skipped_missing_recs",
                 "recs_without_truth", "no_relevant", "missing_recs", "rating_evaluated",
                 "rating_skipped"):
        assert sorted(getattr(ev.users, name)) == sorted(getattr(ref.users, name)), name
    for key in ("recs_duplicates_dropped", "truth_duplicates_dropped", "missing_predictions"):
        assert ev.settings[key] == ref.settings[key]


@pytest.mark.parametrize("str_ids", [False, True], ids=["int-ids", "str-ids"])
@pytest.mark.parametrize("buckets", [1, 3, 7])
def test_buckets_equal_in_memory(tmp_path: Path, str_ids: bool, buckets: int) -> None:
    recs, truth = _big_data(11, str_ids)
    recs.to_parquet(tmp_path / "recs.parquet", index=False)
    truth.to_parquet(tmp_path / "truth.parquet", index=False)
    ref = _evaluate(recs, truth)
    # the data has every case: users on one side only, missing predictions, no relevant item
    assert len(ref.users.recs_without_truth) == 15
    assert len(ref.users.missing_recs) == 15
    assert ref.users.n_missing_predictions > 0
    assert len(ref.users.no_relevant) > 0
    in_memory = _evaluate(str(tmp_path / "recs.parquet"), str(tmp_path / "truth.parquet"))
    assert in_memory.settings["partitions"] == 1
    assert_identical(in_memory, ref)
    ev = _evaluate(str(tmp_path / "recs.parquet"), str(tmp_path / "truth.parquet"),
                   buckets=buckets, progress=False)
    assert ev.settings["partitions"] == buckets
    assert_identical(ev, in_memory)


def test_buckets_from_directories(tmp_path: Path) -> None:
    recs, truth = _big_data(5, str_ids=True)
    _write_parquet_dir(recs, tmp_path / "recs", parts=4)
    _write_parquet_dir(truth, tmp_path / "truth", parts=3)
    in_memory = _evaluate(str(tmp_path / "recs"), str(tmp_path / "truth"))
    ev = _evaluate(str(tmp_path / "recs"), str(tmp_path / "truth"), buckets=4, progress=False)
    assert_identical(ev, in_memory)
    ev = _evaluate(tmp_path / "recs", tmp_path / "truth", buckets="auto", progress=False)
    assert_identical(ev, in_memory)


def test_buckets_small_example(tmp_path: Path) -> None:
    RECS.to_parquet(tmp_path / "r.parquet", index=False)
    TRUTH.to_parquet(tmp_path / "t.parquet", index=False)
    ev = rv.evaluate(str(tmp_path / "r.parquet"), str(tmp_path / "t.parquet"), METRICS,
                     buckets=3, progress=False)
    assert_same(ev, baseline())


def test_buckets_need_parquet() -> None:
    with pytest.raises(rv.exceptions.InvalidParameterError, match=r"buckets= needs recs and "
                       r"truth given as Parquet") as info:
        rv.evaluate(RECS, TRUTH, METRICS, buckets=2)
    assert info.value.parameter == "buckets"


@pytest.mark.parametrize("buckets", [0, -1, 2.5, True, "many"])
def test_invalid_buckets(tmp_path: Path, buckets: Any) -> None:
    RECS.to_parquet(tmp_path / "r.parquet", index=False)
    TRUTH.to_parquet(tmp_path / "t.parquet", index=False)
    with pytest.raises(rv.exceptions.InvalidParameterError, match=r"buckets must be 'auto' or "
                       r"an integer >= 1") as info:
        rv.evaluate(str(tmp_path / "r.parquet"), str(tmp_path / "t.parquet"), METRICS,
                    buckets=buckets, progress=False)
    assert info.value.parameter == "buckets"


def test_buckets_compare_ids_after_the_cast(tmp_path):
    """int ids in recs, str ids in truth, id_cast='str': 1 and '1' must meet in one bucket."""
    recs = pd.DataFrame({"user": [1, 1, 2, 2, 3], "item": [1, 2, 1, 3, 2],
                         "score": [0.9, 0.8, 0.7, 0.6, 0.5]})
    truth = pd.DataFrame({"user": ["1", "2", "3"], "item": [1, 3, 2], "rating": [1.0] * 3})
    recs.to_parquet(tmp_path / "r.parquet")
    truth.to_parquet(tmp_path / "t.parquet")
    mem = rv.evaluate(recs, truth, ["ndcg@2"], id_cast="str")
    bucketed = rv.evaluate(tmp_path / "r.parquet", tmp_path / "t.parquet", ["ndcg@2"],
                           id_cast="str", buckets=3, progress=False)
    # user 1: item 1 at rank 1 -> 1; user 2: item 3 at rank 2 -> 1/log2(3); user 3: item 2
    # at rank 1 -> 1
    expected = (1 + 1 / math.log2(3) + 1) / 3
    assert mem["ndcg@2"] == pytest.approx(expected, abs=1e-12)
    assert bucketed["ndcg@2"] == mem["ndcg@2"]
    assert bucketed.users.n_evaluated == 3


#: One column, not a table: each has ``__arrow_c_stream__`` or ``to_arrow`` (was a raw
#: ArrowInvalid / AttributeError).
ONE_COLUMN = {
    "pandas Series": lambda: pd.Series([1, 2]),
    "pandas Index": lambda: pd.Index([1, 2]),
    "polars Series": lambda: pl.Series([1, 2]),
    "pyarrow Int64Array": lambda: pa.array([1, 2]),
    "pyarrow ChunkedArray": lambda: pa.chunked_array([[1, 2]]),
}

#: Every public function that reads a table, with the name its message gives the table.
TABLE_DOORS: dict[str, tuple[Callable[[Any], Any], str]] = {
    "evaluate recs": (lambda x: rv.evaluate(x, TRUTH, METRICS), "recs"),
    "evaluate truth": (lambda x: rv.evaluate(RECS, x, METRICS), "truth"),
    "evaluate train": (lambda x: rv.evaluate(RECS, TRUTH, ["novelty@3"], train=x), "train"),
    "split": (lambda x: rv.split.random(x), "data"),
    "model fit": (lambda x: rv.models.MostPopular().fit(x), "train"),
}


@pytest.mark.parametrize("door", sorted(TABLE_DOORS))
@pytest.mark.parametrize("kind", sorted(ONE_COLUMN))
def test_one_column_is_not_a_table(door: str, kind: str) -> None:
    call, name = TABLE_DOORS[door]
    with pytest.raises(rv.exceptions.InvalidParameterError,
                       match=rf"^{name} must be a table") as info:
        call(ONE_COLUMN[kind]())
    assert info.value.parameter == name
    module, cls = kind.split()
    assert f"got a {kind}, one column" in str(info.value) or (  # split's own list of tables
        door == "split" and re.search(rf"got {module}\.(\w+\.)*{cls}$", str(info.value)))
