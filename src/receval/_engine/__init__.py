"""The engine: one set of users in, per-family partials out, then merged.

:func:`evaluate_partition` runs validation, encoding, the user accounting and each requested
metric family on one pair of tables and returns a :class:`Partial`; :func:`merge` turns one
or more partials (in memory: one; larger than memory: one per bucket of users; Spark: one
per bucket) into an :class:`~receval.EvaluationResult`. Partials hold ids, never codes, so
partials of disjoint user sets merge by concatenation. No metric is computed anywhere else.

Modules: :mod:`._options` (the validated options), :mod:`._partition` (one partition:
encoding, user accounting, the families' runs), :mod:`._lists` (ranked lists, built once per
partition and tie policy, and ``cut``), :mod:`._families` (ranking, rating, per-list and
exposure metrics, each a plug-in with ``run`` and ``merge``), :mod:`._partial` (what a
partition returns), :mod:`._merge` (accounting, the families' summaries, settings),
:mod:`._frame` (the per-user table) and :mod:`._notes` (warnings, emitted once after the
merge).
"""

from receval._engine._families import family_of
from receval._engine._merge import merge
from receval._engine._options import Options
from receval._engine._partial import Partial
from receval._engine._partition import evaluate_partition, truth_grade_sum

__all__ = ["Options", "Partial", "evaluate_partition", "family_of", "merge", "truth_grade_sum"]
