"""``compare`` and ``compare_folds``: systems in, :class:`Comparison` out."""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from receval._columns import Columns
from receval._names import clean_name
from receval._result import EvaluationResult
from receval.exceptions import DataWarning, InvalidParameterError, UnknownMetricError, warn
from receval.metrics import Metric, parse
from receval.stats._analysis import analyse
from receval.stats._comparison import Comparison
from receval.stats._corrections import correction_of
from receval.stats._coverage import COVERAGES, common_truth, fill_label, prediction_coverage
from receval.stats._paired import TESTS
from receval.stats._signed_rank import METHODS
from receval.stats._values import SystemValues, concat_folds, pair_users, values_of

__all__ = ["compare", "compare_folds"]

_USERS = ("common", "union")

#: Recorded evaluation settings that change metric values (``result.settings[key]``);
#: the others (columns, partitions, counts of dropped rows, strict, progress) do not.
DEFINING_SETTINGS = ("convention", "convention_overrides", "relevance_threshold", "ties",
                     "no_relevant", "missing_recs", "missing_predictions",
                     "recs_without_truth", "truth_scope", "score_precision",
                     "negative_grades", "duplicates", "id_cast")


def _options(test: Any, correction: Any, alpha: Any, confidence: Any, n_resamples: Any,
             seed: Any, users: Any, method: Any) -> str | None:
    """Check every option of a comparison before any work; the normalised correction."""
    if test not in TESTS:
        raise InvalidParameterError(
            f"test must be one of {', '.join(map(repr, TESTS))}; got {test!r}",
            parameter="test", examples=[test])
    if method not in METHODS:
        raise InvalidParameterError(
            f"method must be one of {', '.join(map(repr, METHODS))}; got {method!r}",
            parameter="method", examples=[method])
    if method != "auto" and test != "wilcoxon":
        raise InvalidParameterError(
            f"method={method!r} chooses the null distribution of test='wilcoxon'; "
            f"test={test!r} takes method='auto'", parameter="method", examples=[method])
    correction = correction_of(correction)
    for name, value in (("alpha", alpha), ("confidence", confidence)):
        if not (isinstance(value, numbers.Real) and not isinstance(value, bool)
                and 0.0 < float(value) < 1.0):
            raise InvalidParameterError(
                f"{name} must be a number strictly between 0 and 1; got {value!r}",
                parameter=name, examples=[value])
    for name, value, low in (("n_resamples", n_resamples, 1), ("seed", seed, 0)):
        if not (isinstance(value, numbers.Integral) and not isinstance(value, bool)
                and int(value) >= low):
            raise InvalidParameterError(
                f"{name} must be an integer >= {low}; got {value!r}", parameter=name,
                examples=[value])
    if users not in _USERS:
        raise InvalidParameterError(
            f"users must be 'common' (the users every system has a list for) or 'union' "
            f"(every truth user); got {users!r}", parameter="users", examples=[users])
    return correction


def _entries(systems: Any, parameter: str, baseline: Any) -> list[tuple[str, Any]]:
    """``(name, system)`` in the given order, from a mapping or a sequence of pairs.

    Names are the keys' ``str()``; two systems whose names are equal (repeated pairs, or
    keys such as ``1`` and ``'1'``) are an error naming the name, never one system lost.
    """
    if isinstance(systems, Mapping):
        pairs = list(systems.items())
    elif isinstance(systems, Sequence) and not isinstance(systems, (str, bytes)) and all(
            isinstance(p, tuple) and len(p) == 2 for p in systems):
        pairs = list(systems)
    else:
        raise InvalidParameterError(
            f"{parameter} must be a mapping from system name to its recommendations or "
            f"EvaluationResult, e.g. {{'knn': recs_a, 'pop': recs_b}}, or a list of "
            f"(name, system) pairs; got {type(systems).__name__}", parameter=parameter)
    names = [clean_name(k, what="system", parameter=parameter) for k, _ in pairs]
    if len(names) < 2:
        raise InvalidParameterError(
            f"{parameter} must hold at least two systems to compare; got {len(names)} "
            f"({names})", parameter=parameter, examples=names)
    seen: dict[str, list[Any]] = {}
    for name, (key, _) in zip(names, pairs, strict=True):
        seen.setdefault(name, []).append(key)
    repeated = {name: keys for name, keys in seen.items() if len(keys) > 1}
    if repeated:
        shown = "; ".join(f"{name!r} {len(keys)} times (keys {', '.join(map(repr, keys))})"
                          for name, keys in list(repeated.items())[:5])
        raise InvalidParameterError(
            f"{parameter} names two systems alike: {shown}; every system needs its own name "
            f"(one would hide the other)", parameter=parameter, n_bad=len(repeated),
            examples=list(repeated))
    if baseline is not None and str(baseline) not in names:
        raise InvalidParameterError(
            f"baseline must name one of the systems {names}; got {baseline!r}",
            parameter="baseline", examples=[baseline])
    return [(name, system) for name, (_, system) in zip(names, pairs, strict=True)]


