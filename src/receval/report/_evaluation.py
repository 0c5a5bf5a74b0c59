"""The report of one evaluation: inputs, settings, user accounting, metrics and figures."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from receval.report import _data as D
from receval.report._page import Figure, Page, Section, Table, fmt, stamp

if TYPE_CHECKING:
    from receval._result import EvaluationResult

__all__ = ["evaluation_page", "input_rows", "settings_section", "users_section"]

_SETTINGS = (
    ("relevance_threshold", "a truth row is relevant when its grade is >= this"),
    ("ties", "order of items with equal scores"),
    ("no_relevant", "truth users without a relevant item"),
    ("missing_recs", "truth users without recommendations"),
    ("recs_without_truth", "users with recommendations but no truth"),
    ("missing_predictions", "truth ratings without a predicted rating (rating metrics)"),
    ("truth_scope", "which truth rows count"),
    ("score_precision", "precision the scores are read in"),
    ("duplicates", "a (user, item) pair repeated in a table"),
    ("negative_grades", "negative truth grades"),
    ("id_cast", "cast of the ids of both tables"),
)


def _sizes(data: Any, ev: EvaluationResult) -> tuple[str, str, str]:
    """Rows, distinct users and distinct items of an input, read by the input layer."""
    from receval._columns import Columns
    from receval.data import truth_table

    cols = ev.settings.get("columns") or {}
    try:
        table = truth_table(data, Columns(user=cols.get("truth_user"),
                                          item=cols.get("truth_item")))
    except Exception:  # another layout: the input layer's own defaults and aliases
        try:
            table = truth_table(data, Columns())
        except Exception:  # not a table receval reads: sizes unknown
            return "-", "-", "-"
    return (fmt(len(table)), fmt(int(pd.Series(table.user).nunique())),
            fmt(int(pd.Series(table.item).nunique())))


def input_rows(inputs: Mapping[str, Any], names: Mapping[str, str],
               ev: EvaluationResult) -> list[list[str]]:
    """One row per input table: role, where it came from, rows, users, items."""
    rows = []
    for role, data in inputs.items():
        if data is None:
            continue
        source = names.get(role) or f"{type(data).__module__.split('.')[0]}."\
            f"{type(data).__name__}"
        rows.append([role, source, *_sizes(data, ev)])
    return rows


def settings_section(ev: EvaluationResult, sid: str = "settings") -> Section:
    """Convention, every setting, and each metric's definition and library name."""
    s = ev.settings
    sec = Section(sid, "Settings and convention")
    conv = s.get("convention")
    if conv:
        sec.p(f"Convention: {conv}. Settings and metric variants follow {conv}'s definitions; "
              "each metric's name in that library is in the last column below.", "lead")
        over = s.get("convention_overrides") or {}
        if over:
            sec.p("Set over the convention: " + "; ".join(f"{k} = {v}" for k, v in over.items()),
                  "warning")
    else:
        thr = s.get("relevance_threshold")
        sec.p("Convention: none (receval's defaults). Ties are broken "
              f"'{s.get('ties')}'; relevant means "
              + ("every truth row with a positive grade" if thr is None
                 else f"a grade >= {thr}") + ".", "lead")
    rows = []
    for name, what in _SETTINGS:
        if name in s:
            value = s[name]
            text = ("every positive grade (no threshold)" if name == "relevance_threshold"
                    and value is None else "none" if value is None else str(value))
            rows.append([name, text, what])
    rows += [[name, fmt(int(s[name])), "rows dropped by the duplicates policy"]
             for name in ("recs_duplicates_dropped", "truth_duplicates_dropped") if s.get(name)]
    sec.table(Table(["setting", "value", "meaning"], rows, caption="Settings"))
    cols = s.get("columns") or {}
    if cols:
        sec.p("Columns read: " + ", ".join(f"{k} = {v}" for k, v in cols.items()) + ".",
              "note")
    defs = s.get("metrics") or {}
    headers = ["metric", "parameters"] + (["library name"] if conv else [])
    drows = []
    for label, v in defs.items():
        params = ", ".join(f"{k}={val}" for k, val in v.items()
                           if k not in ("name", "library_name", "not_in_library")
                           and val is not None) or "-"
        row = [label, params]
        if conv:
            row.append(v.get("library_name") or f"not in {conv}: {v.get('not_in_library')}")
        drows.append(row)
    sec.table(Table(headers, drows, caption="Metric definitions"))
    sec.p("A parameter not listed (e.g. a metric's own ties= or missing_recs=) follows the "
          "setting of the same name above.", "note")
    return sec


