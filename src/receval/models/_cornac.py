"""``Cornac(model)``: any Cornac recommender behind the receval protocol.

Cornac (Salah et al., JMLR 2020; ``pip install "receval[cornac]"``) fits on a
``cornac.data.Dataset`` of (user, item, rating) triples. ``fit`` builds it with
``Dataset.from_uir`` from the training rows: the ``rating`` column (``rating=`` names
another) or, when ``train`` has none, 1.0 per row (one-class models such as BPR read only
which pairs exist). Cornac indexes users and items in order of first appearance; the adapter
maps receval's ids to Cornac's indexes once, at fit.

Scores are Cornac's ``model.score(user_idx)``, the ones ``model.rank`` and
``model.recommend`` sort by:

* ``MF`` (and ``SVD``): ``global_mean + u_biases[u] + i_biases[i] + u_factors[u] @
  i_factors[i]``; ``BPR`` (and ``WBPR``): ``i_biases[i] + u_factors[u] @ i_factors[i]`` —
  computed from the learned factors by blocked matrix products (float64), no per-user call;
* any other Recommender: ``model.score(user_idx)`` once per requested user (one Python call
  per user, each scoring the whole catalog); a user Cornac cannot score
  (``ScoreException``) gets ``model.default_score()`` for every item, as ``model.rank`` does.

Cornac sorts with ``argsort(...)[::-1]`` (equal scores in descending index order); receval
breaks ties by ``ties=`` (ascending item id by default), so lists differ only within tied
scores. ``predict`` exists for the rating-prediction models (``RATING_MODELS``, or
``rating_model=True``): Cornac's ``rate``, the rating clipped to the training range;
pairs with a user or item not in ``train`` get ``model.default_score()`` (the training mean),
clipped.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from receval.exceptions import InvalidModelError, InvalidParameterError
from receval.models._adapter import (
    LibraryAdapter,
    column_name,
    fit_or_raise,
    library,
    refuse_class,
    refuse_kind,
)
from receval.models._data import canonical, interactions

__all__ = ["RATING_MODELS", "Cornac"]

#: Cornac models whose score is a predicted rating (``Cornac(model)`` gets ``predict``)
RATING_MODELS = frozenset({"MF", "SVD", "PMF", "NMF", "BaselineOnly", "GlobalAvg", "SoRec",
                           "HFT", "NARRE", "ConvMF", "UserKNN", "ItemKNN", "MTER", "EFM",
                           "CTR", "FM"})


def _predicts(model: Any, rating_model: bool | None) -> bool:
    if rating_model is not None:
        return bool(rating_model)
    return type(model).__name__ in RATING_MODELS


def _refuse_sequential(model: Any) -> None:
    """Cornac's next-item and next-basket models score a history, not a user: refused."""
    import cornac.models as cm

    for base, history in (("NextItemRecommender", "history_items"),
                          ("NextBasketRecommender", "history_baskets")):
        kind = getattr(cm, base, None)
        if kind is not None and isinstance(model, kind):
            raise InvalidModelError(
                f"Cornac(): {type(model).__name__} is a Cornac {base}: it scores the items "
                f"that follow a session's or basket's history (score(user, {history})), fitted "
                f"on a SequentialDataset / BasketDataset, while rv.models.Cornac ranks items "
                f"for a user from a user-item Dataset. Sequential models are not supported: "
                f"score them with your own history and rv.models.ScoreFunction",
                parameter="model", examples=[type(model).__name__])


