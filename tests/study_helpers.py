"""Models and configs shared by the study tests (importable as ``tests.study_helpers:Spy``)."""

from __future__ import annotations

import itertools
from typing import Any, ClassVar

import pandas as pd

import receval as rv

_SERIALS = itertools.count()


class Spy(rv.models.ItemMean):
    """ItemMean that logs the (user, item) pairs of every fit and predict call.

    ``Spy.LOG`` holds ``(instance serial, method, frozenset of pairs, rows)``; ``forbidden``
    pairs make ``fit`` raise (a model that must never be trained on them). The serial is a
    counter, not ``id(self)``: a collected instance's id is reused by the next one.
    """

    LOG: ClassVar[list[tuple[int, str, frozenset[tuple[Any, Any]], int]]] = []

    def __init__(self, shrinkage: float = 0.0, forbidden: tuple[Any, ...] = ()) -> None:
        super().__init__(shrinkage)
        self.forbidden = tuple(forbidden)
        self._serial = next(_SERIALS)

    def _log(self, method: str, table: Any) -> frozenset[tuple[Any, Any]]:
        frame = pd.DataFrame(table)
        pairs = frozenset(zip(frame["user_id"], frame["item_id"], strict=True))
        Spy.LOG.append((self._serial, method, pairs, len(frame)))
        return pairs

    def fit(self, train: Any) -> Spy:
        pairs = self._log("fit", train)
        seen = pairs & set(map(tuple, self.forbidden))
        if seen:
            raise AssertionError(f"fit saw {len(seen)} forbidden (test) rows")
        return super().fit(train)

    def predict(self, pairs: Any) -> pd.DataFrame:
        self._log("predict", pairs)
        return super().predict(pairs)


def toy_config(folder: Any, **sections: Any) -> dict[str, Any]:
    """A small study: 50 users x 30 items of the sample data, 2 folds, two baselines."""
    config: dict[str, Any] = {
        "name": "toy",
        "data": {"dataset": "sample_ratings",
                 "params": {"n_users": 50, "n_items": 30, "seed": 1}},
        "split": {"method": "kfold", "n_splits": 2, "seed": 0},
        "models": {"pop": "most-popular", "im": "item-mean:shrinkage=2"},
        "evaluate": {"metrics": ["ndcg@5", "rmse"], "k": 5, "relevance_threshold": 4},
        "outputs": {"folder": str(folder), "report": False},
    }
    config.update(sections)
    return config
