"""``evaluate``: from two tables and a list of metric names to an :class:`EvaluationResult`."""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Iterable, Sequence
from typing import Any, cast

import numpy as np
import pandas as pd

from receval._columns import Columns
from receval._kernels import ranking as RK
from receval._kernels import rating as QK
from receval._result import EvaluationResult, MetricSummary, UserAccounting
from receval.data import InputTable, Interactions, RankedLists, prepare, recs_table, truth_table
from receval.data._build import DUPLICATE_POLICIES, TIE_POLICIES
from receval.data._encode import ID_CASTS, cast_ids, lookalike_ids
from receval.exceptions import (
    DataError,
    DataWarning,
    EmptyInputError,
    InvalidGradeError,
    InvalidParameterError,
    MissingPredictionError,
    MissingUsersError,
    RecevalWarning,
    TiesAtCutoffWarning,
    UndefinedMetricWarning,
    format_examples,
)
from receval.metrics import (
    GlobalMetric,
    ItemCoverage,
    Metric,
    RankingMetric,
    RatingMetric,
    UserCoverage,
    parse,
)

__all__ = ["evaluate"]

_POLICIES = {
    "no_relevant": ("skip", "zero", "error"),
    "missing_recs": ("zero", "skip", "error"),
    "recs_without_truth": ("ignore", "error"),
}


def _choice(name: str, value: Any, options: Sequence[str]) -> str:
    if value not in options:
        raise InvalidParameterError(
            f"{name} must be one of {', '.join(repr(o) for o in options)}; got {value!r}",
            parameter=name, examples=[value])
    return str(value)


def _parse_metrics(metrics: str | Metric | Iterable[str | Metric]) -> list[tuple[str, Metric]]:
    items = [metrics] if isinstance(metrics, (str, Metric)) else list(metrics)
    if not items:
        raise InvalidParameterError("metrics is empty: name at least one metric, e.g. "
                                    "['ndcg@10', 'map@10']", parameter="metrics")
    out, seen = [], set()
    for item in items:
        metric = parse(item)
        if metric.label not in seen:
            seen.add(metric.label)
            out.append((item if isinstance(item, str) else metric.label, metric))
    return out


def _warn(category: type[RecevalWarning], message: str, strict: bool, n_bad: int,
          examples: Sequence[Any]) -> None:
    if strict:
        raise DataError(f"{message} (strict=True turns this warning into an error)",
                        n_bad=n_bad, examples=examples)
    warnings.warn(message, category, stacklevel=3)


