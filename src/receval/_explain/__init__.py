"""``explain``: a metric on one list, with the worked table of a textbook.

A ranking metric is explained on a list of relevance grades (:mod:`._ranking`), a per-list
metric (novelty, popularity, diversity) on a list of item ids (:mod:`._lists`), and
miscalibration and AWRF on a list of item ids with their side inputs (:mod:`._fairness`);
either way
the value is what :func:`receval.evaluate` gives that list, by the same engine code.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from receval._evaluate_options import check_relevance_threshold
from receval._explain._fairness import explain_awrf, explain_miscalibration
from receval._explain._lists import explain_list
from receval._explain._ranking import explain_ranking
from receval._explain._table import Explanation, ListExplanation
from receval.exceptions import InvalidParameterError
from receval.metrics import Metric, parse
from receval.metrics._calibration import Miscalibration
from receval.metrics._fairness import AWRF

__all__ = ["Explanation", "ListExplanation", "explain"]


def explain(metric: str | Metric, grades: Sequence[Any],
            ideal: Sequence[float] | None = None, *,
            relevance_threshold: float | None = None, train: Any = None,
            item_features: Any = None, item_groups: Any = None, user: Any = None,
            relevant: Sequence[Any] | None = None,
            item_features_sep: str | None = "|") -> Explanation:
    """Compute a metric on one list and show the arithmetic.

    Parameters
    ----------
    metric : str or Metric
        A ranking metric, e.g. ``"ndcg@6"`` or ``"ap(denominator=relevant)@10"``, a
        per-list metric (``"novelty@10"``, ``"popularity@10"``, ``"diversity@10"``),
        ``"miscalibration@10"`` or ``"awrf@10"``.
    grades : sequence
        For a ranking metric, the grade (relevance) of each recommended item, best-ranked
        first (0 = not relevant). For the other metrics, the item ids of the list.
    ideal : sequence of float, optional
        The grades of all the user's judged items (recommended or not), for the ideal
        ordering and the number of relevant items; by default the list itself. It must hold
        every relevant grade of the list (as a multiset: ``[3, 3]`` for a list with two 3s),
        since the list's items are among the user's judged items.
    relevance_threshold : float, optional
        Grades ``>=`` this are relevant (default: every positive grade); a number ``>= 0``,
        as in :func:`receval.evaluate`.
    train, item_features : table, optional
        For the per-list metrics: training interactions (popularity) and item features
        (similarity), read as :func:`receval.evaluate` reads them. Miscalibration reads
        both: the profile is the history of ``user`` in ``train`` (default: its only user),
        the genres the categories of ``item_features`` (split on ``item_features_sep``).
    item_groups : table, mapping or Series, optional
        For AWRF: item -> group, as :func:`receval.evaluate` reads it.
    user : object, optional
        Miscalibration: whose training history is the profile.
    relevant : sequence, optional
        AWRF with ``target='relevance'`` / ``'mix'`` or ``times_ndcg``: the user's relevant
        items.
    item_features_sep : str or None
        The separator of several categories (or groups) in one cell (default ``"|"``).

    Returns
    -------
    Explanation
        ``.value``, ``.table`` and ``str()`` for the worked table.

    Examples
    --------
    >>> round(explain("ndcg@6", [3, 2, 3, 0, 1, 2]).value, 3)
    0.961
    """
    m = parse(metric)
    check_relevance_threshold(relevance_threshold)
    if isinstance(m, Miscalibration):
        return explain_miscalibration(m, grades, train=train, item_features=item_features,
                                      user=user, sep=item_features_sep)
    if isinstance(m, AWRF):
        return explain_awrf(m, grades, item_groups=item_groups, relevant=relevant,
                            sep=item_features_sep)
    if m.family == "per_list":
        return explain_list(m, grades, train=train, item_features=item_features)
    if m.family != "ranking":
        raise InvalidParameterError(
            f"explain works on ranking metrics, novelty, popularity, diversity, "
            f"miscalibration and AWRF; "
            f"{m.label} is a {m.family} metric", parameter="metric")
    if getattr(m, "weighted", False):
        raise InvalidParameterError(
            f"explain takes a list of grades, not propensities: evaluate {m.label} with "
            f"rv.evaluate (settings['propensity'] has its weights' diagnostics)",
            parameter="metric", examples=[m.label])
    return explain_ranking(m, grades, ideal, relevance_threshold=relevance_threshold)