class Cornac(LibraryAdapter):
    """Adapter for a Cornac recommender (``cornac.models.Recommender``).

    Parameters
    ----------
    model : cornac.models.Recommender
        E.g. ``cornac.models.MF(k=10, seed=0)``, ``BPR(k=10, seed=0)``, ``ItemKNN(k=20)``;
        never fitted itself: each ``fit`` fits a new copy (``model_``,
        Cornac's own ``model.clone()``).
    rating : str or None
        Column of ``train`` Cornac sees as the rating (default ``"rating"``; when absent,
        or ``None``, 1.0 per row).
    rating_model : bool, optional
        Whether the model predicts ratings (then the adapter has ``predict``); default: by
        class name (:data:`RATING_MODELS`).
    unknown_users : {"skip", "error"}
        Users not in ``train``: no recommendations, or an error.

    Examples
    --------
    >>> from cornac.models import BPR                                # doctest: +SKIP
    >>> bpr = rv.models.Cornac(BPR(k=16, seed=0)).fit(train)          # doctest: +SKIP
    """

    extra = "cornac"

    def __new__(cls, model: Any = None, *, rating: str | None = "rating",
                rating_model: bool | None = None, unknown_users: str = "skip") -> Cornac:
        # (copy and pickle call __new__ with the class alone: the class is already chosen)
        if cls is Cornac and _predicts(model, rating_model):
            cls = CornacRating
        return super().__new__(cls)

    def __init__(self, model: Any, *, rating: str | None = "rating",
                 rating_model: bool | None = None, unknown_users: str = "skip") -> None:
        library("cornac", "cornac", "Cornac")
        from cornac.models import Recommender

        refuse_class(model, "Cornac", "a Cornac model instance")
        if not isinstance(model, Recommender):
            refuse_kind(model, "Cornac", "a cornac.models.Recommender")
        _refuse_sequential(model)
        column_name(rating, "rating")
        super().__init__(model, unknown_users=unknown_users)
        self.rating = rating
        self.rating_model = rating_model

    _params = ("model", "rating", "rating_model", "unknown_users")

    def _unfitted(self) -> Any:
        """Cornac's own unfitted copy, ``model.clone()`` (constructor parameters deep-copied)."""
        return fit_or_raise(self, self.model.clone)

    def fit(self, train: Any) -> Cornac:
        """Fit the wrapped model on a Cornac ``Dataset`` of the training rows."""
        from cornac.data import Dataset

        table = self._training(train)
        ratings = self._ratings(train, len(table))
        triples = list(zip(table["user_id"].tolist(), table["item_id"].tolist(),
                           ratings.tolist(), strict=True))
        data = fit_or_raise(self, Dataset.from_uir, triples)
        fit_or_raise(self, self.model_.fit, data)
        self.cornac_users_ = _positions(data.uid_map, self.users_)
        self.cornac_items_ = _positions(data.iid_map, self.items_)
        self._load_parameters()
        return self

    def _ratings(self, train: Any, n: int) -> np.ndarray:
        frame = canonical(train, name="train")
        if self.rating is None or self.rating not in frame.columns:
            if self.rating not in (None, "rating"):
                raise InvalidParameterError(
                    f"rating={self.rating!r} is not a column of train", parameter="rating",
                    examples=[self.rating])
            return np.ones(n, dtype=np.float64)
        return interactions(frame.assign(rating=frame[self.rating]), rating=True)[
            "rating"].to_numpy(dtype=np.float64)

    def _load_parameters(self) -> None:
        from cornac.models import BPR, MF

        m = self.model_
        u, i = self.cornac_users_, self.cornac_items_
        self.kind_ = "scores"
        if isinstance(m, (MF, BPR)) and getattr(m, "u_factors", None) is not None:
            self.kind_ = "factors"
            self.user_factors_ = np.asarray(m.u_factors, dtype=np.float64)[u]
            self.item_factors_ = np.asarray(m.i_factors, dtype=np.float64)[i]
            self.item_bias_ = np.asarray(m.i_biases, dtype=np.float64)[i]
            self.user_bias_ = np.zeros(len(u))
            if isinstance(m, MF):
                self.item_bias_ = self.item_bias_ + float(m.global_mean)
                self.user_bias_ = np.asarray(m.u_biases, dtype=np.float64)[u]

    def _score_users(self, codes: np.ndarray) -> np.ndarray:
        """``model.score`` of each user (Cornac's own call), columns in receval's item order."""
        from cornac.exception import ScoreException

        rows = np.empty((len(codes), len(self.items_)), dtype=np.float64)
        for r, user in enumerate(self.cornac_users_[codes]):  # one Cornac call per user
            try:
                scores = np.asarray(self.model_.score(int(user)), dtype=np.float64)
            except ScoreException:
                scores = np.full(self.model_.total_items, float(self.model_.default_score()))
            rows[r] = scores[self.cornac_items_]
        return rows

    def _scorer(self, codes: np.ndarray) -> np.ndarray:
        if self.kind_ == "factors":
            return (self.user_factors_[codes] @ self.item_factors_.T
                    + self.user_bias_[codes, None] + self.item_bias_[None, :])
        return self._score_users(codes)

    def _pair_scores(self, users: np.ndarray, items: np.ndarray) -> np.ndarray:
        if self.kind_ == "factors":
            return (np.einsum("ij,ij->i", self.user_factors_[users], self.item_factors_[items])
                    + self.user_bias_[users] + self.item_bias_[items])
        distinct, inverse = np.unique(users, return_inverse=True)
        return self._score_users(distinct)[inverse, items]


class CornacRating(Cornac):
    """A Cornac rating-prediction model: ``Cornac`` with ``predict`` (Cornac's ``rate``)."""

    def predict(self, pairs: Any) -> pd.DataFrame:
        """Cornac's clipped rating of each pair: ``user_id, item_id, score`` in their order.

        ``MF`` / ``SVD``: the score from the learned factors, clipped to the training rating
        range; any other model: ``model.rate(user_idx, item_idx)`` (one Python call per pair,
        the call Cornac's own rating metrics make — for ``PMF`` it differs from the ranking
        score, which Cornac computes without the sigmoid).
        """
        table, u, i = self._pairs(pairs)
        ok = (u >= 0) & (i >= 0)
        est = np.full(len(table), float(self.model_.default_score()))
        if self.kind_ == "factors":
            est[ok] = self._pair_scores(u[ok].astype(np.int64), i[ok].astype(np.int64))
        else:
            cu, ci = self.cornac_users_[u[ok]], self.cornac_items_[i[ok]]
            est[ok] = [float(self.model_.rate(int(a), int(b), clipping=False))
                       for a, b in zip(cu, ci, strict=True)]
        low, high = float(self.model_.min_rating), float(self.model_.max_rating)
        return table.reset_index(drop=True).assign(score=np.clip(est, low, high))


def _positions(mapping: dict[Any, int], ids: pd.Index) -> np.ndarray:
    """Cornac's index of each of ``ids`` (every id is in ``mapping``)."""
    keys = pd.Index(list(mapping.keys()))
    values = np.fromiter(mapping.values(), dtype=np.int64, count=len(mapping))
    return values[keys.get_indexer(ids)]
