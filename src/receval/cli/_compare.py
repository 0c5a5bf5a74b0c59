"""``receval compare``: several runs against one truth, with paired tests."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import click

from receval.cli._options import evaluate_flags, read_evaluate_flags, read_input
from receval.cli._render import notes
from receval.exceptions import RecevalError, format_examples

__all__ = ["CORRECTION_OPTION", "METHOD_OPTION", "compare"]

_FORMATS = ("table", "markdown", "latex", "json", "csv")

#: The paired tests' options, declared once (``receval compare`` and ``receval cv``).
METHOD_OPTION = click.option(
    "--method", default="auto", show_default=True,
    help="Wilcoxon's null distribution: auto (as scipy.stats.wilcoxon), exact (the exact "
         "conditional null given ties) or asymptotic.")
CORRECTION_OPTION = click.option(
    "--correction", default="none", show_default=True,
    help="none, bonferroni, holm or bh (over every test of the call).")


@click.command()
@click.argument("truth", type=click.Path(exists=True, path_type=Path))
@click.argument("runs", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("-m", "--metric", "metrics", multiple=True, required=True,
              help="A metric, e.g. ndcg@10; repeatable.")
@click.option("--test", default="t", show_default=True,
              help="t, wilcoxon, sign, permutation or bootstrap.")
@METHOD_OPTION
@CORRECTION_OPTION
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
@evaluate_flags
@click.option("--format", "fmt", type=click.Choice(_FORMATS), default="table",
              show_default=True)
@click.option("--report", "report_file", type=click.Path(path_type=Path),
              default=None, help="Also write a standalone HTML report to this file.")
def compare(truth: Path, runs: tuple[Path, ...], metrics: tuple[str, ...], test: str,
            method: str, correction: str, baseline: str | None, names: str | None, alpha: float,
            confidence: float, seed: int, n_resamples: int, users: str, coverage: str,
            fmt: str, report_file: Path | None, **given: Any) -> None:
    """Compare RUNS (recommendation files) against TRUTH with paired tests.

    Example: receval compare test.csv knn.csv pop.csv -m ndcg@10 --test t --correction holm
    """
    import receval as rv
    from receval.cli._common import fail as _fail
    from receval.cli._common import inputs as _inputs
    from receval.cli._common import recorded
    from receval.cli._outputs import check_paths, staged

    labels = names.split(",") if names else [r.stem for r in runs]
    started = time.perf_counter()
    try:
        if len(labels) != len(runs):
            raise rv.exceptions.InvalidParameterError(
                f"--names gives {len(labels)} names for {len(runs)} runs", parameter="names")
        repeated = sorted({name for name in labels if labels.count(name) > 1})
        if repeated:
            raise rv.exceptions.InvalidParameterError(
                f"system names repeat ({format_examples(repeated)}): each run needs its own "
                f"name; give them with --names a,b,...", parameter="names", examples=repeated)
        inputs = _inputs(truth=truth, **{f"run {i + 1}": r for i, r in enumerate(runs)},
                         **given)
        out = check_paths({"--report": report_file}, inputs)
        options = read_evaluate_flags(given)
        truth_frame = read_input(truth, "truth", given)
        systems = {name: read_input(path, "recs", given)
                   for name, path in zip(labels, runs, strict=True)}
        with recorded() as caught:
            cmp = rv.compare(systems, truth_frame, list(metrics), test=test, method=method,
                             correction=correction,
                             baseline=baseline, alpha=alpha, confidence=confidence,
                             n_resamples=n_resamples, seed=seed, users=users,
                             coverage=coverage, **options)
        _print(cmp, fmt, caught, time.perf_counter() - started)
        if report_file is not None:
            with staged([out["--report"]]) as tmp:
                cmp.report(tmp[out["--report"]],
                           title=f"{', '.join(labels)} vs {truth.name}")
    except RecevalError as exc:
        _fail(exc)


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
    notes(messages, elapsed)
