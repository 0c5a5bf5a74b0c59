"""The fairness section of a report: group values with intervals, exposure, disparity tests.

For an evaluation: each group metric's per-group table and bars (exposure shares, RSP / REO
probabilities, delta GAP, ...; ``ev.groups(label)``), and, given user groups, each per-user
metric by user group with its bootstrap interval and the disparity table of
:func:`receval.stats.disparity`. For a comparison: the disparity tests of
``cmp.disparity(user_groups)``. Every number comes from those functions; this module draws.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from receval.report._page import Figure, Section, Table, fmt

__all__ = ["comparison_fairness_section", "fairness_section"]

_PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9")


def _bars(names: list[str], values: np.ndarray, low: np.ndarray | None,
          high: np.ndarray | None, ylabel: str, alt: str, prefix: str) -> str:
    """Bars (one per group) with error bars when an interval is given, as inline SVG."""
    from receval.report._figures import new_figure
    from receval.report._svg import to_svg

    fig = new_figure(max(3.0, 0.6 * len(names) + 1.5), 2.6)
    ax = fig.add_subplot()
    x = np.arange(len(names))
    err = None
    if low is not None and high is not None:
        err = np.vstack([np.maximum(values - low, 0), np.maximum(high - values, 0)])
    ax.bar(x, values, color=[_PALETTE[i % len(_PALETTE)] for i in range(len(names))],
           yerr=err, capsize=3)
    ax.set_xticks(x, names, rotation=30 if len(names) > 4 else 0)
    ax.set_ylabel(ylabel)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return to_svg(fig, alt=alt, prefix=prefix)


def _group_metric_figures(ev: Any) -> list[Figure]:
    figures = []
    for i, label in enumerate(ev.settings.get("groups", {})):
        table = ev.groups(label)
        column = next((c for c in ("share", "probability", "delta_gap", "bd")
                       if c in table.columns), table.columns[-1])
        names = [" / ".join(map(str, i)) if isinstance(i, tuple) else str(i)
                 for i in table.index]
        values = table[column].to_numpy(dtype=float)
        alt = (f"{label}: {column} by group, " + ", ".join(
            f"{n} {fmt(float(v))}" for n, v in zip(names, values, strict=True)))
        rows = [[n, *[fmt(float(x)) if isinstance(x, (float, np.floating)) else fmt(x)
                      for x in r]] for n, r in zip(names, table.itertuples(index=False),
                                                   strict=True)]
        data = Table(["group", *table.columns], rows,
                     numeric=list(range(1, len(table.columns) + 1)))
        svg = _bars(names, values, None, None, column, alt, f"fair-g{i + 1}")
        figures.append(Figure(f"fig-fair-group-{i + 1}", svg,
                              f"{alt} (value of the metric: {fmt(ev[label])}).", data))
    return figures


def _user_group_figures(ev: Any, user_groups: Any, n_resamples: int, seed: int
                        ) -> tuple[list[Figure], pd.DataFrame]:
    d = ev.disparity(user_groups, n_resamples=n_resamples, seed=seed)
    figures = []
    for i, label in enumerate(d.table.index):
        g = d.groups.loc[label]
        names = [str(x) for x in g.index]
        alt = (f"{label} by user group, with {int(d.settings['confidence'] * 100)} % "
               f"bootstrap intervals: " + ", ".join(
                   f"{n} {fmt(float(v))} [{fmt(float(lo))}, {fmt(float(hi))}]"
                   for n, v, lo, hi in zip(names, g["value"], g["low"], g["high"],
                                           strict=True)))
        rows = [[n, fmt(float(v)), fmt(float(lo)), fmt(float(hi)), fmt(int(u))]
                for n, v, lo, hi, u in zip(names, g["value"], g["low"], g["high"],
                                           g["n_users"], strict=True)]
        data = Table(["user group", "value", "low", "high", "users"], rows,
                     numeric=[1, 2, 3, 4])
        svg = _bars(names, g["value"].to_numpy(float), g["low"].to_numpy(float),
                    g["high"].to_numpy(float), label, alt, f"fair-u{i + 1}")
        figures.append(Figure(f"fig-fair-users-{i + 1}", svg, alt + ".", data))
    return figures, d.table


def fairness_section(ev: Any, user_groups: Any = None, *, n_resamples: int = 2000,
                     seed: int = 0) -> Section | None:
    """The section, or None when the result has no group metric and no user groups."""
    has_groups = bool(ev.settings.get("groups"))
    if not has_groups and user_groups is None:
        return None
    sec = Section("fairness", "Fairness and exposure")
    sec.p("Group metrics (exposure, RSP, REO, delta GAP, bias disparity) have a value per "
          "group, shown below with the metric's value; per-user metrics by user group show "
          "each group's value with a percentile bootstrap interval (users resampled within "
          "their group), and the disparity between groups.", "lead")
    if has_groups:
        sec.h3("Item and user groups of the group metrics")
        sec.grid(_group_metric_figures(ev))
    if user_groups is not None:
        figures, table = _user_group_figures(ev, user_groups, n_resamples, seed)
        if figures:
            sec.h3("Per-user metrics by user group")
            sec.grid(figures)
            rows = [[str(label), fmt(float(r["value"])), fmt(float(r["low"])),
                     fmt(float(r["high"])), fmt(int(r["n_users"])), fmt(int(r["n_groups"])),
                     fmt(int(r["without_group"]))] for label, r in table.iterrows()]
            sec.table(Table(["metric", "max gap", "low", "high", "users", "groups",
                             "without group"], rows, caption="Disparity between user "
                            "groups (largest minus smallest group value)",
                            numeric=[1, 2, 3, 4, 5, 6]))
    return sec


def comparison_fairness_section(cmp: Any, user_groups: Any, *, summary: str = "max_gap"
                                ) -> Section:
    """The disparity tests of a comparison (``cmp.disparity(user_groups)``)."""
    t = cmp.disparity(user_groups, summary=summary)
    sec = Section("fairness", "Disparity between user groups")
    s = cmp.settings
    sec.p(f"Does a system change the {summary} of a metric between user groups? Paired by "
          f"user, users resampled within their groups ({s['n_resamples']:,} resamples, seed "
          f"{s['seed']}); p-values of the paired bootstrap test, "
          f"{s['correction'] or 'no correction'} over every row.", "lead")
    rows = [[r["metric"], r["system_a"], r["system_b"], fmt(float(r["value_a"])),
             fmt(float(r["value_b"])), fmt(float(r["diff"])),
             f"[{fmt(float(r['ci_low']))}, {fmt(float(r['ci_high']))}]",
             fmt(float(r["p_adjusted"])), "yes" if r["significant"] else "no"]
            for _, r in t.iterrows()]
    sec.table(Table(["metric", "system a", "system b", "a", "b", "a - b", "interval",
                     "p (adjusted)", "significant"], rows,
                    caption=f"Disparity ({summary}) tests", numeric=[3, 4, 5, 7]))
    return sec
