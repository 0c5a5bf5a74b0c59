"""Metric specifications, the registry and the metric grammar.

>>> import receval as rv
>>> rv.metrics.parse("ndcg(gain=exponential)@10")
NDCG(gain='exponential')@10
"""

from receval.metrics._auc import AUC
from receval.metrics._base import Metric
from receval.metrics._beyond import (
    BeyondMetric,
    DistributionalCoverage,
    Diversity,
    Entropy,
    Gini,
    LongTail,
    LongTailCoverage,
    Novelty,
    Personalization,
    Popularity,
    Serendipity,
    Unexpectedness,
)
from receval.metrics._calibration import (
    CalibrationMetric,
    Miscalibration,
    PopularityCalibration,
)
from receval.metrics._coverage import GlobalMetric, ItemCoverage, UserCoverage
from receval.metrics._fairness import AWRF, ExpectedExposure, GroupExposure, GroupMetric
from receval.metrics._group_fairness import REO, RSP, BiasDisparity, DeltaGap
from receval.metrics._ranking import (
    ARHR,
    CG,
    DCG,
    NDCG,
    AveragePrecision,
    FBeta,
    HitRate,
    Precision,
    RankingMetric,
    RankScore,
    Recall,
    ReciprocalRank,
)
from receval.metrics._rating import (
    MAE,
    MSE,
    RMSE,
    Kendall,
    RatingF1,
    RatingMetric,
    RatingPrecision,
    RatingRecall,
    Spearman,
)
from receval.metrics._registry import MetricInfo, available, get, parse, register

__all__ = [
    "ARHR",
    "AUC",
    "AWRF",
    "CG",
    "DCG",
    "MAE",
    "MSE",
    "NDCG",
    "REO",
    "RMSE",
    "RSP",
    "AveragePrecision",
    "BeyondMetric",
    "BiasDisparity",
    "CalibrationMetric",
    "DeltaGap",
    "DistributionalCoverage",
    "Diversity",
    "Entropy",
    "ExpectedExposure",
    "FBeta",
    "Gini",
    "GlobalMetric",
    "GroupExposure",
    "GroupMetric",
    "HitRate",
    "ItemCoverage",
    "Kendall",
    "LongTail",
    "LongTailCoverage",
    "Metric",
    "MetricInfo",
    "Miscalibration",
    "Novelty",
    "Personalization",
    "Popularity",
    "PopularityCalibration",
    "Precision",
    "RankScore",
    "RankingMetric",
    "RatingF1",
    "RatingMetric",
    "RatingPrecision",
    "RatingRecall",
    "Recall",
    "ReciprocalRank",
    "Serendipity",
    "Spearman",
    "Unexpectedness",
    "UserCoverage",
    "available",
    "get",
    "parse",
    "register",
]
