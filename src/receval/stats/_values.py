"""Per-user values of each system, paired across systems: the input of every test.

A system contributes, per metric label, either per-user values (macro metrics: the mean of
them is the metric) or per-user numerators and denominators (micro metrics: the metric is
``f(sum num / sum den)``). Micro metrics enter the tests through their delta-method
linearisation (Deng, Knoblich & Lu 2018, "Applying the delta method in metric analytics")::

    psi_u = f(R) + f'(R) (num_u - R den_u) / mean(den),   R = sum(num) / sum(den)

whose mean over the users is exactly ``f(R)``, the micro aggregate, and whose variance is
the delta-method variance of ``f(R)``. So every test and interval works on one per-user
column per (system, metric), and the means in the table are the aggregates the way
``evaluate`` defines them, over the compared users.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from receval._aggregate import Column, aggregate
from receval._exact import exact_mean
from receval._result import EvaluationResult
from receval.exceptions import EmptyInputError
from receval.metrics import Metric

__all__ = ["Paired", "SystemValues", "pair_users", "values_of"]


@dataclass
class SystemValues:
    """One system's per-user values (macro) and terms (micro), by label.

    Attributes
    ----------
    frame : pandas.DataFrame
        Per-user values, one column per label (NaN where a metric does not apply).
    terms : dict
        Label -> (users, numerators, denominators) for micro-averaged metrics.
    lacking : pandas.Index
        Truth users this system has no list for.
    aggregates : dict
        Label -> the system's own aggregate, for metrics without per-user values (global).
    """

    frame: pd.DataFrame
    terms: dict[str, tuple[pd.Index, np.ndarray, np.ndarray]] = field(default_factory=dict)
    lacking: pd.Index = field(default_factory=lambda: pd.Index([]))
    aggregates: dict[str, float] = field(default_factory=dict)


def values_of(ev: EvaluationResult, labels: Sequence[str], rename: dict[str, str] | None = None
              ) -> SystemValues:
    """The values of ``labels`` in one result, renamed by ``rename`` (label -> new label)."""
    rename = rename or {}
    per_user = ev._pandas_per_user("comparing systems")
    frame = pd.DataFrame(index=per_user.index)
    terms, aggregates = {}, {}
    for label in labels:
        name = rename.get(label, label)
        if label in ev._terms:
            terms[name] = ev._terms[label]
        if label in per_user.columns:
            frame[name] = per_user[label].to_numpy()
        else:  # a global metric: one number, no per-user values
            aggregates[name] = ev[label]
    return SystemValues(frame, terms, ev.users.missing_recs, aggregates)


def concat_folds(parts: Sequence[SystemValues]) -> SystemValues:
    """One system's values over folds, users keyed by (fold, user)."""
    frame = pd.concat([p.frame for p in parts], keys=range(len(parts)), names=["fold", "user"])
    terms: dict[str, tuple[pd.Index, np.ndarray, np.ndarray]] = {}
    for label in parts[0].terms:
        idx = pd.MultiIndex.from_tuples(
            [(f, u) for f, p in enumerate(parts) for u in p.terms[label][0]],
            names=["fold", "user"])
        terms[label] = (idx, np.concatenate([p.terms[label][1] for p in parts]),
                        np.concatenate([p.terms[label][2] for p in parts]))
    lacking = pd.MultiIndex.from_tuples(
        [(f, u) for f, p in enumerate(parts) for u in p.lacking], names=["fold", "user"])
    aggregates = {k: float(np.mean([p.aggregates[k] for p in parts]))
                  for k in parts[0].aggregates}
    return SystemValues(frame, terms, lacking, aggregates)


@dataclass
class Paired:
    """Every system's values on one set of users, with the users each metric compares.

    ``x[s][:, j]`` is system ``s``'s per-user value of metric ``j`` (0 where ``mask[:, j]``
    is False); ``mask[:, j]`` marks the users where every system has a value of metric j.
    ``raw`` holds the per-user values themselves (for a micro metric the per-user ratio
    ``f(num_u / den_u)`` rather than its linearisation), for the rank-based tests.
    """

    users: pd.Index
    labels: list[str]
    x: dict[str, np.ndarray]
    mask: np.ndarray
    lacking: dict[str, int]
    n_users: dict[str, int]
    raw: dict[str, np.ndarray]
    metrics: dict[str, Metric] = field(default_factory=dict)
    terms: dict[str, dict[str, tuple[np.ndarray, np.ndarray]]] = field(default_factory=dict)

    def mean(self, system: str, j: int) -> float:
        """System's aggregate of metric ``j`` over the compared users, as evaluate's.

        The exactly rounded mean of the per-user values, or for a micro metric
        ``finalize(sum num / sum den)`` (:func:`receval._aggregate.aggregate`), never the
        mean of the linearised values (equal in exact arithmetic, not in floating point).
        """
        label, rows = self.labels[j], self.mask[:, j]
        metric = self.metrics.get(label)
        terms = self.terms.get(system, {}).get(label)
        if metric is None or terms is None:
            return exact_mean(self.x[system][rows, j])
        column = Column(self.users[rows], self.raw[system][rows, j], terms[0][rows],
                        terms[1][rows])
        return aggregate(metric, column.sums())


