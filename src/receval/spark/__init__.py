"""The Spark engine: ``receval.evaluate`` on ``pyspark.sql.DataFrame`` inputs.

``pip install receval[spark]``. :func:`receval.evaluate` sends two Spark DataFrames here; the
users are bucketed by a hash of their id, each bucket is evaluated inside Spark's executors
by the same engine as in memory, and only each bucket's partial result reaches the driver,
where they are merged exactly as in memory. With ``evaluate(per_user="spark")`` the per-user
values stay in Spark (``result.per_user`` is a Spark DataFrame) and the partials hold only
sums, counts and example ids. Importing :mod:`receval` does not import pyspark.
"""

from receval.spark._engine import evaluate_spark, n_buckets_for

__all__ = ["evaluate_spark", "n_buckets_for"]
