"""``receval split``: split an interaction log into training and test files."""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path
from typing import Any

import click

from receval.exceptions import InvalidParameterError, RecevalError

__all__ = ["fold_path", "split_cmd", "write_table"]

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


def write_table(frame: Any, path: Path) -> None:
    """Write a pandas DataFrame as CSV, TSV, Parquet or JSON lines, by the extension."""
    name = path.name.lower()
    for suffix in (".gz", ".bz2", ".xz", ".zst", ".zip"):
        name = name.removesuffix(suffix)
    if name.endswith((".parquet", ".pq")):
        frame.to_parquet(path, index=False)
    elif name.endswith((".tsv", ".tab")):
        frame.to_csv(path, sep="\t", index=False)
    elif name.endswith((".jsonl", ".ndjson", ".json")):
        frame.to_json(path, orient="records", lines=True, date_format="iso")
    elif name.endswith(".csv"):
        frame.to_csv(path, index=False)
    else:
        raise InvalidParameterError(
            f"cannot tell the output format of {str(path)!r}: end its name in .csv, .tsv, "
            f".parquet or .jsonl (optionally compressed, e.g. .csv.gz)", parameter="output",
            examples=[str(path)])


def _at_value(at: str | None) -> Any:
    """``--at``: a number when it reads as one (epoch columns), else the string (dates)."""
    if at is None:
        return None
    for cast in (int, float):
        with contextlib.suppress(ValueError):
            return cast(at)
    return at


def _run(data: Path, method: str, options: dict[str, Any]) -> list[Any]:
    import receval as rv

    o = options
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
@click.option("-k", "k", type=int, default=1, show_default=True,
              help="leave-k-out: test rows per user.")
@click.option("--order", type=click.Choice(["latest", "random"]), default="latest",
              show_default=True, help="leave-k-out: which rows are held out.")
@click.option("--n-splits", type=int, default=5, show_default=True, help="kfold: folds.")
@click.option("--by", type=click.Choice(["rows", "users"]), default="rows", show_default=True,
              help="kfold: deal rows or whole users into folds.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of random splits.")
@click.option("--ties", type=click.Choice(["test", "train", "row_order"]), default="test",
              show_default=True, help="Where a block of equal timestamps at a cut goes.")
@click.option("--small-users", type=click.Choice(["train", "drop", "error"]), default=None,
              help="Per-user splits: users too small to split (default: train).")
@click.option("--min-rows", type=int, default=None,
              help="Per-user splits: users with fewer rows are too small.")
@click.option("--cold-users", type=click.Choice(["keep", "drop", "error"]), default="keep",
              show_default=True, help="Test rows of users without a training row.")
@click.option("--cold-items", type=click.Choice(["keep", "drop", "error"]), default="keep",
              show_default=True, help="Test rows of items without a training row.")
@click.option("--user-col", default=None, help="Column of user ids.")
@click.option("--item-col", default=None, help="Column of item ids.")
@click.option("--time-col", default=None, help="Column of timestamps.")
@click.option("-o", "--output", "outputs", multiple=True, type=click.Path(path_type=Path),
              help="Write TRAIN, then TEST (give -o twice). kfold writes one pair per fold: "
                   "'{fold}' in a name is replaced by the fold index, else '-fold<i>' is "
                   "inserted before the extension.")
@click.option("--dropped", type=click.Path(path_type=Path), default=None,
              help="Also write the rows a drop policy removed.")
@click.option("--json", "as_json", is_flag=True, help="Print the report(s) as JSON.")
def split_cmd(data: Path, method: str, test_size: float | None, at: str | None,
              per_user: bool, k: int, order: str, n_splits: int, by: str, seed: int,
              ties: str, small_users: str | None, min_rows: int | None, cold_users: str,
              cold_items: str, user_col: str | None, item_col: str | None,
              time_col: str | None, outputs: tuple[Path, ...], dropped: Path | None,
              as_json: bool) -> None:
    """Split the interaction log DATA (CSV, TSV, Parquet, JSON lines) into train and test.

    Example: receval split ratings.csv --method temporal --test-size 0.2 -o train.csv
    -o test.parquet
    """
    from receval.cli import _fail

    if len(outputs) not in (0, 2):
        click.echo("error: give -o twice (TRAIN then TEST), or not at all", err=True)
        sys.exit(2)
    columns = {role: name for role, name in
               (("user", user_col), ("item", item_col), ("timestamp", time_col)) if name}
    try:
        splits = _run(data, method, {
            "test_size": test_size, "at": at, "per_user": per_user, "k": k, "order": order,
            "n_splits": n_splits, "by": by, "seed": seed, "ties": ties,
            "small_users": small_users, "min_rows": min_rows, "cold_users": cold_users,
            "cold_items": cold_items, "columns": columns or None})
        for i, s in enumerate(splits):
            many = method == "kfold"
            pairs = list(zip(outputs, (s.train, s.test), strict=False))
            if dropped is not None:
                pairs.append((dropped, s.dropped))
            for path, frame in pairs:
                write_table(frame, fold_path(path, i) if many else path)
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
