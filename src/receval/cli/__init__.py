"""The ``receval`` command line: evaluate, report, explain, metrics, conventions, demo, run."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import click

from receval.cli._common import console as _console
from receval.cli._common import fail as _fail
from receval.cli._common import input_names as _names
from receval.cli._common import inputs as _inputs
from receval.cli._common import read_inputs as _read_inputs
from receval.cli._common import recorded
from receval.cli._options import evaluate_flags, read_evaluate_flags
from receval.cli._render import notes
from receval.exceptions import RecevalError

__all__ = ["main"]

_FORMATS = ("table", "markdown", "latex", "json", "csv")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="receval")
def cli() -> None:
    """receval: exact, explicit and fast evaluation of recommender systems."""


_INPUT = click.Path(exists=True, path_type=Path)


@cli.command()
@click.argument("recs", type=_INPUT)
@click.argument("truth", type=_INPUT)
@click.option("-m", "--metric", "metrics", multiple=True, required=True,
              help="A metric, e.g. ndcg@10 or 'ap(denominator=relevant)@10'; repeatable.")
@click.option("--all-conventions", is_flag=True,
              help="Evaluate under receval's defaults and every convention, side by side.")
@evaluate_flags
@click.option("--format", "fmt", type=click.Choice(_FORMATS), default="table",
              show_default=True, help="Output format.")
@click.option("--per-user", type=click.Path(path_type=Path), default=None,
              help="Also write per-user values to this file; the format follows the "
                   "extension: .csv, .tsv, .parquet, .jsonl/.json, .xlsx (with openpyxl).")
@click.option("--report", "report_file", type=click.Path(path_type=Path),
              default=None, help="Also write a standalone HTML report to this file.")
def evaluate(recs: Path, truth: Path, metrics: tuple[str, ...], all_conventions: bool,
             fmt: str, per_user: Path | None, report_file: Path | None,
             **given: Any) -> None:
    """Evaluate the recommendations in RECS against TRUTH (CSV, TSV, Parquet or JSON lines)."""
    import receval as rv
    from receval.cli._outputs import check_paths, staged, table_format, write_table

    started = time.perf_counter()
    title = f"{recs.name} vs {truth.name}"
    try:
        inputs = _inputs(recs=recs, truth=truth, **given)
        outputs = check_paths({"--per-user": per_user, "--report": report_file}, inputs,
                              tables=("--per-user",))
        options = read_evaluate_flags(given)
        convention = options.pop("convention", None)
        recs_frame, truth_frame = _read_inputs(recs, truth, given)
        if all_conventions:
            other = [flag for flag, value in (("--convention", convention), *outputs.items())
                     if value is not None]
            if other:
                raise rv.exceptions.InvalidParameterError(
                    f"--all-conventions and {other[0]} exclude each other (one evaluation per "
                    f"convention: no single convention, per-user table or report)",
                    parameter="all_conventions", examples=other)
            with recorded() as caught:
                sbs = rv.conventions.side_by_side(recs_frame, truth_frame, list(metrics),
                                                  **options)
            _side_by_side(sbs, fmt, title, started, caught)
            return
        with recorded() as caught:
            ev = rv.evaluate(recs_frame, truth_frame, list(metrics), convention=convention,
                             **options)
        elapsed = time.perf_counter() - started
        with staged(list(outputs.values())) as tmp:
            if report_file is not None:
                from receval.cli._report import write_report

                write_report(ev, tmp[outputs["--report"]], recs=recs_frame, truth=truth_frame,
                             train=options.get("train"), names=_names(inputs), title=title,
                             notes=caught)
            if per_user is not None:
                path = outputs["--per-user"]
                write_table(ev.per_user.reset_index(), tmp[path],
                            table_format(path, "--per-user"), target=path)
    except RecevalError as exc:
        _fail(exc)
        return
    _print_result(ev, fmt, title, caught, elapsed)


def _print_result(ev: Any, fmt: str, title: str, caught: list[str], elapsed: float) -> None:
    if fmt == "json":
        click.echo(ev.to_json())
    elif fmt == "markdown":
        click.echo(ev.to_markdown())
    elif fmt == "latex":
        click.echo(ev.to_latex())
    elif fmt == "csv":
        click.echo(ev.to_frame().to_csv(), nl=False)
    else:
        from receval.cli._render import result_table, users_table

        console = _console()
        if ev.caption:
            console.print(ev.caption)
        console.print(result_table({"value": ev}, title=title))
        console.print(users_table(ev))
    notes(caught, elapsed if fmt == "table" else None)


def _side_by_side(sbs: Any, fmt: str, title: str, started: float, caught: list[str]) -> None:
    if fmt == "json":
        import json

        doc = {"values": json.loads(sbs.values.to_json()),
               "names": sbs.names.to_dict(), "notes": sbs.notes}
        click.echo(json.dumps(doc, indent=2, ensure_ascii=False))
    elif fmt == "markdown":
        click.echo(sbs.to_markdown())
    elif fmt == "latex":
        from receval.conventions._table import markdown

        click.echo(markdown(sbs.values, "latex_booktabs"))
    elif fmt == "csv":
        click.echo(sbs.values.to_csv(), nl=False)
    else:
        from receval.cli._render import frame_table

        console = _console()
        console.print(frame_table(sbs.values.T, title=f"{title}, every convention"))
        console.print(frame_table(sbs.names.T, title="what each number is "
                                  "(library name = receval label)"))
    notes([*caught, *(f"{conv}: {m}" for conv, ms in sbs.notes.items() for m in ms)],
          time.perf_counter() - started if fmt == "table" else None)


@cli.command(name="conventions")
@click.argument("name", required=False)
@click.option("--format", "fmt", type=click.Choice(["table", "markdown", "json"]),
              default="table", show_default=True, help="Output format.")
def conventions_cmd(name: str | None, fmt: str) -> None:
    """Show how every convention defines every metric, or describe convention NAME."""
    import json

    import receval as rv

    try:
        if name is not None:
            conv = rv.conventions.get(name)
            if fmt == "json":
                click.echo(json.dumps(conv.describe(), indent=2, default=str))
                return
            frame = rv.conventions.table([conv.name])
        else:
            conv = None
            frame = rv.conventions.table()
    except RecevalError as exc:
        _fail(exc)
        return
    if fmt == "json":
        click.echo(frame.to_json(indent=2))
        return
    if fmt == "markdown":
        from receval.conventions._table import markdown

        click.echo(markdown(frame))
        return
    from receval.cli._render import conventions_long, frame_table

    console = _console()
    if conv is None:  # every library: folded into rows, to fit a terminal
        for table in conventions_long(frame, list(rv.conventions.DEFAULTS)):
            console.print(table)
        return
    console.print(f"[bold]{conv.name}[/]: {conv.library} ({conv.versions})")
    console.print(conv.summary)
    console.print(frame_table(frame, title="conventions: library name = receval label"))
    for line in conv.differences:
        console.print(f"[yellow]not reproduced:[/] {line}")


@cli.command()
@click.argument("metric")
@click.argument("grades", nargs=-1, type=float, required=True)
@click.option("--ideal", default=None,
              help="Grades of all the user's judged items, comma-separated (default: GRADES).")
@click.option("-t", "--relevance-threshold", type=float, default=None,
              help="Grades >= this are relevant (default: every positive grade).")
def explain(metric: str, grades: tuple[float, ...], ideal: str | None,
            relevance_threshold: float | None) -> None:
    """Show how METRIC is computed on one ranked list of GRADES (best first).

    Example: receval explain "ndcg@6" 3 2 3 0 1 2
    """
    import receval as rv

    try:
        ideal_grades = [float(x) for x in ideal.split(",")] if ideal else None
        e = rv.explain(metric, list(grades), ideal_grades,
                       relevance_threshold=relevance_threshold)
    except ValueError as exc:
        if isinstance(exc, RecevalError):
            _fail(exc)
        click.echo(f"error: --ideal must be comma-separated numbers ({exc})", err=True)
        sys.exit(2)
    click.echo(str(e))


@cli.command(name="metrics")
@click.argument("name", required=False)
def metrics_cmd(name: str | None) -> None:
    """List every metric with its aliases and parameters, or describe NAME."""
    import receval as rv
    from receval.cli._render import metric_detail, metrics_table

    console = _console()
    if name is None:
        console.print(metrics_table(rv.metrics.available()))
        return
    try:
        cls = rv.metrics.get(name.split("@")[0].split("(")[0])
    except RecevalError as exc:
        _fail(exc)
        return
    info = next(i for i in rv.metrics.available() if i.name == cls.name)
    metric_detail(console, info, cls.__doc__ or "")


@cli.command()
@click.option("--users", default=600, show_default=True, help="Users in the sample data.")
@click.option("--items", default=400, show_default=True, help="Items in the sample data.")
@click.option("--seed", default=7, show_default=True, help="Seed of the sample data.")
@click.option("-k", default=10, show_default=True, help="Length of the recommendation lists.")
def demo(users: int, items: int, seed: int, k: int) -> None:
    """Evaluate two baselines on an embedded, seeded sample data set (no download)."""
    from receval import _demo
    from receval.cli._render import result_table

    console = _console()
    started = time.perf_counter()
    with recorded() as caught:
        demo_run = _demo.experiment(users, items, seed=seed, k=k)
    ratings, (train, test) = demo_run.ratings, demo_run.split
    console.print(
        f"[bold]sample data[/]: {ratings['user_id'].nunique()} users, "
        f"{ratings['item_id'].nunique()} items, {len(ratings)} ratings 1-5 "
        f"(seed {seed}); held out each user's latest 20% (rv.split.temporal): {len(train)} "
        f"train / {len(test)} test ratings; relevant = rating >= 4")
    ranked = demo_run.ranking
    results = {name: ranked.results[(name, 0)] for name in ranked.models}
    first = next(iter(results.values()))
    console.print(result_table(results, title=f"top-{k} recommendations"))
    console.print(
        f"users: {first.users.n_evaluated} evaluated; {len(first.users.skipped_no_relevant)}"
        f" skipped (no held-out rating >= 4); every user of the test set is accounted for")
    rating = {name: demo_run.rating.results[(name, 0)] for name in demo_run.rating.models}
    console.print(result_table(rating, title="rating prediction"))
    notes(caught, time.perf_counter() - started)


from receval.cli._compare import compare as _compare_command  # noqa: E402
from receval.cli._cv import cv as _cv_command  # noqa: E402
from receval.cli._report import report as _report_command  # noqa: E402
from receval.cli._run import rerun as _rerun_command  # noqa: E402
from receval.cli._run import run as _run_command  # noqa: E402
from receval.cli._split import split_cmd  # noqa: E402

cli.add_command(_compare_command)
cli.add_command(_report_command)
cli.add_command(_cv_command)
cli.add_command(split_cmd)
cli.add_command(_run_command)
cli.add_command(_rerun_command)


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``receval`` command."""
    cli.main(args=argv, prog_name="receval")