def _labels(named: Sequence[tuple[str, int | None, EvaluationResult]], metrics: Any
            ) -> list[str]:
    """Canonical labels of the requested metrics (all of the first result's by default).

    ``named`` holds (system, fold or None, result).

    Raises
    ------
    UnknownMetricError
        A metric one of the results lacks, naming that system (and fold).
    """
    from receval._evaluate import metric_list

    first = named[0]
    if metrics is None:
        labels = first[2].labels
    else:
        items = metric_list(metrics)
        labels = []
        for m in items:
            label = _label_of(first, m, None)
            labels += [label] if label not in labels else []
    for entry in named:
        for label in labels:
            _label_of(entry, label, None if metrics is not None else first)
    return labels


def _defining(ev: EvaluationResult, labels: Sequence[str]) -> dict[str, Any]:
    """The recorded settings of ``ev`` that change the values of ``labels``."""
    s = ev.settings or {}
    out = {key: s[key] for key in DEFINING_SETTINGS if key in s}
    beyond = s.get("beyond") or {}
    if "item_features_missing" in beyond:
        out["item_features_missing"] = beyond["item_features_missing"]
    for label in labels:
        if label in (s.get("metrics") or {}):
            out[f"metrics[{label!r}]"] = s["metrics"][label]
    return out


def _warn_settings(named: Sequence[tuple[str, int | None, EvaluationResult]],
                   labels: Sequence[str]) -> None:
    """A :class:`DataWarning` when the results were evaluated under different settings.

    The paired tests would then compare different definitions of a metric (relevance at
    another threshold, another tie policy, ...). Settings recorded by one result only are
    not compared.
    """
    first = _defining(named[0][2], labels)
    differ: dict[str, list[str]] = {}
    for entry in named[1:]:
        other = _defining(entry[2], labels)
        for key in first.keys() & other.keys():
            if first[key] != other[key]:
                differ.setdefault(key, []).append(f"{_where(entry)} = {other[key]!r}")
    if differ:
        shown = "; ".join(f"{key}: {_where(named[0])} = {first[key]!r}, {', '.join(rest[:4])}"
                          + (f" and {len(rest) - 4} more" if len(rest) > 4 else "")
                          for key, rest in differ.items())
        warn(f"the results were evaluated under different settings ({shown}): the paired "
             f"tests compare different definitions of the metrics; evaluate every system "
             f"with the same options", DataWarning)


def _where(entry: tuple[str, int | None, EvaluationResult]) -> str:
    return f"system {entry[0]!r}" + ("" if entry[1] is None else f" (fold {entry[1]})")


def _label_of(entry: tuple[str, int | None, EvaluationResult], metric: Any,
              source: tuple[str, int | None, EvaluationResult] | None) -> str:
    """The result's label of ``metric``, or an error naming the system that lacks it."""
    ev = entry[2]
    try:
        return ev._label(metric)
    except UnknownMetricError as exc:
        text = metric.label if isinstance(metric, Metric) else str(metric)
        why = f" (a metric of {_where(source)}, whose metrics are compared by default)" \
            if source is not None else ""
        raise UnknownMetricError(
            f"{_where(entry)} has no metric {text!r}{why}; it has {ev.labels}: compare "
            f"results of the same metrics, or pass metrics= with the ones they share",
            parameter="metrics", examples=[entry[0], text]) from exc


def _merge(parts: list[SystemValues]) -> SystemValues:
    frame = pd.concat([p.frame for p in parts], axis=1) if len(parts) > 1 else parts[0].frame
    out = SystemValues(frame, {}, parts[0].lacking, {})
    for p in parts:
        out.terms.update(p.terms)
        out.aggregates.update(p.aggregates)
    return out


