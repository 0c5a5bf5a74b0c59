"""What runs inside Spark's Python workers for a per-user split: whole users, split in memory.

A partition holds whole users (its rows were shuffled by a bucket of the user id). Its rows
are put back in the order Spark read them (``__receval_seq``), and the in-memory per-user core
(:func:`receval.split._per_user.per_user_test`) marks each user's test rows, exactly as it
does for the whole table: a user's rows depend only on the user's own rows and the seed. Each
row leaves with every input column and its code (:data:`CODE`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from receval.split._per_user import PerUserPlan, per_user_test
from receval.split._prepare import read_input

__all__ = ["CODE", "DROP_COLD_ITEM", "DROP_COLD_USER", "DROP_SMALL", "TEST", "TIED", "TRAIN",
           "TRAIN_SMALL", "split_batches"]

#: The column holding each row's code: its state (the low three bits) and :data:`TIED`.
CODE = "__receval_part"
#: States: in train, in test, dropped as a small user, dropped as a cold test user, dropped
#: as a cold test item, and in train as a small user (``small_users="train"`` or ``"error"``).
TRAIN, TEST, DROP_SMALL, DROP_COLD_USER, DROP_COLD_ITEM, TRAIN_SMALL = 0, 1, 2, 3, 4, 5
#: Set on the first row of each user whose cut fell inside a block of equal times.
TIED = 8


def user_codes(inp: Any, plan: PerUserPlan, drop_cold_users: bool) -> np.ndarray:
    """Each row's code for the per-user split of ``inp`` (a :class:`SplitInput`)."""
    test, small, tied = per_user_test(inp, plan)
    code = test.astype(np.int8)
    code[small[inp.user]] = DROP_SMALL if plan.small_users == "drop" else TRAIN_SMALL
    if drop_cold_users:
        n_users = len(inp.user_ids)
        in_test = np.bincount(inp.user[code == TEST], minlength=n_users)
        in_train = np.bincount(inp.user[(code == TRAIN) | (code == TRAIN_SMALL)],
                               minlength=n_users)
        cold = (in_test > 0) & (in_train == 0)
        code[(code == TEST) & cold[inp.user]] = DROP_COLD_USER
    if tied is not None and tied.any():
        order, bounds = inp.groups
        code[order[bounds[:-1][tied]]] |= TIED
    return code


def split_batches(batches: Iterable[Any], plan: PerUserPlan, roles: dict[str, str | None],
                  names: list[str], seq: str, drop_cold_users: bool) -> Iterator[Any]:
    """``mapInArrow`` function: the rows of one partition with their codes.

    Parameters
    ----------
    batches : iterable of pyarrow.RecordBatch
        The partition: every input column, and ``seq`` (the order Spark read the rows in).
    plan : PerUserPlan
        The split.
    roles : dict
        The user, item and timestamp columns.
    names : list of str
        The input's columns, in order (the output's, with :data:`CODE` last).
    seq : str
        The column of read order.
    drop_cold_users : bool
        Whether ``cold_users="drop"`` (a user's coldness is known inside its partition).
    """
    import pyarrow as pa

    rows = [batch for batch in batches if batch.num_rows]
    if not rows:
        return
    table = pa.Table.from_batches(rows).sort_by([(seq, "ascending")])
    keys = {role: column for role, column in roles.items() if column is not None
            and (role != "timestamp" or plan.order == "latest")}
    used = list(dict.fromkeys(keys.values()))
    inp = read_input(table.select(used), keys, need_time=None)
    code = user_codes(inp, plan, drop_cold_users)
    out = table.select(names).append_column(CODE, pa.array(code, type=pa.int8()))
    yield from out.to_batches(max_chunksize=65_536)
