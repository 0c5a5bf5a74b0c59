"""The model protocol: what ``rv.cross_validate`` calls on a model (duck-typed)."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

__all__ = ["Model", "Predictor", "Recommender"]


@runtime_checkable
class Model(Protocol):
    """Anything with ``fit(train)``; a useful model also has ``recommend`` or ``predict``.

    ``train`` is a pandas DataFrame with the columns ``user_id``, ``item_id`` and, when the
    data has them, ``rating`` and ``timestamp`` (plus any other column of the data).
    ``fit`` may return anything (``self`` by convention).
    """

    def fit(self, train: Any) -> Any:
        """Learn from the training rows."""


@runtime_checkable
class Recommender(Model, Protocol):
    """A model that ranks items: ``recommend(users, k, exclude=None)``.

    Returns a table ``user_id, item_id, score`` (higher is better) with at most ``k`` rows
    per requested user, no repeated (user, item) pair, no NaN score, only items of the data,
    and no pair of ``exclude`` (a table of (user, item) pairs, e.g. the training rows).
    """

    def recommend(self, users: Any, k: int, exclude: Any = None) -> Any:
        """Top-``k`` items for each of ``users``."""


@runtime_checkable
class Predictor(Model, Protocol):
    """A model that predicts ratings: ``predict(pairs)``.

    ``pairs`` is a table with ``user_id`` and ``item_id``; the result is either a table
    ``user_id, item_id, score`` (each pair at most once; pairs left out are missing
    predictions) or one number per row of ``pairs``, in order. NaN is an error.
    """

    def predict(self, pairs: Any) -> Any:
        """Predicted rating of each (user, item) pair."""
