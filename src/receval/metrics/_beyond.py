r"""Beyond-accuracy metrics: novelty, diversity, serendipity, personalization, exposure, popularity.

They need more than recommendations and truth: ``evaluate(train=...)`` (the interactions the
model learned from: popularity, "expected" items, co-occurrence) and
``evaluate(item_features=...)`` (item vectors for similarity). Each variant another library
computes is a parameter; ``docs/beyond-accuracy.md`` lists which value reproduces which
library. Metrics that need no truth are computed over every user with a list.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from receval.exceptions import InvalidParameterError
from receval.metrics._base import TIES, Metric, param
from receval.metrics._bounds import INF, Bounds
from receval.metrics._registry import register

__all__ = [
    "BeyondMetric",
    "DistributionalCoverage",
    "Diversity",
    "Entropy",
    "Gini",
    "LongTail",
    "LongTailCoverage",
    "Novelty",
    "Personalization",
    "Popularity",
    "Serendipity",
    "Unexpectedness",
]

SIMILARITIES = ("cosine", "jaccard", "euclidean", "cooccurrence")


def _positive_base(x: float) -> bool:
    return x > 0 and x != 1


def _share(x: float) -> bool:
    return 0 < x < 1


@dataclass(frozen=True, repr=False)
class BeyondMetric(Metric):
    """A metric of the lists themselves (families ``per_list`` and ``exposure``).

    Attributes
    ----------
    per_user : bool
        Whether the metric has a value per user (in ``ev.per_user``) or one for all lists.
    needs : tuple of str
        Inputs besides recs: ``"train"``, ``"item_features"`` (by the ``similarity``
        parameter), ``"truth"``.
    """

    family: ClassVar[str] = "per_list"
    per_user: ClassVar[bool] = True
    undefined_is_zero: ClassVar[bool] = False  # an empty list's value is undefined (NaN)
    needs: ClassVar[tuple[str, ...]] = ("train",)
    trailing: ClassVar[tuple[str, ...]] = ("ties",)
    bounds: ClassVar[tuple[float, float]] = (0.0, float("inf"))

    ties: str | None = param(None, "tie policy for the top k; None follows evaluate(ties=...)",
                             options=(None, *TIES))

    def inputs(self) -> tuple[str, ...]:
        """The inputs this metric needs with its parameters."""
        return self.needs


@dataclass(frozen=True, repr=False)
class _Similarity(BeyondMetric):
    """Metrics that compare items: by their features, or by co-occurrence in train."""

    def inputs(self) -> tuple[str, ...]:
        sim = getattr(self, "similarity", "cosine")
        own = tuple(n for n in self.needs if n != "item_features")
        return tuple(dict.fromkeys(own + (("train",) if sim == "cooccurrence"
                                          else ("item_features",))))


def _similarity(default: str = "cosine") -> Any:
    return param(default, "item similarity: cosine or jaccard of item features, euclidean "
                 "distance of features, or cosine of co-occurrence counts in train "
                 "(c_ij / sqrt(c_i c_j), Microsoft Recommenders)", options=SIMILARITIES)


@register("nov", "self_information")
class Novelty(BeyondMetric):
    r"""Novelty: mean self-information of the recommended items (Zhou et al. 2010).

    .. math:: N_u@k = \frac{1}{|L_u@k|}\sum_{i \in L_u@k} -\log_b p(i)

    ``p(i)`` is the share of training users who interacted with ``i`` (``popularity=
    'users'``, Zhou et al. 2010, Evidently, recmetrics) or the share of training
    interactions (``'interactions'``: Castells et al. 2011's choice model, Microsoft
    Recommenders). An item absent from train (``absent``): ``'one'`` counts it as one
    interaction (finite: the novelty of the rarest observable item), ``'zero'`` gives it
    self-information 0 (Microsoft Recommenders), ``'skip'`` leaves it out of the user's mean
    (Evidently), ``'error'`` raises. ``aggregation='micro'`` pools every recommended row
    (Microsoft Recommenders' ``novelty``).
    """

    name = "novelty"
    display = "Novelty"
    aggregations = ("macro", "micro")
    summary = "mean self-information -log2 p(i) of the recommended items"
    formula = "mean over the top k of -log_base(popularity share in train)"

    popularity: str = param("users", "p(i): share of training users, or of training "
                            "interactions", options=("users", "interactions"))
    base: float = param(2.0, "logarithm base", kind=(float, int), check=_positive_base,
                        rule="a number > 0 other than 1")
    absent: str = param("one", "items absent from train: count as one interaction, "
                        "self-information 0, left out, or an error",
                        options=("one", "zero", "skip", "error"))
    aggregation: str = param("macro", "macro: mean over users; micro: mean over every "
                             "recommended row", options=("macro", "micro"))


@register("ild", "intra_list_diversity")
class Diversity(_Similarity):
    r"""Intra-list diversity: mean pairwise dissimilarity within a list (Ziegler et al. 2005).

    .. math:: ILD_u@k = \frac{2}{n(n-1)}\sum_{i<j \in L_u@k} (1 - s(i, j))

    with ``n = |L_u@k|``; ``s`` is the cosine of the item feature vectors (default; a zero
    vector has similarity 0 to everything), the Jaccard index of their non-zero features,
    or the cosine of co-occurrence in train ``c_ij / sqrt(c_i c_j)`` (Microsoft
    Recommenders); ``similarity='euclidean'`` sums distances instead of ``1 - s``.
    ``normalize='items'`` divides the sum by ``n`` instead of the number of pairs
    (Evidently). A list of one item has no pair: NaN with ``'pairs'`` (left out of the mean,
    as in Microsoft Recommenders), 0 with ``'items'``.
    """

    name = "diversity"
    display = "Diversity"
    needs = ("item_features",)
    summary = "mean pairwise dissimilarity of the items of a list"
    formula = "sum over pairs of (1 - sim) / number of pairs"
    undefined_is_zero = False

    similarity: str = _similarity()
    normalize: str = param("pairs", "divide the sum of dissimilarities by the number of "
                           "pairs, or by the list length (Evidently)",
                           options=("pairs", "items"))


def _unexpected_range(m: Any) -> tuple[float, float]:
    """The range of one row's ``unexp(u, i)`` under the metric's similarity."""
    if m.expected == "popular" or m.similarity in ("cooccurrence", "jaccard"):
        return 0.0, 1.0  # a similarity in [0, 1]
    if m.similarity == "cosine":
        return 0.0, 2.0  # cosines in [-1, 1]
    return -INF, 1.0  # 1 - a mean Euclidean distance


def _serendipity_bounds(m: Any) -> tuple[float, float]:
    """The range of a serendipity variant.

    The mean form stays in ``unexp``'s range; the sum ``1 + sum_{j in R_u} (unexp_j - 1)``
    over 1 to k relevant items spans ``1 + k (lo - 1)`` to ``1 + k (hi - 1)`` (``hi`` itself
    when ``hi <= 1``).
    """
    lo, hi = _unexpected_range(m)
    if m.combine == "mean":
        return lo, hi
    k = INF if m.k is None else float(m.k)
    return 1.0 + k * (lo - 1.0), (1.0 + k * (hi - 1.0) if hi > 1.0 else hi)


@register()
class Serendipity(_Similarity):
    r"""Serendipity: the share of the top k that is relevant and unexpected (Ge et al. 2010).

    .. math:: S_u@k = \frac{1}{|L_u@k|}\sum_{i \in L_u@k} rel(u, i)\,unexp(u, i)

    ``expected='popular'`` (default; Ge et al. 2010, Kaminskas & Bridge 2016): ``unexp`` is 1
    for items outside the user's expected list, the ``n_expected`` (default ``k``) most
    popular training items the user has not interacted with in train, else 0.
    ``expected='similarity'`` (Microsoft Recommenders, Zhang et al. 2012):
    ``unexp(u, i) = 1 - mean_{j in train_u} s(i, j)``. Needs truth (``rel``: 1 for a
    relevant item, else 0); users without a truth row are left out, users without
    training rows too under ``'similarity'``.

    ``combine='sum'`` (Evidently 0.7.23's ``Serendipity``, ``legacy/metrics/recsys/
    serendipity.py``) sums over the relevant items ``R_u`` of the top k instead of
    averaging over the list:

    .. math:: S_u@k = 1 - \sum_{i \in R_u@k} (1 - unexp(u, i))
              = 1 - \sum_{i \in R_u@k} \mathrm{mean}_{j \in train_u} s(i, j)

    a user without a relevant item in the top k is left out (NaN). The value is not a
    share: it falls below 0 when several relevant items resemble the history, and exceeds
    1 with negative cosines (``bounds`` follow the variant).
    """

    name = "serendipity"
    display = "Serendipity"
    needs: ClassVar[tuple[str, ...]] = ("train", "truth")
    bounds = Bounds((-INF, INF), _serendipity_bounds)
    summary = "share of the top k that is relevant and not expected"
    formula = "sum over the top k of rel * unexpected / |top k|"

    expected: str = param("popular", "unexpected = outside the most popular unseen training "
                          "items, or 1 - mean similarity to the user's training items",
                          options=("popular", "similarity"))
    n_expected: int | None = param(None, "size of the expected list; None is k",
                                   kind=int, check=lambda x: x >= 1, rule="an integer >= 1")
    similarity: str = _similarity("cooccurrence")
    combine: str = param("mean", "mean of rel * unexp over the top k, or 1 - the sum over "
                         "the relevant items of (1 - unexp) (Evidently)",
                         options=("mean", "sum"))

    def inputs(self) -> tuple[str, ...]:
        if self.expected == "popular":
            return ("train", "truth")
        return super().inputs()


@register()
class Unexpectedness(Serendipity):
    r"""Unexpectedness: the share of the top k not in the expected list (Kaminskas & Bridge 2016).

    .. math:: U_u@k = \frac{1}{|L_u@k|}\sum_{i \in L_u@k} unexp(u, i)

    ``unexp`` as in :class:`Serendipity` (Microsoft Recommenders' serendipity without a
    relevance column is ``expected='similarity'``). Needs no truth. Within ``[0, 1]``
    except with ``similarity='cosine'`` (negative cosines: up to 2) or ``'euclidean'``
    (1 - a mean distance: no lower bound).
    """

    name = "unexpectedness"
    display = "Unexpectedness"
    needs: ClassVar[tuple[str, ...]] = ("train",)
    bounds = Bounds((-INF, 2.0), _serendipity_bounds)
    summary = "share of the top k not in the expected list"
    formula = "sum over the top k of unexpected / |top k|"

    combine: str = param("mean", "mean over the top k (unexpectedness has no relevance to "
                         "sum over)", options=("mean",))

    def inputs(self) -> tuple[str, ...]:
        return tuple(n for n in super().inputs() if n != "truth")


@dataclass(frozen=True, repr=False)
class _Global(BeyondMetric):
    family: ClassVar[str] = "exposure"
    per_user = False


@register()
class Personalization(_Global):
    r"""Personalization: 1 - the mean overlap of two users' top k (Zhou et al. 2010).

    .. math:: P@k = 1 - \frac{2}{U(U-1)}\sum_{u<v} \frac{|L_u \cap L_v|}{\sqrt{|L_u||L_v|}}

    computed without pairs of users: ``sum_{u<v} = 1/2 sum_i (a_i^2 - b_i)``, ``a_i =
    sum_{u: i in L_u} w_u``, ``b_i = sum w_u^2``, ``w_u = |L_u|^{-1/2}`` (``overlap=
    'cosine'``, recmetrics) or ``1/sqrt(k)`` (``'k'``). Global.

    ``overlap='k_full'`` is Evidently 0.7.23's ``PersonalizationMetric``:

    .. math:: P@k = 1 - \frac{\sum_i c_i^2 - U k}{k\,U(U-1)}

    (``c_i`` the lists holding ``i``), which subtracts ``U k`` for the users' overlaps
    with themselves, as if every list had k items; it equals ``'k'`` when they do, and
    exceeds it by ``sum_u (k - |L_u|) / (k U (U - 1))`` otherwise (up to ``1 + 1/(U-1)``;
    a :class:`~receval.exceptions.DataWarning` says how many lists are shorter than k).
    """

    name = "personalization"
    display = "Personalization"
    needs = ()
    bounds = Bounds((0.0, 2.0), lambda m: (0.0, 2.0 if m.overlap == "k_full" else 1.0))
    summary = "1 - mean overlap between two users' lists"
    formula = "1 - mean over user pairs of |L_u & L_v| / sqrt(|L_u| |L_v|)"

    overlap: str = param("cosine", "normalise an overlap by sqrt(|L_u||L_v|) (recmetrics), "
                         "by k, or by k with every list's self-overlap counted as k "
                         "(Evidently)", options=("cosine", "k", "k_full"))

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.overlap == "k_full" and self.k is None:
            raise InvalidParameterError(
                f"{self.display}: overlap='k_full' counts every list as k items long and "
                f"needs a cutoff: write personalization(overlap=k_full)@k", parameter="k",
                examples=[self.label])


@dataclass(frozen=True, repr=False)
class _Exposure(_Global):
    needs = ()
    higher_is_better = True

    items: str = param("catalog", "item set: every catalog item (catalog=, else train and "
                       "recommended items; never-recommended ones count 0), only the "
                       "recommended items, or every item of catalog=, train, truth and recs "
                       "(RecBole's dataset)", options=("catalog", "recommended", "dataset"))
    extra_items: int = param(0, "items counted besides those of the inputs, never "
                             "recommended (RecBole's [PAD] token: 1)", kind=int,
                             check=lambda x: x >= 0, rule="an integer >= 0")

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.extra_items and self.items == "recommended":
            raise InvalidParameterError(
                f"{self.display}: extra_items adds never-recommended items to the item set; "
                f"items='recommended' has none: use items='catalog' or 'dataset'",
                parameter="extra_items", examples=[self.extra_items])


@register("gini_index")
class Gini(_Exposure):
    r"""Gini index of item exposure in the top k (lower is more equal).

    .. math:: G@k = \frac{\sum_{j=1}^{n} (2j - n - 1)\,c_{(j)}}{m \sum_j c_{(j)}}

    with exposures ``c`` sorted ascending over ``n`` items: every catalog item (default),
    the recommended ones (Evidently), or ``items='dataset'``: every item of ``catalog=``,
    ``train=``, the truth and the recommendations (RecBole's ``dataset.num(item_id)``, with
    ``extra_items=1`` for its ``[PAD]`` token); ``extra_items`` never-recommended items are
    added at 0. ``m = n`` (default) or ``n - 1`` (``normalize='n-1'``, Evidently). Global.
    """

    name = "gini"
    display = "Gini"
    higher_is_better = False
    bounds = (0.0, 1.0)
    summary = "Gini index of item exposure (0 uniform, near 1 one item)"
    formula = "sum (2j - n - 1) c_(j) / (n sum c)"

    normalize: str = param("n", "denominator n (RecBole) or n - 1 (Evidently)",
                           options=("n", "n-1"))


@register("shannon_entropy")
class Entropy(_Global):
    r"""Shannon entropy of item exposure in the top k.

    .. math:: H@k = -\sum_i p(i) \log_b p(i), \quad p(i) = c_i / \sum_j c_j

    natural logarithm unless ``base`` is given; ``normalize='distinct'`` divides by the number
    of distinct recommended items (RecBole's ShannonEntropy). ``weights='lists'`` gives each
    list a weight of 1 in total, each of its items ``1/|L_u|`` (Elliot's SEntropy):

    .. math:: H@k = \frac{1}{U}\sum_i w_i\,(-\log_b p(i)), \quad
              w_i = \sum_{u: i \in L_u@k} \frac{1}{|L_u@k|}

    which is the plain entropy when every list has the same length. Global.
    """

    name = "entropy"
    display = "Entropy"
    needs = ()
    summary = "Shannon entropy of item exposure (natural log)"
    formula = "-sum p(i) log p(i)"

    base: float | None = param(None, "logarithm base; None is the natural logarithm",
                               kind=(float, int), check=_positive_base,
                               rule="a number > 0 other than 1")
    normalize: str = param("none", "divide by the number of distinct recommended items "
                           "(RecBole)", options=("none", "distinct"))
    weights: str = param("rows", "weigh -log p(i) by the item's share of the recommended "
                         "rows, or by 1/|L_u| per list holding it, over the users (Elliot)",
                         options=("rows", "lists"))


@register()
class DistributionalCoverage(Entropy):
    r"""Distributional coverage: the base-2 entropy of exposure (Shani & Gunawardana 2011).

    .. math:: DC@k = -\sum_i p(i) \log_2 p(i)

    Microsoft Recommenders' ``distributional_coverage``; with ``weights='lists'`` Elliot's
    SEntropy (see :class:`Entropy`). Global.
    """

    name = "distributional_coverage"
    display = "DistributionalCoverage"
    summary = "base-2 entropy of item exposure"
    formula = "-sum p(i) log2 p(i)"

    base: float | None = param(2.0, "logarithm base; None is the natural logarithm",
                               kind=(float, int), check=_positive_base,
                               rule="a number > 0 other than 1")


@register("arp", "average_popularity", "averagepopularity")
class Popularity(BeyondMetric):
    r"""Average recommendation popularity, ARP (Abdollahpouri et al. 2019).

    .. math:: ARP_u@k = \frac{1}{|L_u@k|}\sum_{i \in L_u@k} \phi(i)

    ``phi(i)`` the number of training interactions with ``i`` (default, RecBole) or of
    distinct training users (Evidently); ``scale='max'`` divides by the largest item count
    (Evidently's ``normalize_arp``), ``'share'`` by the total. Items absent from train
    count 0 (RecBole) or are left out (``absent='skip'``, Evidently).
    """

    name = "popularity"
    display = "Popularity"
    higher_is_better = False
    summary = "mean training popularity of the recommended items (ARP)"
    formula = "mean over the top k of the item's training count"

    popularity: str = param("interactions", "phi(i): training interactions or distinct "
                            "training users", options=("interactions", "users"))
    scale: str = param("count", "phi as a count, divided by the largest count, or by the "
                       "total", options=("count", "max", "share"))
    absent: str = param("zero", "items absent from train: popularity 0, or left out",
                        options=("zero", "skip"))


@dataclass(frozen=True, repr=False)
class _Tail(BeyondMetric):
    head: float = param(0.2, "share of training items (by interaction count) in the head; "
                        "the tail is the rest", kind=float, check=_share,
                        rule="a number strictly between 0 and 1")
    tail: float | None = param(None, "if set, the tail is instead this bottom share of "
                               "training items, at least one (RecBole's tail_ratio)",
                               kind=float, check=_share,
                               rule="a number strictly between 0 and 1")
    absent: str = param("tail", "items absent from train: in the tail (count 0), or not "
                        "(RecBole)", options=("tail", "not_tail"))

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.tail is not None and self.head != 0.2:
            raise InvalidParameterError(
                f"{self.display}: give head= or tail=, not both", parameter="tail",
                examples=[self.head, self.tail])


@register("aplt", "tail_percentage", "tailpercentage")
class LongTail(_Tail):
    r"""APLT: the share of long-tail items in a list (Abdollahpouri et al. 2019).

    .. math:: APLT_u@k = \frac{|L_u@k \cap T|}{|L_u@k|}

    ``T``: training items outside the top ``head`` share by interaction count (ties broken
    by item id), or the bottom ``tail`` share (RecBole's TailPercentage, 0.1 there).
    """

    name = "long_tail"
    display = "LongTail"
    bounds = (0.0, 1.0)
    summary = "share of long-tail items in the top k (APLT)"
    formula = "|top k & tail| / |top k|"


@register("aclt")
class LongTailCoverage(_Tail):
    r"""ACLT: the number of long-tail items in a list (Abdollahpouri et al. 2019).

    .. math:: ACLT_u@k = |L_u@k \cap T|

    ``T`` as in :class:`LongTail`.
    """

    name = "long_tail_coverage"
    display = "LongTailCoverage"
    summary = "number of long-tail items in the top k (ACLT)"
    formula = "|top k & tail|"
