"""From paired per-user values to means, intervals, tests and the Friedman table."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd

from receval.exceptions import UndefinedMetricWarning, warn
from receval.stats import _paired as P
from receval.stats._corrections import adjust
from receval.stats._friedman import friedman
from receval.stats._resample import bootstrap_sums
from receval.stats._values import Paired

__all__ = ["RANK_TESTS", "Analysis", "analyse", "pairs_of"]

#: Tests on ranks or signs: for micro metrics they compare the per-user ratios, while the
#: mean-based tests compare the linearised values whose mean is the micro aggregate.
RANK_TESTS = ("wilcoxon", "sign")

#: Users a test needs (a variance needs two differences; the others are exact from one).
MIN_USERS = {"t": 2, "bootstrap": 2, "wilcoxon": 1, "sign": 1, "permutation": 1}


@dataclass
class Analysis:
    """Everything a :class:`~receval.stats.Comparison` shows, as frames."""

    means: pd.DataFrame
    ci: pd.DataFrame
    tests: pd.DataFrame
    friedman: pd.DataFrame | None
    nemenyi: pd.DataFrame | None
    exact: bool


def pairs_of(names: list[str], baseline: str | None) -> list[tuple[str, str]]:
    """Every unordered pair in the given order, or (other, baseline) for each other system."""
    if baseline is None:
        return list(combinations(names, 2))
    return [(s, baseline) for s in names if s != baseline]


def _run_test(test: str, d: np.ndarray, mask: np.ndarray, resampled: np.ndarray,
              n_resamples: int, seed: int, confidence: float, method: str
              ) -> tuple[P.PairedResult, bool]:
    if test == "t":
        return P.t_test(d, mask), False
    if test == "wilcoxon":
        return P.wilcoxon_test(d, mask, method), False
    if test == "sign":
        return P.sign_test(d, mask), False
    if test == "permutation":
        return P.permutation_test(d, mask, n_resamples, seed)
    return P.bootstrap_test(d, mask, resampled, confidence), False


def analyse(paired: Paired, higher: dict[str, bool], *, test: str, correction: str | None,
            baseline: str | None, alpha: float, confidence: float, n_resamples: int,
            seed: int, method: str = "auto") -> Analysis:
    """Means, percentile bootstrap intervals, paired tests with correction, Friedman."""
    names = list(paired.x)
    labels, mask = paired.labels, paired.mask
    m = len(labels)
    if m == 0:  # only global metrics: each system's value, no interval and no test
        return _nothing_to_test(names)
    count = mask.sum(axis=0).astype(np.float64)
    # as every aggregate of evaluate: exact means, pooled ratios for micro metrics
    means = pd.DataFrame({label: [paired.mean(s, j) for s in names]
                          for j, label in enumerate(labels)}, index=pd.Index(names,
                                                                              name="system"))
    # one bootstrap: the same resampled users for every system, metric and test
    # (a metric every user has: the resampled count is n, no column needed)
    partial = np.flatnonzero(~mask.all(axis=0))
    y = np.hstack([paired.x[s] for s in names] + [mask[:, partial].astype(np.float64)])
    sums = bootstrap_sums(y, n_resamples, seed)
    counts = np.full((n_resamples, m), float(len(mask)))
    counts[:, partial] = sums[:, len(names) * m:]
    with np.errstate(invalid="ignore", divide="ignore"):
        boot = {s: sums[:, i * m:(i + 1) * m] / counts for i, s in enumerate(names)}
    rows = []
    for s in names:
        low, high = P.percentile_interval(boot[s], confidence)
        for j, label in enumerate(labels):
            rows.append({"system": s, "metric": label, "mean": means.loc[s, label],
                         "low": low[j], "high": high[j], "n_users": int(count[j])})
    ci = pd.DataFrame(rows).set_index(["system", "metric"])
    pairs = pairs_of(names, baseline)
    cols = [(a, b, j) for j in range(m) for a, b in pairs]
    d = np.column_stack([paired.x[a][:, j] - paired.x[b][:, j] for a, b, j in cols]) \
        if cols else np.zeros((len(paired.users), 0))
    dmask = np.column_stack([mask[:, j] for _, _, j in cols]) if cols else d.astype(bool)
    resampled = np.column_stack([boot[a][:, j] - boot[b][:, j] for a, b, j in cols]) \
        if cols else np.zeros((n_resamples, 0))
    if test in RANK_TESTS:  # rank tests compare the per-user values themselves
        d = np.column_stack([paired.raw[a][:, j] - paired.raw[b][:, j] for a, b, j in cols]) \
            if cols else d
    result, exact = _run_test(test, d, dmask, resampled, n_resamples, seed, confidence,
                              method)
    _warn_undefined(test, [(labels[j], int(count[j])) for _, _, j in cols], result.p_value)
    p_adj = adjust(result.p_value, correction)
    tests = pd.DataFrame({
        "metric": [labels[j] for _, _, j in cols], "system_a": [a for a, _, _ in cols],
        "system_b": [b for _, b, _ in cols],
        "mean_a": [means.loc[a, labels[j]] for a, _, j in cols],
        "mean_b": [means.loc[b, labels[j]] for _, b, j in cols]})
    tests["diff"] = tests["mean_a"] - tests["mean_b"]
    tests["effect_size"] = result.effect_size
    tests["statistic"] = result.statistic
    tests["p_value"] = result.p_value
    tests["p_adjusted"] = p_adj
    tests["significant"] = p_adj < alpha
    if result.ci_low is not None and result.ci_high is not None:
        tests["ci_low"] = result.ci_low
        tests["ci_high"] = result.ci_high
    tests["n_users"] = [int(count[j]) for _, _, j in cols]
    fr, nem = _friedman_tables(paired, higher) if len(names) > 2 else (None, None)
    return Analysis(means, ci, tests, fr, nem, exact)


def _nothing_to_test(names: list[str]) -> Analysis:
    """The empty tables of a comparison without a metric with per-user values."""
    means = pd.DataFrame(index=pd.Index(names, name="system"))
    ci = pd.DataFrame(columns=["mean", "low", "high", "n_users"],
                      index=pd.MultiIndex.from_arrays([[], []], names=["system", "metric"]))
    tests = pd.DataFrame(columns=["metric", "system_a", "system_b", "mean_a", "mean_b", "diff",
                                  "effect_size", "statistic", "p_value", "p_adjusted",
                                  "significant", "n_users"])
    return Analysis(means, ci, tests, None, None, False)


def _warn_undefined(test: str, columns: list[tuple[str, int]], p: np.ndarray) -> None:
    """One :class:`UndefinedMetricWarning` naming the metrics whose tests have too few users."""
    from receval._names import TEST_NAMES

    short = dict.fromkeys(label for (label, _), pj in zip(columns, p, strict=True)
                          if np.isnan(pj))
    if not short:
        return
    counts = dict(columns)
    need = MIN_USERS[test]
    shown = ", ".join(f"{label} ({counts[label]} user{'s' if counts[label] != 1 else ''})"
                      for label in short)
    warn(f"no {TEST_NAMES[test]} for {shown}: a test needs at least {need} user"
         f"{'s' if need > 1 else ''} with a value under every system; its statistic, effect "
         f"size and p-value are NaN, never significant, and left out of the correction",
         UndefinedMetricWarning)


def _friedman_tables(paired: Paired, higher: dict[str, bool]
                     ) -> tuple[pd.DataFrame, pd.DataFrame]:
    rows, pairs = [], []
    for j, label in enumerate(paired.labels):
        keep = paired.mask[:, j]
        row, nem = friedman({s: v[keep, j] for s, v in paired.raw.items()}, label,
                            higher[label])
        rows.append(row)
        pairs.extend(nem)
    return pd.DataFrame(rows), pd.DataFrame(pairs)
