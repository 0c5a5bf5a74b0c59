"""Coverage: how much of the user base and of the catalog the recommendations reach."""

from __future__ import annotations

from typing import ClassVar

from receval.metrics._base import TIES, Metric, param
from receval.metrics._registry import register

__all__ = ["GlobalMetric", "ItemCoverage", "UserCoverage"]


class GlobalMetric(Metric):
    """A metric of the whole set of lists, with no per-user value."""

    family: ClassVar[str] = "exposure"


@register("coverage_users")
class UserCoverage(GlobalMetric):
    r"""User coverage: the share of truth users who received at least one recommendation.

    .. math:: UC = \frac{|\{u \in U_{truth} : |L_u| > 0\}|}{|U_{truth}|}
    """

    name = "user_coverage"
    display = "UserCoverage"
    takes_k = False
    summary = "share of truth users with a non-empty list"
    formula = "|users with recs| / |truth users|"


@register("catalog_coverage", "coverage", "coverage_items")
class ItemCoverage(GlobalMetric):
    r"""Item coverage: the share of the catalog recommended at least once in a top ``k``.

    .. math:: IC@k = \frac{|\bigcup_u L_u@k|}{|I|}

    The catalog ``I`` is ``evaluate(catalog=...)`` when given, else the training and
    recommended items when ``evaluate(train=...)`` is given, else every item of the truth
    and the recommendations. ``over='train'`` divides the number of distinct recommended
    items by the number of distinct training items (Microsoft Recommenders'
    ``catalog_coverage``; it can exceed 1).
    """

    name = "item_coverage"
    display = "ItemCoverage"
    summary = "share of the catalog recommended at least once within k"
    formula = "|items in any top k| / |catalog|"
    ties: str | None = param(None, "tie policy for the top k; None follows evaluate(ties=...)",
                             options=(None, *TIES))
    over: str = param("catalog", "denominator: the catalog, or the distinct training items "
                      "(Microsoft Recommenders)", options=("catalog", "train"))
