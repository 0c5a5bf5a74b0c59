"""The per-partition engine: one set of users in, per-user numerators/denominators out.

:func:`evaluate_partition` runs validation, encoding, grouping and the kernels on one pair of
tables and returns a :class:`Partial`; :func:`merge` turns one or more partials (in-memory:
one; larger than memory: one per bucket of users; Spark: one per partition) into an
:class:`~receval.EvaluationResult`. Partials hold ids, never codes, so partials of disjoint
user sets merge by concatenation.
"""

from __future__ import annotations

import contextlib
import dataclasses
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import pandas as pd

from receval import _beyond_engine as _beyond
from receval._columns import Columns
from receval._kernels import ranking as RK
from receval._kernels import rating as QK
from receval._result import EvaluationResult, MetricSummary, UserAccounting
from receval.conventions import Convention
from receval.data import InputTable, Interactions, RankedLists, prepare, recs_table, truth_table
from receval.data._encode import cast_ids, lookalike_ids
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
    BeyondMetric,
    GlobalMetric,
    ItemCoverage,
    Metric,
    RankingMetric,
    RatingMetric,
    UserCoverage,
)

__all__ = ["Options", "Partial", "evaluate_partition", "merge"]


@dataclass(frozen=True)
class Options:
    """Validated options of one evaluation (see :func:`receval.evaluate`)."""

    specs: tuple[tuple[str, Metric], ...]
    columns: Columns
    ties: str
    policies: dict[str, Any]
    relevance_threshold: float | None
    id_cast: str | None
    strict: bool
    catalog: Sequence[Any] | None
    convention: Convention | None
    overrides: dict[str, Any] = field(default_factory=dict)  # settings set over a convention
    fill_value: float | None = None  # resolved "global_mean" when computed outside a partition
    train: Any = None  # beyond-accuracy side inputs (receval._beyond_engine)
    item_features: Any = None
    item_features_missing: str = "error"

    def missing_recs(self, metric: Metric) -> str:
        """The missing-recommendations policy of one metric (its own, or the call's)."""
        return str(getattr(metric, "missing_recs", None) or self.policies["missing_recs"])

    def of(self, family: type[Metric]) -> list[tuple[str, Any]]:
        """The requested metrics of one family, with the text they were asked as."""
        return [(t, m) for t, m in self.specs if isinstance(m, family)]


@dataclass
class _Note:
    """A warning to emit once partials are merged (counts add up across partitions)."""

    category: type[RecevalWarning]
    text: str  # with {n} and {examples}
    n: int
    examples: list[Any]
    cutoff: int = 0  # the k of a TiesAtCutoffWarning


_Values = tuple[np.ndarray, "np.ndarray | None", "np.ndarray | None"]


@dataclass
class Partial:
    """Per-user numerators and denominators of one set of users, and their accounting."""

    ranking_users: pd.Index
    rating_users: pd.Index
    values: dict[str, _Values]  # per-user values; per-user num and den for micro metrics
    ties: dict[str, tuple[str, int]]
    excluded: dict[str, int]  # users left out of one metric by its own missing_recs
    rating_metrics: dict[str, Metric]
    groups: dict[str, pd.Index]
    counts: dict[str, int]
    recommended: dict[str, np.ndarray]
    items: pd.Index
    notes: list[_Note] = field(default_factory=list)
    columns: dict[str, str] = field(default_factory=dict)
    beyond: Any = None  # receval._beyond_engine.BeyondPartial


def _note(notes: list[_Note], category: type[RecevalWarning], text: str, n: int,
          examples: Sequence[Any], strict: bool, cutoff: int = 0) -> None:
    if strict:
        raise DataError(text.format(n=n, examples=format_examples(list(examples), n))
                        + " (strict=True turns this warning into an error)",
                        n_bad=n, examples=examples)
    notes.append(_Note(category, text, n, list(examples)[:5], cutoff))


