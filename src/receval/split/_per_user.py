"""The per-user splits' core: which rows of each user go to test, from that user's rows alone.

A per-user split (``random(per_user=True)``, ``temporal(per_user=True)``, ``leave_k_out``)
decides each user's test rows from the user's own rows, in input order, and the seed: the
latest share or the latest ``k`` rows by time, or a random share or ``k`` random rows keyed
by ``hash(seed, user id, rank of the row among the user's rows)``
(:mod:`receval._kernels.hashing`). So any set of whole users, in particular a bucket of
users inside a Spark executor (:mod:`receval.split._spark`), gives each of its users the same
rows as the whole table does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from receval._kernels.hashing import seed_key
from receval._kernels.splitting import (
    TIES_ROW_ORDER,
    TIES_TEST,
    TIES_TRAIN,
    latest_in_groups,
    random_in_groups,
)
from receval.data._idhash import id_hashes
from receval.split._prepare import SplitInput, n_test_of

__all__ = ["TIES", "PerUserPlan", "per_user_test", "small_users_of", "user_keys"]

#: Where a block of equal timestamps at a cut goes.
TIES = {"test": TIES_TEST, "train": TIES_TRAIN, "row_order": TIES_ROW_ORDER}


@dataclass(frozen=True)
class PerUserPlan:
    """The validated parameters of a per-user split.

    Attributes
    ----------
    method : {"random", "temporal", "leave_k_out"}
        The splitter.
    test_size : float or None
        The share of each user's rows (``random``, ``temporal``).
    k : int or None
        The rows held out per user (``leave_k_out``).
    order : {"latest", "random"}
        Which rows are held out: ``temporal`` is ``"latest"``, ``random`` is ``"random"``.
    seed : int
        The seed of random rows.
    ties : {"test", "train", "row_order"}
        Where a block of equal timestamps at a user's cut goes (latest rows).
    small_users : {"train", "drop", "error"}
        The policy for users too small to split.
    min_rows : int or None
        Users with fewer rows are too small as well.
    """

    method: str
    test_size: float | None = None
    k: int | None = None
    order: str = "latest"
    seed: int = 0
    ties: str = "test"
    small_users: str = "train"
    min_rows: int | None = None

    @property
    def rule(self) -> str:
        """Why a user is too small to split (for messages)."""
        rule = f"k={self.k} rows or fewer" if self.k is not None else \
            "their share floor(test_size * n_u + 1/2) leaves no test or no training row"
        if self.min_rows is not None:
            rule = f"{rule}, or fewer than min_rows={self.min_rows} rows"
        return rule

    def wanted(self, sizes: np.ndarray) -> np.ndarray:
        """Test rows each user of ``sizes`` rows would get, before the small-users policy."""
        if self.k is not None:
            return np.full(len(sizes), self.k, dtype=np.int64)
        assert self.test_size is not None
        return n_test_of(self.test_size, sizes)

    def settings(self) -> dict[str, Any]:
        """The parameters the report records, in the order the in-memory splitters list them."""
        policy = {"small_users": self.small_users, "min_rows": self.min_rows}
        if self.method == "random":
            return {"test_size": self.test_size, "per_user": True, "seed": self.seed, **policy}
        if self.method == "temporal":
            return {"test_size": self.test_size, "at": None, "per_user": True,
                    "ties": self.ties, **policy}
        out = {"k": self.k, "order": self.order, "seed": self.seed, **policy}
        return {**out, "ties": self.ties} if self.order == "latest" else out


def small_users_of(sizes: np.ndarray, want: np.ndarray, min_rows: int | None) -> np.ndarray:
    """Users too small to split: ``want`` leaves no test or no training row, or too few rows."""
    small = (want <= 0) | (want >= sizes)
    if min_rows is not None:
        small |= sizes < min_rows
    return small


def user_keys(inp: SplitInput, seed: int) -> np.ndarray:
    """Each user's key: Spark's ``xxhash64(seed, user id)`` (uint64, by user code)."""
    return id_hashes(inp.user_ids, seed_key(seed))


def per_user_test(inp: SplitInput, plan: PerUserPlan
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Each user's test rows; the small-users policy is the caller's.

    Returns
    -------
    test : ndarray of bool
        The test rows (none of a small user).
    small : ndarray of bool
        Per user code: too small to split.
    tied : ndarray of bool or None
        Per user code, for latest rows: whether the cut fell inside a block of equal times.
    """
    order, bounds = inp.groups
    want = plan.wanted(np.diff(bounds))
    small = small_users_of(np.diff(bounds), want, plan.min_rows)
    n_test = np.where(small, 0, want).astype(np.int64)
    if plan.order == "random":
        return random_in_groups(order, bounds, user_keys(inp, plan.seed), n_test), small, None
    assert inp.ts is not None
    test, tied = latest_in_groups(order, bounds, inp.ts, n_test, TIES[plan.ties])
    return test, small, tied
