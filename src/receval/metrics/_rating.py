"""Metrics on predicted ratings: errors, decision support, per-user rank correlation.

Each truth row with a grade is paired with the predicted rating of the same (user, item)
(the ``score`` column of the recommendations). ``aggregation='micro'`` (the default for
errors and decision support) pools every rating; ``'macro'`` computes the value per user and
averages over users, so that a user with 3000 ratings weighs as much as one with 10.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from receval._kernels import rating as K
from receval.metrics._base import Metric, param
from receval.metrics._registry import register

__all__ = [
    "MAE",
    "MSE",
    "RMSE",
    "Kendall",
    "RatingF1",
    "RatingMetric",
    "RatingPrecision",
    "RatingRecall",
    "Spearman",
]


def _aggregation(*options: str) -> Any:
    return param(options[0], "micro: pool every rating; macro: per user, then the mean",
                 options=options)


class RatingMetric(Metric):
    """A metric computed from each user's (predicted, true) rating pairs."""

    family: ClassVar[str] = "rating"
    takes_k: ClassVar[bool] = False
    kernel_kind: ClassVar[int] = -1

    def request(self) -> tuple[int, float]:
        """The kernel request: (kind, parameter)."""
        return (self.kernel_kind, 0.0)


class _Error(RatingMetric):
    bounds = (0.0, float("inf"))
    higher_is_better = False
    aggregations = ("micro", "macro")


@register("mean_absolute_error")
class MAE(_Error):
    r"""Mean absolute error of the predicted ratings.

    .. math:: MAE = \frac{1}{|T|}\sum_{(u,i) \in T} |\hat r_{ui} - r_{ui}|
    """

    name = "mae"
    display = "MAE"
    summary = "mean absolute rating error"
    formula = "mean |r_hat - r|"
    kernel_kind = K.ABS_ERROR
    aggregation: str = _aggregation("micro", "macro")


@register("mean_squared_error")
class MSE(_Error):
    r"""Mean squared error of the predicted ratings.

    .. math:: MSE = \frac{1}{|T|}\sum_{(u,i) \in T} (\hat r_{ui} - r_{ui})^2
    """

    name = "mse"
    display = "MSE"
    summary = "mean squared rating error"
    formula = "mean (r_hat - r)^2"
    kernel_kind = K.SQ_ERROR
    aggregation: str = _aggregation("micro", "macro")


@register("root_mean_squared_error")
class RMSE(_Error):
    r"""Root mean squared error of the predicted ratings.

    .. math:: RMSE = \sqrt{\frac{1}{|T|}\sum_{(u,i) \in T} (\hat r_{ui} - r_{ui})^2}

    With ``aggregation='macro'`` it is the mean over users of each user's RMSE.
    """

    name = "rmse"
    display = "RMSE"
    summary = "root mean squared rating error"
    formula = "sqrt(mean (r_hat - r)^2)"
    kernel_kind = K.SQ_ERROR
    aggregation: str = _aggregation("micro", "macro")

    def finalize(self, value: Any) -> Any:
        """The square root of the mean squared error."""
        return np.sqrt(value) if isinstance(value, np.ndarray) else math.sqrt(value)


def _threshold() -> Any:
    return param(None, "a rating >= threshold means 'good'; None uses relevance_threshold",
                 kind=(float, int), check=lambda t: True, rule="a number")


class _Decision(RatingMetric):
    aggregations = ("micro", "macro")
    undefined_is_zero = False

    def request(self) -> tuple[int, float]:
        """Kind and threshold (resolved by ``evaluate`` when None)."""
        t = getattr(self, "threshold", None)
        return (self.kernel_kind, float("nan") if t is None else float(t))


@register("decision_precision")
class RatingPrecision(_Decision):
    r"""Decision-support precision: of the items predicted good, the share truly good.

    .. math:: P = \frac{|\{\hat r \ge t\} \cap \{r \ge t\}|}{|\{\hat r \ge t\}|}
    """

    name = "rating_precision"
    display = "RatingPrecision"
    summary = "share of predicted-good ratings that are truly good"
    formula = "|pred>=t & true>=t| / |pred>=t|"
    kernel_kind = K.DEC_PRECISION
    threshold: float | None = _threshold()
    aggregation: str = _aggregation("micro", "macro")


@register("decision_recall")
class RatingRecall(_Decision):
    r"""Decision-support recall: of the truly good items, the share predicted good.

    .. math:: R = \frac{|\{\hat r \ge t\} \cap \{r \ge t\}|}{|\{r \ge t\}|}
    """

    name = "rating_recall"
    display = "RatingRecall"
    summary = "share of truly good ratings that are predicted good"
    formula = "|pred>=t & true>=t| / |true>=t|"
    kernel_kind = K.DEC_RECALL
    threshold: float | None = _threshold()
    aggregation: str = _aggregation("micro", "macro")


@register("decision_f1")
class RatingF1(_Decision):
    r"""Decision-support F1: harmonic mean of the decision precision and recall.

    .. math:: F_1 = \frac{2\,TP}{2\,TP + FP + FN}
    """

    name = "rating_f1"
    display = "RatingF1"
    summary = "harmonic mean of decision precision and recall"
    formula = "2TP / (2TP + FP + FN)"
    kernel_kind = K.DEC_F1
    threshold: float | None = _threshold()
    aggregation: str = _aggregation("micro", "macro")


class _Correlation(RatingMetric):
    bounds = (-1.0, 1.0)
    undefined_is_zero = False


@register("spearman_rho", "rho")
class Spearman(_Correlation):
    r"""Spearman's rank correlation between a user's predicted and true ratings.

    .. math:: \rho = \frac{\sum_i (k_o(i) - \bar k_o)(k_p(i) - \bar k_p)}
                          {\sqrt{\sum_i (k_o(i)-\bar k_o)^2}\sqrt{\sum_i (k_p(i)-\bar k_p)^2}}

    with tied values given their mean rank; undefined (the user is skipped and counted) with
    fewer than two pairs or constant values on either side.
    """

    name = "spearman"
    display = "Spearman"
    summary = "per-user Spearman correlation of predicted and true ratings"
    formula = "pearson(rank(pred), rank(true))"
    kernel_kind = K.SPEARMAN


@register("kendall_tau", "tau", "tau_b")
class Kendall(_Correlation):
    r"""Kendall's tau-b between a user's predicted and true ratings.

    .. math:: \tau_b = \frac{n_c - n_d}{\sqrt{(n_0 - n_1)(n_0 - n_2)}}

    ``n_c``/``n_d`` concordant/discordant pairs, ``n_0 = n(n-1)/2``, ``n_1``/``n_2`` pairs
    tied in the prediction/truth.
    """

    name = "kendall"
    display = "Kendall"
    summary = "per-user Kendall tau-b of predicted and true ratings"
    formula = "(nc - nd) / sqrt((n0 - n1)(n0 - n2))"
    kernel_kind = K.KENDALL
