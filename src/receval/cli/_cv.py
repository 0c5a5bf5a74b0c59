"""``receval cv``: k-fold cross-validation of the built-in baselines on one data file."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any, Literal

import click

from receval.cli._options import evaluate_flags, read_evaluate_flags
from receval.exceptions import RecevalError

__all__ = ["MODELS", "cv"]

#: CLI name -> how to build the model from the seed.
MODELS: dict[str, Any] = {
    "random": lambda seed: _models().Random(seed=seed),
    "popular": lambda seed: _models().MostPopular(),
    "global-mean": lambda seed: _models().GlobalMean(),
    "user-mean": lambda seed: _models().UserMean(),
    "item-mean": lambda seed: _models().ItemMean(),
}


def _models() -> Any:
    import receval.models

    return receval.models


@click.command()
@click.argument("data", type=click.Path(exists=True, path_type=Path))
@click.option("--model", "model_names", multiple=True, required=True,
              type=click.Choice(list(MODELS)), help="A baseline to cross-validate; repeatable.")
@click.option("-m", "--metric", "metrics", multiple=True, required=True,
              help="A metric, e.g. ndcg@10 or rmse; repeatable.")
@click.option("--folds", default=5, show_default=True, help="Number of folds.")
@click.option("--by", type=click.Choice(["rows", "users"]), default="rows", show_default=True,
              help="Fold the rows, or the users (all of a user's rows in one test fold).")
@click.option("--seed", default=0, show_default=True,
              help="Seed of the folds and of the random model.")
@click.option("-k", default=10, show_default=True, help="Length of the recommendation lists.")
@click.option("--include-seen", is_flag=True,
              help="Do not leave each user's training items out of their lists.")
@evaluate_flags
@click.option("--format", "fmt", type=click.Choice(["table", "markdown", "csv"]),
              default="table", show_default=True, help="Output format.")
@click.option("--report", "report_file", type=click.Path(path_type=Path),
              default=None, help="Also write a standalone HTML report to this file.")
def cv(data: Path, model_names: tuple[str, ...], metrics: tuple[str, ...], folds: int, by: str,
       seed: int, k: int, include_seen: bool, fmt: str, report_file: Path | None,
       **given: Any) -> None:
    """Cross-validate built-in baselines on DATA (CSV, TSV, Parquet or JSON lines).

    Example: receval cv ratings.csv --model popular --model random -m ndcg@10 --folds 5
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
        models = {name: MODELS[name](seed) for name in dict.fromkeys(model_names)}
        with recorded() as caught:
            result = rv.cross_validate(models, frame, list(metrics), split=splits, k=k,
                                       exclude_seen=not include_seen, columns=cols,
                                       **options)
        _print(result, fmt, f"{data.name}: {folds}-fold cross-validation by {by} (seed "
               f"{seed}), top-{k}", caught, time.perf_counter() - started)
        if report_file is not None:
            with staged([out["--report"]]) as tmp:
                result.report(tmp[out["--report"]],
                              title=f"{data.name}: {folds}-fold cross-validation")
    except RecevalError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)


def _print(result: Any, fmt: str, title: str, messages: list[str], elapsed: float) -> None:
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
    notes(sorted(set(messages)), elapsed if fmt == "table" else None)
