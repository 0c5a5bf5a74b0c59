"""Expected exposure's ideal (target) exposures and geometric sums, shared by its two paths.

expeval's ``exposure.target``: the relevant items of one relevance level share the attention
of the places the level holds in an ideal ranking. Read by the one-list path
(:mod:`._fair_lists`) and by the sampled and group paths (:mod:`._ee_pairs`).
"""

from __future__ import annotations

import numpy as np

__all__ = ["geo", "level_spans", "level_targets"]


def geo(x: float, n: np.ndarray) -> np.ndarray:
    """``sum_{i<n} x^i``: ``(1 - x^n) / (1 - x)``, ``1 / (1 - x)`` for ``n = inf``."""
    finite = np.isfinite(n)
    out = np.full(len(n), 1.0 / (1.0 - x))
    out[finite] = (1.0 - x ** n[finite]) / (1.0 - x)
    return out


def level_spans(grade: np.ndarray, seg: np.ndarray, n_seg: int
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Levels of rows sorted by (segment, grade descending).

    Each row's number of rows in higher levels, its level's size, and each segment's
    number of levels.
    """
    new = np.ones(len(grade), dtype=bool)
    new[1:] = (grade[1:] != grade[:-1]) | (seg[1:] != seg[:-1])
    level = np.cumsum(new) - 1
    first = np.flatnonzero(new)
    size = np.diff(np.append(first, len(grade)))
    seg_start = np.searchsorted(seg, np.arange(n_seg))
    return (first[level] - seg_start[seg], size[level],
            np.bincount(seg[new], minlength=n_seg))


def level_targets(model: str, p: float, u: float, grade: np.ndarray, b: np.ndarray,
                  m: np.ndarray) -> np.ndarray:
    """Mean attention of the ``m`` places after ``b`` (expeval's ``exposure.target``)."""
    if model == "rbp":
        return (p ** b - p ** (b + m)) / (m * (1.0 - p))
    pp = p * (1.0 - u)
    high = (pp ** b - pp ** (b + m)) / (m * (1.0 - pp))
    zero = (1.0 - u) ** b * (p ** b - p ** (b + m)) / (m * (1.0 - p))
    return np.where(grade > 0, high, zero)
