"""AUC: the area under the ROC curve of each user's ranked list."""

from __future__ import annotations

from typing import ClassVar

from receval._kernels import ranking as K
from receval.metrics._debiased import Debiased
from receval.metrics._ranking import RankingMetric
from receval.metrics._registry import register

__all__ = ["AUC"]


@register("roc_auc", "area_under_curve")
class AUC(Debiased, RankingMetric):
    r"""Area under the ROC curve of a user's list: how often a relevant item outranks a miss.

    .. math:: AUC = \frac{1}{|P|\,|N|} \sum_{i \in P} \sum_{j \in N}
              \mathbb{1}[rank_i < rank_j]

    with ``P`` the relevant and ``N`` the non-relevant items of the list. It reads the whole
    list (no cutoff) and only the items in it: relevant items the list lacks do not count,
    as in :func:`sklearn.metrics.roc_auc_score` applied to one user's scored rows. Ties
    follow the tie policy; under ``ties='expected'`` a tied (relevant, non-relevant) pair
    counts 1/2, which is scikit-learn's value. A list without a relevant or without a
    non-relevant item has no pair: its AUC is undefined (NaN, left out of the mean and
    counted in ``n_undefined``). With one relevant item among ``m`` sampled misses at rank
    ``r'``, ``AUC = (m - r' + 1) / m``, whose expectation under uniform sampling is the AUC
    over the whole catalog (Krichene & Rendle, KDD 2020).
    """

    name = "auc"
    display = "AUC"
    takes_k = False
    undefined_is_zero: ClassVar[bool] = False
    summary = "share of (relevant, non-relevant) pairs of the list in the right order"
    formula = "correct pairs / (|P| |N|)"
    kernel_kind = K.AUC
