"""The engine: one set of users in, per-user numerators/denominators out, then merged.

:func:`evaluate_partition` runs validation, encoding, grouping and the kernels on one pair of
tables and returns a :class:`Partial`; :func:`merge` turns one or more partials (in memory:
one; larger than memory: one per bucket of users; Spark: one per bucket) into an
:class:`~receval.EvaluationResult`. Partials hold ids, never codes, so partials of disjoint
user sets merge by concatenation. No metric is computed anywhere else.

Modules: :mod:`._options` (the validated options), :mod:`._partition` (one partition:
encoding and user accounting), :mod:`._ranking` and :mod:`._rating` (the kernels' callers),
:mod:`._partial` (what a partition returns), :mod:`._merge` (aggregates, accounting,
settings), :mod:`._coverage` (global metrics), :mod:`._frame` (the per-user table) and
:mod:`._notes` (warnings, emitted once after the merge).
"""

from receval._engine._merge import merge
from receval._engine._options import Options
from receval._engine._partial import Partial
from receval._engine._partition import cast_table, evaluate_partition, truth_grade_sum

__all__ = ["Options", "Partial", "cast_table", "evaluate_partition", "merge", "truth_grade_sum"]
