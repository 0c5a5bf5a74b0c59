"""The flags of every command that evaluates, generated from evaluate's one declaration.

:data:`receval._evaluate_options.EVALUATE_OPTIONS` lists every option of
:func:`receval.evaluate`; :func:`evaluate_flags` turns it into click options (the same flags,
help and choices on ``evaluate``, ``compare``, ``report`` and ``cv``), and
:func:`read_evaluate_flags` turns the values given on the command line back into
``evaluate``'s keyword arguments (tables read from their files). :func:`input_flags` adds the
flags of reading inputs (column names, encoding) that ``split`` shares.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import click

from receval._columns import ROLES
from receval._evaluate_options import EVALUATE_OPTIONS, EvaluateOption
from receval.exceptions import InvalidParameterError

__all__ = ["COLUMN_FLAGS", "cli_options", "evaluate_flags", "input_flags", "read_columns",
           "read_evaluate_flags", "read_input", "read_items"]

F = TypeVar("F", bound=Callable[..., Any])

#: Role -> the flag naming its column in every table (``--time-col`` for the timestamp).
COLUMN_FLAGS = {role: f"--{'time' if role == 'timestamp' else role}-col" for role in ROLES}


def cli_options() -> tuple[EvaluateOption, ...]:
    """The declared options that every command that evaluates has as flags."""
    return tuple(o for o in EVALUATE_OPTIONS if o.cli is None and o.kind != "columns")


def _help(o: EvaluateOption) -> str:
    return o.help if o.default in (None, False) else f"{o.help} [default: {o.default}]"


def _read_text(o: EvaluateOption) -> Callable[..., Any]:
    """A click callback reading the flag's text as the declaration says."""
    def convert(ctx: Any, param: Any, value: str | None) -> Any:
        if value is None:
            return None
        try:
            return o.read(value)
        except InvalidParameterError as exc:
            raise click.BadParameter(str(exc)) from None
    return convert


def _click_option(o: EvaluateOption) -> Callable[[F], F]:
    names = [o.flag] if o.short is None else [o.short, o.flag]
    common: dict[str, Any] = {"default": None, "help": _help(o)}
    if o.kind == "choice":
        return click.option(*names, type=click.Choice(list(o.choices)), **common)
    if o.kind == "number":
        return click.option(*names, type=float, **common)
    if o.kind in ("choice_or_number", "choice_or_integer"):
        number = "NUMBER" if o.kind == "choice_or_number" else "N"
        return click.option(*names, metavar="|".join([*o.choices, number]),
                            callback=_read_text(o), **common)
    if o.kind == "flag":
        return click.option(*names, is_flag=True, default=False, help=o.help)
    if o.kind == "switch":
        return click.option(f"{o.flag}/--no-{o.flag[2:]}", default=None, help=o.help)
    if o.kind == "text":
        return click.option(*names, metavar="NAME", **common)
    if o.kind in ("table", "items"):
        return click.option(*names, type=click.Path(exists=True, dir_okay=o.kind == "table",
                                                    path_type=Path), **common)
    raise AssertionError(f"no flag for the kind {o.kind!r}")  # pragma: no cover


def input_flags(roles: tuple[str, ...] = ROLES) -> Callable[[F], F]:
    """``--user-col`` ... (one per role), ``--column TABLE_ROLE=NAME`` and ``--encoding``."""
    def decorate(func: F) -> F:
        func = click.option(
            "--encoding", default="utf-8", show_default=True,
            help="Text encoding of CSV, TSV, JSON lines and TREC inputs (e.g. latin-1, "
                 "cp1252).")(func)
        func = click.option(
            "--column", "column_names", multiple=True, metavar="[TABLE_]ROLE=NAME",
            help="A column name for one table, e.g. truth_user=user_id (tables: recs, truth, "
                 "train, item_features, data); repeatable.")(func)
        for role in reversed(roles):
            func = click.option(COLUMN_FLAGS[role], f"{role}_col", default=None,
                                help=f"Column of the {role} in every input.")(func)
        return func
    return decorate


