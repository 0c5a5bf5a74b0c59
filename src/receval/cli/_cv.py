"""``receval cv``: k-fold cross-validation of models (built-ins, Surprise, any class) on a file."""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path
from typing import Any, Literal

import click

from receval.cli._compare import CORRECTION_OPTION, METHOD_OPTION
from receval.cli._options import evaluate_flags, read_evaluate_flags
from receval.exceptions import RecevalError

__all__ = ["cv", "parse_model_option"]

_NAME = re.compile(r"^[^:(=\s]+$")


def parse_model_option(value: str, seed: int) -> tuple[str, Any]:
    """``--model [NAME=]SPEC`` -> (name, unfitted model).

    ``SPEC`` is what :func:`receval.models.from_spec` reads (``popular``,
    ``item-mean:shrinkage=5``, ``surprise:SVD(n_factors=50)``, ``mypkg.models:MyModel(a=1)``);
    ``NAME=`` (a name without ``:``, ``(`` or ``=``) names the model, else the spec is its
    name. A model with a ``seed`` parameter (or a Surprise algorithm with ``random_state``)
    that the spec leaves unset gets ``--seed``.
    """
    import receval as rv
    from receval.models._seeding import seed_unseeded, spec_sets_seed

    name, spec = _named(value)
    if not name or not spec:
        raise rv.exceptions.InvalidModelError(
            f"--model {value!r}: give a model spec, e.g. popular, item-mean:shrinkage=5, "
            f"knn=surprise:KNNBasic(k=20) or mypkg.models:MyModel(alpha=0.1)",
            parameter="model", examples=[value])
    model = rv.models.from_spec(spec)
    seed_unseeded(model, seed, spec_sets_seed(spec))
    return name, model


def _named(value: str) -> tuple[str, str]:
    """``[NAME=]SPEC`` -> (name, spec); without ``NAME=``, the spec is the name."""
    head, eq, rest = value.partition("=")
    if eq and _NAME.match(head.strip()) and rest.strip():
        return head.strip(), rest.strip()
    return value.strip(), value.strip()


@click.command()
@click.argument("data", type=click.Path(exists=True, path_type=Path))
@click.option("--model", "model_specs", multiple=True, required=True, metavar="[NAME=]SPEC",
              help="A model to cross-validate, repeatable: a built-in (random, popular, "
                   "global-mean, user-mean, item-mean) with parameters "
                   "(item-mean:shrinkage=5), a Surprise algorithm (surprise:SVD(n_factors=50))"
                   " or a class by import path (mypkg.models:MyModel(alpha=0.1)); NAME= names "
                   "it.")
@click.option("-m", "--metric", "metrics", multiple=True, required=True,
              help="A metric, e.g. ndcg@10 or rmse; repeatable.")
@click.option("--folds", default=5, show_default=True, help="Number of folds.")
@click.option("--by", type=click.Choice(["rows", "users"]), default="rows", show_default=True,
              help="Fold the rows, or the users (all of a user's rows in one test fold).")
@click.option("--seed", default=0, show_default=True,
              help="Seed of the folds, of the tests, and of the models whose spec leaves "
                   "their seed (random_state) unset.")
@click.option("-k", default=10, show_default=True, help="Length of the recommendation lists.")
@click.option("--include-seen", is_flag=True,
              help="Do not leave each user's training items out of their lists.")
@click.option("--test", default=None,
              help="Also compare the models with this paired test (t, wilcoxon, sign, "
                   "permutation or bootstrap), users paired by (fold, user).")
@METHOD_OPTION
@CORRECTION_OPTION
@evaluate_flags
@click.option("--format", "fmt", type=click.Choice(["table", "markdown", "csv"]),
              default="table", show_default=True, help="Output format.")
@click.option("--report", "report_file", type=click.Path(path_type=Path),
              default=None, help="Also write a standalone HTML report to this file.")
