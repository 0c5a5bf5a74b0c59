"""Hyper-parameters of models: ``get_params``, ``set_params``, ``clone`` and ``repr``.

The convention is scikit-learn's (``sklearn.base.BaseEstimator``): a model's parameters are
the names of its ``__init__`` signature, and each is stored, unchanged, on an attribute of the
same name. :class:`Params` gives the built-in models ``get_params(deep=False)``,
``set_params(**params)`` and a ``repr()`` listing every parameter
(``ItemMean(shrinkage=5.0)``); :func:`clone` builds a new, unfitted model with the same
parameters, for the built-ins, for wrapped algorithms (``Surprise(SVD(n_factors=50))`` clones
the ``SVD`` from its constructor parameters), for objects with their own ``get_params``, and,
for any other object, as a deep copy.
"""

from __future__ import annotations

import copy
import inspect
from typing import Any

from receval.exceptions import InvalidModelError, InvalidParameterError

__all__ = ["Params", "clone", "constructor_params", "param_repr"]

#: Surprise keeps these two options on every algorithm (``AlgoBase.__init__(**kwargs)``).
_SURPRISE_OPTIONS = ("sim_options", "bsl_options")


def _init(cls: type) -> Any:
    return cls.__init__  # type: ignore[misc]  # the class's own, read from the class


def _signature_names(cls: type) -> list[str]:
    """The named parameters of ``cls.__init__`` (no ``self``, ``*args``, ``**kwargs``)."""
    if _init(cls) is object.__init__:
        return []
    try:
        signature = inspect.signature(_init(cls))
    except (TypeError, ValueError):  # pragma: no cover - builtins without a signature
        return []
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return [p.name for p in list(signature.parameters.values())[1:] if p.kind in kinds]


def _accepts_kwargs(cls: type) -> bool:
    if _init(cls) is object.__init__:
        return False
    try:
        signature = inspect.signature(_init(cls))
    except (TypeError, ValueError):  # pragma: no cover
        return False
    return any(p.kind is inspect.Parameter.VAR_KEYWORD for p in signature.parameters.values())


def is_surprise_algo(obj: Any) -> bool:
    """Whether ``obj`` is a Surprise algorithm (an instance of ``surprise.AlgoBase``)."""
    return any(c.__module__.startswith("surprise.") and c.__name__ == "AlgoBase"
               for c in type(obj).__mro__)


def constructor_params(obj: Any) -> dict[str, Any]:
    """The constructor parameters of ``obj`` that can be read back from it.

    ``obj.get_params(deep=False)`` when it has one; else every name of ``__init__``'s
    signature stored on an attribute of the same name (a parameter stored under another
    name, e.g. Surprise SVD's ``lr_all``, which it spreads over ``lr_bu`` ... ``lr_qi``, is
    left out: the ones it sets are read instead); for Surprise algorithms also
    ``sim_options`` / ``bsl_options`` when given.
    """
    get_params = getattr(obj, "get_params", None)
    if callable(get_params) and not isinstance(obj, type):
        return dict(get_params(deep=False))
    cls = type(obj)
    names = _signature_names(cls)
    params = {name: getattr(obj, name) for name in names if hasattr(obj, name)}
    if is_surprise_algo(obj) and _accepts_kwargs(cls):
        for name in _SURPRISE_OPTIONS:
            if name not in params and getattr(obj, name, None):
                params[name] = getattr(obj, name)
    return params


def param_repr(value: Any) -> str:
    """``repr`` of a parameter value; a model or a wrapped algorithm as ``Name(param=...)``.

    Arrays and tables (e.g. the factor matrices of ``Factors``) as their shape and dtype, not
    their values.
    """
    if isinstance(value, Params):
        return repr(value)
    shape = getattr(value, "shape", None)
    if isinstance(shape, tuple) and type(value).__module__.split(".")[0] in ("numpy", "pandas",
                                                                             "scipy"):
        dtype = getattr(value, "dtype", None)
        kind = f", {dtype}" if dtype is not None else ""
        return f"<{type(value).__name__} {'x'.join(map(str, shape))}{kind}>"
    if is_surprise_algo(value) or (callable(getattr(value, "get_params", None))
                                   and not isinstance(value, type)):
        params = constructor_params(value)
        inner = ", ".join(f"{k}={param_repr(v)}" for k, v in params.items())
        return f"{type(value).__name__}({inner})"
    return repr(value)


def _clone_value(value: Any) -> Any:
    """A parameter value for a clone: models cloned, other values deep-copied."""
    if isinstance(value, Params) or is_surprise_algo(value) or (
            callable(getattr(value, "get_params", None)) and not isinstance(value, type)):
        return clone(value)
    try:
        return copy.deepcopy(value)
    except Exception:
        return value


