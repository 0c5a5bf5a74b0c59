"""The common back end of every splitter: apply the policies, count, and build the Split.

Every row ends in exactly one part, coded 0 (train), 1 (test) or 2 (dropped). The policies
run in a fixed order: users too small to split first (their rows stay in train, or are
dropped, or the split fails), then cold users and cold items of the test part, judged
against the training part the splitter made.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from receval.exceptions import DataError, MissingUsersError
from receval.split._prepare import SplitInput, check_choice
from receval.split._types import Split, SplitReport

__all__ = ["COLD_POLICIES", "SMALL_POLICIES", "finish", "plan_per_user", "small_users_policy"]

COLD_POLICIES = ("keep", "drop", "error")
SMALL_POLICIES = ("train", "drop", "error")
TRAIN, TEST, DROPPED = 0, 1, 2


def small_users_policy(inp: SplitInput, small: np.ndarray, policy: str, rule: str) -> None:
    """Raise under ``small_users="error"`` when some users are too small to split."""
    if policy == "error" and small.any():
        bad = np.flatnonzero(small)
        raise DataError(
            f"{len(bad)} users have too few rows to split ({rule}), and small_users='error'; "
            f"choose small_users='train' (keep their rows in train) or 'drop'",
            parameter="small_users", column=inp.columns["user"], n_bad=len(bad),
            examples=inp.user_ids[bad[:5]].tolist())


def _distinct(codes: np.ndarray, mask: np.ndarray, n: int) -> tuple[int, np.ndarray]:
    present = np.bincount(codes[mask], minlength=n) > 0
    return int(np.count_nonzero(present)), present


def _cold(inp: SplitInput, part: np.ndarray, cold_users: str, cold_items: str,
          dropped_by: dict[str, int]) -> dict[str, int]:
    """Find the test rows whose user / item has no training row; apply the policies."""
    train = part == TRAIN
    test = part == TEST
    _, user_in_train = _distinct(inp.user, train, len(inp.user_ids))
    _, item_in_train = _distinct(inp.item, train, len(inp.item_ids))
    cold_u = test & ~user_in_train[inp.user]
    cold_i = test & ~item_in_train[inp.item]
    n_cold_u, _ = _distinct(inp.user, cold_u, len(inp.user_ids))
    n_cold_i, _ = _distinct(inp.item, cold_i, len(inp.item_ids))
    for role, mask, policy, n_keys in (("user", cold_u, cold_users, n_cold_u),
                                       ("item", cold_i, cold_items, n_cold_i)):
        if policy == "error" and n_keys:
            codes = inp.user if role == "user" else inp.item
            ids = inp.user_ids if role == "user" else inp.item_ids
            keys = np.unique(codes[mask])
            cls = MissingUsersError if role == "user" else DataError
            raise cls(
                f"{n_keys} test {role}s ({int(mask.sum())} test rows) have no training row "
                f"(cold {role}s), and cold_{role}s='error'; choose cold_{role}s='keep' or "
                f"'drop'", parameter=f"cold_{role}s", column=inp.columns[role], n_bad=n_keys,
                examples=ids[keys[:5]].tolist())
    if cold_users == "drop":
        dropped_by["cold_users"] = int(cold_u.sum())
        part[cold_u] = DROPPED
    if cold_items == "drop":
        now = cold_i & (part == TEST)
        dropped_by["cold_items"] = int(now.sum())
        part[now] = DROPPED
    return {"cold_users": n_cold_u, "cold_user_rows": int(cold_u.sum()),
            "cold_items": n_cold_i, "cold_item_rows": int(cold_i.sum())}


def _leakage(ts: np.ndarray | None, part: np.ndarray) -> tuple[int | None, float | None]:
    """Leakage: training rows after the earliest test row; share of test rows before the last."""
    if ts is None:
        return None, None
    train_ts = ts[part == TRAIN]
    test_ts = ts[part == TEST]
    if not len(test_ts) or not len(train_ts):
        return 0, (None if not len(test_ts) else 0.0)
    rows = int(np.count_nonzero(train_ts > test_ts.min()))
    share = float(np.count_nonzero(test_ts < train_ts.max()) / len(test_ts))
    return rows, share


def finish(inp: SplitInput, test: np.ndarray, *, method: str, settings: dict[str, Any],
           small: np.ndarray | None = None, cold_users: str = "keep",
           cold_items: str = "keep", **report: Any) -> Split:
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
    **report
        Further :class:`SplitReport` fields (``target_test_rows``, ``ties_at_cut``, ...).
    """
    check_choice("cold_users", cold_users, COLD_POLICIES)
    check_choice("cold_items", cold_items, COLD_POLICIES)
    part = test.astype(np.uint8)
    dropped_by = {"small_users": 0, "cold_users": 0, "cold_items": 0}
    n_small = small_rows = 0
    if small is not None and small.any():
        small_row = small[inp.user]
        n_small, small_rows = int(small.sum()), int(small_row.sum())
        if settings.get("small_users") == "drop":
            part[small_row] = DROPPED
            dropped_by["small_users"] = small_rows
    cold = _cold(inp, part, cold_users, cold_items, dropped_by)
    counts: dict[str, dict[str, int]] = {"rows": {}, "users": {}, "items": {}}
    everything = np.ones(inp.n, dtype=np.bool_)
    for name, mask in (("input", everything), ("train", part == TRAIN), ("test", part == TEST),
                       ("dropped", part == DROPPED)):
        counts["rows"][name] = int(mask.sum())
        counts["users"][name] = _distinct(inp.user, mask, len(inp.user_ids))[0]
        counts["items"][name] = _distinct(inp.item, mask, len(inp.item_ids))[0]
    leak_rows, leak_share = _leakage(inp.ts, part)
    full = {**settings, "cold_users": cold_users, "cold_items": cold_items,
            "columns": dict(inp.columns)}
    rep = SplitReport(method=method, settings=full, rows=counts["rows"],
                      users=counts["users"], items=counts["items"], small_users=n_small,
                      small_user_rows=small_rows, dropped_by=dropped_by,
                      leakage_rows=leak_rows, leakage_share=leak_share, **cold, **report)
    return Split(inp.source, part, rep)


def plan_per_user(inp: SplitInput, bounds: np.ndarray, want: np.ndarray, *,
                  small_users: str | None, min_rows: int | None, rule: str
                  ) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """Test rows per user after the small-users policy.

    Parameters
    ----------
    want : ndarray of int64
        Test rows each user would get. A user is too small to split when that leaves no
        test row or no training row, or when the user has fewer than ``min_rows`` rows.

    Returns
    -------
    n_test : ndarray of int64
        ``want``, with 0 for the small users.
    small : ndarray of bool
        The small users.
    settings : dict
        ``small_users`` and ``min_rows`` as applied.
    """
    policy = check_choice("small_users", "train" if small_users is None else small_users,
                          SMALL_POLICIES)
    sizes = np.diff(bounds)
    small = (want <= 0) | (want >= sizes)
    if min_rows is not None:
        small |= sizes < min_rows
    if min_rows is not None:
        rule = f"{rule}, or fewer than min_rows={min_rows} rows"
    small_users_policy(inp, small, policy, rule)
    n_test = np.where(small, 0, want).astype(np.int64)
    return n_test, small, {"small_users": policy, "min_rows": min_rows}
