"""Top-k and whole-list ranking metrics.

Notation for one user: the recommended list ranked best first, ``rel_i`` = 1 if the item at
rank ``i`` is relevant, ``g_i`` its gain, ``R`` the user's relevant items, ``k`` the cutoff
(the list length ``n`` when there is none), ``hits@k = sum_{i<=k} rel_i``. Per-user values are
averaged over users (``macro``) unless ``aggregation='micro'``, which divides the sum of the
numerators over users by the sum of the denominators.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from receval._kernels import ranking as K
from receval.exceptions import InvalidParameterError
from receval.metrics._base import TIES, Metric, param
from receval.metrics._debiased import Debiased
from receval.metrics._registry import register

__all__ = [
    "ARHR",
    "CG",
    "DCG",
    "NDCG",
    "AveragePrecision",
    "FBeta",
    "HitRate",
    "Precision",
    "RankScore",
    "RankingMetric",
    "Recall",
    "ReciprocalRank",
]

_GAINS = {"linear": K.GAIN_LINEAR, "exponential": K.GAIN_EXPONENTIAL, "binary": K.GAIN_BINARY,
          "shifted_exponential": K.GAIN_EXPONENTIAL}
_DISCOUNTS = {"log2": K.DISC_LOG2, "breese": K.DISC_BREESE, "ln": K.DISC_LN}
_IDEALS = {"truth": K.IDEAL_TRUTH, "list": K.IDEAL_LIST, "truth_uncut": K.IDEAL_TRUTH_UNCUT}


def _gain() -> Any:
    return param("linear", "gain of a relevant item of grade g: g, 2^g - 1, 1, or "
                 "2^(g - t + 1) - 1 with t the relevance threshold (Elliot)",
                 options=tuple(_GAINS))


def _grades() -> Any:
    return param("relevant", "which grades are gains: those of relevant items (others 0), or "
                 "every judged item's positive grade whatever the threshold (trec_eval)",
                 options=("relevant", "judged"))


def _discount() -> Any:
    return param("log2", "discount of rank i: 1/log2(i+1), 1/max(1, log2 i) (Breese), or "
                 "1/ln(i+1)", options=tuple(_DISCOUNTS))


def _aggregation(*options: str) -> Any:
    return param(options[0], "macro: mean over users; micro: sum of numerators over sum of "
                 "denominators", options=options)


@dataclass(frozen=True, repr=False)
class RankingMetric(Metric):
    """A metric computed from each user's ranked list by the ranking kernel.

    Every ranking metric takes ``ties`` and ``missing_recs``, which override the
    ``evaluate`` options of the same name for this metric alone (they come last in labels).
    """

    family: ClassVar[str] = "ranking"
    kernel_kind: ClassVar[int] = -1
    trailing: ClassVar[tuple[str, ...]] = ("ties", "missing_recs")

    ties: str | None = param(None, "tie policy for equal scores; None follows "
                             "evaluate(ties=...)", options=(None, *TIES))
    missing_recs: str | None = param(
        None, "truth users without recommendations: scored 0, or left out of this metric's "
        "mean; None follows evaluate(missing_recs=...)", options=(None, "zero", "skip"))

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.grade_mode == ("judged", True):
            raise InvalidParameterError(
                f"{self.display}: the shifted_exponential gain 2^(g - t + 1) - 1 is defined "
                f"for relevant items (g >= t) only; it cannot take grades='judged'",
                parameter="grades", examples=["judged"])

    @property
    def grade_mode(self) -> tuple[str, bool]:
        """Which truth grades are gains, and whether they are shifted by the threshold.

        ``(grades, shifted)``: ``relevant`` or ``judged`` (the ``grades`` parameter), and
        whether the gain is ``shifted_exponential``.
        """
        return (str(getattr(self, "grades", "relevant")),
                getattr(self, "gain", "") == "shifted_exponential")

    def request(self) -> tuple[int, int, int, int, int, float]:
        """The kernel request: (kind, k, gain, discount, variant, parameter)."""
        return (self.kernel_kind, self.k or 0, K.GAIN_BINARY, K.DISC_NONE, 0, 0.0)

    @property
    def tie_policy(self) -> str | None:
        """The metric's own tie policy, or None to follow ``evaluate``."""
        return getattr(self, "ties", None)

    @property
    def places_read(self) -> int:
        """How many leading places of a list the metric reads; 0: the whole list."""
        return self.k or 0