def evaluate(
    recs: Any,
    truth: Any,
    metrics: str | Metric | Iterable[str | Metric],
    *,
    convention: str | None = None,
    relevance_threshold: float | None = None,
    columns: Columns | dict[str, str] | None = None,
    ties: str = "stable",
    no_relevant: str = "skip",
    missing_recs: str = "zero",
    recs_without_truth: str = "ignore",
    missing_predictions: str | float = "error",
    catalog: Iterable[Any] | None = None,
    duplicates: str = "error",
    negative_grades: str = "error",
    id_cast: str | None = None,
    strict: bool = False,
) -> EvaluationResult:
    """Evaluate recommendations against the ground truth.

    Parameters
    ----------
    recs : pandas.DataFrame
        One row per recommended (user, item), with a ``score`` (higher is better) or a
        ``rank`` (1 is best), or neither when the rows are already in rank order per user.
        Rating metrics read the predicted rating from the score.
    truth : pandas.DataFrame
        One row per held-out (user, item), with an optional grade (``rating``).
    metrics : str, Metric or list of them
        Metric names in the grammar ``name[(param=value, ...)][@k]``, e.g. ``"ndcg@10"``,
        ``"ap(denominator=relevant)@10"``, ``"rmse"``.
    convention : str, optional
        Reproduce another library's variants (reserved; only ``None`` in this version).
    relevance_threshold : float, optional
        A truth row is relevant when its grade is ``>=`` this; by default every row with a
        positive grade (every row when there is no grade). Relevant items keep their grade
        as gain for graded metrics; the others have gain 0.
    columns : Columns or dict, optional
        Column names by role, when they are not the defaults or their aliases.
    ties : {"stable", "item", "optimistic", "pessimistic", "expected"}
        Order of items with equal scores: input order, ascending item id, relevant first,
        relevant last, or the exact mean over all orders of each tied block. A metric's own
        ``ties=`` parameter overrides it.
    no_relevant : {"skip", "zero", "error"}
        Truth users without a relevant item: left out of ranking means (counted), scored 0,
        or an error.
    missing_recs : {"zero", "skip", "error"}
        Truth users without recommendations: scored 0 (counted), left out, or an error.
    recs_without_truth : {"ignore", "error"}
        Users with recommendations and no truth row: ignored (counted), or an error.
    missing_predictions : {"error", "skip", "global_mean"} or float
        Truth ratings without a predicted rating, for rating metrics: an error, left out
        (the common subset, counted), or filled with the mean truth rating or a value.
    catalog : iterable, optional
        The item catalog for item coverage; by default every item of both tables.
    duplicates : {"error", "first", "best"}
        A (user, item) pair repeated in a table: an error, keep its first row, or keep its
        best row (highest score or best rank in recs, highest grade in truth). The number of
        rows dropped is recorded in ``result.settings``.
    negative_grades : {"error", "allow"}
        Negative truth grades: an error, or allowed (never relevant for ranking metrics;
        rating metrics use them as they are).
    id_cast : {None, "str", "int"}
        Ids of different types in the two tables are an error; ``"str"`` or ``"int"`` casts
        both tables' user and item ids first (recorded in the result).
    strict : bool
        Turn every receval warning into an error.

    Returns
    -------
    EvaluationResult
        ``result["ndcg@10"]``, ``result.per_user``, ``result.users`` and exports.

    Raises
    ------
    RecevalError
        On any bad input or parameter; see :mod:`receval.exceptions`.
    """
    specs = _parse_metrics(metrics)
    if convention is not None:
        raise InvalidParameterError(
            f"unknown convention {convention!r}: conventions arrive in a later version; use "
            f"metric parameters for now", parameter="convention", examples=[convention])
    ties = _choice("ties", ties, TIE_POLICIES)
    pol = {name: _choice(name, value, _POLICIES[name]) for name, value in
           (("no_relevant", no_relevant), ("missing_recs", missing_recs),
            ("recs_without_truth", recs_without_truth))}
    if not (isinstance(missing_predictions, (int, float)) and not isinstance(
            missing_predictions, bool) and np.isfinite(missing_predictions)):
        _choice("missing_predictions", missing_predictions, ("error", "skip", "global_mean"))
    pol["missing_predictions"] = missing_predictions  # type: ignore[assignment]
    pol["duplicates"] = _choice("duplicates", duplicates, DUPLICATE_POLICIES)
    pol["negative_grades"] = _choice("negative_grades", negative_grades, ("error", "allow"))
    if id_cast not in ID_CASTS:
        raise InvalidParameterError(f"id_cast must be None, 'str' or 'int'; got {id_cast!r}",
                                    parameter="id_cast", examples=[id_cast])

    cols = Columns.coerce(columns)
    rt = _cast(recs_table(recs, cols), id_cast)
    tt = _cast(truth_table(truth, cols), id_cast)
    if len(rt) == 0:
        raise EmptyInputError("recs is empty: there are no recommendations to evaluate",
                              parameter="recs")
    data = prepare(rt, tt, relevance_threshold=relevance_threshold,
                   duplicates=duplicates, negative_grades=negative_grades)
    _check_lookalikes(data, rt, tt, strict)
    acc = _account(data, pol, strict)

    ranking: list[tuple[str, RankingMetric]] = [
        (t, m) for t, m in specs if isinstance(m, RankingMetric)]
    rating: list[tuple[str, RatingMetric]] = [
        (t, m) for t, m in specs if isinstance(m, RatingMetric)]
    glob = [(t, m) for t, m in specs if isinstance(m, GlobalMetric)]

    summaries: dict[str, MetricSummary] = {}
    columns_out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    eval_codes = acc.pop("codes")
    if ranking and len(eval_codes) == 0:
        raise EmptyInputError(
            f"no user can be evaluated on ranking metrics: {acc['n_truth']} truth users, of "
            f"whom {len(acc['no_relevant'])} have no relevant item and "
            f"{len(acc['missing_recs'])} have no recommendations",
            parameter="truth")
    if ranking:
        _run_ranking(data, ranking, eval_codes, ties, strict, summaries, columns_out)
    rating_codes = np.empty(0, dtype=np.int64)
    rating_skipped = np.empty(0, dtype=np.int64)
    n_missing_pred = 0
    if rating:
        rating_codes, rating_skipped, n_missing_pred = _run_rating(
            data, rating, relevance_threshold, missing_predictions, strict, summaries,
            columns_out)
    for _, metric in glob:
        summaries[metric.label] = _run_global(data, metric, ties, catalog)

    order = [m.label for _, m in specs]
    summaries = {label: summaries[label] for label in order}
    per_user = _per_user_frame(data, eval_codes if ranking else np.empty(0, dtype=np.int64),
                               rating_codes, columns_out, order)
    ids = data.user_ids
    users = UserAccounting(
        n_users=data.n_users, n_truth_users=acc["n_truth"], n_recs_users=acc["n_recs"],
        evaluated=ids[eval_codes], skipped_no_relevant=ids[acc["skipped_no_relevant"]],
        skipped_missing_recs=ids[acc["skipped_missing_recs"]],
        recs_without_truth=ids[acc["recs_without_truth"]], no_relevant=ids[acc["no_relevant"]],
        missing_recs=ids[acc["missing_recs"]], rating_evaluated=ids[rating_codes],
        rating_skipped=ids[rating_skipped], n_missing_predictions=n_missing_pred,
        policies=pol)
    settings = {"convention": convention, "relevance_threshold": relevance_threshold,
                "ties": ties, **pol, "id_cast": id_cast, "strict": strict, **data.notes,
                "columns": {**rt.columns, **{f"truth_{k}": v for k, v in tt.columns.items()}}}
    aliases = {text: m.label for text, m in specs}
    return EvaluationResult(tuple(m for _, m in specs), summaries, per_user, users, settings,
                            aliases)


