"""What the library adapters (implicit, Cornac, LensKit) share.

An adapter wraps a model of another library. ``fit(train)`` indexes the training users and
items in ascending id order (:class:`~receval.models._base.FittedIds`: receval's *codes*),
builds the library's own input from them and fits the wrapped model; the subclass then
exposes a *scorer*: ``scorer(user_codes) -> float64 (len(user_codes), n_items)`` scores of a
block of users against every training item (columns in code order), and
``pair_scores(user_codes, item_codes) -> float64`` for arbitrary pairs. This module turns
those into ``recommend`` (full-catalog top-k with the excluded pairs left out, blocked so that
memory stays bounded: :func:`receval.models._rank.top_k_scores`) and ``score``, with the id
mapping both ways and the policy for users the model does not know.

Each ``fit`` fits a new, unfitted copy of the wrapped model (:meth:`LibraryAdapter._unfitted`,
kept as ``model_``): the model given to the constructor is never fitted, and refitting on
other data starts from scratch, as a first fit does (the libraries' own ``fit`` would continue
from the previous factors, or crash when the new data has fewer users or items).

Unknown users (not in ``train``): ``unknown_users="skip"`` (default) gives them no row — an
empty list, which ranking metrics count as a miss — and records their number in
``unknown_users_``; ``"error"`` raises :class:`~receval.exceptions.InvalidParameterError`
naming a few of them. ``score`` leaves out pairs whose user or item is not in ``train``
(missing scores, as the :class:`~receval.models.Predictor` protocol allows), as are pairs the
library leaves unscored, and records their number in ``unknown_pairs_``.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from types import ModuleType
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from receval.exceptions import (
    BackendUnavailableError,
    InvalidModelError,
    InvalidParameterError,
    RecevalError,
)
from receval.models._base import FittedIds, check_k, frame, requested_users
from receval.models._data import exclusion_csr
from receval.models._params import _signature_names, constructor_params
from receval.models._rank import top_k_scores, warn_ties

__all__ = ["LibraryAdapter", "Scorer", "column_name", "fit_or_raise", "library", "refuse_class",
           "refuse_kind"]

#: ``scorer(user_codes) -> float64 (len(user_codes), n_items)``
Scorer = Callable[[np.ndarray], np.ndarray]

UNKNOWN_USERS = ("skip", "error")


def library(module: str, extra: str, adapter: str) -> ModuleType:
    """Import ``module`` or raise an error that names the extra to install."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise BackendUnavailableError(
            f"rv.models.{adapter} needs the {module!r} package, which is not installed: "
            f'pip install "receval[{extra}]"', parameter="model") from exc


def refuse_class(model: Any, adapter: str, what: str, *, parameter: str = "model") -> None:
    """A class passed where an instance belongs: ``Implicit(AlternatingLeastSquares)``."""
    if isinstance(model, type):
        raise InvalidModelError(
            f"{adapter}() needs {what}, got the class {model.__name__}: write "
            f"{model.__name__}(...)", parameter=parameter, examples=[model.__name__])


def refuse_kind(model: Any, adapter: str, what: str) -> None:
    """A model of another kind than the adapter wraps (``what`` says which)."""
    raise InvalidModelError(
        f"{adapter}() wraps {what}, got {type(model).__module__}.{type(model).__name__}",
        parameter="model", examples=[type(model).__name__])


def column_name(value: Any, parameter: str) -> None:
    """``value`` names a column of ``train`` or is None."""
    if value is not None and not isinstance(value, str):
        raise InvalidParameterError(f"{parameter} must be a column name or None, got "
                                    f"{value!r}", parameter=parameter, examples=[value])


