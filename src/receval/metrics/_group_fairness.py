r"""Group fairness of the lists: RSP, REO, delta GAP and bias disparity.

Each is one value for the whole set of lists (pooled over users) and a value per group in
``ev.groups(label)``: the per-group probabilities of RSP and REO (Zhu, Wang, Caverlee,
SIGIR 2020), the per-user-group delta GAP (Abdollahpouri et al. 2019) and the (user
group, item category) table of bias disparity (Tsintzou et al. 2018). Computed by the
``group_exposure`` family; ``docs/fairness.md`` has the worked examples.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from receval.exceptions import InvalidParameterError
from receval.metrics._base import param
from receval.metrics._fairness import GroupMetric
from receval.metrics._registry import register

__all__ = ["REO", "RSP", "BiasDisparity", "DeltaGap"]


@dataclass(frozen=True, repr=False)
class _Parity(GroupMetric):
    needs: ClassVar[tuple[str, ...]] = ("train",)
    higher_is_better = False
    bounds = (0.0, float("inf"))

    eps: float = param(0.0, "added to the mean of the probabilities (Zhu et al.'s code: "
                       "1e-10)", kind=float, check=lambda x: x >= 0, rule="a number >= 0")
    users: str = param("list", "users counted: every user with a list, or those with a truth "
                       "row (Elliot)", options=("list", "truth"))


@register("ranking_based_statistical_parity")
class RSP(_Parity):
    r"""Ranking-based statistical parity (Zhu, Wang, Caverlee, SIGIR 2020).

    .. math:: P(R@k \mid g) = \frac{\sum_u |L_u@k \cap I_g|}{\sum_u |I_g \setminus T_u|},
              \qquad RSP@k = \frac{\mathrm{std}_g\, P(R@k \mid g)}{\mathrm{mean}_g\,
              P(R@k \mid g)}

    the probability that an item of group ``g`` the user has not interacted with in train is
    ranked in the top ``k``, pooled over users; population standard deviation (ddof 0). 0 is
    parity. ``I_g`` the items of ``item_groups`` in ``g`` (an item in several groups counts
    in each, as in Zhu et al.'s code), or with ``groups='popularity'`` the short head / long
    tail of the training items (Elliot's PopRSP). Needs ``train``.
    """

    name = "rsp"
    display = "RSP"
    summary = "relative std of the groups' probability of being recommended"
    formula = "std_g P(R@k|g) / mean_g P(R@k|g)"


@register("ranking_based_equal_opportunity")
class REO(_Parity):
    r"""Ranking-based equal opportunity (Zhu, Wang, Caverlee, SIGIR 2020).

    .. math:: P(R@k \mid g, y=1) = \frac{\sum_u |L_u@k \cap I_g \cap R_u|}
              {\sum_u |(I_g \cap R_u) \setminus T_u|},\qquad
              REO@k = \frac{\mathrm{std}_g\, P(R@k \mid g, y=1)}{\mathrm{mean}_g\,
              P(R@k \mid g, y=1)}

    recall per group, pooled over the users with a relevant item; 0 is parity. Groups as
    in :class:`RSP`. Needs ``train`` and truth.
    """

    name = "reo"
    display = "REO"
    needs: ClassVar[tuple[str, ...]] = ("train", "truth")
    summary = "relative std of the groups' recall"
    formula = "std_g P(R@k|g,y=1) / mean_g P(R@k|g,y=1)"


@register("deltagap")
class DeltaGap(GroupMetric):
    r"""Delta GAP: how much less (or more) popular lists are than profiles, per user group.

    .. math:: GAP(g) = \frac{1}{|g|}\sum_{u \in g} \frac{1}{|S_u|}\sum_{i \in S_u}
              \phi(i),\qquad \Delta GAP(g) = \frac{GAP_r(g) - GAP_p(g)}{GAP_p(g)}

    with ``phi(i)`` the item's training interactions over the number of training users,
    ``S_u`` the user's training items (``GAP_p``) or top ``k`` (``GAP_r``) (Abdollahpouri,
    Mansoury, Burke, Mobasher, RMSE@RecSys 2019; ClayRS's DeltaGap). User groups: from
    ``evaluate(user_groups=...)`` (``user_groups='given'``) or by the share of popular items
    in the profile (``'popularity'``: the ``top`` most popular items are popular; users
    sorted by that share are cut into ``shares`` = blockbuster / diverse / niche, ClayRS's
    default (0.2, 0.6, 0.2)). The value is delta GAP over every user with a list and a
    profile; ``ev.groups(label)`` has each user group's ``GAP_p``, ``GAP_r`` and delta GAP.
    0: lists as popular as profiles; negative: less popular.
    """

    name = "delta_gap"
    display = "DeltaGap"
    needs: ClassVar[tuple[str, ...]] = ("train",)
    higher_is_better = True
    bounds = (-1.0, float("inf"))
    summary = "relative change of the mean item popularity from profiles to lists"
    formula = "(GAP_r - GAP_p) / GAP_p"

    user_groups: str = param("popularity", "user groups: by the share of popular items in "
                             "the profile (ClayRS), or evaluate(user_groups=...)",
                             options=("popularity", "given"))
    top: float = param(0.2, "share of the training items that are popular (ClayRS: "
                       "round(0.2 |items|), half to even)", kind=float,
                       check=lambda x: 0 < x < 1, rule="a number strictly between 0 and 1")
    shares: tuple[float, float, float] = param(
        (0.2, 0.6, 0.2), "user_groups='popularity': shares of blockbuster, diverse and niche "
        "users", kind=tuple, check=lambda t: len(t) == 3 and all(
            isinstance(x, (int, float)) and x >= 0 for x in t) and abs(sum(t) - 1) < 1e-9,
        rule="three shares >= 0 summing to 1")
    order: str = param("id", "ties of popularity and of users' shares: by id, or by first "
                       "appearance in train (ClayRS)", options=("id", "train"))

    def __post_init__(self) -> None:
        if isinstance(self.shares, list):
            object.__setattr__(self, "shares", tuple(self.shares))
        super().__post_init__()
        if self.groups != "item_groups":
            raise InvalidParameterError(
                f"{self.display} groups users, not items: leave groups out (its popular "
                f"items are the top share, 'top')", parameter="groups")


@register()
class BiasDisparity(GroupMetric):
    r"""Bias disparity (Tsintzou, Pitoura, Tsaparas 2018; Elliot's BiasDisparityBS/BR/BD).

    .. math:: B(G, C) = \frac{PR(G, C)}{P(C)},\quad PR(G, C) = \frac{\sum_{u \in G}
              |S_u \cap C|}{\sum_{u \in G} |S_u|},\quad BD(G, C) = \frac{B_R(G, C) -
              B_S(G, C)}{B_S(G, C)}

    for user group ``G`` (``evaluate(user_groups=...)``, or one group of everybody) and item
    category ``C`` (``item_groups``), ``P(C)`` the share of the items of ``item_groups`` in
    ``C``; ``B_S`` over the training items of every training user of ``G``, ``B_R`` over
    the top ``k`` of the users of ``G`` with a list (``users='truth'``: with a truth row,
    Elliot). ``part`` picks ``bd`` (default), ``br`` or ``bs``; the value is the mean of
    ``|part|`` over the (user group, category) cells (``bs``, ``br``: the mean), and
    ``ev.groups(label)`` the table.
    """

    name = "bias_disparity"
    display = "BiasDisparity"
    needs: ClassVar[tuple[str, ...]] = ("train",)
    higher_is_better = False
    bounds = (0.0, float("inf"))
    summary = "relative change of user groups' preference for item categories, train to lists"
    formula = "mean over (G, C) of |B_R(G, C) - B_S(G, C)| / B_S(G, C)"

    part: str = param("bd", "bd: bias disparity; br: bias of the lists; bs: bias of train",
                      options=("bd", "br", "bs"))
    users: str = param("list", "users of B_R: every user with a list, or those with a truth "
                       "row (Elliot)", options=("list", "truth"))
