"""The ``receval`` command line: evaluate, report, explain, metrics, conventions, demo."""

from __future__ import annotations

import contextlib
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import click

from receval.cli import _report
from receval.cli._compare import compare as compare_cmd
from receval.data._build import TIE_POLICIES
from receval.exceptions import RecevalError

__all__ = ["main"]

_FORMATS = ("table", "markdown", "latex", "json", "csv")


def _console() -> Any:
    from rich.console import Console

    return Console(highlight=False, soft_wrap=False)


def _fail(exc: RecevalError) -> None:
    click.echo(f"error: {exc}", err=True)
    sys.exit(2)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="receval")
def cli() -> None:
    """receval: exact, explicit and fast evaluation of recommender systems."""


cli.add_command(compare_cmd)


@cli.command()
@click.argument("recs", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("truth", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("-m", "--metric", "metrics", multiple=True, required=True,
              help="A metric, e.g. ndcg@10 or 'ap(denominator=relevant)@10'; repeatable.")
@click.option("-c", "--convention", default=None, metavar="NAME",
              help="Reproduce a library's numbers (receval conventions lists them).")
@click.option("--all-conventions", is_flag=True,
              help="Evaluate under receval's defaults and every convention, side by side.")
@click.option("-t", "--relevance-threshold", type=float, default=None,
              help="Grades >= this are relevant (default: the convention's, or every "
                   "positive grade).")
@click.option("--ties", type=click.Choice(list(TIE_POLICIES)), default=None,
              help="Order of items with equal scores (default: the convention's, or "
                   "stable).")
@click.option("--no-relevant", type=click.Choice(["skip", "zero", "error"]), default=None,
              help="Truth users without a relevant item (default: the convention's, or "
                   "skip).")
@click.option("--missing-recs", type=click.Choice(["zero", "skip", "error"]), default=None,
              help="Truth users without recommendations (default: the convention's, or "
                   "zero).")
@click.option("--recs-without-truth", type=click.Choice(["ignore", "zero", "error"]),
              default=None, help="Users with recommendations but no truth (default: the "
              "convention's, or ignore).")
@click.option("--missing-predictions", default=None,
              help="Rating metrics: error, skip, global_mean, or a number (default: the "
                   "convention's, or error).")
@click.option("--user-col", default=None, help="Column of user ids (both files).")
@click.option("--item-col", default=None, help="Column of item ids (both files).")
@click.option("--score-col", default=None, help="Column of scores in RECS.")
@click.option("--rating-col", default=None, help="Column of grades in TRUTH.")
@click.option("--format", "fmt", type=click.Choice(_FORMATS), default="table",
              show_default=True, help="Output format.")
@click.option("--per-user", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write per-user values to this CSV or Parquet file.")
@click.option("--strict", is_flag=True, help="Turn every warning into an error.")
@click.option("--report", "report_file", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="Also write a standalone HTML report to this file.")
def evaluate(recs: Path, truth: Path, metrics: tuple[str, ...], convention: str | None,
             all_conventions: bool, relevance_threshold: float | None, ties: str | None,
             no_relevant: str | None, missing_recs: str | None,
             recs_without_truth: str | None, missing_predictions: str | None,
             user_col: str | None, item_col: str | None, score_col: str | None,
             rating_col: str | None, fmt: str, per_user: Path | None, strict: bool,
             report_file: Path | None) -> None:
    """Evaluate the recommendations in RECS against TRUTH (CSV, TSV, Parquet or JSON lines)."""
    import receval as rv
    from receval.data._files import read_table

    options = _evaluate_options(
        relevance_threshold=relevance_threshold, ties=ties, no_relevant=no_relevant,
        missing_recs=missing_recs, recs_without_truth=recs_without_truth,
        missing_predictions=missing_predictions, user_col=user_col, item_col=item_col,
        score_col=score_col, rating_col=rating_col, strict=strict)
    started = time.perf_counter()
    try:
        recs_frame, truth_frame = read_table(recs, role="recs"), read_table(truth, role="truth")
        if all_conventions:
            if convention is not None:
                raise rv.exceptions.InvalidParameterError(
                    "--convention and --all-conventions exclude each other",
                    parameter="convention")
            _side_by_side(rv.conventions.side_by_side(recs_frame, truth_frame, list(metrics),
                                                      **options),
                          fmt, f"{recs.name} vs {truth.name}", started)
            return
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", rv.RecevalWarning)
            ev = rv.evaluate(recs_frame, truth_frame, list(metrics), convention=convention,
                             **options)
    except RecevalError as exc:
        _fail(exc)
        return
    elapsed = time.perf_counter() - started
    if report_file is not None:
        from receval.cli._report import write_report

        write_report(ev, report_file, recs=recs_frame, truth=truth_frame,
                     names={"recs": str(recs), "truth": str(truth)},
                     title=f"{recs.name} vs {truth.name}",
                     notes=[str(w.message) for w in caught])
    if per_user is not None:
        frame = ev.per_user.reset_index()
        if per_user.suffix.lower() in (".parquet", ".pq"):
            frame.to_parquet(per_user, index=False)
        else:
            frame.to_csv(per_user, index=False)
    if fmt == "json":
        click.echo(ev.to_json())
    elif fmt == "markdown":
        click.echo(ev.to_markdown())
    elif fmt == "latex":
        click.echo(ev.to_latex())
    elif fmt == "csv":
        click.echo(ev.to_frame().to_csv(), nl=False)
    else:
        from receval.cli._render import notes, result_table, users_table

        console = _console()
        if ev.caption:
            console.print(ev.caption)
        console.print(result_table({"value": ev}, title=f"{recs.name} vs {truth.name}"))
        console.print(users_table(ev))
        notes(console, [str(w.message) for w in caught], elapsed)


def _evaluate_options(*, relevance_threshold: float | None, ties: str | None,
                      no_relevant: str | None, missing_recs: str | None,
                      recs_without_truth: str | None, missing_predictions: str | None,
                      user_col: str | None, item_col: str | None, score_col: str | None,
                      rating_col: str | None, strict: bool) -> dict[str, Any]:
    """The keyword arguments of ``receval.evaluate`` from the shared command-line options."""
    from receval._columns import Columns

    fill: str | float | None = missing_predictions
    with contextlib.suppress(TypeError, ValueError):
        fill = float(missing_predictions)  # type: ignore[arg-type]
    cols = Columns(user=user_col, item=item_col, score=score_col, rating=rating_col)
    return dict(relevance_threshold=relevance_threshold, ties=ties, no_relevant=no_relevant,
                missing_recs=missing_recs, recs_without_truth=recs_without_truth,
                missing_predictions=fill, columns=cols, strict=strict)


def _side_by_side(sbs: Any, fmt: str, title: str, started: float) -> None:
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
        from receval.cli._render import frame_table, notes

        console = _console()
        console.print(frame_table(sbs.values.T, title=f"{title}, every convention"))
        console.print(frame_table(sbs.names.T, title="what each number is "
                                  "(library name = receval label)"))
        notes(console, [f"{conv}: {m}" for conv, ms in sbs.notes.items() for m in ms],
              time.perf_counter() - started)


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
    import receval as rv
    from receval import _demo
    from receval.cli._render import notes, result_table

    console = _console()
    started = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", rv.RecevalWarning)
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
    notes(console, sorted({str(w.message) for w in caught}), time.perf_counter() - started)


from receval.cli._cv import cv as _cv_command  # noqa: E402
from receval.cli._split import split_cmd  # noqa: E402

cli.add_command(_report.report(evaluate))
cli.add_command(_cv_command)
cli.add_command(split_cmd)


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``receval`` command."""
    cli.main(args=argv, prog_name="receval")
