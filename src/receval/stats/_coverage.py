"""Rating metrics of systems that predict different (user, item) pairs (seed 003).

"If coverage is different (different set of user/item pairs for which predictions are
available), two choices: check against the common subset, or supplement the algorithm with a
default for full coverage." Both readings are computed by :func:`receval.evaluate`:

* common: the truth restricted to the pairs that every system predicts;
* fill: the whole truth, each missing prediction filled by ``missing_predictions``
  (``"global_mean"``, the mean truth rating, by default, or a number).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from receval._columns import Columns
from receval.data import recs_table, truth_table
from receval.data._adapters import to_frame

__all__ = ["COVERAGES", "common_truth", "fill_label", "prediction_coverage"]

#: Accepted values of ``coverage``.
COVERAGES = ("both", "common", "fill")


def _pairs(user: pd.Series, item: pd.Series) -> pd.MultiIndex:
    return pd.MultiIndex.from_arrays([user.to_numpy(), item.to_numpy()])


def prediction_coverage(systems: Mapping[str, Any], truth: Any, columns: Columns
                        ) -> tuple[pd.DataFrame, np.ndarray]:
    """Each system's share of truth pairs it predicts, and the mask of pairs all predict.

    Returns
    -------
    (pandas.DataFrame, numpy.ndarray)
        Per system ``predicted`` (truth pairs with a prediction), ``truth_pairs`` and
        ``coverage`` = predicted / truth_pairs; and a boolean mask over the truth rows.
    """
    tt = truth_table(truth, columns)
    truth_pairs = _pairs(tt.user, tt.item)
    common = np.ones(len(truth_pairs), dtype=bool)
    rows = []
    for name, recs in systems.items():
        rt = recs_table(recs, columns)
        predicted = truth_pairs.isin(_pairs(rt.user, rt.item))
        common &= predicted
        n = len(truth_pairs)
        rows.append({"system": name, "predicted": int(predicted.sum()), "truth_pairs": n,
                     "coverage": predicted.sum() / n if n else float("nan")})
    return pd.DataFrame(rows).set_index("system"), common


def common_truth(truth: Any, mask: np.ndarray) -> pd.DataFrame:
    """The truth rows whose pair every system predicts (same columns as the input)."""
    frame = to_frame(truth, "truth")
    return frame.iloc[np.flatnonzero(mask)]


def fill_label(fill: Any) -> str:
    """``'global_mean'``, or the number as written (``3.5``)."""
    return fill if isinstance(fill, str) else f"{float(fill):g}"
