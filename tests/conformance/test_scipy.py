"""Conformance with scipy's rank correlations, per user, on random rating predictions.

* ``scipy.stats.spearmanr(pred, true)`` (Pearson correlation of the average ranks, ties
  given the mean of their ranks) == receval ``spearman``;
* ``scipy.stats.kendalltau(pred, true)`` (default ``variant='b'``: tau-b, corrected for ties
  on both sides) == receval ``kendall``.

Both are computed on each user's (predicted, true) pairs and averaged over users. Where
scipy's value is undefined — fewer than two pairs, or constant predictions or truths
(scipy returns NaN, with a ConstantInputWarning) — receval's per-user value is NaN, the
user is left out of the mean, and an UndefinedMetricWarning is emitted. Predictions are
often rounded to half stars and some users have one or two pairs, so both cases occur.
"""

from __future__ import annotations

import math
from contextlib import nullcontext

import numpy as np
import pytest
from hypothesis import given, settings
from scipy import stats

import receval as rv
from receval.exceptions import UndefinedMetricWarning
from tests.conformance._data import RatingCase, assert_close, close, rating_cases

pytestmark = pytest.mark.conformance


def _scipy(pred: np.ndarray, true: np.ndarray) -> tuple[float, float]:
    """(spearman, kendall tau-b), NaN where undefined (without calling scipy)."""
    if len(pred) < 2 or np.all(pred == pred[0]) or np.all(true == true[0]):
        return math.nan, math.nan
    rho = stats.spearmanr(pred, true).statistic
    tau = stats.kendalltau(pred, true).statistic
    return float(rho), float(tau)


@settings(max_examples=200, deadline=None)
@given(case=rating_cases(max_pairs=12))
def test_rank_correlations_match_scipy_per_user(case: RatingCase) -> None:
    """Per-user Spearman rho and Kendall tau-b equal scipy's; undefined users are NaN."""
    pairs = case.pairs()
    reference = {u: _scipy(g["score"].to_numpy(), g["rating"].to_numpy())
                 for u, g in pairs.groupby("user")}
    n_undefined = sum(math.isnan(rho) for rho, _ in reference.values())
    # the warning is expected exactly when some user is undefined (any other warning fails)
    with pytest.warns(UndefinedMetricWarning) if n_undefined else nullcontext():
        ev = rv.evaluate(case.recs, case.truth, ["spearman", "kendall"])
    rho_col, tau_col = (ev.per_user[label] for label in ev.labels)
    assert set(ev.per_user.index) == set(reference)
    for user, (rho, tau) in reference.items():
        assert_close(rho_col[user], rho, f"spearman vs spearmanr, user {user}")
        assert_close(tau_col[user], tau, f"kendall vs kendalltau, user {user}")
    for label, j in zip(ev.labels, (0, 1), strict=True):
        defined = [v[j] for v in reference.values() if not math.isnan(v[j])]
        mean = float(np.mean(defined)) if defined else math.nan
        assert close(ev[label], mean), f"{label}: mean {ev[label]} != {mean}"

