"""Reports of several systems: a comparison and a cross-validation.

``cmp.report`` and ``cv.report`` build these pages; every number on them comes from the
Comparison or CrossValidation object.
"""

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


def _compared_section(cmp: Any) -> Section:
    s = cmp.settings
    systems, metrics = list(cmp.systems), list(cmp.means.columns)
    sec = Section("compared", "What was compared")
    sec.p(f"{len(systems)} systems ({', '.join(systems)}) on {len(metrics)} metrics "
          f"({', '.join(metrics)}); users paired by id ({s.get('users', 'common')} users).",
          "lead")
    frame = getattr(cmp, "users", None)
    if frame is not None and len(frame):
        sec.table(Table(["system", *map(str, frame.columns)],
                        [[str(i), *(fmt(_py(v)) for v in row)] for i, row in frame.iterrows()],
                        caption="Users per system", numeric=list(range(1, frame.shape[1] + 1)),
                        id="accounting"))
    return sec


def _settings_section(cmp: Any) -> Section:
    s = cmp.settings
    sec = Section("settings", "Test and settings")
    corr = s.get("correction") or "no correction"
    sec.p(f"Test: {s.get('test')}; {corr} over the {s.get('n_tests', '')} tests of the "
          f"comparison; a difference is significant when its corrected p-value is below "
          f"alpha = {s.get('alpha')}.", "lead")
    sec.table(_settings_table(s, ("test", "correction", "alpha", "confidence", "n_resamples",
                                  "seed", "users", "baseline", "n_tests", "ci_method"),
                              "Settings"))
    evaluation = s.get("evaluation")
    conv = evaluation.get("convention") if isinstance(evaluation, dict) else None
    sec.p(f"Convention: {conv}." if conv else "Convention: none (receval's defaults).")
    return sec


def _means_section(cmp: Any) -> Section:
    from receval.report._figures import comparison_figure
    from receval.report._svg import to_svg

    data = comparison_data(cmp)
    systems, metrics = list(cmp.systems), list(cmp.means.columns)
    sec = Section("means", "Means and confidence intervals")
    conf = float(cmp.settings.get("confidence", 0.95))
    sec.p(f"Each system's mean over the compared users with its {conf:.0%} confidence "
          "interval (bootstrap over users). Letters mark the systems a system beats "
          "significantly: system a is the first row, b the second, and so on.")
    rows = [[f"{_letter(i)}: {system}", metric] + [
        fmt(float(data[part].loc[system, metric])) for part in ("mean", "low", "high")]
        + [data["marks"].loc[system, metric] or "-"]
        for i, system in enumerate(systems) for metric in metrics]
    sec.table(Table(["system", "metric", "mean", "CI low", "CI high", "beats"], rows,
                    caption="Means with confidence intervals", numeric=[2, 3, 4], id="means"))
    marks = data["marks"].map(lambda m: f"beats {m}" if m else "")
    alt = ("Dot plot per metric of each system's mean with its confidence interval: "
           + "; ".join(f"{m}: " + ", ".join(
               f"{sy} {fmt(float(data['mean'].loc[sy, m]))}" for sy in systems)
               for m in metrics))
    fig = comparison_figure(data["mean"], data["low"], data["high"], marks)
    return sec.figure(Figure("fig-means", to_svg(fig, alt=alt, prefix="means"), alt + "."))


def _tests_section(cmp: Any) -> Section:
    sec = Section("tests", "Paired tests")
    cols = [c for c in ("metric", "system_a", "system_b", "mean_a", "mean_b", "diff",
                        "effect_size", "statistic", "p_value", "p_adjusted", "significant",
                        "ci_low", "ci_high", "n_users") if c in cmp.tests.columns]
    num = [j for j, c in enumerate(cols) if c not in ("metric", "system_a", "system_b",
                                                      "significant")]
    rows = [[_cell(c, r[c]) for c in cols] for _, r in cmp.tests.iterrows()]
    classes = ["sig" if bool(r.get("significant", False)) else ""
               for _, r in cmp.tests.iterrows()]
    sec.p("One row per metric and pair of systems: each p-value as computed and after the "
          "correction over all the tests of the comparison; significant rows are bold.")
    return sec.table(Table(cols, rows, caption="Paired tests", numeric=num,
                           row_classes=classes, row_headers=False, id="tests"))