def _derivative(metric: Metric, r: float) -> float:
    """``f'(R)`` of the metric's finalising function.

    1 for the identity, otherwise a central difference (RMSE's square root).
    """
    if r <= 0:
        return 0.0
    if metric.finalize(r) == r and metric.finalize(2.0 * r) == 2.0 * r:
        return 1.0
    h = 1e-6 * r
    return float((metric.finalize(r + h) - metric.finalize(r - h)) / (2 * h))


def _linearised(metric: Metric, num: np.ndarray, den: np.ndarray, mask: np.ndarray
                ) -> np.ndarray:
    """Delta-method pseudo-values of a micro metric over the masked users."""
    total = float(den[mask].sum())
    if total <= 0:
        return np.zeros(len(num))
    r = float(num[mask].sum()) / total
    mean_den = total / int(mask.sum())
    out = float(metric.finalize(r)) + _derivative(metric, r) * (num - r * den) / mean_den
    return np.where(mask, out, 0.0)


def pair_users(systems: dict[str, SystemValues], labels: Sequence[str],
               metrics: dict[str, Metric], users: str) -> Paired:
    """Pair the systems' users (``users='common'`` or ``'union'``) and build the matrices.

    Metrics without per-user values (global metrics) are not paired. A metric that no
    paired user has a value of under every system is kept with an empty mask column (its
    tests are NaN).

    Raises
    ------
    EmptyInputError
        When some metric has per-user values and the systems have no user in common
        (``parameter='systems'``); the message counts the users each system has a list for
        (not those ``missing_recs`` filled in).
    """
    frames = [s.frame for s in systems.values()]
    if users == "common":
        universe = frames[0].index
        for f in frames[1:]:
            universe = universe.intersection(f.index, sort=False)
        for s in systems.values():
            universe = universe.difference(s.lacking, sort=False)
    else:
        universe = frames[0].index
        for f in frames[1:]:
            universe = universe.union(f.index, sort=False)
    tested = [label for label in labels if label in frames[0].columns]
    mask = np.ones((len(universe), len(tested)), dtype=bool)
    raw: dict[str, np.ndarray] = {}
    for name, s in systems.items():
        v = s.frame.reindex(universe)[tested].to_numpy(dtype=np.float64)
        for j, label in enumerate(tested):
            if label in s.terms:
                present = universe.isin(s.terms[label][0])
                mask[:, j] &= present
            else:
                mask[:, j] &= ~np.isnan(v[:, j])
        raw[name] = v
    if tested and len(universe) == 0:
        sizes = {name: len(s.frame.index.difference(s.lacking)) for name, s in systems.items()}
        raise EmptyInputError(
            f"the systems have no user in common (users={users!r}); users with a list per "
            f"system: {sizes}", parameter="systems")
    x, plain = {}, {}
    terms: dict[str, dict[str, tuple[np.ndarray, np.ndarray]]] = {}
    for name, s in systems.items():
        v = np.where(mask, raw[name], 0.0)
        plain[name] = v.copy()
        terms[name] = {}
        for j, label in enumerate(tested):
            if label in s.terms:
                idx, num, den = s.terms[label]
                pos = idx.get_indexer(universe)
                num_u = np.where(pos >= 0, num[pos], 0.0)
                den_u = np.where(pos >= 0, den[pos], 0.0)
                terms[name][label] = (num_u, den_u)
                v[:, j] = _linearised(metrics[label], num_u, den_u, mask[:, j])
        x[name] = v
    lacking = {name: len(s.lacking) for name, s in systems.items()}
    n_users = {label: int(mask[:, j].sum()) for j, label in enumerate(tested)}
    return Paired(universe, tested, x, mask, lacking, n_users, plain,
                  {label: metrics[label] for label in tested if label in metrics}, terms)


def direction(metric: Any) -> bool:
    """Whether higher values are better."""
    return bool(getattr(metric, "higher_is_better", True))
