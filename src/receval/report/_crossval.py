"""The report of a cross-validation (``cv.report``).

What was cross-validated and how the folds were made (each fold's split report), the models
with their parameters, the users per fold, the mean and spread over folds, and the values per
fold. Every number on the page comes from the CrossValidation object.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pandas as pd

from receval.report._page import Figure, Page, Section, Table, fmt, settings_table, stamp

__all__ = ["cross_validation_page", "folds_data"]

#: Fold sizes read from each fold's split report: (header, part, attribute).
_SIZES = (("train rows", "train", "rows"), ("test rows", "test", "rows"),
          ("test users", "test", "users"), ("test items", "test", "items"))


def _measured(value: Any) -> str:
    v = float(value)
    return "not measured" if math.isnan(v) else fmt(v)


def folds_data(cv: Any) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The per-fold values (columns model, fold, metrics) and mean / std per model."""
    per_fold = cv.per_fold.reset_index()
    summary = cv.summary()
    return per_fold, summary


def _value(v: Any) -> str:
    return "none" if v is None else str(v)


def _call(method: str, settings: dict[str, Any]) -> str:
    args = ", ".join(f"{k}={v!r}" for k, v in settings.items())
    return f"rv.split.{method}({args})"


def splits_section(reports: Sequence[Any], n_folds: int) -> Section:
    """How the folds were made: the splitter, its settings and seed, each fold's sizes.

    ``reports`` holds one :class:`~receval.split.SplitReport` per fold (``None`` for a fold
    given as a ``(train, test)`` pair, whose making receval does not know).
    """
    sec = Section("splits", "How the folds were made")
    known = [r for r in reports if r is not None and hasattr(r, "method")]
    if not known:
        return sec.p(f"The {n_folds} folds were given as (train, test) tables: how they were "
                     "made (splitter, seed) is not recorded. Pass rv.split.* output to "
                     "cross_validate to have it here.", "lead")
    methods = list(dict.fromkeys(str(r.method) for r in known))
    settings = [dict(getattr(r, "settings", {}) or {}) for r in known]
    keys = list(dict.fromkeys(k for st in settings for k in st))
    common = {k: settings[0][k] for k in keys
              if all(k in st and st[k] == settings[0][k] for st in settings)}
    varying = [k for k in keys if k not in common]
    seed = common.get("seed", "not used" if "seed" not in keys else "differs per fold")
    shown = {k: v for k, v in common.items() if k != "columns"}
    sec.p(f"{n_folds} folds made by {' and '.join(f'rv.split.{m}' for m in methods)} "
          f"({_call(methods[0], shown) if len(methods) == 1 else 'see below'}); seed: "
          f"{_value(seed)}." + ("" if len(known) == len(reports) else
                                f" {len(reports) - len(known)} folds were given as "
                                "(train, test) tables, made in a way receval does not know."),
          "lead")
    sec.table(settings_table({k: _value(v) for k, v in common.items()}, list(common),
                             "Splitter settings (the same for every fold)"))
    headers = ["fold", "splitter", *varying, *(h for h, _, _ in _SIZES), "cold users",
               "cold items"]
    rows = []
    for fold, report in enumerate(reports):
        if report is None or not hasattr(report, "method"):
            rows.append([str(fold), "given as tables"] + ["-"] * (len(headers) - 2))
            continue
        st = dict(getattr(report, "settings", {}) or {})
        sizes = [fmt(int(getattr(report, attr, {}).get(part, 0))) if isinstance(
            getattr(report, attr, None), dict) else "-" for _, part, attr in _SIZES]
        cold = [fmt(int(getattr(report, name))) if getattr(report, name, None) is not None
                else "-" for name in ("cold_users", "cold_items")]
        rows.append([str(fold), str(report.method), *(_value(st.get(k)) for k in varying),
                     *sizes, *cold])
    first_size = 2 + len(varying)
    return sec.table(Table(headers, rows, caption="Each fold", id="splits",
                           numeric=list(range(first_size, len(headers)))))


def models_section(models: Sequence[str], settings: dict[str, Any]) -> Section:
    """Each model with its parameters (``model_params``) or, without them, its repr."""
    sec = Section("models", "Models")
    params = settings.get("model_params") or {}
    reprs = settings.get("models") or {}
    rows = []
    for name in models:
        if isinstance(params.get(name), dict):
            text = ", ".join(f"{k}={v!r}" for k, v in params[name].items()) or "no parameters"
        else:
            text = str(reprs.get(name, "-"))
        rows.append([str(name), text])
    source = ("their get_params()" if params else
              "their repr (the models give no get_params())")
    sec.p(f"The {len(models)} models as they were fitted on every fold, with {source}.",
          "lead")
    sec.table(Table(["model", "parameters"], rows, caption="Models", id="models"))
    ties = settings.get("ties_at_cutoff") or {}
    for name in models:  # what recommend warned about, per model over the folds
        folds = sorted(fold for (model, fold) in ties if model == name)
        if folds:
            users = [ties[(name, f)].get("users") for f in folds]
            count = (f"{sum(users)} lists" if all(u is not None for u in users)
                     else "some lists")
            sec.p(f"{name}: tied scores straddled the cutoff k in {count} over "
                  f"{len(folds)} fold(s); {ties[(name, folds[0])]['messages'][0]}")
    return sec


