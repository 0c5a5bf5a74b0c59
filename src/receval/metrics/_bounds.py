"""The range of a metric whose range depends on its parameters."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["INF", "Bounds"]

INF = float("inf")


class Bounds:
    """``Metric.bounds`` computed from the metric's parameters.

    On the class (``Serendipity.bounds``, the registry, the docs) it is the widest range
    of any variant; on a metric (``metric.bounds``: report histograms, the fuzz and
    property tests) it is that variant's own range, so that a bound is never false for
    any parameter value.

    Parameters
    ----------
    widest : (float, float)
        The range of every variant together.
    of : callable
        The metric -> its variant's range.
    """

    def __init__(self, widest: tuple[float, float],
                 of: Callable[[Any], tuple[float, float]]) -> None:
        self.widest = widest
        self.of = of

    def __get__(self, obj: object, owner: type | None = None) -> tuple[float, float]:
        return self.widest if obj is None else self.of(obj)
