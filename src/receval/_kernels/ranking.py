"""One compiled pass over ranked lists that computes every requested ranking metric.

Array contract (see :class:`receval.data.RankedLists`): user ``u``'s list is positions
``starts[u]:ends[u]`` of ``grade`` (grade of the item if relevant, else 0) and ``rel`` (0/1),
best first; ``n_rel[u]`` is the user's number of relevant items; ``ideal_grade`` holds each
user's relevant grades in decreasing order at ``istarts[u]:iends[u]``. When ``bstart`` is not
empty, positions ``bstart[p]:bend[p]`` are the block of tied scores that position ``p``
belongs to, and every metric is the exact mean over all orderings of every tied block
(McSherry & Najork, 2008), computed in closed form.

A metric request ``m`` is the tuple ``(kind[m], k[m], gain[m], disc[m], variant[m],
param[m])``; the kernel writes a numerator and a denominator per (user, request), and the
per-user value is ``num / den`` (``0`` when both are ``0``). Micro averages are
``sum(num) / sum(den)``.
"""

from __future__ import annotations

import math

import numpy as np

from receval._kernels._jit import n_chunks, njit, prange, use_parallel
from receval._kernels.auc import auc_terms
from receval._kernels.sorting import order_desc

__all__ = [
    "AP",
    "AP_ALL_POSITIONS",
    "AUC",
    "DCG",
    "DISC_BREESE",
    "DISC_HALFLIFE",
    "DISC_LOG2",
    "DISC_NONE",
    "DISC_RECIPROCAL",
    "FBETA",
    "GAIN_BINARY",
    "GAIN_EXPONENTIAL",
    "GAIN_LINEAR",
    "HIT",
    "NDCG",
    "PRECISION",
    "RECALL",
    "RR",
    "ranking_kernel",
    "weighted_ap_sums",
    "weighted_auc_sums",
]

# metric kinds
PRECISION, RECALL, FBETA, HIT, RR, AP, DCG, NDCG = 0, 1, 2, 3, 4, 5, 6, 7
AUC = 8  # the whole list, see receval._kernels.auc
# gains
GAIN_LINEAR, GAIN_EXPONENTIAL, GAIN_BINARY = 0, 1, 2
# discounts: 1/log2(i+1), 1/max(1, log2 i), 2^(-(i-1)/param), 1/i, 1, 1/ln(i+1)
DISC_LOG2, DISC_BREESE, DISC_HALFLIFE, DISC_RECIPROCAL, DISC_NONE, DISC_LN = 0, 1, 2, 3, 4, 5
# AP denominators: min(k, |R|), |R|, hits@k, min(|R|, list length within k), k; and the mean
# of P@i over all k places (Elliot)
AP_MIN_K_RELEVANT, AP_RELEVANT, AP_HITS, AP_MIN_RELEVANT_LIST, AP_K = 0, 1, 2, 3, 4
AP_ALL_POSITIONS = 5
# precision denominators: k, list length within k; recall denominators: |R|, min(k, |R|)
P_K, P_LIST = 0, 1
R_RELEVANT, R_MIN_K_RELEVANT = 0, 1
# ideal of nDCG
# ideal of nDCG: all relevant cut at k, the list reordered, all relevant not cut
IDEAL_TRUTH, IDEAL_LIST, IDEAL_TRUTH_UNCUT = 0, 1, 2

# Above this grade the exponential gain 2^g - 1 is computed relative to 2^(gmax - EXP_MAX) so
# that nDCG stays exact instead of overflowing; CG/DCG (unnormalised) are refused upstream.
EXP_MAX = 1000.0


@njit()
def discount(rank: int, flag: int, param: float) -> float:
    """Discount of 1-based ``rank``."""
    if flag == DISC_LOG2:
        return 1.0 / math.log2(rank + 1.0)
    if flag == DISC_BREESE:
        return 1.0 if rank <= 2 else 1.0 / math.log2(rank)
    if flag == DISC_HALFLIFE:
        return 2.0 ** (-(rank - 1.0) / param)
    if flag == DISC_RECIPROCAL:
        return 1.0 / rank
    if flag == DISC_LN:
        return 1.0 / math.log(rank + 1.0)
    return 1.0


