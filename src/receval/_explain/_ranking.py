"""``explain`` for the ranking metrics: one list of grades, its value and its worked table.

The value comes from the ranking family's kernel and its per-user ratio
(:func:`receval._aggregate.column_of`), the code :func:`receval.evaluate` runs; the table
shows the terms, described from the metric's own parameters (its spec), never from the
kernel's variant codes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from receval._aggregate import column_of
from receval._explain._table import Explanation, fmt, sum_line
from receval._kernels import ranking as K
from receval.exceptions import InvalidGradeError, InvalidParameterError, NonFiniteValueError
from receval.metrics import (
    ARHR,
    AUC,
    CG,
    DCG,
    NDCG,
    AveragePrecision,
    FBeta,
    HitRate,
    Precision,
    RankScore,
    Recall,
    ReciprocalRank,
)

__all__ = ["explain_ranking"]

#: How each ``gain=`` turns a grade g into a gain (t: the relevance threshold).
GAIN_TEXT = {"linear": "grade", "exponential": "2^grade-1", "binary": "rel",
             "shifted_exponential": "2^(grade-t+1)-1"}
#: How each ``discount=`` discounts rank i.
DISCOUNT_TEXT = {"log2": "1/log2(i+1)", "breese": "1/max(1,log2 i)", "ln": "1/ln(i+1)"}
#: AP's denominator D for each ``denominator=`` (formatted with k, |R| and n).
AP_DENOMINATOR_TEXT = {"min_k_relevant": "min(k={k}, |R|={r})", "relevant": "|R|={r}",
                       "hits": "hits", "min_relevant_list": "min(|R|={r}, n={n})",
                       "k": "k={k}"}


def _grades(values: Sequence[float], name: str) -> np.ndarray:
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"{name} must be a flat sequence of numeric grades; got "
                                    f"{list(values)[:5]!r}", parameter=name) from None
    if arr.ndim != 1:
        raise InvalidParameterError(f"{name} must be a flat sequence of grades",
                                    parameter=name)
    if np.isnan(arr).any() or np.isinf(arr).any():
        raise NonFiniteValueError(f"{name} holds NaN or infinite grades: {list(values)}",
                                  parameter=name)
    if (arr < 0).any():
        raise InvalidGradeError(f"{name} holds negative grades: {list(values)}",
                                parameter=name)
    return arr


def _check_ideal(relevant: np.ndarray, ideal: np.ndarray) -> None:
    """``ideal`` (every judged grade of the user) holds each relevant grade of the list.

    As a multiset: a list with two items of grade 3 needs two 3s in ``ideal``. Otherwise the
    list would have more (or better) relevant items than the user: nDCG above 1, recall 3.
    """
    have = Counter(ideal.tolist())
    need = Counter(relevant.tolist())
    missing = sorted((need - have).elements(), reverse=True)
    if missing:
        shown = ", ".join(fmt(x) for x in missing[:5]) + (
            f", ... ({len(missing)} in all)" if len(missing) > 5 else "")
        held = ", ".join(fmt(x) for x in ideal[:10]) + (", ..." if len(ideal) > 10 else "")
        raise InvalidParameterError(
            f"ideal must hold all of the user's judged grades, those of the list included: "
            f"each relevant grade of the list at least as often as in the list; ideal "
            f"[{held}] lacks the list's relevant grades {shown}: add them to ideal, or leave "
            f"ideal out to use the list itself", parameter="ideal", n_bad=len(missing),
            examples=missing[:5])


def _kernel_terms(m: Any, grade: np.ndarray, rel: np.ndarray, igrade: np.ndarray,
                  n_rel: int) -> tuple[float, float]:
    """The ranking kernel's numerator and denominator for one list."""
    kind, k, gflag, dflag, variant, prm = m.request()
    num = np.zeros((1, 1))
    den = np.zeros((1, 1))
    empty = np.empty(0, dtype=np.int64)
    K.ranking_kernel(
        np.array([0]), np.array([len(grade)]), grade, rel.astype(np.uint8),
        np.array([n_rel]), np.array([0]), np.array([len(igrade)]), igrade, empty, empty,
        np.array([kind]), np.array([k]), np.array([gflag]), np.array([dflag]),
        np.array([variant]), np.array([prm]), num, den)
    return float(num[0, 0]), float(den[0, 0])


def explain_ranking(m: Any, grades: Sequence[float], ideal: Sequence[float] | None, *,
                    relevance_threshold: float | None) -> Explanation:
    """A ranking metric on one list of grades (best first), with its worked table."""
    g = _grades(grades, "grades")
    ideal_arr = g if ideal is None else _grades(ideal, "ideal")
    t = relevance_threshold
    rel = (g >= t) if t is not None else (g > 0)
    irel = (ideal_arr >= t) if t is not None else (ideal_arr > 0)
    if ideal is not None:
        _check_ideal(g[rel], ideal_arr)
    grade = np.where(rel, g, 0.0)
    igrade = np.sort(ideal_arr[irel])[::-1].copy()
    n_rel = int(irel.sum())
    n, d = _kernel_terms(m, grade, rel, igrade, n_rel)
    value = float(column_of(m, pd.Index([0]), np.array([n]), np.array([d])).values[0])
    cut = min(m.k or len(g), len(g))
    nominal = m.k or len(g)
    if getattr(m, "ideal", "truth") == "list":  # the whole list reordered, then cut
        igrade = np.sort(grade)[::-1].copy()
    table, ideal_table, lines = _worked(m, g[:cut], rel[:cut], grade[:cut], igrade, nominal,
                                        n_rel, n, d, value)
    return Explanation(m, tuple(float(x) for x in g), value, table, ideal_table, n, d,
                       tuple(lines))


