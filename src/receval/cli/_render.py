"""Terminal rendering of results and metric lists with rich."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from rich.table import Table

if TYPE_CHECKING:
    import pandas as pd

    from receval._result import EvaluationResult
    from receval.metrics import MetricInfo

__all__ = ["frame_table", "metric_detail", "metrics_table", "notes", "result_table",
           "users_table"]


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


def notes(console: Any, messages: list[str], elapsed: float) -> None:
    """Warnings raised during the run, then the time taken."""
    for message in messages:
        console.print(f"[yellow]note:[/] {message}")
    console.print(f"[dim]computed in {elapsed:.2f} s[/]")
