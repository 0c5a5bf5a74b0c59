r"""Calibration: how far a list's mix of categories is from the user's history (Steck 2018).

Both metrics compare two distributions per user, ``p`` from the user's training history
(``evaluate(train=...)``) and ``q`` from the top ``k`` of the list, and average the
divergence over users: over genres (``miscalibration``, categories from
``evaluate(item_features=...)``) or over popularity groups head / mid / tail
(``popularity_calibration``). Computed by the ``calibration`` family
(:mod:`receval._engine._families._calibration`); ``docs/fairness.md`` has the worked example.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from receval.exceptions import InvalidParameterError
from receval.metrics._base import param
from receval.metrics._beyond import BeyondMetric
from receval.metrics._registry import register

__all__ = ["CalibrationMetric", "Miscalibration", "PopularityCalibration"]


def _base_ok(x: float) -> bool:
    return x > 0 and x != 1


@dataclass(frozen=True, repr=False)
class CalibrationMetric(BeyondMetric):
    """A divergence between the profile's and the list's distributions, per user.

    Parameters shared by both metrics: the divergence, its logarithm base and smoothing,
    and the weights of profile rows and list ranks.
    """

    family: ClassVar[str] = "calibration"
    higher_is_better: ClassVar[bool] = False
    needs: ClassVar[tuple[str, ...]] = ("train",)
    trailing: ClassVar[tuple[str, ...]] = ("ties",)

    divergence: str = param("kl", "kl: KL(p || (1 - alpha) q + alpha p) (Steck eq. 3); js: "
                            "Jensen-Shannon; hellinger: sqrt(1/2 sum (sqrt p - sqrt q)^2)",
                            options=("kl", "js", "hellinger"))
    alpha: float = param(0.01, "smoothing of q in the KL divergence (Steck: 0.01)",
                         kind=float, check=lambda a: 0 <= a < 1, rule="a number in [0, 1)")
    base: float | None = param(None, "logarithm base; None: e for kl, 2 for js (so that js "
                               "is in [0, 1])", kind=(float, int), check=_base_ok,
                               rule="a number > 0 other than 1")
    profile_weight: str = param("uniform", "weight of a training item in p: 1, or the "
                                "user's rating of it (train's rating column; the mean of "
                                "repeated pairs)", options=("uniform", "rating"))
    rank_weight: str = param("uniform", "weight of rank r in q: 1, or 1 / log2(r + 1)",
                             options=("uniform", "log"))

    @property
    def needs_ratings(self) -> bool:
        """Whether train's ratings are read (``profile_weight='rating'``)."""
        return self.profile_weight == "rating"

    def log_base(self) -> float | None:
        """The base in use (None: natural logarithm)."""
        if self.base is not None:
            return float(self.base)
        return 2.0 if self.divergence == "js" else None


