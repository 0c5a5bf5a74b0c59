"""Reports of several systems: a comparison (``cmp.report``) and a cross-validation
(``cv.report``). Every number comes from the Comparison or CrossValidation object."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from receval.report._page import Figure, Page, Section, Table, fmt, stamp

__all__ = ["comparison_data", "comparison_page", "cross_validation_page", "folds_data"]


def _letter(i: int) -> str:
    return "abcdefghijklmnopqrstuvwxyz"[i % 26] + (str(i // 26) if i >= 26 else "")


def comparison_data(cmp: Any) -> dict[str, pd.DataFrame]:
    """System x metric tables behind the comparison figure: mean, low, high, marks.

    ``marks`` holds the letters of the systems each one beats significantly (system ``i``
    is the i-th letter), as in the comparison's own tables.
    """
    metrics = list(cmp.means.columns)
    systems = list(cmp.systems)
    means = cmp.means.reindex(index=systems, columns=metrics).astype(float)
    low = pd.DataFrame(np.nan, index=systems, columns=metrics)
    high = low.copy()
    for (system, metric), row in cmp.ci.iterrows():
        if system in low.index and metric in low.columns:
            low.loc[system, metric] = float(row["low"])
            high.loc[system, metric] = float(row["high"])
    marks = pd.DataFrame("", index=systems, columns=metrics)
    for system in systems:
        for metric in metrics:
            marks.loc[system, metric] = "".join(
                _letter(systems.index(s)) for s in cmp.beats(system, metric))
    return {"mean": means, "low": low, "high": high, "marks": marks}


def _settings_table(settings: dict[str, Any], keys: tuple[str, ...], caption: str) -> Table:
    rows = [[k, "none" if settings[k] is None else str(settings[k])] for k in keys
            if k in settings]
    return Table(["setting", "value"], rows, caption=caption)


def comparison_page(cmp: Any, *, title: str | None = None, generated: Any = None) -> Page:
    """The page of a comparison report (see ``Comparison.report``)."""
    from receval.report._figures import comparison_figure
    from receval.report._svg import to_svg

    data = comparison_data(cmp)
    s = cmp.settings
    systems = list(cmp.systems)
    metrics = list(cmp.means.columns)
    what = Section("compared", "What was compared")
    what.p(f"{len(systems)} systems ({', '.join(systems)}) on {len(metrics)} metrics "
           f"({', '.join(metrics)}); users paired by id ({s.get('users', 'common')} users).",
           "lead")
    if getattr(cmp, "users", None) is not None and len(cmp.users):
        frame = cmp.users
        what.table(Table(["system", *map(str, frame.columns)],
                         [[str(i), *(fmt(_py(v)) for v in row)]
                          for i, row in frame.iterrows()],
                         caption="Users per system", numeric=list(range(1, frame.shape[1] + 1)),
                         id="accounting"))
    settings = Section("settings", "Test and settings")
    settings.p(cmp._legend() if hasattr(cmp, "_legend") else "", "lead")
    settings.table(_settings_table(s, ("test", "correction", "alpha", "confidence",
                                       "n_resamples", "seed", "users", "baseline",
                                       "n_tests", "interval"), "Settings"))
    conv = (s.get("evaluation") or {}).get("convention") if isinstance(
        s.get("evaluation"), dict) else s.get("convention")
    settings.p(f"Convention: {conv}." if conv else "Convention: none (receval's defaults).")

    means = Section("means", "Means and confidence intervals")
    conf = s.get("confidence", 0.95)
    means.p(f"Each system's mean over the compared users with its {conf:.0%} confidence "
            "interval (bootstrap over users). Letters mark the systems a system beats "
            "significantly: system a is the first row, b the second, and so on.")
    rows = []
    for i, system in enumerate(systems):
        for metric in metrics:
            rows.append([f"{_letter(i)}: {system}", metric, fmt(float(data['mean'].loc[system,
                                                                                      metric])),
                         fmt(float(data["low"].loc[system, metric])),
                         fmt(float(data["high"].loc[system, metric])),
                         data["marks"].loc[system, metric] or "-"])
    means.table(Table(["system", "metric", "mean", "CI low", "CI high", "beats"], rows,
                      caption="Means with confidence intervals", numeric=[2, 3, 4],
                      id="means"))
    marks = data["marks"].map(lambda m: f"beats {m}" if m else "")
    alt = ("Dot plot per metric of each system's mean with its confidence interval: "
           + "; ".join(f"{m}: " + ", ".join(
               f"{sy} {fmt(float(data['mean'].loc[sy, m]))}" for sy in systems)
               for m in metrics))
    fig = comparison_figure(data["mean"], data["low"], data["high"], marks)
    means.figure(Figure("fig-means", to_svg(fig, alt=alt, prefix="means"), alt + "."))

    tests = Section("tests", "Paired tests")
    cols = [c for c in ("metric", "system_a", "system_b", "mean_a", "mean_b", "diff",
                        "effect_size", "statistic", "p_value", "p_adjusted", "significant",
                        "ci_low", "ci_high", "n_users") if c in cmp.tests.columns]
    num = [j for j, c in enumerate(cols) if c not in ("metric", "system_a", "system_b",
                                                      "significant")]
    trows = [[_cell(c, r[c]) for c in cols] for _, r in cmp.tests.iterrows()]
    classes = ["sig" if bool(r.get("significant", False)) else "" for _, r in
               cmp.tests.iterrows()]
    tests.p("One row per metric and pair of systems: each p-value as computed and after the "
            "correction over all the tests of the comparison; significant rows are bold.")
    tests.table(Table(cols, trows, caption="Paired tests", numeric=num, row_classes=classes,
                      row_headers=False, id="tests"))
    sections = [what, settings, means, tests]
    for name, heading in (("friedman", "Friedman test"), ("nemenyi", "Nemenyi post-hoc test"),
                          ("coverage", "Prediction coverage")):
        frame = getattr(cmp, name, None)
        if frame is not None and len(frame):
            sec = Section(name, heading)
            flat = frame.reset_index()
            sec.table(Table([str(c) for c in flat.columns],
                            [[_cell(str(c), v) for c, v in row.items()]
                             for _, row in flat.iterrows()], row_headers=False))
            sections.append(sec)
    return Page(title or "Comparison report", "comparison report", sections,
                "Every number on this page was computed by receval.compare from per-user "
                "values of receval.evaluate.", stamp(generated))


def _py(v: Any) -> Any:
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating,)):
        return float(v)
    return v


def _cell(column: str, value: Any) -> str:
    value = _py(value)
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, float) and column in ("p_value", "p_adjusted") and not math.isnan(
            value) and value < 1e-4:
        return f"{value:.2e}"
    return fmt(value)


def folds_data(cv: Any) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The per-fold values (columns model, fold, metrics) and mean / std per model."""
    per_fold = cv.per_fold.reset_index()
    summary = cv.summary()
    return per_fold, summary