@njit()
def gain_value(grade: float, rel: float, flag: int, shift: float) -> float:
    """Gain of a position: its grade, ``2^grade - 1`` (scaled by ``2^-shift``), or 0/1."""
    if flag == GAIN_LINEAR:
        return grade
    if flag == GAIN_EXPONENTIAL:
        if grade == 0.0:
            return 0.0
        return 2.0 ** (grade - shift) - 2.0 ** (-shift)
    return rel


@njit()
def _gains(grade: np.ndarray, rel: np.ndarray, s: int, e: int, bstart: np.ndarray,
           bend: np.ndarray, flag: int, shift: float) -> np.ndarray:
    """Per-position gains of a list (block means of the gains when ties are averaged)."""
    out = np.empty(e - s)
    for p in range(s, e):
        out[p - s] = gain_value(grade[p], float(rel[p]), flag, shift)
    if len(bstart) > 0:
        p = s
        while p < e:
            b1 = bend[p]
            total = 0.0
            for q in range(p, b1):
                total += out[q - s]
            mean = total / (b1 - p)
            for q in range(p, b1):
                out[q - s] = mean
            p = b1
    return out


@njit()
def _ideal_dcg(igrade: np.ndarray, i0: int, i1: int, cut: int, gflag: int, dflag: int,
               param: float, shift: float) -> float:
    total = 0.0
    for j in range(min(cut, i1 - i0)):
        total += gain_value(igrade[i0 + j], 1.0, gflag, shift) * discount(j + 1, dflag, param)
    return total


@njit()
def _list_ideal_dcg(grade: np.ndarray, rel: np.ndarray, s: int, e: int, cut: int, gflag: int,
                    dflag: int, param: float, shift: float) -> float:
    vals = np.empty(e - s)
    for p in range(s, e):
        vals[p - s] = gain_value(grade[p], float(rel[p]), gflag, shift)
    order = np.empty(e - s, dtype=np.int64)
    order_desc(vals, np.empty(0), e - s, order, np.empty(e - s, dtype=np.int64))
    total = 0.0
    for j in range(min(cut, e - s)):
        total += vals[order[j]] * discount(j + 1, dflag, param)
    return total


@njit()
def _count(rel: np.ndarray, p: int, b1: int) -> int:
    """Relevant positions in ``p:b1``."""
    r = 0
    for q in range(p, b1):
        r += rel[q]
    return r


@njit()
def _first_relevant_block(rel: np.ndarray, s: int, cut: int, bend: np.ndarray
                          ) -> tuple[int, int, int]:
    """Find the first tied block starting within ``cut`` that holds a relevant item.

    Returns its start, size and relevant count; the start is -1 if there is none.
    """
    p = s
    while p < s + cut:
        b1 = bend[p]
        r = _count(rel, p, b1)
        if r > 0:
            return p, b1 - p, r
        p = b1
    return -1, 0, 0


@njit()
def _hit_expected(rel: np.ndarray, s: int, cut: int, bend: np.ndarray) -> float:
    """P(at least one relevant item in the first ``cut`` positions)."""
    p, n, r = _first_relevant_block(rel, s, cut, bend)
    if p < 0:
        return 0.0
    m = s + cut - p
    if m >= n:
        return 1.0
    miss = 1.0  # C(n - r, m) / C(n, m)
    for t in range(m):
        miss *= (n - r - t) / (n - t)
        if miss <= 0.0:
            return 1.0
    return 1.0 - miss


@njit()
def _rr_expected(rel: np.ndarray, s: int, cut: int, bend: np.ndarray) -> float:
    """E[1 / rank of the first relevant item], 0 beyond ``cut``."""
    p, n, r = _first_relevant_block(rel, s, cut, bend)
    if p < 0:
        return 0.0
    total = 0.0
    none_yet = 1.0  # P(no relevant item in the block's first j - 1 places)
    a = p - s
    for j in range(1, n - r + 2):
        if a + j > cut:
            break
        total += none_yet * r / (n - j + 1) / (a + j)
        none_yet *= (n - r - (j - 1)) / (n - (j - 1))
    return total


