"""``rv.models.from_spec``: a model from a short text or a mapping (CLI, study files).

The forms::

    "item-mean:shrinkage=5"            a built-in with parameters (name:param=value,...)
    "random:seed=3", "most-popular"    (names: random, most-popular, global-mean,
    "ItemMean(shrinkage=5)"             user-mean, item-mean, or the class names)
    "surprise:SVD(n_factors=50, random_state=0)"      a Surprise algorithm, wrapped
    "mypkg.models:MyModel(alpha=0.1)"  any class by import path (module:Class(...))
    {"model": "surprise:SVD", "params": {"n_factors": 50}}

Parameter values are Python literals read with :func:`ast.literal_eval` (numbers, strings,
True/False/None, lists, tuples, dicts), or a bare word, read as a string
(``most-popular:by=rows``); nothing is ever evaluated.
"""

from __future__ import annotations

import ast
import difflib
import importlib
import inspect
import re
from collections.abc import Mapping
from typing import Any

from receval.exceptions import (
    BackendUnavailableError,
    InvalidModelError,
    InvalidParameterError,
    RecevalError,
)
from receval.models._guard import refusal
from receval.models._params import _SURPRISE_OPTIONS, _accepts_kwargs, _signature_names

__all__ = ["BUILTINS", "as_model", "from_spec"]

#: Spec name -> class name in receval.models.
BUILTINS = {"random": "Random", "most-popular": "MostPopular", "popular": "MostPopular",
            "global-mean": "GlobalMean", "user-mean": "UserMean", "item-mean": "ItemMean"}
_MAPPING_KEYS = ("model", "params")
_MODULE = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")
_FORMS = ("name[:param=value,...]", "surprise:Algo(param=value, ...)",
          "module.path:Class(param=value, ...)", "{'model': ..., 'params': {...}}")


def _fail(spec: Any, message: str, position: int | None = None, *,
          error: type[InvalidParameterError] = InvalidParameterError,
          parameter: str = "model", examples: list[Any] | None = None) -> InvalidParameterError:
    where = "" if position is None else f" at position {position}"
    return error(f"model spec {spec!r}{where}: {message}", parameter=parameter,
                 examples=examples or [])


#: Position in the spec of each parameter given in its text, by name (for messages).
Positions = dict[str, int]


def _parse_call(spec: str, text: str, start: int) -> tuple[ast.expr, dict[str, Any], Positions]:
    """``Name(kw=literal, ...)`` -> (callee node, keyword values, their positions).

    ``start`` is the position of ``text`` in the spec.
    """
    lead = start + len(text) - len(text.lstrip())
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as exc:
        raise _fail(spec, f"not a call Name(param=value, ...): {exc.msg}",
                    lead + max((exc.offset or 1) - 1, 0)) from None
    except (ValueError, MemoryError, RecursionError) as exc:  # NUL bytes, surrogates, depth
        raise _fail(spec, f"not a call Name(param=value, ...): {exc}", lead) from None
    if not isinstance(node, ast.Call):
        return node, {}, {}
    if node.args:
        raise _fail(spec, "positional arguments are not allowed: name every parameter "
                    "(param=value)", lead + node.args[0].col_offset)
    positions = {kw.arg: lead + kw.col_offset for kw in node.keywords if kw.arg}
    return node.func, _keywords(spec, node.keywords, text.strip(), lead), positions


def _keywords(spec: str, keywords: list[ast.keyword], text: str, lead: int) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for kw in keywords:
        where = lead + kw.col_offset
        if kw.arg is None:
            raise _fail(spec, "**mappings are not allowed: name every parameter", where)
        if kw.arg in values:
            raise _fail(spec, f"parameter {kw.arg!r} given twice", where, parameter=kw.arg)
        values[kw.arg] = _literal(spec, kw.arg, kw.value, text, lead)
    return values


def _literal(spec: str, name: str, node: ast.expr, text: str, lead: int) -> Any:
    if isinstance(node, ast.Name):  # a bare word: a string (by=rows)
        return node.id
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        source = ast.get_source_segment(text, node)
        raise _fail(spec, f"the value of {name!r} ({source}) is not a literal (a number, "
                    "string, True/False/None, list, tuple or dict)", lead + node.col_offset,
                    parameter=name) from None


