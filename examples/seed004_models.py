"""The two models of seed 004, for ``examples/seed004.toml`` (found beside the config).

``NormalScores`` is the seed's random model: ``np.random.seed(10)`` and one N(0, 1) score per
training row, in row order. ``KNN50`` is Surprise's ``KNNBasic(k=50)`` scoring every item
(``candidates="all"``: in the seed every user rated every item, and train = test).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from surprise import KNNBasic

import receval as rv


class NormalScores:
    """Seed 004's random model: one N(0, 1) score per training row (``RandomState(seed)``)."""

    def __init__(self, seed: int = 10) -> None:
        self.seed = seed

    def fit(self, train: pd.DataFrame) -> NormalScores:
        """Draw one score per training row, in row order (the seed's ``np.random.seed(10)``)."""
        rng = np.random.RandomState(self.seed)
        self.scores = train[["user_id", "item_id"]].assign(score=rng.normal(size=len(train)))
        return self

    def predict(self, pairs: Any) -> pd.DataFrame:
        """The drawn score of each asked (user, item) pair."""
        return pairs[["user_id", "item_id"]].merge(self.scores, on=["user_id", "item_id"])


class KNN50(rv.models.Surprise):
    """``rv.models.Surprise(KNNBasic(k=k, verbose=False), candidates="all")``."""

    def __init__(self, k: int = 50) -> None:
        super().__init__(KNNBasic(k=k, verbose=False), candidates="all")
        self.k = k
