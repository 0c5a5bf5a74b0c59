"""The metric families: each a plug-in of the engine with a ``run`` and a ``merge``.

A metric names its family in its spec (``Metric.family``); :func:`family_of` is the only
place that maps a metric to the code that computes it. A new family is a new module here,
registered in :data:`FAMILIES`, never a second engine.

Modules: :mod:`._base` (the interface and what every family shares), :mod:`._ranking`,
:mod:`._rating`, :mod:`._per_list` (with :mod:`._side`, :mod:`._terms`,
:mod:`._similarity`), :mod:`._exposure`, :mod:`._calibration` and :mod:`._group_exposure`
(with :mod:`._item_groups`, :mod:`._user_group_bias`) and :mod:`._fair_lists` (with
:mod:`._ee_pairs`, :mod:`._ee_targets`: sampled rankings and group mode).
"""

from __future__ import annotations

from typing import Any

from receval._engine._families._base import (
    Context,
    Family,
    FamilyPartial,
    MergeContext,
    Specs,
)
from receval._engine._families._calibration import Calibration
from receval._engine._families._exposure import Exposure
from receval._engine._families._fair_lists import FairLists
from receval._engine._families._group_exposure import GroupExposureFamily
from receval._engine._families._per_list import PerList
from receval._engine._families._ranking import Ranking
from receval._engine._families._rating import Rating
from receval.metrics import Metric

__all__ = ["FAMILIES", "Context", "Family", "FamilyPartial", "MergeContext", "Specs",
           "family_of", "requested"]

#: Every family, in the order the engine runs them.
FAMILIES: dict[str, Family] = {f.name: f for f in (Ranking(), Rating(), PerList(), Exposure(),
                                                   Calibration(), GroupExposureFamily(),
                                                   FairLists())}


def family_of(metric: Metric) -> Family:
    """The family that computes ``metric`` (from its spec's ``family`` attribute)."""
    return FAMILIES[metric.family]


def requested(specs: Specs) -> dict[str, list[tuple[str, Any]]]:
    """The requested metrics by family name, in :data:`FAMILIES` order (only families used)."""
    by: dict[str, list[tuple[str, Any]]] = {name: [] for name in FAMILIES}
    for text, metric in specs:
        by[family_of(metric).name].append((text, metric))
    return {name: group for name, group in by.items() if group}
