"""Random splits: a share of all rows or of each user's rows, and k-fold cross-validation."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from receval._columns import Columns
from receval._flags import check_flag
from receval._kernels.hashing import hash_positions, seed_key
from receval._seeds import check_seed
from receval.data._spark import is_spark_frame
from receval.exceptions import InvalidParameterError
from receval.split._finish import SMALL_POLICIES, finish, finish_per_user
from receval.split._per_user import PerUserPlan
from receval.split._prepare import (
    SplitInput,
    check_choice,
    check_count,
    check_test_size,
    global_counts,
    read_input,
)
from receval.split._types import Split

__all__ = ["kfold", "plan_of", "random", "random_rows",
           "reject_per_user_options"]

Policy = Literal["keep", "drop", "error"]


def reject_per_user_options(small_users: str | None, min_rows: int | None) -> None:
    """``small_users`` and ``min_rows`` mean something only for per-user splits."""
    given = [name for name, v in (("small_users", small_users), ("min_rows", min_rows))
             if v is not None]
    if given:
        raise InvalidParameterError(
            f"{given[0]}= applies to per-user splits (per_user=True, leave_k_out); this split "
            f"cuts all rows at once, so no user is too small", parameter=given[0])


def plan_of(per_user: bool, small_users: str | None, min_rows: Any, method: str,
            **fields: Any) -> PerUserPlan | None:
    """The plan of a per-user split, or None for a global split.

    ``small_users`` defaults to ``"train"``; on a global split it and ``min_rows`` are errors.
    """
    if not per_user:
        reject_per_user_options(small_users, min_rows)
        return None
    policy = check_choice("small_users", "train" if small_users is None else small_users,
                          SMALL_POLICIES)
    rows = None if min_rows is None else check_count("min_rows", min_rows, 1, ">= 1")
    return PerUserPlan(method, small_users=policy, min_rows=rows, **fields)


def random_rows(n: int, n_test: int, seed: int) -> np.ndarray:
    """The test mask of a global random split: the ``n_test`` rows of smallest key.

    The key of the row at position ``i`` is Spark's ``xxhash64(seed, i)`` (a signed 64-bit
    integer, distinct for distinct positions), so the rows are a uniform sample without
    replacement that Spark computes identically from the rows' positions.
    """
    keys = hash_positions(n, seed_key(seed))
    return keys <= np.partition(keys, n_test - 1)[n_test - 1]


def random(data: Any, test_size: float = 0.2, *, per_user: bool = False, seed: int = 0,
           small_users: Literal["train", "drop", "error"] | None = None,
           min_rows: int | None = None, cold_users: Policy = "keep",
           cold_items: Policy = "keep", columns: Columns | dict[str, str] | None = None
           ) -> Split:
    """Hold out a random share of the rows, or of each user's rows.

    The test part of ``test_size = f`` over ``n`` rows has ``floor(f n + 1/2)`` rows, which
    is between ``floor(f n)`` and ``ceil(f n)``; with ``per_user=True`` the same holds for
    each user's ``n_u`` rows. Rows are drawn uniformly without replacement by keyed hashes
    (XXH64, as Spark's ``xxhash64``): a global split takes the ``floor(f n + 1/2)`` rows of
    smallest ``xxhash64(seed, position)``; a per-user split takes the rows of smallest key
    among each user's rows, the ``i``-th of them (in input order) keyed by the XXH64 of ``i``
    under the user's key ``xxhash64(seed, user id)``, so each user's draw depends only on the
    seed, its id and its own rows. The same seed gives the same split
    in any process, for any frame type, and on a Spark DataFrame.

    Parameters
    ----------
    data : table
        Interactions with user and item columns (any input receval reads); extra columns
        are kept.
    test_size : float
        The share of rows in test, strictly between 0 and 1.
    per_user : bool
        Hold out ``test_size`` of each user's rows (LensKit's ``SampleFrac``) instead of
        ``test_size`` of all rows.
    seed : int
        The seed (default 0: splits are reproducible unless a seed is changed).
    small_users : {"train", "drop", "error"}, optional
        ``per_user`` only: what to do with users whose share rounds to no test row or to no
        training row (or who have fewer than ``min_rows`` rows): keep every row in train
        (the default), put them in ``dropped``, or raise.
    min_rows : int, optional
        ``per_user`` only: users with fewer rows are too small to split.
    cold_users, cold_items : {"keep", "drop", "error"}
        Test rows whose user (item) has no training row: keep them (the default; the report
        counts them), move them to ``dropped``, or raise.
    columns : Columns or dict, optional
        Column names by role (``user``, ``item``, ``timestamp``), as for ``evaluate``.

    Returns
    -------
    Split
        Unpacks as ``train, test``; ``.report`` has sizes, cold users and items, leakage.

    Examples
    --------
    >>> import pandas as pd, receval as rv
    >>> log = pd.DataFrame({"user_id": [1, 1, 1, 2, 2], "item_id": list("abcab")})
    >>> train, test = rv.split.random(log, test_size=0.4, seed=0)
    >>> len(train), len(test)
    (3, 2)
    """
    f = check_test_size(test_size)
    seed = check_seed(seed)
    per_user = bool(check_flag(per_user, "per_user"))
    plan = plan_of(per_user, small_users, min_rows, "random", test_size=f, order="random",
                   seed=seed)
    cold: dict[str, Any] = {"cold_users": cold_users, "cold_items": cold_items}
    if is_spark_frame(data):
        from receval.split._spark import per_user_spark, random_spark

        return per_user_spark(data, plan, columns=columns, **cold) if plan is not None \
            else random_spark(data, f, seed, columns=columns, **cold)
    inp = read_input(data, columns, need_time=None)
    if plan is not None:
        return finish_per_user(inp, plan, method="random", **cold)
    n_test = global_counts(inp.n, f)
    return finish(inp, random_rows(inp.n, n_test, seed), method="random",
                  settings={"test_size": f, "per_user": per_user, "seed": seed},
                  target_test_rows=n_test, **cold)


def _folds(inp: SplitInput, n_splits: int, by: str, rng: np.random.Generator) -> np.ndarray:
    """The test fold of every row: a random balanced partition of the rows or of the users."""
    n_keys = inp.n if by == "rows" else len(inp.user_ids)
    if n_splits > n_keys:
        raise InvalidParameterError(
            f"n_splits={n_splits} is more than the {n_keys} {by} to split into folds; "
            f"each fold needs at least one", parameter="n_splits", examples=[n_splits])
    fold_of_key = np.empty(n_keys, dtype=np.int64)
    fold_of_key[rng.permutation(n_keys)] = np.arange(n_keys, dtype=np.int64) * n_splits \
        // n_keys
    return fold_of_key if by == "rows" else fold_of_key[inp.user]


def kfold(data: Any, n_splits: int = 5, *, by: Literal["rows", "users"] = "rows",
          seed: int = 0, cold_users: Policy = "keep", cold_items: Policy = "keep",
          columns: Columns | dict[str, str] | None = None) -> list[Split]:
    """K-fold cross-validation: ``n_splits`` splits whose test parts partition the rows.

    ``by="rows"`` deals the rows, ``by="users"`` the users (all of a user's rows are in the
    test part of one fold, and in the training part of every other fold), at random from
    ``numpy.random.default_rng(seed)`` into folds whose sizes differ by at most one row
    (user), like scikit-learn's ``KFold(shuffle=True)`` and LensKit's ``crossfold_records``
    / ``crossfold_users`` with whole users held out.

    Parameters
    ----------
    data : table
        Interactions with user and item columns.
    n_splits : int
        Number of folds, from 2 to the number of rows (users).
    by : {"rows", "users"}
        What is dealt into folds.
    seed : int
        The seed (default 0).
    cold_users, cold_items : {"keep", "drop", "error"}
        As for :func:`random`, in each fold. With ``by="users"`` every test user is cold by
        construction, so ``cold_users="error"`` always fails and ``"drop"`` empties the test.
    columns : Columns or dict, optional
        Column names by role.

    Returns
    -------
    list of Split
        One per fold, in fold order; ``report.settings["fold"]`` is its index. Every input
        row is in the test (or, under a drop policy, the dropped) part of exactly one fold.
    """
    n_splits = check_count("n_splits", n_splits, 2, ">= 2")
    by_ = check_choice("by", by, ("rows", "users"))
    seed = check_seed(seed)
    if is_spark_frame(data):
        raise InvalidParameterError(
            "kfold does not run on a Spark DataFrame: use rv.split.random(..., seed=s) (or "
            "temporal) for each split you need, or split a sample that fits in memory",
            parameter="data")
    inp = read_input(data, columns, need_time=None)
    fold_of = _folds(inp, n_splits, by_, np.random.default_rng(seed))
    return [finish(inp, fold_of == fold, method="kfold",
                   settings={"n_splits": n_splits, "by": by_, "seed": seed, "fold": fold},
                   cold_users=cold_users, cold_items=cold_items)
            for fold in range(n_splits)]