def fit_or_raise(adapter: Any, call: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``call(*args, **kwargs)``; an exception of the library becomes InvalidModelError."""
    try:
        return call(*args, **kwargs)
    except RecevalError:
        raise
    except Exception as exc:
        raise InvalidModelError(
            f"{adapter!r}: fitting the wrapped model raised {type(exc).__name__}: {exc}",
            parameter="model") from exc


class LibraryAdapter(FittedIds):
    """Base of the library adapters: id mapping, ``recommend``, ``score``, ``get_params``.

    Subclasses set ``extra`` and implement ``fit`` (starting with ``self._training(train)``,
    which also sets ``model_``, the unfitted copy of ``model`` to fit; ending with
    ``_scorer`` / ``_pair_scores`` available).
    """

    extra: ClassVar[str] = ""
    unknown_users_: int
    unknown_pairs_: int

    def _training(self, train: Any) -> pd.DataFrame:
        """The training rows (canonical columns), indexed; an empty ``train`` is an error."""
        table = self._fit_table(train)
        self.model_ = self._unfitted()
        return table

    def _unfitted(self) -> Any:
        """A new, unfitted copy of ``model`` with the same hyper-parameters.

        Rebuilt from its constructor parameters (the names of its ``__init__`` stored on
        attributes of the same name, as implicit's and Cornac's models store them);
        adapters whose library has its own way override this.

        Raises
        ------
        InvalidModelError
            A constructor parameter is not stored under its name (the copy would silently
            take its default), or the constructor refuses the parameters read back.
        """
        model = self.model
        names = _signature_names(type(model))
        missing = [name for name in names if not hasattr(model, name)]
        if missing:
            raise InvalidModelError(
                f"{self!r}: cannot make an unfitted copy of {type(model).__name__} to fit: its "
                f"constructor parameters {missing} are not stored under their names",
                parameter="model", examples=missing)
        params = constructor_params(model)
        try:
            return type(model)(**params)
        except Exception as exc:
            raise InvalidModelError(
                f"{self!r}: cannot make an unfitted copy of {type(model).__name__} to fit: "
                f"{type(model).__name__}(**{sorted(params)}) raised {type(exc).__name__}: "
                f"{exc}", parameter="model") from exc

    def __init__(self, model: Any, *, unknown_users: str = "skip") -> None:
        if unknown_users not in UNKNOWN_USERS:
            raise InvalidParameterError(
                f"unknown_users must be one of {UNKNOWN_USERS}, got {unknown_users!r}",
                parameter="unknown_users", examples=[unknown_users])
        self.model = model
        self.unknown_users = unknown_users

    #: the constructor parameters (scikit-learn's convention: stored under their names)
    _params: ClassVar[tuple[str, ...]] = ("model", "unknown_users")

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in changed_params(self.model).items())
        return f"{type(self).__name__}({type(self.model).__name__}({inner}))"

    def get_params(self, deep: bool = False) -> dict[str, Any]:
        """The constructor parameters (scikit-learn's ``get_params``).

        With ``deep=True`` also the wrapped model's hyper-parameters as ``model__<name>``
        (its ``__init__`` parameters stored on attributes of the same name, or a LensKit
        component's ``config``).
        """
        params = {name: getattr(self, name) for name in self._params}
        if deep:
            params.update({f"model__{k}": v for k, v in library_params(self.model).items()})
        return params

    @property
    def _label(self) -> str:
        return repr(self)

    # -- what subclasses provide -------------------------------------------------------
    def _scorer(self, codes: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _pair_scores(self, users: np.ndarray, items: np.ndarray
                     ) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    # -- the protocol --------------------------------------------------------------------
    def _known(self, users: Any) -> tuple[pd.Index, np.ndarray]:
        """The requested users, and the codes of those the model knows (-1: unknown)."""
        index = requested_users(users, self.users_,
                                f"{type(self).__name__}({type(self.model).__name__})")
        try:
            codes = self.users_.get_indexer(index)
        except TypeError:  # ids of a type no training id compares with
            codes = np.full(len(index), -1, dtype=np.int64)
        unknown = np.flatnonzero(codes < 0)
        self.unknown_users_ = len(unknown)
        if len(unknown) and self.unknown_users == "error":
            raise InvalidParameterError(
                f"{self!r}: {len(unknown)} requested users are not in the training data "
                f"(unknown_users='error'; 'skip' gives them no recommendations)",
                parameter="users", n_bad=len(unknown),
                examples=index.take(unknown[:5]).tolist())
        return index, codes.astype(np.int64)

    def recommend(self, users: Any, k: int, exclude: Any = None, ties: str = "stable",
                  seed: int | None = None) -> pd.DataFrame:
        """The ``k`` highest-scored training items of each user, excluded pairs left out.

        Parameters
        ----------
        users : id or collection of ids
            The users: one id, or a one-dimensional collection of ids (list, tuple, set, range,
            numpy array, pandas Series or Index, or any iterable, e.g. a generator); one
            list per distinct id. A table or a 2-D array is an error naming ``users``: pass
            its user column. Ids of another type than the training ids are an
            :class:`~receval.exceptions.IdTypeMismatchError`. Users not in ``train`` follow
            ``unknown_users``.
        k : int
            List length.
        exclude : table, path, "seen" or None
            (user, item) pairs never recommended: a table (or the path of one), or ``"seen"``,
            the pairs given to :meth:`fit`. Ids of another type than the training ids are
            an :class:`~receval.exceptions.IdTypeMismatchError` naming ``exclude``.
        ties : {"stable", "random"}
            Order of items with equal scores: ascending item id, or seeded random.
        seed : int, optional
            Seed of ``ties="random"`` (required there).

        Returns
        -------
        pandas.DataFrame
            ``user_id, item_id, score``, best first per user, users ascending.
        """
        self._require_fitted()
        k = check_k(k)
        index, codes = self._known(users)
        rows = np.flatnonzero(codes >= 0)
        known = index.take(rows)
        off, excl = exclusion_csr(exclude, known, self.items_, seen=self._seen(),
                                  model=f"{type(self).__name__}({type(self.model).__name__})")
        block = top_k_scores(self._scorer, codes[rows], len(self.items_), k,
                             exclude_indptr=off, exclude_indices=excl, ties=ties, seed=seed)
        warn_ties(repr(self), block, k)
        return frame(known, block.rows, self.items_, block.items, block.scores)

    def score(self, pairs: Any) -> pd.DataFrame:
        """The ranking score of each (user, item) pair: ``user_id, item_id, score``.

        The score is the one ``recommend`` ranks by. Pairs whose user or item is not in the
        training data, or that the library cannot score, are left out (their number:
        ``unknown_pairs_``).
        """
        table, u, i = self._pairs(pairs)
        ok = (u >= 0) & (i >= 0)
        out = table.loc[ok].reset_index(drop=True)
        values = np.asarray(self._pair_scores(u[ok].astype(np.int64), i[ok].astype(np.int64)),
                            dtype=np.float64)
        scored = values > -np.inf  # -inf: a pair the library leaves unscored
        self.unknown_pairs_ = int((~ok).sum() + (~scored).sum())
        return out.assign(score=values).loc[scored].reset_index(drop=True)


def dense_from_sparse(matrix: Any, fill: float = 0.0) -> np.ndarray:
    """A scipy sparse block as a float64 dense array (``fill`` where nothing is stored)."""
    dense = np.asarray(matrix.toarray(), dtype=np.float64)
    if fill != 0.0:
        stored = np.zeros(dense.shape, dtype=bool)
        coo = matrix.tocoo()
        stored[coo.row, coo.col] = True
        dense[~stored] = fill
    return dense


def library_params(model: Any) -> dict[str, Any]:
    """A library model's hyper-parameters: a LensKit ``config``, or its ``__init__`` names."""
    if callable(getattr(model, "nodes", None)):  # a LensKit pipeline: its config is the graph
        return {}
    dump = getattr(getattr(model, "config", None), "model_dump", None)
    if callable(dump):
        return dict(dump())
    try:
        signature = inspect.signature(type(model).__init__)
    except (TypeError, ValueError):  # pragma: no cover - builtins without a signature
        return {}
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return {p.name: getattr(model, p.name) for p in list(signature.parameters.values())[1:]
            if p.kind in kinds and hasattr(model, p.name)}


def changed_params(model: Any) -> dict[str, Any]:
    """The hyper-parameters of ``model`` that differ from their defaults (for ``repr``)."""
    params = library_params(model)
    defaults: dict[str, Any] = {}
    config: Any = getattr(model, "config", None)
    if callable(getattr(config, "model_dump", None)):
        try:
            defaults = type(config)().model_dump()
        except Exception:  # a config without defaults for every field: show them all
            defaults = {}
    else:
        try:
            signature = inspect.signature(type(model).__init__)
            defaults = {p.name: p.default for p in signature.parameters.values()
                        if p.default is not inspect.Parameter.empty}
        except (TypeError, ValueError):  # pragma: no cover
            defaults = {}
    out = {}
    for name, value in params.items():
        try:
            same = name in defaults and bool(defaults[name] == value)
        except Exception:  # arrays and other values without a plain ==
            same = False
        if not same:
            out[name] = value
    return out
