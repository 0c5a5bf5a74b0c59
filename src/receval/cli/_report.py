"""``receval report`` and the ``--report FILE`` option: standalone HTML reports from the CLI."""

from __future__ import annotations

import contextlib
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

from receval.exceptions import RecevalError

__all__ = ["Steps", "report", "write_report"]

#: evaluate's options that make no sense for a report
_NOT_FOR_REPORT = {"fmt", "per_user", "all_conventions", "recs", "truth", "report_file"}


class Steps:
    """A rich progress bar over the named steps of a long command.

    Shown on an interactive stderr only (never in pipes, files or CI logs).
    """

    def __init__(self, total: int, *, show: bool | None = None) -> None:
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        self.show = sys.stderr.isatty() if show is None else show
        self._bar = Progress(TextColumn("{task.description}"), BarColumn(),
                             TimeElapsedColumn(), disable=not self.show, transient=True)
        self._task = self._bar.add_task("", total=total)

    def __enter__(self) -> Steps:
        self._bar.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._bar.__exit__(*exc)

    @contextlib.contextmanager
    def step(self, description: str) -> Iterator[None]:
        """Run one step under ``description``; advance the bar when it is done."""
        self._bar.update(self._task, description=description)
        yield
        self._bar.advance(self._task)


def write_report(ev: Any, path: Path, *, recs: Any, truth: Any, train: Any = None,
                 names: dict[str, str] | None = None, title: str | None = None,
                 max_k: int | None = None, bins: int = 20, notes: list[str] | None = None,
                 steps: Steps | None = None) -> Path:
    """Write the evaluation report of ``ev`` (curves from ``recs`` and ``truth``)."""
    from receval.report import _data as D
    from receval.report._evaluation import evaluation_page
    from receval.report._page import render, write

    own = steps is None
    bar = Steps(3) if steps is None else steps
    with bar if own else contextlib.nullcontext():
        with bar.step("metric@k curves (every cutoff)"):
            frame = D.curves(ev, recs, truth, max_k=max_k)
        with bar.step("figures"):
            html = render(evaluation_page(ev, recs=recs, truth=truth, train=train, title=title,
                                          max_k=max_k, bins=bins, names=names,
                                          notes=notes or (), curves=frame))
        with bar.step(f"writing {path}"):
            return write(html, path)


def _report(recs: Path, truth: Path, output: Path, train: Path | None, title: str | None,
            max_k: int | None, bins: int, metrics: tuple[str, ...], convention: str | None,
            **evaluate_options: Any) -> None:
    import receval as rv
    from receval.cli import _evaluate_options, _fail
    from receval.data._files import read_table

    try:
        options = _evaluate_options(**evaluate_options)
        with Steps(5) as steps:
            with steps.step("reading inputs"):
                recs_frame = read_table(recs, role="recs")
                truth_frame = read_table(truth, role="truth")
                train_frame = None if train is None else read_table(train, role="truth")
            with steps.step("evaluating"), warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", rv.RecevalWarning)
                ev = rv.evaluate(recs_frame, truth_frame, list(metrics),
                                 convention=convention, **options)
            names = {"recs": str(recs), "truth": str(truth)}
            if train is not None:
                names["train"] = str(train)
            notes = list(dict.fromkeys(str(w.message) for w in caught))
            write_report(ev, output, recs=recs_frame, truth=truth_frame, train=train_frame,
                         names=names, title=title or f"{recs.name} vs {truth.name}",
                         max_k=max_k, bins=bins, notes=notes, steps=steps)
    except RecevalError as exc:
        _fail(exc)
        return
    for note in notes:
        click.echo(f"note: {note}", err=True)
    click.echo(f"wrote {output} ({output.stat().st_size / 1e6:.2f} MB): "
               f"{', '.join(f'{k} {v:.4f}' for k, v in ev.to_dict().items())}")


def report(evaluate: click.Command) -> click.Command:
    """The ``report`` command: ``evaluate``'s options plus where to write and what to draw."""
    params = [
        click.Argument(["recs"], type=click.Path(exists=True, dir_okay=False, path_type=Path)),
        click.Argument(["truth"], type=click.Path(exists=True, dir_okay=False,
                                                  path_type=Path)),
        click.Option(["-o", "--output"], type=click.Path(dir_okay=False, path_type=Path),
                     default=Path("report.html"), show_default=True,
                     help="The HTML file to write."),
        click.Option(["--train"], type=click.Path(exists=True, dir_okay=False, path_type=Path),
                     default=None, help="Training interactions: adds the popularity / long "
                     "tail figure."),
        click.Option(["--title"], default=None, help="Title of the page."),
        click.Option(["--max-k"], type=click.IntRange(min=1), default=None,
                     help="Largest cutoff of the metric@k curves (default: the largest k "
                     "asked)."),
        click.Option(["--bins"], type=click.IntRange(min=1), default=20, show_default=True,
                     help="Bins of the per-user histograms."),
    ]
    params += [p for p in evaluate.params if p.name not in _NOT_FOR_REPORT]
    return click.Command(
        "report", params=params, callback=_report,
        help="Write a standalone HTML report of RECS evaluated against TRUTH: settings, user "
             "accounting, metrics, metric@k curves, per-user distributions (and popularity "
             "with --train). The file opens from disk with no network.",
        short_help="Write a standalone HTML report of an evaluation.")
