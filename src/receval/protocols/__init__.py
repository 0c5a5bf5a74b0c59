"""Evaluation protocols built on :func:`receval.evaluate`: each computes no metric itself.

>>> import receval as rv
>>> st = rv.protocols.propensity_stratified(recs, truth, ["recall@10"],
...                                          train=train)          # doctest: +SKIP
>>> st.table                                                         # doctest: +SKIP
"""

from receval.protocols._stratified import StratifiedEvaluation, propensity_stratified

__all__ = ["StratifiedEvaluation", "propensity_stratified"]
