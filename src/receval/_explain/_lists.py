"""``explain`` for the per-list metrics: one list of items, its value and worked table.

The value comes from :func:`receval.evaluate` on a one-user table (one implementation); the
table shows the terms it sums: the self-information or popularity of each item, or the
pairwise dissimilarities of a list. Side inputs are read by the same readers as in
``evaluate`` (:mod:`receval.data._side`), so every form ``evaluate`` takes works here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from receval._columns import Columns
from receval._explain._table import ListExplanation
from receval.data._side import read_features, train_ids
from receval.exceptions import InvalidParameterError, format_examples
from receval.metrics import Diversity, Metric, Novelty, Popularity

__all__ = ["explain_list"]


def _similarity(m: Diversity, a: np.ndarray, b: np.ndarray) -> float:
    if m.similarity == "cosine":
        na, nb = np.linalg.norm(a), np.linalg.norm(b)
        return float(a @ b / (na * nb)) if na > 0 and nb > 0 else 0.0
    if m.similarity == "jaccard":
        fa, fb = a != 0, b != 0
        return float((fa & fb).sum() / (fa | fb).sum()) if (fa | fb).any() else 0.0
    return float(np.linalg.norm(a - b))


def _pairs(m: Diversity, items: list[Any], item_features: Any, train: Any) -> pd.DataFrame:
    """Every pair of the list with its similarity and dissimilarity."""
    if m.similarity == "cooccurrence":
        users, ids = train_ids(train, Columns())
        sets = pd.Series(users.to_numpy()).groupby(ids.to_numpy()).apply(set).to_dict()
    else:
        feats = read_features(item_features, Columns())
        row = dict(zip(feats.items, range(len(feats.items)), strict=True))
    rows = []
    for x in range(len(items)):
        for y in range(x + 1, len(items)):
            a, b = items[x], items[y]
            if m.similarity == "cooccurrence":
                sa, sb = sets.get(a, set()), sets.get(b, set())
                s = len(sa & sb) / math.sqrt(len(sa) * len(sb)) if sa and sb else 0.0
            else:
                s = _similarity(m, feats.matrix[row[a]], feats.matrix[row[b]])
            d = s if m.similarity == "euclidean" else 1.0 - s
            rows.append({"i": a, "j": b, "similarity": s, "dissimilarity": d})
    return pd.DataFrame(rows, columns=["i", "j", "similarity", "dissimilarity"])


def _per_item(m: Novelty | Popularity, items: list[Any], train: Any) -> pd.DataFrame:
    """Each item's training popularity and its term."""
    users, ids = train_ids(train, Columns())
    frame = pd.DataFrame({"user": users.to_numpy(), "item": ids.to_numpy()})
    by_users = m.popularity == "users"
    counts = (frame.drop_duplicates().groupby("item")["user"].nunique() if by_users
              else frame.groupby("item").size())
    total = frame["user"].nunique() if by_users else len(frame)
    rows = []
    for i in items:
        c = float(counts.get(i, 0))
        if isinstance(m, Novelty):
            p = (c if c > 0 else 1.0) / total
            term = 0.0 if (c == 0 and m.absent == "zero") else -math.log(p, m.base)
            rows.append({"item": i, "popularity": c, "p": p, "self_information": term})
        else:
            rows.append({"item": i, "popularity": c})
    return pd.DataFrame(rows)


def _check_items(items: list[Any]) -> None:
    seen = pd.Series(items, dtype=object)
    dup = seen[seen.duplicated()].unique().tolist()
    if dup:
        raise InvalidParameterError(
            f"the list repeats items ({format_examples(dup, len(dup))}); a recommendation list "
            f"holds each item once", parameter="grades", n_bad=len(dup), examples=dup[:5])


def explain_list(metric: str | Metric, items: Sequence[Any], *, train: Any = None,
                 item_features: Any = None) -> ListExplanation:
    """Explain novelty, popularity or diversity on one list of item ids (best first).

    Examples
    --------
    >>> import pandas as pd
    >>> feats = pd.DataFrame({"item": ["a", "b"], "x": [1.0, 0.0], "y": [0.0, 1.0]})
    >>> explain_list("diversity@2", ["a", "b"], item_features=feats).value
    1.0
    """
    from receval._evaluate import evaluate
    from receval.metrics import parse

    m = parse(metric)
    if not isinstance(m, (Novelty, Popularity, Diversity)):
        raise InvalidParameterError(
            f"explain shows novelty, popularity and diversity lists; {m.label} is not one",
            parameter="metric")
    items = list(items)
    _check_items(items)
    recs = pd.DataFrame({"user": 0, "item": items, "score": -np.arange(len(items),
                                                                         dtype=float)})
    result = evaluate(recs, recs[["user", "item"]], [m], train=train,
                      item_features=item_features)
    value = float(result[m.label])
    cut = items[: m.k or len(items)]
    if isinstance(m, Diversity):
        table = _pairs(m, cut, item_features, train)
        total = float(table["dissimilarity"].sum())
        den = float(len(table) if m.normalize == "pairs" else len(cut))
        lines = [f"sum of dissimilarities = {total:.6g} over {den:g} "
                 f"{'pairs' if m.normalize == 'pairs' else 'items'} = {value:.6g}"]
    else:
        table = _per_item(m, cut, train)
        col = "self_information" if isinstance(m, Novelty) else "popularity"
        total, den = float(table[col].sum()), float(len(cut))
        lines = [f"mean {col} = {total:.6g} / {den:g} = {value:.6g}"]
    return ListExplanation(m, (), value, table, None, total, den, tuple(lines),
                           tuple(items))