def _cast(table: InputTable, how: str | None) -> InputTable:
    if how is None:
        return table
    user = cast_ids(table.user, how, role="user", table=table.name,
                    column=table.columns["user"])
    item = cast_ids(table.item, how, role="item", table=table.name,
                    column=table.columns["item"])
    return dataclasses.replace(table, user=user, item=item)


def evaluate_partition(recs: Any, truth: Any, opts: Options, *,
                       part_of_whole: bool = False) -> Partial:
    """Evaluate one pair of tables: all the users, or one bucket of them.

    With ``part_of_whole``, either table may be empty (a bucket can hold users of one side
    only); the caller checks that the whole is not.
    """
    rt = _cast(recs_table(recs, opts.columns), opts.id_cast)
    tt = _cast(truth_table(truth, opts.columns), opts.id_cast)
    if opts.policies["score_precision"] == "float32" and rt.score is not None:
        rt = dataclasses.replace(rt, score=rt.score.astype(np.float32).astype(np.float64))
    if len(rt) == 0 and not part_of_whole:
        raise EmptyInputError("recs is empty: there are no recommendations to evaluate",
                              parameter="recs")
    data = prepare(rt, tt, relevance_threshold=opts.relevance_threshold,
                   duplicates=opts.policies["duplicates"],
                   negative_grades=opts.policies["negative_grades"],
                   allow_empty=part_of_whole)
    if opts.policies["truth_scope"] == "recommended":
        data = dataclasses.replace(data, t_rel=data.t_rel & data.in_recommendations())
    notes: list[_Note] = []
    for role, uniques, a, b in (("user", data.user_ids, data.r_user, data.t_user),
                                ("item", data.item_ids, data.r_item, data.t_item)):
        pairs = lookalike_ids(uniques, a, b)
        if pairs:
            _note(notes, DataWarning,
                  f"{role} ids that differ only by Unicode normalisation or surrounding spaces "
                  "appear on one side each, e.g. {examples}; receval compares ids exactly: "
                  "normalise them (unicodedata.normalize('NFC')) if they are the same",
                  len(pairs), pairs, opts.strict)
    groups, counts, codes = _account(data, opts, notes)
    ids = data.user_ids
    values: dict[str, _Values] = {}
    ties: dict[str, tuple[str, int]] = {}
    excluded: dict[str, int] = {}
    ranking = opts.of(RankingMetric)
    if ranking and len(codes):
        left_out = _run_ranking(data, ranking, codes, opts, values, ties, notes)
        in_recs = data.recs_count()[codes] > 0
        for _, metric in ranking:
            drop = left_out.get(metric.label)
            if opts.missing_recs(metric) == "skip":
                drop = ~in_recs if drop is None else drop | ~in_recs
            if drop is not None and drop.any():
                excluded[metric.label] = _exclude(values, metric.label, drop)
    rating_codes = np.empty(0, dtype=np.int64)
    rating_metrics: dict[str, Metric] = {}
    if opts.of(RatingMetric):
        rating_codes = _run_rating(data, opts, values, rating_metrics, groups, counts, notes)
    recommended: dict[str, np.ndarray] = {}
    for _, metric in opts.of(ItemCoverage):
        recommended[metric.label] = _recommended_items(data, metric, opts.ties)
    beyond = _beyond.run(data, opts) if opts.of(BeyondMetric) or opts.train is not None \
        else None
    counts["truth_users_with_recs"] = int(((data.truth_count() > 0)
                                           & (data.recs_count() > 0)).sum())
    return Partial(
        ranking_users=ids[codes], rating_users=ids[rating_codes],
        values=values, ties=ties, excluded=excluded, rating_metrics=rating_metrics,
        groups=groups,
        counts=counts | data.notes, recommended=recommended, items=data.item_ids,
        notes=notes, columns={**rt.columns, **{f"truth_{k}": v for k, v in tt.columns.items()}},
        beyond=beyond)


