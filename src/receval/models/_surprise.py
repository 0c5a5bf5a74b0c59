"""``Surprise(algo)``: any Surprise algorithm behind the receval model protocol, vectorised.

Surprise (Hug, JOSS 2020; ``pip install receval[surprise]``) is imported only when a
:class:`Surprise` model is fitted. The built-in algorithms are scored from their fitted
parameters (:mod:`receval.models._surprise_factors`, :mod:`receval.models._surprise_knn`);
any other ``AlgoBase`` is asked one ``predict`` per pair (the slow path).
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any

import numpy as np
import pandas as pd

from receval.exceptions import (
    BackendUnavailableError,
    InvalidParameterError,
    RecevalWarning,
    TiesAtCutoffWarning,
    warn,
)
from receval.models._adapter import refuse_class
from receval.models._base import FittedIds, check_k, frame, requested_users
from receval.models._data import exclusion_csr
from receval.models._params import Params
from receval.models._rank import block_rows, top_k_scores, warn_ties
from receval.models._surprise_factors import (
    BaselineScorer,
    CoClusteringScorer,
    Estimates,
    FactorScorer,
)
from receval.models._surprise_knn import KNNScorer, SlopeOneScorer, neighbour_ties

__all__ = ["VECTORISED", "Surprise"]

_CANDIDATES = ("unseen", "all")

#: Surprise algorithm -> the scorer that computes its estimates from its parameters.
VECTORISED: dict[str, Any] = {
    "SVD": FactorScorer, "SVDpp": FactorScorer, "NMF": FactorScorer,
    "BaselineOnly": BaselineScorer, "CoClustering": CoClusteringScorer,
    "SlopeOne": SlopeOneScorer, "KNNBasic": KNNScorer, "KNNWithMeans": KNNScorer,
    "KNNWithZScore": KNNScorer, "KNNBaseline": KNNScorer,
}

#: The slow path prints a progress line per block when a call scores at least this many pairs.
PROGRESS_MIN = 100_000


class _PerPair:
    """The slow path: one ``algo.predict(u, i, clip=False)`` (a Python call) per pair."""

    def __init__(self, algo: Any, trainset: Any, items: np.ndarray, name: str) -> None:
        self.algo, self.name = algo, name
        self.raw_users = [trainset.to_raw_uid(u) for u in range(trainset.n_users)]
        self.raw_items = [trainset.to_raw_iid(i) for i in range(trainset.n_items)]
        self.items = items
        self.pairs_asked = 0

    def _raw(self, codes: np.ndarray, raw: list[Any]) -> list[Any]:
        unknown = object()  # Surprise maps an id it does not know to "UKN__..."
        return [raw[c] if c >= 0 else unknown for c in codes.tolist()]

    def pairs(self, users: np.ndarray, items: np.ndarray) -> Estimates:
        us, its = self._raw(users, self.raw_users), self._raw(items, self.raw_items)
        preds = [self.algo.predict(u, i, clip=False) for u, i in zip(us, its, strict=True)]
        self.pairs_asked += len(preds)
        est = np.fromiter((p.est for p in preds), dtype=np.float64, count=len(preds))
        imp = np.fromiter((bool(p.details.get("was_impossible", False)) for p in preds),
                          dtype=bool, count=len(preds))
        return Estimates(est, imp)

    def grid(self, users: np.ndarray) -> Estimates:
        n = len(self.items)
        got = self.pairs(np.repeat(users, n), np.tile(self.items, len(users)))
        return Estimates(got.est.reshape(len(users), n), got.impossible.reshape(len(users), n))


class Surprise(Params, FittedIds):
    """Adapter for a Surprise prediction algorithm (any ``surprise.AlgoBase``).

    ``fit`` builds a Surprise ``Reader`` whose ``rating_scale`` is the (min, max) of the
    training ratings — not Surprise's default (1, 5), which would clip 0/1 relevance (seed
    004) to 1 — loads the rows with ``Dataset.load_from_df`` and fits ``algo`` on the full
    trainset; what the algorithm prints while fitting (``verbose``: "Computing the msd
    similarity matrix...") goes to stderr, never into a table written to stdout.

    **Vectorised.** For SVD, SVDpp, NMF, BaselineOnly, CoClustering, SlopeOne and the k-NN
    family (KNNBasic, KNNWithMeans, KNNWithZScore, KNNBaseline; user- or item-based; any
    similarity, ``k`` and ``min_k``) the estimates are computed from the fitted algorithm's
    own parameters (factors and biases with BLAS products; similarities and training
    ratings in compiled code), equal to ``algo.predict(u, i, clip=False).est`` to 1e-9
    relative, Surprise's special cases included: a pair Surprise cannot predict (unknown
    user or item, fewer than ``min_k`` neighbours) gets its default prediction, the
    training mean (counted in ``fallbacks_["impossible"]``). KNNBasic with ``min_k=0`` and
    no positive neighbour, where Surprise divides by zero, gets the default prediction too.
    Subclasses and other algorithms take the **slow path**: one ``algo.predict`` per pair, a
    :class:`~receval.exceptions.RecevalWarning` at fit, progress lines on stderr for large
    calls, and the number of pairs in ``fallbacks_["per_pair_predict"]``.

    ``predict`` returns the estimates clipped to the rating scale (as ``algo.predict``);
    ``score`` and ``recommend`` use the unclipped estimates (clipping creates ties at the
    scale's ends). ``recommend`` ranks every training item not in the user's training rows
    (``candidates="unseen"``; ``"all"`` keeps them), minus ``exclude``.

    Parameters
    ----------
    algo : surprise.AlgoBase
        An unfitted Surprise algorithm, e.g. ``KNNBasic(k=50)``.
    candidates : {"unseen", "all"}
        Candidate items of ``recommend``. :func:`receval.cross_validate` with
        ``exclude_seen=False`` fits its copies with ``"all"``.
    vectorised : bool
        ``False`` forces the slow path (one ``predict`` per pair), e.g. to time it.

    Attributes
    ----------
    path_ : str
        ``"vectorised"`` or ``"per-pair predict"``, after ``fit``.
    tied_users_ : int
        Users of the last ``recommend`` whose list was cut inside a group of ties.

    Examples
    --------
    >>> from surprise import KNNBasic                     # doctest: +SKIP
    >>> model = rv.models.Surprise(KNNBasic(k=50, verbose=False)).fit(train)  # doctest: +SKIP
    >>> model.recommend(users, k=10, exclude=train, ties="neighbours")  # doctest: +SKIP
    """

    def __init__(self, algo: Any, *, candidates: str = "unseen", vectorised: bool = True
                 ) -> None:
        refuse_class(algo, "Surprise", "a Surprise algorithm instance", parameter="algo")
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
        self.vectorised = bool(vectorised)

    @property
    def _label(self) -> str:
        """The short name messages use: ``Surprise(KNNBasic)`` (``repr`` lists every parameter)."""
        return f"Surprise({type(self.algo).__name__})"

    def fit(self, train: Any) -> Surprise:
        """Fit ``algo`` on ``train`` (``user_id, item_id, rating``) with its own scale."""
        try:
            from surprise import Dataset, Reader
        except ImportError:  # pragma: no cover - depends on the environment
            raise BackendUnavailableError(
                "rv.models.Surprise needs scikit-surprise: pip install 'receval[surprise]'",
                parameter="algo") from None
        table = self._fit_table(train, rating=True)
        ratings = table["rating"].to_numpy(dtype=np.float64)
        self.rating_scale_ = (float(ratings.min()), float(ratings.max()))
        reader = Reader(rating_scale=self.rating_scale_)
        data = Dataset.load_from_df(table.assign(rating=ratings), reader)
        trainset = data.build_full_trainset()
        with contextlib.redirect_stdout(sys.stderr):  # k-NN's "Computing the ... matrix"
            self.algo.fit(trainset)
        self.fallbacks_: dict[str, int] = {}
        self._user_inner = np.array([trainset.to_inner_uid(u) for u in self.users_.tolist()],
                                    dtype=np.int64)
        self._item_inner = np.array([trainset.to_inner_iid(i) for i in self.items_.tolist()],
                                    dtype=np.int64)
        self._scorer = self._make_scorer(trainset)
        return self

    def _make_scorer(self, trainset: Any) -> Any:
        name = type(self.algo).__name__
        builtin = type(self.algo).__module__.startswith("surprise.") and name in VECTORISED
        if self.vectorised and builtin:
            self.path_ = "vectorised"
            return VECTORISED[name](self.algo, trainset, self._item_inner)
        self.path_ = "per-pair predict"
        why = "vectorised=False" if builtin else f"{name} is not one of Surprise's built-in " \
            f"algorithms ({', '.join(VECTORISED)})"
        warn(f"{self._label}: {why}, so predictions and rankings take the slow path, one "
             f"algo.predict call per (user, item) pair (about users x items calls per "
             f"recommend); fallbacks_['per_pair_predict'] counts them", RecevalWarning)
        return _PerPair(self.algo, trainset, self._item_inner, self._label)

    def _count(self, key: str, n: int) -> None:
        if n:
            self.fallbacks_[key] = self.fallbacks_.get(key, 0) + int(n)

    def _estimates(self, pairs: Any) -> tuple[pd.DataFrame, np.ndarray]:
        table, ucode, icode = self._pairs(pairs)
        users = np.where(ucode >= 0, self._user_inner[np.maximum(ucode, 0)], -1)
        items = np.where(icode >= 0, self._item_inner[np.maximum(icode, 0)], -1)
        before = getattr(self._scorer, "pairs_asked", 0)
        got = self._scorer.pairs(users.astype(np.int64), items.astype(np.int64))
        self._count("per_pair_predict", getattr(self._scorer, "pairs_asked", 0) - before)
        self._count("impossible", int(got.impossible.sum()))
        return table, got.est

    def predict(self, pairs: Any) -> pd.DataFrame:
        """Surprise's estimate of each pair, clipped to the rating scale (``algo.predict``).

        Returns ``user_id, item_id, score`` in the order of ``pairs``.
        """
        table, est = self._estimates(pairs)
        lo, hi = self.rating_scale_
        return table.assign(score=np.maximum(np.minimum(est, hi), lo))

    def score(self, pairs: Any) -> pd.DataFrame:
        """The ranking score of each pair: Surprise's estimate, not clipped."""
        table, est = self._estimates(pairs)
        return table.assign(score=est)

    def _ties(self, ties: Any) -> None:
        allowed = ("stable", "random") + (("neighbours",) if isinstance(
            self._scorer, KNNScorer) else ())
        if not isinstance(ties, str) or ties not in allowed:
            extra = "" if "neighbours" in allowed else \
                " ('neighbours' is the k-NN algorithms' own key)"
            raise InvalidParameterError(
                f"{self._label}.recommend: ties must be one of {', '.join(map(repr, allowed))}"
                f"{extra}, got {ties!r}", parameter="ties", examples=[ties])

    def _exclusions(self, index: pd.Index, codes: np.ndarray, exclude: Any
                    ) -> tuple[np.ndarray, np.ndarray]:
        """CSR over the requested users of the item codes to leave out.

        ``exclude``, and the user's training items unless ``candidates="all"``.
        """
        off, excluded = exclusion_csr(exclude, index, self.items_, seen=self._seen(),
                                      model=self._label)
        if self.candidates == "all":
            return off, excluded
        row_of = np.full(len(self.users_), -1, dtype=np.int64)
        known = np.flatnonzero(codes >= 0)
        row_of[codes[known]] = known
        seen_rows = row_of[self.user_codes_]
        keep = seen_rows >= 0
        rows = np.concatenate([np.repeat(np.arange(len(index)), np.diff(off)),
                               seen_rows[keep]])
        items = np.concatenate([excluded, self.item_codes_[keep]])
        ptr = np.zeros(len(index) + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=len(index)), out=ptr[1:])
        return ptr, items[np.argsort(rows, kind="stable")]

    def _grid(self, codes: np.ndarray, done: list[int], total: int) -> Estimates:
        """Estimates of a block of user codes (-1: unknown) against every item code."""
        inner = np.where(codes >= 0, self._user_inner[np.maximum(codes, 0)], -1)
        got = self._scorer.grid(inner.astype(np.int64))
        self._count("impossible", int(got.impossible.sum()))
        if isinstance(self._scorer, _PerPair):
            self._count("per_pair_predict", got.est.size)
            done[0] += len(codes)
            if total * len(self.items_) >= PROGRESS_MIN:
                print(f"receval: {self._label} per-pair predict: {done[0]}/{total} users "
                      f"({done[0] * len(self.items_)} pairs)", file=sys.stderr, flush=True)
        return got

    def recommend(self, users: Any, k: int, exclude: Any = None, ties: str = "stable",
                  seed: int | None = None) -> pd.DataFrame:
        """The ``k`` candidates with the highest unclipped estimate per user.

        Parameters
        ----------
        users : id or collection of ids
            The users: one id, or a one-dimensional collection of ids (list, tuple, set, range,
            numpy array, pandas Series or Index, or any iterable, e.g. a generator); one
            list per distinct id. A table or a 2-D array is an error naming ``users``: pass
            its user column. Ids of another type than the training ids are an
            :class:`~receval.exceptions.IdTypeMismatchError`. Users the model was not fitted on get
            Surprise's estimates for an unknown user (the training mean, or a bias-only
            estimate).
        k : int
            List length.
        exclude : table, path, "seen" or None
            (user, item) pairs never recommended: a table (or the path of one), or ``"seen"``, the
            pairs given to :meth:`fit`. Ids of another type than the training ids are an
            :class:`~receval.exceptions.IdTypeMismatchError` naming ``exclude``. Left out besides
            the training items (``candidates="unseen"``).
        ties : {"stable", "random", "neighbours"}
            Order of equal estimates: ascending item id; a seeded random order (``seed``);
            or, for the k-NN algorithms, more neighbours first (``actual_k``), then item id.
            When more candidates tie at the ``k``-th estimate than fit in the list, a
            :class:`~receval.exceptions.TiesAtCutoffWarning` says for how many users.
        seed : int, optional
            Seed of ``ties="random"``.

        Returns
        -------
        pandas.DataFrame
            ``user_id, item_id, score``, best first per user.
        """
        self._require_fitted()
        k, index = check_k(k), requested_users(users, self.users_, self._label)
        self._ties(ties)
        codes = self.users_.get_indexer(index).astype(np.int64)
        ptr, excluded = self._exclusions(index, codes, exclude)
        done = [0]
        if ties == "neighbours":
            return self._by_neighbours(index, codes, ptr, excluded, k)
        ranked = top_k_scores(lambda block: self._grid(block, done, len(codes)).est, codes,
                              len(self.items_), k, exclude_indptr=ptr,
                              exclude_indices=excluded, ties=ties, seed=seed)
        self.tied_users_ = ranked.tied_users
        note = "k-NN estimates tie often (e.g. all from neighbours who rated the same); " \
            "ties='neighbours' puts the estimates from more neighbours first." \
            if isinstance(self._scorer, KNNScorer) else ""
        warn_ties(self._label, ranked, k, note=note)
        return frame(index, ranked.rows, self.items_, ranked.items, ranked.scores)

    def _by_neighbours(self, index: pd.Index, codes: np.ndarray, ptr: np.ndarray,
                       excluded: np.ndarray, k: int) -> pd.DataFrame:
        """``ties="neighbours"``: blocks of users, equal estimates by ``actual_k``."""
        n_items = len(self.items_)
        step = block_rows(n_items)
        rows, items, scores, tied = [np.empty(0, np.int64)], [np.empty(0, np.int64)], \
            [np.empty(0)], 0
        for start in range(0, len(codes), step):  # blocks of users, not a loop over users
            stop = min(start + step, len(codes))
            got = self._grid(codes[start:stop], [0], 0)
            allowed = np.ones(got.est.shape, dtype=bool)
            allowed[np.repeat(np.arange(stop - start), np.diff(ptr[start:stop + 1])),
                    excluded[ptr[start]:ptr[stop]]] = False
            used = got.actual_k if got.actual_k is not None else np.zeros_like(allowed, int)
            top, _, n_tied = neighbour_ties(got.est, used, allowed, k)
            r, c = np.nonzero(top >= 0)
            rows.append(r + start)
            items.append(top[r, c])
            scores.append(got.est[r, top[r, c]])
            tied += n_tied
        self.tied_users_ = tied
        if tied:
            warn(f"{self._label}.recommend: for {tied} users, more candidates tie at the k={k}-th "
                 f"estimate and its number of neighbours than fit in the list; the ties were "
                 f"broken by item order (ties='neighbours').", TiesAtCutoffWarning)
        return frame(index, np.concatenate(rows), self.items_, np.concatenate(items),
                     np.concatenate(scores))
