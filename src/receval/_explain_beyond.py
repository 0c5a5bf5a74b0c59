"""``explain`` for the per-list beyond-accuracy metrics: one list, its worked table.

The value comes from :func:`receval.evaluate` on a one-user table (one implementation);
the table shows the terms it sums: the self-information or popularity of each item, the
pairwise dissimilarities of a list, or each item's (un)expectedness.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from receval._explain import Explanation, _render
from receval.exceptions import InvalidParameterError
from receval.metrics import BeyondMetric, Diversity, Novelty, Popularity

__all__ = ["ListExplanation", "explain_list"]


@dataclass(frozen=True)
class ListExplanation(Explanation):
    """A beyond-accuracy metric on one list of items, with its worked table."""

    items: tuple[Any, ...] = ()

    def __str__(self) -> str:
        return "\n".join([f"{self.metric.label} of items {list(self.items)}", "",
                          _render(self.table), "", *self.lines])


def _pairs(m: Diversity, items: list[Any], item_features: Any, train: Any) -> pd.DataFrame:
    """Every pair of the list with its similarity and dissimilarity."""
    if m.similarity == "cooccurrence":
        users = pd.DataFrame(train).iloc[:, :2].drop_duplicates()
        users.columns = ["user", "item"]
        sets = users.groupby("item")["user"].apply(set).to_dict()
    else:
        frame = pd.DataFrame(item_features).set_index(pd.DataFrame(item_features).columns[0])
        vecs = {i: np.asarray(frame.loc[i], dtype=np.float64) for i in items}
    rows = []
    for x in range(len(items)):
        for y in range(x + 1, len(items)):
            a, b = items[x], items[y]
            if m.similarity == "cooccurrence":
                sa, sb = sets.get(a, set()), sets.get(b, set())
                s = len(sa & sb) / math.sqrt(len(sa) * len(sb)) if sa and sb else 0.0
            elif m.similarity == "cosine":
                na, nb = np.linalg.norm(vecs[a]), np.linalg.norm(vecs[b])
                s = float(vecs[a] @ vecs[b] / (na * nb)) if na > 0 and nb > 0 else 0.0
            elif m.similarity == "jaccard":
                fa, fb = vecs[a] != 0, vecs[b] != 0
                s = float((fa & fb).sum() / (fa | fb).sum()) if (fa | fb).any() else 0.0
            else:
                s = float(np.linalg.norm(vecs[a] - vecs[b]))
            d = s if m.similarity == "euclidean" else 1.0 - s
            rows.append({"i": a, "j": b, "similarity": s, "dissimilarity": d})
    return pd.DataFrame(rows, columns=["i", "j", "similarity", "dissimilarity"])


def _per_item(m: Novelty | Popularity, items: list[Any], train: Any) -> pd.DataFrame:
    """Each item's training popularity and its term."""
    frame = pd.DataFrame(train).iloc[:, :2]
    frame.columns = ["user", "item"]
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


def explain_list(metric: str | BeyondMetric, items: Sequence[Any], *, train: Any = None,
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