def _dotted(spec: str, node: ast.expr, start: int) -> str:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        raise _fail(spec, "expected a class name", start + node.col_offset,
                    error=InvalidModelError)
    return ".".join([node.id, *reversed(parts)])


def _check_names(spec: Any, cls: type, params: Mapping[str, Any], positions: Positions,
                 extra: tuple[str, ...] = ()) -> None:
    names = _signature_names(cls)
    allowed = names + [n for n in extra if _accepts_kwargs(cls) and n not in names]
    if _accepts_kwargs(cls) and not extra:
        return  # **kwargs: the class checks its own names
    unknown = [name for name in params if name not in allowed]
    if unknown:
        raise _fail(spec, f"{cls.__name__} has no parameter {unknown[0]!r}; its parameters "
                    f"are {allowed or 'none'}", positions.get(unknown[0]),
                    parameter=unknown[0], examples=unknown)


def _build(spec: Any, cls: type, params: dict[str, Any], positions: Positions,
           extra: tuple[str, ...] = ()) -> Any:
    _check_names(spec, cls, params, positions, extra)
    try:
        return cls(**params)
    except RecevalError as exc:
        raise _fail(spec, exc.message, parameter=exc.parameter or "model") from exc
    except Exception as exc:
        raise _fail(spec, f"{cls.__name__}(**{params!r}) raised {type(exc).__name__}: {exc}"
                    ) from exc


def _builtin(spec: Any, name: str) -> type | None:
    import receval.models as models

    key = name.strip().lower().replace("_", "-")
    cls_name = BUILTINS.get(key) or next((c for c in BUILTINS.values() if c == name.strip()),
                                         None)
    return None if cls_name is None else getattr(models, cls_name)


#: Surprise's documented keys of ``sim_options`` and ``bsl_options``, and their choices.
_SURPRISE_KEYS = {"sim_options": ("name", "user_based", "min_support", "shrinkage"),
                  "bsl_options": ("method", "reg", "reg_i", "reg_u", "n_epochs",
                                  "learning_rate")}
_SURPRISE_CHOICES = {("sim_options", "name"): ("cosine", "msd", "pearson", "pearson_baseline"),
                     ("bsl_options", "method"): ("als", "sgd")}


def _did_you_mean(value: Any, allowed: tuple[str, ...]) -> str:
    close = difflib.get_close_matches(str(value), allowed, n=1, cutoff=0.5)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _surprise_options(spec: Any, params: Mapping[str, Any], positions: Positions) -> None:
    """``sim_options`` / ``bsl_options``: Surprise's documented keys and choices only.

    Surprise reads the keys it knows and ignores the rest, so ``{'nmae': 'cosine'}`` would
    silently fit with the default similarity.
    """
    for option, keys in _SURPRISE_KEYS.items():
        if option not in params:
            continue
        given = params[option]
        where = positions.get(option)
        if not isinstance(given, Mapping):
            raise _fail(spec, f"{option} must be a dict with the keys {list(keys)}, got "
                        f"{given!r}", where, parameter=option, examples=[given])
        for key, value in given.items():
            if key not in keys:
                raise _fail(spec, f"{option} has no key {key!r}{_did_you_mean(key, keys)}; "
                            f"Surprise's keys are {list(keys)} (an unknown key would be "
                            f"silently ignored)", where, parameter=option, examples=[key])
            choices = _SURPRISE_CHOICES.get((option, key))
            if choices is not None and (not isinstance(value, str) or (  # Surprise lowers
                    value.lower() if key == "name" else value) not in choices):  # only name
                raise _fail(spec, f"{option}[{key!r}] must be one of {list(choices)}, got "
                            f"{value!r}{_did_you_mean(value, choices)}", where,
                            parameter=option, examples=[value])