def _account(data: Interactions, opts: Options, notes: list[_Note]
             ) -> tuple[dict[str, pd.Index], dict[str, int], np.ndarray]:
    """Partition the users: evaluated, skipped (and why), recommendations without truth."""
    pol = opts.policies
    n_rel = data.relevant_count()
    in_truth = data.truth_count() > 0
    in_recs = data.recs_count() > 0
    no_rel = np.flatnonzero(in_truth & (n_rel == 0))
    missing = np.flatnonzero(in_truth & ~in_recs)
    extra = np.flatnonzero(in_recs & ~in_truth)
    ids = data.user_ids

    def ex(codes: np.ndarray) -> list[Any]:
        return [ids[c] for c in codes[:5]]

    for bad, name, what, fix in (
            (no_rel, "no_relevant", "truth users have no relevant item",
             "no_relevant='skip' to leave them out or 'zero' to score them 0"),
            (missing, "missing_recs", "truth users have no recommendations",
             "missing_recs='zero' to score them 0 or 'skip' to leave them out"),
            (extra, "recs_without_truth", "users have recommendations but no truth row",
             "recs_without_truth='ignore' to leave them out")):
        if len(bad) and pol[name] == "error":
            raise MissingUsersError(
                f"{len(bad)} {what} (e.g. {format_examples(ex(bad), len(bad))}); pass {fix}",
                parameter=name, n_bad=len(bad), examples=ex(bad))
    evaluable = in_truth.copy()
    skipped_no_rel = no_rel[:0]
    if pol["no_relevant"] == "skip":
        evaluable &= n_rel > 0
        skipped_no_rel = no_rel
        if len(no_rel) and opts.of(RankingMetric):
            _note(notes, UndefinedMetricWarning,
                  "{n} truth users have no relevant item and are left out of the ranking "
                  "metrics (no_relevant='skip'), e.g. {examples}", len(no_rel), ex(no_rel),
                  opts.strict)
    skipped_missing = missing[:0]
    ranking = opts.of(RankingMetric)
    if all(opts.missing_recs(m) == "skip" for _, m in ranking) and (
            ranking or pol["missing_recs"] == "skip"):
        skipped_missing = np.flatnonzero(evaluable & ~in_recs)
        evaluable &= in_recs
    scored_extra = pol["recs_without_truth"] == "zero"
    if scored_extra:
        evaluable[extra] = True
    groups = {"no_relevant": ids[no_rel], "missing_recs": ids[missing],
              "recs_without_truth": ids[extra[:0] if scored_extra else extra],
              "recs_without_truth_scored": ids[extra if scored_extra else extra[:0]],
              "skipped_no_relevant": ids[skipped_no_rel],
              "skipped_missing_recs": ids[skipped_missing]}
    counts = {"n_users": data.n_users, "n_truth": int(in_truth.sum()),
              "n_recs": int(in_recs.sum())}
    return groups, counts, np.flatnonzero(evaluable)


def _ties_at_cutoffs(lists: RankedLists, ks: set[int]) -> dict[int, np.ndarray]:
    """Users (row numbers) whose items at ranks k and k + 1 have equal keys, per cutoff."""
    out: dict[int, np.ndarray] = {}
    if lists.key is None:
        return out
    lengths = lists.ends - lists.starts
    for k in sorted(ks):
        rows = np.flatnonzero(lengths > k)
        at = lists.starts[rows] + k
        tied = lists.key[at - 1] == lists.key[at]
        if tied.any():
            out[k] = rows[tied]
    return out


