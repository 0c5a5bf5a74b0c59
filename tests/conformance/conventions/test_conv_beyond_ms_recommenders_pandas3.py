"""Why Microsoft Recommenders' beyond-accuracy functions are compared in CI's pandas-2
environment only (``test_conv_beyond_live.py``): under pandas 3, which CI's main environment
has, recommenders 1.2.1 gives wrong per-user values and raises on the global ones.

Runs where ``recommenders`` is installed with pandas 3 (CI's main environment).
"""

from __future__ import annotations

import warnings

import pandas as pd
import pytest
from recommenders.evaluation import python_evaluation as pe

from tests.conformance.conventions._beyond_defs import cases_module, msr_defs

pytestmark = pytest.mark.conformance

COLS = {"col_user": "userID", "col_item": "itemID"}


def _frames() -> tuple[pd.DataFrame, pd.DataFrame]:
    case = cases_module().edge_cases()[0]
    lists = cases_module().top_k(case, 3)
    reco = pd.DataFrame([(u, i) for u, items in lists.items() for i in items],
                        columns=["userID", "itemID"])
    return pd.DataFrame(case["train"], columns=["userID", "itemID"]), reco


def test_pandas3_ignores_the_fillna_of_user_diversity() -> None:
    """``item_pair_sim[col_sim].fillna(0, inplace=True)`` fills a copy under pandas 3: u0's
    pairs of items that never co-occur in train stay NaN, and its diversity is NaN instead of
    1 - mean(0, 0, 0) = 1 (edge-mixed case, top 3; the pandas-2 value is in the fixture)."""
    assert pd.__version__.startswith("3.")
    train, reco = _frames()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = pe.user_diversity(train, reco, **COLS).set_index("userID")["user_diversity"]
    written = msr_defs(cases_module().edge_cases()[0], 3)["user_diversity_cooc"]
    assert written["u0"] == 1.0
    assert pd.isna(theirs["u0"])


def test_pandas3_breaks_the_global_functions() -> None:
    """``novelty`` ends with ``frame.agg({...})[0]``, a positional lookup that pandas 3 reads
    as a label: KeyError."""
    train, reco = _frames()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(KeyError):
            pe.novelty(train, reco, **COLS)
