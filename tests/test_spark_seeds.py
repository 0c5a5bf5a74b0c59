"""The seeds' worked examples (tests/test_seeds.py) again, every evaluation made in Spark.

Each ``rv.evaluate`` call of those tests runs twice, in memory and in Spark, and the two
results must be identical (every aggregate, per-user value and the user accounting); the
test then checks the seed's numbers on the Spark result.
"""

from __future__ import annotations

import warnings

import pytest

import receval
from receval.data._adapters import to_frame
from receval.data._spark import is_spark_frame
from tests.spark_session import spark, to_spark  # noqa: F401 - the session fixture
from tests.test_seeds import *  # noqa: F403 - the seeds' tests, collected again here
from tests.test_spark import assert_identical

pytestmark = pytest.mark.slow

_in_memory = receval.evaluate


@pytest.fixture(autouse=True)
def evaluate_in_spark(spark, monkeypatch):  # noqa: F811
    def evaluate(recs, truth, metrics, **options):
        if is_spark_frame(recs):
            return _in_memory(recs, truth, metrics, **options)
        expected = _in_memory(recs, truth, metrics, **options)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", receval.RecevalWarning)  # emitted just above
            result = _in_memory(to_spark(spark, to_frame(recs, "recs")),
                                to_spark(spark, to_frame(truth, "truth")), metrics, **options)
        assert_identical(expected, result)
        return result

    monkeypatch.setattr(receval, "evaluate", evaluate)
