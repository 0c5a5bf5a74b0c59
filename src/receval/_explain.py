"""``explain``: a metric on one ranked list of grades, with the worked table of a textbook."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from receval._kernels import ranking as K
from receval.exceptions import InvalidGradeError, InvalidParameterError, NonFiniteValueError
from receval.metrics import (
    ARHR,
    CG,
    DCG,
    BeyondMetric,
    Metric,
    RankingMetric,
    RankScore,
    ReciprocalRank,
    parse,
)

__all__ = ["Explanation", "explain"]


@dataclass(frozen=True)
class Explanation:
    """A metric's value on one list and the arithmetic behind it.

    Attributes
    ----------
    metric : Metric
        The metric explained.
    value : float
        Its value, computed by the same kernel as :func:`receval.evaluate`.
    table : pandas.DataFrame
        One row per rank within the cutoff: grade, relevance, gain, discount, contribution
        (and running hits / precision where the metric uses them).
    ideal_table : pandas.DataFrame or None
        The same for the ideal ordering (nDCG, rank score).
    numerator, denominator : float
        The two terms whose ratio is the value.
    lines : tuple of str
        The closing arithmetic, one line per step.
    """

    metric: Metric
    grades: tuple[float, ...]
    value: float
    table: pd.DataFrame
    ideal_table: pd.DataFrame | None
    numerator: float
    denominator: float
    lines: tuple[str, ...]

    def __float__(self) -> float:
        return self.value

    def __str__(self) -> str:
        parts = [f"{self.metric.label} of grades {_fmt_list(self.grades)}", "",
                 _render(self.table)]
        if self.ideal_table is not None:
            parts += ["", "ideal ordering:", _render(self.ideal_table)]
        parts += ["", *self.lines]
        return "\n".join(parts)

    def __repr__(self) -> str:
        return f"Explanation({self.metric.label}={self.value:.6g})"

    def _repr_html_(self) -> str:
        html = f"<p><b>{self.metric.label}</b> = {self.value:.6g}</p>"
        html += self.table.to_html(index=False)
        if self.ideal_table is not None:
            html += "<p>ideal ordering</p>" + self.ideal_table.to_html(index=False)
        return html + "<pre>" + "\n".join(self.lines) + "</pre>"


def _fmt(x: float) -> str:
    return f"{x:.4g}" if abs(x) < 1e4 else f"{x:.6g}"


def _fmt_list(xs: Sequence[float]) -> str:
    return "[" + ", ".join(_fmt(float(x)) for x in xs) + "]"


def _render(frame: pd.DataFrame) -> str:
    from tabulate import tabulate

    rows = [[_fmt(v) if isinstance(v, float) else v for v in row]
            for row in frame.itertuples(index=False)]
    return str(tabulate(rows, headers=list(frame.columns), tablefmt="simple",
                        disable_numparse=True, stralign="right"))


def _grades(values: Sequence[float], name: str) -> np.ndarray:
    arr = np.asarray(values, dtype=np.float64)
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


def explain(metric: str | Metric, grades: Sequence[float],
            ideal: Sequence[float] | None = None, *,
            relevance_threshold: float | None = None, train: Any = None,
            item_features: Any = None) -> Explanation:
    """Compute a ranking metric on one list of grades and show the arithmetic.

    Parameters
    ----------
    metric : str or Metric
        A ranking metric, e.g. ``"ndcg@6"`` or ``"ap(denominator=relevant)@10"``.
    grades : sequence of float
        The grade (relevance) of each recommended item, best-ranked first; 0 = not relevant.
    ideal : sequence of float, optional
        The grades of all the user's judged items (recommended or not), for the ideal
        ordering and the number of relevant items; by default the list itself.
    relevance_threshold : float, optional
        Grades ``>=`` this are relevant (default: every positive grade).
    train, item_features : table, optional
        For novelty, popularity and diversity: ``grades`` is then the list of item ids
        and the table shows each item's self-information or popularity, or every pair's
        dissimilarity (:func:`receval._explain_beyond.explain_list`).

    Returns
    -------
    Explanation
        ``.value``, ``.table`` and ``str()`` for the worked table.

    Examples
    --------
    >>> round(explain("ndcg@6", [3, 2, 3, 0, 1, 2]).value, 3)
    0.961
    """
    m = parse(metric)
    if isinstance(m, BeyondMetric):
        from receval._explain_beyond import explain_list

        return explain_list(m, grades, train=train, item_features=item_features)
    if not isinstance(m, RankingMetric):
        raise InvalidParameterError(
            f"explain works on ranking metrics; {m.label} is a {m.family} metric",
            parameter="metric")
    g = _grades(grades, "grades")
    ideal_arr = g if ideal is None else _grades(ideal, "ideal")
    t = relevance_threshold
    rel = (g >= t) if t is not None else (g > 0)
    irel = (ideal_arr >= t) if t is not None else (ideal_arr > 0)
    grade = np.where(rel, g, 0.0)
    igrade = np.sort(ideal_arr[irel])[::-1].copy()
    n_rel = int(irel.sum())

    kind, k, gflag, dflag, variant, prm = m.request()
    num = np.zeros((1, 1))
    den = np.zeros((1, 1))
    empty = np.empty(0, dtype=np.int64)
    K.ranking_kernel(
        np.array([0]), np.array([len(g)]), grade, rel.astype(np.uint8), np.array([n_rel]),
        np.array([0]), np.array([len(igrade)]), igrade, empty, empty,
        np.array([kind]), np.array([k]), np.array([gflag]), np.array([dflag]),
        np.array([variant]), np.array([prm]), num, den)
    n, d = float(num[0, 0]), float(den[0, 0])
    value = n / d if d > 0 else 0.0
    cut = min(k or len(g), len(g))
    nominal = k or len(g)
    if getattr(m, "ideal", "truth") == "list":  # the whole list reordered, then cut
        igrade = np.sort(grade)[::-1].copy()
    table, ideal_table, lines = _worked(m, g[:cut], rel[:cut], grade[:cut], igrade, nominal,
                                        n_rel, n, d, value)
    return Explanation(m, tuple(float(x) for x in g), value, table, ideal_table, n, d,
                       tuple(lines))


def _disc_name(dflag: int, prm: float) -> str:
    return {K.DISC_LOG2: "1/log2(i+1)", K.DISC_BREESE: "1/max(1,log2 i)",
            K.DISC_HALFLIFE: f"2^(-(i-1)/{_fmt(prm)})", K.DISC_RECIPROCAL: "1/i",
            K.DISC_NONE: "1", K.DISC_LN: "1/ln(i+1)"}[dflag]


def _gain_name(gflag: int) -> str:
    return {K.GAIN_LINEAR: "grade", K.GAIN_EXPONENTIAL: "2^grade-1",
            K.GAIN_BINARY: "rel"}[gflag]


def _dcg_table(grades: np.ndarray, rel: np.ndarray, gains_grade: np.ndarray, gflag: int,
               dflag: int, prm: float) -> pd.DataFrame:
    ranks = np.arange(1, len(grades) + 1)
    gain = np.array([K.gain_value(float(x), float(r), gflag, 0.0)
                     for x, r in zip(gains_grade, rel, strict=True)])
    disc = np.array([K.discount(int(i), dflag, prm) for i in ranks])
    contrib = gain * disc
    return pd.DataFrame({"i": ranks, "grade": grades.astype(float),
                         f"gain={_gain_name(gflag)}": gain,
                         f"discount={_disc_name(dflag, prm)}": disc,
                         "contribution": contrib, "cumulative": np.cumsum(contrib)})


def _sum_line(name: str, contrib: Iterable[float], total: float) -> str:
    terms = " + ".join(_fmt(float(c)) for c in contrib) or "0"
    return f"{name} = {terms} = {_fmt(total)}"


def _worked(m: RankingMetric, g: np.ndarray, rel: np.ndarray, grade: np.ndarray,
            igrade: np.ndarray, nominal: int, n_rel: int, num: float, den: float,
            value: float) -> tuple[pd.DataFrame, pd.DataFrame | None, list[str]]:
    kind, _, gflag, dflag, variant, prm = m.request()
    at = f"@{m.k}" if m.k else ""
    ranks = np.arange(1, len(g) + 1)
    if kind in (K.DCG, K.NDCG):
        table = _dcg_table(g, rel, grade, gflag, dflag, prm)
        name = {CG: "CG", DCG: "DCG", ARHR: "ARHR"}.get(type(m), "DCG")
        lines = [_sum_line(f"{name}{at}", table["contribution"], num)]
        ideal_table = None
        if kind == K.NDCG:
            src = igrade
            uncut = m.k is None or getattr(m, "ideal", "truth") == "truth_uncut"
            icut = len(src) if uncut else min(nominal, len(src))
            ideal_table = _dcg_table(src[:icut], src[:icut] > 0, src[:icut], gflag, dflag, prm)
            label = "max" if isinstance(m, RankScore) else f"IDCG{at}"
            lines.append(_sum_line(label, ideal_table["contribution"], den))
            lines.append(f"{m.label} = {_fmt(num)} / {_fmt(den)} = {value:.6g}")
        return table, ideal_table, lines
    hits = np.cumsum(rel)
    table = pd.DataFrame({"i": ranks, "grade": g.astype(float), "relevant": rel.astype(int),
                          "hits": hits})
    if kind == K.AP:
        prec = hits / ranks
        table["P@i"] = prec
        table["rel*P@i"] = np.where(rel, prec, 0.0)
        dname = {0: f"min(k={nominal}, |R|={n_rel})", 1: f"|R|={n_rel}", 2: "hits",
                 3: f"min(|R|={n_rel}, n={len(g)})", 4: f"k={nominal}"}[variant]
        lines = [_sum_line("sum rel_i*P@i", table["rel*P@i"][rel], num),
                 f"D = {dname} = {_fmt(den)}",
                 f"{m.label} = {_fmt(num)} / {_fmt(den)} = {value:.6g}"]
        return table, None, lines
    if isinstance(m, ReciprocalRank):
        first = np.flatnonzero(rel)
        lines = [f"first relevant item at rank {first[0] + 1}: RR = 1/{first[0] + 1} = "
                 f"{value:.6g}" if len(first) else f"no relevant item within {nominal}: RR = 0"]
        return table, None, lines
    h = int(hits[-1]) if len(hits) else 0
    if kind == K.AUC:  # each relevant item: the non-relevant items ranked below it
        table["misses below"] = np.where(rel, (len(g) - ranks) - (h - hits), 0)
        return table, None, [f"{m.label} = correct pairs / (|P| |N|) = {_fmt(num)} / "
                             f"{_fmt(den)} = {value:.6g}"]
    if kind == K.PRECISION:
        what = "k" if variant == K.P_K else "min(k, n)"
        lines = [f"{m.label} = hits / {what} = {h} / {_fmt(den)} = {value:.6g}"]
    elif kind == K.RECALL:
        what = "|R|" if variant == K.R_RELEVANT else "min(k, |R|)"
        lines = [f"{m.label} = hits / {what} = {h} / {_fmt(den)} = {value:.6g}"]
    elif kind == K.FBETA:
        lines = [f"P = {h}/{nominal}, R = {h}/{n_rel}",
                 f"{m.label} = (1+b^2) hits / (b^2 |R| + k) = {_fmt(num)} / {_fmt(den)} = "
                 f"{value:.6g}"]
    else:  # hit rate
        lines = [f"{m.label} = 1[hits > 0] = {value:.6g}"]
    return table, None, lines