def tuning_section(tuning: dict[str, Any]) -> Section:
    """Each tuned model: its grid, the validation score of every point, the chosen point."""
    sec = Section("tuning", "Tuning")
    sec.p("Parameters chosen on a validation part carved from each fold's training part "
          "(never from its test part), then refitted on the whole training part and tested "
          "once (receval.tune).", "lead")
    for name, t in tuning.items():
        grid = ", ".join(f"{k} in {list(v)!r}" for k, v in (t.get("grid") or {}).items())
        direction = "highest" if t.get("higher_is_better", True) else "lowest"
        sec.p(f"{name}: {t.get('search')} search over {grid}; the {direction} "
              f"{t.get('metric')} on validation wins.")
        rows = [[str(r.get("fold")), ", ".join(f"{k}={r[k]!r}" for k in t.get("grid") or {}),
                 *(_measured(v) for k, v in r.items()
                   if k not in ("fold", "trial", "best") and k not in (t.get("grid") or {})),
                 "chosen" if r.get("best") else ""] for r in t.get("trials") or []]
        sec.table(Table(["fold", "parameters", f"validation {t.get('metric')}", ""], rows,
                        caption=f"Tuning trials of {name}", numeric=[2],
                        id=f"tuning-{len(sec.blocks)}"))
    return sec


def _users_section(cv: Any) -> Section:
    users = Section("users", "Users per fold")
    urows = []
    for (model, fold), ev in cv.results.items():
        u = ev.users
        urows.append([str(model), str(fold), fmt(u.n_users), fmt(u.n_evaluated),
                      fmt(len(u.no_relevant)), fmt(len(u.missing_recs)),
                      fmt(len(u.recs_without_truth) + len(u.recs_without_truth_scored))])
    return users.table(Table(["model", "fold", "users", "evaluated", "no relevant item",
                              "no recommendations", "recommendations without truth"], urows,
                             caption="User accounting per model and fold",
                             numeric=[2, 3, 4, 5, 6], id="accounting"))


def _summary_section(cv: Any, per_fold: pd.DataFrame, summary: pd.DataFrame) -> Section:
    from receval.report._figures import folds_figure
    from receval.report._svg import to_svg

    labels = list(cv.labels)
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
    reports = list(cv.settings.get("split_reports") or [])
    if reports and all(getattr(r, "method", None) == "rolling" for r in reports):
        from receval.report._figures import over_time_figure

        origins = [r.cut_time for r in reports]
        alt = ("Line plot per metric of each model's value per window, by the window's "
               "origin: " + "; ".join(
                   f"{label}: " + ", ".join(
                       f"{m} " + " ".join(_measured(cv.results[(m, f)][label])
                                          if label in cv.results[(m, f)] else "-"
                                          for f in range(cv.n_folds)) for m in cv.models)
                   for label in plotted))
        fig = over_time_figure(per_fold, plotted, origins)
        summ.figure(Figure("fig-over-time", to_svg(fig, alt=alt, prefix="time"), alt + "."))
    return summ


def cross_validation_page(cv: Any, *, title: str | None = None,
                          generated: Any = None) -> Page:
    """The page of a cross-validation report (see ``CrossValidation.report``)."""
    per_fold, summary = folds_data(cv)
    labels = list(cv.labels)
    what = Section("evaluated", "What was cross-validated")
    what.p(f"{len(cv.models)} models ({', '.join(map(str, cv.models))}) over {cv.n_folds} "
           f"folds on {len(labels)} metrics ({', '.join(labels)}).", "lead")
    s = dict(cv.settings)
    s.update({k: v for k, v in (s.get("evaluate_options") or {}).items()
              if v is None or isinstance(v, (str, int, float, bool))})
    keys = tuple(k for k in s if not isinstance(s[k], (dict, list, tuple, pd.DataFrame)))
    what.table(settings_table(s, keys, "Settings"))
    for name in ("no_rating_metrics", "ranked_by_predict"):
        if s.get(name):
            what.p(f"{name.replace('_', ' ')}: {', '.join(map(str, s[name]))}", "note")
    splits = splits_section(list(s.get("split_reports") or [None] * cv.n_folds), cv.n_folds)
    models = models_section(list(cv.models), s)
    folds = Section("folds", "Values per fold")
    frows = [[str(r["model"]), str(r["fold"]), *(_measured(r[label]) for label in labels)]
             for _, r in per_fold.iterrows()]
    folds.table(Table(["model", "fold", *labels], frows, caption="Values per fold",
                      numeric=list(range(2, 2 + len(labels))), id="per-fold"))
    extra = [tuning_section(s["tuning"])] if s.get("tuning") else []
    return Page(title or "Cross-validation report", "cross-validation report",
                [what, splits, models, *extra, _users_section(cv),
                 _summary_section(cv, per_fold, summary), folds],
                "Every number on this page was computed by receval.evaluate on each "
                "model's recommendations on each fold.", stamp(generated))
