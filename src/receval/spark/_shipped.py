"""The columns shipped from Spark to the Python workers: both tables in one narrow schema.

The two tagged tables are unioned, so they need one schema. Giving each table its own
columns would ship a null for every column of the other table in every row. Instead a
column of recs and a column of truth of the **same Spark type** share one shipped column
(*slot*): user with user, item with item, the score (or else the rank) with the rating. A
column without a partner of its type gets a slot of its own (null in the other table's rows),
so every column reaches the worker with its own type, unchanged. Beside the slots: the row's
number in Spark's read order (``SEQ``), complemented for truth (``-1 - number``, negative):
one column tells both the order and the table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["SEQ", "SLOT", "Shipped", "shipped_columns", "tagged"]

#: The column of each shipped row's number in read order (truth rows: complemented).
SEQ = "__receval_seq"
SLOT = "__receval_c"

#: Roles of a truth column, and the recs roles that may share its slot (first match wins).
_PARTNERS = {"user": ("user",), "item": ("item",), "rating": ("score", "rank")}


@dataclass(frozen=True)
class Shipped:
    """Where each input column travels.

    Attributes
    ----------
    slots : tuple of str
        The shipped data columns, in order.
    types : tuple of pyspark.sql.types.DataType
        Their Spark types (the input columns' own).
    recs, truth : tuple of (str, str)
        For each column of the table, in the order of its roles: (slot, column name).
    """

    slots: tuple[str, ...]
    types: tuple[Any, ...]
    recs: tuple[tuple[str, str], ...]
    truth: tuple[tuple[str, str], ...]

    def side(self, side: int) -> tuple[tuple[str, str], ...]:
        """The (slot, column) pairs of recs (``side=0``) or truth (``side=1``)."""
        return self.recs if side == 0 else self.truth


def shipped_columns(recs: Any, truth: Any, recs_cols: dict[str, str],
                    truth_cols: dict[str, str]) -> Shipped:
    """Pair the columns of recs and truth that have the same Spark type (no job)."""
    recs_types = {role: recs.schema[c].dataType for role, c in recs_cols.items()}
    truth_types = {role: truth.schema[c].dataType for role, c in truth_cols.items()}
    slot_of: dict[str, str] = {}
    shared: dict[str, str] = {}  # truth role -> slot
    for role in truth_cols:
        for partner in _PARTNERS[role]:
            if partner in recs_cols and partner not in slot_of \
                    and recs_types[partner] == truth_types[role]:
                slot_of[partner] = shared[role] = f"{SLOT}{len(slot_of)}"
                break
    slots = list(slot_of.values())
    types = [recs_types[role] for role in slot_of]
    for role in recs_cols:
        if role not in slot_of:
            slot_of[role] = f"{SLOT}{len(slots)}"
            slots.append(slot_of[role])
            types.append(recs_types[role])
    for role in truth_cols:
        if role not in shared:
            shared[role] = f"{SLOT}{len(slots)}"
            slots.append(shared[role])
            types.append(truth_types[role])
    return Shipped(tuple(slots), tuple(types),
                   tuple((slot_of[role], c) for role, c in recs_cols.items()),
                   tuple((shared[role], c) for role, c in truth_cols.items()))


def tagged(frame: Any, shipped: Shipped, side: int) -> Any:
    """One table as shipped.

    Its slots (null where they belong to the other table) and its rows numbered in Spark's
    read order, before any shuffle (``monotonically_increasing_id``, never negative), as
    they are for recs (``side=0``) and complemented for truth.
    """
    from pyspark.sql import functions as F

    own = {slot: column for slot, column in shipped.side(side)}
    selected = [F.col(f"`{own[slot]}`").alias(slot) if slot in own
                else F.lit(None).cast(dtype).alias(slot)
                for slot, dtype in zip(shipped.slots, shipped.types, strict=True)]
    number = F.monotonically_increasing_id()
    return frame.select(*selected, (number if side == 0 else F.bitwise_not(number)).alias(SEQ))
