r"""User-side fairness: how a metric differs between groups of users, with intervals and tests.

For a metric with per-user values and user groups ``g`` with aggregates ``mu_g`` (each
group's value as ``evaluate`` aggregates it: the mean of its users' values, or the pooled
ratio of a micro metric), a summary of the gaps:

* ``max_gap``: ``max_g mu_g - min_g mu_g``;
* ``ratio``: ``min_g mu_g / max_g mu_g``;
* ``mad``: the mean over pairs of groups of ``|mu_a - mu_b|`` (Elliot's UserMADranking with
  the metric of one's choice; with two groups it is ``max_gap``);
* ``cv``: ``std(mu_g) / mean(mu_g)`` (population standard deviation, as RSP);
* ``gini``: the Gini index of the per-user values,
  ``sum_j (2j - n - 1) x_(j) / (n sum_j x_j)`` (groups only select the users).

Intervals are percentile bootstrap intervals that resample users **within each group**
(group sizes fixed), drawn from ``numpy.random.default_rng([seed, 2, g])`` for group ``g``,
so the same seed gives the same interval in any process. :func:`disparity_tests` compares
two systems' disparities paired by user (the same draws for both), with the paired
bootstrap test's p-value ``(1 + #{|D* - D| >= |D|}) / (B + 1)`` and the call's correction
over every test. This module reads results by their attributes and imports none of the
result classes, so that ``EvaluationResult.disparity`` and ``Comparison.disparity`` can call
it.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from receval._aggregate import Column, aggregate
from receval._by_group import as_groups, check_group_ids
from receval.exceptions import (
    EmptyInputError,
    InvalidParameterError,
    UndefinedMetricWarning,
    UnknownMetricError,
    warn,
)
from receval.stats._corrections import adjust, correction_of
from receval.stats._paired import _extreme, percentile_interval

__all__ = ["SUMMARIES", "Disparity", "disparity", "disparity_tests"]

#: Accepted values of ``summary``.
SUMMARIES = ("max_gap", "ratio", "mad", "cv", "gini")
#: Why a summary is NaN (the warning of :func:`disparity_tests`).
_UNDEFINED = {"ratio": "ratio = min / max of the group values, undefined when the largest is 0",
              "cv": "cv = std / mean of the group values, undefined when the mean is 0",
              "": "a group value is undefined"}
_BLOCK = 64
_STREAM = 2


@dataclass(frozen=True)
class Disparity:
    """Disparities of metrics between user groups, with bootstrap intervals.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per metric: ``value`` (the summary), ``low`` and ``high`` (its percentile
        bootstrap interval), ``n_users`` (users with a value and a group), ``n_groups``,
        ``without_group`` (users of the metric left out: no group).
    groups : pandas.DataFrame
        One row per (metric, group): the group's aggregate ``value`` (as ``ev.by``), its
        percentile bootstrap interval ``low``, ``high`` (the same draws) and ``n_users``.
    settings : dict
        The summary, confidence, number of resamples, seed and interval method.
    """

    table: pd.DataFrame
    groups: pd.DataFrame = field(repr=False)
    settings: dict[str, Any] = field(repr=False)


@dataclass
class _Values:
    """One metric's per-user terms (value, or numerator and denominator) of one system."""

    metric: Any
    users: pd.Index
    num: np.ndarray
    den: np.ndarray
    values: np.ndarray
    micro: bool


def _values_of(ev: Any, label: str) -> _Values:
    """A result's per-user values of one metric (duck-typed EvaluationResult)."""
    per_user = ev._pandas_per_user("disparity(groups)")
    if label not in per_user.columns:
        raise InvalidParameterError(
            f"{label} has no per-user values (one value for all lists): its disparity "
            f"between user groups is not defined; its groups are in ev.groups(label)",
            parameter="metrics", examples=[label])
    return _system_values({"frame": per_user, "terms": ev._terms},
                          ev.summaries[label].metric, label)


def _check(summary: Any, confidence: Any, n_resamples: Any, seed: Any) -> None:
    if summary not in SUMMARIES:
        raise InvalidParameterError(
            f"summary must be one of {', '.join(map(repr, SUMMARIES))}; got {summary!r}",
            parameter="summary", examples=[summary])
    if not (isinstance(confidence, numbers.Real) and not isinstance(confidence, bool)
            and 0.0 < float(confidence) < 1.0):
        raise InvalidParameterError(
            f"confidence must be a number strictly between 0 and 1; got {confidence!r}",
            parameter="confidence", examples=[confidence])
    for name, value, low in (("n_resamples", n_resamples, 1), ("seed", seed, 0)):
        if not (isinstance(value, numbers.Integral) and not isinstance(value, bool)
                and int(value) >= low):
            raise InvalidParameterError(f"{name} must be an integer >= {low}; got {value!r}",
                                        parameter=name, examples=[value])


