"""Propensity-weighted ranking metrics (IPS / SNIPS), part of the ranking family.

The weight of a relevant item is ``1 / P_i`` (clipped at ``max_weight``): from training
popularity (Yang et al. 2018 eq. 15, gamma fitted when not given), from
``evaluate(propensities=...)`` or RecPack's ``n_i / sum n``. The weighted lists are the
ranked lists with each relevant position's gain multiplied by its item's weight, and the
ideal gains re-sorted; the compiled ranking kernel then computes weighted sums (recall's
``sum w``, DCG's ``sum w g d``, nDCG's ratio to the weighted ideal), two small kernels the
weighted AP and AUC, and each estimator divides by the user's count or weight of relevant
items. Diagnostics (Kish's effective sample size, the largest weight's share, clipped and
absent weights) add up exactly over partitions.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from receval._aggregate import Column
from receval._engine._families._base import Context, FamilyPartial
from receval._engine._families._per_list import side_of
from receval._engine._families._side import Side
from receval._exact import ExactSum
from receval._kernels import ordering as O
from receval._kernels import ranking as RK
from receval.data import RankedLists
from receval.exceptions import DataError, InvalidParameterError, format_examples

__all__ = ["fitted_gamma", "ranking_sums", "weighted_column", "weighted_settings"]


def fitted_gamma(counts: np.ndarray) -> float:
    """The discrete power-law exponent of the items' training counts (Clauset et al. 2009).

    ``gamma = 1 + N / sum_i ln(n_i / (x_min - 1/2))`` over the ``N`` items with
    ``n_i >= x_min = 1``: receval's estimator of Yang et al.'s gamma (their fitting
    procedure is not in their released code), reported in ``settings``.
    """
    n = counts[counts >= 1]
    if len(n) == 0:
        return float("nan")
    return float(1.0 + len(n) / np.sum(np.log(n / 0.5)))


def _weights(m: Any, ctx: Context, side: Side) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """Per item code: the weight 1 / P (unclipped), whether it has one, and the settings."""
    model, gamma = m.propensity_spec()
    info: dict[str, Any] = {"propensity": model}
    if model == "column":
        table = ctx.opts.side.propensities
        if table is None:
            raise InvalidParameterError(
                f"{m.label} reads evaluate(propensities=...): a table (item, propensity), a "
                f"mapping or a Series item -> propensity in (0, 1]", parameter="propensities")
        rows = table.ids.get_indexer(side.items)
        has = rows >= 0
        p = np.where(has, table.values[np.maximum(rows, 0)], 1.0)
    else:
        if ctx.opts.side.train is None:
            raise InvalidParameterError(
                f"{m.label} estimates propensities from training popularity: it needs "
                f"evaluate(train=...), or propensity='column' with propensities=",
                parameter="train")
        n = side.pop_rows
        has = n > 0
        if model == "recpack":
            p = n / max(float(side.n_train_rows), 1.0)
        else:
            if gamma is None:
                gamma = fitted_gamma(ctx.opts.side.train.pop_rows)
                info["gamma_fitted"] = gamma
            info["gamma"] = gamma
            p = _popularity(n, has, float(gamma))
    with np.errstate(divide="ignore"):  # an underflowed P: an infinite weight, checked later
        w = np.divide(1.0, p, out=np.zeros(len(p)), where=has)
    return w, has, info


def _popularity(n: np.ndarray, has: np.ndarray, gamma: float) -> np.ndarray:
    """Yang et al.'s ``(n_i / max_j n_j)^((gamma + 1) / 2)`` for items with ``n_i > 0``.

    Items without a count keep ``P = 1`` (``has`` sets them aside, and ``0 ** x`` is never
    computed). The metric's parse refused ``gamma < -1``; a propensity that underflows to 0
    gets an infinite weight, which :func:`_check_weights` refuses unless ``max_weight``
    clips it.
    """
    p = np.ones(len(n))
    with np.errstate(under="ignore"):
        p[has] = (n[has] / max(float(n.max(initial=0.0)), 1.0)) ** ((gamma + 1.0) / 2.0)
    return p


#: Largest weight ``1 / P`` receval sums: the squares (Kish's effective sample size) of
#: larger ones overflow float64 over a few items.
MAX_WEIGHT = 1e100


def _check_weights(m: Any, w: np.ndarray, items: np.ndarray, ids: pd.Index,
                   model: str) -> None:
    """Refuse weights above :data:`MAX_WEIGHT` (or infinite) on the items the metric sums."""
    bad = np.unique(items[~(w[items] <= MAX_WEIGHT)])
    if not len(bad):
        return
    ex = list(ids[bad[:5]])
    cause = ("a larger gamma makes (n_i / max_j n_j)^((gamma + 1) / 2) underflow; use a "
             "smaller gamma or " if model == "popularity" else "")
    raise InvalidParameterError(
        f"{m.label}: {len(bad)} relevant items have a weight 1 / P_i above {MAX_WEIGHT:g} "
        f"(propensity below {1 / MAX_WEIGHT:g}, or 0), e.g. "
        f"{format_examples(ex, len(bad))}: sums of such weights overflow; {cause}pass "
        f"max_weight= to clip them", parameter="propensity" if model != "column"
        else "propensities", n_bad=len(bad), examples=ex)


def _gains(m: Any, grade: np.ndarray) -> np.ndarray:
    """The metric's gain of each relevant grade (1 for metrics without a gain)."""
    gain = getattr(m, "gain", "binary")
    if gain == "linear":
        return grade
    if gain in ("exponential", "shifted_exponential"):
        return np.exp2(grade) - 1.0
    return np.ones(len(grade))