def _from_tables(systems: Mapping[str, Any], truth: Any, metrics: Any, coverage: str,
                 options: dict[str, Any]
                 ) -> tuple[dict[str, SystemValues], list[str], dict[str, Metric],
                            pd.DataFrame | None]:
    """Evaluate every system (``rv.evaluate``), rating metrics in one or two readings."""
    from receval._evaluate import evaluate, metric_list

    if truth is None:
        raise InvalidParameterError("truth is needed to compare recommendation tables",
                                    parameter="truth")
    if metrics is None:
        raise InvalidParameterError("metrics is needed to compare recommendation tables, "
                                    "e.g. ['ndcg@10', 'map@10']", parameter="metrics")
    items = metric_list(metrics)
    rating = [m for m in items if (m if isinstance(m, Metric) else parse(m)).family == "rating"]
    other = [m for m in items if m not in rating]
    fill = options.get("missing_predictions")
    fill = "global_mean" if fill in (None, "error", "skip") and coverage != "common" else fill
    readings: list[tuple[str, Any, Any]] = []
    cov = None
    if rating:
        cov, mask = prediction_coverage(systems, truth, Columns.coerce(options.get("columns")))
        if coverage in ("both", "common"):
            readings.append(("common", common_truth(truth, mask), "error"))
        if coverage in ("both", "fill"):
            readings.append((f"fill={fill_label(fill)}", truth, fill))
    values, labels, objs = {}, [], {}
    for name, recs in systems.items():
        parts = []
        if other:
            ev = evaluate(recs, truth, other, **options)
            parts.append(values_of(ev, ev.labels))
            labels += [x for x in ev.labels if x not in labels]
            objs.update({x: ev.summaries[x].metric for x in ev.labels})
        for tag, reading_truth, policy in readings:
            ev = evaluate(recs, reading_truth, rating,
                          **{**options, "missing_predictions": policy})
            rename = {x: f"{x} [{tag}]" for x in ev.labels}
            part = values_of(ev, ev.labels, rename)
            if other:
                part.lacking = parts[0].lacking
            else:
                part.lacking = pd.Index([])
            parts.append(part)
            labels += [x for x in rename.values() if x not in labels]
            objs.update({rename[x]: ev.summaries[x].metric for x in ev.labels})
        values[name] = _merge(parts)
    return values, labels, objs, cov


