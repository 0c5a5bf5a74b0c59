"""Warnings of a partition, kept as notes until the partials are merged.

A partition does not warn: it records a :class:`Note` (a count and a few example ids), and
:func:`emit` warns once per kind of note after the merge, with the counts of every partition
added up and the first examples, so that a warning reads the same whatever the partitioning.
With ``strict=True`` :func:`note` raises at once instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from receval.exceptions import (
    DataError,
    RecevalWarning,
    TiesAtCutoffWarning,
    format_examples,
    warn,
)

__all__ = ["Note", "emit", "first_examples", "note"]


@dataclass
class Note:
    """A warning to emit once partials are merged (counts add up across partitions)."""

    category: type[RecevalWarning]
    text: str  # with {n} and {examples}
    n: int
    examples: list[Any]
    cutoff: int = 0  # the k of a TiesAtCutoffWarning


def note(notes: list[Note], category: type[RecevalWarning], text: str, n: int,
         examples: Sequence[Any], strict: bool, cutoff: int = 0) -> None:
    """Record a warning (or, with ``strict``, raise it as a :class:`DataError`)."""
    if strict:
        raise DataError(text.format(n=n, examples=format_examples(list(examples), n))
                        + " (strict=True turns this warning into an error)",
                        n_bad=n, examples=examples)
    notes.append(Note(category, text, n, list(examples)[:5], cutoff))


def first_examples(examples: list[Any]) -> list[Any]:
    """The first five ids in id order (as one partition would list them)."""
    try:
        return sorted(examples)[:5]
    except TypeError:  # ids that do not order
        return examples[:5]


def emit(notes: list[Note]) -> None:
    """Warn once per kind of note, counts of every partition added up."""
    merged: dict[tuple[type[RecevalWarning], str], Note] = {}
    for item in notes:
        key = (item.category, item.text)
        if key in merged:  # examples of several partitions: the first ids, as in one
            merged[key].n += item.n
            merged[key].examples = first_examples(merged[key].examples + item.examples)
        else:
            merged[key] = Note(item.category, item.text, item.n, list(item.examples),
                               item.cutoff)
    ties = [key for key in merged if key[0] is TiesAtCutoffWarning]
    if len(ties) > 1:  # the cutoff with the most users, as one partition would say
        worst = max(ties, key=lambda key: (merged[key].n, -merged[key].cutoff))
        merged = {key: item for key, item in merged.items()
                  if key[0] is not TiesAtCutoffWarning or key == worst}
    for item in merged.values():
        warn(item.text.format(n=item.n, examples=format_examples(item.examples, item.n)),
             item.category)