def users_section(ev: EvaluationResult, sid: str = "users") -> Section:
    """Where every user went: each category with its count and its policy."""
    u = ev.users
    sec = Section(sid, "Users")
    summary = u.summary()
    total, cases = summary.iloc[:1], summary.iloc[1:]  # the distinct users, then the cases
    nonzero = [f"{int(r['count']):,} {name}" for name, r in cases.iterrows()
               if int(r["count"]) and name != "evaluated"]
    sec.p(f"{u.n_users:,} distinct users in the inputs ({u.n_truth_users:,} in the truth, "
          f"{u.n_recs_users:,} with recommendations); {u.n_evaluated:,} evaluated"
          + (f"; {'; '.join(nonzero)}." if nonzero else "; no user was left out.")
          + " Every user is evaluated or left out once; the rows below evaluated count cases "
          "and may overlap (a user without recommendations scored 0 is also evaluated): the "
          "handling says where each row's users went.", "lead")
    rows = [[str(name), fmt(int(r["count"])), str(r["handling"])]
            for name, r in total.iterrows()]
    rows += [["users in the truth", fmt(u.n_truth_users), ""],
             ["users with recommendations", fmt(u.n_recs_users), ""]]
    rows += [[str(name), fmt(int(r["count"])), str(r["handling"])]
             for name, r in cases.iterrows()]
    classes = ["", "", ""] + ["" if int(r["count"]) else "zero" for _, r in cases.iterrows()]
    sec.table(Table(["users", "count", "handling"], rows, caption="User accounting",
                    numeric=[1], row_classes=classes, id="accounting"))
    return sec


def _metrics_section(ev: EvaluationResult) -> Section:
    sec = Section("metrics", "Metrics")
    conv = ev.settings.get("convention")
    names = ev.settings.get("metrics") or {}
    headers = ["metric", "value", "aggregation", "users", "undefined", "higher is better"]
    if conv:
        headers.append(f"name in {conv}")
    rows = []
    for label, s in ev.summaries.items():
        row = [label, fmt(s.value), s.aggregation, fmt(s.n_users), fmt(s.n_undefined),
               "yes" if s.metric.higher_is_better else "no"]
        if conv:
            row.append(str(names.get(label, {}).get("library_name") or "-"))
        rows.append(row)
    sec.p("Each value is the aggregate receval reports (macro: the mean over the users in "
          "the mean; micro: pooled sums; global: over the whole set of lists), to 4 decimals.")
    sec.table(Table(headers, rows, caption="Metric values", numeric=[1, 3, 4],
                    id="metric-values"))
    ties = [(label, s.n_ties_at_cutoff, s.ties) for label, s in ev.summaries.items()
            if s.n_ties_at_cutoff]
    for label, n, policy in ties:
        sec.p(f"{label}: tied scores straddle the cutoff for {n:,} users (ties='{policy}').",
              "warning")
    return sec