def _run_ranking(data: Interactions, specs: Sequence[tuple[str, RankingMetric]],
                 codes: np.ndarray, opts: Options,
                 values: dict[str, _Values],
                 ties: dict[str, tuple[str, int]], notes: list[_Note]
                 ) -> dict[str, np.ndarray]:
    """Run the ranking kernel over each group of metrics that share an order and gains.

    Fills ``values`` and ``ties``; returns, per metric that has its own rule for leaving
    users out (nDCG's ``zero_ideal``), the mask of those users.
    """
    left_out: dict[str, np.ndarray] = {}
    groups: dict[tuple[str, str, bool], list[RankingMetric]] = {}
    for _, metric in specs:
        groups.setdefault((metric.tie_policy or opts.ties, *metric.grade_mode),
                          []).append(metric)
    for (policy, grades, shifted), group in groups.items():
        cutoffs = [m.k for m in group]  # only the top max(k) + 1 places are read
        top = max(cutoffs) + 1 if all(cutoffs) else 0  # type: ignore[type-var, operator]
        lists = data.ranked(codes, policy, top=top,
                            **_grade_arrays(data, grades, shifted, opts))
        req = np.array([m.request() for m in group], dtype=np.float64)
        num = np.zeros((lists.n_users, len(group)))
        den = np.zeros((lists.n_users, len(group)))
        RK.ranking_kernel(
            lists.starts, lists.ends, lists.grade, lists.rel, lists.n_rel, lists.ideal_starts,
            lists.ideal_ends, lists.ideal_grade, lists.block_start, lists.block_end,
            req[:, 0].astype(np.int64), req[:, 1].astype(np.int64), req[:, 2].astype(np.int64),
            req[:, 3].astype(np.int64), req[:, 4].astype(np.int64),
            np.ascontiguousarray(req[:, 5]), num, den)  # a column: one layout, one compile
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
        if policy in ("stable", "item"):  # one note per cutoff; _emit shows the worst
            for k, users in sorted(straddle.items(), key=lambda kv: (-len(kv[1]), kv[0])):
                if len(users) == 0:
                    continue
                _note(notes, TiesAtCutoffWarning,
                      f"tied scores straddle the cutoff k={k} for {{n}} users (e.g. "
                      f"{{examples}}): which tied item is in the top k depends on "
                      f"ties={policy!r}; ties='expected' averages over every order",
                      len(users), [data.user_ids[codes[i]] for i in users[:5]], opts.strict,
                      cutoff=k)
        for j, metric in enumerate(group):
            values[metric.label] = _per_user(metric, num[:, j], den[:, j])
            drop = metric.left_out(num[:, j], den[:, j])
            if drop is not None:
                left_out[metric.label] = drop
            n_straddle = len(straddle.get(metric.k, [])) if metric.k else 0
            ties[metric.label] = (policy, n_straddle)
    return left_out


def _grade_arrays(data: Interactions, grades: str, shifted: bool, opts: Options
                  ) -> dict[str, Any]:
    """Which truth rows give gains, and the grade shift, for a group of DCG-family metrics.

    ``judged``: every row with a positive grade (trec_eval), within the truth scope.
    ``shifted``: grades minus ``t - 1`` (Elliot's ``2^(g - t + 1) - 1``; ``t = 1`` without a
    threshold).
    """
    out: dict[str, Any] = {}
    if grades == "judged":
        relevant = data.t_grade > 0
        if opts.policies["truth_scope"] == "recommended":
            relevant &= data.in_recommendations()
        out["relevant"] = relevant
    if shifted:
        t = opts.relevance_threshold
        out["grade_shift"] = (1.0 if t is None else t) - 1.0
    return out


