"""What ``explain`` returns: the value and the worked table, printed as a textbook does."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from receval.metrics import Metric

__all__ = ["Explanation", "ListExplanation", "fmt", "render", "sum_line"]


def fmt(x: float) -> str:
    """A number as the tables show it (4 significant digits, 6 when large)."""
    return f"{x:.4g}" if abs(x) < 1e4 else f"{x:.6g}"


def _fmt_list(xs: Sequence[float]) -> str:
    return "[" + ", ".join(fmt(float(x)) for x in xs) + "]"


def render(frame: pd.DataFrame) -> str:
    """A worked table as plain text."""
    from tabulate import tabulate

    rows = [[fmt(v) if isinstance(v, float) else v for v in row]
            for row in frame.itertuples(index=False)]
    return str(tabulate(rows, headers=list(frame.columns), tablefmt="simple",
                        disable_numparse=True, stralign="right"))


def sum_line(name: str, contrib: Iterable[float], total: float) -> str:
    """``name = a + b + ... = total``."""
    terms = " + ".join(fmt(float(c)) for c in contrib) or "0"
    return f"{name} = {terms} = {fmt(total)}"


@dataclass(frozen=True)
class Explanation:
    """A metric's value on one list and the arithmetic behind it.

    Attributes
    ----------
    metric : Metric
        The metric explained.
    value : float
        Its value, computed by the same engine code as :func:`receval.evaluate`.
    table : pandas.DataFrame
        One row per rank within the cutoff: grade, relevance, gain, discount, contribution
        (and running hits / precision where the metric uses them).
    ideal_table : pandas.DataFrame or None
        The same for the ideal ordering (nDCG, rank score).
    numerator, denominator : float
        The two terms whose ratio is the value.
    lines : tuple of str
        The closing arithmetic, one line per step.
    """

    metric: Metric
    grades: tuple[float, ...]
    value: float
    table: pd.DataFrame
    ideal_table: pd.DataFrame | None
    numerator: float
    denominator: float
    lines: tuple[str, ...]

    def __float__(self) -> float:
        return self.value

    def __str__(self) -> str:
        parts = [f"{self.metric.label} of grades {_fmt_list(self.grades)}", "",
                 render(self.table)]
        if self.ideal_table is not None:
            parts += ["", "ideal ordering:", render(self.ideal_table)]
        parts += ["", *self.lines]
        return "\n".join(parts)

    def __repr__(self) -> str:
        return f"Explanation({self.metric.label}={self.value:.6g})"

    def _repr_html_(self) -> str:
        import html

        out = f"<p><b>{html.escape(self.metric.label)}</b> = {self.value:.6g}</p>"
        out += self.table.to_html(index=False)
        if self.ideal_table is not None:
            out += "<p>ideal ordering</p>" + self.ideal_table.to_html(index=False)
        return out + "<pre>" + html.escape("\n".join(self.lines)) + "</pre>"


@dataclass(frozen=True)
class ListExplanation(Explanation):
    """A per-list metric on one list of items, with its worked table."""

    items: tuple[Any, ...] = ()
    positions: pd.DataFrame | None = None  # per-position weights (AWRF)

    def __str__(self) -> str:
        head = [f"{self.metric.label} of items {list(self.items)}", ""]
        if self.positions is not None:
            head += [render(self.positions), ""]
        return "\n".join([*head, render(self.table), "", *self.lines])