def clone(model: Any) -> Any:
    """A new, unfitted model with the same parameters as ``model``.

    Built-in models, objects with ``get_params`` (scikit-learn style) and Surprise
    algorithms are rebuilt from their constructor parameters (nested models and wrapped
    algorithms are cloned too; other values are deep-copied). Any other object is deep-copied
    (``copy.deepcopy``): give such a model ``get_params`` to have it rebuilt instead.

    Parameters
    ----------
    model : object
        The model to clone (fitted or not: the fitted state is not carried over, except
        by the deep copy of an object without ``get_params``).

    Returns
    -------
    object
        The new model.

    Raises
    ------
    InvalidModelError
        The model can be neither rebuilt nor deep-copied; the message names it.

    Examples
    --------
    >>> import receval as rv
    >>> rv.models.clone(rv.models.ItemMean(shrinkage=5))
    ItemMean(shrinkage=5.0)
    """
    rebuild = (isinstance(model, Params) or is_surprise_algo(model)
               or (callable(getattr(model, "get_params", None))
                   and not isinstance(model, type)))
    if rebuild:
        params = {k: _clone_value(v) for k, v in constructor_params(model).items()}
        try:
            return type(model)(**params)
        except Exception as exc:
            raise InvalidModelError(
                f"cannot clone model {type(model).__name__}: {type(model).__name__}(**params) "
                f"with its own parameters {sorted(params)} raised {type(exc).__name__}: {exc}",
                parameter="model") from exc
    try:
        return copy.deepcopy(model)
    except Exception as exc:
        raise InvalidModelError(
            f"cannot clone model {type(model).__name__}: it has no get_params() to rebuild "
            f"it from and copy.deepcopy raised {type(exc).__name__}: {exc}; give the class "
            "get_params() (the names of its __init__ parameters) or make it deep-copyable",
            parameter="model") from exc


class Params:
    """Mixin: hyper-parameters read from ``__init__``'s signature, as scikit-learn does.

    A subclass stores each ``__init__`` parameter on an attribute of the same name (after
    checking it); :meth:`get_params` reads them back, :meth:`set_params` checks and sets them
    by calling ``__init__`` again with the merged parameters, and ``repr()`` lists them all.
    """

    @classmethod
    def _param_names(cls) -> list[str]:
        return _signature_names(cls)

    def get_params(self, deep: bool = False) -> dict[str, Any]:
        """The model's parameters, ``{name: value}`` in ``__init__`` order.

        Parameters
        ----------
        deep : bool
            Also list the parameters of nested models and wrapped algorithms, as
            ``"name__param"`` (scikit-learn's convention).
        """
        params = {name: getattr(self, name) for name in self._param_names()}
        if deep:
            for name, value in list(params.items()):
                if isinstance(value, Params) or is_surprise_algo(value):
                    for key, sub in constructor_params(value).items():
                        params[f"{name}__{key}"] = sub
        return params

    def set_params(self, **params: Any) -> Any:
        """Set parameters (checked as the constructor checks them); returns the model.

        ``"name__param"`` sets a parameter of a nested model or wrapped algorithm (the
        wrapped algorithm is rebuilt with it). The fitted state, if any, is kept: refit.

        Raises
        ------
        InvalidParameterError
            A name that is not a parameter (the message lists the allowed names), or a
            value the constructor refuses.
        """
        names = self._param_names()
        merged = self.get_params()
        nested: dict[str, dict[str, Any]] = {}
        for key, value in params.items():
            head, _, rest = key.partition("__")
            if head not in names:
                raise InvalidParameterError(
                    f"{type(self).__name__} has no parameter {head!r}; its parameters are "
                    f"{names or 'none'}", parameter=head, examples=[key])
            if rest:
                nested.setdefault(head, {})[rest] = value
            else:
                merged[key] = value
        for head, sub in nested.items():
            merged[head] = _with_params(merged[head], sub, f"{type(self).__name__}.{head}")
        type(self).__init__(self, **merged)
        return self

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={param_repr(v)}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({inner})"


def _with_params(value: Any, params: dict[str, Any], where: str) -> Any:
    """``value`` with ``params`` set: its own ``set_params``, or rebuilt with them."""
    if isinstance(value, Params):
        return value.set_params(**params)
    # only the parameters it can be rebuilt with: one stored under other names (SVD's
    # lr_all) would be overridden by them, silently
    allowed = set(constructor_params(value))
    if is_surprise_algo(value) and _accepts_kwargs(type(value)):
        allowed |= set(_SURPRISE_OPTIONS)
    unknown = sorted(set(params) - allowed)
    if unknown:
        raise InvalidParameterError(
            f"{where} ({type(value).__name__}) has no parameter {unknown[0]!r}; its "
            f"parameters are {sorted(allowed)}", parameter=unknown[0], examples=unknown)
    merged = {**{k: _clone_value(v) for k, v in constructor_params(value).items()}, **params}
    try:
        return type(value)(**merged)
    except Exception as exc:
        raise InvalidParameterError(
            f"{where}: {type(value).__name__}(**{merged!r}) raised {type(exc).__name__}: "
            f"{exc}", parameter=where) from exc
