"""The input layer: the only place that knows about data-frame libraries and files."""

from receval.data._build import Interactions, RankedLists, RatingPairs, prepare
from receval.data._files import FORMATS, read_table
from receval.data._table import InputTable, recs_table, truth_table

__all__ = ["FORMATS", "InputTable", "Interactions", "RankedLists", "RatingPairs", "prepare",
           "read_table", "recs_table", "truth_table"]
