"""The report of a comparison of systems (``cmp.report``).

Every number on the page comes from the Comparison object.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from receval._names import TEST_NAMES
from receval.report._page import (
    Figure,
    Page,
    Section,
    Table,
    fmt,
    fmt_p,
    plain,
    settings_table,
    stamp,
)

__all__ = ["comparison_data", "comparison_page"]


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
                        [[str(i), *(fmt(plain(v)) for v in row)] for i, row in frame.iterrows()],
                        caption="Users per system", numeric=list(range(1, frame.shape[1] + 1)),
                        id="accounting"))
    return sec


def _settings_section(cmp: Any) -> Section:
    s = cmp.settings
    sec = Section("settings", "Test and settings")
    corr = s.get("correction") or "no correction"
    sec.p(f"Test: {_test_name(s)}; {corr} over the {s.get('n_tests', '')} tests of the "
          f"comparison; a difference is significant when its corrected p-value is below "
          f"alpha = {s.get('alpha')}.", "lead")
    shown = {k: v for k, v in s.items() if k != "method" or v is not None}
    sec.table(settings_table(shown, ("test", "method", "correction", "alpha", "confidence",
                                  "n_resamples", "seed", "users", "baseline", "n_tests",
                                  "ci_method"),
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


def _pair(a: Any, b: Any) -> str:
    return f"{a} vs {b}"


def _tests_section(cmp: Any) -> Section:
    sec = Section("tests", "Paired tests")
    t = cmp.tests
    bootstrap = "ci_low" in t.columns
    # the bootstrap and permutation statistics are the mean difference itself
    statistic = cmp.settings.get("test") not in ("bootstrap", "permutation")
    headers = ["metric", "systems (a vs b)", "difference a - b"]
    headers += ["interval of the difference"] if bootstrap else []
    headers += ["effect size"] + (["statistic"] if statistic else [])
    headers += ["p-value", "corrected p-value", "significant", "users"]
    rows = []
    for _, r in t.iterrows():
        row = [str(r["metric"]), _pair(r["system_a"], r["system_b"]), fmt(plain(r["diff"]))]
        row += [f"[{fmt(plain(r['ci_low']))}, {fmt(plain(r['ci_high']))}]"] if bootstrap \
            else []
        row += [fmt(plain(r["effect_size"]))]
        row += [fmt(plain(r["statistic"]))] if statistic else []
        row += [fmt_p(r["p_value"]), fmt_p(r["p_adjusted"]),
                "yes" if bool(r["significant"]) else "no", fmt(plain(r["n_users"]))]
        rows.append(row)
    classes = ["sig" if bool(r["significant"]) else "" for _, r in t.iterrows()]
    s = cmp.settings
    corr = s.get("correction") or "no correction"
    sec.p(f"One row per metric and pair of systems: the {_test_name(s)} of the per-user "
          f"differences, its p-value as computed and after {corr} over the "
          f"{s.get('n_tests', len(t))} tests of the comparison; significant rows "
          f"(corrected p-value below alpha = {s.get('alpha')}) are bold. The full table, with "
          "each system's mean, is cmp.tests.", "lead")
    numeric = [j for j, h in enumerate(headers) if h not in (
        "metric", "systems (a vs b)", "significant")]
    return sec.table(Table(headers, rows, caption="Paired tests", numeric=numeric,
                           row_classes=classes, row_headers=False, id="tests"))


def _test_name(settings: dict[str, Any]) -> str:
    name = TEST_NAMES.get(str(settings.get("test")), str(settings.get("test")))
    method = settings.get("method")
    return f"{name} ({method} null distribution)" if method not in (None, "auto") else name


def _friedman_section(cmp: Any) -> Section:
    fr = cmp.friedman
    systems = list(cmp.systems)
    sec = Section("friedman", "Friedman test")
    sec.p(f"With {len(systems)} systems, Friedman's test asks whether any system ranks "
          "better than the others on average: each user ranks the systems on the metric "
          "(1 = best, ties share their average rank) and the statistic compares the average "
          "ranks, chi-square with k - 1 degrees of freedom (SciPy's friedmanchisquare, tie "
          "corrected). A small p-value says that some systems differ; the Nemenyi test below "
          "says which.", "lead")
    rows = []
    for _, r in fr.iterrows():
        ranks = {sy: float(r[f"rank_{sy}"]) for sy in systems if f"rank_{sy}" in r}
        best = min(ranks, key=lambda sy: ranks[sy]) if ranks else "-"
        rows.append([str(r["metric"]), fmt(plain(r["statistic"])), fmt(plain(r["df"])),
                     fmt(plain(r["n_users"])), fmt_p(r["p_value"]), str(best)])
    sec.table(Table(["metric", "chi-square", "df", "users", "p-value", "best average rank"],
                    rows, caption="Friedman test per metric", numeric=[1, 2, 3, 4],
                    id="friedman"))
    rank_rows = [[str(r["metric"]), *(fmt(plain(r.get(f"rank_{sy}", math.nan)), 2)
                                      for sy in systems)] for _, r in fr.iterrows()]
    sec.table(Table(["metric", *systems], rank_rows,
                    caption="Average rank of each system (1 = best)",
                    numeric=list(range(1, len(systems) + 1)), id="friedman-ranks"))
    return sec


def _nemenyi_section(cmp: Any) -> Section:
    nem = cmp.nemenyi
    alpha = float(cmp.settings.get("alpha", 0.05))
    sec = Section("nemenyi", "Nemenyi post-hoc test")
    sec.p("Nemenyi's test compares the average ranks of every pair of systems on each "
          "metric: z = (R_a - R_b) / sqrt(k (k + 1) / (6 n)), with a p-value from the "
          "studentized range that holds the error rate over the pairs of one metric (Demsar "
          f"2006). Pairs with p below alpha = {alpha:g} differ.", "lead")
    rows = [[str(r["metric"]), _pair(r["system_a"], r["system_b"]),
             fmt(plain(r["rank_a"]), 2), fmt(plain(r["rank_b"]), 2), fmt(plain(r["statistic"])),
             fmt_p(r["p_value"]), "yes" if float(r["p_value"]) < alpha else "no"]
            for _, r in nem.iterrows()]
    classes = ["sig" if float(r["p_value"]) < alpha else "" for _, r in nem.iterrows()]
    return sec.table(Table(["metric", "systems (a vs b)", "average rank a", "average rank b",
                            "z", "p-value", "differ"], rows,
                           caption="Nemenyi post-hoc test per metric and pair",
                           numeric=[2, 3, 4, 5], row_classes=classes, row_headers=False,
                           id="nemenyi"))


def _coverage_section(cmp: Any) -> Section:
    cov = cmp.coverage
    sec = Section("coverage", "Prediction coverage")
    sec.p("Rating metrics compare predictions: each system's share of the truth pairs it "
          "predicts. '[common]' columns use the pairs every system predicts, '[fill=...]' "
          "columns fill the missing predictions (seed 003).", "lead")
    rows = [[str(system), fmt(plain(r["predicted"])), fmt(plain(r["truth_pairs"])),
             fmt(plain(r["coverage"]))] for system, r in cov.iterrows()]
    return sec.table(Table(["system", "truth pairs predicted", "truth pairs", "coverage"],
                           rows, caption="Prediction coverage", numeric=[1, 2, 3],
                           id="coverage"))


def comparison_page(cmp: Any, *, title: str | None = None, generated: Any = None,
                    user_groups: Any = None) -> Page:
    """The page of a comparison report (see ``Comparison.report``)."""
    sections = [_compared_section(cmp), _settings_section(cmp), _means_section(cmp),
                _tests_section(cmp)]
    if user_groups is not None:  # the disparity tests (receval.report._fairness)
        from receval.report._fairness import comparison_fairness_section

        sections.append(comparison_fairness_section(cmp, user_groups))
    for name, build in (("friedman", _friedman_section), ("nemenyi", _nemenyi_section),
                        ("coverage", _coverage_section)):
        frame = getattr(cmp, name, None)
        if frame is not None and len(frame):
            sections.append(build(cmp))
    return Page(title or "Comparison report", "comparison report", sections,
                "Every number on this page was computed by receval.compare from per-user "
                "values of receval.evaluate.", stamp(generated))