def compare(systems: Mapping[str, Any] | Sequence[tuple[Any, Any]], truth: Any = None,
            metrics: Any = None, *, test: str = "t", correction: str | None = None,
            baseline: str | None = None, alpha: float = 0.05, confidence: float = 0.95,
            n_resamples: int = 10_000, seed: int = 0, users: str = "common",
            coverage: str = "both", method: str = "auto",
            **evaluate_options: Any) -> Comparison:
    """Compare systems on per-user values: means, bootstrap intervals, paired tests.

    Parameters
    ----------
    systems : mapping or list of (name, system) pairs
        System name -> its recommendations (any table :func:`receval.evaluate` reads) or
        its :class:`~receval.EvaluationResult` (all of one kind). Names are compared as
        ``str(name)``; two systems of the same name are an error. Tables are evaluated with
        :func:`receval.evaluate` against ``truth``; results give their per-user values.
    truth : table, optional
        The held-out interactions (needed with tables).
    metrics : str or list, optional
        Metric names; with results, a subset of their labels (default: all of them).
    test : {"t", "wilcoxon", "sign", "permutation", "bootstrap"}
        The paired test of every (metric, pair): paired t (default), Wilcoxon signed-rank
        (by default ``scipy.stats.wilcoxon(d)``'s p-value), sign, paired permutation (sign
        flips; exact when ``2 ** n_users <= n_resamples``), paired bootstrap over users.
    correction : {None, "none", "bonferroni", "holm", "bh"}
        Multiple-comparison correction over every test of the call (all metrics x all
        pairs): none (``None`` or ``"none"``, recorded as ``None``), Bonferroni, Holm's
        step-down, Benjamini-Hochberg. Tests that cannot be run (NaN p-value) are left out.
    baseline : str, optional
        Test each other system against this one only (rows ``system_a`` = the other,
        ``system_b`` = the baseline); by default every pair.
    alpha : float
        Significance level, in (0, 1): ``significant = p_adjusted < alpha``.
    confidence : float
        Level of the bootstrap intervals, in (0, 1).
    n_resamples : int
        Bootstrap resamples for the intervals and the bootstrap test, and sign patterns for
        the permutation test (>= 1).
    seed : int
        Seed of every random draw; the same seed gives the same numbers in any process.
    users : {"common", "union"}
        ``"common"``: the users every system has a list for; ``"union"``: every truth user,
        a missing list scored by the metrics' missing-recs policy (``missing_recs=``). The
        result counts the truth users each system lacks (``cmp.users``).
    coverage : {"both", "common", "fill"}
        Rating metrics of tables (seed 003): on the truth pairs every system predicts
        (``'<label> [common]'``), with the missing predictions filled by
        ``missing_predictions`` (``'global_mean'`` by default, or a number;
        ``'<label> [fill=global_mean]'``), or both side by side.
    method : {"auto", "exact", "asymptotic"}
        The null distribution of ``test="wilcoxon"`` (other tests take ``"auto"``):
        ``"auto"`` is SciPy's default choice (``scipy.stats.wilcoxon(d)``), ``"asymptotic"``
        the normal approximation with the tie correction, ``"exact"`` the exact conditional
        null given the tied ranks (every sign pattern; ``O(n^3)`` in the non-zero
        differences). See ``docs/statistics.md``.
    **evaluate_options
        Passed to every :func:`receval.evaluate` call (``convention``, ``columns``, ...).

    Returns
    -------
    Comparison

    Raises
    ------
    InvalidParameterError
        An unknown test, correction, users, coverage or method; alpha or confidence outside
        (0, 1); n_resamples < 1; fewer than two systems; two systems of the same name; a
        baseline that is not a system; an empty ``metrics``.
    UnknownMetricError
        Results that lack a requested metric (or, without ``metrics``, one of the first
        result's), naming the system.
    EmptyInputError
        A metric has per-user values and the systems have no user in common (counting the
        users each system has a list for).

    Warns
    -----
    DataWarning
        EvaluationResults evaluated under different settings that change metric values
        (``relevance_threshold``, ``ties``, ``no_relevant``, a metric's parameters, ...),
        naming the systems and the settings: the tests would compare different definitions.
        Settings that do not change values (columns, partitions) are not compared.
    UndefinedMetricWarning
        Tests with too few users (none; one for the t and bootstrap tests): their statistic,
        effect size and p-value are NaN, left out of the correction.

    Notes
    -----
    Metrics without per-user values (global or group metrics) are not tested: the table
    shows each system's value and ``settings["not_tested"]`` lists them, also when they are
    the only metrics of the call.
    """
    correction = _options(test, correction, alpha, confidence, n_resamples, seed, users,
                          method)
    _check_evaluate_options(evaluate_options)
    named = _entries(systems, "systems", baseline)
    if coverage not in COVERAGES:
        raise InvalidParameterError(
            f"coverage must be one of {', '.join(map(repr, COVERAGES))}; got {coverage!r}",
            parameter="coverage", examples=[coverage])
    kinds = {isinstance(v, EvaluationResult) for _, v in named}
    if len(kinds) > 1:
        raise InvalidParameterError(
            "systems mixes EvaluationResults and recommendation tables: give all of one kind",
            parameter="systems")
    cov = None
    if kinds == {True}:
        given = (["truth"] if truth is not None else []) + sorted(evaluate_options)
        if given:
            raise InvalidParameterError(
                f"systems are EvaluationResults, whose values were fixed when each was "
                f"evaluated: {', '.join(given)} would be ignored; evaluate again with them, or "
                f"pass the recommendation tables", parameter=given[0], examples=given)
        labels = _labels([(n, None, ev) for n, ev in named], metrics)
        _warn_settings([(n, None, ev) for n, ev in named], labels)
        values = {n: values_of(ev, labels) for n, ev in named}
        objs = {x: named[0][1].summaries[x].metric for x in labels}
        evaluation = named[0][1].settings
    else:
        values, labels, objs, cov = _from_tables(dict(named), truth, metrics, coverage,
                                                 evaluate_options)
        evaluation = {k: v for k, v in evaluate_options.items() if k != "columns"}
    return _finish(values, labels, objs, cov, test=test, correction=correction,
                   baseline=None if baseline is None else str(baseline), alpha=alpha,
                   confidence=confidence, n_resamples=n_resamples, seed=seed, users=users,
                   method=method,
                   extra={"coverage": coverage if cov is not None else None,
                          "evaluation": evaluation, "folds": None})


#: :func:`compare`'s own arguments (every other keyword is an option of ``evaluate``).
_OWN = ("systems", "truth", "metrics", "test", "correction", "baseline", "alpha",
        "confidence", "n_resamples", "seed", "users", "coverage", "method")


def _check_evaluate_options(options: Mapping[str, Any]) -> None:
    """Each keyword is an option of :func:`receval.evaluate` (close matches named); flags bools."""
    from receval._evaluate_options import EVALUATE_OPTIONS, check_flags, unknown_keyword

    names = {o.name for o in EVALUATE_OPTIONS}
    for key in options:
        if key not in names:
            raise unknown_keyword("compare", key, own=_OWN, passed_on=True)
    check_flags(options)