@register("p", "prec")
class Precision(RankingMetric):
    r"""Precision: the share of the first ``k`` places that hold a relevant item.

    .. math:: P@k = \frac{hits@k}{k}

    A list shorter than ``k`` counts its empty places as misses (trec_eval, ranx); without
    ``@k`` the whole list is the set and ``P = hits / n``. With
    ``denominator='list_length'`` the denominator is the number of recommended items within
    the cutoff, ``min(k, n)`` (LensKit, Evidently, torchmetrics ``adaptive_k``).
    """

    name = "precision"
    display = "Precision"
    aggregations = ("macro", "micro")
    summary = "share of the top k that is relevant"
    formula = "hits@k / k"
    kernel_kind = K.PRECISION
    denominator: str = param("k", "k (empty places are misses), or the list length within k",
                             options=("k", "list_length"))
    aggregation: str = _aggregation("macro", "micro")

    def request(self) -> tuple[int, int, int, int, int, float]:
        """Precision with its denominator variant."""
        return (K.PRECISION, self.k or 0, K.GAIN_BINARY, K.DISC_NONE,
                K.P_K if self.denominator == "k" else K.P_LIST, 0.0)


@register("r", "rec")
class Recall(Debiased, RankingMetric):
    r"""Recall: the share of the user's relevant items found in the first ``k`` places.

    .. math:: R@k = \frac{hits@k}{|R|}

    With ``denominator='min_k_relevant'`` the denominator is ``min(k, |R|)``, so that a
    perfect top k scores 1 even when there are more relevant items than places (LensKit's
    ``Recall``, recometrics' truncated precision).
    """

    name = "recall"
    display = "Recall"
    aggregations = ("macro", "micro")
    summary = "share of the relevant items found in the top k"
    formula = "hits@k / |R|"
    kernel_kind = K.RECALL
    denominator: str = param("relevant", "|R|, or min(k, |R|)",
                             options=("relevant", "min_k_relevant"))
    aggregation: str = _aggregation("macro", "micro")

    def request(self) -> tuple[int, int, int, int, int, float]:
        """Recall with its denominator variant."""
        return (K.RECALL, self.k or 0, K.GAIN_BINARY, K.DISC_NONE,
                K.R_RELEVANT if self.denominator == "relevant" else K.R_MIN_K_RELEVANT, 0.0)


@register(("f1", {"beta": 1.0}), "fbeta", "f_beta", "f_measure")
class FBeta(RankingMetric):
    r"""F-measure: the weighted harmonic mean of precision and recall at ``k``.

    .. math:: F_\beta@k = \frac{(1+\beta^2)\,P\,R}{\beta^2 P + R}
              = \frac{(1+\beta^2)\,hits@k}{\beta^2 |R| + k}

    ``beta`` is β itself (recall weighs β times as much as precision), not β² as in
    trec_eval's ``set_F``. ``F1`` is ``beta=1``. With ``denominator='list_length'`` the
    precision inside is ``hits@k / min(k, n)``, so ``k`` becomes ``min(k, n)`` above
    (trec_eval's ``set_F`` on a run cut at k).
    """

    name = "fbeta"
    display = "F"
    aggregations = ("macro", "micro")
    summary = "harmonic mean of precision and recall, recall weighted by beta"
    formula = "(1 + b^2) hits@k / (b^2 |R| + k)"
    kernel_kind = K.FBETA
    beta: float = param(1.0, "recall is beta times as important as precision", kind=float,
                        check=lambda b: b > 0, rule="a number > 0")
    denominator: str = param("k", "precision's denominator: k (empty places are misses), or "
                             "the list length within k", options=("k", "list_length"))
    aggregation: str = _aggregation("macro", "micro")

    def label_name(self) -> str:
        """``F1`` for beta = 1, else ``F``."""
        return "F1" if self.beta == 1.0 else "F"

    def request(self) -> tuple[int, int, int, int, int, float]:
        """Kernel request with beta as parameter and the precision denominator variant."""
        return (self.kernel_kind, self.k or 0, K.GAIN_BINARY, K.DISC_NONE,
                K.P_K if self.denominator == "k" else K.P_LIST, self.beta)


@register("hr", "hit", "hitrate", "hit_ratio", "success")
class HitRate(Debiased, RankingMetric):
    r"""Hit rate: the share of users with at least one relevant item in the first ``k``.

    .. math:: HR@k = \frac{1}{|U|}\sum_u \mathbb{1}[hits_u@k > 0]
    """

    name = "hit_rate"
    display = "HitRate"
    summary = "share of users with a relevant item in the top k"
    formula = "1[hits@k > 0]"
    kernel_kind = K.HIT


@register("rr", "recip_rank", "reciprocal_rank")
class ReciprocalRank(RankingMetric):
    r"""Reciprocal rank of the first relevant item (0 if none in the first ``k``); MRR.

    .. math:: RR@k = \frac{1}{\min\{i \le k : rel_i = 1\}}
    """

    name = "mrr"
    display = "MRR"
    summary = "1 / rank of the first relevant item within k"
    formula = "1 / rank_first_hit"
    kernel_kind = K.RR


