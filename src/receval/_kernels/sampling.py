"""Rejection sampling of negatives: for each list, distinct items its user never touched.

Array contract: list ``l`` belongs to user ``list_user[l]``, whose touched item codes are
``t_items[t_off[u]:t_off[u + 1]]``, sorted. ``draws`` holds candidate item codes drawn with
replacement from the base distribution (uniform over the catalog, or proportional to
popularity); the candidates of the ``j``-th list of ``lists`` are
``draws[d_off[j]:d_off[j + 1]]``. A candidate is kept when the user never touched it and the
list does not hold it yet, until the list has ``n`` items. Keeping the accepted draws of a
with-replacement stream is successive sampling without replacement from the base distribution
restricted to the allowed items: uniform sampling without replacement, or popularity-
proportional draws renormalised after each pick.
"""

from __future__ import annotations

import numpy as np

from receval._kernels._jit import njit
from receval._kernels.search import in_sorted

__all__ = ["accept_draws"]


@njit()
def accept_draws(lists: np.ndarray, list_user: np.ndarray, t_off: np.ndarray,
                 t_items: np.ndarray, draws: np.ndarray, d_off: np.ndarray, n: int,
                 stamp: np.ndarray, out: np.ndarray, filled: np.ndarray) -> None:
    """Append accepted candidates to ``out[l, filled[l]:]`` for every list ``l`` of ``lists``.

    ``stamp[c] == l`` marks item ``c`` as already in list ``l`` (``stamp`` starts at -1); a
    list continued with more draws stamps its items again first, since lists processed in
    between may have stamped the same items.
    """
    for j in range(len(lists)):
        lst = lists[j]
        u = list_user[lst]
        s = t_off[u]
        e = t_off[u + 1]
        f = filled[lst]
        for i in range(f):  # a list continued from an earlier batch: its items again
            stamp[out[lst, i]] = lst
        for d in range(d_off[j], d_off[j + 1]):
            if f == n:
                break
            c = draws[d]
            if stamp[c] == lst or in_sorted(t_items, s, e, c):
                continue
            stamp[c] = lst
            out[lst, f] = c
            f += 1
        filled[lst] = f
