"""The ``receval`` command line: evaluate, explain, metrics, demo."""

from __future__ import annotations

import contextlib
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import click

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


@cli.command()
@click.argument("recs", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("truth", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("-m", "--metric", "metrics", multiple=True, required=True,
              help="A metric, e.g. ndcg@10 or 'ap(denominator=relevant)@10'; repeatable.")
@click.option("-t", "--relevance-threshold", type=float, default=None,
              help="Grades >= this are relevant (default: every positive grade).")
@click.option("--ties", type=click.Choice(["stable", "item", "item_desc", "optimistic",
                                           "pessimistic",
                                           "expected"]), default="stable", show_default=True,
              help="Order of items with equal scores.")
@click.option("--no-relevant", type=click.Choice(["skip", "zero", "error"]), default="skip",
              show_default=True, help="Truth users without a relevant item.")
@click.option("--missing-recs", type=click.Choice(["zero", "skip", "error"]), default="zero",
              show_default=True, help="Truth users without recommendations.")
@click.option("--missing-predictions", default="error", show_default=True,
              help="Rating metrics: error, skip, global_mean, or a number to fill with.")
@click.option("--user-col", default=None, help="Column of user ids (both files).")
@click.option("--item-col", default=None, help="Column of item ids (both files).")
@click.option("--score-col", default=None, help="Column of scores in RECS.")
@click.option("--rating-col", default=None, help="Column of grades in TRUTH.")
@click.option("--format", "fmt", type=click.Choice(_FORMATS), default="table",
              show_default=True, help="Output format.")
@click.option("--per-user", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write per-user values to this CSV or Parquet file.")
@click.option("--strict", is_flag=True, help="Turn every warning into an error.")
def evaluate(recs: Path, truth: Path, metrics: tuple[str, ...], relevance_threshold: float | None,
             ties: str, no_relevant: str, missing_recs: str, missing_predictions: str,
             user_col: str | None, item_col: str | None, score_col: str | None,
             rating_col: str | None, fmt: str, per_user: Path | None, strict: bool) -> None:
    """Evaluate the recommendations in RECS against TRUTH (CSV, TSV, Parquet or JSON lines)."""
    import receval as rv
    from receval.data._files import read_table

    fill: str | float = missing_predictions
    with contextlib.suppress(ValueError):
        fill = float(missing_predictions)
    cols = rv.Columns(user=user_col, item=item_col, score=score_col, rating=rating_col)
    started = time.perf_counter()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", rv.RecevalWarning)
            ev = rv.evaluate(read_table(recs, role="recs"), read_table(truth, role="truth"),
                             list(metrics),
                             relevance_threshold=relevance_threshold, ties=ties,
                             no_relevant=no_relevant, missing_recs=missing_recs,
                             missing_predictions=fill, columns=cols, strict=strict)
    except RecevalError as exc:
        _fail(exc)
        return
    elapsed = time.perf_counter() - started
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
        console.print(result_table({"value": ev}, title=f"{recs.name} vs {truth.name}"))
        console.print(users_table(ev))
        notes(console, [str(w.message) for w in caught], elapsed)


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
    ratings = _demo.sample_ratings(users, items, seed=seed)
    train, test = _demo.temporal_split(ratings, 0.2)
    console.print(
        f"[bold]sample data[/]: {ratings['user_id'].nunique()} users, "
        f"{ratings['item_id'].nunique()} items, {len(ratings)} ratings 1-5 "
        f"(seed {seed}); held out each user's latest 20%: {len(train)} train / "
        f"{len(test)} test ratings; relevant = rating >= 4")
    test_users = test["user_id"].unique()
    ranking = [f"precision@{k}", f"recall@{k}", f"ndcg@{k}", f"map@{k}", f"mrr@{k}",
               f"hit_rate@{k}", f"item_coverage@{k}", "user_coverage"]
    runs = {"random": _demo.random_recommender(train, test_users, k, seed=seed),
            "most popular": _demo.popular_recommender(train, test_users, k)}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", rv.RecevalWarning)
        results = {name: rv.evaluate(recs, test, ranking, relevance_threshold=4)
                   for name, recs in runs.items()}
        predictors = {"global mean": _demo.global_mean_predictor(train, test),
                      "item mean": _demo.item_mean_predictor(train, test)}
        rating = {name: rv.evaluate(pred, test, ["rmse", "mae", "rmse(aggregation=macro)"])
                  for name, pred in predictors.items()}
    first = next(iter(results.values()))
    console.print(result_table(results, title=f"top-{k} recommendations"))
    console.print(
        f"users: {first.users.n_evaluated} evaluated; {len(first.users.skipped_no_relevant)}"
        f" skipped (no held-out rating >= 4); every user of the test set is accounted for")
    console.print(result_table(rating, title="rating prediction"))
    notes(console, sorted({str(w.message) for w in caught}), time.perf_counter() - started)


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``receval`` command."""
    cli.main(args=argv, prog_name="receval")