def _cast(table: InputTable, how: str | None) -> InputTable:
    if how is None:
        return table
    user = cast_ids(table.user, how, role="user", table=table.name,
                    column=table.columns["user"])
    item = cast_ids(table.item, how, role="item", table=table.name,
                    column=table.columns["item"])
    return dataclasses.replace(table, user=user, item=item)


def _check_lookalikes(data: Interactions, rt: InputTable, tt: InputTable, strict: bool) -> None:
    for role, uniques, a, b in (("user", data.user_ids, data.r_user, data.t_user),
                                ("item", data.item_ids, data.r_item, data.t_item)):
        pairs = lookalike_ids(uniques, a, b)
        if pairs:
            _warn(DataWarning,
                  f"{role} ids that differ only by Unicode normalisation or surrounding spaces "
                  f"appear on one side each, e.g. {pairs[:3]}; they are different ids to "
                  f"receval (compared exactly): normalise them (unicodedata.normalize('NFC'))"
                  f" if they are the same", strict, len(pairs), pairs)


def _account(data: Interactions, pol: dict[str, Any], strict: bool) -> dict[str, Any]:
    """Partition the users: evaluated, skipped (and why), recommendations without truth."""
    n_truth_rows = data.truth_count()
    n_recs_rows = data.recs_count()
    n_rel = data.relevant_count()
    in_truth = n_truth_rows > 0
    in_recs = n_recs_rows > 0
    no_rel = np.flatnonzero(in_truth & (n_rel == 0))
    missing = np.flatnonzero(in_truth & ~in_recs)
    extra = np.flatnonzero(in_recs & ~in_truth)
    ids = data.user_ids

    def examples(codes: np.ndarray) -> list[Any]:
        return [ids[c] for c in codes[:5]]

    if len(no_rel) and pol["no_relevant"] == "error":
        raise MissingUsersError(
            f"{len(no_rel)} truth users have no relevant item (e.g. "
            f"{format_examples(examples(no_rel), len(no_rel))}); pass no_relevant='skip' to "
            f"leave them out or 'zero' to score them 0", parameter="no_relevant",
            n_bad=len(no_rel), examples=examples(no_rel))
    if len(missing) and pol["missing_recs"] == "error":
        raise MissingUsersError(
            f"{len(missing)} truth users have no recommendations (e.g. "
            f"{format_examples(examples(missing), len(missing))}); pass missing_recs='zero' to "
            f"score them 0 or 'skip' to leave them out", parameter="missing_recs",
            n_bad=len(missing), examples=examples(missing))
    if len(extra) and pol["recs_without_truth"] == "error":
        raise MissingUsersError(
            f"{len(extra)} users have recommendations but no truth row (e.g. "
            f"{format_examples(examples(extra), len(extra))}); pass "
            f"recs_without_truth='ignore' to leave them out", parameter="recs_without_truth",
            n_bad=len(extra), examples=examples(extra))

    evaluable = in_truth.copy()
    skipped_no_rel = np.empty(0, dtype=np.int64)
    if pol["no_relevant"] == "skip":
        evaluable &= n_rel > 0
        skipped_no_rel = no_rel
        if len(no_rel):
            _warn(UndefinedMetricWarning,
                  f"{len(no_rel)} truth users have no relevant item and are left out of the "
                  f"ranking metrics (no_relevant='skip'), e.g. "
                  f"{format_examples(examples(no_rel), len(no_rel))}", strict, len(no_rel),
                  examples(no_rel))
    skipped_missing = np.empty(0, dtype=np.int64)
    if pol["missing_recs"] == "skip":
        skipped_missing = np.flatnonzero(evaluable & ~in_recs)
        evaluable &= in_recs
    return {
        "codes": np.flatnonzero(evaluable), "n_truth": int(in_truth.sum()),
        "n_recs": int(in_recs.sum()), "no_relevant": no_rel, "missing_recs": missing,
        "recs_without_truth": extra, "skipped_no_relevant": skipped_no_rel,
        "skipped_missing_recs": skipped_missing,
    }


