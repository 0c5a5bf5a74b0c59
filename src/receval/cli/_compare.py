"""``receval compare``: several runs against one truth, with paired tests."""

from __future__ import annotations

import contextlib
import time
import warnings
from pathlib import Path
from typing import Any

import click

from receval.exceptions import RecevalError

__all__ = ["compare"]

_FORMATS = ("table", "markdown", "latex", "json", "csv")


@click.command()
@click.argument("truth", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("runs", nargs=-1, required=True,
                type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("-m", "--metric", "metrics", multiple=True, required=True,
              help="A metric, e.g. ndcg@10; repeatable.")
@click.option("--test", default="t", show_default=True,
              help="t, wilcoxon, sign, permutation or bootstrap.")
@click.option("--correction", default="none", show_default=True,
              help="none, bonferroni, holm or bh (over every test of the call).")
@click.option("--baseline", default=None, help="Test every run against this one only.")
@click.option("--names", default=None,
              help="Comma-separated system names (default: the file names).")
@click.option("--alpha", type=float, default=0.05, show_default=True)
@click.option("--confidence", type=float, default=0.95, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--n-resamples", type=int, default=10_000, show_default=True)
@click.option("--users", default="common", show_default=True, help="common or union.")
@click.option("--coverage", default="both", show_default=True,
              help="Rating metrics: both, common or fill.")
@click.option("-c", "--convention", default=None, metavar="NAME")
@click.option("-t", "--relevance-threshold", type=float, default=None)
@click.option("--missing-predictions", default=None,
              help="Rating metrics: global_mean or a number (the fill reading).")
@click.option("--format", "fmt", type=click.Choice(_FORMATS), default="table",
              show_default=True)
@click.option("--report", "report_file", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="Also write a standalone HTML report to this file.")
def compare(truth: Path, runs: tuple[Path, ...], metrics: tuple[str, ...], test: str,
            correction: str, baseline: str | None, names: str | None, alpha: float,
            confidence: float, seed: int, n_resamples: int, users: str, coverage: str,
            convention: str | None, relevance_threshold: float | None,
            missing_predictions: str | None, fmt: str, report_file: Path | None) -> None:
    """Compare RUNS (recommendation files) against TRUTH with paired tests.

    Example: receval compare test.csv knn.csv pop.csv -m ndcg@10 --test t --correction holm
    """
    import receval as rv
    from receval.data._files import read_table

    labels = names.split(",") if names else [r.stem for r in runs]
    fill: Any = missing_predictions
    with contextlib.suppress(TypeError, ValueError):
        fill = float(missing_predictions)  # type: ignore[arg-type]
    started = time.perf_counter()
    try:
        if len(labels) != len(runs):
            raise rv.exceptions.InvalidParameterError(
                f"--names gives {len(labels)} names for {len(runs)} runs", parameter="names")
        truth_frame = read_table(truth, role="truth")
        systems = {name: read_table(path, role="recs")
                   for name, path in zip(labels, runs, strict=True)}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", rv.RecevalWarning)
            cmp = rv.compare(systems, truth_frame, list(metrics), test=test,
                             correction=None if correction == "none" else correction,
                             baseline=baseline, alpha=alpha, confidence=confidence,
                             n_resamples=n_resamples, seed=seed, users=users,
                             coverage=coverage, convention=convention,
                             relevance_threshold=relevance_threshold,
                             missing_predictions=fill)
    except RecevalError as exc:
        click.echo(f"error: {exc}", err=True)
        raise SystemExit(2) from exc
    _print(cmp, fmt, [str(w.message) for w in caught], time.perf_counter() - started)
    if report_file is not None:
        cmp.report(report_file, title=f"{', '.join(labels)} vs {truth.name}")


def _print(cmp: Any, fmt: str, messages: list[str], elapsed: float) -> None:
    tests = cmp.tests
    if fmt == "json":
        import json

        doc = {"table": json.loads(cmp.table().to_json(orient="index")),
               "ci": json.loads(cmp.ci.reset_index().to_json(orient="records")),
               "tests": json.loads(tests.to_json(orient="records")),
               "friedman": None if cmp.friedman is None else json.loads(
                   cmp.friedman.to_json(orient="records")),
               "nemenyi": None if cmp.nemenyi is None else json.loads(
                   cmp.nemenyi.to_json(orient="records")),
               "settings": {k: v for k, v in cmp.settings.items() if k != "evaluation"}}
        click.echo(json.dumps(doc, indent=2, ensure_ascii=False, default=str))
    elif fmt == "csv":
        click.echo(tests.to_csv(index=False), nl=False)
    elif fmt == "latex":
        click.echo(cmp.to_latex())
    else:
        from tabulate import tabulate

        shown = tests.drop(columns=["mean_a", "mean_b"])
        click.echo(cmp.to_markdown())
        click.echo("")
        click.echo(tabulate(shown, headers="keys", tablefmt="github", showindex=False,
                            floatfmt=".4g"))
        if cmp.friedman is not None:
            click.echo("")
            click.echo("Friedman test (Nemenyi post-hoc in the JSON output):")
            click.echo(tabulate(cmp.friedman, headers="keys", tablefmt="github",
                                showindex=False, floatfmt=".4g"))
        for m in sorted(set(messages)):
            click.echo(f"note: {m}", err=True)
        click.echo(f"({elapsed:.2f} s)", err=True)