def compare_folds(results: Mapping[str, Sequence[EvaluationResult]]
                  | Sequence[tuple[Any, Sequence[EvaluationResult]]], *,
                  metrics: Any = None, test: str = "t", correction: str | None = None,
                  baseline: str | None = None, alpha: float = 0.05,
                  confidence: float = 0.95, n_resamples: int = 10_000, seed: int = 0,
                  users: str = "common", method: str = "auto") -> Comparison:
    """Compare systems over the folds of a cross-validation, users paired within each fold.

    Parameters
    ----------
    results : mapping or list of (name, results) pairs
        System name -> its EvaluationResults, one per fold, in the same fold order for
        every system. A user of fold f is paired with the same user of fold f only; the
        tests and intervals run over every (fold, user).
    metrics, test, correction, baseline, alpha, confidence, n_resamples, seed, users, method
        As in :func:`compare`.

    Returns
    -------
    Comparison
        Means over every (fold, user): for a macro metric the mean of the per-user values,
        for a micro metric the ratio pooled over the folds.


    Warns
    -----
    DataWarning
        Results (of any system or fold) evaluated under different settings that change
        metric values, as in :func:`compare`.
    """
    correction = _options(test, correction, alpha, confidence, n_resamples, seed, users,
                          method)
    named = _entries(results, "results", baseline)
    folds = {name: list(f) for name, f in named}
    n_folds = {n: len(f) for n, f in folds.items()}
    if len(set(n_folds.values())) != 1 or 0 in n_folds.values():
        raise InvalidParameterError(
            f"results must give every system the same number of folds (at least one); got "
            f"{n_folds}", parameter="results")
    bad = [(n, type(ev).__name__) for n, f in folds.items() for ev in f
           if not isinstance(ev, EvaluationResult)]
    if bad:
        raise InvalidParameterError(
            f"results must hold EvaluationResults; got {bad[:5]}", parameter="results",
            examples=bad)
    flat = [(n, i, ev) for n, f in folds.items() for i, ev in enumerate(f)]
    labels = _labels(flat, metrics)
    _warn_settings(flat, labels)
    values = {n: concat_folds([values_of(ev, labels) for ev in f]) for n, f in folds.items()}
    first = flat[0][2]
    objs = {x: first.summaries[x].metric for x in labels}
    return _finish(values, labels, objs, None, test=test, correction=correction,
                   baseline=None if baseline is None else str(baseline), alpha=alpha,
                   confidence=confidence, n_resamples=n_resamples, seed=seed, users=users,
                   method=method,
                   extra={"coverage": None, "evaluation": first.settings,
                          "folds": n_folds[named[0][0]]})


def _finish(values: dict[str, SystemValues], labels: list[str], objs: dict[str, Metric],
            cov: pd.DataFrame | None, *, test: str, correction: str | None,
            baseline: str | None, alpha: float, confidence: float, n_resamples: int,
            seed: int, users: str, method: str, extra: dict[str, Any]) -> Comparison:
    paired = pair_users(values, labels, objs, users)
    higher = {x: bool(objs[x].higher_is_better) for x in labels}
    res = analyse(paired, higher, test=test, correction=correction, baseline=baseline,
                  alpha=float(alpha), confidence=float(confidence),
                  n_resamples=int(n_resamples), seed=int(seed), method=method)
    means = res.means
    untested = [x for x in labels if x not in paired.labels]
    for x in untested:  # global metrics: each system's own aggregate, no test
        means[x] = [values[s].aggregates.get(x, float("nan")) for s in means.index]
    means = means[[x for x in labels if x in means.columns]]
    users_frame = pd.DataFrame({
        "users": [len(v.frame) for v in values.values()],
        "lacking": [paired.lacking[s] for s in values],
        "compared": [len(paired.users)] * len(values)},
        index=pd.Index(list(values), name="system"))
    settings = {"test": test, "method": method if test == "wilcoxon" else None,
                "correction": correction, "baseline": baseline,
                "alpha": float(alpha), "confidence": float(confidence),
                "n_resamples": int(n_resamples), "seed": int(seed), "users": users,
                "ci_method": "percentile",
                "n_tests": int(res.tests["p_value"].notna().sum()),  # the correction's m
                "permutation_exact": res.exact if test == "permutation" else None,
                "users_per_metric": paired.n_users, "not_tested": untested, **extra}
    per_user = {"values": {name: {"frame": v.frame, "terms": v.terms}
                           for name, v in values.items()},
                "metrics": {x: objs[x] for x in paired.labels},
                "compared": {x: paired.users[paired.mask[:, j]]
                             for j, x in enumerate(paired.labels)}}
    return Comparison(list(values), means, res.ci, res.tests, res.friedman, res.nemenyi,
                      users_frame, cov, settings, higher, per_user)
