"""The presets by name: :func:`get` and :func:`available`."""

from __future__ import annotations

from receval.conventions._model import Convention, close_names
from receval.conventions._presets import PRESETS
from receval.exceptions import InvalidParameterError

__all__ = ["available", "get"]

_ALIASES = {alias: c.name for c in PRESETS.values() for alias in (c.name, *c.aliases)}


def available() -> list[str]:
    """The names of the presets, in the order of :func:`table`."""
    return list(PRESETS)


def get(name: str | Convention) -> Convention:
    """The preset called ``name`` (or one of its aliases, case-insensitive)."""
    if isinstance(name, Convention):
        return name
    if not isinstance(name, str):
        raise InvalidParameterError(
            f"convention must be a name such as 'trec_eval', got {type(name).__name__}",
            parameter="convention", examples=[name])
    key = name.strip().lower().replace("-", "_")
    if key in _ALIASES:
        return PRESETS[_ALIASES[key]]
    raise InvalidParameterError(
        f"unknown convention {name!r}{close_names(key, list(_ALIASES))}; the conventions "
        f"are {', '.join(PRESETS)}", parameter="convention", examples=[name])
