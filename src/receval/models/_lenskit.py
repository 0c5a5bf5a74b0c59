"""``LensKit(scorer_or_pipeline)``: a LensKit (2025.x) scorer or pipeline behind the protocol.

LensKit (Ekstrand; ``pip install "receval[lenskit]"``; LensKit 2025.8 needs pandas 2) trains
pipelines on a ``lenskit.data.Dataset``. ``fit`` builds it with ``from_interactions_df`` from
the training rows (``user_id``, ``item_id`` and the ``rating`` column when ``train`` has one;
``rating=`` names another, ``None`` leaves ratings out) and trains a new, untrained copy
(``model_``) of the pipeline given (``Pipeline.clone()``), or, for a scorer component, LensKit's
own ``topn_pipeline`` of a new scorer with the same config (with
``predicts_ratings=True`` for rating predictors, which adds LensKit's ``BiasScorer``
fallback).

Scores are those of the pipeline's ``"scorer"`` node, run once per requested user on every
training item (LensKit's scorers take one query at a time: one pipeline run per user). Items
the scorer leaves unscored (NaN: no neighbours, no embedding) are not ranked, as LensKit's
``TopNRanker`` leaves them out. receval then selects the top k itself — with ``exclude``
(LensKit's own candidate selector leaves out the user's training items, i.e. ``exclude=
train``) and ``ties=`` (LensKit's order of equal scores is not specified); the pipeline's
ranker or reranker is not used. ``predict`` exists when the pipeline predicts ratings (a
``"rating-predictor"`` node): LensKit's predictions of every pair asked, fallback included
(users and items not in ``train`` as well).
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pandas as pd

from receval.exceptions import InvalidModelError, InvalidParameterError
from receval.models._adapter import (
    LibraryAdapter,
    changed_params,
    column_name,
    fit_or_raise,
    library,
    refuse_class,
    refuse_kind,
)
from receval.models._data import canonical, interactions

__all__ = ["RATING_SCORERS", "LensKit"]

#: LensKit scorers that predict ratings (explicit-feedback kNN scorers as well)
RATING_SCORERS = frozenset({"BiasScorer", "BiasedMFScorer", "FunkSVDScorer"})


def _rating_scorer(scorer: Any) -> bool:
    name = type(scorer).__name__
    if name in ("ItemKNNScorer", "UserKNNScorer"):
        return getattr(getattr(scorer, "config", None), "feedback", None) == "explicit"
    return name in RATING_SCORERS


class LensKit(LibraryAdapter):
    """Adapter for a LensKit 2025.x scorer component or recommendation pipeline.

    Parameters
    ----------
    model : lenskit.pipeline.Component or lenskit.pipeline.Pipeline
        A scorer, e.g. ``ImplicitMFScorer(embedding_size=32)``, or a pipeline with a
        ``"scorer"`` node (e.g. from ``topn_pipeline``); never trained itself: each ``fit``
        trains a new copy (``model_``).
    rating : str or None
        Column of ``train`` LensKit sees as the rating (default ``"rating"`` when present).
    unknown_users : {"skip", "error"}
        Users not in ``train``: no recommendations, or an error.

    Examples
    --------
    >>> from lenskit.als import ImplicitMFScorer                      # doctest: +SKIP
    >>> mf = rv.models.LensKit(ImplicitMFScorer(embedding_size=32)).fit(train)  # doctest: +SKIP
    """

    extra = "lenskit"

    def __new__(cls, model: Any = None, *, rating: str | None = "rating",
                unknown_users: str = "skip") -> LensKit:
        # (copy and pickle call __new__ with the class alone: the class is already chosen)
        if cls is LensKit and _predicts(model):
            cls = LensKitRating
        return super().__new__(cls)

    def __init__(self, model: Any, *, rating: str | None = "rating",
                 unknown_users: str = "skip") -> None:
        library("lenskit", "lenskit", "LensKit")
        from lenskit.pipeline import Component, Pipeline

        if isinstance(model, type):
            refuse_class(model, "LensKit", "a scorer instance or a pipeline")
        if isinstance(model, Pipeline):
            if "scorer" not in {node.name for node in model.nodes()}:
                raise InvalidModelError("LensKit(): the pipeline has no 'scorer' node",
                                        parameter="model")
        elif not isinstance(model, Component):
            refuse_kind(model, "LensKit", "a LensKit scorer component or pipeline")
        column_name(rating, "rating")
        super().__init__(model, unknown_users=unknown_users)
        self.rating = rating

    _params = ("model", "rating", "unknown_users")

    def _unfitted(self) -> Any:
        """A new, untrained copy: ``Pipeline.clone()``, or the scorer built from its config.

        (LensKit's components skip ``train`` once trained, so the same instance would keep
        the first training data.)
        """
        clone = getattr(self.model, "clone", None)
        if callable(getattr(self.model, "nodes", None)) and callable(clone):
            return fit_or_raise(self, clone)
        return fit_or_raise(self, type(self.model), config=copy.deepcopy(self.model.config))

    def __repr__(self) -> str:
        node = getattr(self.model, "node", None)
        if not callable(node):
            return super().__repr__()
        scorer = getattr(node("scorer"), "component", None)  # a pipeline: name its scorer
        inner = ", ".join(f"{k}={v!r}" for k, v in changed_params(scorer).items())
        return f"{type(self).__name__}(Pipeline(scorer={type(scorer).__name__}({inner})))"

    def fit(self, train: Any) -> LensKit:
        """Train the pipeline on a LensKit ``Dataset`` of the training rows."""
        from lenskit.data import from_interactions_df
        from lenskit.pipeline import Pipeline, topn_pipeline

        table = self._training(train)
        frame = canonical(train, name="train")
        rating_col = None
        if self.rating is not None and self.rating in frame.columns:
            rating_col = "rating"
            table = table.assign(rating=interactions(
                frame.assign(rating=frame[self.rating]), rating=True)["rating"].to_numpy())
        elif self.rating not in (None, "rating"):
            raise InvalidParameterError(f"rating={self.rating!r} is not a column of train",
                                        parameter="rating", examples=[self.rating])
        data = fit_or_raise(self, from_interactions_df, pd.DataFrame(table),
                            user_col="user_id", item_col="item_id", rating_col=rating_col)
        if isinstance(self.model_, Pipeline):
            pipeline = self.model_
        else:
            pipeline = topn_pipeline(self.model_, predicts_ratings=_rating_scorer(self.model_))
        fit_or_raise(self, pipeline.train, data)
        self.pipeline_ = pipeline
        return self

    def _run(self, node: str, user: Any, codes: np.ndarray) -> np.ndarray:
        """One pipeline run of ``node`` for ``user`` on items ``codes``; NaN -> -inf."""
        from lenskit.data import ItemList

        out = self.pipeline_.run(node, query=_plain(user),
                                 items=ItemList(item_ids=self.items_.take(codes).to_numpy()))
        where = self.items_.get_indexer(pd.Index(out.ids()))
        scores = np.asarray(out.scores(), dtype=np.float64)
        row = np.full(len(self.items_), -np.inf)
        row[where] = np.where(np.isnan(scores), -np.inf, scores)
        return row[codes]

    def _scorer(self, codes: np.ndarray) -> np.ndarray:
        every = np.arange(len(self.items_))
        rows = np.empty((len(codes), len(every)), dtype=np.float64)
        for r, user in enumerate(self.users_.take(codes)):  # one pipeline run per user
            rows[r] = self._run("scorer", user, every)
        return rows

    def _pair_scores(self, users: np.ndarray, items: np.ndarray) -> np.ndarray:
        return self._per_user("scorer", users, items)

    def _per_user(self, node: str, users: np.ndarray, items: np.ndarray) -> np.ndarray:
        out = np.empty(len(users), dtype=np.float64)
        order = np.argsort(users, kind="stable")
        starts = np.flatnonzero(np.r_[True, np.diff(users[order]) != 0])
        for a, b in zip(starts, np.r_[starts[1:], len(order)], strict=True):  # one run per user
            pick = order[a:b]
            out[pick] = self._run(node, self.users_[users[pick[0]]], items[pick])
        return out


class LensKitRating(LensKit):
    """A LensKit rating predictor: ``LensKit`` with ``predict`` (its ``rating-predictor``)."""

    def predict(self, pairs: Any) -> pd.DataFrame:
        """LensKit's rating prediction of each pair: ``user_id, item_id, score``.

        Every pair goes to the pipeline's ``"rating-predictor"`` (one run per user), users
        and items not in ``train`` included: LensKit's fallback predicts them. Pairs LensKit
        leaves unpredicted (NaN) are left out: missing predictions.
        """
        from lenskit.data import ItemList

        self._require_fitted()
        table = canonical(pairs, name="pairs")[["user_id", "item_id"]].reset_index(drop=True)
        values = np.full(len(table), np.nan)
        item_ids = table["item_id"].to_numpy()
        groups = table.groupby("user_id", sort=False).indices
        for user, rows in groups.items():  # one pipeline run per user
            asked = pd.unique(item_ids[rows])
            out = self.pipeline_.run("rating-predictor", query=_plain(user),
                                     items=ItemList(item_ids=asked))
            got = pd.Series(np.asarray(out.scores(), dtype=np.float64),
                            index=pd.Index(out.ids())).groupby(level=0).first()
            values[rows] = got.reindex(pd.Index(item_ids[rows])).to_numpy()
        keep = np.isfinite(values)
        self.unpredicted_ = int((~keep).sum())
        return table.assign(score=values).loc[keep].reset_index(drop=True)


def _predicts(model: Any) -> bool:
    """Whether the wrapped scorer or pipeline predicts ratings."""
    nodes = getattr(model, "nodes", None)
    if callable(nodes) and not isinstance(model, type):
        try:
            return "rating-predictor" in {node.name for node in nodes()}
        except Exception:  # not a LensKit pipeline: __init__ says what it is
            return False
    return _rating_scorer(model)


def _plain(value: Any) -> Any:
    """A numpy scalar id as the Python value LensKit's vocabularies look up."""
    item = getattr(value, "item", None)
    return item() if callable(item) and type(value).__module__ == "numpy" else value