def _surprise(spec: Any, text: str, start: int, params: dict[str, Any]) -> Any:
    try:
        import surprise
    except ImportError:  # pragma: no cover - depends on the environment
        raise BackendUnavailableError(
            f"model spec {spec!r} needs scikit-surprise: pip install 'receval[surprise]'",
            parameter="model") from None
    from receval.models._surprise import Surprise

    func, given, positions = _parse_call(str(spec), text, start)
    name = _dotted(str(spec), func, start)
    algos = sorted(n for n, c in vars(surprise).items()
                   if inspect.isclass(c) and issubclass(c, surprise.AlgoBase)
                   and c is not surprise.AlgoBase)
    if name not in algos:
        raise _fail(spec, f"unknown Surprise algorithm {name!r}; the algorithms are {algos}",
                    start, error=InvalidModelError, examples=[name])
    merged = _merge(spec, given, params)
    _surprise_options(spec, merged, positions)
    algo = _build(spec, getattr(surprise, name), merged, positions, _SURPRISE_OPTIONS)
    return Surprise(algo)


def _import_path(spec: Any, module: str, text: str, start: int, params: dict[str, Any]) -> Any:
    func, given, positions = _parse_call(str(spec), text, start)
    name = _dotted(str(spec), func, start)
    if not _MODULE.match(module.strip()):
        raise _fail(spec, f"{module.strip()!r} is neither a built-in model nor a module path "
                    f"(dotted names: mypkg.models:MyModel(...)); the built-in models are "
                    f"{sorted(set(BUILTINS))}", 0, error=InvalidModelError, examples=[module])
    try:
        target: Any = importlib.import_module(module.strip())
    except Exception as exc:  # ImportError, or the module's own code failing
        raise _fail(spec, f"cannot import module {module.strip()!r} ({type(exc).__name__}: "
                    f"{exc}); the built-in models are {sorted(set(BUILTINS))}", 0,
                    error=InvalidModelError, examples=[module]) from exc
    for part in name.split("."):
        if not hasattr(target, part):
            raise _fail(spec, f"module {module.strip()!r} has no {name!r}", start,
                        error=InvalidModelError, examples=[name])
        target = getattr(target, part)
    # only model classes are instantiated: a spec never calls any other code
    surprise_algo = inspect.isclass(target) and any(
        c.__module__.startswith("surprise.") and c.__name__ == "AlgoBase"
        for c in target.__mro__)
    if not inspect.isclass(target) or not (surprise_algo or (
            hasattr(target, "fit") and (hasattr(target, "recommend")
                                        or hasattr(target, "predict")))):
        raise _fail(spec, f"{module.strip()}:{name} is not a model class (a class with fit "
                    "and recommend and/or predict, or a Surprise algorithm)", start,
                    error=InvalidModelError, examples=[name])
    merged = _merge(spec, given, params)
    if surprise_algo:
        _surprise_options(spec, merged, positions)
    model = _build(spec, target, merged, positions)
    if surprise_algo:
        from receval.models._surprise import Surprise

        return Surprise(model)
    reason = refusal(model)  # the checks of an object passed directly: sklearn, cornac, ...
    if reason is not None:
        raise _fail(spec, reason, start, error=InvalidModelError, examples=[name])
    return model


def _arguments(spec: str, text: str, start: int) -> tuple[dict[str, Any], Positions]:
    """``(param=value, ...)`` (``text``, at ``start`` in the spec) -> values and positions.

    Exactly one parenthesised list: ``(a=1)()`` or ``(a=1).x`` is an error, never a call
    whose arguments are silently dropped.
    """
    func, given, positions = _parse_call(spec, f"f{text}", start - 1)
    if not (isinstance(func, ast.Name) and func.id == "f") or \
            not text.strip().startswith("(") or not text.strip().endswith(")"):
        raise _fail(spec, "expected one list of parameters (param=value, ...) after the "
                    "model's name", start)
    return given, positions


