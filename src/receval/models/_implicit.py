"""``Implicit(model)``: a model of the ``implicit`` library behind the receval protocol.

implicit (Frederickson; ``pip install "receval[implicit]"``) fits on a user x item CSR
matrix of *confidences*. ``fit`` builds it from the training rows: user codes are rows, item
codes columns (ids in ascending order), and each row of ``train`` adds its confidence to its
cell — 1.0 per row by default (``weight=None``: a cell is the number of times the pair was
seen), or the value of a column (``weight="rating"``, ``weight="count"``; finite, summed over
repeated pairs). ALS's own ``alpha`` then scales the confidences as implicit documents.

Scores, as implicit's own ``recommend`` computes them:

* matrix factorisation (``AlternatingLeastSquares``, ``BayesianPersonalizedRanking``,
  ``LogisticMatrixFactorization``): ``user_factors[u] @ item_factors[i]`` (BPR and LMF keep
  their biases as extra factor columns, so the product includes them). implicit computes in
  float32; receval in float64 from the same float32 factors, so the lists are implicit's
  except where two scores differ by less than float32 rounding (about 1e-7 relative);
* nearest neighbours (``ItemItemRecommender``, ``CosineRecommender``, ``BM25Recommender``,
  ``TFIDFRecommender``): ``sum_j C[u, j] * similarity[j, i]`` over the user's training
  confidences ``C[u]``. implicit lists only the items reached through the similarity graph;
  receval ranks the whole catalog, so an item not reached has score 0 and comes after
  every reached item with a positive score (ties among them by ``ties=``).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from receval.exceptions import InvalidParameterError, NonFiniteValueError
from receval.models._adapter import (
    LibraryAdapter,
    column_name,
    fit_or_raise,
    library,
    refuse_class,
    refuse_kind,
)
from receval.models._data import canonical

__all__ = ["Implicit"]


class Implicit(LibraryAdapter):
    """Adapter for a model of the ``implicit`` library (ALS, BPR, LMF, item-item kNN).

    Parameters
    ----------
    model : implicit.recommender_base.RecommenderBase
        An implicit model, e.g. ``implicit.als.AlternatingLeastSquares(factors=64)``; it is
        never fitted itself: each ``fit`` fits a new copy (``model_``).
    weight : str, optional
        Column of ``train`` whose values are the confidences; default 1.0 per row.
    unknown_users : {"skip", "error"}
        Users not in ``train``: no recommendations (their number in ``unknown_users_``), or
        an error.

    Examples
    --------
    >>> from implicit.als import AlternatingLeastSquares            # doctest: +SKIP
    >>> als = rv.models.Implicit(AlternatingLeastSquares(factors=64, random_state=0))
    >>> als.fit(train).recommend(test["user_id"].unique(), 10, exclude=train)  # doctest: +SKIP
    """

    extra = "implicit"

    def __init__(self, model: Any, *, weight: str | None = None,
                 unknown_users: str = "skip") -> None:
        library("implicit", "implicit", "Implicit")
        from implicit.cpu.matrix_factorization_base import MatrixFactorizationBase
        from implicit.nearest_neighbours import ItemItemRecommender
        from implicit.recommender_base import RecommenderBase

        if isinstance(model, type) and issubclass(model, RecommenderBase):
            refuse_class(model, "Implicit", "an implicit model instance")
        gpu = isinstance(model, RecommenderBase) and hasattr(model, "to_cpu")
        if not isinstance(model, (MatrixFactorizationBase, ItemItemRecommender)) and not gpu:
            refuse_kind(model, "Implicit", "implicit's matrix factorisation (ALS, BPR, LMF) "
                        "and item-item models")
        column_name(weight, "weight")
        super().__init__(model, unknown_users=unknown_users)
        self.weight = weight

    _params = ("model", "weight", "unknown_users")

    def fit(self, train: Any) -> Implicit:
        """Fit the wrapped model on the user x item confidence matrix of ``train``."""
        import scipy.sparse as sp
        from implicit.nearest_neighbours import ItemItemRecommender
        from threadpoolctl import threadpool_limits

        table = self._training(train)
        conf = self._confidences(train, len(table))
        shape = (len(self.users_), len(self.items_))
        # factor models fit on float32, the item-item models' kernels on float64
        dtype = np.float64 if isinstance(self.model, ItemItemRecommender) else np.float32
        user_items = sp.csr_matrix((conf, (self.user_codes_, self.item_codes_)), shape=shape,
                                   dtype=dtype)
        user_items.sum_duplicates()
        self.user_items_ = user_items
        # implicit asks for a single-threaded BLAS while it fits (its own threads do the work)
        # (and its item-item models warn about a COO matrix they build themselves)
        with threadpool_limits(1, "blas"), warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Method expects CSR input")
            fit_or_raise(self, self.model_.fit, user_items, show_progress=False)
        self._load_parameters()
        return self

    def _confidences(self, train: Any, n: int) -> np.ndarray:
        if self.weight is None:
            return np.ones(n, dtype=np.float32)
        frame = canonical(train, name="train")
        if self.weight not in frame.columns:
            raise InvalidParameterError(
                f"weight={self.weight!r} is not a column of train (columns: "
                f"{[str(c) for c in frame.columns]})", parameter="weight",
                examples=[self.weight])
        values = frame[self.weight].to_numpy(dtype=np.float64, na_value=np.nan)
        bad = np.flatnonzero(~np.isfinite(values))
        if len(bad):
            raise NonFiniteValueError(
                f"train: the weight column {self.weight!r} has {len(bad)} missing or "
                f"non-finite values", column=self.weight, n_bad=len(bad),
                examples=bad[:5].tolist())
        return values.astype(np.float32)

    def _load_parameters(self) -> None:
        from implicit.nearest_neighbours import ItemItemRecommender

        model = self.model_
        if isinstance(model, ItemItemRecommender):
            self.kind_ = "neighbours"
            self.similarity_ = model.similarity.tocsr().astype(np.float64)
            self.confidence_ = self.user_items_.astype(np.float64)
            return
        if not isinstance(getattr(model, "user_factors", None), np.ndarray):
            model = model.to_cpu()  # a GPU model: its factors, copied to the host
        self.kind_ = "factors"
        self.user_factors_ = np.asarray(model.user_factors, dtype=np.float64)
        self.item_factors_ = np.asarray(model.item_factors, dtype=np.float64)

    def _scorer(self, codes: np.ndarray) -> np.ndarray:
        if self.kind_ == "factors":
            return self.user_factors_[codes] @ self.item_factors_.T
        return (self.confidence_[codes] @ self.similarity_).toarray()

    def _pair_scores(self, users: np.ndarray, items: np.ndarray) -> np.ndarray:
        if self.kind_ == "factors":
            return np.einsum("ij,ij->i", self.user_factors_[users], self.item_factors_[items])
        rows = self.confidence_[users]
        cols = self.similarity_.T.tocsr()[items]
        return np.asarray(rows.multiply(cols).sum(axis=1)).ravel()