def _run_rating(data: Interactions, opts: Options,
                values: dict[str, _Values],
                resolved: dict[str, Metric], groups: dict[str, pd.Index],
                counts: dict[str, int], notes: list[_Note]) -> np.ndarray:
    specs = opts.of(RatingMetric)
    if not data.has_grade:
        raise InvalidParameterError(
            f"rating metrics ({', '.join(m.label for _, m in specs)}) need true ratings: the "
            f"truth has no rating column", parameter="metrics")
    missing = opts.policies["missing_predictions"]
    in_truth = data.truth_count() > 0
    truth_users = np.flatnonzero(in_truth)
    if opts.policies["missing_recs"] == "skip":  # users absent from recs are left out
        truth_users = np.flatnonzero(in_truth & (data.recs_count() > 0))
    fill = None
    if opts.fill_value is not None:
        fill = np.full(len(data.t_user), opts.fill_value)
    elif missing == "global_mean":
        fill = np.full(len(data.t_user), float(data.t_grade.mean()))
    elif not isinstance(missing, str):
        fill = np.full(len(data.t_user), float(missing))
    pairs, no_pred = data.rating_pairs(truth_users, fill)
    n_missing = int(no_pred.sum())
    if n_missing and missing == "error":
        bad = np.flatnonzero(no_pred)
        ex = [(data.user_ids[data.t_user[i]], data.item_ids[data.t_item[i]]) for i in bad[:5]]
        raise MissingPredictionError(
            f"{n_missing} truth ratings have no predicted rating in recs, e.g. (user, item) "
            f"{format_examples(ex, n_missing)}; pass missing_predictions='skip' to use the "
            f"common subset, 'global_mean' or a number to fill them",
            parameter="missing_predictions", n_bad=n_missing, examples=ex)
    keep = (pairs.ends - pairs.starts) > 0
    codes = truth_users[keep]
    skipped = np.setdiff1d(np.flatnonzero(in_truth), codes, assume_unique=True)
    groups["rating_skipped"] = data.user_ids[skipped]
    counts["missing_predictions"] = n_missing
    metrics: list[RatingMetric] = []
    for _, metric in specs:
        if getattr(metric, "threshold", 0.0) is None:
            if opts.relevance_threshold is None:
                raise InvalidParameterError(
                    f"{metric.label} needs a threshold: pass "
                    f"'{metric.name}(threshold=4)' or relevance_threshold=",
                    parameter="threshold")
            metric = cast(RatingMetric,
                          metric.replace(threshold=float(opts.relevance_threshold)))
        metrics.append(metric)
    req = np.array([m.request() for m in metrics], dtype=np.float64)
    num = np.zeros((len(codes), len(metrics)))
    den = np.zeros((len(codes), len(metrics)))
    QK.rating_kernel(pairs.starts[keep], pairs.ends[keep], pairs.pred, pairs.true,
                     req[:, 0].astype(np.int64), np.ascontiguousarray(req[:, 1]), num, den)
    for j, ((_, asked), metric) in enumerate(zip(specs, metrics, strict=True)):
        values[asked.label] = _per_user(metric, num[:, j], den[:, j])
        resolved[asked.label] = metric
    return codes


def _recommended_items(data: Interactions, metric: ItemCoverage, ties: str) -> np.ndarray:
    """Item ids that appear in some user's top k (the whole list without k)."""
    users = np.flatnonzero(data.recs_count() > 0)
    lists = data.ranked(users, metric.ties or ties, top=metric.k or 0)
    lengths = lists.ends - lists.starts
    take = np.minimum(lengths, metric.k) if metric.k else lengths
    first = np.repeat(lists.starts, take)
    pos = first + (np.arange(take.sum()) - np.repeat(np.cumsum(take) - take, take))
    return np.asarray(data.item_ids[np.unique(lists.item[pos])])


def _exclude(values: dict[str, _Values], label: str, drop: np.ndarray) -> int:
    """Leave some users out of one metric: NaN per-user value, nothing in micro sums."""
    per_user, num, den = values[label]
    per_user[drop] = np.nan
    if num is not None and den is not None:
        num[drop] = 0.0
        den[drop] = 0.0
    return int(drop.sum())


# -- merging -----------------------------------------------------------------------------------
def _per_user(metric: Metric, num: np.ndarray, den: np.ndarray) -> _Values:
    """Per-user values (NaN where undefined), and for a micro average the per-user terms."""
    ratio = np.full(len(num), 0.0 if metric.undefined_is_zero else np.nan)
    np.divide(num, den, out=ratio, where=den > 0)
    if metric.aggregation_mode == "micro":
        return metric.finalize(ratio), num.copy(), den.copy()
    return metric.finalize(ratio), None, None