def _merge(spec: Any, given: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
    both = sorted(set(given) & set(params))
    if both:
        raise _fail(spec, f"parameter {both[0]!r} is given both in the text and in 'params'",
                    parameter=both[0], examples=both)
    return {**given, **params}


def _from_text(spec: Any, text: str, params: dict[str, Any]) -> Any:
    head, colon, rest = text.partition(":")
    if colon and head.strip() == "surprise":
        return _surprise(spec, rest, len(head) + 1, params)
    cls = _builtin(spec, head.split("(")[0] if not colon else head)
    if cls is not None:
        if colon:  # name:param=value,param=value
            given, positions = _arguments(str(spec), f"({rest})", len(head))
        elif "(" in text:  # name(param=value, ...)
            at = text.index("(")
            given, positions = _arguments(str(spec), text[at:], at)
        else:
            given, positions = {}, {}
        return _build(spec, cls, _merge(spec, given, params), positions)
    if colon:
        return _import_path(spec, head, rest, len(head) + 1, params)
    raise _fail(spec, f"unknown model {head.split('(')[0].strip()!r}; the built-in models "
                f"are {sorted(set(BUILTINS))}; other forms: {', '.join(_FORMS[1:3])}", 0,
                error=InvalidModelError, examples=[text])


def from_spec(spec: Any) -> Any:
    """A model from a spec: a short text or a mapping ``{"model": text, "params": {...}}``.

    Parameters
    ----------
    spec : str or mapping
        ``"item-mean:shrinkage=5"``, ``"random:seed=3"``, ``"most-popular"`` (built-ins:
        random, most-popular, global-mean, user-mean, item-mean, or their class names with
        ``(param=value, ...)``); ``"surprise:SVD(n_factors=50, random_state=0)"`` (any
        Surprise algorithm, wrapped in :class:`~receval.models.Surprise`);
        ``"mypkg.models:MyModel(alpha=0.1)"`` (any class, or factory, by import path; a
        Surprise algorithm is wrapped); or a mapping whose ``"params"`` are added to the
        text's. Values are literals (:func:`ast.literal_eval`) or bare words (strings).

    Returns
    -------
    object
        The unfitted model.

    Raises
    ------
    InvalidModelError
        An unknown model name, module or Surprise algorithm (the message lists the allowed
        names), or a spec that is not a string or mapping.
    InvalidParameterError
        An unknown parameter (the allowed names are listed), a value that is not a literal,
        a positional argument, or a value the model refuses; the message names the spec and
        the position in it.

    Examples
    --------
    >>> import receval as rv
    >>> rv.models.from_spec("item-mean:shrinkage=5")
    ItemMean(shrinkage=5.0)
    >>> rv.models.from_spec({"model": "random", "params": {"seed": 3}})
    Random(seed=3)
    """
    params: dict[str, Any] = {}
    if isinstance(spec, Mapping):
        unknown = [key for key in spec if key not in _MAPPING_KEYS]
        if unknown or "model" not in spec:
            raise _fail(dict(spec), f"a model mapping has the keys {list(_MAPPING_KEYS)} "
                        f"('model' required), got {list(spec)}", error=InvalidModelError,
                        examples=unknown)
        raw = spec.get("params") or {}
        if not isinstance(raw, Mapping) or not all(isinstance(k, str) for k in raw):
            raise _fail(dict(spec), f"'params' must be a mapping of parameter names to values, "
                        f"got {raw!r}", parameter="params")
        params, text = dict(raw), spec["model"]
    else:
        text = spec
    if not isinstance(text, str) or not text.strip():
        raise _fail(spec, f"a model spec is a non-empty string or a mapping; the forms are "
                    f"{', '.join(_FORMS)}", error=InvalidModelError)
    return _from_text(spec, text.strip(), params)


def as_model(name: str, model: Any) -> Any:
    """``model`` if it follows the protocol; a spec (str or mapping) built with ``from_spec``.

    Raises
    ------
    InvalidModelError
        Naming ``name`` (or the spec): a class instead of an instance, an unwrapped Surprise
        algorithm (wrap it: ``rv.models.Surprise(algo)``), a scikit-learn estimator, another
        library's model (cornac, implicit, lenskit: its adapter named, even when it has a
        ``recommend`` of its own), or no ``fit`` / no ``recommend`` and ``predict``; the
        same for the object a spec builds.
    """
    if isinstance(model, (str, Mapping)):
        return from_spec(model)
    reason = refusal(model)
    if reason is not None:
        raise InvalidModelError(f"model {name!r}: {reason}", parameter="models",
                                examples=[name])
    return model
