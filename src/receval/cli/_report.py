"""``receval report`` and the ``--report FILE`` option: standalone HTML reports from the CLI."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

from receval.cli._options import evaluate_flags, read_evaluate_flags
from receval.exceptions import RecevalError

__all__ = ["Steps", "report", "write_report"]

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
        with bar.step("writing the page"):
            return write(html, path)


@click.command(
    "report", short_help="Write a standalone HTML report of an evaluation.",
    help="Write a standalone HTML report of RECS evaluated against TRUTH: settings, user "
         "accounting, metrics, metric@k curves, per-user distributions (and popularity with "
         "--train). The file opens from disk with no network.")
@click.argument("recs", type=click.Path(exists=True, path_type=Path))
@click.argument("truth", type=click.Path(exists=True, path_type=Path))
@click.option("-m", "--metric", "metrics", multiple=True, required=True,
              help="A metric, e.g. ndcg@10 or 'ap(denominator=relevant)@10'; repeatable.")
@click.option("-o", "--output", type=click.Path(path_type=Path), default=Path("report.html"),
              show_default=True, help="The HTML file to write.")
@click.option("--title", default=None, help="Title of the page.")
@click.option("--max-k", type=click.IntRange(min=1), default=None,
              help="Largest cutoff of the metric@k curves (default: the largest k asked).")
@click.option("--bins", type=click.IntRange(min=1), default=20, show_default=True,
              help="Bins of the per-user histograms.")
@evaluate_flags
def report(recs: Path, truth: Path, metrics: tuple[str, ...], output: Path,
           title: str | None, max_k: int | None, bins: int, **given: Any) -> None:
    """The ``report`` command (see its help)."""
    import receval as rv
    from receval.cli._common import fail as _fail
    from receval.cli._common import input_names as _names
    from receval.cli._common import inputs as _inputs
    from receval.cli._common import read_inputs as _read_inputs
    from receval.cli._common import recorded
    from receval.cli._outputs import check_paths, staged

    try:
        inputs = _inputs(recs=recs, truth=truth, **given)
        out = check_paths({"--output": output}, inputs)["--output"]
        with Steps(5) as steps:
            with steps.step("reading inputs"):
                options = read_evaluate_flags(given)
                recs_frame, truth_frame = _read_inputs(recs, truth, given)
            with steps.step("evaluating"), recorded() as notes:
                ev = rv.evaluate(recs_frame, truth_frame, list(metrics), **options)
            with staged([out]) as tmp:
                write_report(ev, tmp[out], recs=recs_frame, truth=truth_frame,
                             train=options.get("train"), names=_names(inputs),
                             title=title or f"{recs.name} vs {truth.name}", max_k=max_k,
                             bins=bins, notes=notes, steps=steps)
    except RecevalError as exc:
        _fail(exc)
        return
    for note in notes:
        click.echo(f"note: {note}", err=True)
    click.echo(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB): "
               f"{', '.join(f'{k} {v:.4f}' for k, v in ev.to_dict().items())}")
