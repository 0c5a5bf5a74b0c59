"""receval: exact, explicit and fast offline evaluation of recommender systems.

>>> import pandas as pd
>>> import receval as rv
>>> recs = pd.DataFrame({"user": [1, 1, 1], "item": ["a", "b", "c"], "score": [.9, .8, .7]})
>>> truth = pd.DataFrame({"user": [1, 1], "item": ["a", "c"], "rating": [3, 1]})
>>> ev = rv.evaluate(recs, truth, ["precision@2", "ndcg@3"])
>>> round(ev["precision@2"], 4)
0.5
"""

from receval import (
    conventions,
    datasets,
    exceptions,
    metrics,
    models,
    protocols,
    sampled,
    split,
    stats,
    study,
)
from receval._columns import Columns
from receval._cv import cross_validate
from receval._cv_result import CrossValidation
from receval._evaluate import evaluate
from receval._explain import Explanation, explain
from receval._result import EvaluationResult, MetricSummary, UserAccounting
from receval._version import __version__
from receval.exceptions import RecevalError, RecevalWarning
from receval.stats import Comparison, compare
from receval.study import Study, Tuning, rerun, run, tune

__all__ = [
    "Columns",
    "Comparison",
    "CrossValidation",
    "EvaluationResult",
    "Explanation",
    "MetricSummary",
    "RecevalError",
    "RecevalWarning",
    "Study",
    "Tuning",
    "UserAccounting",
    "__version__",
    "compare",
    "conventions",
    "cross_validate",
    "datasets",
    "evaluate",
    "exceptions",
    "explain",
    "metrics",
    "models",
    "protocols",
    "rerun",
    "run",
    "sampled",
    "split",
    "stats",
    "study",
    "tune",
]
