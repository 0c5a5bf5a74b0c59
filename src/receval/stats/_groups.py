"""Metrics per group of users (``ev.by(groups)``), and the common groupings.

* :func:`by_group`: every metric of a result per user group. Macro metrics are the mean of
  the group's per-user values (users where a metric is undefined left out, as in the
  overall mean); micro metrics are recomputed from the group's per-user numerators and
  denominators (``f(sum num / sum den)``), never averaged from per-user values.
* :func:`activity_groups`: users by their number of interactions in a training set, in
  quantile bins.
* :func:`popularity_groups`: items as head (the most interacted-with share of items in a
  training set) or tail.
* :func:`by_item_group`: the per-item view: each metric with the truth restricted to the
  items of one group (e.g. recall@10 on tail items = the share of each user's relevant tail
  items found in the top 10), by :func:`receval.evaluate`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from receval._by_group import as_groups, by_group, check_group_ids, group_order
from receval._columns import Columns
from receval.data import truth_table
from receval.data._adapters import to_frame
from receval.exceptions import (
    DataError,
    EmptyInputError,
    InvalidParameterError,
    format_examples,
)

__all__ = ["activity_groups", "by_group", "by_item_group", "check_group_ids", "group_order",
           "popularity_groups"]

UNGROUPED = ("error", "skip")


def _train(train: Any, columns: Columns | dict[str, str] | None, groups: str) -> Any:
    """The training table, refused when empty: there is nothing to count."""
    table = truth_table(train, Columns.coerce(columns))
    if len(table) == 0:
        raise EmptyInputError(f"train is empty: {groups} count its rows; give the training "
                              f"interactions", parameter="train")
    return table


def activity_groups(train: Any, bins: int = 4, *, columns: Columns | dict[str, str] | None
                    = None) -> pd.Series:
    """Users by activity: quantile bins of their number of rows in ``train``.

    Parameters
    ----------
    train : table
        Interactions (any table receval reads), one row per (user, item).
    bins : int
        Number of quantile bins (``pandas.qcut``; bins with equal edges are merged, so
        there may be fewer). When every user has the same number of rows there is one
        group, labelled by that number.
    columns : Columns or dict, optional

    Returns
    -------
    pandas.Series
        User id -> a label ``'<low>-<high>'`` (or ``'<n>'``) of the smallest and largest
        count in the user's bin, an ordered categorical from the least to the most active
        bin (``ev.by`` keeps that order). Users absent from ``train`` are not in it.

    Raises
    ------
    InvalidParameterError
        ``bins`` not an integer >= 1.
    EmptyInputError
        ``train`` has no row (``parameter='train'``).
    """
    if isinstance(bins, bool) or not isinstance(bins, int) or bins < 1:
        raise InvalidParameterError(f"bins must be an integer >= 1; got {bins!r}",
                                    parameter="bins", examples=[bins])
    table = _train(train, columns, "activity groups")
    counts = table.user.value_counts()
    if counts.nunique() == 1:  # quantiles of equal counts have one edge: one bin
        codes = np.zeros(len(counts), dtype=np.int64)
    else:
        codes = pd.qcut(counts, q=bins, duplicates="drop").cat.codes.to_numpy()
    # a label per bin from the counts it holds; bins left empty by the merge are dropped
    used, codes = np.unique(codes, return_inverse=True)
    values = counts.to_numpy()
    low = np.full(len(used), np.iinfo(np.int64).max)
    high = np.zeros(len(used), dtype=np.int64)
    np.minimum.at(low, codes, values)
    np.maximum.at(high, codes, values)
    names = [f"{lo}-{hi}" if lo != hi else f"{lo}" for lo, hi in zip(low, high, strict=True)]
    labels = pd.Categorical.from_codes(codes, categories=pd.Index(names), ordered=True)
    return pd.Series(labels, index=counts.index.rename("user"), name="activity")


def popularity_groups(train: Any, head: float = 0.2, *,
                      columns: Columns | dict[str, str] | None = None) -> pd.Series:
    """Items as ``'head'`` or ``'tail'`` by their popularity in ``train``.

    The head is the ``head`` share of items with most rows in ``train``; the tail the others.

    Items are sorted by their number of rows, most first, ties by first appearance;
    the first ``ceil(head * n_items)`` are the head.

    Returns
    -------
    pandas.Series
        Item id -> ``'head'`` or ``'tail'``. Items absent from ``train`` are not in it.

    Raises
    ------
    InvalidParameterError
        ``head`` not strictly between 0 and 1.
    EmptyInputError
        ``train`` has no row (``parameter='train'``).
    """
    if isinstance(head, bool) or not isinstance(head, (int, float)) or not 0 < head < 1:
        raise InvalidParameterError(f"head must be a share strictly between 0 and 1; got "
                                    f"{head!r}", parameter="head", examples=[head])
    table = _train(train, columns, "popularity groups")
    counts = table.item.value_counts(sort=False)
    order = np.argsort(-counts.to_numpy(), kind="stable")
    n_head = int(np.ceil(head * len(counts)))
    labels = np.full(len(counts), "tail", dtype=object)
    labels[order[:n_head]] = "head"
    return pd.Series(labels, index=counts.index.rename("item"), name="popularity")


def by_item_group(recs: Any, truth: Any, metrics: Any, groups: Any, *,
                  ungrouped: str = "error", **evaluate_options: Any) -> pd.DataFrame:
    """The per-item view: each metric with the truth restricted to one item group.

    For each group, :func:`receval.evaluate` runs on the full recommendation lists and the
    truth rows of the group's items only: recall@k is then the share of each user's
    relevant items of the group that are in the top k, precision@k the share of the top k
    that are relevant items of the group. Users without a relevant item of the group are
    handled by ``no_relevant`` (skipped by default, and counted in ``n_users``' absence).

    Parameters
    ----------
    recs, truth, metrics
        As in :func:`receval.evaluate`.
    groups : mapping or pandas.Series
        Item id -> group (e.g. :func:`popularity_groups`), ids of the truth's item id type
        (no cast). The column ``n_truth_rows`` counts each group's rows. A group without a
        truth row is shown with ``n_users = 0`` and NaN metrics.
    ungrouped : {"error", "skip"}
        A truth item without a group (absent from ``groups``, or with a missing group), as
        ``ungrouped=`` of the group metrics: an error naming the items (default), or left
        out of every group, its rows counted in ``out.attrs["ungrouped_truth_rows"]`` (and
        its items in ``out.attrs["ungrouped_items"]``; both 0 when every item has a group).
        Items absent from ``train`` have no :func:`popularity_groups` group.
    **evaluate_options
        Passed to :func:`receval.evaluate`.

    Returns
    -------
    pandas.DataFrame
        Index: the groups (ordered as in :func:`by_group`); columns: ``n_users`` (users
        evaluated), ``n_truth_rows`` and one column per metric label; ``attrs`` as above.

    Raises
    ------
    InvalidParameterError
        ``ungrouped`` other than ``'error'`` or ``'skip'``.
    IdTypeMismatchError
        Group keys of another type than the truth's item ids (``parameter='groups'``).
    EmptyInputError
        No truth item has a group.
    DataError
        Under ``ungrouped='error'``, truth items without a group (``parameter='groups'``).
    """
    from receval._evaluate import evaluate

    if not isinstance(ungrouped, str) or ungrouped not in UNGROUPED:
        raise InvalidParameterError(
            f"ungrouped must be one of {', '.join(map(repr, UNGROUPED))}; got {ungrouped!r}",
            parameter="ungrouped", examples=[ungrouped])
    series = as_groups(groups)
    frame = to_frame(truth, "truth")
    table = truth_table(frame, Columns.coerce(evaluate_options.get("columns")))
    check_group_ids(series, table.item, "item", "truth")
    item_group = series.reindex(table.item.to_numpy()).to_numpy(dtype=object)
    if pd.isna(item_group).all():
        ex = list(pd.unique(table.item)[:5])
        raise EmptyInputError(
            f"groups gives no truth item a group (truth items e.g. "
            f"{format_examples(ex, table.item.nunique())}; groups has "
            f"{format_examples(list(series.index[:5]), len(series))}): every group would "
            f"be empty", parameter="groups", n_bad=table.item.nunique(), examples=ex)
    lacking = pd.isna(item_group)
    items: Any = pd.unique(table.item[lacking]) if lacking.any() else []
    if len(items) and ungrouped == "error":
        ex = list(items[:5])
        raise DataError(
            f"{len(items)} truth items ({int(lacking.sum())} truth rows) have no group in "
            f"groups (absent, or a missing group), e.g. {format_examples(ex, len(items))}; "
            f"give them a group (e.g. 'other'), or pass ungrouped='skip' to leave them out "
            f"of every group", parameter="groups", n_bad=len(items), examples=ex)
    rows: dict[Any, dict[str, float]] = {}
    for g in group_order(series, series.dropna().to_numpy(dtype=object)):
        keep = np.flatnonzero(item_group == g)
        if len(keep) == 0:  # a group without truth rows: shown, with nothing to evaluate
            rows[g] = {"n_users": 0, "n_truth_rows": 0}
            continue
        ev = evaluate(recs, frame.iloc[keep], metrics, **evaluate_options)
        rows[g] = {"n_users": ev.users.n_evaluated, "n_truth_rows": len(keep), **ev.to_dict()}
    out = pd.DataFrame.from_dict(rows, orient="index")
    out["n_users"] = out["n_users"].astype(np.int64)
    out["n_truth_rows"] = out["n_truth_rows"].astype(np.int64)
    out.index.name = "group"
    out.attrs["ungrouped_truth_rows"] = int(lacking.sum())
    out.attrs["ungrouped_items"] = len(items)
    return out
