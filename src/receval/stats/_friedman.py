"""Friedman test over more than two systems, with the Nemenyi post-hoc test (Demšar 2006)."""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["critical_difference", "frames", "friedman"]


def friedman(values: dict[str, np.ndarray], metric: str, higher_is_better: bool
             ) -> tuple[dict[str, object], list[dict[str, object]]]:
    """Friedman's test of k systems on n users, and Nemenyi's pairwise comparisons.

    Each user ranks the systems (rank 1 = best, ties get the average rank); ``R_j`` is the
    average rank of system j. The statistic is SciPy's ``friedmanchisquare`` (Friedman
    1937, with the tie correction), chi-square with ``k - 1`` degrees of freedom. Nemenyi's
    post-hoc test (Demšar 2006, section 3.2.2) compares every pair with
    ``z = |R_i - R_j| / sqrt(k (k + 1) / (6 n))``: two systems differ when the average
    ranks differ by at least the critical difference ``CD = q_alpha sqrt(k (k + 1) / (6 n))``;
    the p-value is ``P(Q_{k, inf} >= z sqrt(2))`` with Q the studentized range, which
    controls the family-wise error over the pairs of one metric.

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
    from scipy import stats as sps

    names = list(values)
    x = np.column_stack([values[s] for s in names])
    n, k = x.shape
    stat, p = sps.friedmanchisquare(*(x[:, j] for j in range(k))) if n > 0 else (0.0, 1.0)
    ranks = sps.rankdata(-x if higher_is_better else x, axis=1)
    mean_rank = ranks.mean(axis=0)
    se = np.sqrt(k * (k + 1) / (6.0 * n))
    row = {"metric": metric, "statistic": float(stat), "p_value": float(p), "n_users": n,
           "df": k - 1, **{f"rank_{s}": float(r) for s, r in zip(names, mean_rank, strict=True)}}
    pairs = []
    for i in range(k):
        for j in range(i + 1, k):
            z = (mean_rank[j] - mean_rank[i]) / se  # positive when system i ranks better
            pairs.append({"metric": metric, "system_a": names[i], "system_b": names[j],
                          "rank_a": float(mean_rank[i]), "rank_b": float(mean_rank[j]),
                          "statistic": float(z),
                          "p_value": float(sps.studentized_range.sf(abs(z) * np.sqrt(2.0),
                                                                    k, np.inf))})
    return row, pairs


def critical_difference(k: int, n: int, alpha: float) -> float:
    """Nemenyi's critical difference of average ranks (Demšar 2006, eq. 5)."""
    from scipy import stats as sps

    q = float(sps.studentized_range.ppf(1.0 - alpha, k, np.inf)) / np.sqrt(2.0)
    return q * float(np.sqrt(k * (k + 1) / (6.0 * n)))


def frames(rows: list[dict[str, object]], pairs: list[dict[str, object]]
           ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The Friedman table (one row per metric) and the Nemenyi table (one per pair)."""
    return pd.DataFrame(rows), pd.DataFrame(pairs)
