"""One data set evaluated under receval's defaults and under every convention, side by side."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from receval.conventions._model import Convention
from receval.conventions._table import markdown
from receval.exceptions import RecevalError, RecevalWarning

__all__ = ["SideBySide", "side_by_side"]


@dataclass(frozen=True)
class SideBySide:
    """The numbers of every convention for the same metrics on the same data.

    Attributes
    ----------
    values : pandas.DataFrame
        One row per metric as written, one column for receval's defaults and one per
        convention; NaN where the library does not offer the metric (see ``names``).
    names : pandas.DataFrame
        The same shape: ``library name = receval label`` of each number, or why there is
        none.
    notes : dict
        Warnings and errors of each column.
    """

    values: pd.DataFrame
    names: pd.DataFrame
    notes: dict[str, list[str]] = field(default_factory=dict)

    def to_markdown(self, digits: int = 4) -> str:
        """Both tables in Markdown: the values, then what each is (conventions down)."""
        vals = self.values.map(lambda v: "-" if pd.isna(v) else f"{v:.{digits}f}")
        return f"{markdown(vals)}\n\n{markdown(self.names.T)}"


def side_by_side(recs: Any, truth: Any, metrics: Sequence[str],
                 conventions: Sequence[str | Convention] | None = None,
                 **options: Any) -> SideBySide:
    """Evaluate ``metrics`` under receval's defaults and under each convention.

    Parameters
    ----------
    recs, truth : table-like
        As for :func:`receval.evaluate`.
    metrics : list of str
        Metric names, read in each convention in turn.
    conventions : list, optional
        The presets to compare (default: every one that offers one of ``metrics``: LibRec's,
        for instance, has no column for nDCG).
    **options
        Further :func:`receval.evaluate` options, applied in every column (they override the
        conventions' own settings, as in ``evaluate``).

    Returns
    -------
    SideBySide
        The values and what each of them is.
    """
    import receval as rv
    from receval.conventions._registry import available, get

    if isinstance(metrics, str):
        metrics = [metrics]
    convs: list[Convention | None] = [None] + [
        get(c) for c in (conventions if conventions is not None else available())]
    features = options.get("item_features") is not None
    values: dict[str, dict[str, float]] = {}
    names: dict[str, dict[str, str]] = {}
    notes: dict[str, list[str]] = {}
    for conv in convs:
        column = "receval" if conv is None else conv.name
        offered: list[str] = []
        cells = names.setdefault(column, {})
        for text in metrics:
            try:
                metric = rv.metrics.parse(text) if conv is None else conv.metric(
                    text, item_features=features)
            except RecevalError as exc:
                cells[text] = f"- ({exc})" if conv is None else "- (" + _short(exc) + ")"
                continue
            offered.append(text)
            cells[text] = metric.label if conv is None else \
                f"{conv.library_name(metric) or 'not in ' + conv.name} = {metric.label}"
        if not offered and conv is not None and conventions is None:
            del names[column]  # a library without any of these metrics: no column
            continue
        col_values = values.setdefault(column, {})
        if not offered:
            continue
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", RecevalWarning)
            try:
                ev = rv.evaluate(recs, truth, offered, convention=conv, **options)
            except RecevalError as exc:
                notes.setdefault(column, []).append(f"error: {exc}")
                continue
        notes[column] = [str(w.message) for w in caught]
        for text in offered:
            col_values[text] = ev[text]
    frame = pd.DataFrame(values).reindex(index=list(metrics))
    label_frame = pd.DataFrame(names).reindex(index=list(metrics)).fillna("-")
    return SideBySide(frame, label_frame, {k: v for k, v in notes.items() if v})


def _short(exc: RecevalError) -> str:
    text = str(exc)
    return "not offered" if " has no " in text else text.split(":")[0]
