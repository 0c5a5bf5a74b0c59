"""``Surprise(algo)``: any Surprise algorithm behind the receval model protocol.

Surprise (Hug, JOSS 2020; ``pip install receval[surprise]``) is imported only when a
:class:`Surprise` model is fitted.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from receval.exceptions import BackendUnavailableError, InvalidParameterError
from receval.models._base import FittedIds, check_k, rank_by_predict, requested_users
from receval.models._data import exclusion_csr, interactions
from receval.models._params import Params

__all__ = ["Surprise"]

_CANDIDATES = ("unseen", "all")


class Surprise(Params, FittedIds):
    """Adapter for a Surprise prediction algorithm (any ``surprise.AlgoBase``).

    ``fit`` builds a Surprise ``Reader`` whose ``rating_scale`` is the (min, max) of the
    training ratings — not Surprise's default (1, 5), which would clip 0/1 relevance (seed
    004) to 1 — loads the rows with ``Dataset.load_from_df`` and fits ``algo`` on the full
    trainset. ``predict`` returns Surprise's own estimates (``algo.test``, clipped to that
    scale as ``algo.predict`` does); pairs Surprise cannot predict (unknown user or item, too
    few neighbours) get Surprise's default prediction, the training mean, and are counted in
    ``fallbacks_["impossible"]``.

    ``recommend`` ranks candidate items by predicted rating: by default (``candidates=
    "unseen"``) every training item not in the user's training rows, minus ``exclude``;
    ``"all"`` keeps the training items too. Ties are broken by ascending item id. Cost: one
    Surprise prediction (a Python call) per (user, candidate) pair, in batches of about 2^20
    pairs through ``algo.test`` — about users x items predictions, which is seconds for
    thousands of users and hundreds of items and hours for MovieLens-25M.

    Parameters
    ----------
    algo : surprise.AlgoBase
        An unfitted Surprise algorithm, e.g. ``KNNBasic(k=50)``.
    candidates : {"unseen", "all"}
        Candidate items of ``recommend``.

    Examples
    --------
    >>> from surprise import KNNBasic                     # doctest: +SKIP
    >>> model = rv.models.Surprise(KNNBasic(k=50, verbose=False)).fit(train)  # doctest: +SKIP
    """

    def __init__(self, algo: Any, *, candidates: str = "unseen") -> None:
        if not (hasattr(algo, "fit") and hasattr(algo, "test")):
            raise InvalidParameterError(
                f"algo must be a Surprise algorithm (an AlgoBase with fit and test), got "
                f"{type(algo).__name__}", parameter="algo")
        if candidates not in _CANDIDATES:
            raise InvalidParameterError(
                f"candidates must be one of {_CANDIDATES}, got {candidates!r}",
                parameter="candidates", examples=[candidates])
        self.algo = algo
        self.candidates = candidates

    def fit(self, train: Any) -> Surprise:
        """Fit ``algo`` on ``train`` (``user_id, item_id, rating``) with its own scale."""
        try:
            from surprise import Dataset, Reader
        except ImportError:  # pragma: no cover - depends on the environment
            raise BackendUnavailableError(
                "rv.models.Surprise needs scikit-surprise: pip install 'receval[surprise]'",
                parameter="algo") from None
        table = interactions(train, rating=True)
        if not len(table):
            raise InvalidParameterError("train is empty", parameter="train")
        self._index(table)
        ratings = table["rating"].to_numpy(dtype=np.float64)
        self.rating_scale_ = (float(ratings.min()), float(ratings.max()))
        reader = Reader(rating_scale=self.rating_scale_)
        data = Dataset.load_from_df(table.assign(rating=ratings), reader)
        self.algo.fit(data.build_full_trainset())
        self.fallbacks_: dict[str, int] = {}
        return self

    def predict(self, pairs: Any) -> pd.DataFrame:
        """Surprise's estimate for each pair: ``user_id, item_id, score`` in their order."""
        table, _, _ = self._pairs(pairs)
        testset = list(zip(table["user_id"].tolist(), table["item_id"].tolist(),
                           [0.0] * len(table), strict=True))
        predictions = self.algo.test(testset)
        est = np.fromiter((p.est for p in predictions), dtype=np.float64, count=len(table))
        impossible = sum(bool(p.details.get("was_impossible", False)) for p in predictions)
        self.fallbacks_ = {"impossible": int(impossible)}
        return table.assign(score=est)

    def recommend(self, users: Any, k: int, exclude: Any = None) -> pd.DataFrame:
        """The ``k`` candidates with the highest predicted rating per user."""
        self._require_fitted()
        k, index = check_k(k), requested_users(users)
        off, codes = exclusion_csr(exclude, index, self.items_)
        if self.candidates == "unseen":
            seen = pd.DataFrame({"user_id": self.users_.take(self.user_codes_),
                                 "item_id": self.items_.take(self.item_codes_)})
            extra = None if exclude is None else pd.DataFrame({
                "user_id": index.take(np.repeat(np.arange(len(index)), np.diff(off))),
                "item_id": self.items_.take(codes)})
            both = seen if extra is None else pd.concat([seen, extra], ignore_index=True)
            off, codes = exclusion_csr(both, index, self.items_)
        return rank_by_predict(self.predict, repr(self), index, self.items_, (off, codes), k)