def _gain_discount(m: Any) -> tuple[str, str]:
    """How the metric's spec turns grades into gains and ranks into discounts."""
    if isinstance(m, ARHR):
        return "rel", "1/i"
    gain = GAIN_TEXT[getattr(m, "gain", "linear")]
    if isinstance(m, RankScore):
        return gain, f"2^(-(i-1)/{fmt(m.alpha)})"
    if isinstance(m, CG):
        return gain, "1"
    return gain, DISCOUNT_TEXT[getattr(m, "discount", "log2")]


def _dcg_table(m: Any, grades: np.ndarray, rel: np.ndarray, gains_grade: np.ndarray
               ) -> pd.DataFrame:
    _, _, gflag, dflag, _, prm = m.request()
    gain_text, discount_text = _gain_discount(m)
    ranks = np.arange(1, len(grades) + 1)
    gain = np.array([K.gain_value(float(x), float(r), gflag, 0.0)
                     for x, r in zip(gains_grade, rel, strict=True)])
    disc = np.array([K.discount(int(i), dflag, prm) for i in ranks])
    contrib = gain * disc
    return pd.DataFrame({"i": ranks, "grade": grades.astype(float),
                         f"gain={gain_text}": gain, f"discount={discount_text}": disc,
                         "contribution": contrib, "cumulative": np.cumsum(contrib)})


def _worked(m: Any, g: np.ndarray, rel: np.ndarray, grade: np.ndarray, igrade: np.ndarray,
            nominal: int, n_rel: int, num: float, den: float, value: float
            ) -> tuple[pd.DataFrame, pd.DataFrame | None, list[str]]:
    at = f"@{m.k}" if m.k else ""
    if isinstance(m, (NDCG, DCG, CG, ARHR, RankScore)):
        table = _dcg_table(m, g, rel, grade)
        name = {CG: "CG", ARHR: "ARHR"}.get(type(m), "DCG")
        lines = [sum_line(f"{name}{at}", table["contribution"], num)]
        ideal_table = None
        if isinstance(m, (NDCG, RankScore)):
            uncut = m.k is None or getattr(m, "ideal", "truth") == "truth_uncut"
            icut = len(igrade) if uncut else min(nominal, len(igrade))
            src = igrade[:icut]
            ideal_table = _dcg_table(m, src, src > 0, src)
            label = "max" if isinstance(m, RankScore) else f"IDCG{at}"
            lines.append(sum_line(label, ideal_table["contribution"], den))
            lines.append(f"{m.label} = {fmt(num)} / {fmt(den)} = {value:.6g}")
        return table, ideal_table, lines
    ranks = np.arange(1, len(g) + 1)
    hits = np.cumsum(rel)
    table = pd.DataFrame({"i": ranks, "grade": g.astype(float), "relevant": rel.astype(int),
                          "hits": hits})
    h = int(hits[-1]) if len(hits) else 0
    if isinstance(m, AveragePrecision):
        prec = hits / ranks
        table["P@i"] = prec
        every = m.positions == "all"
        table["P@i" if every else "rel*P@i"] = prec if every else np.where(rel, prec, 0.0)
        denominator = "relevant" if (m.k is None and m.denominator == "min_k_relevant") \
            else m.denominator
        dname = AP_DENOMINATOR_TEXT[denominator].format(k=nominal, r=n_rel, n=len(g))
        summed = "sum P@i over i <= k" if every else "sum rel_i*P@i"
        terms = table["P@i"] if every else table["rel*P@i"][rel]
        return table, None, [sum_line(summed, terms, num), f"D = {dname} = {fmt(den)}",
                             f"{m.label} = {fmt(num)} / {fmt(den)} = {value:.6g}"]
    if isinstance(m, ReciprocalRank):
        first = np.flatnonzero(rel)
        return table, None, [f"first relevant item at rank {first[0] + 1}: RR = "
                             f"1/{first[0] + 1} = {value:.6g}" if len(first) else
                             f"no relevant item within {nominal}: RR = 0"]
    if isinstance(m, AUC):  # each relevant item: the non-relevant items ranked below it
        table["misses below"] = np.where(rel, (len(g) - ranks) - (h - hits), 0)
        return table, None, [f"{m.label} = correct pairs / (|P| |N|) = {fmt(num)} / "
                             f"{fmt(den)} = {value:.6g}"]
    if isinstance(m, Precision):
        what = "k" if m.denominator == "k" else "min(k, n)"
        return table, None, [f"{m.label} = hits / {what} = {h} / {fmt(den)} = {value:.6g}"]
    if isinstance(m, Recall):
        what = "|R|" if m.denominator == "relevant" else "min(k, |R|)"
        return table, None, [f"{m.label} = hits / {what} = {h} / {fmt(den)} = {value:.6g}"]
    if isinstance(m, FBeta):
        return table, None, [f"P = {h}/{nominal}, R = {h}/{n_rel}",
                             f"{m.label} = (1+b^2) hits / (b^2 |R| + k) = {fmt(num)} / "
                             f"{fmt(den)} = {value:.6g}"]
    if isinstance(m, HitRate):
        return table, None, [f"{m.label} = 1[hits > 0] = {value:.6g}"]
    return table, None, [f"{m.label} = {fmt(num)} / {fmt(den)} = {value:.6g}"]
