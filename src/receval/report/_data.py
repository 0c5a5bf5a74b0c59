"""The data behind each figure of a report: small, binned tables, never one point per user.

Nothing here draws or imports matplotlib; :mod:`receval.report._figures` draws these tables and
the tests check them. Every metric value comes from :func:`receval.evaluate` (the curves are one
call with every cutoff, computed by the engine in one kernel pass per group of metrics).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from receval.exceptions import InvalidParameterError
from receval.metrics import Metric, RankingMetric

if TYPE_CHECKING:
    from receval._result import EvaluationResult

__all__ = [
    "Histogram",
    "Popularity",
    "curve_metrics",
    "curves",
    "distributions",
    "evaluate_options",
    "histogram",
    "largest_k",
    "popularity",
    "recommended_items",
    "train_items",
]

#: Most bins a long-tail figure draws (items are grouped into at most this many bins).
MAX_ITEM_BINS = 100


def _family(label: str) -> str:
    """``'NDCG(gain='exponential')@10'`` -> ``'NDCG(gain='exponential')@k'``."""
    return label.rsplit("@", 1)[0] + "@k"


def curve_metrics(ev: EvaluationResult) -> list[Metric]:
    """The ranking metrics of a result that have a cutoff (one curve each), in order."""
    return [m for m in ev.metrics if isinstance(m, RankingMetric) and m.k is not None]


def largest_k(ev: EvaluationResult) -> int | None:
    """The largest cutoff of a result's metrics (None when no metric has one)."""
    ks = [k for m in ev.metrics if (k := m.k) is not None]
    return max(ks) if ks else None


def evaluate_options(ev: EvaluationResult) -> dict[str, Any]:
    """The options of :func:`receval.evaluate` that reproduce ``ev``'s settings.

    Every resolved setting is passed explicitly (they win over the convention's, which then
    only names the metrics). Columns are passed for the roles both tables had under one name.
    """
    s = ev.settings
    names = ("relevance_threshold", "ties", "no_relevant", "missing_recs",
             "recs_without_truth", "missing_predictions", "truth_scope", "score_precision",
             "duplicates", "negative_grades", "id_cast")
    opts: dict[str, Any] = {n: s[n] for n in names if n in s}
    opts["convention"] = s.get("convention")
    cols = s.get("columns") or {}
    roles = {}
    for role in ("user", "item"):
        if role in cols and cols.get(role) == cols.get(f"truth_{role}"):
            roles[role] = cols[role]
    for role in ("score", "rank"):
        if role in cols:
            roles[role] = cols[role]
    if "truth_rating" in cols:
        roles["rating"] = cols["truth_rating"]
    opts["columns"] = roles
    return opts


def curves(ev: EvaluationResult, recs: Any = None, truth: Any = None, *,
           max_k: int | None = None, **options: Any) -> pd.DataFrame:
    """Metric@k for k = 1..K, one column per metric with a cutoff (``'NDCG@k'``).

    With ``recs`` and ``truth``, one :func:`receval.evaluate` call with every cutoff of every
    curve metric, under ``ev``'s settings (``options`` override them); warnings of that call
    are not repeated (the evaluation that made ``ev`` gave them). Without inputs, the points
    are the cutoffs ``ev`` has, NaN elsewhere.

    Parameters
    ----------
    ev : EvaluationResult
        The evaluation the curves extend.
    recs, truth : table, optional
        The inputs ``ev`` was computed from.
    max_k : int, optional
        The largest cutoff (default: the largest ``k`` of the curve metrics).

    Returns
    -------
    pandas.DataFrame
        Index ``k`` (1..K), one column per curve metric; empty without curve metrics.
    """
    metrics = curve_metrics(ev)
    if not metrics:
        return pd.DataFrame(index=pd.RangeIndex(1, 1, name="k"))
    top = max(int(m.k) for m in metrics if m.k)
    if max_k is not None:
        if isinstance(max_k, bool) or not isinstance(max_k, (int, np.integer)) or max_k < 1:
            raise InvalidParameterError(f"max_k must be an integer >= 1, got {max_k!r}",
                                        parameter="max_k", examples=[max_k])
        top = int(max_k)
    ks = range(1, top + 1)
    families = list(dict.fromkeys(_family(m.label) for m in metrics))
    frame = pd.DataFrame(np.nan, index=pd.RangeIndex(1, top + 1, name="k"), columns=families)
    if recs is None or truth is None:
        if (recs is None) != (truth is None):
            raise InvalidParameterError("curves need both recs and truth, or neither",
                                        parameter="recs" if recs is None else "truth")
        for m in metrics:
            if m.k is not None and m.k <= top:
                frame.loc[m.k, _family(m.label)] = ev[m.label]
        return frame
    import receval as rv

    bases = {_family(m.label): m for m in metrics}
    asked = {(fam, k): base.replace(k=k) for fam, base in bases.items() for k in ks}
    opts = evaluate_options(ev) | {"strict": False} | options
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rv.RecevalWarning)
        full = rv.evaluate(recs, truth, list(dict.fromkeys([*asked.values(), *metrics])),
                           **opts)
    if not options:  # under ev's own settings the curves pass through ev's values
        _check_same_inputs(ev, full, metrics)
    for (fam, k), metric in asked.items():
        frame.loc[k, fam] = full[metric.label]
    return frame


