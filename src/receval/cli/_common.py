"""What every command of the command line shares: failing, recording warnings, inputs."""

from __future__ import annotations

import contextlib
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

from receval.cli._options import read_input
from receval.exceptions import RecevalError

__all__ = ["console", "fail", "input_names", "inputs", "read_inputs", "recorded"]


def console() -> Any:
    from receval.cli._render import Printer

    return Printer()


def fail(exc: RecevalError) -> None:
    click.echo(f"error: {exc}", err=True)
    sys.exit(2)


@contextlib.contextmanager
def recorded() -> Iterator[list[str]]:
    """Record the warnings of a block: receval's become the notes the command prints once.

    Other libraries' warnings are shown as Python shows them, each once.
    """
    from receval.exceptions import RecevalWarning

    messages: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield messages
    others: set[tuple[type[Warning], str]] = set()
    for w in caught:
        if issubclass(w.category, RecevalWarning):
            messages.append(str(w.message))
        elif (w.category, str(w.message)) not in others:
            others.add((w.category, str(w.message)))
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    messages[:] = list(dict.fromkeys(messages))


def inputs(**paths: Any) -> dict[str, Any]:
    """The input files of a command, by parameter (outputs must not overwrite them)."""
    return {name: value for name, value in paths.items()
            if isinstance(value, Path) and name not in ("per_user", "report_file", "output")}


def input_names(inputs: dict[str, Any]) -> dict[str, str]:
    return {name: str(path) for name, path in inputs.items()
            if name in ("recs", "truth", "train", "item_features")}


def read_inputs(recs: Path, truth: Path, given: dict[str, Any]) -> tuple[Any, Any]:
    return read_input(recs, "recs", given), read_input(truth, "truth", given)