def _user_ids(users: pd.Index) -> pd.Index:
    """The user ids of per-user rows: the last level of a fold comparison's (fold, user)."""
    return users.get_level_values(-1) if isinstance(users, pd.MultiIndex) else users


def _groups(groups: Any, users: pd.Index, where: str) -> pd.Series:
    """``groups`` as a Series whose keys are checked as ``ev.by`` checks them.

    Raises
    ------
    IdTypeMismatchError
        Keys of another type than the user ids of ``where`` (or of several types).
    InvalidParameterError
        Not a mapping or a Series; a user given two groups.
    """
    series = as_groups(groups)
    check_group_ids(series, _user_ids(users), "user", where)
    return series.dropna()


def _summary(name: str, mu: np.ndarray) -> np.ndarray:
    """The summary of the group aggregates ``mu`` (last axis: groups)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        if name == "max_gap":
            return np.max(mu, axis=-1) - np.min(mu, axis=-1)
        if name == "ratio":
            top = np.max(mu, axis=-1)
            return np.where(top > 0, np.min(mu, axis=-1) / top, np.nan)
        if name == "mad":
            pairs = list(combinations(range(mu.shape[-1]), 2))
            return np.mean([np.abs(mu[..., a] - mu[..., b]) for a, b in pairs], axis=0)
        mean = np.mean(mu, axis=-1)
        return np.where(mean != 0, np.std(mu, axis=-1) / mean, np.nan)


def _gini(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Gini of the multiset with counts ``w`` (rows: resamples) of ascending ``x``.

    Item ``i`` takes the ``w_i`` places after ``P_i = sum_{k<i} w_k``, whose ``2j - n - 1``
    add up to ``w_i (2 P_i + w_i - n)``.
    """
    n = w.sum(axis=-1, keepdims=True)
    p = np.cumsum(w, axis=-1) - w
    total = (w * x).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (x * w * (2 * p + w - n)).sum(axis=-1) / (n[..., 0] * total)


@dataclass
class _Layout:
    """Users sorted by group: group ``g`` is rows ``starts[g]:ends[g]``."""

    users: pd.Index
    names: list[Any]
    starts: np.ndarray
    ends: np.ndarray


def _layout(users: pd.Index, groups: pd.Series) -> _Layout:
    g = groups.reindex(_user_ids(users))
    present = g.notna().to_numpy()
    have = users[present]
    codes, names = pd.factorize(g.to_numpy()[present], sort=True) if len(have) else (
        np.empty(0, dtype=np.int64), np.empty(0))
    order = np.argsort(codes, kind="stable")
    sizes = np.bincount(codes, minlength=len(names))
    ends = np.cumsum(sizes)
    return _Layout(have[order], list(names), ends - sizes, ends)


def _draws(layout: _Layout, n_resamples: int, seed: int) -> Iterator[np.ndarray]:
    """Blocks of bootstrap counts (resamples x users), users resampled within groups."""
    rngs = [np.random.default_rng([seed, _STREAM, g]) for g in range(len(layout.names))]
    n = int(layout.ends[-1]) if len(layout.ends) else 0
    done = 0
    while done < n_resamples:
        size = min(_BLOCK, n_resamples - done)
        counts = np.zeros((size, n))
        for g, rng in enumerate(rngs):
            a, b = int(layout.starts[g]), int(layout.ends[g])
            draws = rng.integers(a, b, size=(size, b - a))
            flat = (np.arange(size)[:, None] * n + draws).ravel()
            counts += np.bincount(flat, minlength=size * n).reshape(size, n)
        yield counts
        done += size


def _terms(v: _Values, users: pd.Index) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    pos = v.users.get_indexer(users)
    return v.num[pos], v.den[pos], v.values[pos]


def _observed(v: _Values, layout: _Layout, users: pd.Index, summary: str
              ) -> tuple[float, list[float]]:
    """The summary and group aggregates, with the engine's aggregate (as ``ev.by``)."""
    num, den, values = _terms(v, users)
    mu = []
    for a, b in zip(layout.starts, layout.ends, strict=True):
        col = Column(users[a:b], values[a:b], num[a:b] if v.micro else None,
                     den[a:b] if v.micro else None)
        mu.append(aggregate(v.metric, col.sums()))
    if summary == "gini":
        x = np.sort(values)
        return float(_gini(x, np.ones(len(x)))), mu
    return float(_summary(summary, np.array(mu))), mu


def _group_values(counts: np.ndarray, v: _Values, num: np.ndarray, den: np.ndarray,
                  layout: _Layout) -> np.ndarray:
    """Each group's aggregate in each resample of a block (resamples x groups)."""
    mu = np.empty((len(counts), len(layout.names)))
    for g, (a, b) in enumerate(zip(layout.starts, layout.ends, strict=True)):
        c = counts[:, a:b]
        with np.errstate(invalid="ignore", divide="ignore"):
            ratio = (c @ num[a:b]) / (c @ den[a:b])
        mu[:, g] = v.metric.finalize(ratio) if v.micro else ratio
    return mu


