"""Matplotlib figures drawn from the tables of :mod:`receval.report._data` (``receval[plot]``).

Figures are built with :class:`matplotlib.figure.Figure` directly (no pyplot, no global state, no
GUI backend), so they display in notebooks and render to SVG in reports alike.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, cast

import numpy as np
import pandas as pd

from receval.exceptions import BackendUnavailableError

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from receval.report._data import Histogram, Popularity

__all__ = [
    "PALETTE",
    "comparison_figure",
    "curves_figure",
    "cutoffs_text",
    "distribution_figure",
    "distributions_figure",
    "folds_figure",
    "new_figure",
    "over_time_figure",
    "popularity_figure",
    "text",
    "tick_labels",
]

#: Colour-blind-safe palette (Okabe & Ito, 2008), in drawing order.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442",
           "#000000")


def new_figure(width: float, height: float, *,
               layout: Literal["constrained"] | None = "constrained") -> Figure:
    """An empty figure of ``width`` x ``height`` inches.

    ``layout=None`` leaves the margins to the caller (much faster to render than the
    constrained layout, for the many small figures of a report).
    """
    try:
        from matplotlib.figure import Figure
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise BackendUnavailableError(
            "plots need matplotlib: pip install 'receval[plot]'", parameter="plot") from exc
    return Figure(figsize=(width, height), layout=layout)


def text(value: object) -> str:
    r"""A name or label as matplotlib text: never markup, always writable.

    matplotlib reads ``$...$`` as math (``'$x^2$'`` is typeset, ``'$\frac$'`` raises), so
    every ``$`` is escaped; lone surrogates, which no font or encoding holds, become U+FFFD.
    """
    from receval.report._page import clean_text

    return clean_text(str(value)).replace("$", r"\$")


def tick_labels(names: Sequence[object], width: int = 24) -> tuple[list[str], float]:
    """Names as axis labels, and the width in inches their longest line needs.

    Each name goes through :func:`text` and is wrapped at ``width`` characters; a character
    takes about 0.075 in at the default font size.

    Figures with one panel per metric draw the names once per row of panels, in a margin of
    that width, so long names neither squeeze the panels nor push them off the figure.
    """
    import textwrap

    wrapped = ["\n".join(textwrap.wrap(text(n), width, break_long_words=True)) or text(n)
               for n in names]
    longest = max((len(line) for w in wrapped for line in w.split("\n")), default=0)
    return wrapped, 0.5 + 0.075 * longest


def _style(ax: Axes) -> None:
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.grid(True, color="#dddddd", linewidth=0.6)
    ax.set_axisbelow(True)


def curves_figure(frame: pd.DataFrame, *, title: str | None = None) -> Figure:
    """One line per metric over the cutoff ``k`` (rows of ``frame``), points where known."""
    fig = new_figure(8.5, 3.8)
    ax = fig.add_subplot()
    _style(ax)
    ks = frame.index.to_numpy()
    for j, col in enumerate(frame.columns):
        y = frame[col].to_numpy(dtype=np.float64)
        known = ~np.isnan(y)
        ax.plot(ks[known], y[known], marker="o", markersize=3 if known.sum() > 20 else 4,
                linewidth=1.6, color=PALETTE[j % len(PALETTE)], label=text(col))
    ax.set_xlabel("cutoff k (length of the list read)")
    ax.set_ylabel("value (mean over users)")
    ax.set_title(text(title) if title else f"Metric@k for {cutoffs_text(frame)}", loc="left")
    if len(ks):
        ax.set_xlim(0.5, ks[-1] + 0.5)
        step = max(1, math.ceil(len(ks) / 20))
        ax.set_xticks(ks[::step])
    ax.set_ylim(bottom=0)
    if len(frame.columns):
        ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=9)
    return fig


def cutoffs_text(frame: pd.DataFrame) -> str:
    """``'k = 1 ... 20'`` when every cutoff has a value, else the cutoffs that have one."""
    known = [int(k) for k in frame.index[frame.notna().any(axis=1).to_numpy()]]
    if not known:
        return "no cutoff"
    if known == list(range(1, known[-1] + 1)) and len(known) > 2:
        return f"k = 1 ... {known[-1]}"
    return "k = " + ", ".join(map(str, known))


def distribution_figure(h: Histogram, *, ax: Axes | None = None) -> Figure:
    """Histogram of one metric's per-user values, the mean (and a pooled value) marked."""
    fig = new_figure(3.6, 3.0, layout=None) if ax is None else cast("Figure", ax.figure)
    if ax is None:
        ax = fig.add_subplot()
        fig.subplots_adjust(left=0.2, right=0.96, bottom=0.38, top=0.9)
    _style(ax)
    ax.stairs(h.counts, h.edges, fill=True, color=PALETTE[0], alpha=0.8, linewidth=0,
              zorder=1)
    width = float(h.edges[-1] - h.edges[0]) or 1.0
    # a margin on both sides, so that a mean at the range's end (a sparse metric's mean near
    # 0) is not drawn on the axis line; the lines above the bars, a marker above the axes
    ax.set_xlim(h.edges[0] - 0.03 * width, h.edges[-1] + 0.03 * width)
    lines = [(h.mean, PALETTE[3], "-", f"mean over users {h.mean:.4f}")]
    if h.aggregation == "micro" and not math.isnan(h.value):
        lines.append((h.value, PALETTE[1], "--", f"pooled (micro) {h.value:.4f}"))
    for x, color, style, label in lines:
        if math.isnan(x):
            continue
        ax.axvline(x, color=color, linewidth=1.6, linestyle=style, label=label, zorder=3)
        ax.plot([x], [0.97], marker="v", color=color, markersize=6, clip_on=False, zorder=4,
                transform=ax.get_xaxis_transform())
    ax.set_title(text(h.label), loc="left")
    ax.set_xlabel("per-user value")
    ax.set_ylabel("users")
    # below the axes: inside, the legend would cover the bars or the lines themselves
    ax.legend(loc="upper left", bbox_to_anchor=(0.0, -0.3), fontsize=8, frameon=False,
              handlelength=1.5, borderaxespad=0.0)
    return fig


