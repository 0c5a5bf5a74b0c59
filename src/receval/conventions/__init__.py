"""Named conventions: reproduce another library's numbers on the same input.

>>> import receval as rv
>>> rv.conventions.get("trec_eval").metric("map@10")
MAP(denominator='relevant')@10
>>> rv.conventions.get("ranx").library_name(rv.conventions.get("ranx").metric(
...     "ndcg(gain=exponential)@5"))
'ndcg_burges@5'

``rv.evaluate(recs, truth, metrics, convention="trec_eval")`` reads every metric name in the
convention (its rule's parameters first, then those written in the name) and uses the
convention's settings (ties, which users enter the mean, relevance level, ...) for every
``evaluate`` parameter left at ``None``. :func:`table` shows how every preset defines every
metric; :func:`side_by_side` evaluates one data set under all of them.
"""

from __future__ import annotations

from receval.conventions._model import DEFAULTS, SETTINGS, Convention, MetricRule, close_names
from receval.conventions._presets import PRESETS
from receval.conventions._side_by_side import SideBySide, side_by_side
from receval.conventions._table import table
from receval.exceptions import InvalidParameterError

__all__ = ["DEFAULTS", "SETTINGS", "Convention", "MetricRule", "SideBySide", "available", "get",
           "side_by_side", "table"]

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
