"""Split Parquet inputs that do not fit in memory into buckets of users, with bounded memory.

One streaming pass over each input writes every row to the temporary file of its user's
bucket (``hash(user) mod n``, Arrow IPC: written and read back at memory speed); each bucket
then holds all the rows of its users from both inputs and is evaluated on its own. Only one
record batch per input is in memory at a time during the split.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from receval._columns import Columns
from receval._kernels import exact as XK
from receval._kernels import grouping as G
from receval._kernels._jit import readonly
from receval.exceptions import InvalidParameterError

__all__ = ["Buckets", "is_parquet_source", "read_bucket", "split_into_buckets"]

#: Rows of one bucket aimed at by ``buckets="auto"`` (about 0.6 GB of working memory).
ROWS_PER_BUCKET = 8_000_000


def is_parquet_source(obj: Any) -> bool:
    """Whether ``obj`` is a path to a Parquet file or a directory of Parquet files."""
    if not isinstance(obj, (str, os.PathLike)):
        return False
    p = Path(obj)
    return p.is_dir() or p.name.lower().endswith((".parquet", ".pq"))


@dataclass(frozen=True)
class Buckets:
    """Temporary Arrow IPC files, one pair per bucket of users.

    Attributes
    ----------
    pairs : list of (Path, Path)
        The recommendations and the truth of each bucket.
    rows : (int, int)
        Rows of the recommendations and of the truth.
    rating_sum : numpy.ndarray
        The exact sum of the truth grades, as :func:`receval._kernels.exact.exact_sum`
        holds it (for an exactly rounded global mean over every bucket).
    rating_special : numpy.ndarray
        Grades left out of that sum (NaN, +inf, -inf).
    rating_count : int
        Grades added to it (every grade, special ones included).
    """

    pairs: list[tuple[Path, Path]]
    rows: tuple[int, int]
    rating_sum: np.ndarray
    rating_special: np.ndarray
    rating_count: int


def _dataset(path: str | os.PathLike[str]) -> Any:
    from receval.data._files import parquet_dataset

    return parquet_dataset(path)


def _bucket_of(values: Any, n: int, id_cast: str | None) -> np.ndarray:
    """Bucket of each user id: ``id mod n`` for integers, a stable hash mod n otherwise.

    With ``id_cast`` the ids are bucketed as they will be compared (after the cast), so that
    ``1`` and ``'1'`` meet in the same bucket.
    """
    import pyarrow as pa

    if id_cast is not None:
        from receval.data._encode import cast_ids

        cast = cast_ids(values.to_pandas(), id_cast, role="user", table="input", column="user")
        values = pa.array(cast)
    if pa.types.is_integer(values.type):
        return np.mod(values.to_numpy(zero_copy_only=False).astype(np.int64), n).astype(np.int32)
    hashed = pd.util.hash_array(np.asarray(values.to_pandas(), dtype=object))
    return (hashed % np.uint64(n)).astype(np.int32)


def _batches(dataset: Any, columns: list[str]) -> Iterator[Any]:
    """Stream record batches file by file, row group by row group (bounded memory)."""
    import pyarrow.parquet as pq

    for path in dataset.files:
        # pre-buffering would keep every row group read so far: off, with a small buffer
        with pq.ParquetFile(path, pre_buffer=False, buffer_size=1 << 22) as f:
            yield from f.iter_batches(batch_size=1 << 20, columns=columns, use_threads=False)


def split_into_buckets(recs: str | os.PathLike[str], truth: str | os.PathLike[str],
                       columns: Columns, workdir: Path, n_buckets: int | str = "auto",
                       id_cast: str | None = None) -> Buckets:
    """Write each input's rows to the bucket file of their user.

    Parameters
    ----------
    recs, truth : path
        Parquet files or directories of Parquet files.
    columns : Columns
        Column roles, resolved against the files' schemas.
    workdir : Path
        Where the bucket files go (a temporary directory, removed by the caller).
    n_buckets : int or "auto"
        The number of buckets; ``"auto"`` aims at ``ROWS_PER_BUCKET`` rows per bucket.
    id_cast : {None, "str", "int"}
        Bucket the user ids as ``evaluate(id_cast=...)`` will compare them.
    """
    import pyarrow as pa

    sources = {"recs": _dataset(recs), "truth": _dataset(truth)}
    n_rows = {name: sum(f.count_rows() for f in [d]) for name, d in sources.items()}
    if n_buckets == "auto":
        n = max(1, math.ceil((n_rows["recs"] + n_rows["truth"]) / ROWS_PER_BUCKET))
    elif isinstance(n_buckets, int) and not isinstance(n_buckets, bool) and n_buckets >= 1:
        n = n_buckets
    else:
        raise InvalidParameterError(f"buckets must be 'auto' or an integer >= 1, got "
                                    f"{n_buckets!r}", parameter="buckets",
                                    examples=[n_buckets])
    pairs = [(workdir / f"recs-{b}.arrow", workdir / f"truth-{b}.arrow") for b in range(n)]
    rating_sum = np.zeros(XK.N_DIGITS, dtype=np.int64)
    rating_special = np.zeros(3, dtype=np.int64)
    rating_count = 0
    for name, dataset in sources.items():
        names = list(dataset.schema.names)
        roles = ["user", "item"] + (["score", "rank"] if name == "recs" else ["rating"])
        cols = [c for c in (columns.resolve(r, names, table=name,
                                            required=r in ("user", "item")) for r in roles)
                if c is not None]
        user_col = cols[0]
        schema = dataset.schema
        schema = pa.schema([schema.field(c) for c in cols])
        writers = [pa.ipc.new_file(str(pair[0 if name == "recs" else 1]), schema)
                   for pair in pairs]
        try:
            for batch in _batches(dataset, cols):
                order, bounds = G.counting_order(
                    _bucket_of(batch.column(user_col), n, id_cast), n)
                table = pa.Table.from_batches([batch]).take(pa.array(order))
                for b in range(n):
                    if bounds[b + 1] > bounds[b]:
                        writers[b].write_table(table.slice(bounds[b], bounds[b + 1] - bounds[b]))
                if name == "truth" and len(cols) == 3:
                    values = batch.column(cols[2]).to_numpy(zero_copy_only=False)
                    values = np.ascontiguousarray(values, dtype=np.float64)
                    XK.exact_sum(readonly(values), rating_sum, rating_special)
                    rating_count += len(values)
        finally:
            for w in writers:
                w.close()
    return Buckets(pairs, (n_rows["recs"], n_rows["truth"]), rating_sum, rating_special,
                   rating_count)


def read_bucket(path: Path) -> pd.DataFrame:
    """One bucket file as a DataFrame (memory-mapped, strings kept Arrow-backed)."""
    import pyarrow as pa

    from receval.data._arrow import arrow_to_pandas as _arrow_to_pandas

    with pa.memory_map(str(path)) as source:
        return _arrow_to_pandas(pa.ipc.open_file(source).read_all())