def _check_same_inputs(ev: EvaluationResult, full: EvaluationResult,
                       metrics: Sequence[Metric]) -> None:
    """The curves' evaluation gives ``ev``'s values at ``ev``'s cutoffs, or an error.

    Another ``recs`` or ``truth`` than those ``ev`` was evaluated from would draw curves that
    contradict the metric table beside them (the value at the cutoff asked is the table's).
    """
    differ = [(m.label, ev[m.label], full[m.label]) for m in metrics
              if not _same_value(ev[m.label], full[m.label])]
    if differ:
        label, was, now = differ[0]
        raise InvalidParameterError(
            f"recs and truth are not the inputs this result was evaluated from: with them "
            f"{label} is {now:.6g}, and the result has {was:.6g}"
            + (f" ({len(differ)} metrics differ)" if len(differ) > 1 else "")
            + "; pass the recs and truth that were evaluated (or neither: the curves then "
            "show the cutoffs evaluated)", parameter="recs", n_bad=len(differ),
            examples=[d[0] for d in differ[:5]])


def _same_value(a: float, b: float) -> bool:
    """Equal within 1e-12 (relative and absolute), NaN equal to NaN."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


@dataclass(frozen=True)
class Histogram:
    """Per-user values of one metric, binned.

    Attributes
    ----------
    label : str
        The metric label.
    edges : ndarray
        ``len(counts) + 1`` bin edges; the last bin includes its right edge.
    counts : ndarray of int64
        Users per bin.
    mean : float
        The mean of the per-user values (NaN when none is defined).
    value : float
        The reported aggregate (differs from ``mean`` for micro averages).
    n_users : int
        Users with a defined value (the sum of ``counts``).
    n_undefined : int
        Evaluated users without a value (NaN), not in any bin.
    quantiles : dict
        ``{0.25: q1, 0.5: median, 0.75: q3}`` of the defined values.
    """

    label: str
    edges: np.ndarray
    counts: np.ndarray
    mean: float
    value: float
    n_users: int
    n_undefined: int
    quantiles: dict[float, float]
    aggregation: str

    @property
    def share_zero(self) -> float:
        """Share of users whose value is in the lowest bin (0 for bounded metrics)."""
        return float(self.counts[0] / self.n_users) if self.n_users else math.nan


def histogram(values: np.ndarray, *, label: str = "", bounds: tuple[float, float] | None = None,
              bins: int = 20, value: float | None = None,
              aggregation: str = "macro") -> Histogram:
    """Bin per-user values into ``bins`` equal bins over ``bounds`` (default: their range)."""
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins < 1:
        raise InvalidParameterError(f"bins must be an integer >= 1, got {bins!r}",
                                    parameter="bins", examples=[bins])
    arr = np.asarray(values, dtype=np.float64)
    finite = arr[~np.isnan(arr)]
    if bounds is not None and all(math.isfinite(b) for b in bounds):
        lo, hi = float(bounds[0]), float(bounds[1])
    elif len(finite):
        lo, hi = float(finite.min()), float(finite.max())
    else:
        lo, hi = 0.0, 1.0
    if hi <= lo:
        hi = lo + 1.0
    counts, edges = np.histogram(finite, bins=int(bins), range=(lo, hi))
    mean = float(finite.mean()) if len(finite) else math.nan
    qs = (dict(zip((0.25, 0.5, 0.75), (float(q) for q in np.quantile(finite, [.25, .5, .75])),
                   strict=True)) if len(finite) else {})
    return Histogram(label, edges, counts.astype(np.int64), mean,
                     mean if value is None else float(value), len(finite),
                     int(len(arr) - len(finite)), qs, aggregation)


def distributions(ev: EvaluationResult, *, bins: int = 20,
                  metrics: Sequence[str] | None = None) -> dict[str, Histogram]:
    """One :class:`Histogram` per metric with per-user values (global metrics have none)."""
    labels = ev.labels if metrics is None else [ev.summaries[ev._label(m)].metric.label
                                                for m in metrics]
    out = {}
    for label in labels:
        if label not in ev.per_user.columns:
            continue
        summary = ev.summaries[label]
        metric = summary.metric
        col = ev.per_user[label].to_numpy(dtype=np.float64)
        if isinstance(metric, RankingMetric):  # rows of rating-only users are NaN here
            col = col[ev.per_user.index.isin(ev.users.evaluated)]
        out[label] = histogram(col, label=label, bounds=metric.bounds, bins=bins,
                               value=summary.value, aggregation=summary.aggregation)
    return out


@dataclass(frozen=True)
class Popularity:
    """Training popularity of the items against how often they are recommended.

    Items are ordered by training popularity (most popular first; items never seen in
    training last) and grouped into at most :data:`MAX_ITEM_BINS` bins of consecutive ranks,
    log-spaced (the first items one by one, the tail in wider groups).

    Attributes
    ----------
    k : int or None
        Recommendations counted: each user's top ``k`` (None: the whole list).
    bin_edges : ndarray of int64
        Item ranks: bin ``b`` holds the items ranked ``bin_edges[b] + 1 .. bin_edges[b + 1]``.
    train_share, recs_share : ndarray
        Share of training interactions / of recommendations that fall in each bin.
    n_items : int
        Items ranked (training items and recommended items).
    n_train_items, n_recommended_items : int
        Distinct items in training, in the counted recommendations.
    n_head : int
        The short head: the most popular items that together hold ``head_share`` of the
        training interactions (at least one).
    head_share : float
        The share of training interactions the head holds by definition.
    recs_in_head : float
        Share of the counted recommendations that are head items.
    n_recommendations : int
        Recommendations counted.
    n_unseen_recommendations : int
        Recommendations of items absent from training.
    """

    k: int | None
    bin_edges: np.ndarray
    train_share: np.ndarray
    recs_share: np.ndarray
    n_items: int
    n_train_items: int
    n_recommended_items: int
    n_head: int
    head_share: float
    recs_in_head: float
    n_recommendations: int
    n_unseen_recommendations: int


def popularity(recommended: pd.Series, train_items: pd.Series, *, k: int | None,
               head_share: float = 0.2) -> Popularity:
    """Binned long tail of training popularity with the recommendations laid over it.

    Parameters
    ----------
    recommended : pandas.Series
        Item id of every counted recommendation (one row per (user, item) in a top ``k``).
    train_items : pandas.Series
        Item id of every training interaction.
    k : int or None
        The cutoff the recommendations were counted at (recorded).
    head_share : float
        The short head: the fewest most popular items that together hold this share of the
        training interactions (the usual head / long-tail split of popularity-bias studies;
        the rest of the items are the long tail).
    """
    if not 0.0 < head_share < 1.0:
        raise InvalidParameterError(f"head_share must be in (0, 1), got {head_share!r}",
                                    parameter="head_share", examples=[head_share])
    if len(train_items) == 0:
        raise InvalidParameterError("train is empty: popularity needs training interactions",
                                    parameter="train")
    train_counts = train_items.value_counts(sort=False)
    rec_counts = recommended.value_counts(sort=False)
    items = train_counts.index.union(rec_counts.index)
    t = train_counts.reindex(items, fill_value=0).to_numpy(dtype=np.int64)
    r = rec_counts.reindex(items, fill_value=0).to_numpy(dtype=np.int64)
    order = np.lexsort((-r, -t))  # popularity, then recommendations (unseen items last)
    t, r = t[order], r[order]
    n = len(items)
    # log-spaced bins: the head item by item, the tail in wider and wider groups
    edges = np.unique(np.concatenate(
        [[0], np.round(np.geomspace(1, n, MAX_ITEM_BINS)).astype(np.int64)]))
    t_cum = np.concatenate([[0], np.cumsum(t)])
    r_cum = np.concatenate([[0], np.cumsum(r)])
    total_t, total_r = int(t_cum[-1]), int(r_cum[-1])
    train_share = np.diff(t_cum[edges]) / total_t
    recs_share = np.diff(r_cum[edges]) / total_r if total_r else np.zeros(len(edges) - 1)
    # the head: the fewest most popular items whose interactions reach head_share
    n_head = int(np.searchsorted(t_cum[1:], head_share * total_t, side="left")) + 1
    n_head = min(max(n_head, 1), n)
    in_head = float(r_cum[n_head] / total_r) if total_r else math.nan
    return Popularity(
        k=k, bin_edges=edges, train_share=train_share, recs_share=recs_share, n_items=n,
        n_train_items=int((t > 0).sum()), n_recommended_items=int((r > 0).sum()),
        n_head=n_head, head_share=float(head_share), recs_in_head=in_head,
        n_recommendations=total_r, n_unseen_recommendations=int(r[t == 0].sum()))


def recommended_items(recs: Any, truth: Any, ev: EvaluationResult, k: int | None
                      ) -> pd.Series:
    """Item id of every recommendation in a user's top ``k``, in the order ``ev`` ranked them.

    The lists are built by the input layer under ``ev``'s settings (tie policy, duplicates,
    id cast, score precision), as the engine builds them for item coverage; every user with
    recommendations counts.
    """
    import dataclasses

    from receval._columns import Columns
    from receval.data import prepare, recs_table, truth_table
    from receval.data._encode import cast_table as _cast

    opts = evaluate_options(ev)
    cols = Columns.coerce(opts["columns"])
    rt = _cast(recs_table(recs, cols), opts.get("id_cast"))
    if opts.get("score_precision") == "float32" and rt.score is not None:
        rt = dataclasses.replace(rt, score=rt.score.astype(np.float32).astype(np.float64))
    data = prepare(rt, _cast(truth_table(truth, cols), opts.get("id_cast")),
                   relevance_threshold=opts.get("relevance_threshold"),
                   duplicates=opts.get("duplicates", "error"),
                   negative_grades=opts.get("negative_grades", "error"))
    users = np.flatnonzero(data.recs_count() > 0)
    lists = data.ranked(users, str(opts.get("ties", "stable")))
    lengths = lists.ends - lists.starts
    take = np.minimum(lengths, k) if k else lengths
    offsets = np.cumsum(take) - take
    pos = np.repeat(lists.starts, take) + (np.arange(int(take.sum())) - np.repeat(offsets, take))
    return pd.Series(np.asarray(data.item_ids)[lists.item[pos]])


def train_items(train: Any, ev: EvaluationResult) -> pd.Series:
    """Item id of every training row, read by the input layer (truth's column names first)."""
    from receval._columns import Columns
    from receval.data import truth_table
    from receval.exceptions import ColumnNotFoundError

    cols = ev.settings.get("columns") or {}
    named = Columns(user=cols.get("truth_user"), item=cols.get("truth_item"))
    try:
        table = truth_table(train, named)
    except ColumnNotFoundError:
        table = truth_table(train, Columns())
    return pd.Series(np.asarray(table.item))
