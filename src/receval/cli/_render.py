"""Terminal rendering of results and metric lists with rich."""

from __future__ import annotations

import math
import sys
from typing import TYPE_CHECKING, Any

from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:
    import pandas as pd

    from receval._result import EvaluationResult
    from receval.metrics import MetricInfo

__all__ = ["Printer", "frame_table", "metric_detail", "metrics_table", "notes", "result_table",
           "table_markdown", "users_table"]


def is_terminal() -> bool:
    """Whether standard output is an interactive terminal (not a pipe or a file)."""
    isatty = getattr(sys.stdout, "isatty", None)
    return bool(isatty is not None and isatty())


def _plain(cell: Any) -> str:
    """A cell or title without rich markup."""
    if isinstance(cell, Text):
        return cell.plain
    return Text.from_markup(str(cell)).plain


def table_markdown(table: Table) -> str:
    """A rich table as a GitHub markdown table (its title as a line above), never wrapped."""
    from tabulate import tabulate

    headers = [_plain(c.header) for c in table.columns]
    columns = [[_plain(cell) for cell in c._cells] for c in table.columns]
    rows = list(zip(*columns, strict=True)) if columns else []
    align = ["right" if c.justify == "right" else "left" for c in table.columns]
    body = tabulate(rows, headers=headers, tablefmt="github", colalign=align,
                    disable_numparse=True)
    title = _plain(table.title) if table.title else ""
    return f"{title}\n\n{body}\n" if title else f"{body}\n"


class Printer:
    """Standard output of the commands: rich tables on a terminal, markdown in a pipe.

    A terminal gets rich's tables fitted to its width; a pipe or a file gets every table as
    markdown and every line whole (rich would wrap them at 80 columns there).
    """

    def __init__(self, terminal: bool | None = None) -> None:
        from rich.console import Console

        self.terminal = is_terminal() if terminal is None else terminal
        self.console = Console(highlight=False, soft_wrap=False) if self.terminal else None

    def print(self, obj: Any) -> None:
        """Print a table or a line of text (rich markup allowed)."""
        import click

        if self.console is not None:
            self.console.print(obj)
        elif isinstance(obj, Table):
            click.echo(table_markdown(obj))
        else:
            click.echo(_plain(obj))


def _num(v: float) -> str:
    return "nan" if math.isnan(v) else f"{v:.4f}"


def result_table(results: dict[str, EvaluationResult], *, title: str = "") -> Table:
    """Metrics down, runs across; the best value of each row in bold."""
    table = Table(title=title, title_justify="left")
    table.add_column("metric")
    for name in results:
        table.add_column(name, justify="right")
    first = next(iter(results.values()))
    for label in first.labels:
        metric = first.summaries[label].metric
        values = [r[label] for r in results.values()]
        finite = [v for v in values if not math.isnan(v)]
        best = (max(finite) if metric.higher_is_better else min(finite)) if finite else None
        cells = [f"[bold]{_num(v)}[/]" if len(values) > 1 and v == best else _num(v)
                 for v in values]
        table.add_row(label, *cells)
    return table


def frame_table(frame: pd.DataFrame, *, title: str = "") -> Table:
    """Any small DataFrame: its index down, its columns across (numbers to 4 digits)."""
    table = Table(title=title, title_justify="left")
    table.add_column("")
    for col in frame.columns:
        table.add_column(str(col), justify="right")
    for name, row in frame.iterrows():
        table.add_row(str(name), *(_cell(v) for v in row))
    return table


def conventions_long(frame: pd.DataFrame, settings: list[str]) -> tuple[Table, Table]:
    """The conventions table folded to fit a terminal.

    One row per (metric, library), then one row per library with the settings it changes.
    """
    metrics = Table(title="conventions: how each library defines each metric",
                    title_justify="left")
    for name in ("metric", "library", "library's name", "receval label"):
        metrics.add_column(name, overflow="fold")
    forms = [row for row in frame.index if row not in settings]
    for form in forms:
        cells = [(conv, str(frame.at[form, conv])) for conv in frame.columns]
        for j, (conv, cell) in enumerate(cells):
            theirs, _, ours = cell.partition(" = ")
            if conv == "receval":
                theirs, ours = "", cell
            metrics.add_row(form if j == 0 else "", conv, theirs, ours,
                            end_section=j == len(cells) - 1)
    changed = Table(title="settings each library changes (receval's default in the first "
                    "row)", title_justify="left")
    changed.add_column("library")
    changed.add_column("settings", overflow="fold")
    cells = frame.astype(str)
    for conv in frame.columns:
        values = [f"{s}={cells.at[s, conv]}" for s in settings
                  if conv == "receval" or cells.at[s, conv] != cells.at[s, "receval"]]
        changed.add_row(conv, ", ".join(values) or "-")
    return metrics, changed


def _cell(v: Any) -> str:
    if isinstance(v, float):
        return "-" if math.isnan(v) else f"{v:.4f}"
    return str(v)


def users_table(ev: EvaluationResult) -> Table:
    """Where every user went."""
    table = Table(title="users", title_justify="left")
    table.add_column("users")
    table.add_column("count", justify="right")
    table.add_column("handling")
    for name, row in ev.users.summary().iterrows():
        table.add_row(str(name), str(row["count"]), str(row["handling"]))
    return table


def metrics_table(infos: list[MetricInfo]) -> Table:
    """One row per metric: name, aliases, @k, parameters, summary."""
    table = Table(title="metrics (name[(param=value, ...)][@k])", title_justify="left")
    table.add_column("name", no_wrap=True)
    for col in ("aliases", "@k", "parameters", "what it measures"):
        table.add_column(col)
    for info in infos:
        params = ", ".join(
            f"{p}={'|'.join(str(o) for o in spec['options'] if o is not None)}"
            if spec["options"] else f"{p}={spec['default']}"
            for p, spec in info.parameters.items())
        table.add_row(info.name, ", ".join(info.aliases), "yes" if info.takes_k else "",
                      params, info.summary)
    return table


def metric_detail(console: Any, info: MetricInfo, doc: str) -> None:
    """Print one metric's documentation and parameters."""
    console.print(f"[bold]{info.name}[/] ({info.display}); aliases: {', '.join(info.aliases)}")
    console.print(doc.strip())
    for name, spec in info.parameters.items():
        opts = f" one of {spec['options']}" if spec["options"] else ""
        console.print(f"  {name} (default {spec['default']!r}){opts}: {spec['doc']}")


def notes(messages: list[str], elapsed: float | None = None) -> None:
    """Print each distinct warning of the run once, then the time taken, to stderr."""
    import click

    for message in dict.fromkeys(messages):
        click.echo(f"note: {message}", err=True)
    if elapsed is not None:
        click.echo(f"computed in {elapsed:.2f} s", err=True)