def comparison_page(cmp: Any, *, title: str | None = None, generated: Any = None,
                    user_groups: Any = None) -> Page:
    """The page of a comparison report (see ``Comparison.report``)."""
    sections = [_compared_section(cmp), _settings_section(cmp), _means_section(cmp),
                _tests_section(cmp)]
    if user_groups is not None:  # the disparity tests (receval.report._fairness)
        from receval.report._fairness import comparison_fairness_section

        sections.append(comparison_fairness_section(cmp, user_groups))
    for name, heading in (("friedman", "Friedman test"), ("nemenyi", "Nemenyi post-hoc test"),
                          ("coverage", "Prediction coverage")):
        frame = getattr(cmp, name, None)
        if frame is not None and len(frame):
            flat = frame.reset_index()
            sections.append(Section(name, heading).table(Table(
                [str(c) for c in flat.columns],
                [[_cell(str(c), v) for c, v in row.items()] for _, row in flat.iterrows()],
                row_headers=False)))
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


def _measured(value: Any) -> str:
    v = float(value)
    return "not measured" if math.isnan(v) else fmt(v)


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
    s = dict(cv.settings)
    s.update({k: v for k, v in (s.get("evaluate_options") or {}).items()
              if v is None or isinstance(v, (str, int, float, bool))})
    keys = tuple(k for k in s if not isinstance(s[k], (dict, list, tuple, pd.DataFrame)))
    what.table(_settings_table(s, keys, "Settings"))
    for name in ("no_rating_metrics", "ranked_by_predict"):
        if s.get(name):
            what.p(f"{name.replace('_', ' ')}: {', '.join(map(str, s[name]))}", "note")
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
    srows = [[str(model), label, _measured(summary.loc[model, (label, "mean")]),
              _measured(summary.loc[model, (label, "std")])]
             for model in cv.models for label in labels]
    summ.p("The standard deviation is the sample one (n - 1) over the folds; \"not "
           "measured\": the model has no value for that metric (e.g. rating metrics of a "
           "model without predict).")
    summ.table(Table(["model", "metric", "mean", "std"], srows,
                     caption="Mean and standard deviation over folds", numeric=[2, 3],
                     id="summary"))
    plotted = [label for label in labels if per_fold[label].notna().any()]
    alt = ("Dot plot per metric of each fold's value per model with the mean and standard "
           "deviation over folds: " + "; ".join(
               f"{label}: " + ", ".join(
                   f"{m} {fmt(float(summary.loc[m, (label, 'mean')]))} ± "
                   f"{fmt(float(summary.loc[m, (label, 'std')]))}" for m in cv.models
                   if not math.isnan(float(summary.loc[m, (label, "mean")])))
               for label in plotted))
    fig = folds_figure(per_fold, plotted)
    summ.figure(Figure("fig-folds", to_svg(fig, alt=alt, prefix="folds"), alt + "."))
    folds = Section("folds", "Values per fold")
    frows = [[str(r["model"]), str(r["fold"]), *(_measured(r[label]) for label in labels)]
             for _, r in per_fold.iterrows()]
    folds.table(Table(["model", "fold", *labels], frows, caption="Values per fold",
                      numeric=list(range(2, 2 + len(labels))), id="per-fold"))
    return Page(title or "Cross-validation report", "cross-validation report",
                [what, users, summ, folds],
                "Every number on this page was computed by receval.evaluate on each "
                "model's recommendations on each fold.", stamp(generated))
