"""One partition: validation, encoding, user accounting and every kernel, into a Partial."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pandas as pd

from receval import _beyond_engine as _beyond
from receval._engine._notes import Note, note
from receval._engine._options import Options
from receval._engine._partial import Partial, Values, exclude
from receval._engine._ranking import run_ranking
from receval._engine._rating import run_rating
from receval._engine._sums import ExactSum, MetricSums
from receval.data import InputTable, Interactions, prepare, recs_table, truth_table
from receval.data._encode import cast_ids, lookalike_ids
from receval.exceptions import (
    DataWarning,
    EmptyInputError,
    MissingUsersError,
    UndefinedMetricWarning,
    format_examples,
)
from receval.metrics import BeyondMetric, ItemCoverage, Metric, RankingMetric, RatingMetric

__all__ = ["cast_table", "evaluate_partition", "truth_grade_sum"]


def cast_table(table: InputTable, how: str | None) -> InputTable:
    """Both id columns of one table cast by ``id_cast`` (``None``: as they are)."""
    if how is None:
        return table
    user = cast_ids(table.user, how, role="user", table=table.name,
                    column=table.columns["user"])
    item = cast_ids(table.item, how, role="item", table=table.name,
                    column=table.columns["item"])
    return dataclasses.replace(table, user=user, item=item)


def _prepared(recs: Any, truth: Any, opts: Options, part_of_whole: bool
              ) -> tuple[Interactions, dict[str, str]]:
    """The encoded interactions of both tables, and their columns by role."""
    rt = cast_table(recs_table(recs, opts.columns), opts.id_cast)
    tt = cast_table(truth_table(truth, opts.columns), opts.id_cast)
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
    return data, {**rt.columns, **{f"truth_{k}": v for k, v in tt.columns.items()}}


def truth_grade_sum(no_recs: Any, truth: Any, opts: Options) -> ExactSum:
    """The exact sum of one bucket's truth grades, as its partition will hold them.

    That is after the ``duplicates`` policy has dropped repeated (user, item) rows, so that
    ``missing_predictions="global_mean"`` over buckets fills with the mean the whole table
    gives in memory (``_engine._rating``). ``no_recs`` is an empty recs table with the
    recs' columns.
    """
    data, _ = _prepared(no_recs, truth, opts, part_of_whole=True)
    return ExactSum.of(data.t_grade)


def _note_lookalikes(data: Interactions, opts: Options, notes: list[Note]) -> None:
    # the users present on each side, from the offsets (the grouped user codes of every row
    # are not built for this)
    users = (np.flatnonzero(np.diff(data.r_off)), np.flatnonzero(np.diff(data.t_off)))
    for role, uniques, a, b in (("user", data.user_ids, *users),
                                ("item", data.item_ids, data.r_item, data.t_item)):
        pairs = lookalike_ids(uniques, a, b)
        if pairs:
            note(notes, DataWarning,
                 f"{role} ids that differ only by Unicode normalisation or surrounding spaces "
                 "appear on one side each, e.g. {examples}; receval compares ids exactly: "
                 "normalise them (unicodedata.normalize('NFC')) if they are the same",
                 len(pairs), pairs, opts.strict)


def evaluate_partition(recs: Any, truth: Any, opts: Options, *,
                       part_of_whole: bool = False) -> Partial:
    """Evaluate one pair of tables: all the users, or one bucket of them.

    With ``part_of_whole``, either table may be empty (a bucket can hold users of one side
    only); the caller checks that the whole is not.
    """
    data, columns = _prepared(recs, truth, opts, part_of_whole)
    notes: list[Note] = []
    _note_lookalikes(data, opts, notes)
    groups, counts, codes = account(data, opts, notes)
    ids = data.user_ids
    values: dict[str, Values] = {}
    ties: dict[str, tuple[str, int]] = {}
    excluded: dict[str, int] = {}
    ranking = opts.of(RankingMetric)
    if ranking and len(codes):
        left_out = run_ranking(data, ranking, codes, opts, values, ties, notes)
        in_recs = data.recs_count()[codes] > 0
        for _, metric in ranking:
            drop = left_out.get(metric.label)
            if opts.missing_recs(metric) == "skip":
                drop = ~in_recs if drop is None else drop | ~in_recs
            if drop is not None and drop.any():
                excluded[metric.label] = exclude(values, metric.label, drop)
    rating_codes = np.empty(0, dtype=np.int64)
    rating_metrics: dict[str, Metric] = {}
    if opts.of(RatingMetric):
        rating_codes = run_rating(data, opts, values, rating_metrics, groups, counts)
    recommended = {metric.label: recommended_items(data, metric, opts.ties)
                   for _, metric in opts.of(ItemCoverage)}
    beyond = _beyond.run(data, opts) if opts.of(BeyondMetric) or opts.train is not None \
        else None
    counts["truth_users_with_recs"] = int(((data.truth_count() > 0)
                                           & (data.recs_count() > 0)).sum())
    counts["n_evaluated"], counts["n_rating_evaluated"] = len(codes), len(rating_codes)
    counts.update({f"n_{name}": len(users) for name, users in groups.items()})
    return Partial(
        ranking_users=ids[codes], rating_users=ids[rating_codes],
        values=values, ties=ties, excluded=excluded, rating_metrics=rating_metrics,
        groups=groups, counts=counts | data.notes, recommended=recommended,
        items=data.item_ids, notes=notes, columns=columns, beyond=beyond,
        sums={label: MetricSums.of(*arrays) for label, arrays in values.items()})


def account(data: Interactions, opts: Options, notes: list[Note]
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
            note(notes, UndefinedMetricWarning,
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


def recommended_items(data: Interactions, metric: ItemCoverage, ties: str) -> np.ndarray:
    """Item ids that appear in some user's top k (the whole list without k)."""
    users = np.flatnonzero(data.recs_count() > 0)
    lists = data.ranked(users, metric.ties or ties, top=metric.k or 0)
    lengths = lists.ends - lists.starts
    take = np.minimum(lengths, metric.k) if metric.k else lengths
    first = np.repeat(lists.starts, take)
    pos = first + (np.arange(take.sum()) - np.repeat(np.cumsum(take) - take, take))
    return np.asarray(data.item_ids[np.unique(lists.item[pos])])