def _aggregate(metric: Metric, values: _Values) -> tuple[float, int]:
    """The aggregate of one metric and its number of undefined users."""
    per_user, num, den = values
    n_undefined = int(np.isnan(per_user).sum())
    if num is not None and den is not None:
        total = float(den.sum())
        value = float(metric.finalize(float(num.sum()) / total)) if total > 0 \
            else float("nan")
    else:
        value = float(np.nanmean(per_user)) if len(per_user) > n_undefined else float("nan")
    return value, n_undefined


def _gather(partials: Sequence[Partial], label: str, order: np.ndarray | None) -> _Values:
    """One metric's per-user arrays over every partial, in user order."""
    parts = [p.values[label] for p in partials if label in p.values]

    def cat(i: int) -> np.ndarray | None:
        arrays = [a for p in parts if (a := p[i]) is not None]
        if len(arrays) < len(parts):
            return None
        joined: np.ndarray = np.concatenate(arrays) if len(arrays) > 1 else arrays[0]
        return joined[order] if order is not None else joined

    return cat(0), cat(1), cat(2)  # type: ignore[return-value]


def _user_order(users: pd.Index) -> tuple[pd.Index, np.ndarray | None]:
    """Users sorted by id (as in one in-memory partial), and the permutation, if needed."""
    if users.is_monotonic_increasing:
        return users, None
    try:
        order = np.asarray(users.argsort(), dtype=np.int64)
    except TypeError:  # ids that do not order: keep them as they came
        return users, None
    return users[order], order


def _concat(indexes: Iterable[pd.Index]) -> pd.Index:
    parts = [i for i in indexes if len(i)]
    if not parts:
        return pd.Index([])
    return parts[0].append(parts[1:]) if len(parts) > 1 else parts[0]


