"""The ranking family: per-user metrics of ranked lists against relevant items (nDCG, AP, ...).

Metrics that share a tie policy and gains are computed together by one pass of the compiled
ranking kernel (:func:`receval._kernels.ranking.ranking_kernel`) over the evaluated users'
lists; tied scores that straddle a cutoff are counted and noted.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from receval._aggregate import aggregate, column_of
from receval._engine._families._base import Context, Family, FamilyPartial, MergeContext, Specs
from receval._engine._families._weighted import (
    ranking_sums,
    weighted_column,
    weighted_settings,
)
from receval._engine._lists import ListKey
from receval._engine._notes import Note, note
from receval._exact import MetricSums, add_sums
from receval._result import MetricSummary
from receval.data import Interactions, RankedLists
from receval.exceptions import (
    EmptyInputError,
    InvalidGradeError,
    TiesAtCutoffWarning,
    format_examples,
)

__all__ = ["Ranking", "ties_at_cutoffs"]


def ties_at_cutoffs(lists: RankedLists, ks: set[int]) -> dict[int, np.ndarray]:
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


def _key(metric: Any, opts: Any) -> ListKey:
    grades, shifted = metric.grade_mode
    return ListKey(metric.tie_policy or opts.ties, grades, shifted)


def _kernel(data: Interactions, group: list[Any], lists: RankedLists, codes: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray]:
    """Numerators and denominators of one group of metrics (users x metrics)."""
    num, den = ranking_sums(lists, [m.request() for m in group])
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
    return num, den


def _note_ties(data: Interactions, straddle: dict[int, np.ndarray], policy: str,
               codes: np.ndarray, opts: Any, notes: list[Note],
               seen: set[tuple[str, int]] | None = None) -> None:
    """One note per cutoff where tied scores straddle it (the merge shows the worst).

    ``seen`` holds the (policy, cutoff) pairs already noted in this partition: the lists
    of a weighted metric are those of its plain form, whose ties are noted once.
    """
    if policy not in ("stable", "item"):
        return
    for k, users in sorted(straddle.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        if len(users) == 0 or (seen is not None and (policy, k) in seen):
            continue
        if seen is not None:
            seen.add((policy, k))
        rank = getattr(opts, "unused_rank", None)
        hint = (f"; recs also has a rank column {rank!r}, not used (the rows are ranked by "
                f"score): pass columns=Columns(rank={rank!r}) / --rank-col {rank} to rank by "
                f"it" if rank is not None else "")
        note(notes, TiesAtCutoffWarning,
             f"tied scores straddle the cutoff k={k} for {{n}} users (e.g. {{examples}}): "
             f"which tied item is in the top k depends on ties={policy!r}; ties='expected' "
             f"averages over every order{hint}",
             len(users), [data.user_ids[codes[i]] for i in users[:5]], opts.strict, cutoff=k)


class Ranking(Family):
    """nDCG, AP, precision, recall, MRR, hit rate, AUC, ...: one kernel pass per group."""

    name = "ranking"

    def lists(self, specs: Specs, opts: Any) -> list[tuple[ListKey, int]]:
        groups: dict[ListKey, list[Any]] = {}
        for _, metric in specs:
            groups.setdefault(_key(metric, opts), []).append(metric)
        out = []
        for key, group in groups.items():
            places = [m.places_read for m in group]  # max(k) + 1: ties at the cutoff
            out.append((key, max(places) + 1 if all(places) else 0))
        return out

    def run(self, ctx: Context, specs: Specs) -> FamilyPartial:
        data, opts, codes = ctx.data, ctx.opts, ctx.evaluated
        out = FamilyPartial(state={"ties": {}, "excluded": {}, "weights": {}})
        if not len(codes):
            return out
        groups: dict[ListKey, list[Any]] = {}
        for _, metric in specs:
            if getattr(metric, "weighted", False):
                self._weighted(ctx, metric, out)
                continue
            groups.setdefault(_key(metric, opts), []).append(metric)
        users = data.user_ids[codes]
        in_recs = data.recs_count()[codes] > 0
        for key, group in groups.items():
            lists = ctx.lists.get(key).select(codes)
            num, den = _kernel(data, group, lists, codes)
            straddle = ties_at_cutoffs(lists, {m.k for m in group if m.k})
            _note_ties(data, straddle, key.policy, codes, opts, ctx.notes,
                       ctx.shared.setdefault("noted_ties", set()))
            for j, metric in enumerate(group):
                column = column_of(metric, users, num[:, j], den[:, j])
                drop = metric.left_out(num[:, j], den[:, j])
                if opts.missing_recs(metric) == "skip":
                    drop = ~in_recs if drop is None else drop | ~in_recs
                if drop is not None and drop.any():
                    out.state["excluded"][metric.label] = column.drop(drop)
                out.add(metric.label, column)
                n_straddle = len(straddle.get(metric.k, [])) if metric.k else 0
                out.state["ties"][metric.label] = (key.policy, n_straddle)
        return out

    def _weighted(self, ctx: Context, metric: Any, out: FamilyPartial) -> None:
        """One propensity-weighted metric (:mod:`._weighted`)."""
        codes = ctx.evaluated
        key = _key(metric, ctx.opts)
        lists = ctx.lists.get(key)
        column, drop, state = weighted_column(metric, ctx, lists, codes)
        straddle = ties_at_cutoffs(lists.select(codes), {metric.k} if metric.k else set())
        _note_ties(ctx.data, straddle, key.policy, codes, ctx.opts, ctx.notes,
                   ctx.shared.setdefault("noted_ties", set()))
        if ctx.opts.missing_recs(metric) == "skip":
            drop = drop | ~(ctx.data.recs_count()[codes] > 0)
        if drop.any():
            out.state["excluded"][metric.label] = column.drop(drop)
        out.add(metric.label, column)
        out.state["weights"][metric.label] = state
        out.state["ties"][metric.label] = (key.policy, len(straddle.get(metric.k, [])))

    def settings(self, specs: Specs, parts: Sequence[FamilyPartial], ctx: MergeContext
                 ) -> dict[str, Any]:
        labels = [m.label for _, m in specs if getattr(m, "weighted", False)]
        return {"propensity": weighted_settings(parts, labels)} if labels else {}

    def check(self, specs: Specs, counts: dict[str, int]) -> None:
        if counts["n_evaluated"] == 0:
            raise EmptyInputError(
                f"no user can be evaluated on ranking metrics: {counts['n_truth']} truth "
                f"users, of whom {counts['n_no_relevant']} have no relevant item and "
                f"{counts['n_missing_recs']} have no recommendations", parameter="truth")

    def summarize(self, specs: Specs, parts: Sequence[FamilyPartial], ctx: MergeContext
                  ) -> dict[str, MetricSummary]:
        out = {}
        n_users = ctx.counts["n_evaluated"]
        for _, metric in specs:
            label = metric.label
            sums = add_sums([p.sums[label] for p in parts if label in p.sums]) \
                if any(label in p.sums for p in parts) else MetricSums.of(np.empty(0))
            policy = next((p.state["ties"][label][0] for p in parts
                           if label in p.state["ties"]), ctx.opts.ties)
            straddle = sum(p.state["ties"].get(label, ("", 0))[1] for p in parts)
            n_out = sum(p.state["excluded"].get(label, 0) for p in parts)
            out[label] = MetricSummary(metric, aggregate(metric, sums), metric.aggregation_mode,
                                       n_users - n_out, sums.n_undefined - n_out, policy,
                                       straddle, n_out)
        return out
