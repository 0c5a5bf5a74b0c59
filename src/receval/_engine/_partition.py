"""One partition: validation, encoding, user accounting, then each requested family's run."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pandas as pd

from receval._engine._families import FAMILIES, Context, requested
from receval._engine._lists import ListCache
from receval._engine._notes import Note, note
from receval._engine._options import Options
from receval._engine._partial import Partial
from receval._engine._samples import Samples, samples_of
from receval._exact import ExactSum
from receval.data import Interactions, prepare, recs_table, truth_table
from receval.data._adapters import to_frame
from receval.data._encode import cast_table, lookalike_ids
from receval.data._samples import sampled_rows
from receval.data._table import unused_note
from receval.exceptions import (
    DataWarning,
    EmptyInputError,
    InvalidParameterError,
    MissingUsersError,
    UndefinedMetricWarning,
    format_examples,
)

__all__ = ["evaluate_partition", "truth_grade_sum"]


def _prepared(recs: Any, truth: Any, opts: Options, part_of_whole: bool,
              notes: list[Note] | None = None
              ) -> tuple[Interactions, dict[str, str], Samples | None]:
    """The encoded interactions of both tables, their columns by role, and the samples.

    With ``opts.sample`` (a stochastic ranker's sampled rankings), the interactions hold one
    row per (user, item) and the samples every sampled list (:mod:`receval.data._samples`).
    A table whose value column seems unnamed is noted in ``notes`` (an error under strict).
    """
    if opts.sample is not None:
        recs = to_frame(recs, "recs", ids=tuple(
            n for n in (opts.columns.named("user", "recs"), opts.columns.named("item", "recs"))
            if n is not None))
    rt = cast_table(recs_table(recs, opts.columns), opts.id_cast)
    tt = cast_table(truth_table(truth, opts.columns), opts.id_cast)
    _check_unused(rt, tt, opts, notes)
    if opts.policies["score_precision"] == "float32" and rt.score is not None:
        rt = dataclasses.replace(rt, score=rt.score.astype(np.float32).astype(np.float64))
    if len(rt) == 0 and not part_of_whole:
        raise EmptyInputError("recs is empty: there are no recommendations to evaluate",
                              parameter="recs")
    columns = {**rt.columns, **{f"truth_{k}": v for k, v in tt.columns.items()}}
    sampled = None
    if opts.sample is not None:
        sampled = sampled_rows(recs, rt, tt, opts.sample, opts.policies["duplicates"])
        rt = sampled.recs
        columns["sample"] = opts.sample
    data = _encoded(rt, tt, opts, part_of_whole)
    if sampled is None:
        return data, columns, None
    lists = _encoded(sampled.lists, sampled.truth, opts, part_of_whole)
    if "recs_duplicates_dropped" in lists.notes:  # repeats within a sampled list
        data = dataclasses.replace(data, notes={
            **data.notes, "recs_duplicates_dropped": lists.notes["recs_duplicates_dropped"]})
    return data, columns, samples_of(sampled, lists, data)


#: Families whose metrics never read truth's grades (their lists, train, groups only).
_NO_GRADES = ("per_list", "exposure", "calibration")


def _reads_grades(opts: Options) -> bool:
    """Whether a requested metric reads truth's relevance (serendipity does, per list)."""
    return any(m.family not in _NO_GRADES or m.name == "serendipity" for _, m in opts.specs)


def _check_unused(rt: Any, tt: Any, opts: Options, notes: list[Note] | None) -> None:
    """A threshold with no grade column is an error; an unnamed value column, a note."""
    threshold_given = opts.relevance_threshold is not None and (
        opts.convention is None or "relevance_threshold" in opts.overrides)
    if threshold_given and tt.rating is None:
        cols = list(tt.columns.values()) + list(tt.unused)
        raise InvalidParameterError(
            f"relevance_threshold={opts.relevance_threshold!r} (the CLI's -t) was given, but "
            f"truth has no grade (rating) column to compare with it (truth's columns include "
            f"{cols}); name the grade column with columns=Columns(rating=...) (the CLI's "
            f"--rating-col), or leave the threshold out to count every truth row as relevant",
            parameter="relevance_threshold", examples=cols)
    if notes is None:
        return
    for table in (rt, tt) if _reads_grades(opts) else (rt,):
        text = unused_note(table)
        if text is not None:
            note(notes, DataWarning, text, len(table.unused), list(table.unused),
                 opts.strict)


def _encoded(rt: Any, tt: Any, opts: Options, part_of_whole: bool) -> Interactions:
    data = prepare(rt, tt, relevance_threshold=opts.relevance_threshold,
                   duplicates=opts.policies["duplicates"],
                   negative_grades=opts.policies["negative_grades"],
                   allow_empty=part_of_whole)
    if opts.policies["truth_scope"] == "recommended":
        data = dataclasses.replace(data, t_rel=data.t_rel & data.in_recommendations())
    return data


def truth_grade_sum(no_recs: Any, truth: Any, opts: Options) -> ExactSum:
    """The exact sum of one bucket's truth grades, as its partition will hold them.

    That is after the ``duplicates`` policy has dropped repeated (user, item) rows, so that
    ``missing_predictions="global_mean"`` over buckets fills with the mean the whole table
    gives in memory (the rating family). ``no_recs`` is an empty recs table with the recs'
    columns.
    """
    data = _prepared(no_recs, truth, dataclasses.replace(opts, sample=None),
                     part_of_whole=True)[0]
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
    notes: list[Note] = []
    data, columns, samples = _prepared(recs, truth, opts, part_of_whole, notes)
    if "score" in columns and "rank" in columns:  # ranked by score: the rank breaks no tie
        opts = dataclasses.replace(opts, unused_rank=columns["rank"])
    _note_lookalikes(data, opts, notes)
    groups, counts, codes = account(data, opts, notes)
    wanted = requested(opts.specs)
    plan = ListCache.plan([req for name, specs in wanted.items()
                           for req in FAMILIES[name].lists(specs, opts)])
    ctx = Context(data, opts, ListCache(data, opts, plan), codes, notes)
    if samples is not None:
        ctx.shared["samples"] = samples
    families = {name: FAMILIES[name].run(ctx, specs) for name, specs in wanted.items()}
    for part in families.values():
        groups.update(part.groups)
        counts.update(part.counts)
    counts["n_evaluated"] = len(codes)
    counts.setdefault("n_rating_evaluated", 0)
    counts.update({f"n_{name}": len(users) for name, users in groups.items()})
    rating_users = groups.pop("rating_evaluated", data.user_ids[:0])
    return Partial(ranking_users=data.user_ids[codes], rating_users=rating_users,
                   groups=groups, counts=counts | data.notes, items=data.item_ids,
                   families=families, notes=notes, columns=columns)


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
    ranking = opts.metrics_of("ranking")
    evaluable = in_truth.copy()
    skipped_no_rel = no_rel[:0]
    if pol["no_relevant"] == "skip":
        evaluable &= n_rel > 0
        skipped_no_rel = no_rel
        if len(no_rel) and ranking:
            note(notes, UndefinedMetricWarning,
                 "{n} truth users have no relevant item and are left out of the ranking "
                 "metrics (no_relevant='skip'), e.g. {examples}", len(no_rel), ex(no_rel),
                 opts.strict)
    skipped_missing = missing[:0]
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
