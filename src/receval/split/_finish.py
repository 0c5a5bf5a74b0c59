"""The common back end of every splitter: apply the policies, count, and build the Split.

Every row ends in exactly one part, coded 0 (train), 1 (test) or 2 (dropped). The policies
run in a fixed order: users too small to split first (their rows stay in train, or are
dropped, or the split fails), then cold users and cold items of the test part, judged
against the training part the splitter made.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from receval._kernels.splitting import count_parts, leakage_counts, repeated_pairs
from receval.exceptions import DataError, EmptyInputError, MissingUsersError, format_examples
from receval.split._per_user import PerUserPlan, per_user_test
from receval.split._prepare import SplitInput, check_choice
from receval.split._types import PARTS, Split, SplitReport

__all__ = ["COLD_POLICIES", "SMALL_POLICIES", "cold_error", "finish", "finish_per_user",
           "global_at_error", "global_latest_error",
           "small_users_error", "small_users_policy"]

COLD_POLICIES = ("keep", "drop", "error")
SMALL_POLICIES = ("train", "drop", "error")
TEST, DROPPED = 1, 2


def small_users_error(n_bad: int, examples: list[Any], column: str | None, rule: str
                      ) -> DataError:
    """The error of ``small_users="error"``: ``n_bad`` users too small to split, named."""
    return DataError(
        f"{n_bad} users have too few rows to split ({rule}): "
        f"{format_examples(examples, n_bad)}; and small_users='error': choose "
        f"small_users='train' (keep their rows in train) or 'drop'",
        parameter="small_users", column=column, n_bad=n_bad, examples=examples)


def cold_error(role: str, n_keys: int, n_rows: int, column: str | None, examples: list[Any]
               ) -> DataError:
    """The error of ``cold_users="error"`` / ``cold_items="error"``, naming up to five."""
    cls = MissingUsersError if role == "user" else DataError
    return cls(
        f"{n_keys} test {role}s ({n_rows} test rows) have no training row (cold {role}s): "
        f"{format_examples(examples, n_keys)}; and cold_{role}s='error': choose "
        f"cold_{role}s='keep' or 'drop'",
        parameter=f"cold_{role}s", column=column, n_bad=n_keys, examples=examples)


def small_users_policy(inp: SplitInput, small: np.ndarray, policy: str, rule: str) -> None:
    """Raise under ``small_users="error"`` when some users are too small to split."""
    if policy == "error" and small.any():
        bad = np.flatnonzero(small)
        raise small_users_error(len(bad), inp.user_ids[bad[:5]].tolist(), inp.columns["user"],
                                rule)


def _cold(inp: SplitInput, part: np.ndarray, users: np.ndarray, items: np.ndarray,
          policies: tuple[str, str], dropped_by: dict[str, int]) -> dict[str, int]:
    """Count the test rows whose user / item has no training row; apply the policies.

    ``users`` / ``items`` are the per-part row counts of :func:`count_parts`.
    """
    found: dict[str, int] = {}
    for role, counts, policy in (("user", users, policies[0]), ("item", items, policies[1])):
        cold_keys = (counts[1] > 0) & (counts[0] == 0)
        found[f"cold_{role}s"] = int(cold_keys.sum())
        found[f"cold_{role}_rows"] = int(counts[1][cold_keys].sum())
        if policy == "error" and cold_keys.any():
            ids = inp.user_ids if role == "user" else inp.item_ids
            keys = np.flatnonzero(cold_keys)
            raise cold_error(role, len(keys), found[f"cold_{role}_rows"], inp.columns[role],
                             ids[keys[:5]].tolist())
        if policy == "drop" and cold_keys.any():
            codes = inp.user if role == "user" else inp.item
            now = (part == TEST) & cold_keys[codes]
            dropped_by[f"cold_{role}s"] = int(now.sum())
            part[now] = DROPPED
    return found


def _leakage(inp: SplitInput, part: np.ndarray
             ) -> tuple[int | None, float | None, int | None]:
    """Global leakage (late training rows, share of early test rows) and per-user leakage.

    Per-user leakage is the training rows later than the earliest test row of their own
    user (None without time): per user u with test rows, ``#{training rows r of u : t_r > min t(test
    rows of u)}`` summed over users; it is at most the first (a row later than its user's
    earliest test row is later than the earliest of all).
    """
    if inp.ts is None:
        return None, None, None
    late_train, early_test, _, n_test, own_late = leakage_counts(
        part, inp.ts, inp.user, len(inp.user_ids))
    return int(late_train), (float(early_test / n_test) if n_test else None), int(own_late)


def finish(inp: SplitInput, test: np.ndarray, *, method: str, settings: dict[str, Any],
           small: np.ndarray | None = None, cold_users: str = "keep",
           cold_items: str = "keep", outside: Mapping[str, np.ndarray] | None = None,
           **report: Any) -> Split:
    """Turn the splitter's test mask into a Split with its report.

    Parameters
    ----------
    inp : SplitInput
        The encoded input.
    test : ndarray of bool
        The rows the splitter put in test (the rest are in train).
    method : str
        The splitter's name.
    settings : dict
        The parameters to record (the policies are added here).
    small : ndarray of bool, optional
        Per user code: users too small to split; their rows must not be in ``test``.
        Dropped when ``settings["small_users"] == "drop"``.
    cold_users, cold_items : {"keep", "drop", "error"}
        The cold-start policies.
    outside : mapping of str to ndarray of bool, optional
        Rows outside the split's scope (a rolling window's: before its training window, after
        its test period), by reason: they go to ``dropped`` before any policy runs, and
        ``dropped_by[reason]`` counts them. They must not be in ``test``.
    **report
        Further :class:`SplitReport` fields (``target_test_rows``, ``ties_at_cut``, ...).
    """
    check_choice("cold_users", cold_users, COLD_POLICIES)
    check_choice("cold_items", cold_items, COLD_POLICIES)
    part = test.astype(np.uint8)
    dropped_by = {"small_users": 0, "cold_users": 0, "cold_items": 0}
    for reason, rows in (outside or {}).items():
        part[rows] = DROPPED
        dropped_by[reason] = int(np.count_nonzero(rows))
    n_small = small_rows = 0
    if small is not None and small.any():
        small_row = small[inp.user]
        n_small, small_rows = int(small.sum()), int(small_row.sum())
        if settings.get("small_users") == "drop":
            part[small_row] = DROPPED
            dropped_by["small_users"] = small_rows
    users, items = count_parts(part, inp.user, inp.item, len(inp.user_ids), len(inp.item_ids))
    cold = _cold(inp, part, users, items, (cold_users, cold_items), dropped_by)
    if dropped_by["cold_users"] or dropped_by["cold_items"]:
        users, items = count_parts(part, inp.user, inp.item, len(inp.user_ids),
                                   len(inp.item_ids))
    counts: dict[str, dict[str, int]] = {
        "rows": {"input": inp.n}, "users": {"input": len(inp.user_ids)},
        "items": {"input": len(inp.item_ids)}}
    for code, name in enumerate(PARTS):
        counts["rows"][name] = int(users[code].sum())
        counts["users"][name] = int(np.count_nonzero(users[code]))
        counts["items"][name] = int(np.count_nonzero(items[code]))
    leak_rows, leak_share, own_rows = _leakage(inp, part)
    order, bounds = inp.groups
    repeated = int(repeated_pairs(order, bounds, part, inp.item, len(inp.item_ids)))
    full = {**settings, "cold_users": cold_users, "cold_items": cold_items,
            "columns": dict(inp.columns)}
    rep = SplitReport(method=method, settings=full, rows=counts["rows"],
                      users=counts["users"], items=counts["items"], small_users=n_small,
                      small_user_rows=small_rows, dropped_by=dropped_by,
                      leakage_rows=leak_rows, leakage_share=leak_share,
                      user_leakage_rows=own_rows,
                      repeated_test_rows=repeated, **cold, **report)
    return Split(inp.source, part, rep)


def finish_per_user(inp: SplitInput, plan: PerUserPlan, *, method: str, cold_users: str,
                    cold_items: str) -> Split:
    """Split each user's rows as ``plan`` says, apply every policy, and report."""
    test, small, tied = per_user_test(inp, plan)
    small_users_policy(inp, small, plan.small_users, plan.rule)
    extra: dict[str, Any] = {} if tied is None else {"ties_at_cut": int(tied.sum())}
    return finish(inp, test, method=method, settings=plan.settings(), small=small,
                  cold_users=cold_users, cold_items=cold_items, **extra)


def global_latest_error(ties: str, n_block: int, cut: Any, empty: str) -> EmptyInputError:
    """The error of a global cut whose block of equal times leaves the ``empty`` part empty."""
    return EmptyInputError(
        f"temporal split: with ties={ties!r}, the block of {n_block} rows at the cut "
        f"time {cut} leaves the {empty} part empty; choose another ties= or test_size",
        parameter="ties", examples=[ties])


def global_at_error(at: Any, empty: str, first: Any, last: Any, column: str | None
                    ) -> EmptyInputError:
    """The error of ``at=`` that leaves the ``empty`` part of a global cut empty.

    The rule of every global split (a share or a time): both parts need a row.
    """
    where = (f"after the latest time {last}" if empty == "test"
             else f"at or before the earliest time {first}")
    return EmptyInputError(
        f"temporal split: at={at!r} is {where} of the timestamp column {column!r}, so the "
        f"{empty} part would be empty (a global split needs a row in both parts); choose a "
        f"time between {first} and {last}", parameter="at", column=column, examples=[at])
