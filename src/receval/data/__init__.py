"""The input layer: the only place that knows about data-frame libraries and files."""

from receval.data._build import Interactions, RankedLists, RatingPairs, prepare
from receval.data._table import InputTable, recs_table, truth_table

__all__ = ["InputTable", "Interactions", "RankedLists", "RatingPairs", "prepare", "recs_table",
           "truth_table"]
