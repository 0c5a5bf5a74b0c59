"""Named conventions: reproduce another library's numbers on the same input.

>>> import receval as rv
>>> rv.conventions.get("trec_eval").metric("map@10")
MAP(denominator='relevant')@10
>>> rv.conventions.get("ranx").library_name(rv.conventions.get("ranx").metric(
...     "ndcg(gain=exponential)@5"))
'ndcg_burges@5'

``rv.evaluate(recs, truth, metrics, convention="trec_eval")`` reads every metric name in the
convention (its rule's parameters first, then those written in the name) and uses the
convention's settings (ties, which users enter the mean, relevance level, ...) for every
``evaluate`` parameter left at ``None``. :func:`table` shows how every preset defines every
metric; :func:`side_by_side` evaluates one data set under all of them.
"""

from __future__ import annotations

from receval.conventions._model import DEFAULTS, SETTINGS, Convention, MetricRule
from receval.conventions._registry import available, get
from receval.conventions._side_by_side import SideBySide, side_by_side
from receval.conventions._table import table

__all__ = ["DEFAULTS", "SETTINGS", "Convention", "MetricRule", "SideBySide", "available", "get",
           "side_by_side", "table"]
