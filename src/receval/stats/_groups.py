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

from receval._by_group import as_groups, by_group
from receval._columns import Columns
from receval.data import truth_table
from receval.data._adapters import to_frame
from receval.exceptions import InvalidParameterError

__all__ = ["activity_groups", "by_group", "by_item_group", "popularity_groups"]


def activity_groups(train: Any, bins: int = 4, *, columns: Columns | dict[str, str] | None
                    = None) -> pd.Series:
    """Users by activity: quantile bins of their number of rows in ``train``.

    Parameters
    ----------
    train : table
        Interactions (any table receval reads), one row per (user, item).
    bins : int
        Number of quantile bins (``pandas.qcut``; bins with equal edges are merged).
    columns : Columns or dict, optional

    Returns
    -------
    pandas.Series
        User id -> a label ``'<low>-<high>'`` of the counts in the user's bin. Users absent
        from ``train`` are not in it.
    """
    if isinstance(bins, bool) or not isinstance(bins, int) or bins < 1:
        raise InvalidParameterError(f"bins must be an integer >= 1; got {bins!r}",
                                    parameter="bins", examples=[bins])
    table = truth_table(train, Columns.coerce(columns))
    counts = table.user.value_counts()
    cut = pd.qcut(counts, q=bins, duplicates="drop")
    edges = [(int(np.floor(i.left)) + 1, int(np.floor(i.right))) for i in cut.cat.categories]
    edges[0] = (int(counts.min()), edges[0][1])
    names = [f"{lo}-{hi}" if lo != hi else f"{lo}" for lo, hi in edges]
    labels = pd.Categorical.from_codes(cut.cat.codes.to_numpy(), categories=pd.Index(names),
                                       ordered=True)
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
    """
    if isinstance(head, bool) or not isinstance(head, (int, float)) or not 0 < head < 1:
        raise InvalidParameterError(f"head must be a share strictly between 0 and 1; got "
                                    f"{head!r}", parameter="head", examples=[head])
    table = truth_table(train, Columns.coerce(columns))
    counts = table.item.value_counts(sort=False)
    order = np.argsort(-counts.to_numpy(), kind="stable")
    n_head = int(np.ceil(head * len(counts)))
    labels = np.full(len(counts), "tail", dtype=object)
    labels[order[:n_head]] = "head"
    return pd.Series(labels, index=counts.index.rename("item"), name="popularity")


def by_item_group(recs: Any, truth: Any, metrics: Any, groups: Any,
                  **evaluate_options: Any) -> pd.DataFrame:
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
        Item id -> group (e.g. :func:`popularity_groups`). Truth items without a group are
        left out of every group (their number is in the column ``n_truth_rows``).

    Returns
    -------
    pandas.DataFrame
        Index: the groups; columns: ``n_users`` (users evaluated), ``n_truth_rows`` and one
        column per metric label.
    """
    from receval._evaluate import evaluate

    series = as_groups(groups)
    frame = to_frame(truth, "truth")
    table = truth_table(frame, Columns.coerce(evaluate_options.get("columns")))
    item_group = series.reindex(table.item.to_numpy()).to_numpy()
    rows = {}
    for g in pd.unique(series.to_numpy()):
        keep = np.flatnonzero(item_group == g)
        if len(keep) == 0:
            continue
        ev = evaluate(recs, frame.iloc[keep], metrics, **evaluate_options)
        rows[g] = {"n_users": ev.users.n_evaluated, "n_truth_rows": len(keep), **ev.to_dict()}
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "group"
    return out
