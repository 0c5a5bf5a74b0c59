"""``ev.plot``: matplotlib figures of an evaluation for notebooks (``receval[plot]``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from receval.exceptions import InvalidParameterError
from receval.report import _data as D

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from receval._result import EvaluationResult

__all__ = ["EvaluationPlots"]


class _Plots:
    """``obj.plot.<kind>(...)``, and ``obj.plot(kind, ...)`` for the same figure."""

    kinds: tuple[str, ...] = ()
    of = ""

    def __init__(self, obj: Any) -> None:
        self._obj = obj

    def __call__(self, kind: str | None = None, /, *args: Any, **kwargs: Any) -> Figure:
        kind = self.kinds[0] if kind is None else kind
        if kind not in self.kinds:
            raise InvalidParameterError(
                f"kind must be one of {', '.join(self.kinds)}; got {kind!r}",
                parameter="kind", examples=[kind])
        method = getattr(self, kind)
        return method(*args, **kwargs)  # type: ignore[no-any-return]

    def __repr__(self) -> str:
        return f"<plots of {self.of}: {', '.join(self.kinds)}>"


class EvaluationPlots(_Plots):
    """Figures of one :class:`~receval.EvaluationResult`: ``ev.plot.<kind>(...)``.

    ``ev.plot(kind, ...)`` is the same as ``ev.plot.<kind>(...)``. Each method returns a
    :class:`matplotlib.figure.Figure`; the data behind it is in :mod:`receval.report`
    (:func:`~receval.report.curves`, :func:`~receval.report.distributions`,
    :func:`~receval.report.popularity`).
    """

    kinds = ("curves", "distribution", "popularity")
    of = "an evaluation"

    def __init__(self, ev: EvaluationResult) -> None:
        super().__init__(ev)
        self._ev = ev

    def curves(self, recs: Any = None, truth: Any = None, *, max_k: int | None = None,
               **options: Any) -> Figure:
        """Metric@k for k = 1..K: one line per ranking metric with a cutoff.

        With ``recs`` and ``truth`` (the inputs of the evaluation), every cutoff from 1 to
        ``max_k`` (default: the largest k evaluated) is computed in one ``evaluate`` call
        under the result's settings; without them, the points are the cutoffs evaluated.
        """
        from receval.report._figures import curves_figure

        return curves_figure(D.curves(self._ev, recs, truth, max_k=max_k, **options))

    def distribution(self, metric: str | None = None, *, bins: int = 20) -> Figure:
        """Histogram of per-user values of ``metric`` (default: every metric, in a grid)."""
        from receval.report._figures import distribution_figure, distributions_figure

        hists = D.distributions(self._ev, bins=bins,
                                metrics=None if metric is None else [metric])
        if metric is not None:
            if not hists:
                raise InvalidParameterError(
                    f"{metric!r} has no per-user values (a global metric)",
                    parameter="metric", examples=[metric])
            return distribution_figure(next(iter(hists.values())))
        return distributions_figure(list(hists.values()))

    def popularity(self, recs: Any, truth: Any, train: Any, *, k: int | None = None,
                   head_share: float = 0.2) -> Figure:
        """Long tail: training popularity of items against how often they are recommended.

        Recommendations are counted in each user's top ``k`` (default: the largest k
        evaluated; the whole list without one).
        """
        from receval.report._figures import popularity_figure

        if k is None:
            k = D.largest_k(self._ev)
        data = D.popularity(D.recommended_items(recs, truth, self._ev, k),
                            D.train_items(train, self._ev), k=k, head_share=head_share)
        return popularity_figure(data)


class ComparisonPlots(_Plots):
    """Figures of a :class:`~receval.Comparison`: ``cmp.plot.means()`` (or ``cmp.plot()``)."""

    kinds = ("means",)
    of = "a comparison"

    def means(self) -> Figure:
        """Each system's mean per metric with its confidence interval and its marks."""
        from receval.report._figures import comparison_figure
        from receval.report._systems import comparison_data

        d = comparison_data(self._obj)
        marks = d["marks"].map(lambda m: f"beats {m}" if m else "")
        return comparison_figure(d["mean"], d["low"], d["high"], marks)


class CrossValidationPlots(_Plots):
    """Figures of a :class:`~receval.CrossValidation`: ``cv.plot.folds()`` (or ``cv.plot()``)."""

    kinds = ("folds",)
    of = "a cross-validation"

    def folds(self, metrics: list[str] | None = None) -> Figure:
        """Each fold's value per model and metric, with the mean and std over folds."""
        from receval.report._crossval import folds_data
        from receval.report._figures import folds_figure

        per_fold, _ = folds_data(self._obj)
        return folds_figure(per_fold, list(self._obj.labels) if metrics is None else metrics)