def cv(data: Path, model_specs: tuple[str, ...], metrics: tuple[str, ...], folds: int, by: str,
       seed: int, k: int, include_seen: bool, test: str | None, method: str, correction: str,
       fmt: str, report_file: Path | None, **given: Any) -> None:
    """Cross-validate models on DATA (CSV, TSV, Parquet or JSON lines).

    Example: receval cv ratings.csv --model popular --model shrunk=item-mean:shrinkage=5
    -m ndcg@10 -m rmse --folds 5 --test wilcoxon
    """
    import receval as rv
    from receval.cli._common import inputs as _inputs
    from receval.cli._common import recorded
    from receval.cli._options import read_columns
    from receval.cli._outputs import check_paths, staged
    from receval.data._files import read_table

    started = time.perf_counter()
    try:
        out = check_paths({"--report": report_file}, _inputs(data=data, **given))
        cols = read_columns(given)
        options = read_evaluate_flags(given, skip=("columns",))
        frame = read_table(data, role="truth", encoding=str(given.get("encoding")))
        fold_by: Literal["rows", "users"] = "users" if by == "users" else "rows"
        splits = rv.split.kfold(frame, n_splits=folds, by=fold_by, seed=seed, columns=cols)
        models = _models(model_specs, seed)
        if test is not None and len(models) < 2:
            raise rv.exceptions.InvalidParameterError(
                f"--test {test} compares models, but only {len(models)} --model was given "
                f"({', '.join(models)}): give at least two --model options, or leave --test "
                f"out", parameter="test", examples=list(models))
        if test is not None and fmt == "csv":
            raise rv.exceptions.InvalidParameterError(
                "--test prints a comparison, which --format csv cannot hold: use --format "
                "table or markdown", parameter="test")
        with recorded() as caught:
            result = rv.cross_validate(models, frame, list(metrics), split=splits, k=k,
                                       exclude_seen=not include_seen, columns=cols,
                                       **options)
            cmp = None if test is None else result.compare(
                test=test, method=method, correction=correction, seed=seed)
        _print(result, fmt, f"{data.name}: {folds}-fold cross-validation by {by} (seed "
               f"{seed}), top-{k}", caught, time.perf_counter() - started, cmp)
        if report_file is not None:
            with staged([out["--report"]]) as tmp:
                result.report(tmp[out["--report"]],
                              title=f"{data.name}: {folds}-fold cross-validation")
    except RecevalError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)


def _models(specs: tuple[str, ...], seed: int) -> dict[str, Any]:
    """Name -> model of the ``--model`` options; a name given twice is an error.

    The current directory is importable (as ``python -m`` makes it), so that
    ``--model mymodels:MyModel(...)`` finds ``./mymodels.py``.
    """
    import receval as rv

    if "" not in sys.path and os.getcwd() not in sys.path:  # mymodels:MyModel from here
        sys.path.insert(0, os.getcwd())
    models: dict[str, Any] = {}
    for value in specs:
        name, model = parse_model_option(value, seed)
        if name in models:
            fresh = next(f"{name}{i}" for i in range(2, len(specs) + 3)
                         if f"{name}{i}" not in models)
            raise rv.exceptions.InvalidParameterError(
                f"--model names two models {name!r}: give each its own name, e.g. --model "
                f"{fresh}={_named(value)[1]}", parameter="model", examples=[name])
        models[name] = model
    return models


def _print(result: Any, fmt: str, title: str, messages: list[str], elapsed: float,
           cmp: Any = None) -> None:
    from receval.cli._render import Printer, frame_table, notes

    per_fold = result.per_fold
    if result.settings["no_rating_metrics"]:
        messages = [f"no rating metrics for {', '.join(result.settings['no_rating_metrics'])}"
                    f" (no predict)", *messages]
    if fmt == "csv":
        click.echo(per_fold.to_csv(), nl=False)
    elif fmt == "markdown":
        from tabulate import tabulate

        click.echo(f"{title}\n")
        click.echo(tabulate(per_fold.reset_index(), headers="keys", tablefmt="github",
                            showindex=False, floatfmt=".4f"))
        click.echo("\nmean ± std over folds\n")
        click.echo(result.to_markdown())
    else:
        import pandas as pd

        console = Printer()
        shown = per_fold.copy()
        shown.index = [f"{model} / fold {fold}" for model, fold in shown.index]
        console.print(frame_table(shown, title=f"{title}: per fold"))
        cells = pd.DataFrame([result._cells(m, 4) for m in result.models],
                             index=result.models, columns=result.labels)
        console.print(frame_table(cells, title="mean ± std over folds"))
    if cmp is not None:  # never with csv
        click.echo(f"\n{cmp.to_markdown()}")
    notes(sorted(set(messages)), elapsed if fmt == "table" else None)