@register("average_reciprocal_hit_rank")
class ARHR(RankingMetric):
    r"""Average reciprocal hit rank: the sum of ``1/i`` over every hit in the first ``k``.

    .. math:: ARHR@k = \sum_{i \le k} \frac{rel_i}{i}

    Not bounded by 1 per user when there are several hits (Deshpande & Karypis 2004).
    """

    name = "arhr"
    display = "ARHR"
    summary = "sum of 1 / rank over the hits within k"
    formula = "sum_i rel_i / i"
    bounds = (0.0, float("inf"))
    kernel_kind = K.DCG

    def request(self) -> tuple[int, int, int, int, int, float]:
        """DCG with binary gain and discount 1/i."""
        return (K.DCG, self.k or 0, K.GAIN_BINARY, K.DISC_RECIPROCAL, 0, 0.0)


_AP_DENOMINATORS = {"min_k_relevant": K.AP_MIN_K_RELEVANT, "relevant": K.AP_RELEVANT,
                    "hits": K.AP_HITS, "min_relevant_list": K.AP_MIN_RELEVANT_LIST,
                    "k": K.AP_K}


@register("map", "average_precision", "mean_average_precision")
class AveragePrecision(Debiased, RankingMetric):
    r"""Average precision at ``k``; its mean over users is MAP@k.

    .. math:: AP@k = \frac{1}{D}\sum_{i \le k} rel_i \cdot P@i

    with the denominator ``D`` chosen by ``denominator``: ``min_k_relevant`` = min(k, |R|)
    (Kaggle's AP@n, RecBole, RePlay), ``relevant`` = |R| (trec_eval map / map_cut, ranx),
    ``hits`` = hits@k (0 when there is none), ``min_relevant_list`` = min(|R|, number of
    recommended items within k) (LensKit), ``k`` = k (DaisyRec). Without ``@k`` the sum runs
    over the whole list and the default ``min_k_relevant`` has no k to cap ``|R|``: whole-list
    AP divides by ``|R|`` (Buckley & Voorhees's non-interpolated AP, trec_eval's ``map``);
    ``min_relevant_list`` gives ``min(|R|, n)`` and ``k`` gives the list length ``n``. With
    ``positions='all'`` (and ``denominator='k'``) every place counts, not only the hits:
    ``AP@k = (1/k) sum_{i<=k} P@i`` (Elliot's MAP; a place beyond the end of a short list has
    ``P@i = hits / i``).
    """

    name = "ap"
    display = "MAP"
    summary = "mean of the precision at each hit within k"
    formula = "sum_i rel_i P@i / D"
    kernel_kind = K.AP
    denominator: str = param("min_k_relevant",
                             "D: min(k, |R|), |R|, hits@k, min(|R|, list length within k), k",
                             options=tuple(_AP_DENOMINATORS))
    positions: str = param("relevant", "sum P@i over the relevant positions (rel_i = 1), or "
                           "over all positions i <= k (Elliot; needs denominator='k')",
                           options=("relevant", "all"))

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.positions == "all" and self.denominator != "k":
            raise InvalidParameterError(
                f"{self.display} with positions='all' is the mean of P@i over the k places "
                f"(Elliot's MAP): it needs denominator='k', got {self.denominator!r}",
                parameter="positions", examples=[self.denominator])

    def request(self) -> tuple[int, int, int, int, int, float]:
        """AP with its denominator variant."""
        if self.positions == "all":
            variant = K.AP_ALL_POSITIONS
        elif self.k is None and self.denominator == "min_k_relevant":
            variant = K.AP_RELEVANT  # no cutoff: min(k, |R|) with k unbounded is |R|
        else:
            variant = _AP_DENOMINATORS[self.denominator]
        return (K.AP, self.k or 0, K.GAIN_BINARY, K.DISC_NONE, variant, 0.0)


@register("cumulative_gain")
class CG(RankingMetric):
    r"""Cumulative gain: the sum of the gains of the first ``k`` items.

    .. math:: CG@k = \sum_{i \le k} g_i
    """

    name = "cg"
    display = "CG"
    summary = "sum of gains within k"
    formula = "sum_i g_i"
    bounds = (0.0, float("inf"))
    kernel_kind = K.DCG
    gain: str = _gain()
    grades: str = _grades()

    def request(self) -> tuple[int, int, int, int, int, float]:
        """DCG with no discount."""
        return (K.DCG, self.k or 0, _GAINS[self.gain], K.DISC_NONE, 0, 0.0)