def _aggregate(metric: Metric, num: np.ndarray, den: np.ndarray) -> tuple[float, np.ndarray,
                                                                           int]:
    """Per-user values and the aggregate of one metric from its numerators/denominators."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(den > 0, num / np.where(den > 0, den, 1.0),
                         0.0 if metric.undefined_is_zero else np.nan)
    per_user = metric.finalize(ratio)
    n_undefined = int(np.isnan(per_user).sum())
    if metric.aggregation_mode == "micro":
        total = float(den.sum())
        value = float(metric.finalize(float(num.sum()) / total)) if total > 0 else float("nan")
    else:
        defined = per_user[~np.isnan(per_user)]
        value = float(defined.mean()) if len(defined) else float("nan")
    return value, per_user, n_undefined


def _ties_at_cutoffs(lists: RankedLists, ks: set[int | None]) -> dict[int, np.ndarray]:
    """Users (row numbers) whose items at ranks k and k + 1 have equal keys, per cutoff."""
    out: dict[int, np.ndarray] = {}
    if lists.key is None:
        return out
    lengths = lists.ends - lists.starts
    for k in sorted(k for k in ks if k):
        rows = np.flatnonzero(lengths > k)
        at = lists.starts[rows] + k
        tied = lists.key[at - 1] == lists.key[at]
        if tied.any():
            out[k] = rows[tied]
    return out


def _run_ranking(data: Interactions, specs: Sequence[tuple[str, RankingMetric]],
                 codes: np.ndarray, ties: str, strict: bool,
                 summaries: dict[str, MetricSummary],
                 columns_out: dict[str, tuple[np.ndarray, np.ndarray]]) -> None:
    groups: dict[str, list[RankingMetric]] = {}
    for _, metric in specs:
        groups.setdefault(metric.tie_policy or ties, []).append(metric)
    for policy, group in groups.items():
        lists = data.ranked(codes, policy)
        req = np.array([m.request() for m in group], dtype=np.float64)
        num = np.zeros((lists.n_users, len(group)))
        den = np.zeros((lists.n_users, len(group)))
        RK.ranking_kernel(
            lists.starts, lists.ends, lists.grade, lists.rel, lists.n_rel, lists.ideal_starts,
            lists.ideal_ends, lists.ideal_grade, lists.block_start, lists.block_end,
            req[:, 0].astype(np.int64), req[:, 1].astype(np.int64), req[:, 2].astype(np.int64),
            req[:, 3].astype(np.int64), req[:, 4].astype(np.int64), req[:, 5], num, den)
        bad = ~(np.isfinite(num) & np.isfinite(den))
        if bad.any():
            rows = np.flatnonzero(bad.any(axis=1))
            ex = [data.user_ids[codes[r]] for r in rows[:5]]
            raise InvalidGradeError(
                f"gains overflow to infinity for {len(rows)} users (e.g. "
                f"{format_examples(ex, len(rows))}): exponential gain 2^grade - 1 of grades "
                f"this large is not a finite number; use gain='linear', or nDCG (which is "
                f"computed exactly at any scale)", parameter="gain", n_bad=len(rows),
                examples=ex)
        straddle = _ties_at_cutoffs(lists, {m.k for m in group if m.k})
        if policy in ("stable", "item") and straddle:
            worst = max(straddle, key=lambda k: len(straddle[k]))
            users = straddle[worst]
            ex = [data.user_ids[codes[i]] for i in users[:5]]
            _warn(TiesAtCutoffWarning,
                  f"tied scores straddle the cutoff k={worst} for {len(users)} users (e.g. "
                  f"{format_examples(ex, len(users))}): which tied item is in the top k "
                  f"depends on ties={policy!r}; ties='expected' averages over every order",
                  strict, len(users), ex)
        for j, metric in enumerate(group):
            value, per_user, n_undef = _aggregate(metric, num[:, j], den[:, j])
            n_straddle = len(straddle.get(metric.k, [])) if metric.k else 0
            summaries[metric.label] = MetricSummary(metric, value, metric.aggregation_mode,
                                                    len(codes), n_undef, policy, n_straddle)
            columns_out[metric.label] = (codes, per_user)


def _run_rating(data: Interactions, specs: Sequence[tuple[str, RatingMetric]],
                threshold: float | None, missing: str | float, strict: bool,
                summaries: dict[str, MetricSummary],
                columns_out: dict[str, tuple[np.ndarray, np.ndarray]]
                ) -> tuple[np.ndarray, np.ndarray, int]:
    if not data.has_grade:
        raise InvalidParameterError(
            f"rating metrics ({', '.join(m.label for _, m in specs)}) need true ratings: the "
            f"truth has no rating column", parameter="metrics")
    truth_users = np.flatnonzero(data.truth_count() > 0)
    fill = None
    if missing == "global_mean":
        fill = np.full(len(data.t_user), float(data.t_grade.mean()))
    elif not isinstance(missing, str):
        fill = np.full(len(data.t_user), float(missing))
    pairs, has_pred = data.rating_pairs(truth_users, fill)
    n_missing = int((~has_pred).sum())
    if n_missing and missing == "error":
        bad = np.flatnonzero(~has_pred)
        ex = [(data.user_ids[data.t_user[i]], data.item_ids[data.t_item[i]]) for i in bad[:5]]
        raise MissingPredictionError(
            f"{n_missing} truth ratings have no predicted rating in recs, e.g. (user, item) "
            f"{format_examples(ex, n_missing)}; pass missing_predictions='skip' to use the "
            f"common subset, 'global_mean' or a number to fill them",
            parameter="missing_predictions", n_bad=n_missing, examples=ex)
    n_pairs = pairs.ends - pairs.starts
    keep = n_pairs > 0
    codes = truth_users[keep]
    skipped = truth_users[~keep]
    starts, ends = pairs.starts[keep], pairs.ends[keep]
    if len(codes) == 0:
        raise EmptyInputError("no truth rating has a predicted rating: rating metrics have "
                              "nothing to compare", parameter="recs")
    metrics: list[RatingMetric] = []
    for _, metric in specs:
        if getattr(metric, "threshold", 0.0) is None:
            if threshold is None:
                raise InvalidParameterError(
                    f"{metric.label} needs a threshold: pass "
                    f"'{metric.name}(threshold=4)' or relevance_threshold=",
                    parameter="threshold")
            metric = cast(RatingMetric, metric.replace(threshold=float(threshold)))
        metrics.append(metric)
    req = np.array([m.request() for m in metrics], dtype=np.float64)
    num = np.zeros((len(codes), len(metrics)))
    den = np.zeros((len(codes), len(metrics)))
    QK.rating_kernel(starts, ends, pairs.pred, pairs.true, req[:, 0].astype(np.int64),
                     req[:, 1], num, den)
    for (_, asked), metric, j in zip(specs, metrics, range(len(metrics)), strict=True):
        value, per_user, n_undef = _aggregate(metric, num[:, j], den[:, j])
        if n_undef:
            _warn(UndefinedMetricWarning,
                  f"{metric.label} is undefined for {n_undef} users (too few pairs or no "
                  f"variation), who are left out of its mean", strict, n_undef, [])
        summaries[asked.label] = MetricSummary(metric, value, metric.aggregation_mode,
                                               len(codes) - n_undef, n_undef)
        columns_out[asked.label] = (codes, per_user)
    return codes, skipped, n_missing


def _run_global(data: Interactions, metric: Metric, ties: str,
                catalog: Iterable[Any] | None) -> MetricSummary:
    in_truth = data.truth_count() > 0
    in_recs = data.recs_count() > 0
    if isinstance(metric, UserCoverage):
        value = float((in_truth & in_recs).sum() / in_truth.sum())
        return MetricSummary(metric, value, "global", int(in_truth.sum()))
    if not isinstance(metric, ItemCoverage):  # pragma: no cover - registry is closed here
        raise InvalidParameterError(f"unknown global metric {metric!r}", parameter="metrics")
    users = np.flatnonzero(in_recs)
    lists = data.ranked(users, metric.ties or ties)
    lengths = lists.ends - lists.starts
    take = np.minimum(lengths, metric.k) if metric.k else lengths
    owner = np.repeat(np.arange(len(users)), take)
    first = np.repeat(lists.starts, take)
    pos = first + (np.arange(take.sum()) - np.repeat(np.cumsum(take) - take, take))
    recommended = np.unique(lists.item[pos]) if len(owner) else np.empty(0, dtype=np.int64)
    if catalog is None:
        size = len(data.item_ids)
        count = len(recommended)
    else:
        cat = pd.Index(pd.unique(pd.Series(list(catalog))))
        if len(cat) == 0:
            raise InvalidParameterError("catalog is empty", parameter="catalog")
        rec_ids = data.item_ids[recommended]
        outside = rec_ids[~rec_ids.isin(cat)]
        if len(outside):
            raise DataError(
                f"{len(outside)} recommended items are not in catalog (e.g. "
                f"{format_examples(list(outside[:5]), len(outside))}); coverage would exceed "
                f"the catalog", parameter="catalog", n_bad=len(outside),
                examples=list(outside[:5]))
        size = len(cat)
        count = len(rec_ids)
    return MetricSummary(metric, count / size, "global", len(users))


def _per_user_frame(data: Interactions, ranking_codes: np.ndarray, rating_codes: np.ndarray,
                    columns_out: dict[str, tuple[np.ndarray, np.ndarray]],
                    order: list[str]) -> pd.DataFrame:
    all_codes = np.union1d(ranking_codes, rating_codes).astype(np.int64)
    frame: dict[str, np.ndarray] = {}
    for label in order:
        if label in columns_out:
            codes, values = columns_out[label]
            col = np.full(len(all_codes), np.nan)
            col[np.searchsorted(all_codes, codes)] = values
            frame[label] = col
    index = pd.Index(data.user_ids[all_codes], name="user")
    return pd.DataFrame(frame, index=index)