def evaluate_flags(func: F) -> F:
    """Every declared option of ``evaluate`` as a flag, plus :func:`input_flags`."""
    for o in reversed(cli_options()):
        func = _click_option(o)(func)
    return input_flags(tuple(r for r in ROLES if r != "timestamp"))(func)


def read_columns(given: Mapping[str, Any]) -> Any:
    """The ``columns=`` of the column flags among ``given`` (None when none is set)."""
    from receval._columns import Columns

    named: dict[str, Any] = {role: given.get(f"{role}_col") for role in ROLES
                             if given.get(f"{role}_col") is not None}
    for text in given.get("column_names") or ():
        key, eq, value = str(text).partition("=")
        if not eq or not key or not value:
            raise InvalidParameterError(
                f"--column takes [TABLE_]ROLE=NAME, e.g. truth_user=user_id; got {text!r}",
                parameter="column", examples=[text])
        named[key.strip()] = value
    return Columns.coerce(named) if named else None


def read_items(path: Path, *, encoding: str = "utf-8", parameter: str = "catalog") -> list[Any]:
    """Item ids from a file: a table with an item column, or one id per line.

    A file that is not a table receval reads (``.txt``, no extension) holds one id per line;
    the ids are integers when every line reads as one.
    """
    from receval._columns import Columns
    from receval.data._files import _known_format, read_table

    if _known_format(path) is None:
        try:
            lines = [line.strip() for line in path.read_text(encoding=encoding).splitlines()]
        except (OSError, UnicodeError) as exc:
            raise InvalidParameterError(f"--{parameter.replace('_', '-')}: cannot read "
                                        f"{str(path)!r}: {exc}", parameter=parameter,
                                        examples=[str(path)]) from exc
        ids: list[Any] = [line for line in lines if line]
        with contextlib.suppress(ValueError):
            ids = [int(x) for x in ids]
        return ids
    frame = read_table(path, role="truth", encoding=encoding)
    avail = [str(c) for c in frame.columns]
    col = avail[0] if len(avail) == 1 else Columns().require("item", avail, table=parameter)
    return frame[col].tolist()


def read_evaluate_flags(given: Mapping[str, Any], *, skip: tuple[str, ...] = ()
                        ) -> dict[str, Any]:
    """``evaluate``'s keyword arguments from the flags given (unset flags are left out).

    Tables and item lists are read from their files with ``--encoding``; the names in
    ``skip`` are left to the caller.
    """
    from receval.data._files import read_table

    encoding = str(given.get("encoding") or "utf-8")
    out: dict[str, Any] = {}
    columns = read_columns(given)
    if columns is not None and "columns" not in skip:
        out["columns"] = columns
    for o in cli_options():
        value = given.get(o.name)
        if o.name in skip or value is None or (o.kind == "flag" and value is False):
            continue
        if o.kind == "table":
            value = read_table(value, role="truth", encoding=encoding)
        elif o.kind == "items":
            value = read_items(value, encoding=encoding, parameter=o.name)
        out[o.name] = value
    return out


def read_input(path: Path, role: str, given: Mapping[str, Any]) -> Any:
    """An input of ``evaluate`` given as a file: its table, read with ``--encoding``.

    With ``--buckets``, a Parquet file or directory is passed on as its path, so that
    ``evaluate`` streams it in buckets of users.
    """
    from receval.data._buckets import is_parquet_source
    from receval.data._files import read_table

    if given.get("buckets") is not None and is_parquet_source(path):
        return str(path)
    columns = read_columns(given)
    ids = () if columns is None else tuple(
        columns.named(r, role) for r in ("user", "item") if columns.named(r, role) is not None)
    return read_table(path, role=role, encoding=str(given.get("encoding") or "utf-8"),
                      ids=ids)
