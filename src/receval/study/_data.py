"""A study's data: read from a file or a :mod:`receval.datasets` name, then filtered.

The filters of ``[filters]`` run in a fixed order on the canonical table (``user_id``,
``item_id``, ``rating``, ``timestamp``): ``min_rating`` keeps rows with ``rating >=`` it;
then users with fewer than ``min_user_interactions`` rows are dropped, then items with fewer
than ``min_item_interactions``; ``k_core = c`` repeats both with ``max(min, c)`` until no
row is dropped (every remaining user and item has at least ``c`` rows). Row order is kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from receval.exceptions import ConfigError, EmptyInputError, RecevalError
from receval.study._hashing import file_sha256, frame_sha256

__all__ = ["StudyData", "apply_filters", "load_data"]


@dataclass(frozen=True)
class StudyData:
    """The data of a study: the filtered table, and what was read and dropped."""

    frame: pd.DataFrame
    inputs: dict[str, Any]
    filtered: dict[str, int] = field(default_factory=dict)
    item_features: pd.DataFrame | None = None


def _read(data: dict[str, Any]) -> tuple[pd.DataFrame, dict[str, Any], pd.DataFrame | None]:
    """The raw table, the record of where it came from, and a data set's genres."""
    import receval.datasets as datasets
    from receval.data._files import read_table

    name, path = data["dataset"], data["path"]
    params = dict(data["params"])
    if name is None:
        if params:
            raise ConfigError("data.params: only for a dataset (data.dataset)",
                              parameter="data.params")
        frame = read_table(path, role="truth", encoding=data["encoding"])
        return frame, {"path": path, "sha256": file_sha256(path)}, None
    try:
        if name == "sample_ratings":
            if path is not None:
                raise ConfigError("data.path: sample_ratings is built from a seed; give no "
                                  "path", parameter="data.path")
            frame = datasets.sample_ratings(**params)
            genres = datasets.sample_genres(frame, seed=params.get("seed", 7))
            return frame, {"dataset": name, "params": params,
                           "sha256": frame_sha256(frame)}, genres
        ml = datasets.movielens(name, path, **params)
    except TypeError as exc:  # an unknown keyword of the data set's function
        raise ConfigError(f"data.params: {exc}", parameter="data.params") from None
    record = {"dataset": name, "params": params, "path": ml.source,
              "sha256": file_sha256(ml.source)}
    return ml.ratings, record, ml.genres


def load_data(data: dict[str, Any], filters: dict[str, Any]) -> StudyData:
    """Read ``[data]``, apply ``[filters]``; errors name the key path."""
    from receval.models._data import canonical

    try:
        raw, record, genres = _read(data)
        frame = canonical(raw, data["columns"] or None)
    except ConfigError:
        raise
    except RecevalError as exc:
        raise type(exc)(f"data: {exc}", column=exc.column, parameter=exc.parameter or "data",
                        n_bad=exc.n_bad, examples=exc.examples) from None
    record["rows"] = len(frame)
    kept, dropped = apply_filters(frame, filters)
    if kept.empty:
        by_filter = "; ".join(f"{name} = {filters[name]} dropped {n:,}"
                              for name, n in dropped.items() if n)
        core = "" if not filters["k_core"] else f" (with k_core = {filters['k_core']})"
        raise EmptyInputError(f"filters: no row is left of the {len(frame):,} rows of the data; "
                              f"rows dropped by each filter{core}: {by_filter}",
                              parameter="filters")
    return StudyData(kept.reset_index(drop=True), record, dropped, genres)


def _counts(codes: np.ndarray, keep: np.ndarray) -> np.ndarray:
    return np.bincount(codes[keep], minlength=int(codes.max(initial=-1)) + 1)


def apply_filters(frame: pd.DataFrame, filters: dict[str, Any]) -> tuple[pd.DataFrame,
                                                                           dict[str, int]]:
    """The rows ``[filters]`` keeps, and how many rows each filter dropped.

    Vectorised: users and items are integer codes, counted with ``bincount``.
    """
    keep = np.ones(len(frame), dtype=bool)
    dropped = {"min_rating": 0, "min_user_interactions": 0, "min_item_interactions": 0}
    if filters["min_rating"] is not None:
        if "rating" not in frame.columns:
            raise ConfigError("filters.min_rating: the data has no rating column",
                              parameter="filters.min_rating")
        keep &= frame["rating"].to_numpy(dtype=float) >= float(filters["min_rating"])
        dropped["min_rating"] = int((~keep).sum())
    users = pd.factorize(frame["user_id"])[0]
    items = pd.factorize(frame["item_id"])[0]
    core = filters["k_core"] or 0
    need_user = max(int(filters["min_user_interactions"]), core)
    need_item = max(int(filters["min_item_interactions"]), core)
    for name, need in (("min_user_interactions", need_user),
                       ("min_item_interactions", need_item)):
        if need < 1:
            raise ConfigError(f"filters.{name}: must be >= 1, got {need}",
                              parameter=f"filters.{name}", examples=[need])
    while True:
        before = int(keep.sum())
        small = _counts(users, keep)[users] < need_user
        dropped["min_user_interactions"] += int((keep & small).sum())
        keep &= ~small
        small = _counts(items, keep)[items] < need_item
        dropped["min_item_interactions"] += int((keep & small).sum())
        keep &= ~small
        if not core or int(keep.sum()) == before:
            break
    return frame.loc[keep], dropped
