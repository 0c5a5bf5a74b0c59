"""The metric registry and the grammar ``name[(param=value, ...)][@k]``."""

from __future__ import annotations

import ast
import dataclasses
import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from receval.exceptions import InvalidParameterError, UnknownMetricError
from receval.metrics._base import MAX_CUTOFF, Metric

__all__ = ["MetricInfo", "available", "get", "parse", "register"]

M = TypeVar("M", bound=type[Metric])

_REGISTRY: dict[str, tuple[type[Metric], dict[str, Any]]] = {}
_CANONICAL: dict[str, type[Metric]] = {}

_GRAMMAR = re.compile(
    r"^\s*(?P<name>[A-Za-z_][A-Za-z0-9_\-]*)\s*(?:\((?P<params>.*)\))?\s*"
    r"(?:@\s*(?P<k>[^\s]+))?\s*$", re.DOTALL)


def register(*aliases: str | tuple[str, dict[str, Any]]) -> Any:
    """Class decorator: make a metric a frozen dataclass and register it.

    The metric is registered under its name, its display name and ``aliases``; an alias may
    be ``(alias, presets)``: ``("f1", {"beta": 1.0})``.
    """

    def wrap(cls: M) -> M:
        cls = dataclasses.dataclass(frozen=True, repr=False)(cls)  # type: ignore[assignment]
        names: list[tuple[str, dict[str, Any]]] = [(cls.name, {}), (cls.display, {})]
        names.extend(a if isinstance(a, tuple) else (a, {}) for a in (*cls.aliases, *aliases))
        for alias, presets in names:
            key = alias.lower()
            if key in _REGISTRY and _REGISTRY[key][0] is not cls:
                raise InvalidParameterError(
                    f"metric name {alias!r} is already registered by "
                    f"{_REGISTRY[key][0].__name__}", parameter="name")
            _REGISTRY[key] = (cls, presets)
        _CANONICAL[cls.name] = cls
        return cls

    return wrap


def get(name: str) -> type[Metric]:
    """The metric class registered under ``name`` (case-insensitive)."""
    return _lookup(name)[0]


def _lookup(name: str) -> tuple[type[Metric], dict[str, Any]]:
    key = name.strip().lower()
    if key in _REGISTRY:
        return _REGISTRY[key]
    close = difflib.get_close_matches(key, list(_REGISTRY), n=5, cutoff=0.6)
    hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
    raise UnknownMetricError(
        f"unknown metric {name!r}{hint} (receval metrics lists them all)",
        parameter="metrics", examples=close)


def _value(text: str) -> Any:
    text = text.strip()
    low = text.lower()
    if low in ("none", "null"):
        return None
    if low in ("true", "false"):
        return low == "true"
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text  # a bare word: exponential, log2, ...


def _coerce(cls: type[Metric], fieldname: str, value: Any) -> Any:
    f = {f.name: f for f in dataclasses.fields(cls)}[fieldname]
    kind = f.metadata.get("kind", str)
    wants_float = kind is float or (isinstance(kind, tuple) and float in kind)
    if wants_float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


def parse(spec: str | Metric, *, defaults: Mapping[str, Any] | None = None) -> Metric:
    """Read a metric from its text: ``name[(param=value, ...)][@k]``.

    Names and aliases are case-insensitive; values may be quoted or bare; ``repr()`` of the
    result is the canonical label and parses back to an equal metric. ``defaults`` replace
    receval's defaults of some parameters (a convention's variants); parameters written in
    the text win over them.

    Examples
    --------
    >>> parse("ndcg(gain=exponential)@10")
    NDCG(gain='exponential')@10
    >>> parse("MAP@5") == parse("ap(denominator='min_k_relevant')@5")
    True
    """
    if isinstance(spec, Metric):
        return spec
    if not isinstance(spec, str):
        raise InvalidParameterError(
            f"a metric is a string such as 'ndcg@10' or a metric object, got "
            f"{type(spec).__name__}", parameter="metrics")
    m = _GRAMMAR.match(spec)
    if m is None:
        raise InvalidParameterError(
            f"cannot read metric {spec!r}: the form is name[(param=value, ...)][@k], "
            f"e.g. 'ndcg(gain=exponential)@10'", parameter="metrics", examples=[spec])
    cls, presets = _lookup(m.group("name"))
    kwargs: dict[str, Any] = {**(defaults or {}), **presets}
    names = {f.name for f in cls.parameters()}
    written: set[str] = set()
    if m.group("params") and m.group("params").strip():
        for part in _split_params(m.group("params")):
            if "=" not in part:
                raise InvalidParameterError(
                    f"cannot read parameter {part.strip()!r} of {spec!r}: write name=value",
                    parameter="metrics", examples=[spec])
            key, _, raw = part.partition("=")
            key = key.strip().lower()
            if key not in names:
                close = difflib.get_close_matches(key, sorted(names), n=3, cutoff=0.5)
                hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
                raise UnknownMetricError(
                    f"{cls.display} has no parameter {key!r}{hint} (its parameters: "
                    f"{', '.join(sorted(names)) or 'none'})", parameter=key, examples=close)
            if key in written:
                raise InvalidParameterError(
                    f"metric {spec!r} gives the parameter {key!r} twice: write each parameter "
                    f"once", parameter=key, examples=[spec])
            written.add(key)
            kwargs[key] = _coerce(cls, key, _value(raw))
    k = m.group("k")
    if k is not None:
        if not cls.takes_k:
            raise InvalidParameterError(
                f"{cls.display} takes no cutoff, got {spec!r}", parameter="k", examples=[spec])
        try:
            kwargs["k"] = int(k)
        except ValueError:
            raise InvalidParameterError(
                f"the cutoff in {spec!r} must be a whole number >= 1, got {k!r}",
                parameter="k", examples=[spec]) from None
        if kwargs["k"] > MAX_CUTOFF:
            raise InvalidParameterError(
                f"the cutoff in {spec!r} must be at most 2**31 - 1 ({MAX_CUTOFF}), longer "
                f"than any list; got {k}", parameter="k", examples=[spec])
    return cls(**kwargs)


def _split_params(text: str) -> list[str]:
    parts, depth, cur, quote = [], 0, "", ""
    for ch in text:
        if quote:
            cur += ch
            if ch == quote:
                quote = ""
            continue
        if ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        cur += ch
    if cur.strip():
        parts.append(cur)
    return parts


@dataclass(frozen=True)
class MetricInfo:
    """What ``available()`` says of one metric."""

    name: str
    display: str
    aliases: tuple[str, ...]
    family: str
    takes_k: bool
    parameters: dict[str, dict[str, Any]]
    summary: str
    formula: str
    bounds: tuple[float, float]
    higher_is_better: bool


def available() -> list[MetricInfo]:
    """Every registered metric with its aliases, parameters, defaults and documentation."""
    out = []
    for name, cls in sorted(_CANONICAL.items()):
        aliases = tuple(sorted(a for a, (c, _) in _REGISTRY.items()
                               if c is cls and a != name))
        params = {f.name: {"default": f.default, "options": f.metadata.get("options"),
                           "doc": f.metadata.get("doc", "")} for f in cls.parameters()}
        out.append(MetricInfo(name, cls.display, aliases, cls.family, cls.takes_k, params,
                              cls.summary, cls.formula, cls.bounds, cls.higher_is_better))
    return out