def distributions_figure(hists: Sequence[Histogram], *, columns: int = 3) -> Figure:
    """Every histogram of a result in one grid (for notebooks)."""
    n = max(1, len(hists))
    rows = math.ceil(n / columns)
    fig = new_figure(3.6 * min(n, columns), 3.1 * rows)
    for i, h in enumerate(hists):
        distribution_figure(h, ax=fig.add_subplot(rows, min(n, columns), i + 1))
    return fig


def popularity_figure(p: Popularity) -> Figure:
    """Long tail: cumulative share of training interactions and of recommendations.

    Items are ordered by training popularity (log-scaled rank); a recommender that favours
    popular items has its recommendation curve above the training curve near the head.
    """
    fig = new_figure(8.5, 3.8)
    ax = fig.add_subplot()
    _style(ax)
    x = p.bin_edges[1:]
    train_cum = np.cumsum(p.train_share)
    recs_cum = np.cumsum(p.recs_share)
    ax.fill_between(x, train_cum, color=PALETTE[5], alpha=0.3, linewidth=0)
    ax.plot(x, train_cum, color=PALETTE[0], linewidth=1.6, label="training interactions")
    ax.plot(x, recs_cum, color=PALETTE[3], linewidth=1.8,
            label=f"recommendations (top {p.k})" if p.k else "recommendations")
    ax.axvline(p.n_head, color="#444444", linewidth=1.0, linestyle=":",
               label=f"short head: {p.n_head:,} items, {p.head_share:.0%} of training, "
                     f"{p.recs_in_head:.1%} of recommendations")
    ax.set_xscale("log")
    from matplotlib.ticker import FuncFormatter

    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
    ax.set_xlim(1, max(2, p.n_items))
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("items ranked by training popularity (1 = most popular, log scale)")
    ax.set_ylabel("cumulative share")
    ax.set_title("Popularity: recommendations against training interactions", loc="left")
    # below the axes: over the curves a legend hides them, and the short head's numbers
    ax.legend(loc="upper left", bbox_to_anchor=(0.0, -0.2), fontsize=9, frameon=False,
              ncols=2)
    return fig


def comparison_figure(means: pd.DataFrame, low: pd.DataFrame, high: pd.DataFrame,
                      marks: pd.DataFrame | None = None, *,
                      title: str = "Means with confidence intervals") -> Figure:
    """One panel per metric: each system's mean with its interval; marks above the bars.

    ``means``, ``low`` and ``high`` are system x metric; ``marks`` (same shape, strings) is
    printed next to each mean (e.g. ``"*"`` when it differs significantly from the baseline).
    """
    metrics = list(means.columns)
    n = max(1, len(metrics))
    cols = min(n, 3)
    rows = math.ceil(n / cols)
    systems, label_width = tick_labels(list(means.index))
    fig = new_figure(label_width + 2.6 * cols, 0.6 + (0.45 * len(means) + 0.9) * rows)
    fig.suptitle(text(title), x=0.01, ha="left", fontsize=11)
    y = np.arange(len(systems))[::-1]
    for i, metric in enumerate(metrics):
        ax = fig.add_subplot(rows, cols, i + 1)
        _style(ax)
        m = means[metric].to_numpy(dtype=np.float64)
        lo = low[metric].to_numpy(dtype=np.float64)
        hi = high[metric].to_numpy(dtype=np.float64)
        err = np.vstack([np.clip(m - lo, 0, None), np.clip(hi - m, 0, None)])
        colors = [PALETTE[j % len(PALETTE)] for j in range(len(systems))]
        ax.errorbar(m, y, xerr=err, fmt="none", ecolor="#555555", capsize=3, linewidth=1.2)
        ax.scatter(m, y, color=colors, zorder=3, s=28)
        if marks is not None:
            for yy, mm, hh, mark in zip(y, m, hi, marks[metric].astype(str), strict=True):
                if mark and mark != "nan":
                    ax.annotate(text(mark), (hh if not math.isnan(hh) else mm, yy),
                                xytext=(4, 0), textcoords="offset points", va="center",
                                fontsize=10)
        ax.set_yticks(y, systems)
        ax.tick_params(axis="y", labelleft=i % cols == 0)  # the names once per row
        ax.set_ylim(-0.7, len(systems) - 0.3)
        ax.set_title(text(metric), loc="left")
        ax.set_xlabel("mean over users")
        ax.margins(x=0.25)
    return fig