def _weighted_lists(m: Any, ctx: Context, lists: RankedLists, w: np.ndarray,
                    usable: np.ndarray) -> tuple[RankedLists, np.ndarray]:
    """Every user's lists with gains ``g_i w_i`` and the weighted ideal; ``sum w`` per user."""
    data = ctx.data
    rel = (lists.rel > 0) & usable[lists.item]
    grade = np.where(rel, _gains(m, lists.grade) * w[lists.item], 0.0)
    t_rel = data.t_rel & usable[data.t_item]
    t_w = w[data.t_item[t_rel]]
    ideal_values = _gains(m, data.t_grade[t_rel]) * t_w
    codes = data.t_user[t_rel]
    off = np.searchsorted(codes, np.arange(data.n_users + 1)).astype(np.int64)
    total = np.bincount(codes, weights=t_w, minlength=data.n_users)
    out = dataclasses.replace(lists, grade=grade, rel=rel.astype(np.uint8),
                              n_rel=np.diff(off), ideal_starts=off[:-1], ideal_ends=off[1:],
                              ideal_grade=O.sort_groups_desc(off, ideal_values))
    return out, total


def _request(kind: int, k: int, disc: int, variant: int) -> tuple[Any, ...]:
    return (kind, k, RK.GAIN_LINEAR, disc, variant, 0.0)