@register("calibration", "miscal", "ckl")
class Miscalibration(CalibrationMetric):
    r"""Miscalibration: the divergence of a list's genre mix from the user's history.

    .. math::
        p(g|u) = \frac{\sum_{i \in H_u} w_{u,i}\, p(g|i)}{\sum_{i \in H_u} w_{u,i}},\quad
        q(g|u) = \frac{\sum_{r \le k} w_r\, p(g|i_r)}{\sum_{r \le k} w_r}

    .. math:: C_{KL}(u) = \sum_g p(g|u) \log \frac{p(g|u)}{(1-\alpha) q(g|u) + \alpha p(g|u)}

    (Steck, "Calibrated recommendations", RecSys 2018, eqs. 1-3; ``alpha = 0.01``). ``p(g|i)``
    is ``1/|genres(i)|`` for each of the item's categories (``split='fractional'``, Steck)
    or 1 for each (``'binary'``, LibRec: shares then divide by the number of items and need
    not sum to 1). ``divergence='js'`` is Jensen-Shannon (no alpha), ``'hellinger'``
    ``sqrt(1/2 sum_g (sqrt p - sqrt q)^2)``. ``order='list_profile'`` swaps the arguments,
    ``KL(q || (1 - alpha) p + alpha q)`` (LibRec's ``MiscalibrationEvaluator``). Categories
    are the columns of ``item_features`` (a long (item, genre) table, text split on
    ``item_features_sep``, or 0/1 wide columns). Items without a category carry no mass and
    leave the denominators (``fractional``; they count in ``|S|`` under ``binary``, as in
    LibRec); a user without training rows or whose list or profile has no categorised item
    is undefined (NaN, counted in ``n_undefined``). ``users='truth'`` evaluates only users
    with a truth row (LibRec). 0 when the list mirrors the profile.
    """

    name = "miscalibration"
    display = "Miscalibration"
    needs: ClassVar[tuple[str, ...]] = ("train", "item_features")
    bounds = (0.0, float("inf"))
    summary = "divergence of the list's genre mix from the user's history (Steck 2018)"
    formula = "KL(p(g|u) || (1 - a) q(g|u) + a p(g|u))"

    split: str = param("fractional", "p(g|i): 1/|genres(i)| per genre (Steck), or 1 per "
                       "genre, shares over the number of items (LibRec)",
                       options=("fractional", "binary"))
    order: str = param("profile_list", "KL(p || q~) (Steck), or KL(q || p~) (LibRec)",
                       options=("profile_list", "list_profile"))
    users: str = param("list", "users evaluated: every user with a list, or only those with "
                       "a truth row (LibRec)", options=("list", "truth"))

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.order != "profile_list" and self.divergence != "kl":
            raise InvalidParameterError(
                f"{self.display}: order='list_profile' swaps the arguments of the KL "
                f"divergence; {self.divergence} is symmetric, leave order out",
                parameter="order", examples=[self.order])


@register("popularity_miscalibration")
class PopularityCalibration(CalibrationMetric):
    r"""Popularity calibration: the divergence of a list's head / mid / tail mix from the history.

    .. math:: PC(u) = JS(P(u), Q(u))

    ``P(u)``, ``Q(u)`` the shares of head, mid and tail items in the user's training history
    and in the top ``k`` (Abdollahpouri, Mansoury, Burke, Mobasher, Malthouse, UMAP 2021).
    Groups by training popularity: with ``by='interactions'`` the head is the shortest
    prefix of items by count (descending, ties by item id) holding a ``head`` share of the
    training interactions, the tail the longest suffix holding at most a ``tail`` share;
    with ``by='items'`` they are shares of the training items. Items absent from train are
    tail (``absent='tail'``) or left out (``'skip'``). Jensen-Shannon in base 2 by default
    (``[0, 1]``); the paper's UPD is ``ev.by(user_groups)`` averaged over the groups.
    """

    name = "popularity_calibration"
    display = "PopularityCalibration"
    bounds = (0.0, 1.0)
    summary = "JS divergence of the list's head/mid/tail shares from the history's"
    formula = "JS(P(u), Q(u)) over head, mid, tail"

    divergence: str = param("js", "js (the paper), kl (with alpha) or hellinger",
                            options=("js", "kl", "hellinger"))
    head: float = param(0.2, "share of training interactions (or items) in the head",
                        kind=float, check=lambda x: 0 < x < 1,
                        rule="a number strictly between 0 and 1")
    tail: float = param(0.2, "share of training interactions (or items) in the tail",
                        kind=float, check=lambda x: 0 < x < 1,
                        rule="a number strictly between 0 and 1")
    by: str = param("interactions", "groups by cumulative share of interactions, or share "
                    "of items", options=("interactions", "items"))
    absent: str = param("tail", "items absent from train: in the tail, or left out",
                        options=("tail", "skip"))

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.head + self.tail > 1:
            raise InvalidParameterError(
                f"{self.display}: head ({self.head}) and tail ({self.tail}) overlap; their "
                f"shares must add up to at most 1", parameter="tail",
                examples=[self.head, self.tail])