@register("discounted_cumulative_gain")
class DCG(Debiased, RankingMetric):
    r"""Discounted cumulative gain.

    .. math:: DCG@k = \sum_{i \le k} g_i \, d(i)

    with ``g_i`` = grade (``linear``), ``2^grade - 1`` (``exponential``), 1 (``binary``) or
    ``2^(grade - t + 1) - 1`` with ``t`` the relevance threshold (``shifted_exponential``,
    Elliot; ``t = 1`` without a threshold), and ``d(i) = 1/log2(i+1)`` (``log2``),
    ``1/max(1, log2 i)`` (``breese``) or ``1/ln(i+1)`` (``ln``: Microsoft Recommenders,
    Spark; the same nDCG as ``log2``). The grades that count are those of relevant items
    (``grades='relevant'``), or every judged item's positive grade even below the relevance
    threshold (``grades='judged'``, trec_eval's ``ndcg`` with ``-l``).
    """

    name = "dcg"
    display = "DCG"
    summary = "gains discounted by rank, summed within k"
    formula = "sum_i g_i d(i)"
    bounds = (0.0, float("inf"))
    kernel_kind = K.DCG
    gain: str = _gain()
    discount: str = _discount()
    grades: str = _grades()

    def request(self) -> tuple[int, int, int, int, int, float]:
        """DCG with its gain and discount."""
        return (K.DCG, self.k or 0, _GAINS[self.gain], _DISCOUNTS[self.discount], 0, 0.0)


@register("normalized_discounted_cumulative_gain", "ndcg_cut")
class NDCG(Debiased, RankingMetric):
    r"""Normalised discounted cumulative gain.

    .. math:: nDCG@k = \frac{DCG@k}{IDCG@k}

    ``IDCG@k`` is the DCG of the ideal order: with ``ideal='truth'`` all of the user's
    relevant items by decreasing grade, cut at k (without ``@k``: not cut); with
    ``ideal='list'`` the recommended list itself reordered by decreasing grade, cut at k; with
    ``ideal='truth_uncut'`` all relevant items, never cut (RecSys2019_DL's nDCG@k). Gains and
    discounts as in :class:`DCG`.

    A user whose ideal DCG is 0 (no relevant item, or only relevant items of grade 0 under a
    graded gain) has nDCG 0 (``zero_ideal='zero'``), or is left out of the mean and counted
    in the summary's ``n_excluded`` (``zero_ideal='skip'``: 0/0 read as undefined, as
    Microsoft Recommenders' ``ndcg_at_k`` does with ``score_type='raw'|'exp'``).
    """

    name = "ndcg"
    display = "NDCG"
    aggregations = ("macro", "micro")
    summary = "DCG over the DCG of the ideal ranking"
    formula = "DCG@k / IDCG@k"
    kernel_kind = K.NDCG
    gain: str = _gain()
    discount: str = _discount()
    ideal: str = param("truth", "ideal order: all relevant items cut at k, the list "
                       "reordered, or all relevant items not cut", options=tuple(_IDEALS))
    grades: str = _grades()
    aggregation: str = _aggregation("macro", "micro")
    zero_ideal: str = param("zero", "a user whose ideal DCG is 0: scored 0, or left out of "
                            "the mean (counted)", options=("zero", "skip"))

    def request(self) -> tuple[int, int, int, int, int, float]:
        """nDCG with its gain, discount and ideal."""
        return (K.NDCG, self.k or 0, _GAINS[self.gain], _DISCOUNTS[self.discount],
                _IDEALS[self.ideal], 0.0)

    @property
    def places_read(self) -> int:
        """``ideal='list'`` reorders the grades of the whole list: it reads every place."""
        return 0 if self.ideal == "list" else (self.k or 0)

    def left_out(self, num: np.ndarray, den: np.ndarray) -> np.ndarray | None:
        """Users whose ideal DCG (the denominator) is 0, with ``zero_ideal='skip'``."""
        return den == 0 if self.zero_ideal == "skip" else None


@register("half_life_utility", "hlu", "rankscore", "breese")
class RankScore(RankingMetric):
    r"""Rank score (Breese et al. 1998, half-life utility): hits discounted by a half-life.

    .. math:: RS@k = \frac{\sum_{i \le k} rel_i\, 2^{-(i-1)/\alpha}}
                          {\sum_{j=1}^{\min(k,|R|)} 2^{-(j-1)/\alpha}}

    ``alpha`` is the rank at which an item's chance of being viewed halves. Breese's
    aggregate over users is the ratio of the sums (``aggregation='micro'``).
    """

    name = "rank_score"
    display = "RankScore"
    aggregations = ("macro", "micro")
    summary = "hits discounted with half-life alpha over the best achievable"
    formula = "sum_i rel_i 2^(-(i-1)/alpha) / max"
    alpha: float = param(5.0, "half-life: the rank at which the discount is 1/2 (plus 1)",
                         kind=float, check=lambda a: a > 0, rule="a number > 0")
    aggregation: str = _aggregation("macro", "micro")

    def request(self) -> tuple[int, int, int, int, int, float]:
        """nDCG with binary gain and the half-life discount."""
        return (K.NDCG, self.k or 0, K.GAIN_BINARY, K.DISC_HALFLIFE, K.IDEAL_TRUTH,
                self.alpha)
