"""Splits in time: the latest share, a cut at a time, and leave-k-out.

The latest share is of all rows or of each user's rows; leave-k-out holds out each user's
latest (or random) k rows.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from receval._columns import Columns
from receval._seeds import check_seed
from receval.data._rows import time_point
from receval.data._spark import is_spark_frame
from receval.exceptions import InvalidParameterError
from receval.split._finish import (
    COLD_POLICIES,
    finish,
    finish_per_user,
    global_at_error,
    global_latest_error,
)
from receval.split._per_user import TIES
from receval.split._prepare import (
    SplitInput,
    check_choice,
    check_count,
    check_test_size,
    global_counts,
    read_input,
)
from receval.split._random import plan_of
from receval.split._types import Split

__all__ = ["TIES", "leave_k_out", "temporal"]

Policy = Literal["keep", "drop", "error"]
Ties = Literal["test", "train", "row_order"]


def _global_latest(inp: SplitInput, f: float, ties: str) -> tuple[np.ndarray, dict[str, Any]]:
    """Test mask of the globally latest share, with the tie rule; report fields."""
    assert inp.ts is not None
    ts = inp.ts
    n_test = global_counts(inp.n, f)
    cut = np.partition(ts, inp.n - n_test)[inp.n - n_test]  # the n_test-th latest time
    later = ts > cut
    n_later = int(later.sum())
    n_at = int(np.count_nonzero(ts >= cut))
    tied = n_at > n_test > n_later  # the block of times == cut straddles the target
    if ties == "test":
        test = ts >= cut
    elif ties == "train":
        test = later
    else:  # exactly n_test rows: among the rows at the cut time, the last ones in input order
        test = later
        at_cut = np.flatnonzero(ts == cut)
        test[at_cut[len(at_cut) - (n_test - n_later):]] = True
    if not test.any() or test.all():
        raise global_latest_error(ties, n_at - n_later, inp.time_label(cut),
                                  "test" if not test.any() else "train")
    return test, {"target_test_rows": n_test, "ties_at_cut": int(tied),
                  "cut_time": inp.time_label(cut)}


def _check_common(ties: str, cold_users: str, cold_items: str) -> str:
    check_choice("cold_users", cold_users, COLD_POLICIES)
    check_choice("cold_items", cold_items, COLD_POLICIES)
    return check_choice("ties", ties, tuple(TIES))


def temporal(data: Any, test_size: float | None = None, *, at: Any = None,
             per_user: bool = False, ties: Ties = "test",
             small_users: Literal["train", "drop", "error"] | None = None,
             min_rows: int | None = None, cold_users: Policy = "keep",
             cold_items: Policy = "keep", columns: Columns | dict[str, str] | None = None
             ) -> Split:
    """Hold out the latest rows: a share of all rows, those from a time on, or each user's.

    Give exactly one of ``test_size`` and ``at``.

    - ``test_size=f``: the cut time is the time of the ``floor(f n + 1/2)``-th latest row
      (of each user's ``n_u`` rows with ``per_user=True``), and the rows later than it are
      in test.
    - ``at=t``: the rows with timestamp ``>= t`` are in test (``t`` is a date string or a
      datetime for a datetime column, a number in the column's unit for an epoch column).

    A global cut (either way) that leaves the test or the training part empty is an
    :class:`~receval.exceptions.EmptyInputError`: ``at=`` after the latest time as much as
    a ``test_size`` that rounds to no row.

    **Ties.** Every test timestamp is >= every training timestamp (per user with
    ``per_user=True``). When the cut time is shared by rows on both sides of the target
    count, ``ties`` decides: ``"test"`` (default) puts the whole block of equal timestamps in
    test, exactly as ``at=cut`` would (so test may have more than ``ceil(f n)`` rows);
    ``"train"`` puts it in train (test may have fewer than ``floor(f n)``); ``"row_order"``
    keeps the count exact and orders equal times by input position (a later row counts as
    later). The report counts the cuts that fell inside a block (``ties_at_cut``).

    Parameters
    ----------
    data : table
        Interactions with user, item and timestamp columns.
    test_size : float, optional
        Share of rows in test, strictly between 0 and 1.
    at : str, datetime or number, optional
        The time from which rows are in test.
    per_user : bool
        Cut each user's rows at that user's own ``test_size`` share (not with ``at``).
    ties : {"test", "train", "row_order"}
        Where a block of equal timestamps at the cut goes.
    small_users, min_rows
        ``per_user`` only, as for :func:`receval.split.random`.
    cold_users, cold_items : {"keep", "drop", "error"}
        Test rows whose user (item) has no training row.
    columns : Columns or dict, optional
        Column names by role; the timestamp column is found among ``timestamp``, ``time``,
        ``ts``, ``datetime`` and ``date`` unless named.

    Returns
    -------
    Split

    Examples
    --------
    >>> import pandas as pd, receval as rv
    >>> log = pd.DataFrame({"user_id": [1, 1, 2, 2, 2], "item_id": list("abcab"),
    ...                     "timestamp": [1, 5, 2, 3, 4]})
    >>> s = rv.split.temporal(log, test_size=0.4)   # the 2 latest rows: times 4 and 5
    >>> s.test["timestamp"].tolist()
    [5, 4]
    """
    tie = _check_common(ties, cold_users, cold_items)
    if (test_size is None) == (at is None):
        raise InvalidParameterError(
            "temporal split: give exactly one of test_size= (the latest share) and at= (a "
            f"time); got test_size={test_size!r}, at={at!r}", parameter="test_size")
    f = None if test_size is None else check_test_size(test_size)
    if at is not None and per_user:
        raise InvalidParameterError(
            "at= cuts every user at the same time, so per_user=True has no meaning with it",
            parameter="per_user", examples=[per_user])
    plan = plan_of(per_user, small_users, min_rows, "temporal", test_size=f, ties=tie)
    cold: dict[str, Any] = {"cold_users": cold_users, "cold_items": cold_items}
    if is_spark_frame(data):
        from receval.split._spark import per_user_spark, temporal_spark

        return per_user_spark(data, plan, columns=columns, **cold) if plan is not None \
            else temporal_spark(data, f, at, tie, columns=columns, **cold)
    inp = read_input(data, columns, need_time="a temporal split")
    assert inp.ts is not None
    if plan is not None:
        return finish_per_user(inp, plan, method="temporal", **cold)
    settings: dict[str, Any] = {"test_size": f, "at": at, "per_user": per_user, "ties": tie}
    if at is not None:
        tcol = inp.columns["timestamp"]
        assert inp.ts_series is not None
        assert tcol is not None
        point = time_point(at, inp.ts_series, tcol, inp.ts)
        del settings["ties"]
        test = inp.ts >= point
        if not test.any() or test.all():
            raise global_at_error(at, "test" if not test.any() else "train",
                                  inp.time_label(inp.ts.min()), inp.time_label(inp.ts.max()),
                                  tcol)
        return finish(inp, test, method="temporal", settings=settings,
                      cold_users=cold_users, cold_items=cold_items,
                      cut_time=inp.time_label(point))
    assert f is not None
    test, extra = _global_latest(inp, f, tie)
    return finish(inp, test, method="temporal", settings=settings, cold_users=cold_users,
                  cold_items=cold_items, **extra)


def leave_k_out(data: Any, k: int = 1, *, order: Literal["latest", "random"] = "latest",
                seed: int = 0, ties: Ties = "test",
                small_users: Literal["train", "drop", "error"] | None = None,
                min_rows: int | None = None, cold_users: Policy = "keep",
                cold_items: Policy = "keep", columns: Columns | dict[str, str] | None = None
                ) -> Split:
    """Hold out ``k`` rows of every user: the latest ones, or ``k`` at random.

    Leave-one-out is ``k=1``. Users with ``k`` rows or fewer cannot give ``k`` test rows and
    keep a training row: by default (``small_users="train"``) they keep all their rows in
    train, and the report counts them (``small_users``, ``small_user_rows``).

    With ``order="latest"`` the tie rule of :func:`temporal` applies per user: under the
    default ``ties="test"`` a user whose ``k``-th latest row shares its timestamp with
    earlier rows has all of them in test (more than ``k`` rows); ``ties="row_order"`` keeps
    exactly ``k`` (equal times ordered by input position).

    Parameters
    ----------
    data : table
        Interactions with user and item columns (and a timestamp for ``order="latest"``).
    k : int
        Test rows per user, >= 1.
    order : {"latest", "random"}
        Which rows are held out.
    seed : int
        The seed of ``order="random"`` (default 0; recorded, unused for ``"latest"``).
    ties : {"test", "train", "row_order"}
        ``order="latest"``: where a block of equal timestamps at a user's cut goes.
    small_users : {"train", "drop", "error"}, optional
        Users with ``k`` rows or fewer (or fewer than ``min_rows``); default ``"train"``.
    min_rows : int, optional
        Users with fewer rows are too small as well.
    cold_users, cold_items : {"keep", "drop", "error"}
        Test rows whose user (item) has no training row.
    columns : Columns or dict, optional
        Column names by role.

    Returns
    -------
    Split

    Examples
    --------
    >>> import pandas as pd, receval as rv
    >>> log = pd.DataFrame({"user_id": [1, 1, 2, 2, 2], "item_id": list("abcab"),
    ...                     "timestamp": [1, 5, 2, 3, 4]})
    >>> rv.split.leave_k_out(log, k=1).test["item_id"].tolist()
    ['b', 'b']
    """
    tie = _check_common(ties, cold_users, cold_items)
    k = check_count("k", k, 1, ">= 1 (the test rows held out per user)")
    how = check_choice("order", order, ("latest", "random"))
    seed = check_seed(seed)
    plan = plan_of(True, small_users, min_rows, "leave_k_out", k=k, order=how, seed=seed,
                   ties=tie)
    assert plan is not None
    if is_spark_frame(data):
        from receval.split._spark import per_user_spark

        return per_user_spark(data, plan, columns=columns, cold_users=cold_users,
                              cold_items=cold_items)
    inp = read_input(data, columns,
                     need_time="leave_k_out(order='latest')" if how == "latest" else None)
    return finish_per_user(inp, plan, method="leave_k_out", cold_users=cold_users,
                           cold_items=cold_items)
