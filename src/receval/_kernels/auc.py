"""The area under the ROC curve of one ranked list, from the positions of its relevant items.

For a list with ``P`` relevant and ``N`` non-relevant items, AUC is the share of the ``P N``
(relevant, non-relevant) pairs in which the relevant item is ranked higher. With tied blocks
(``ties='expected'``) a pair inside one block counts 1/2: the mean over every order of the
block, and what :func:`sklearn.metrics.roc_auc_score` does with equal scores.
"""

from __future__ import annotations

import numpy as np

from receval._kernels._jit import njit

__all__ = ["auc_terms"]


@njit()
def auc_terms(rel: np.ndarray, s: int, e: int, bend: np.ndarray) -> tuple[float, float]:
    """Correctly ordered pairs and all pairs of the list at positions ``s:e``.

    ``bend[p]`` is the end of the tied block of position ``p`` when ``bend`` is not empty
    (``ties='expected'``); otherwise every position is its own block.
    """
    blocks = len(bend) > 0
    correct = 0.0
    above = 0.0  # relevant items in earlier blocks
    pos = 0.0
    neg = 0.0
    p = s
    while p < e:
        b1 = bend[p] if blocks else p + 1
        r = 0.0
        for q in range(p, b1):
            r += rel[q]
        q_neg = (b1 - p) - r
        correct += above * q_neg + 0.5 * r * q_neg
        above += r
        pos += r
        neg += q_neg
        p = b1
    return correct, pos * neg