def _curves_section(ev: EvaluationResult, frame: pd.DataFrame, full: bool) -> Section:
    from receval.report._figures import curves_figure, cutoffs_text
    from receval.report._svg import to_svg

    sec = Section("curves", "Metric@k")
    drawn = frame.dropna(how="all")
    if drawn.empty or frame.shape[1] == 0:
        return sec.p("No ranking metric with a cutoff was evaluated: there is no metric@k "
                     "curve to draw.", "note")
    top = int(frame.index[-1])
    if full:
        sec.p(f"Every ranking metric at every cutoff k = 1 ... {top}, computed in one "
              "evaluation under the settings above (one pass of the engine over the users).")
    else:
        sec.p(f"Points are the cutoffs evaluated ({cutoffs_text(frame)}); pass recs= and "
              "truth= to the report (or use receval report on the command line) to draw every "
              "k from 1 to K.", "note")
    last = drawn.iloc[-1]
    kind = "Line chart" if len(drawn) > 1 else "Chart"
    alt = (f"{kind} of {', '.join(frame.columns)} at the cutoffs {cutoffs_text(frame)}; "
           f"at k = {int(drawn.index[-1])}: "
           + ", ".join(f"{c} {fmt(float(v))}" for c, v in last.items() if not pd.isna(v)))
    fig = curves_figure(frame)
    rows = [[str(k)] + [fmt(float(v)) for v in row] for k, row in drawn.iterrows()]
    data = Table(["k", *frame.columns], rows, numeric=list(range(1, frame.shape[1] + 1)))
    return sec.figure(Figure("fig-curves", to_svg(fig, alt=alt, prefix="curves"), alt, data))


def _distribution_section(ev: EvaluationResult, bins: int) -> Section:
    from receval.report._figures import distribution_figure
    from receval.report._svg import to_svg

    sec = Section("distributions", "Per-user distributions")
    hists = D.distributions(ev, bins=bins)
    if not hists:
        return sec.p("No metric has per-user values.", "note")
    sec.p(f"How each metric's per-user values spread: {bins} equal bins over the metric's "
          "range, the mean over users as a solid line (a micro average, pooled over all "
          "pairs, as a dashed line). Users without a value are counted in the caption.")
    figs = []
    for i, (label, h) in enumerate(hists.items()):
        q = h.quantiles
        alt = (f"Histogram of {label} over {h.n_users:,} users: mean {fmt(h.mean)}, "
               f"median {fmt(q.get(0.5, math.nan))}, quartiles {fmt(q.get(0.25, math.nan))} "
               f"and {fmt(q.get(0.75, math.nan))}; {h.counts[0]:,} users in the lowest bin")
        if h.n_undefined:
            alt += f"; {h.n_undefined:,} users without a value"
        rows = [[f"{fmt(float(a), 3)} - {fmt(float(b), 3)}", fmt(int(c))]
                for a, b, c in zip(h.edges[:-1], h.edges[1:], h.counts, strict=True)]
        data = Table(["per-user value", "users"], rows, numeric=[1])
        fig = distribution_figure(h)
        figs.append(Figure(f"fig-dist-{i + 1}", to_svg(fig, alt=alt, prefix=f"dist{i + 1}"),
                           alt + ".", data))
    return sec.grid(figs)


def _popularity_section(p: D.Popularity) -> Section:
    from receval.report._figures import popularity_figure
    from receval.report._svg import to_svg

    sec = Section("popularity", "Popularity and long tail")
    top = f"top {p.k}" if p.k else "lists"
    sec.p(f"{p.n_train_items:,} items in training, {p.n_recommended_items:,} distinct items "
          f"recommended ({p.n_recommendations:,} recommendations in the users' {top}). The "
          f"short head is the {p.n_head:,} most popular training items, which hold "
          f"{p.head_share:.0%} of the training interactions; they receive "
          f"{p.recs_in_head:.1%} of the recommendations.")
    if p.n_unseen_recommendations:
        sec.p(f"{p.n_unseen_recommendations:,} recommendations are of items absent from "
              "training (ranked last).", "note")
    alt = (f"Long-tail chart over {p.n_items:,} items ordered by training popularity: the "
           f"short head ({p.n_head:,} items) holds {p.head_share:.0%} of training "
           f"interactions and {p.recs_in_head:.1%} of recommendations")
    rows = [[f"{int(a) + 1} - {int(b)}", fmt(float(t) * 100, 2), fmt(float(r) * 100, 2),
             fmt(float(ct) * 100, 2), fmt(float(cr) * 100, 2)]
            for a, b, t, r, ct, cr in zip(p.bin_edges[:-1], p.bin_edges[1:], p.train_share,
                                          p.recs_share, np.cumsum(p.train_share),
                                          np.cumsum(p.recs_share), strict=True)]
    data = Table(["item ranks", "% of training", "% of recommendations",
                  "cumulative % of training", "cumulative % of recommendations"], rows,
                 numeric=[1, 2, 3, 4])
    fig = popularity_figure(p)
    return sec.figure(Figure("fig-popularity", to_svg(fig, alt=alt, prefix="pop"), alt + ".",
                             data))