@njit()
def _ap_block(r: int, n: int, h: int, first_rank: int, places: int) -> float:
    """Sum over the first ``places`` places of a tied block of E[rel_i * P@i].

    The block has ``n`` positions, ``r`` of them relevant, starts at rank ``first_rank`` and
    follows ``h`` relevant positions. At place ``t`` (1-based):
    ``E[rel_i * hits(i)] = r/n * (h + 1) + (t - 1) * r (r - 1) / (n (n - 1))``.
    """
    if r == 0:
        return 0.0
    pair = r * (r - 1) / (n * (n - 1)) if n > 1 else 0.0
    total = 0.0
    for t in range(1, places + 1):
        total += (r / n * (h + 1) + (t - 1) * pair) / (first_rank + t - 1)
    return total


@njit()
def _ap_sum_expected(rel: np.ndarray, s: int, cut: int, bend: np.ndarray) -> tuple[float, int]:
    """E[sum over i <= cut of rel_i * P@i] and the number of hits before the straddling block."""
    total = 0.0
    h = np.int64(0)  # not the literal 0: one compiled _ap_block
    p = s
    while p < s + cut:
        b1 = bend[p]
        r = _count(rel, p, b1)
        total += _ap_block(r, b1 - p, h, p - s + 1, min(b1, s + cut) - p)
        if b1 > s + cut:
            return total, h
        h += r
        p = b1
    return total, h


@njit()
def _ap_hits_expected(rel: np.ndarray, s: int, cut: int, bend: np.ndarray) -> float:
    """E[AP] with the number of hits in the top ``cut`` as denominator (0 without hits).

    Blocks wholly inside the cutoff fix the hit count; for the block that straddles it the
    number ``h`` of its relevant items in the cutoff is hypergeometric, and given ``h`` they
    are uniformly placed among its first ``m`` places.
    """
    # sum over complete blocks, and locate the straddling block
    total = 0.0
    hb = np.int64(0)  # not the literal 0: one compiled _ap_block
    p = s
    while p < s + cut:
        b1 = bend[p]
        n = b1 - p
        r = _count(rel, p, b1)
        if b1 > s + cut:  # straddles
            m = s + cut - p
            if r == 0:
                break
            # hypergeometric weights P(h) by the ratio recurrence, normalised
            lo = max(0, m - (n - r))
            hi = min(r, m)
            w = np.zeros(hi + 1)
            w[lo] = 1.0
            for hh in range(lo, hi):
                w[hh + 1] = w[hh] * (r - hh) * (m - hh) / ((hh + 1) * (n - r - m + hh + 1))
            wsum = 0.0
            for hh in range(lo, hi + 1):
                wsum += w[hh]
            value = 0.0
            for hh in range(lo, hi + 1):
                if hb + hh > 0:  # given hh hits, they are uniform over the m places
                    inner = _ap_block(hh, m, hb, p - s + 1, m)
                    value += w[hh] / wsum * (total + inner) / (hb + hh)
            return value
        total += _ap_block(r, n, hb, p - s + 1, n)
        hb += r
        p = b1
    return total / hb if hb > 0 else 0.0


@njit()
def _dcg(grade: np.ndarray, rel: np.ndarray, s: int, cut: int, gflag: int, dflag: int,
         param: float, shift: float) -> float:
    total = 0.0
    for i in range(cut):
        g = gain_value(grade[s + i], float(rel[s + i]), gflag, shift)
        if g != 0.0:
            total += g * discount(i + 1, dflag, param)
    return total


