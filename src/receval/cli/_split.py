"""``receval split``: split an interaction log into training and test files."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import click

from receval.cli._options import input_flags, read_columns
from receval.cli._outputs import check_paths, staged, table_format, write_table
from receval.exceptions import InvalidParameterError, RecevalError

__all__ = ["fold_path", "split_cmd"]

_METHODS = ("random", "temporal", "leave-k-out", "kfold")


def fold_path(path: Path, fold: int) -> Path:
    """The file of fold ``fold``.

    ``{fold}`` in the name is replaced by the index; otherwise ``-fold<i>`` is inserted
    before the extension (``train.csv`` -> ``train-fold0.csv``).
    """
    if "{fold}" in path.name:
        return path.with_name(path.name.replace("{fold}", str(fold)))
    stem, dot, ext = path.name.partition(".")
    return path.with_name(f"{stem}-fold{fold}{dot}{ext}")


def _at_value(at: str | None) -> Any:
    """``--at``: a number when it reads as one (epoch columns), else the string (dates)."""
    if at is None:
        return None
    for cast in (int, float):
        with contextlib.suppress(ValueError):
            return cast(at)
    return at


#: The methods each method-specific option applies to.
_APPLIES = {"test_size": ("random", "temporal"), "at": ("temporal",),
            "per_user": ("random", "temporal"), "k": ("leave-k-out",),
            "order": ("leave-k-out",), "n_splits": ("kfold",), "by": ("kfold",),
            "seed": ("random", "leave-k-out", "kfold"), "ties": ("temporal", "leave-k-out"),
            "small_users": ("random", "temporal", "leave-k-out"),
            "min_rows": ("random", "temporal", "leave-k-out")}
_DEFAULTS = {"k": 1, "order": "latest", "n_splits": 5, "by": "rows", "seed": 0,
             "ties": "test"}


def _options(method: str, given: dict[str, Any]) -> dict[str, Any]:
    """The options with their defaults.

    An option given to a method it does not apply to is an error, not silently ignored.
    """
    for name, methods in _APPLIES.items():
        if given[name] not in (None, False) and method not in methods:
            flag = "-k" if name == "k" else "--" + name.replace("_", "-")
            raise InvalidParameterError(
                f"{flag} applies to --method {' / '.join(methods)}, not "
                f"{method}", parameter=name, examples=[given[name]])
    return {**given, **{k: v for k, v in _DEFAULTS.items() if given[k] is None}}


def _run(data: Any, method: str, options: dict[str, Any]) -> list[Any]:
    import receval as rv

    o = _options(method, options)
    common = {"columns": o["columns"], "cold_users": o["cold_users"],
              "cold_items": o["cold_items"]}
    per_user = {"small_users": o["small_users"], "min_rows": o["min_rows"]}
    if method == "random":
        return [rv.split.random(data, 0.2 if o["test_size"] is None else o["test_size"],
                                per_user=o["per_user"], seed=o["seed"], **per_user, **common)]
    if method == "temporal":
        return [rv.split.temporal(data, o["test_size"], at=_at_value(o["at"]),
                                  per_user=o["per_user"], ties=o["ties"], **per_user,
                                  **common)]
    if method == "leave-k-out":
        return [rv.split.leave_k_out(data, o["k"], order=o["order"], seed=o["seed"],
                                     ties=o["ties"], **per_user, **common)]
    return list(rv.split.kfold(data, o["n_splits"], by=o["by"], seed=o["seed"], **common))


@click.command(name="split")
@click.argument("data", type=click.Path(exists=True, path_type=Path))
@click.option("--method", type=click.Choice(_METHODS), default="random", show_default=True,
              help="The splitter.")
@click.option("--test-size", type=float, default=None,
              help="Share of rows in test (random: default 0.2; temporal: this or --at).")
@click.option("--at", default=None,
              help="temporal: rows at or after this time go to test (a date, or a number in "
                   "the timestamp column's unit).")
@click.option("--per-user", is_flag=True, help="random / temporal: a share of each user's rows.")
@click.option("-k", "k", type=int, default=None, help="leave-k-out: test rows per user "
              "(default 1).")
@click.option("--order", type=click.Choice(["latest", "random"]), default=None,
              help="leave-k-out: which rows are held out (default latest).")
@click.option("--n-splits", type=int, default=None, help="kfold: folds (default 5).")
@click.option("--by", type=click.Choice(["rows", "users"]), default=None,
              help="kfold: deal rows or whole users into folds (default rows).")
@click.option("--seed", type=int, default=None,
              help="random, leave-k-out --order random, kfold: the seed (default 0).")
@click.option("--ties", type=click.Choice(["test", "train", "row_order"]), default=None,
              help="temporal, leave-k-out: where a block of equal timestamps at a cut goes "
                   "(default test).")
@click.option("--small-users", type=click.Choice(["train", "drop", "error"]), default=None,
              help="Per-user splits: users too small to split (default: train).")
@click.option("--min-rows", type=int, default=None,
              help="Per-user splits: users with fewer rows are too small.")
@click.option("--cold-users", type=click.Choice(["keep", "drop", "error"]), default="keep",
              show_default=True, help="Test rows of users without a training row.")
@click.option("--cold-items", type=click.Choice(["keep", "drop", "error"]), default="keep",
              show_default=True, help="Test rows of items without a training row.")
@input_flags(("user", "item", "timestamp"))
@click.option("-o", "--output", "outputs", multiple=True, type=click.Path(path_type=Path),
              help="Write TRAIN, then TEST (give -o twice); the format follows the extension "
                   "(.csv, .tsv, .parquet, .jsonl, optionally compressed, or .xlsx). kfold "
                   "writes one pair per fold: '{fold}' in a name is replaced by the fold "
                   "index, else '-fold<i>' is inserted before the extension.")
@click.option("--dropped", type=click.Path(path_type=Path), default=None,
              help="Also write the rows a drop policy removed.")
@click.option("--json", "as_json", is_flag=True, help="Print the report(s) as JSON.")
def split_cmd(data: Path, method: str, test_size: float | None, at: str | None,
              per_user: bool, k: int, order: str, n_splits: int, by: str, seed: int,
              ties: str, small_users: str | None, min_rows: int | None, cold_users: str,
              cold_items: str, outputs: tuple[Path, ...], dropped: Path | None,
              as_json: bool, **given: Any) -> None:
    """Split the interaction log DATA (CSV, TSV, Parquet, JSON lines) into train and test.

    Example: receval split ratings.csv --method temporal --test-size 0.2 -o train.csv
    -o test.parquet
    """
    from receval.cli._common import fail as _fail
    from receval.data._files import read_table

    try:
        paths = _output_paths(data, method, n_splits, outputs, dropped)
        frame = read_table(data, role="truth", encoding=str(given.get("encoding")))
        splits = _run(frame, method, {
            "test_size": test_size, "at": at, "per_user": per_user, "k": k, "order": order,
            "n_splits": n_splits, "by": by, "seed": seed, "ties": ties,
            "small_users": small_users, "min_rows": min_rows, "cold_users": cold_users,
            "cold_items": cold_items, "columns": read_columns(given)})
        with staged(list(paths.values())) as tmp:
            for (fold, part), path in paths.items():
                write_table(getattr(splits[fold], part), tmp[path], table_format(path, "-o"),
                            target=path)
    except RecevalError as exc:
        _fail(exc)
        return
    if as_json:
        reports = [s.report.to_dict() for s in splits]
        click.echo(json.dumps(reports[0] if len(reports) == 1 else reports, indent=2,
                              default=str))
        return
    for s in splits:
        click.echo(str(s.report))


def _output_paths(data: Path, method: str, n_splits: int | None, outputs: tuple[Path, ...],
                  dropped: Path | None) -> dict[tuple[int, str], Path]:
    """Every file the split will write, (fold, part) -> path, checked before any work.

    Raises
    ------
    InvalidParameterError
        Not two ``-o``.
    OutputPathError
        A path that cannot be written, that is the input, or that two parts share.
    """
    if len(outputs) not in (0, 2):
        raise InvalidParameterError(
            f"give -o twice (TRAIN then TEST), or not at all; got {len(outputs)}",
            parameter="output", examples=[str(p) for p in outputs])
    folds = range(n_splits or 5) if method == "kfold" else range(1)
    named = [("train", outputs[0]), ("test", outputs[1])] if outputs else []
    if dropped is not None:
        named.append(("dropped", dropped))
    paths = {(fold, part): fold_path(path, fold) if method == "kfold" else path
             for fold in folds for part, path in named}
    flag = {"train": "-o TRAIN", "test": "-o TEST", "dropped": "--dropped"}
    labels = {f"{flag[part]}" + (f" (fold {fold})" if method == "kfold" else ""): path
              for (fold, part), path in paths.items()}
    check_paths(labels, {"DATA": data}, tables=tuple(labels))
    return paths
