"""One local Spark session for the Spark tests (``local[2]``), and pandas -> Spark frames.

The workers import the same receval as the driver (its source directory is put first on
their ``PYTHONPATH``), and run the driver's interpreter.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import receval

#: The limit on what a job may send to the driver: far below the inputs of the test that
#: checks that raw rows never reach it (Spark's smallest allowed value).
MAX_RESULT_SIZE = "1m"


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    pytest.importorskip("pyspark")
    source = str(Path(receval.__file__).resolve().parents[1])
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [source, *filter(None, [os.environ.get("PYTHONPATH")])])
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession

    session = (SparkSession.builder.master("local[2]").appName("receval-tests")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.default.parallelism", "2")
               .config("spark.driver.memory", "1g")
               .config("spark.driver.maxResultSize", MAX_RESULT_SIZE)
               .config("spark.sql.execution.arrow.pyspark.enabled", "true")
               .config("spark.sql.execution.arrow.pyspark.fallback.enabled", "false")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def to_spark(spark: Any, frame: pd.DataFrame) -> Any:
    """A pandas frame as a Spark DataFrame, rows in the same order (one partition per
    half, so that Spark reads them in order)."""
    with warnings.catch_warnings():  # pyspark's own notes on pandas 3
        warnings.simplefilter("ignore")
        return spark.createDataFrame(frame)
