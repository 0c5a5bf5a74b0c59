"""Standalone HTML reports and matplotlib figures of evaluations (``receval[report]``).

``ev.report(path)`` writes one HTML file that opens from disk with no server and no network:
styles inline, figures as inline SVG rendered by matplotlib, built from Jinja2 templates.
``ev.plot.curves()`` and friends return matplotlib figures for notebooks (``receval[plot]``).
Nothing here is imported by ``import receval``; matplotlib and jinja2 are imported when a
report or a figure is made.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from receval.report._data import Histogram, Popularity, curves, distributions, popularity
from receval.report._page import render, write
from receval.report._plots import ComparisonPlots, CrossValidationPlots, EvaluationPlots

if TYPE_CHECKING:
    from receval._result import EvaluationResult

__all__ = [
    "ComparisonPlots",
    "CrossValidationPlots",
    "EvaluationPlots",
    "Histogram",
    "Popularity",
    "comparison_report",
    "cross_validation_report",
    "curves",
    "distributions",
    "evaluation_report",
    "popularity",
    "write_comparison_report",
    "write_cross_validation_report",
    "write_evaluation_report",
]


def evaluation_report(
    ev: EvaluationResult, *, recs: Any = None, truth: Any = None, train: Any = None,
    title: str | None = None, max_k: int | None = None, bins: int = 20,
    names: Mapping[str, str] | None = None, notes: Sequence[str] = (),
    generated: Any = None, head_share: float = 0.2, user_groups: Any = None,
) -> str:
    """The HTML of an evaluation report (see :meth:`receval.EvaluationResult.report`)."""
    from receval.report._evaluation import evaluation_page

    return render(evaluation_page(
        ev, recs=recs, truth=truth, train=train, title=title, max_k=max_k, bins=bins,
        names=names, notes=notes, generated=generated, head_share=head_share,
        user_groups=user_groups))


def _checked(path: str | Path, inputs: Mapping[str, Any] | None = None) -> Path:
    """The report's path, checked before any work (:class:`OutputPathError` if unwritable).

    ``inputs``: role -> value of the inputs it must not be (values that are not paths are
    ignored).
    """
    from receval._paths import check_output

    return check_output(path, parameter="path", inputs=inputs)


def write_evaluation_report(ev: EvaluationResult, path: str | Path, **kwargs: Any) -> Path:
    """Write :func:`evaluation_report` to ``path``; return the path.

    The path is checked before anything is computed (its directory exists, it is not a
    directory nor under a file, it is none of the files ``ev`` was evaluated from nor the
    ``recs``, ``truth`` or ``train`` given: :class:`~receval.exceptions.OutputPathError`),
    and the file is written whole or not at all.
    """
    inputs: dict[str, Any] = dict(getattr(ev, "_input_paths", {}))
    for role in ("recs", "truth", "train"):
        if kwargs.get(role) is not None:
            inputs[f"{role} given to report" if role in inputs else role] = kwargs[role]
    out = _checked(path, inputs)
    return write(evaluation_report(ev, **kwargs), out)


def comparison_report(cmp: Any, *, title: str | None = None, generated: Any = None,
                      user_groups: Any = None) -> str:
    """The HTML of a comparison report (see :meth:`receval.Comparison.report`)."""
    from receval.report._systems import comparison_page

    return render(comparison_page(cmp, title=title, generated=generated,
                                  user_groups=user_groups))


def write_comparison_report(cmp: Any, path: str | Path, **kwargs: Any) -> Path:
    """Write :func:`comparison_report` to ``path`` (checked first, written whole)."""
    out = _checked(path)
    return write(comparison_report(cmp, **kwargs), out)


def cross_validation_report(cv: Any, *, title: str | None = None,
                            generated: Any = None) -> str:
    """The HTML of a cross-validation report (see :meth:`receval.CrossValidation.report`)."""
    from receval.report._crossval import cross_validation_page

    return render(cross_validation_page(cv, title=title, generated=generated))


def write_cross_validation_report(cv: Any, path: str | Path, **kwargs: Any) -> Path:
    """Write :func:`cross_validation_report` to ``path`` (checked first, written whole)."""
    out = _checked(path)
    return write(cross_validation_report(cv, **kwargs), out)
