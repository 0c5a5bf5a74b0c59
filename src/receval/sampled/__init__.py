"""Sampled evaluation: rank each held-out item among sampled negatives, and correct the bias.

>>> import pandas as pd
>>> import receval as rv
>>> test = pd.DataFrame({"user_id": [1], "item_id": [0]})
>>> cand = rv.sampled.negatives(test, n=3, items=range(10), seed=0)
>>> int(cand["positive"].sum()), len(cand)
(1, 4)
"""

from receval.sampled._corrections import CORRECTIONS
from receval.sampled._evaluate import SUPPORTED, evaluate
from receval.sampled._negatives import STRATEGIES, negatives

__all__ = ["CORRECTIONS", "STRATEGIES", "SUPPORTED", "evaluate", "negatives"]