def cross_validation_page(cv: Any, *, title: str | None = None,
                          generated: Any = None) -> Page:
    """The page of a cross-validation report (see ``CrossValidation.report``)."""
    from receval.report._figures import folds_figure
    from receval.report._svg import to_svg

    per_fold, summary = folds_data(cv)
    labels = list(cv.labels)
    what = Section("evaluated", "What was cross-validated")
    what.p(f"{len(cv.models)} models ({', '.join(cv.models)}) over {cv.n_folds} folds on "
           f"{len(labels)} metrics ({', '.join(labels)}).", "lead")
    s = cv.settings
    keys = tuple(k for k in s if not isinstance(s[k], (dict, list, tuple, pd.DataFrame)))
    what.table(_settings_table(s, keys, "Settings"))
    users = Section("users", "Users per fold")
    urows = []
    for (model, fold), ev in cv.results.items():
        u = ev.users
        urows.append([str(model), str(fold), fmt(u.n_users), fmt(u.n_evaluated),
                      fmt(len(u.no_relevant)), fmt(len(u.missing_recs)),
                      fmt(len(u.recs_without_truth) + len(u.recs_without_truth_scored))])
    users.table(Table(["model", "fold", "users", "evaluated", "no relevant item",
                       "no recommendations", "recommendations without truth"], urows,
                      caption="User accounting per model and fold",
                      numeric=[2, 3, 4, 5, 6], id="accounting"))
    summ = Section("summary", "Mean and standard deviation over folds")
    srows = [[str(model), label, fmt(float(summary.loc[model, (label, "mean")])),
              fmt(float(summary.loc[model, (label, "std")]))]
             for model in cv.models for label in labels]
    summ.p("The standard deviation is the sample one (n - 1) over the folds.")
    summ.table(Table(["model", "metric", "mean", "std"], srows,
                     caption="Mean and standard deviation over folds", numeric=[2, 3],
                     id="summary"))
    plotted = [label for label in labels if per_fold[label].notna().any()]
    alt = ("Dot plot per metric of each fold's value per model with the mean and standard "
           "deviation over folds: " + "; ".join(
               f"{label}: " + ", ".join(
                   f"{m} {fmt(float(summary.loc[m, (label, 'mean')]))} ± "
                   f"{fmt(float(summary.loc[m, (label, 'std')]))}" for m in cv.models)
               for label in plotted))
    fig = folds_figure(per_fold, plotted)
    summ.figure(Figure("fig-folds", to_svg(fig, alt=alt, prefix="folds"), alt + "."))
    folds = Section("folds", "Values per fold")
    frows = [[str(r["model"]), str(r["fold"]), *(fmt(float(r[label])) for label in labels)]
             for _, r in per_fold.iterrows()]
    folds.table(Table(["model", "fold", *labels], frows, caption="Values per fold",
                      numeric=list(range(2, 2 + len(labels))), id="per-fold"))
    return Page(title or "Cross-validation report", "cross-validation report",
                [what, users, summ, folds],
                "Every number on this page was computed by receval.evaluate on each "
                "model's recommendations on each fold.", stamp(generated))
