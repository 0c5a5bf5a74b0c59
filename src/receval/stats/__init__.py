"""Statistics: compare systems with paired tests, intervals and corrections; metrics by group.

>>> import receval as rv
>>> cmp = rv.compare({"a": ev_a, "b": ev_b})        # doctest: +SKIP
>>> cmp.table(), cmp.ci, cmp.tests                   # doctest: +SKIP
"""

from receval.stats._compare import compare, compare_folds
from receval.stats._comparison import Comparison
from receval.stats._corrections import CORRECTIONS
from receval.stats._coverage import COVERAGES
from receval.stats._disparity import SUMMARIES, Disparity, disparity
from receval.stats._groups import activity_groups, by_group, by_item_group, popularity_groups
from receval.stats._paired import TESTS

__all__ = ["CORRECTIONS", "COVERAGES", "SUMMARIES", "TESTS", "Comparison", "Disparity",
           "activity_groups", "by_group", "by_item_group", "compare", "compare_folds",
           "disparity", "popularity_groups"]