@njit()
def _user(u: int, starts: np.ndarray, ends: np.ndarray, grade: np.ndarray, rel: np.ndarray,
          n_rel: np.ndarray, istarts: np.ndarray, iends: np.ndarray, igrade: np.ndarray,
          bstart: np.ndarray, bend: np.ndarray, kind: np.ndarray, kval: np.ndarray,
          gflag: np.ndarray, dflag: np.ndarray, variant: np.ndarray, param: np.ndarray,
          num: np.ndarray, den: np.ndarray) -> None:
    """Every request for one user.

    One function on purpose, past the project's 80 lines: with the AP and DCG branches moved
    into compiled functions of their own the ranking pass took 10-13% longer (88-91 ms ->
    96-108 ms at 100k users), and 35% longer with them inlined by numba (78 -> 106 ms).
    """
    s = starts[u]
    e = ends[u]
    length = e - s
    nr = n_rel[u]
    expected = len(bstart) > 0
    binary = np.int64(GAIN_BINARY)  # an int64, as gflag[m]: one compiled _gains
    rvals = _gains(grade, rel, s, e, bstart, bend, binary, 0.0) if expected \
        else np.empty(0)
    for m in range(len(kind)):
        k = kval[m]
        nominal = k if k > 0 else length
        cut = min(nominal, length)
        kd = kind[m]
        hits = 0.0
        for i in range(cut):
            hits += rvals[i] if expected else rel[s + i]
        if kd == PRECISION:
            num[u, m] = hits
            den[u, m] = nominal if variant[m] == P_K else cut
        elif kd == RECALL:
            num[u, m] = hits
            den[u, m] = nr if variant[m] == R_RELEVANT else min(nominal, nr)
        elif kd == FBETA:
            b2 = param[m] * param[m]
            num[u, m] = (1.0 + b2) * hits
            den[u, m] = b2 * nr + (nominal if variant[m] == P_K else cut)
        elif kd == HIT:
            if expected:
                num[u, m] = _hit_expected(rel, s, cut, bend)
            else:
                num[u, m] = 1.0 if hits > 0 else 0.0
            den[u, m] = 1.0
        elif kd == RR:
            value = 0.0
            if expected:
                value = _rr_expected(rel, s, cut, bend)
            else:
                for i in range(cut):
                    if rel[s + i] > 0:
                        value = 1.0 / (i + 1.0)
                        break
            num[u, m] = value
            den[u, m] = 1.0
        elif kd == AUC:
            num[u, m], den[u, m] = auc_terms(rel, s, e, bend)
        elif kd == AP:
            var = variant[m]
            if var == AP_ALL_POSITIONS:  # sum over i <= k of hits@i / i (block means if tied)
                total = 0.0
                h = 0.0
                for i in range(nominal):
                    if i < length:
                        h += rvals[i] if expected else rel[s + i]
                    total += h / (i + 1.0)
                num[u, m] = total
                den[u, m] = nominal
                continue
            if expected:
                if var == AP_HITS:
                    num[u, m] = _ap_hits_expected(rel, s, cut, bend)
                    den[u, m] = 1.0
                    continue
                total, _ = _ap_sum_expected(rel, s, cut, bend)
            else:
                total = 0.0
                h = 0.0
                for i in range(cut):
                    if rel[s + i] > 0:
                        h += 1.0
                        total += h / (i + 1.0)
            num[u, m] = total
            if var == AP_MIN_K_RELEVANT:
                den[u, m] = min(nominal, nr)
            elif var == AP_RELEVANT:
                den[u, m] = nr
            elif var == AP_MIN_RELEVANT_LIST:
                den[u, m] = min(nr, cut)
            elif var == AP_K:
                den[u, m] = nominal
            else:
                den[u, m] = hits if hits > 0 else 1.0
        else:  # DCG family
            shift = 0.0
            if gflag[m] == GAIN_EXPONENTIAL and kd == NDCG:
                gmax = igrade[istarts[u]] if iends[u] > istarts[u] else 0.0
                for p in range(s, e):
                    gmax = max(gmax, grade[p])
                shift = max(0.0, gmax - EXP_MAX)
            if expected:
                gv = _gains(grade, rel, s, e, bstart, bend, gflag[m], shift)
                total = 0.0
                for i in range(cut):
                    total += gv[i] * discount(i + 1, dflag[m], param[m])
            else:
                total = _dcg(grade, rel, s, cut, gflag[m], dflag[m], param[m], shift)
            num[u, m] = total
            if kd == DCG:
                den[u, m] = 1.0
            elif variant[m] != IDEAL_LIST:
                icut = k if k > 0 and variant[m] == IDEAL_TRUTH else iends[u] - istarts[u]
                den[u, m] = _ideal_dcg(igrade, istarts[u], iends[u], icut, gflag[m],
                                       dflag[m], param[m], shift)
            else:
                den[u, m] = _list_ideal_dcg(grade, rel, s, e, nominal, gflag[m], dflag[m],
                                            param[m], shift)


