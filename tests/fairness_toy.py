"""The toy data of the fairness specification (4 users, 8 items, lists of 4, k = 3).

Every hand computation in ``tests/test_fairness*.py``, ``test_calibration*.py`` and
``test_ips*.py`` uses it, so the worked examples of ``docs/fairness.md`` are the tests' own.

| user | train (item, rating)   | test (item, rating)   | top 3 (of 4)  |
|------|------------------------|-----------------------|---------------|
| 1    | 1:5 2:4 3:3            | 4:5 6:4               | 4 5 6 (8)     |
| 2    | 1:4 2:5 4:2 5:4        | 3:5 8:4               | 3 6 7 (8)     |
| 3    | 1:5 6:4                | 2:4 7:3               | 2 3 4 (5)     |
| 4    | 2:3 3:4 7:5            | 1:5 5:4 8:2           | 1 4 6 (8)     |

Genres: 1 Action|Comedy, 2 Drama, 3 Action, 4 Comedy|Drama, 5 Comedy, 6 Action|Drama,
7 Comedy|Drama, 8 Action. Item groups: items 1-3 group 0, 4-8 group 1; user groups: users
1, 2 group 0, users 3, 4 group 1. Training counts: items 1, 2: 3; item 3: 2; items 4-7: 1;
item 8 absent from train.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

import receval as rv

TRAIN = pd.DataFrame([(1, 1, 5), (1, 2, 4), (1, 3, 3), (2, 1, 4), (2, 2, 5), (2, 4, 2),
                      (2, 5, 4), (3, 1, 5), (3, 6, 4), (4, 2, 3), (4, 3, 4), (4, 7, 5)],
                     columns=["user_id", "item_id", "rating"])
TEST = pd.DataFrame([(1, 4, 5), (1, 6, 4), (2, 3, 5), (2, 8, 4), (3, 2, 4), (3, 7, 3),
                     (4, 1, 5), (4, 5, 4), (4, 8, 2)], columns=["user_id", "item_id", "rating"])
RECS = pd.DataFrame([(1, 4, 4.8), (1, 5, 4.5), (1, 6, 4.1), (1, 8, 3.9),
                     (2, 3, 4.6), (2, 6, 4.2), (2, 7, 3.8), (2, 8, 3.0),
                     (3, 2, 4.9), (3, 3, 4.4), (3, 4, 4.0), (3, 5, 3.2),
                     (4, 1, 4.7), (4, 4, 4.3), (4, 6, 3.9), (4, 8, 3.5)],
                    columns=["user_id", "item_id", "score"])
GENRES = pd.DataFrame({"item_id": range(1, 9),
                       "genre": ["Action|Comedy", "Drama", "Action", "Comedy|Drama", "Comedy",
                                 "Action|Drama", "Comedy|Drama", "Action"]})
ITEM_GROUPS = {1: 0, 2: 0, 3: 0, 4: 1, 5: 1, 6: 1, 7: 1, 8: 1}
USER_GROUPS = {1: 0, 2: 0, 3: 1, 4: 1}


def evaluate(metrics: list[str], **options: Any) -> rv.EvaluationResult:
    """The toy lists against the toy test set, with train and genres unless overridden."""
    options.setdefault("train", TRAIN)
    options.setdefault("item_features", GENRES)
    recs = options.pop("recs", RECS)
    truth = options.pop("truth", TEST)
    return rv.evaluate(recs, truth, metrics, **options)


def per_user(ev: rv.EvaluationResult, metric: str) -> list[float]:
    """The per-user values of one metric, users 1-4."""
    return [float(v) for v in ev.per_user[ev._label(metric)].reindex([1, 2, 3, 4])]
