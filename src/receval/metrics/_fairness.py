r"""Provider-side exposure: how the attention of the lists is shared among groups of items.

Item groups come from ``evaluate(item_groups=...)`` (item -> group; an item may have
several) or from training popularity (``groups='popularity'``: Elliot's short head, the
most popular items holding ``pop_ratio`` of the training interactions, and the long tail).
``exposure`` and the metrics of :mod:`receval.metrics._group_fairness` have one value for
the whole set of lists and a value per group (``ev.groups(label)``); ``expected_exposure``
and ``awrf`` have a value per user. ``docs/fairness.md`` has the worked examples.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from receval.exceptions import InvalidParameterError
from receval.metrics._base import param
from receval.metrics._beyond import BeyondMetric
from receval.metrics._registry import register

__all__ = ["AWRF", "BROWSING", "ExpectedExposure", "GroupExposure", "GroupMetric", "browsing"]

#: Browsing models and their parameters (with defaults), for ``browsing=name(p=v, ...)``.
BROWSING: Mapping[str, Mapping[str, float]] = {
    "rbp": {"patience": 0.5}, "cascade": {"patience": 0.5, "stop": 0.5}, "log": {}}


def browsing(text: str) -> tuple[str, dict[str, float]]:
    """Read ``"rbp"``, ``"rbp(patience=0.8)"``, ``"cascade(patience=0.5, stop=0.3)"``, ``"log"``.

    Returns the model's name and every parameter (defaults filled in).

    Raises
    ------
    InvalidParameterError
        An unknown model or parameter, or a value outside ``(0, 1)``.
    """
    name, _, rest = str(text).strip().partition("(")
    name = name.strip().lower()
    if name not in BROWSING:
        raise InvalidParameterError(
            f"browsing must be one of {', '.join(BROWSING)} (e.g. 'rbp(patience=0.5)'); got "
            f"{text!r}", parameter="browsing", examples=[text])
    values = dict(BROWSING[name])
    inner = rest.rstrip().removesuffix(")")
    for part in filter(None, (p.strip() for p in inner.split(","))):
        key, _, raw = part.partition("=")
        key = key.strip()
        try:
            value = float(raw)
        except ValueError:
            value = math.nan
        if key not in values or not 0 < value < 1:
            raise InvalidParameterError(
                f"browsing {name!r} takes {', '.join(values) or 'no parameter'}, each a number "
                f"strictly between 0 and 1; got {part!r}", parameter="browsing",
                examples=[text])
        values[key] = value
    return name, values


def _canonical(text: str) -> str:
    name, values = browsing(text)
    if not values:
        return name
    return f"{name}(" + ", ".join(f"{k}={v:g}" for k, v in values.items()) + ")"


@dataclass(frozen=True, repr=False)
class GroupMetric(BeyondMetric):
    """A metric over groups of items: from ``item_groups=`` or from training popularity."""

    family: ClassVar[str] = "group_exposure"
    per_user: ClassVar[bool] = False
    needs: ClassVar[tuple[str, ...]] = ()

    groups: str = param("item_groups", "item groups: evaluate(item_groups=...), or "
                        "popularity: short head (the most popular items holding pop_ratio "
                        "of the training interactions, Elliot) and long tail",
                        options=("item_groups", "popularity"))
    pop_ratio: float = param(0.8, "groups='popularity': share of the training interactions "
                             "in the short head (Elliot)", kind=float,
                             check=lambda x: 0 < x < 1,
                             rule="a number strictly between 0 and 1")
    ungrouped: str = param("error", "a recommended item without a group: an error, or left "
                           "out with its place (expeval, Elliot, TREC Fair)",
                           options=("error", "skip"))

    def inputs(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(self.needs + (("train",) if self.groups == "popularity"
                                                  else ())))


class _Browsing:
    """The browsing model of a metric (its ``browsing`` text, canonical)."""

    browsing: str

    def _canonical_browsing(self) -> None:
        object.__setattr__(self, "browsing", _canonical(self.browsing))

    def model(self) -> tuple[str, dict[str, float]]:
        """The browsing model and its parameters."""
        return browsing(self.browsing)


_BROWSING_DOC = ("attention of rank r: rbp(patience=g): g^(r-1); cascade(patience=g, stop=s): "
                 "g^(r-1) (1-s)^(relevant items above r); log: 1/log2(r+1)")


@register("group_exposure", "provider_exposure")
class GroupExposure(GroupMetric, _Browsing):
    r"""Exposure of each item group under a browsing model; the gap between groups.

    .. math:: E_g = \sum_u \sum_{r \le k} e_r\, m(i_r, g), \qquad
              share_g = E_g / \sum_h E_h

    with ``e_r`` the attention of rank ``r`` (``browsing``: RBP ``g^(r-1)``, cascade
    ``g^(r-1) (1-s)^{\#relevant above r}`` (expeval's gerr), or ``1/log2(r+1)``) and
    ``m(i, g)`` 1/|groups(i)| (``multi='split'``, TREC Fair) or 1 (``'full'``, expeval,
    Zhu et al.). The value is ``max_g share_g - min_g share_g`` (0: equal exposure);
    ``ev.groups(label)`` has each group's ``exposure`` ``E_g`` and ``share``.
    ``normalize='mean'`` reports ``E_g / |users|`` per group instead of shares (the value
    stays the gap of the shares).
    """

    name = "exposure"
    display = "Exposure"
    higher_is_better = False
    bounds = (0.0, 1.0)
    summary = "gap between the largest and smallest group share of exposure"
    formula = "max_g E_g / sum E - min_g E_g / sum E"

    browsing: str = param("rbp(patience=0.5)", _BROWSING_DOC, kind=str)
    multi: str = param("split", "an item in several groups: 1/|groups| to each (TREC Fair), "
                       "or its full exposure to each (expeval)", options=("split", "full"))
    normalize: str = param("share", "per-group values: shares of the total, or exposure per "
                           "user with a list", options=("share", "mean"))

    def __post_init__(self) -> None:
        self._canonical_browsing()
        super().__post_init__()

    def inputs(self) -> tuple[str, ...]:
        own = super().inputs()
        return (*own, "truth") if self.model()[0] == "cascade" else own


@register("ee", "expected_exposure_loss")
class ExpectedExposure(BeyondMetric, _Browsing):
    r"""Expected exposure (Diaz, Mitra, Ekstrand, Biega, Carterette, CIKM 2020; expeval).

    .. math:: \epsilon_d = \frac{1}{S}\sum_{s=1}^{S} e(\mathrm{rank}_s(d)),\quad
              EE\text{-}D = \sum_d \epsilon_d^2,\quad EE\text{-}R = \sum_d \epsilon_d
              \epsilon^*_d,\quad EE\text{-}L = \sum_d (\epsilon_d - \epsilon^*_d)^2

    per user, over the ``S`` sampled rankings of a stochastic ranker (one for a deterministic
    list), cut at ``k``. The target ``epsilon*`` gives every relevant item of a relevance
    level the mean attention of the places that level holds in an ideal ranking
    (``(g^b - g^(b+m)) / (m (1-g))`` for RBP; ``b`` items in higher levels, ``m`` in the
    level). ``measure`` picks EE-L (default; lower is better), EE-D (disparity, lower) or
    EE-R (relevance, higher; the metric's ``higher_is_better`` is that of EE-L and EE-D, so
    a comparison's marks read EE-R the other way round). ``normalize=True`` maps each to
    ``[0, 1]`` with expeval's bounds; ``judgments='complete'`` also gives judged non-relevant
    items a target (level 0) and uses finite bounds; ``grades='binary'`` makes every
    relevant grade 1 (expeval
    ``-B``). Default browsing: expeval's ``gerr`` (cascade, patience 0.5, stop 0.5).

    Sampled rankings: ``evaluate(sample="sample")`` names the column of ``recs`` that labels
    each row's sample; ``epsilon_d`` is then the mean over the user's ``S`` samples, each
    sample ranked and cut at ``k`` on its own (expeval's ``exposure.expected``).

    Group mode (``groups='item_groups'`` or ``'popularity'``, expeval ``-G``): the exposures
    of the relevant items (every judged item with ``judgments='complete'``) are summed per
    group of the item, ``E_g = sum_{d in g} epsilon_d`` and ``E*_g`` likewise, and the
    measures compare the group vectors; the run's exposure of other items does not count.
    The bounds are expeval's group bounds, with ``r`` relevant items and ``G`` groups:
    disparity ``G (sum_{i<r} g^i)^2`` and ``G (sum_{i<r} g'^i)^2``, difference
    ``max(sum E*^2, sum (sum_{i<r} g^i - E*_g)^2)`` and 0 (``g' = g s`` for cascade).
    """

    name = "expected_exposure"
    display = "ExpectedExposure"
    family: ClassVar[str] = "fair_lists"
    per_user: ClassVar[bool] = True
    needs: ClassVar[tuple[str, ...]] = ("truth",)
    reads_samples: ClassVar[bool] = True  # evaluate(sample=...): the mean over samples
    bounds = (0.0, float("inf"))
    higher_is_better = False
    summary = "distance of the items' expected exposure from the ideal (EE-L, -D or -R)"
    formula = "sum_d (eps_d - eps*_d)^2"

    browsing: str = param("cascade(patience=0.5, stop=0.5)", "user model: cascade "
                          "(expeval's gerr) or rbp, with patience g and stop s", kind=str)
    measure: str = param("l", "l: EE-L (distance to the target), d: EE-D (disparity), r: "
                         "EE-R (relevance)", options=("l", "d", "r"))
    judgments: str = param("incomplete", "incomplete: only relevant items have a target "
                           "(expeval default); complete: judged non-relevant items too "
                           "(expeval -C)", options=("incomplete", "complete"))
    grades: str = param("graded", "relevance levels: the grades, or 1 for every relevant "
                        "item (expeval -B)", options=("graded", "binary"))
    normalize: bool = param(True, "map to [0, 1] with expeval's bounds (expeval default)",
                            options=(True, False))
    groups: str = param("items", "items: exposure per item; item_groups / popularity: "
                        "exposure summed per item group before the comparison (expeval -G)",
                        options=("items", "item_groups", "popularity"))
    pop_ratio: float = param(0.8, "groups='popularity': share of the training interactions "
                             "in the short head (Elliot)", kind=float,
                             check=lambda x: 0 < x < 1,
                             rule="a number strictly between 0 and 1")
    ungrouped: str = param("error", "groups=: a judged item without a group: an error, or "
                           "left out", options=("error", "skip"))

    def __post_init__(self) -> None:
        self._canonical_browsing()
        super().__post_init__()
        if self.groups != "items" and self.measure == "r" and self.normalize:
            raise InvalidParameterError(
                f"{self.display}: expeval's bounds of the group relevance are both 0 (its "
                f"upper bound sums v * ub from ub = 0), so normalised group EE-R is always 1; "
                f"pass normalize=false for the raw group EE-R", parameter="normalize",
                examples=[self.normalize])
        if self.model()[0] == "log":
            raise InvalidParameterError(
                f"{self.display}: expected exposure has targets for rbp and cascade only; "
                f"got browsing={self.browsing!r}", parameter="browsing",
                examples=[self.browsing])

    def inputs(self) -> tuple[str, ...]:
        return (*self.needs, "train") if self.groups == "popularity" else self.needs


def _weights(value: Any) -> bool:
    """Finite weights >= 0, not all 0: the target ``pop / pop.sum()`` must be defined."""
    return isinstance(value, tuple) and all(
        isinstance(p, tuple) and len(p) == 2 and isinstance(p[1], (int, float))
        and not isinstance(p[1], bool) and math.isfinite(p[1]) and p[1] >= 0
        for p in value) and any(p[1] > 0 for p in value)


@register("attention_weighted_rank_fairness")
class AWRF(GroupMetric):
    r"""Attention-weighted rank fairness (TREC Fair Ranking 2022, ``wptrec/metrics/awrf.py``).

    .. math:: D_u = \frac{\sum_{r \le k} w_r\, a(i_r)}{\sum_{r \le k} w_r},\qquad
              AWRF_u = 1 - JS(D_u, T_u)

    ``a(i)`` the item's group distribution (1/|groups| each), ``w_r = 1/log2(max(r, 2))``
    (ranks 1 and 2 weigh 1, TREC's discount) or ``1/log2(r+1)`` (``discount='log2'``), JS
    the Jensen-Shannon divergence in nats (``[0, ln 2]``, so AWRF is in ``[1 - ln 2, 1]``).
    Target ``T_u``: ``uniform`` over the groups, ``population`` (``population=`` group ->
    weight, by default each group's share of the items of ``item_groups``), ``relevance``
    (the mean distribution of the user's relevant items) or ``mix`` (``weight`` relevance
    + (1 - weight) population). Items without a group are an error, or left out with their
    weight (``ungrouped='skip'``, TREC). ``times_ndcg=True`` multiplies by the track's
    binary nDCG with the same discount, its ideal over ``min(500, |R|)`` places.
    ``precision='float32'`` computes the weights in single precision, as the track's code.
    """

    name = "awrf"
    display = "AWRF"
    family: ClassVar[str] = "fair_lists"
    per_user: ClassVar[bool] = True
    bounds = (0.0, 1.0)
    higher_is_better = True
    summary = "1 - JS divergence of the list's attention over groups from a target"
    formula = "1 - JS(sum w_r a(i_r) / sum w_r, T)"

    target: str = param("uniform", "target distribution over groups",
                        options=("uniform", "population", "relevance", "mix"))
    weight: float = param(0.5, "target='mix': weight of the relevance target", kind=float,
                          check=lambda x: 0 <= x <= 1, rule="a number in [0, 1]")
    population: Any = param(None, "target 'population' / 'mix': group -> weight (a dict); "
                            "None: each group's share of the items of item_groups",
                            kind=tuple, check=_weights,
                            rule="a mapping group -> finite weight >= 0, not all 0")
    discount: str = param("log2_max2", "w_r: 1/log2(max(r, 2)) (TREC Fair 2022) or "
                          "1/log2(r + 1)", options=("log2_max2", "log2"))
    precision: str = param("float64", "precision of the weights (TREC's code: float32)",
                           options=("float64", "float32"))
    times_ndcg: bool = param(False, "multiply by TREC Fair 2022's binary nDCG",
                             options=(False, True))

    def __post_init__(self) -> None:
        if isinstance(self.population, Mapping):
            object.__setattr__(self, "population", tuple(
                sorted(((str(k), float(v)) for k, v in self.population.items()))))
        super().__post_init__()

    def inputs(self) -> tuple[str, ...]:
        own = super().inputs()
        needs_truth = self.target in ("relevance", "mix") or self.times_ndcg
        return (*own, "truth") if needs_truth else own
