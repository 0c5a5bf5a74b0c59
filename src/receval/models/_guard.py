"""Is it a model? The protocol checks of every door that takes one, and guarded calls.

A model is anything with ``fit(train)`` and ``recommend(users, k, exclude=None)`` and/or
``predict(pairs)``. What is refused here, with an :class:`~receval.InvalidModelError` naming
the model and saying what to do: a class instead of an instance, an unwrapped Surprise
algorithm, a scikit-learn estimator (``fit(X, y)``), another library's model that has an
adapter, and anything without the protocol's methods. :func:`guarded` turns an exception
raised inside a model's own method into one naming the model, the method and the fold.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from receval.exceptions import InvalidModelError, RecevalError
from receval.models._params import is_surprise_algo

__all__ = ["guarded", "refusal"]

_T = TypeVar("_T")

#: Top-level module of a library -> (its adapter in receval.models, the extra to install).
_ADAPTERS = {"implicit": ("Implicit", "implicit"), "lenskit": ("LensKit", "lenskit"),
             "cornac": ("Cornac", "cornac")}


def _sklearn_like(model: Any) -> bool:
    """A scikit-learn estimator: ``fit(X, y)`` on a feature matrix, not on interactions."""
    if type(model).__module__.split(".")[0] == "sklearn":
        return True
    if not (hasattr(model, "__sklearn_tags__") or hasattr(model, "_estimator_type")):
        return False
    if callable(getattr(model, "recommend", None)):
        return False  # a recommender that merely inherits from BaseEstimator
    try:
        first = next(iter(inspect.signature(model.fit).parameters), "")
    except (TypeError, ValueError):  # pragma: no cover
        return False
    return first in ("X", "x")


def _adapter_hint(model: Any) -> str | None:
    """Why another library's model is refused, by its module (even with a ``recommend``).

    Cornac's and implicit's models have a ``recommend`` of their own, with another
    signature and on their own id codes: duck typing would take them, and ``fit`` would
    fail on a table.
    """
    root = type(model).__module__.split(".")[0]
    if root not in _ADAPTERS:
        return None
    import receval.models

    adapter, extra = _ADAPTERS[root]
    algo = type(model).__name__
    if hasattr(receval.models, adapter):
        return (f"it is an unwrapped {root} model ({algo}), which receval reads through an "
                f"adapter: wrap it: rv.models.{adapter}({algo}(...)) (pip install "
                f"'receval[{extra}]')")
    return (f"it is a {root} model ({algo}) without receval's model "  # pragma: no cover
            "protocol: wrap it in a class with fit(train) and recommend(users, k, "
            "exclude=None) (docs/experiments.md, 'The model protocol')")


def refusal(model: Any) -> str | None:
    """Why ``model`` (an object, not a spec) is not a model, or None if it follows the protocol.

    The one list of refusals of every door that takes a model: :func:`as_model` (an object
    passed directly) and :func:`~receval.models.from_spec` (an object a spec built).
    """
    if inspect.isclass(model):
        return f"{model.__name__} is a class, not a model: pass an instance, e.g. " \
            f"{model.__name__}()"
    if is_surprise_algo(model):
        return (f"{type(model).__name__} is an unwrapped Surprise algorithm (it fits a "
                f"Surprise Trainset, not a table): wrap it: rv.models.Surprise("
                f"{type(model).__name__}(...)) (or the spec 'surprise:{type(model).__name__}"
                f"(...)')")
    if _sklearn_like(model):
        return (f"{type(model).__name__} is a scikit-learn estimator (fit(X, y) on a feature "
                "matrix), not a recommender: wrap it in a class with fit(train) and "
                "predict(pairs) that builds the features of each (user, item) pair "
                "(docs/experiments.md, 'The model protocol')")
    hint = _adapter_hint(model)
    if hint is not None:
        return hint
    if not callable(getattr(model, "fit", None)) or not (
            callable(getattr(model, "recommend", None))
            or callable(getattr(model, "predict", None))):
        has = [m for m in ("fit", "recommend", "predict") if callable(getattr(model, m, None))]
        return (f"{type(model).__name__} needs fit(train) and recommend(users, k, "
                f"exclude=None) and/or predict(pairs); it has {', '.join(has) or 'none of them'}")
    return None


def guarded(name: str, method: str, fold: int | None, call: Callable[[], _T]) -> _T:
    """``call()``; an exception from it names the model, the method and the fold.

    A receval error keeps its class (the model's own checks, e.g. a bad ``k``) with the
    model named in front; any other exception becomes an :class:`InvalidModelError`
    chained to it (``raise ... from``), so the original traceback stays available.
    """
    where = f"model {name!r}" + ("" if fold is None else f", fold {fold}") + f": {method}"
    try:
        return call()
    except RecevalError as exc:
        try:
            named = copy.copy(exc)
        except Exception:  # a subclass with its own constructor: an InvalidModelError
            named = InvalidModelError(f"{exc}", parameter="models", examples=[name])
        named.message = f"{where}: {exc.message}"
        named.args = (named.message,)
        raise named from exc
    except Exception as exc:
        raise InvalidModelError(
            f"{where} raised {type(exc).__name__}: {exc} (the model's own error, kept as "
            f"this error's __cause__ with its traceback)", parameter="models",
            examples=[name]) from exc
