"""Coverage: how much of the user base and of the catalog the recommendations reach."""

from __future__ import annotations

from typing import ClassVar

from receval.exceptions import InvalidParameterError
from receval.metrics._base import TIES, Metric, param
from receval.metrics._bounds import INF, Bounds
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


def _item_coverage_bounds(m: ItemCoverage) -> tuple[float, float]:
    """Over the training items with the items outside train counted, the value can pass 1."""
    return (0.0, INF) if m.over == "train" and m.absent == "count" else (0.0, 1.0)


@register("catalog_coverage", "coverage", "coverage_items")
class ItemCoverage(GlobalMetric):
    r"""Item coverage: the share of the catalog recommended at least once in a top ``k``.

    .. math:: IC@k = \frac{|\bigcup_u L_u@k|}{|I|}

    The item set ``I`` (``over``):

    * ``'catalog'`` (default): ``evaluate(catalog=...)`` when given, else the training and
      recommended items when ``evaluate(train=...)`` is given, else every item of the truth
      and the recommendations;
    * ``'train'``: the distinct training items. A recommended item absent from train is
      counted in the numerator (``absent='count'``: Microsoft Recommenders'
      ``catalog_coverage``, which can exceed 1) or not (``absent='skip'``: Evidently's
      ``PopularityBiasMetric(metric='coverage')``, ``|top-k items & I_train| / |I_train|``);
    * ``'dataset'``: every item of ``catalog=``, ``train=``, the truth (every row, relevant
      or not) and the recommendations (whole lists), as RecBole's dataset holds them
      (``dataset.num(item_id)``); it needs ``train=`` or ``catalog=``.

    ``extra_items`` are added to ``|I|`` (RecBole's ``[PAD]`` token: ``extra_items=1``,
    ``itemcoverage = |U_u L_u@k| / num_items``).
    """

    name = "item_coverage"
    display = "ItemCoverage"
    summary = "share of the catalog recommended at least once within k"
    formula = "|items in any top k| / |catalog|"
    bounds = Bounds((0.0, INF), _item_coverage_bounds)
    ties: str | None = param(None, "tie policy for the top k; None follows evaluate(ties=...)",
                             options=(None, *TIES))
    over: str = param("catalog", "denominator: the catalog, the distinct training items "
                      "(Microsoft Recommenders, Evidently), or every item of the inputs "
                      "(RecBole's dataset)", options=("catalog", "train", "dataset"))
    absent: str = param("count", "with over='train': recommended items absent from train "
                        "counted (Microsoft Recommenders) or left out (Evidently)",
                        options=("count", "skip"))
    extra_items: int = param(0, "items added to the denominator that no input holds "
                             "(RecBole's [PAD] token: 1)", kind=int, check=lambda x: x >= 0,
                             rule="an integer >= 0")

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.absent != "count" and self.over != "train":
            raise InvalidParameterError(
                f"{self.display}: absent= says what to do with recommended items absent from "
                f"train, for over='train' only; got over={self.over!r}", parameter="absent",
                examples=[self.absent])
        if self.extra_items and self.over == "train":
            raise InvalidParameterError(
                f"{self.display}: extra_items enlarges a catalog or data set "
                f"(over='catalog' or 'dataset'), not the training items", parameter="extra_items",
                examples=[self.extra_items])