def folds_figure(per_fold: pd.DataFrame, metrics: Sequence[str], *, model: str = "model",
                 fold: str = "fold") -> Figure:
    """One panel per metric: each fold's value per model, with the mean +- std over folds."""
    n = max(1, len(metrics))
    cols = min(n, 3)
    rows = math.ceil(n / cols)
    models = list(dict.fromkeys(per_fold[model].astype(str)))
    shown, label_width = tick_labels(models)
    fig = new_figure(label_width + 2.6 * cols, 0.4 + (0.4 * len(models) + 1.0) * rows)
    fig.suptitle("Values per fold (dots) with mean and standard deviation over folds",
                 x=0.01, ha="left", fontsize=11)
    y = {name: len(models) - 1 - j for j, name in enumerate(models)}
    for i, metric in enumerate(metrics):
        ax = fig.add_subplot(rows, cols, i + 1)
        _style(ax)
        for j, (name, part) in enumerate(per_fold.groupby(per_fold[model].astype(str),
                                                          sort=False)):
            vals = part[metric].to_numpy(dtype=np.float64)
            vals = vals[~np.isnan(vals)]
            if not len(vals):  # not measured for this model (e.g. no predict)
                continue
            color = PALETTE[j % len(PALETTE)]
            ax.scatter(vals, np.full(len(vals), y[name]), color=color, alpha=0.6, s=16)
            mean = float(vals.mean())
            std = float(vals.std(ddof=1)) if len(vals) > 1 else 0.0
            ax.errorbar([mean], [y[name]], xerr=[[std], [std]], fmt="D", color=color,
                        ecolor="#333333", capsize=3, markersize=5)
        ax.set_yticks(list(y.values()), shown)
        ax.tick_params(axis="y", labelleft=i % cols == 0)  # the names once per row
        ax.set_ylim(-0.7, len(models) - 0.3)
        ax.set_title(text(metric), loc="left")
        ax.set_xlabel("value on the fold")
        ax.margins(x=0.15)
    return fig



def over_time_figure(per_fold: pd.DataFrame, metrics: Sequence[str], origins: Sequence[object],
                     *, model: str = "model", fold: str = "fold") -> Figure:
    """One panel per metric: each model's value per window of a rolling back-test, in time.

    ``origins[f]`` is the origin (start of the test period) of fold ``f``, on the x axis.
    """
    n = max(1, len(metrics))
    cols = min(n, 2)
    rows = math.ceil(n / cols)
    fig = new_figure(4.6 * cols, 0.6 + 2.8 * rows)
    fig.suptitle("Values per window of the rolling back-test, by the window's origin",
                 x=0.01, ha="left", fontsize=11)
    x = pd.to_datetime(pd.Series(list(origins)), errors="coerce")
    times = x if x.notna().all() else pd.Series(range(len(origins)))
    for i, metric in enumerate(metrics):
        ax = fig.add_subplot(rows, cols, i + 1)
        _style(ax)
        for j, (name, part) in enumerate(per_fold.groupby(per_fold[model].astype(str),
                                                          sort=False)):
            part = part.sort_values(fold)
            vals = part[metric].to_numpy(dtype=np.float64)
            if np.isnan(vals).all():  # not measured for this model (e.g. no predict)
                continue
            at = times.iloc[part[fold].to_numpy()].to_numpy()
            ax.plot(at, vals, marker="o", color=PALETTE[j % len(PALETTE)], label=text(name))
        ax.set_title(text(metric), loc="left")
        ax.set_xlabel("window origin")
        ax.tick_params(axis="x", labelrotation=30)
        if i == 0:
            ax.legend(fontsize=8, frameon=False)
    return fig
