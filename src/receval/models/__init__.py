"""Models for offline experiments: the protocol, baselines, adapters, full-catalog ranking.

The baselines, a Surprise adapter, and full-catalog top-k from factors (:class:`Factors`) or
a score function (:class:`ScoreFunction`), all ranked by :func:`top_k_scores` or a compiled
walk of a global order.

A model is anything with ``fit(train)`` and ``recommend(users, k, exclude=None)`` and/or
``predict(pairs)`` (:class:`Recommender`, :class:`Predictor`); :func:`receval.cross_validate`
calls these. The baselines here are fitted and queried with numpy arrays and one compiled
walk per user, never a per-user Python loop. Models carry their hyper-parameters
(``get_params``, ``set_params``, ``repr``; :func:`clone` makes an unfitted copy), and
:func:`from_spec` builds one from a text such as ``"item-mean:shrinkage=5"`` or
``"surprise:SVD(n_factors=50)"``.

>>> import pandas as pd
>>> import receval as rv
>>> train = pd.DataFrame({"user_id": [1, 1, 2, 3], "item_id": ["a", "b", "a", "c"]})
>>> rv.models.MostPopular().fit(train).recommend([1, 4], k=2, exclude=train)
   user_id item_id  score
0        1       c    1.0
1        4       a    2.0
2        4       b    1.0
"""

from receval.exceptions import TiesAtCutoffWarning
from receval.models._baselines import GlobalMean, ItemMean, MostPopular, Random, UserMean
from receval.models._cornac import Cornac
from receval.models._data import ModelOutputError
from receval.models._factors import Factors, ScoreFunction
from receval.models._implicit import Implicit
from receval.models._lenskit import LensKit
from receval.models._params import Params, clone
from receval.models._protocol import Model, Predictor, Recommender
from receval.models._rank import RankedBlock, top_k_scores
from receval.models._spec import from_spec
from receval.models._surprise import Surprise

__all__ = ["Cornac", "Factors", "GlobalMean", "Implicit", "ItemMean", "LensKit", "Model",
           "ModelOutputError", "MostPopular", "Params", "Predictor", "Random", "RankedBlock",
           "Recommender", "ScoreFunction", "Surprise", "TiesAtCutoffWarning", "UserMean", "clone",
           "from_spec", "top_k_scores"]