def ranking_sums(lists: RankedLists, requests: Sequence[tuple[Any, ...]]
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The ranking kernel's numerators and denominators (users x requests).

    The one call of :func:`receval._kernels.ranking.ranking_kernel`, for the plain lists of
    the ranking family and for the weighted lists here (linear gains: the weighted gains).
    """
    req = np.array(requests, dtype=np.float64)
    num = np.zeros((lists.n_users, len(requests)))
    den = np.zeros((lists.n_users, len(requests)))
    RK.ranking_kernel(
        lists.starts, lists.ends, lists.grade, lists.rel, lists.n_rel, lists.ideal_starts,
        lists.ideal_ends, lists.ideal_grade, lists.block_start, lists.block_end,
        req[:, 0].astype(np.int64), req[:, 1].astype(np.int64), req[:, 2].astype(np.int64),
        req[:, 3].astype(np.int64), req[:, 4].astype(np.int64),
        np.ascontiguousarray(req[:, 5]), num, den)  # a column: one layout, one compile
    return num, den


def _discount(m: Any) -> int:
    from receval.metrics._ranking import _DISCOUNTS

    return _DISCOUNTS[getattr(m, "discount", "log2")]


def _terms(m: Any, lists: RankedLists, total: np.ndarray, n: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray]:
    """A user's weighted numerator and the estimator's denominator (before pooling)."""
    k = m.k or 0
    kk = np.minimum(n, k) if k else n
    ideal = RK.IDEAL_TRUTH if (k and getattr(m, "denominator", "relevant") in (
        "min_k_relevant",)) else RK.IDEAL_TRUTH_UNCUT
    if m.name == "ndcg":
        num, den = ranking_sums(lists, [(RK.NDCG, k, RK.GAIN_LINEAR, _discount(m),
                                  {"truth": RK.IDEAL_TRUTH, "truth_uncut":
                                   RK.IDEAL_TRUTH_UNCUT}[m.ideal], 0.0)])
        return num[:, 0], den[:, 0]
    if m.name == "dcg":
        num, _ = ranking_sums(lists, [_request(RK.DCG, k, _discount(m), 0)])
        if m.estimator == "ips":
            return num[:, 0], np.ones(len(n))
        return num[:, 0] * n, total
    if m.name == "auc":
        a, b, c = np.zeros(len(n)), np.zeros(len(n)), np.zeros(len(n), dtype=np.int64)
        RK.weighted_auc_sums(lists.starts, lists.ends, lists.rel, lists.grade, a, b, c)
        return a, np.where(c > 0, b if m.estimator == "snips" else c.astype(float), 0.0)
    if m.name == "ap":
        num = np.zeros(len(n))
        RK.weighted_ap_sums(lists.starts, lists.ends, lists.rel, lists.grade, k, num)
    else:  # recall, hit rate: the weights of the hits
        num = ranking_sums(lists, [_request(RK.DCG, k, RK.DISC_NONE, 0)])[0][:, 0]
    if m.name == "hit_rate" and m.estimator == "ips":
        return num, np.ones(len(n))  # RecPack's IPSHitRateK: a sum, not a mean
    if m.estimator == "ips":
        return num, (kk if ideal == RK.IDEAL_TRUTH else n).astype(np.float64)
    if ideal == RK.IDEAL_TRUTH:  # the weights of the min(k, |R|) heaviest relevant items
        return num, ranking_sums(lists, [_request(RK.NDCG, k, RK.DISC_NONE, ideal)])[1][:, 0]
    return num, total


def weighted_column(m: Any, ctx: Context, lists_all: RankedLists, codes: np.ndarray
                    ) -> tuple[Column, np.ndarray, dict[str, Any]]:
    """One weighted metric over the evaluated users.

    Returns its column, the users with no positive left (left out) and the partition's
    diagnostics.
    """
    data = ctx.data
    side = side_of(ctx)
    w, has, info = _weights(m, ctx, side)
    positive = data.t_rel.copy()
    chosen = np.zeros(data.n_users, dtype=bool)
    chosen[codes] = True
    positive &= chosen[data.t_user]
    lacking = positive & ~has[data.t_item]
    if m.absent == "error" and lacking.any():
        bad = pd.unique(side.items[data.t_item[lacking]])
        raise DataError(
            f"{m.label}: {len(bad)} relevant items have no propensity (e.g. "
            f"{format_examples(list(bad[:5]), len(bad))}); pass absent='skip', 'zero' or "
            f"'cap'", parameter="absent", n_bad=len(bad), examples=list(bad[:5]))
    usable = has.copy()
    if m.absent in ("zero", "cap"):
        w = np.where(has, w, 0.0 if m.absent == "zero" else m.max_weight)
        usable[:] = True
    clipped = positive & usable[data.t_item] & (w[data.t_item] > (m.max_weight or np.inf))
    if m.max_weight is not None:
        w = np.minimum(w, m.max_weight)
    _check_weights(m, w, data.t_item[positive & usable[data.t_item]], side.items,
                   info["propensity"])
    lists, total = _weighted_lists(m, ctx, lists_all, w, usable)
    lists = lists.select(codes)
    n = lists.n_rel.astype(np.float64)
    num, den = _terms(m, lists, total[codes], n)
    drop = n == 0
    pooled = m.normalize == "pooled" or getattr(m, "aggregation", "macro") == "micro"
    if m.normalize == "pooled":
        num, den = num / np.maximum(n, 1.0), den / np.maximum(n, 1.0)
    values = np.full(len(num), 0.0 if m.undefined_is_zero else np.nan)
    np.divide(num, den, out=values, where=den > 0)
    ids = data.user_ids[codes]
    column = Column(ids, values, num.copy(), den.copy()) if pooled else Column(ids, values)
    pw = w[data.t_item[positive & usable[data.t_item]]]
    state = {**info, "sum_w": ExactSum.of(pw), "sum_w2": ExactSum.of(pw * pw),
             "max_w": float(pw.max(initial=0.0)), "positives": len(pw),
             "clipped": int(clipped.sum()), "absent": int(lacking.sum())}
    return column, drop, state


def weighted_settings(parts: Sequence[FamilyPartial], labels: Sequence[str]
                      ) -> dict[str, Any]:
    """The ``settings["propensity"]`` entry: each weighted metric's diagnostics."""
    out: dict[str, Any] = {}
    for label in labels:
        got = [p.state["weights"][label] for p in parts if label in p.state.get("weights", {})]
        if not got:
            continue
        s = sum((g["sum_w"] for g in got), ExactSum())
        s2 = sum((g["sum_w2"] for g in got), ExactSum())
        total, total2 = s.value(), s2.value()
        out[label] = {
            **{k: v for k, v in got[0].items()
               if k in ("propensity", "gamma", "gamma_fitted")},
            "positives": sum(g["positives"] for g in got),
            "absent": sum(g["absent"] for g in got),
            "clipped": sum(g["clipped"] for g in got),
            "effective_sample_size": total * total / total2 if total2 > 0 else float("nan"),
            "largest_weight_share": max(g["max_w"] for g in got) / total if total > 0
            else float("nan"),
        }
    return out