def _evaluated_section(ev: EvaluationResult, inputs: Mapping[str, Any],
                       names: Mapping[str, str]) -> Section:
    sec = Section("evaluated", "What was evaluated")
    labels = ", ".join(ev.labels)
    conv = ev.settings.get("convention")
    thr = ev.settings.get("relevance_threshold")
    how = (f"under the {conv} convention" if conv else
           f"with receval's defaults (ties '{ev.settings.get('ties')}', relevant: "
           + ("every positive grade" if thr is None else f"grade >= {thr}") + ")")
    sec.p(f"{len(ev.labels)} metrics ({labels}) over {ev.users.n_evaluated:,} evaluated users, "
          f"{how}; the settings are at the end of the page.", "lead")
    rows = input_rows(inputs, names, ev)
    if rows:
        sec.table(Table(["input", "source", "rows", "users", "items"], rows, caption="Inputs",
                        numeric=[2, 3, 4]))
    else:
        u = ev.users
        sec.p(f"Inputs: {u.n_truth_users:,} users in the truth, {u.n_recs_users:,} with "
              "recommendations (pass recs= and truth= to the report for rows and items).")
    return sec


def evaluation_page(
    ev: EvaluationResult, *, recs: Any = None, truth: Any = None, train: Any = None,
    title: str | None = None, max_k: int | None = None, bins: int = 20,
    names: Mapping[str, str] | None = None, notes: Sequence[str] = (),
    generated: Any = None, head_share: float = 0.2, curves: pd.DataFrame | None = None,
    user_groups: Any = None,
) -> Page:
    """Build the page of an evaluation report (see :meth:`EvaluationResult.report`)."""
    names = dict(names or {})
    inputs = {"recs": recs, "truth": truth, "train": train}
    sections = [_evaluated_section(ev, inputs, names), _metrics_section(ev),
                users_section(ev)]
    full = recs is not None and truth is not None
    frame = curves if curves is not None else D.curves(ev, recs if full else None,
                                                       truth if full else None, max_k=max_k)
    sections.append(_curves_section(ev, frame, full or curves is not None))
    sections.append(_distribution_section(ev, bins))
    if train is not None:
        if recs is None or truth is None:
            from receval.exceptions import InvalidParameterError

            raise InvalidParameterError(
                "the popularity figure needs recs= and truth= with train=",
                parameter="train")
        k = D.largest_k(ev)
        pop = D.popularity(D.recommended_items(recs, truth, ev, k), D.train_items(train, ev),
                           k=k, head_share=head_share)
        sections.append(_popularity_section(pop))
    from receval.report._fairness import fairness_section

    fairness = fairness_section(ev, user_groups)
    if fairness is not None:
        sections.append(fairness)
    sections.append(settings_section(ev))
    if notes:
        sec = Section("notes", "Notes")
        for text in notes:
            sec.p(text, "warning")
        sections.append(sec)
    return Page(title or "Evaluation report", "evaluation report", sections,
                "Every number on this page was computed by receval.evaluate.",
                stamp(generated))