def _resampled(systems: Sequence[_Values], layout: _Layout, users: pd.Index, summary: str,
               n_resamples: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Every system's summary in every resample (resamples x systems), joint draws.

    Also the first system's group aggregates in every resample (resamples x groups).
    """
    terms = [_terms(v, users) for v in systems]
    out = np.empty((n_resamples, len(systems)))
    groups = np.empty((n_resamples, len(layout.names)))
    order = [np.argsort(t[2], kind="stable") for t in terms]
    row = 0
    for counts in _draws(layout, n_resamples, seed):
        rows = slice(row, row + len(counts))
        for s, (v, (num, den, values)) in enumerate(zip(systems, terms, strict=True)):
            mu = _group_values(counts, v, num, den, layout)
            if s == 0:
                groups[rows] = mu
            if summary == "gini":
                out[rows, s] = _gini(values[order[s]], counts[:, order[s]])
            else:
                out[rows, s] = _summary(summary, mu)
        row += len(counts)
    return out, groups


def _labels(ev: Any, metrics: Any) -> list[str]:
    per_user = ev._pandas_per_user("disparity(groups)")
    if metrics is None:
        return [x for x in ev.labels if x in per_user.columns]
    items = [metrics] if isinstance(metrics, str) or not isinstance(metrics, Sequence) \
        else list(metrics)
    return list(dict.fromkeys(ev._label(m) for m in items))


def _common(systems: Sequence[_Values], groups: pd.Series,
            compared: pd.Index | None = None) -> tuple[_Layout, int]:
    """The users with a value under every system (and among ``compared``), by group.

    ``compared``: the users a comparison tests the metric on (``users='common'`` leaves out
    those a system has no list for, though ``missing_recs`` gave them a value).
    """
    users = systems[0].users
    for v in systems[1:]:
        users = users.intersection(v.users, sort=False)
    if compared is not None:
        users = users.intersection(compared, sort=False)
    layout = _layout(users, groups)
    if len(layout.names) < 2:
        raise EmptyInputError(
            f"disparity compares user groups and the users with a value fall in "
            f"{len(layout.names)} group(s) {layout.names}: give groups covering at least two "
            f"groups of the evaluated users", parameter="groups")
    return layout, len(users) - len(layout.users)


def disparity(ev: Any, groups: Any, metrics: Any = None, *, summary: str = "max_gap",
              confidence: float = 0.95, n_resamples: int = 10_000, seed: int = 0
              ) -> Disparity:
    """The disparity of each metric between user groups, with a bootstrap interval.

    Parameters
    ----------
    ev : EvaluationResult
    groups : mapping or pandas.Series
        User id -> group. Users of the result without a group are left out (counted in
        ``without_group``).
    metrics : str or list, optional
        Labels of metrics with per-user values (default: all of them).
    summary : {"max_gap", "ratio", "mad", "cv", "gini"}
        See the module docstring.
    confidence : float
        Level of the percentile bootstrap interval.
    n_resamples : int
        Bootstrap resamples (users within each group).
    seed : int
        Seed of the draws (``numpy.random.default_rng([seed, 2, g])`` per group).

    Returns
    -------
    Disparity
    """
    _check(summary, confidence, n_resamples, seed)
    series = _groups(groups, ev._pandas_per_user("disparity(groups)").index, "the result")
    rows: dict[str, dict[str, Any]] = {}
    means: list[dict[str, Any]] = []
    for label in _labels(ev, metrics):
        v = _values_of(ev, label)
        layout, lost = _common([v], series)
        value, mu = _observed(v, layout, layout.users, summary)
        boot, group_boot = _resampled([v], layout, layout.users, summary, int(n_resamples),
                                      int(seed))
        low, high = percentile_interval(boot, float(confidence))
        g_low, g_high = percentile_interval(group_boot, float(confidence))
        rows[label] = {"value": value, "low": float(low[0]), "high": float(high[0]),
                       "n_users": len(layout.users), "n_groups": len(layout.names),
                       "without_group": lost}
        means += [{"metric": label, "group": g, "value": m, "low": float(lo),
                   "high": float(hi), "n_users": int(b - a)}
                  for g, m, lo, hi, a, b in zip(layout.names, mu, g_low, g_high,
                                                layout.starts, layout.ends, strict=True)]
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "metric"
    by = pd.DataFrame(means, columns=["metric", "group", "value", "low", "high", "n_users"]
                      ).set_index(["metric", "group"])
    return Disparity(table, by, {"summary": summary, "confidence": float(confidence),
                                 "n_resamples": int(n_resamples), "seed": int(seed),
                                 "ci_method": "percentile, users resampled within groups"})


def disparity_tests(values: Mapping[str, Mapping[str, Any]], metrics: Mapping[str, Any],
                    groups: Any, labels: Sequence[str], *, summary: str = "max_gap",
                    baseline: str | None = None, correction: str | None = None,
                    alpha: float = 0.05, confidence: float = 0.95, n_resamples: int = 10_000,
                    seed: int = 0, compared: Mapping[str, pd.Index] | None = None
                    ) -> pd.DataFrame:
    """Test whether systems differ in a disparity, paired by user.

    ``values``: system -> {"frame": per-user values (users x labels), "terms": label ->
    (users, num, den)} (a comparison's per-user values). For each metric and pair of systems
    (or each system against ``baseline``), the users every system has a value for (and, with
    ``compared``, label -> users, among the comparison's users of that metric, those of its
    tests' ``n_users``) are resampled within their groups, the same draws for both systems;
    ``D = S_a - S_b``. When a summary is undefined for a system (``ratio`` or ``cv`` of
    group values that are all 0), ``D`` is NaN: its p-value is NaN, never significant, left
    out of the correction, and an :class:`~receval.exceptions.UndefinedMetricWarning` names
    the metric and the systems.

    Returns
    -------
    pandas.DataFrame
        One row per metric and pair: ``metric``, ``system_a``, ``system_b``, ``value_a``,
        ``value_b``, ``diff``, ``ci_low``, ``ci_high`` (percentile interval of ``D``),
        ``p_value``, ``p_adjusted`` (``correction`` over every row), ``significant``
        (``p_adjusted < alpha``), ``n_users``.
    """
    _check(summary, confidence, n_resamples, seed)
    correction = correction_of(correction)
    names = list(values)
    series = _groups(groups, values[names[0]]["frame"].index, "the comparison")
    pairs = [(a, baseline) for a in names if a != baseline] if baseline is not None \
        else list(combinations(names, 2))
    rows, undefined = [], []
    for label in labels:
        if label not in metrics:
            raise UnknownMetricError(f"{label!r} is not a compared metric with per-user "
                                     f"values; they are {sorted(metrics)}",
                                     parameter="metrics", examples=[label])
        systems = [_system_values(values[s], metrics[label], label) for s in names]
        layout, _ = _common(systems, series, None if compared is None else compared[label])
        observed = [_observed(v, layout, layout.users, summary)[0] for v in systems]
        boot, _ = _resampled(systems, layout, layout.users, summary, int(n_resamples),
                             int(seed))
        for a, b in pairs:
            i, j = names.index(a), names.index(b)
            d = observed[i] - observed[j]
            resampled = (boot[:, i] - boot[:, j])[:, None]
            count = _extreme(np.nan_to_num(resampled - d), np.array([d]))[0]
            p = 1.0 if d == 0 else min(1.0, (count + 1.0) / (len(boot) + 1.0))
            if np.isnan(d):  # a summary undefined for a system: no test
                p = math.nan
                undefined.append(f"{label} ({a} {observed[i]:.4g} vs {b} {observed[j]:.4g})")
            low, high = percentile_interval(resampled, float(confidence))
            rows.append({"metric": label, "system_a": a, "system_b": b,
                         "value_a": observed[i], "value_b": observed[j], "diff": d,
                         "ci_low": float(low[0]), "ci_high": float(high[0]), "p_value": p,
                         "n_users": len(layout.users)})
    if undefined:
        more = f" and {len(undefined) - 5} more" if len(undefined) > 5 else ""
        warn(f"summary={summary!r} is undefined (NaN) for a system in "
             f"{'; '.join(undefined[:5])}{more}: {_UNDEFINED.get(summary, _UNDEFINED[''])}; "
             f"the difference and its p-value are NaN, never significant, and left out of "
             f"the correction", UndefinedMetricWarning)
    out = pd.DataFrame(rows)
    if len(out):
        out.insert(len(out.columns) - 1, "p_adjusted",
                   adjust(out["p_value"].to_numpy(), correction))
        out.insert(len(out.columns) - 1, "significant", out["p_adjusted"] < alpha)
    return out


def _system_values(v: Mapping[str, Any], metric: Any, label: str) -> _Values:
    frame, terms = v["frame"], v["terms"]
    if label in terms:
        users, num, den = terms[label]
        values = frame[label].reindex(users).to_numpy(dtype=np.float64)
        return _Values(metric, users, num, den, values, True)
    col = frame[label].to_numpy(dtype=np.float64)
    keep = ~np.isnan(col)
    return _Values(metric, frame.index[keep], col[keep], np.ones(int(keep.sum())),
                   col[keep], False)