def merge(partials: Sequence[Partial], opts: Options) -> EvaluationResult:
    """Combine partials over disjoint sets of users into one result."""
    specs = opts.specs
    ranking = opts.of(RankingMetric)
    rating = opts.of(RatingMetric)
    counts = {k: sum(p.counts.get(k, 0) for p in partials)
              for k in {k for p in partials for k in p.counts}}
    groups = {k: _concat(p.groups.get(k, pd.Index([])) for p in partials)
              for k in ("no_relevant", "missing_recs", "recs_without_truth",
                        "recs_without_truth_scored", "skipped_no_relevant",
                        "skipped_missing_recs", "rating_skipped")}
    ranking_users, r_order = _user_order(_concat(p.ranking_users for p in partials))
    rating_users, q_order = _user_order(_concat(p.rating_users for p in partials))
    if ranking and len(ranking_users) == 0:
        raise EmptyInputError(
            f"no user can be evaluated on ranking metrics: {counts['n_truth']} truth users, "
            f"of whom {len(groups['no_relevant'])} have no relevant item and "
            f"{len(groups['missing_recs'])} have no recommendations", parameter="truth")
    if rating and len(rating_users) == 0:
        raise EmptyInputError("no truth rating has a predicted rating: rating metrics have "
                              "nothing to compare", parameter="recs")
    summaries: dict[str, MetricSummary] = {}
    per_user_cols: dict[str, tuple[pd.Index, np.ndarray]] = {}
    notes = [n for p in partials for n in p.notes]
    families = [(metric, metric, ranking_users, r_order) for _, metric in ranking]
    families += [(asked, next(p.rating_metrics[asked.label] for p in partials
                              if asked.label in p.rating_metrics), rating_users, q_order)
                 for _, asked in rating]
    terms: dict[str, tuple[pd.Index, np.ndarray, np.ndarray]] = {}
    for asked, metric, evaluated, perm in families:
        label = asked.label
        values = _gather(partials, label, perm)
        if values[1] is not None and values[2] is not None:  # micro: keep the terms
            terms[label] = (evaluated, values[1], values[2])
        value, n_undef = _aggregate(metric, values)
        per_user_cols[label] = (evaluated, values[0])
        if isinstance(metric, RankingMetric):
            policy = next((p.ties[label][0] for p in partials if label in p.ties), opts.ties)
            straddle = sum(p.ties.get(label, ("", 0))[1] for p in partials)
            n_out = sum(p.excluded.get(label, 0) for p in partials)
            summaries[label] = MetricSummary(metric, value, metric.aggregation_mode,
                                             len(evaluated) - n_out, n_undef - n_out, policy,
                                             straddle, n_out)
            continue
        micro = metric.aggregation_mode == "micro"  # pooled sums: nobody is left out
        if n_undef and not micro:
            _note(notes, UndefinedMetricWarning,
                  f"{metric.label} is undefined for {{n}} users (too few pairs, no "
                  f"variation or no positive), who are left out of its mean", n_undef, [],
                  opts.strict)
        summaries[label] = MetricSummary(metric, value, metric.aggregation_mode,
                                         len(evaluated) - (0 if micro else n_undef), n_undef)
    for _, metric in opts.of(GlobalMetric):
        summaries[metric.label] = _global(metric, partials, counts, opts)

    order = [m.label for _, m in specs]
    frame = _per_user_frame(ranking_users if ranking else ranking_users[:0],
                            rating_users, per_user_cols, order)
    beyond_settings: dict[str, Any] = {}
    if opts.of(BeyondMetric):
        frame, beyond_settings = _beyond.merge_into(partials, opts, summaries, frame, order)
    _emit(notes)
    users = UserAccounting(
        n_users=counts["n_users"], n_truth_users=counts["n_truth"],
        n_recs_users=counts["n_recs"], evaluated=ranking_users,
        skipped_no_relevant=groups["skipped_no_relevant"],
        skipped_missing_recs=groups["skipped_missing_recs"],
        recs_without_truth=groups["recs_without_truth"], no_relevant=groups["no_relevant"],
        recs_without_truth_scored=groups["recs_without_truth_scored"],
        missing_recs=groups["missing_recs"], rating_evaluated=rating_users,
        rating_skipped=groups["rating_skipped"],
        n_missing_predictions=counts.get("missing_predictions", 0),
        policies=dict(opts.policies))
    conv = opts.convention
    overrides: dict[str, Any] = dict(opts.overrides)
    if conv is not None:  # variants written in metric names that the library lacks
        written = {m.label: diff for _, m in specs if (diff := conv.not_in_library(m))}
        if written:
            overrides["metrics"] = written
    settings = {"convention": conv.name if conv is not None else None,
                "convention_overrides": overrides,
                "relevance_threshold": opts.relevance_threshold,
                "ties": opts.ties, **opts.policies, "id_cast": opts.id_cast,
                "strict": opts.strict,
                "recs_duplicates_dropped": counts.get("recs_duplicates_dropped", 0),
                "truth_duplicates_dropped": counts.get("truth_duplicates_dropped", 0),
                "partitions": len(partials), "columns": partials[0].columns,
                **({"beyond": beyond_settings} if beyond_settings else {}),
                "metrics": {m.label: _variant(m, conv) for _, m in specs}}
    return EvaluationResult(tuple(m for _, m in specs),
                            {label: summaries[label] for label in order}, frame, users,
                            settings, {text: m.label for text, m in specs}, terms)


def _variant(metric: Metric, conv: Convention | None) -> dict[str, Any]:
    """Every parameter of a metric and, under a convention, the library's name for it.

    The name is None when parameters written in the metric's name select a variant the
    library lacks; those are listed under ``not_in_library``.
    """
    out: dict[str, Any] = {"name": metric.name, "k": metric.k}
    out.update({f.name: getattr(metric, f.name) for f in metric.parameters()})
    if conv is not None:
        out["library_name"] = conv.library_name(metric)
        if out["library_name"] is None:
            out["not_in_library"] = conv.not_in_library(metric)
    return out