@njit()
def _ranking_serial(starts: np.ndarray, ends: np.ndarray, grade: np.ndarray, rel: np.ndarray,
                    n_rel: np.ndarray, istarts: np.ndarray, iends: np.ndarray,
                    igrade: np.ndarray, bstart: np.ndarray, bend: np.ndarray,
                    kind: np.ndarray, kval: np.ndarray, gflag: np.ndarray, dflag: np.ndarray,
                    variant: np.ndarray, param: np.ndarray, num: np.ndarray,
                    den: np.ndarray) -> None:
    for u in range(len(starts)):
        _user(u, starts, ends, grade, rel, n_rel, istarts, iends, igrade, bstart, bend,
              kind, kval, gflag, dflag, variant, param, num, den)


@njit(parallel=True)
def _ranking_parallel(starts: np.ndarray, ends: np.ndarray, grade: np.ndarray,
                      rel: np.ndarray, n_rel: np.ndarray, istarts: np.ndarray,
                      iends: np.ndarray, igrade: np.ndarray, bstart: np.ndarray,
                      bend: np.ndarray, kind: np.ndarray, kval: np.ndarray,
                      gflag: np.ndarray, dflag: np.ndarray, variant: np.ndarray,
                      param: np.ndarray, num: np.ndarray, den: np.ndarray,
                      chunks: int) -> None:
    n = len(starts)
    for c in prange(chunks):
        for u in range(c * n // chunks, (c + 1) * n // chunks):
            _user(u, starts, ends, grade, rel, n_rel, istarts, iends, igrade, bstart, bend,
                  kind, kval, gflag, dflag, variant, param, num, den)


def ranking_kernel(
    starts: np.ndarray, ends: np.ndarray, grade: np.ndarray, rel: np.ndarray,
    n_rel: np.ndarray, istarts: np.ndarray, iends: np.ndarray, igrade: np.ndarray,
    bstart: np.ndarray, bend: np.ndarray,
    kind: np.ndarray, kval: np.ndarray, gflag: np.ndarray, dflag: np.ndarray,
    variant: np.ndarray, param: np.ndarray,
    num: np.ndarray, den: np.ndarray,
) -> None:
    """Fill ``num[u, m]`` and ``den[u, m]`` for every user ``u`` and request ``m``.

    Runs over chunks of users on the thread pool for large inputs, on one thread otherwise.
    """
    args = (starts, ends, grade, rel, n_rel, istarts, iends, igrade, bstart, bend, kind, kval,
            gflag, dflag, variant, param, num, den)
    if use_parallel(len(grade)):
        _ranking_parallel(*args, n_chunks(len(starts)))
    else:
        _ranking_serial(*args)


@njit()
def weighted_ap_sums(starts: np.ndarray, ends: np.ndarray, rel: np.ndarray, w: np.ndarray,
                     k: int, out: np.ndarray) -> None:
    """``out[u] = sum_{i <= k, rel_i} w_i * hits@i / i``: AP's numerator, each hit weighted.

    The propensity-weighted AP of :mod:`receval.metrics._debiased` (``k = 0``: whole lists).
    """
    for u in range(len(starts)):
        s = starts[u]
        cut = ends[u] - s if k == 0 else min(k, ends[u] - s)
        hits = 0.0
        total = 0.0
        for i in range(cut):
            if rel[s + i] > 0:
                hits += 1.0
                total += w[s + i] * hits / (i + 1.0)
        out[u] = total


@njit()
def weighted_auc_sums(starts: np.ndarray, ends: np.ndarray, rel: np.ndarray, w: np.ndarray,
                      num: np.ndarray, den: np.ndarray, count: np.ndarray) -> None:
    """Per list: ``sum_i w_i AUC_i``, ``sum_i w_i`` and the number of relevant items.

    ``AUC_i`` is the share of the list's non-relevant items ranked below relevant item
    ``i``; a list without a relevant or a non-relevant item gets ``count = 0`` (undefined).
    """
    for u in range(len(starts)):
        s, e = starts[u], ends[u]
        negatives = 0.0
        for p in range(s, e):
            if rel[p] == 0:
                negatives += 1.0
        below = 0.0
        a = 0.0
        b = 0.0
        c = 0
        if negatives > 0:
            for p in range(e - 1, s - 1, -1):
                if rel[p] > 0:
                    a += w[p] * (below / negatives)
                    b += w[p]
                    c += 1
                else:
                    below += 1.0
        num[u] = a
        den[u] = b
        count[u] = c
