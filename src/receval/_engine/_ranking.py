"""The ranking metrics of one partition: ranked lists, the ranking kernel, ties at cutoffs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from receval._engine._notes import Note, note
from receval._engine._options import Options
from receval._engine._partial import Values, per_user_values
from receval._kernels import ranking as RK
from receval.data import Interactions, RankedLists
from receval.exceptions import InvalidGradeError, TiesAtCutoffWarning, format_examples
from receval.metrics import RankingMetric

__all__ = ["run_ranking", "ties_at_cutoffs"]


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


def _kernel(data: Interactions, group: list[RankingMetric], policy: str, grades: str,
            shifted: bool, codes: np.ndarray, opts: Options
            ) -> tuple[RankedLists, np.ndarray, np.ndarray]:
    """Numerators and denominators of one group of metrics (users x metrics)."""
    places = [m.places_read for m in group]  # the lists keep max(k) + 1 places
    top = max(places) + 1 if all(places) else 0
    lists = data.ranked(codes, policy, top=top, **_grade_arrays(data, grades, shifted, opts))
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
    return lists, num, den


def _note_ties(data: Interactions, straddle: dict[int, np.ndarray], policy: str,
               codes: np.ndarray, opts: Options, notes: list[Note]) -> None:
    """One note per cutoff where tied scores straddle it (the merge shows the worst)."""
    if policy not in ("stable", "item"):
        return
    for k, users in sorted(straddle.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        if len(users) == 0:
            continue
        note(notes, TiesAtCutoffWarning,
             f"tied scores straddle the cutoff k={k} for {{n}} users (e.g. {{examples}}): "
             f"which tied item is in the top k depends on ties={policy!r}; ties='expected' "
             f"averages over every order",
             len(users), [data.user_ids[codes[i]] for i in users[:5]], opts.strict, cutoff=k)


def run_ranking(data: Interactions, specs: Sequence[tuple[str, RankingMetric]],
                codes: np.ndarray, opts: Options, values: dict[str, Values],
                ties: dict[str, tuple[str, int]], notes: list[Note]
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
        lists, num, den = _kernel(data, group, policy, grades, shifted, codes, opts)
        straddle = ties_at_cutoffs(lists, {m.k for m in group if m.k})
        _note_ties(data, straddle, policy, codes, opts, notes)
        for j, metric in enumerate(group):
            values[metric.label] = per_user_values(metric, num[:, j], den[:, j])
            drop = metric.left_out(num[:, j], den[:, j])
            if drop is not None:
                left_out[metric.label] = drop
            n_straddle = len(straddle.get(metric.k, [])) if metric.k else 0
            ties[metric.label] = (policy, n_straddle)
    return left_out