def _global(metric: Metric, partials: Sequence[Partial], counts: dict[str, int],
            opts: Options) -> MetricSummary:
    if isinstance(metric, UserCoverage):
        n_truth = counts["n_truth"]
        return MetricSummary(metric, counts["truth_users_with_recs"] / n_truth, "global",
                             n_truth)
    if not isinstance(metric, ItemCoverage):  # pragma: no cover - the registry is closed
        raise InvalidParameterError(f"unknown global metric {metric!r}", parameter="metrics")
    rec = pd.Index(np.unique(np.concatenate(
        [np.asarray(p.recommended[metric.label], dtype=object) if p.items.dtype == object
         else p.recommended[metric.label] for p in partials])))
    if metric.over == "train":
        if partials[0].beyond is None:
            raise InvalidParameterError(f"{metric.label} needs evaluate(train=...)",
                                        parameter="train")
        return MetricSummary(metric, len(rec) / len(partials[0].beyond.train_items),
                             "global", counts["n_recs"])
    if opts.catalog is None:
        catalog = _concat(p.items for p in partials).unique()
        if opts.train is not None and partials[0].beyond is not None:  # train + recommended
            catalog = partials[0].beyond.train_items.append(rec).unique()
        size = len(catalog)
        count = len(rec)
    else:
        cat = pd.Index(pd.unique(pd.Series(list(opts.catalog))))
        if len(cat) == 0:
            raise InvalidParameterError("catalog is empty", parameter="catalog")
        outside = rec[~rec.isin(cat)]
        if len(outside):
            raise DataError(
                f"{len(outside)} recommended items are not in catalog (e.g. "
                f"{format_examples(list(outside[:5]), len(outside))}); coverage would exceed "
                f"the catalog", parameter="catalog", n_bad=len(outside),
                examples=list(outside[:5]))
        size = len(cat)
        count = len(rec)
    return MetricSummary(metric, count / size, "global", counts["n_recs"])


def _per_user_frame(ranking_users: pd.Index, rating_users: pd.Index,
                    cols: dict[str, tuple[pd.Index, np.ndarray]],
                    order: list[str]) -> pd.DataFrame:
    if len(rating_users) == 0:
        index = ranking_users
    elif len(ranking_users) == 0:
        index = rating_users
    else:
        index = ranking_users.union(rating_users, sort=False)
    frame = {}
    for label in order:
        if label in cols:
            users, values = cols[label]
            if users.equals(index):
                frame[label] = values
            else:
                frame[label] = pd.Series(values, index=users).reindex(index).to_numpy()
    out = pd.DataFrame(frame, index=index.rename("user"))
    if not out.index.is_monotonic_increasing:
        with contextlib.suppress(TypeError):  # ids that do not order: keep the input order
            out = out.sort_index()
    return out


def _first(examples: list[Any]) -> list[Any]:
    try:
        return sorted(examples)[:5]
    except TypeError:  # ids that do not order
        return examples[:5]


def _emit(notes: list[_Note]) -> None:
    merged: dict[tuple[type[RecevalWarning], str], _Note] = {}
    for note in notes:
        key = (note.category, note.text)
        if key in merged:  # examples of several partitions: the first ids, as in one
            merged[key].n += note.n
            merged[key].examples = _first(merged[key].examples + note.examples)
        else:
            merged[key] = _Note(note.category, note.text, note.n, list(note.examples),
                                note.cutoff)
    ties = [key for key in merged if key[0] is TiesAtCutoffWarning]
    if len(ties) > 1:  # the cutoff with the most users, as one partition would say
        worst = max(ties, key=lambda key: (merged[key].n, -merged[key].cutoff))
        merged = {key: note for key, note in merged.items()
                  if key[0] is not TiesAtCutoffWarning or key == worst}
    for note in merged.values():
        warnings.warn(note.text.format(n=note.n,
                                       examples=format_examples(note.examples, note.n)),
                      note.category, stacklevel=3)
