"""Split interaction logs into training and test parts, reproducibly and without silent loss.

>>> import pandas as pd, receval as rv
>>> log = pd.DataFrame({"user_id": [1, 1, 1, 2, 2, 2], "item_id": list("abcabd"),
...                     "timestamp": [1, 2, 3, 1, 2, 3]})
>>> train, test = rv.split.leave_k_out(log, k=1)
>>> test["item_id"].tolist()
['c', 'd']

Every splitter returns a :class:`Split` (or, for :func:`kfold` and :func:`rolling`, a list of
them) whose parts
are tables of the input's type, and whose :class:`SplitReport` records sizes, cold users and
items, leakage in time and every setting. See ``docs/split.md``.
"""

from receval.split._random import kfold, random
from receval.split._rolling import rolling
from receval.split._temporal import leave_k_out, temporal
from receval.split._types import Split, SplitReport

__all__ = ["Split", "SplitReport", "kfold", "leave_k_out", "random", "rolling", "temporal"]
