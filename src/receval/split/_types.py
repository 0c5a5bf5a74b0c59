"""What a splitter returns: the :class:`Split` (parts of the input) and its :class:`SplitReport`."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from receval.data._rows import RowSource

__all__ = ["PARTS", "Split", "SplitReport"]

#: The parts of a split, in the order the report lists them.
PARTS = ("train", "test", "dropped")


@dataclass(frozen=True)
class SplitReport:
    """What a split did, in numbers: sizes, cold starts, leakage, and every setting used.

    Attributes
    ----------
    method : str
        The splitter: ``"random"``, ``"temporal"``, ``"leave_k_out"``, ``"kfold"`` or
        ``"rolling"``.
    settings : dict
        Every parameter that decided the split (shares, seed, ``per_user``, tie rule,
        policies, the columns used, the fold of a k-fold split).
    rows, users, items : dict of str to int
        Rows, distinct users and distinct items of the ``input`` and of each part
        (``train``, ``test``, ``dropped``).
    target_test_rows : int or None
        For shares over all rows, the test rows the share asks for,
        ``floor(test_size * n + 1/2)``, before the tie rule and the policies.
    ties_at_cut : int
        Cuts in time that fell inside a block of equal timestamps: 0 or 1 for a global cut,
        the number of users for a per-user cut. The ``ties`` setting says where such a
        block went.
    cut_time : object or None
        The time of a global temporal cut: test rows are those at or after it (``ties=
        "test"``), or after it (``ties="train"``); a rolling window's origin.
    small_users, small_user_rows : int
        Users with too few rows to split (and their rows), handled by the ``small_users``
        policy that ``settings`` records.
    cold_users, cold_user_rows : int
        Users of the test part (as the splitter made it, before the cold policies) that have
        no training row, and their test rows.
    cold_items, cold_item_rows : int
        The same for items.
    dropped_by : dict of str to int
        Rows put in the ``dropped`` part, by the policy that dropped them
        (``small_users``, ``cold_users``, ``cold_items``; a row both cold user and cold item
        counts under ``cold_users``), and for a rolling window the rows outside it
        (``before_window``, ``after_test``).
    leakage_rows : int or None
        Training rows later than the earliest test row (None without a timestamp column).
    leakage_share : float or None
        Share of test rows that some training row follows in time, i.e. test rows earlier
        than the latest training row (None without a timestamp column or test rows).
    user_leakage_rows : int or None
        Training rows later than the earliest test row *of the same user*: the user's own
        future in train (None without a timestamp column). A per-user temporal split
        (``temporal(per_user=True)``, ``leave_k_out(order="latest")``) has 0 by
        construction, while its global ``leakage_rows`` counts the other users' later rows.
    repeated_test_rows : int
        Test rows whose (user, item) pair also occurs in train: repeats of a training
        interaction, which a recommender that excludes seen items can never rank.
    """

    method: str
    settings: dict[str, Any]
    rows: dict[str, int]
    users: dict[str, int]
    items: dict[str, int]
    target_test_rows: int | None = None
    ties_at_cut: int = 0
    cut_time: Any = None
    small_users: int = 0
    small_user_rows: int = 0
    cold_users: int = 0
    cold_user_rows: int = 0
    cold_items: int = 0
    cold_item_rows: int = 0
    dropped_by: dict[str, int] = field(default_factory=dict)
    leakage_rows: int | None = None
    leakage_share: float | None = None
    repeated_test_rows: int = 0
    user_leakage_rows: int | None = None

    def summary(self) -> pd.DataFrame:
        """Rows, users and items of the input and of each part, and each part's row share.

        Returns
        -------
        pandas.DataFrame
            Index ``input, train, test, dropped``; columns ``rows, users, items, share``.
        """
        index = ["input", *PARTS]
        frame = pd.DataFrame({"rows": [self.rows[p] for p in index],
                              "users": [self.users[p] for p in index],
                              "items": [self.items[p] for p in index]}, index=index)
        total = max(self.rows["input"], 1)
        frame["share"] = frame["rows"] / total
        return frame

    def to_dict(self) -> dict[str, Any]:
        """Every field, as plain Python values (JSON-ready except ``cut_time``)."""
        return dataclasses.asdict(self)

    def lines(self) -> list[str]:
        """The report as lines of text (what ``str()`` and the CLI print)."""
        s = self.settings
        shown = ", ".join(f"{k}={v!r}" for k, v in s.items() if k != "columns")
        out = [f"{self.method} split ({shown})"]
        for part in ("input", *PARTS):
            if part == "dropped" and not self.rows["dropped"]:
                continue
            share = self.rows[part] / max(self.rows["input"], 1)
            out.append(f"  {part:<8} {self.rows[part]:>12,} rows ({share:7.2%})  "
                       f"{self.users[part]:>10,} users  {self.items[part]:>10,} items")
        if self.target_test_rows is not None:
            out.append(f"  test rows asked for: {self.target_test_rows:,}")
        if self.cut_time is not None:
            out.append(f"  cut time: {self.cut_time}")
        if self.ties_at_cut:
            out.append(f"  cuts inside a block of equal timestamps: {self.ties_at_cut:,} "
                       f"(blocks go to {s.get('ties')})")
        if self.small_users:
            out.append(f"  users too small to split: {self.small_users:,} "
                       f"({self.small_user_rows:,} rows; policy {s.get('small_users')!r})")
        out.append(f"  cold test users: {self.cold_users:,} ({self.cold_user_rows:,} rows; "
                   f"policy {s.get('cold_users')!r}); cold test items: {self.cold_items:,} "
                   f"({self.cold_item_rows:,} rows; policy {s.get('cold_items')!r})")
        if any(self.dropped_by.values()):
            out.append("  dropped: " + ", ".join(f"{v:,} rows ({k})"
                                                 for k, v in self.dropped_by.items() if v))
        if self.repeated_test_rows:
            out.append(f"  test rows repeating a training (user, item) pair: "
                       f"{self.repeated_test_rows:,}")
        if self.leakage_rows is None:
            out.append("  leakage: not measured (no timestamp column)")
        else:
            pct = "n/a" if self.leakage_share is None else f"{self.leakage_share:.2%}"
            out.append(f"  leakage, global: {self.leakage_rows:,} training rows later than "
                       f"the earliest test row; {pct} of test rows precede some training row")
        if self.user_leakage_rows is not None:
            out.append(f"  leakage, per user: {self.user_leakage_rows:,} training rows later "
                       f"than their own user's earliest test row")
            out.append("  (global: train holds interactions from after the test period began,"
                       " other users' included; per user: train holds a user's own later "
                       "interactions)")
        return out

    def __str__(self) -> str:
        return "\n".join(self.lines())


class Split:
    """The parts of one split of a table; unpacks as ``train, test``.

    ``train``, ``test`` and ``dropped`` are tables of the input's type (pandas, polars or
    pyarrow; other inputs give pandas) with every input column, its dtype, and the rows
    unchanged in input order (pandas parts keep the input's index labels). Every input row is
    in exactly one part. ``dropped`` holds the rows a ``"drop"`` policy removed (empty unless
    one did). The parts are taken from the input when first read.

    A split of a Spark DataFrame (:class:`receval.split._spark._report.SparkSplit`) has lazy
    Spark DataFrames as parts, and no row positions.

    Attributes
    ----------
    report : SplitReport
        Sizes, cold starts, leakage and settings.
    train_rows, test_rows, dropped_rows : ndarray of int64
        Positions (0-based) of each part's rows in the input, increasing.
    """

    #: The frame type of the parts: ``"pandas"``, ``"polars"``, ``"pyarrow"`` (or ``"spark"``).
    kind: str

    def __init__(self, source: RowSource, part: np.ndarray, report: SplitReport) -> None:
        self._source = source
        self.kind = source.kind
        self._rows = tuple(np.flatnonzero(part == code) for code in range(3))
        self.report = report

    @property
    def train_rows(self) -> np.ndarray:
        """Positions of the training rows in the input, increasing."""
        return self._rows[0]

    @property
    def test_rows(self) -> np.ndarray:
        """Positions of the test rows in the input, increasing."""
        return self._rows[1]

    @property
    def dropped_rows(self) -> np.ndarray:
        """Positions of the dropped rows in the input, increasing."""
        return self._rows[2]

    @cached_property
    def train(self) -> Any:
        """The training rows."""
        return self._source.take(self.train_rows)

    @cached_property
    def test(self) -> Any:
        """The test rows."""
        return self._source.take(self.test_rows)

    @cached_property
    def dropped(self) -> Any:
        """The rows a ``"drop"`` policy removed (often empty)."""
        return self._source.take(self.dropped_rows)

    def __iter__(self) -> Iterator[Any]:
        return iter((self.train, self.test))

    def __repr__(self) -> str:
        r = self.report
        fold = r.settings.get("fold")
        what = f"{r.method}" + (f", fold {fold} of {r.settings['n_splits']}"
                                if fold is not None else "")
        dropped = f", dropped={r.rows['dropped']}" if r.rows["dropped"] else ""
        return (f"Split({what}: train={r.rows['train']} rows, test={r.rows['test']} rows"
                f"{dropped}, {self.kind})")
