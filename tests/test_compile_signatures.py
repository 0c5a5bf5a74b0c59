"""New input dtypes cost no new compilation: every kernel is compiled for one set of types.

The input layer turns ids into int32 codes and scores, ranks and grades into float64 before
any kernel runs, so int32 or int64 ids, float32 or float64 scores, integer or float grades and
string ids all reach the kernels with the same types.
"""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

import receval as rv
from receval._kernels import encoding, exact, grouping, ordering, ranking, rating, sorting

METRICS = ["ndcg@3", "map", "precision@2", "recall", "mrr@3"]


def _frames(user_dtype: str, score_dtype: str, grade_dtype: str, shuffle: bool
            ) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(3)
    users = np.repeat(np.arange(40), 5)
    items = np.tile(np.arange(5), 40) + users % 7
    recs = pd.DataFrame({"user": users, "item": items,
                         "score": rng.random(len(users)).astype(score_dtype)})
    t = recs.sample(frac=0.4, random_state=1)
    truth = pd.DataFrame({"user": t["user"], "item": t["item"],
                          "rating": rng.integers(1, 5, len(t)).astype(grade_dtype)})
    if shuffle:
        recs = recs.sample(frac=1.0, random_state=2)
        truth = truth.sample(frac=1.0, random_state=2)
    if user_dtype == "str":
        for f in (recs, truth):
            f["user"] = "u" + f["user"].astype(str)
            f["item"] = "i" + f["item"].astype(str)
    else:
        for f in (recs, truth):
            f["user"] = f["user"].astype(user_dtype)
            f["item"] = f["item"].astype(user_dtype)
    return recs.reset_index(drop=True), truth.reset_index(drop=True)


def _dispatchers() -> dict[str, object]:
    out = {}
    for mod in (encoding, exact, grouping, ordering, ranking, rating, sorting):
        for name, obj in inspect.getmembers(mod):
            if hasattr(obj, "signatures") and hasattr(obj, "py_func"):
                out[f"{mod.__name__}.{name}"] = obj
    return out


def test_every_kernel_has_one_signature_whatever_the_input_dtypes(tmp_path: Path) -> None:
    """In a new process: other tests of this run call kernels (splits, sampling) with their
    own types, and numba's dispatchers count every process-wide compilation. With an empty
    cache: a kernel loaded from the cache does not compile (or count) the helpers it calls."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "RECEVAL_SHIPPED_KERNELS": "0"}
    subprocess.run([sys.executable, __file__], check=True, timeout=900, env=env)


def check_one_signature() -> None:
    values = set()
    for user_dtype, score_dtype, grade_dtype, shuffle in [
            ("int64", "float64", "int64", False), ("int32", "float32", "float64", True),
            ("str", "float64", "int32", True), ("uint16", "float32", "float32", False),
            ("int32", "float64", "int64", False)]:
        recs, truth = _frames(user_dtype, score_dtype, grade_dtype, shuffle)
        for ties in ("stable", "item", "expected"):
            ev = rv.evaluate(recs, truth, METRICS, ties=ties)
            if ties == "stable" and score_dtype == "float64":
                values.add(round(ev["ndcg@3"], 12))
    # with an empty cache every helper is compiled too: a helper called once with a constant
    # (numba's Literal[int]) and once with a variable would show two signatures here
    many = {name: d.signatures for name, d in _dispatchers().items()  # type: ignore[attr-defined]
            if len(d.signatures) > 1}  # type: ignore[attr-defined]
    assert not many, f"kernels compiled for more than one set of types: {many}"
    assert len(values) == 1  # the same data in any id type and row order: the same number


if __name__ == "__main__":
    check_one_signature()
