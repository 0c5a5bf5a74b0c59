"""Friedman test over more than two systems, with the Nemenyi post-hoc test (Demšar 2006)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

__all__ = ["TAIL", "critical_difference", "frames", "friedman", "range_sf", "row_ranks"]


def friedman(values: dict[str, np.ndarray], metric: str, higher_is_better: bool
             ) -> tuple[dict[str, object], list[dict[str, object]]]:
    """Friedman's test of k systems on n users, and Nemenyi's pairwise comparisons.

    Each user ranks the systems (rank 1 = best, ties get the average rank); ``R_j`` is the
    average rank of system j. The statistic is SciPy's ``friedmanchisquare`` (Friedman
    1937, with the tie correction), chi-square with ``k - 1`` degrees of freedom. Nemenyi's
    post-hoc test (Demšar 2006, section 3.2.2) compares every pair with
    ``z = |R_i - R_j| / sqrt(k (k + 1) / (6 n))``: two systems differ when the average
    ranks differ by at least the critical difference ``CD = q_alpha sqrt(k (k + 1) / (6 n))``;
    the p-value is ``P(Q_{k, inf} >= z sqrt(2))`` with Q the studentized range (see
    :func:`range_sf` for the far tail), which controls the family-wise error over the pairs
    of one metric.

    Parameters
    ----------
    values : dict
        System name -> per-user values on the same users (same order, no NaN).
    metric : str
    higher_is_better : bool
        The direction used to rank (rank 1 = best).

    Returns
    -------
    (dict, list of dict)
        The Friedman row, and one row per pair.
    """
    names = list(values)
    x = np.column_stack([values[s] for s in names])
    n, k = x.shape
    ranks, equal = row_ranks(-x if higher_is_better else x)
    stat, p = _statistic(ranks, equal)
    mean_rank = ranks.mean(axis=0) if n else np.full(k, np.nan)
    se = np.sqrt(k * (k + 1) / (6.0 * max(n, 1)))
    row = {"metric": metric, "statistic": float(stat), "p_value": float(p), "n_users": n,
           "df": k - 1, **{f"rank_{s}": float(r) for s, r in zip(names, mean_rank, strict=True)}}
    pairs = []
    for i in range(k):
        for j in range(i + 1, k):
            z = (mean_rank[j] - mean_rank[i]) / se  # positive when system i ranks better
            pairs.append({"metric": metric, "system_a": names[i], "system_b": names[j],
                          "rank_a": float(mean_rank[i]), "rank_b": float(mean_rank[j]),
                          "statistic": float(z), "p_value": range_sf(abs(z) * np.sqrt(2.0), k)})
    return row, pairs


#: Below this, SciPy's studentized-range tail loses accuracy (it reaches 0 near q = 11, where
#: the tail is ~1e-17): :func:`range_sf` uses the union bound there.
TAIL = 1e-10


def range_sf(q: float, k: int) -> float:
    """``P(Q_{k, inf} >= q)``, the studentized range of ``k`` normal means (infinite df).

    ``scipy.stats.studentized_range.sf`` where it exceeds ``TAIL``. Deeper in the tail SciPy's
    numerical integration underflows (it returns 0 for q >= ~11, e.g. a Nemenyi z of 9), so
    the p-value there is the union bound over the ``k (k - 1) / 2`` pairs,
    ``C(k, 2) 2 Phi(-q / sqrt 2)`` (``Q >= q`` when some pair's difference, N(0, 2), is), which
    is exact to first order in the tail: 1.1797e-9 against SciPy's 1.1793e-9 at q = 9, k = 4
    (0.1 % apart at k = 8).
    """
    from scipy import stats as sps

    if math.isnan(q):
        return math.nan
    p = float(sps.studentized_range.sf(q, k, np.inf))
    if p > TAIL:
        return p
    return float(min(1.0, k * (k - 1) / 2 * 2.0 * sps.norm.sf(q / math.sqrt(2.0))))


def row_ranks(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rank of each column within each row (1 = smallest, ties averaged), and tie sizes.

    ``rank_j = 1 + #{l: x_l < x_j} + (#{l: x_l = x_j} - 1) / 2``, the average rank of
    ``scipy.stats.rankdata``; O(n k^2), for the few systems of a comparison.
    """
    less = (x[:, None, :] < x[:, :, None]).sum(axis=2)
    equal = (x[:, None, :] == x[:, :, None]).sum(axis=2)
    return 1.0 + less + (equal - 1) / 2.0, equal


def _statistic(ranks: np.ndarray, equal: np.ndarray) -> tuple[float, float]:
    """Friedman's chi-square with the tie correction, as ``scipy.stats.friedmanchisquare``.

    ``chi2 = (12 / (n k (k + 1)) sum_j R_j^2 - 3 n (k + 1)) / C`` with ``R_j`` the rank sums
    and ``C = 1 - sum (t^3 - t) / (n k (k^2 - 1))`` over the groups of ``t`` tied values
    (each member of a group of t adds ``t^2 - 1``).
    """
    from scipy import stats as sps

    n, k = ranks.shape
    if n == 0:  # no user: no test
        return math.nan, math.nan
    c = 1.0 - float((equal ** 2 - 1).sum()) / (k * (k * k - 1) * n)
    if c <= 0:  # every user ties every system
        return 0.0, 1.0
    ssbn = float((ranks.sum(axis=0) ** 2).sum())
    chisq = (12.0 / (k * n * (k + 1)) * ssbn - 3.0 * n * (k + 1)) / c
    return chisq, float(sps.chi2.sf(chisq, k - 1))


def critical_difference(k: int, n: int, alpha: float) -> float:
    """Nemenyi's critical difference of average ranks (Demšar 2006, eq. 5)."""
    from scipy import stats as sps

    q = float(sps.studentized_range.ppf(1.0 - alpha, k, np.inf)) / np.sqrt(2.0)
    return q * float(np.sqrt(k * (k + 1) / (6.0 * n)))


def frames(rows: list[dict[str, object]], pairs: list[dict[str, object]]
           ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The Friedman table (one row per metric) and the Nemenyi table (one per pair)."""
    return pd.DataFrame(rows), pd.DataFrame(pairs)
