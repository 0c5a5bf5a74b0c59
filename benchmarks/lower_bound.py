"""The floor for an exact nDCG@k: numpy sorting and join, then one compiled pass.

This is what any exact evaluator has to do at least: put the recommendations into user groups
in score order, find the grade of each recommended item in the truth, and walk the groups once.
It computes a single metric (linear-gain nDCG@k, ideal from the whole truth, users without a
relevant item skipped, truth users without recommendations scored 0 -- receval's defaults).
It assumes non-negative integer ids and no duplicate (user, item) rows, as the generated
workload has; it validates nothing.
"""

from __future__ import annotations

import numba
import numpy as np
import pandas as pd


@numba.njit(cache=True, nogil=True)
def _ndcg_pass(r_user, r_gain, t_user, t_gain, k):  # pragma: no cover - compiled
    disc = np.empty(k)
    for p in range(k):
        disc[p] = 1.0 / np.log2(p + 2.0)
    top = np.empty(k)  # the user's k largest grades, in descending order
    n_r = r_user.shape[0]
    n_t = t_user.shape[0]
    total = 0.0
    n_users = 0
    i = 0
    j = 0
    while j < n_t:
        user = t_user[j]
        m = 0
        while j < n_t and t_user[j] == user:
            g = t_gain[j]
            j += 1
            if g <= 0.0:
                continue
            if m < k:
                m += 1
            elif g <= top[k - 1]:
                continue
            q = m - 1
            while q > 0 and top[q - 1] < g:
                top[q] = top[q - 1]
                q -= 1
            top[q] = g
        if m == 0:  # no relevant item: skipped
            continue
        idcg = 0.0
        for p in range(m):
            idcg += top[p] * disc[p]
        while i < n_r and r_user[i] < user:
            i += 1
        dcg = 0.0
        p = 0
        while i < n_r and r_user[i] == user:
            if p < k:
                dcg += r_gain[i] * disc[p]
            p += 1
            i += 1
        total += dcg / idcg
        n_users += 1
    return total / n_users if n_users else np.nan


def _in_order(user: np.ndarray, score: np.ndarray) -> bool:
    """Whether the rows already are in (user ascending, score descending) order."""
    du = np.diff(user)
    return bool(np.all((du > 0) | ((du == 0) & (score[1:] < score[:-1]))))


def ndcg_at_k(recs: pd.DataFrame, truth: pd.DataFrame, k: int = 10, *,
              skip_sorted: bool = False) -> float:
    """Mean linear-gain nDCG@k over the truth users with a relevant item.

    ``skip_sorted``: first check in one pass whether the rows are already in order, and skip
    the sort when they are (the generated workload is).
    """
    user = recs["user"].to_numpy()
    item = recs["item"].to_numpy()
    score = recs["score"].to_numpy()
    if not (skip_sorted and _in_order(user, score)):
        order = np.lexsort((-score, user))  # user groups, best score first
        user = user[order]
        item = item[order]

    t_item = truth["item"].to_numpy()
    span = np.int64(max(int(item.max()), int(t_item.max())) + 1)
    t_key = truth["user"].to_numpy() * span + t_item
    t_order = np.argsort(t_key, kind="stable")  # truth grouped by user, then item
    t_key = t_key[t_order]
    t_gain = truth["rating"].to_numpy().astype(np.float64)[t_order]
    t_user = t_key // span

    r_key = user * span + item
    pos = np.minimum(np.searchsorted(t_key, r_key), len(t_key) - 1)
    r_gain = np.where(t_key[pos] == r_key, t_gain[pos], 0.0)
    return float(_ndcg_pass(user, r_gain, t_user, t_gain, k))


# --- any row order: a counting sort by user, then one pass ---------------------------------------

@numba.njit(cache=True, nogil=True)
def _counting_sort(user, n_users, item, value):  # pragma: no cover - compiled
    """Group ``item`` and ``value`` by ``user`` (stable counting sort), with the bounds."""
    bounds = np.zeros(n_users + 1, dtype=np.int64)
    for u in user:
        bounds[u + 1] += 1
    for u in range(n_users):
        bounds[u + 1] += bounds[u]
    fill = bounds[:-1].copy()
    out_item = np.empty_like(item)
    out_value = np.empty(value.shape[0])
    for i in range(user.shape[0]):
        p = fill[user[i]]
        fill[user[i]] = p + 1
        out_item[p] = item[i]
        out_value[p] = value[i]
    return out_item, out_value, bounds


@numba.njit(cache=True, nogil=True)
def _ndcg_grouped(r_off, r_item, r_score, t_off, t_item, t_gain, k):  # pragma: no cover
    disc = np.empty(k)
    for p in range(k):
        disc[p] = 1.0 / np.log2(p + 2.0)
    total = 0.0
    n_users = 0
    for u in range(len(t_off) - 1):
        ts, te = t_off[u], t_off[u + 1]
        gains = np.sort(t_gain[ts:te])[::-1]
        if te == ts or gains[0] <= 0.0:
            continue
        idcg = 0.0
        for p in range(min(k, te - ts)):
            if gains[p] > 0.0:
                idcg += gains[p] * disc[p]
        rs, re = r_off[u], r_off[u + 1]
        order = np.argsort(-r_score[rs:re], kind="mergesort")
        dcg = 0.0
        for p in range(min(k, re - rs)):
            item = r_item[rs + order[p]]
            for j in range(ts, te):  # a user's truth is short: a scan is the join
                if t_item[j] == item:
                    dcg += t_gain[j] * disc[p]
                    break
        total += dcg / idcg
        n_users += 1
    return total / n_users if n_users else np.nan


def ndcg_at_k_counting(recs: pd.DataFrame, truth: pd.DataFrame, k: int = 10) -> float:
    """The same nDCG@k for rows in any order: counting sort by user, then one numba pass.

    Assumes dense non-negative integer user ids (as the workload's), so that the id is the
    counting-sort key.
    """
    r_user = recs["user"].to_numpy()
    t_user = truth["user"].to_numpy()
    n_users = int(max(r_user.max(), t_user.max())) + 1
    r_item, r_score, r_off = _counting_sort(r_user, n_users, recs["item"].to_numpy(),
                                            recs["score"].to_numpy())
    t_item, t_gain, t_off = _counting_sort(t_user, n_users, truth["item"].to_numpy(),
                                           truth["rating"].to_numpy())
    return float(_ndcg_grouped(r_off, r_item, r_score, t_off, t_item, t_gain, k))
