"""Splits of Spark DataFrames: the same rows in each part as in memory, computed in Spark.

:func:`random_spark`, :func:`temporal_spark` and :func:`per_user_spark` are called by
:func:`receval.split.random` / :func:`~receval.split.temporal` when the data is a Spark
DataFrame. Modules: :mod:`._driver` (the plans and jobs), :mod:`._worker` (what runs in the
executors), :mod:`._time` (time keys), :mod:`._report` (the report, from aggregations).
"""

from receval.split._spark._driver import per_user_spark, random_spark, temporal_spark

__all__ = ["per_user_spark", "random_spark", "temporal_spark"]
