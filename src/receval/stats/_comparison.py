"""The result of a comparison: means, intervals, tests, and tables in ranx's style."""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from receval._names import TEST_NAMES
from receval.exceptions import InvalidParameterError

if TYPE_CHECKING:
    from receval.report._plots import ComparisonPlots

__all__ = ["Comparison"]

_SUPERSCRIPTS = "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖqʳˢᵗᵘᵛʷˣʸᶻ"


def _letter(i: int) -> str:
    """a, b, ..., z, then a1, b1, ... for more than 26 systems."""
    return "abcdefghijklmnopqrstuvwxyz"[i % 26] + (str(i // 26) if i >= 26 else "")


_TEX = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
        "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
        "\\": r"\textbackslash{}"}


def _tex(text: str) -> str:
    """Escape LaTeX's special characters in a name or label."""
    return "".join(_TEX.get(c, c) for c in text)


@dataclass(frozen=True)
class Comparison:
    """Systems compared on per-user values: means, intervals, paired tests.

    Attributes
    ----------
    systems : list of str
        The systems, in the order given; system ``i`` is marked by the i-th letter.
    ci : pandas.DataFrame
        Index (system, metric); columns ``mean``, ``low``, ``high`` (the percentile
        bootstrap interval of the mean over users at ``settings['confidence']``) and
        ``n_users``.
    tests : pandas.DataFrame
        One row per metric and pair: ``metric``, ``system_a``, ``system_b``, ``mean_a``,
        ``mean_b``, ``diff`` (= mean_a - mean_b), ``effect_size``, ``statistic`` (positive
        when system a scores higher), ``p_value``, ``p_adjusted``, ``significant``
        (``p_adjusted < alpha``), for the bootstrap test ``ci_low`` and ``ci_high`` (the
        interval of the difference), and ``n_users``.
    friedman : pandas.DataFrame or None
        With more than two systems: Friedman's test per metric (``statistic``, ``p_value``,
        ``n_users``, ``df`` and each system's average rank, 1 = best).
    nemenyi : pandas.DataFrame or None
        With more than two systems: Nemenyi's post-hoc test per metric and pair (average
        ranks, ``statistic`` z, ``p_value``), Demšar (2006).
    users : pandas.DataFrame
        Per system: users with a value, truth users it has no list for (``lacking``), and
        the users compared.
    coverage : pandas.DataFrame or None
        For rating metrics of recommendation tables: per system the truth pairs it
        predicts, the truth pairs, and the share (its prediction coverage).
    settings : dict
        Every option of the call, the interval method, the number of tests, and the
        evaluation settings.
    """

    systems: list[str]
    means: pd.DataFrame = field(repr=False)
    ci: pd.DataFrame = field(repr=False)
    tests: pd.DataFrame = field(repr=False)
    friedman: pd.DataFrame | None = field(repr=False)
    nemenyi: pd.DataFrame | None = field(repr=False)
    users: pd.DataFrame = field(repr=False)
    coverage: pd.DataFrame | None = field(repr=False)
    settings: dict[str, Any] = field(repr=False)
    higher_is_better: dict[str, bool] = field(repr=False)
    per_user: dict[str, Any] | None = field(default=None, repr=False, compare=False)
    """Each system's per-user values and the metrics (for :meth:`disparity`)."""

    def disparity(self, groups: Any, metrics: Any = None, *, summary: str = "max_gap",
                  correction: str | None = None, alpha: float | None = None,
                  confidence: float | None = None, n_resamples: int | None = None,
                  seed: int | None = None) -> pd.DataFrame:
        """Test whether the systems differ in a disparity between user groups.

        Paired by user, users resampled within their groups (the same draws for every
        system); one row per metric and pair (or against the baseline), ``correction`` over
        every row. The users are the comparison's own (those of ``cmp.tests``' ``n_users``,
        e.g. under ``users='common'`` none that a system has no list for) that have a group.
        Group keys must be of the type of the user ids (``IdTypeMismatchError`` otherwise,
        as ``ev.by``). Options left at None take the comparison's; ``correction`` also
        takes ``"none"``. See
        :func:`receval.stats._disparity.disparity_tests` and ``docs/fairness.md``.
        """
        from receval.stats._disparity import disparity_tests

        if self.per_user is None:
            raise InvalidParameterError(
                "this comparison keeps no per-user values (it was built by an older "
                "receval): compare again", parameter="per_user")
        s = self.settings
        objs = self.per_user["metrics"]
        labels = [x for x in (self.means.columns if metrics is None else
                              ([metrics] if isinstance(metrics, str) else metrics))
                  if metrics is not None or x in objs]
        return disparity_tests(
            self.per_user["values"], objs, groups, labels, summary=summary,
            baseline=s["baseline"], correction=correction,
            alpha=s["alpha"] if alpha is None else alpha,
            confidence=s["confidence"] if confidence is None else confidence,
            n_resamples=s["n_resamples"] if n_resamples is None else n_resamples,
            seed=s["seed"] if seed is None else seed,
            compared=self.per_user.get("compared"))

    def table(self) -> pd.DataFrame:
        """One row per system, one column per metric: the means over the compared users.

        For rating metrics of recommendation tables, ``'<label> [common]'`` is the metric
        on the truth pairs every system predicts and ``'<label> [fill=...]'`` the metric
        with the missing predictions filled; the column ``coverage`` is each system's
        share of truth pairs predicted.
        """
        out = self.means.copy()
        if self.coverage is not None:
            out["coverage"] = self.coverage["coverage"].reindex(out.index)
        return out

    # -- marks -------------------------------------------------------------------------------
    def beats(self, system: str, metric: str) -> list[str]:
        """The systems that ``system`` significantly beats on ``metric``."""
        t = self.tests[(self.tests["metric"] == metric) & self.tests["significant"]]
        out = []
        for a, b, diff in zip(t["system_a"], t["system_b"], t["diff"], strict=True):
            better_a = diff > 0 if self.higher_is_better.get(metric, True) else diff < 0
            if a == system and better_a:
                out.append(b)
            elif b == system and not better_a and diff != 0:
                out.append(a)
        return [s for s in self.systems if s in out]

    def _marks(self, system: str, metric: str) -> list[str]:
        return [_letter(self.systems.index(s)) for s in self.beats(system, metric)]

    def _legend(self) -> str:
        s = self.settings
        corr = s["correction"] or "no correction"
        return (f"Superscripts mark the systems each one beats significantly ("
                f"{TEST_NAMES[s['test']]}, {corr} over {s['n_tests']} tests, alpha = "
                f"{s['alpha']:g}).")

    def _cells(self, digits: int, mark: Any) -> tuple[list[str], list[list[str]]]:
        labels = list(self.means.columns)
        rows = []
        for i, system in enumerate(self.systems):
            row = [_letter(i), system]
            for label in labels:
                value = float(self.means.at[system, label])  # type: ignore[arg-type]
                text = "nan" if math.isnan(value) else f"{value:.{digits}f}"
                row.append(text + mark(self._marks(system, label)))
            rows.append(row)
        return ["#", "system", *labels], rows

    def to_markdown(self, digits: int = 4) -> str:
        """A Markdown table of the means, marked in ranx's style, then the legend.

        Each mean carries the superscript letters of the systems it beats significantly.
        """
        from tabulate import tabulate

        head, rows = self._cells(digits, lambda ls: "".join(
            _SUPERSCRIPTS[ord(x[0]) - 97] + x[1:] for x in ls))
        return (str(tabulate(rows, headers=head, tablefmt="github", disable_numparse=True))
                + "\n\n" + self._legend())

    def to_latex(self, digits: int = 4) -> str:
        """A LaTeX (booktabs) table; marks as ``0.3210$^{bc}$``."""
        from tabulate import tabulate

        head, rows = self._cells(digits, lambda ls: f"$^{{{''.join(ls)}}}$" if ls else "")
        head = [_tex(h) for h in head]
        rows = [[r[0], _tex(r[1]), *r[2:]] for r in rows]
        body = str(tabulate(rows, headers=head, tablefmt="latex_raw", disable_numparse=True))
        return f"% {self._legend()}\n{body}"

    def to_html(self, digits: int = 4) -> str:
        """An HTML table; marks as ``<sup>bc</sup>``."""
        head, rows = self._cells(digits, lambda ls: f"<sup>{''.join(ls)}</sup>" if ls else "")
        th = "".join(f"<th>{html.escape(h)}</th>" for h in head)
        body = "".join("<tr>" + "".join(
            f"<td>{c if j >= 2 else html.escape(c)}</td>" for j, c in enumerate(r)) + "</tr>"
            for r in rows)
        return (f'<table class="receval-comparison"><thead><tr>{th}</tr></thead>'
                f"<tbody>{body}</tbody></table>\n<p>{html.escape(self._legend())}</p>")

    # -- report and figures (receval[report], receval[plot]; imported on use) -----------------
    def report(self, path: str | Path, *, title: str | None = None,
               generated: Any = None, user_groups: Any = None) -> Path:
        """Write a standalone HTML report of this comparison to ``path``.

        One file that opens from disk with no network (styles inline, figures as inline
        SVG): see ``docs/reports.md``. Needs ``pip install 'receval[report]'``. With
        ``user_groups`` (user id -> group) it adds the disparity tests (:meth:`disparity`).
        """
        from receval.report import write_comparison_report

        return write_comparison_report(self, path, title=title, generated=generated,
                                       user_groups=user_groups)

    @property
    def plot(self) -> ComparisonPlots:
        """Matplotlib figures of this comparison (``pip install 'receval[plot]'``)."""
        from receval.report._plots import ComparisonPlots

        return ComparisonPlots(self)

    def _repr_html_(self) -> str:
        return self.to_html()

    def __repr__(self) -> str:
        s = self.settings
        head = (f"Comparison({len(self.systems)} systems, {len(self.means.columns)} metrics, "
                f"test={s['test']!r}, correction={s['correction']!r}, users={s['users']!r})")
        return head + "\n" + self.to_markdown()
