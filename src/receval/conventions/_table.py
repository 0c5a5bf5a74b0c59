"""The side-by-side table of every preset, generated from the presets themselves."""

from __future__ import annotations

import pandas as pd

from receval.conventions._model import DEFAULTS, Convention
from receval.exceptions import UnknownMetricError
from receval.metrics import Metric, get, parse

__all__ = ["markdown", "table"]

#: Rows of the table, in order.
METRICS = ("precision", "recall", "fbeta", "hit_rate", "mrr", "ap", "cg", "dcg", "ndcg", "mae",
           "mse", "rmse",
           # beyond accuracy (DESIGN section 9)
           "novelty", "diversity", "serendipity", "unexpectedness", "personalization", "gini",
           "entropy", "item_coverage", "distributional_coverage", "popularity", "long_tail",
           "long_tail_coverage")
_K = 10  # a cutoff to build labels with; shown as "k"


def _cell(conv: Convention | None, name: str, whole: bool) -> str:
    text = name if whole else f"{name}@{_K}"
    if conv is None:
        return parse(text).label.replace(f"@{_K}", "@k")
    try:
        metric = conv.metric(text)
    except UnknownMetricError:
        return "-"
    except ValueError:  # the library has no such form (a cutoff it does not take)
        return "-"
    cell = _named(conv, metric)
    if conv.rule(metric).params_features:  # another form when item_features are given
        cell += f"; with item_features: {_named(conv, conv.metric(text, item_features=True))}"
    return cell


def _named(conv: Convention, metric: Metric) -> str:
    """``library name = receval label`` of one metric, ``k`` for the cutoff."""
    label = metric.label.replace(f"@{_K}", "@k")
    return f"{(conv.library_name(metric) or '-').replace(str(_K), 'k')} = {label}"


def table(conventions: list[str] | None = None) -> pd.DataFrame:
    """How each convention defines each metric, and its settings.

    Parameters
    ----------
    conventions : list of str, optional
        The presets to show (default: all), after receval's own defaults.

    Returns
    -------
    pandas.DataFrame
        One row per metric form (``precision@k``, ``ap`` for the whole list, ...) and per
        setting; one column for receval's defaults and one per convention. A metric cell is
        ``library name = receval label``; ``-`` means the library does not offer it.
    """
    from receval.conventions._presets import PRESETS
    from receval.conventions._registry import get as get_convention

    convs = [get_convention(c) for c in (conventions or list(PRESETS))]
    rows: dict[str, dict[str, str]] = {}
    for name in METRICS:
        cls = get(name)
        forms = [False, True] if cls.takes_k else [True]
        for whole in forms:
            if cls.takes_k and whole and not any(
                    name in c.rules and c.rules[name].cutoff != "required" for c in convs):
                continue
            row = f"{cls.name}" if whole else f"{cls.name}@k"
            rows[row] = {"receval": _cell(None, name, whole)}
            rows[row].update({c.name: _cell(c, name, whole) for c in convs})
    for setting, default in DEFAULTS.items():
        rows[setting] = {"receval": repr(default)}
        rows[setting].update({c.name: repr(c.setting(setting)) for c in convs})
    return pd.DataFrame.from_dict(rows, orient="index")


def markdown(frame: pd.DataFrame, fmt: str = "github") -> str:
    """A small DataFrame as a table in a tabulate format (GitHub Markdown by default).

    The index is the first column; NaN shows as ``-`` and numbers with 4 digits.
    """
    from tabulate import tabulate

    def cell(v: object) -> str:
        if isinstance(v, float):
            return "-" if v != v else f"{v:.4f}"
        return str(v)

    rows = [[str(name), *(cell(v) for v in row)] for name, row in frame.iterrows()]
    return str(tabulate(rows, headers=["", *(str(c) for c in frame.columns)],
                        tablefmt=fmt, disable_numparse=True))
