"""The beyond-accuracy metrics in the engine: side inputs, per-user values, global exposure.

:func:`run` is called by :func:`receval._engine.evaluate_partition` with the encoded
interactions of one partition; it returns a :class:`BeyondPartial` (ids, never codes).
:func:`summarize` merges the partials' aggregates: exact sums of per-user values, exposure
counts and personalization counts added per item id (:func:`finish`); :func:`join_columns`
adds the per-user values to the per-user table.

Modules: :mod:`._side` (train and features under the partition's item codes),
:mod:`._similarity` (item similarities), :mod:`._terms` (per-row terms of the per-list
metrics), :mod:`._run` (one partition) and :mod:`._merge` (every partition).
"""

from receval._beyond_engine._merge import finish, join_columns, summarize
from receval._beyond_engine._run import BeyondPartial, run

__all__ = ["BeyondPartial", "finish", "join_columns", "run", "summarize"]
