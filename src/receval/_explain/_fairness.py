"""``explain`` for miscalibration and AWRF: one list of items, its value and worked tables.

As for the per-list metrics (:mod:`._lists`), the value comes from
:func:`receval.evaluate` on a one-user table (the engine's code); the tables show the
distributions and the terms it sums, computed here from the metric's parameters (its spec)
and the side inputs read by ``evaluate``'s readers:

* ``miscalibration@k`` (Steck 2018): per genre, the profile's ``p(g|u)``, the list's
  ``q(g|u)``, the smoothed ``q~ = (1 - alpha) q + alpha p`` and each term of the divergence;
* ``awrf@k`` (TREC Fair 2022): per position, the weight ``w_r`` and the item's groups; per
  group, the list's attention share ``D``, the target ``T`` and each term of the
  Jensen-Shannon divergence.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from receval._columns import Columns
from receval._explain._table import ListExplanation, fmt
from receval.data._side import _category_rows, read_features, train_ids, train_ratings
from receval.exceptions import InvalidParameterError
from receval.metrics import Metric
from receval.metrics._calibration import Miscalibration
from receval.metrics._fairness import AWRF

__all__ = ["explain_awrf", "explain_miscalibration"]


def _one_list(items: list[Any], user: Any) -> pd.DataFrame:
    return pd.DataFrame({"user": [user] * len(items), "item": items,
                         "score": -np.arange(len(items), dtype=float)})


def _value(m: Metric, items: list[Any], user: Any, **side: Any) -> float:
    """The metric's value for this list, by :func:`receval.evaluate`."""
    from receval._evaluate import evaluate

    recs = _one_list(items, user)
    ev = evaluate(recs, recs[["user", "item"]], [m], **side)
    return float(ev.per_user[m.label].iloc[0])


def _genres(item_features: Any, sep: str | None) -> tuple[pd.Index, np.ndarray, list[str]]:
    """Items, their category matrix and the categories' names (as ``evaluate`` reads them)."""
    feats = read_features(item_features, Columns(), sep=sep)
    if feats.form == "long":
        frame = pd.DataFrame(item_features)
        col = feats.column
        icol = next(c for c in frame.columns if str(c) != col)
        _, cats = _category_rows(frame[icol].reset_index(drop=True),
                                 frame[col].reset_index(drop=True), col, sep)
        names = sorted(pd.unique(cats).tolist())
    else:
        names = [str(c) for c in pd.DataFrame(item_features).columns[1:]]
    return feats.items, feats.matrix, names


def _profile(train: Any, user: Any, m: Miscalibration) -> tuple[Any, pd.Series]:
    """The user whose history is the profile, and the weight of each history item."""
    users, items = train_ids(train, Columns())
    if user is None:
        distinct = users.unique()
        if len(distinct) != 1:
            raise InvalidParameterError(
                f"train holds {len(distinct)} users: name whose history is the profile with "
                f"user=", parameter="user")
        user = distinct[0]
    mine = (users == user).to_numpy()
    weight = (train_ratings(train, Columns())[mine] if m.profile_weight == "rating"
              else np.ones(int(mine.sum())))
    return user, pd.Series(weight).groupby(items[mine].to_numpy(), sort=False).mean()


def _terms(m: Miscalibration, p: np.ndarray, q: np.ndarray) -> dict[str, np.ndarray]:
    """The divergence's term of each genre (its sum, or for Hellinger its root, the value)."""
    base = m.log_base()
    log = (lambda x: np.log(x) / math.log(base)) if base is not None else np.log

    def xlogy(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.where(x > 0, x * log(np.where(x > 0, x, 1.0) / np.where(x > 0, y, 1.0)),
                        0.0)

    if m.divergence == "kl":
        a, (x, y) = m.alpha, ((q, p) if m.order == "list_profile" else (p, q))
        smooth = (1.0 - a) * y + a * x
        return {"q~" if m.order != "list_profile" else "p~": smooth, "term": xlogy(x, smooth)}
    if m.divergence == "js":
        mid = 0.5 * (p + q)
        return {"m": mid, "term": 0.5 * xlogy(p, mid) + 0.5 * xlogy(q, mid)}
    return {"term": (np.sqrt(p) - np.sqrt(q)) ** 2}


def explain_miscalibration(m: Miscalibration, items: Sequence[Any], *, train: Any,
                           item_features: Any, user: Any = None, sep: str | None = "|"
                           ) -> ListExplanation:
    """Miscalibration of one list against one user's training history, genre by genre."""
    items = list(items)
    if train is None or item_features is None:
        raise InvalidParameterError(f"explain {m.label} needs train= (the user's history) "
                                    f"and item_features= (the genres)", parameter="train")
    user, weight = _profile(train, user, m)
    feat_items, matrix, names = _genres(item_features, sep)
    row = feat_items.get_indexer(pd.Index(items + list(weight.index)))
    f = np.where(row[:, None] >= 0, matrix[np.maximum(row, 0)], 0.0)
    total = f.sum(axis=1)
    if m.split == "binary":
        share, counts = (f > 0).astype(float), np.ones(len(f))
    else:
        share = np.divide(f, total[:, None], out=np.zeros_like(f), where=total[:, None] > 0)
        counts = (total > 0).astype(float)
    cut = len(items) if m.k is None else min(m.k, len(items))
    rank = np.arange(1, cut + 1, dtype=float)
    w = 1.0 / np.log2(rank + 1.0) if m.rank_weight == "log" else np.ones(cut)
    q = (w[:, None] * share[:cut]).sum(axis=0) / (w * counts[:cut]).sum()
    hw = weight.to_numpy(dtype=float)
    hist = share[len(items):]
    p = (hw[:, None] * hist).sum(axis=0) / (hw * counts[len(items):]).sum()
    terms = _terms(m, p, q)
    table = pd.DataFrame({"genre": names, "p": p, "q": q, **terms})
    value = _value(m, items, user, train=train, item_features=item_features,
                   item_features_sep=sep)
    total_terms = float(terms["term"].sum())
    if m.divergence == "hellinger":
        lines = [f"sqrt(1/2 x {fmt(total_terms)}) = {value:.6g}"]
    else:
        name = {"kl": "KL", "js": "JS"}[m.divergence]
        lines = [f"{name} = sum of terms = {fmt(total_terms)} = {value:.6g}"]
    lines.insert(0, f"profile: {len(weight)} training items of user {user!r}; list: top "
                    f"{cut} of {len(items)}")
    return ListExplanation(m, (), value, table, None, total_terms, 1.0, tuple(lines),
                           tuple(items))


def explain_awrf(m: AWRF, items: Sequence[Any], *, item_groups: Any,
                 relevant: Sequence[Any] | None = None, sep: str | None = "|"
                 ) -> ListExplanation:
    """AWRF of one list: the weights of its positions, the group shares and the distance."""
    from receval.data._groups import read_groups

    items = list(items)
    if m.groups != "item_groups":
        raise InvalidParameterError(f"explain {m.label} reads item_groups=; popularity groups "
                                    f"are not explained", parameter="metric")
    if item_groups is None:
        raise InvalidParameterError(f"explain {m.label} needs item_groups=",
                                    parameter="item_groups")
    groups = read_groups(item_groups, Columns(), role="item", name="item_groups", sep=sep)
    names = [str(g) for g in groups.names]
    cut = len(items) if m.k is None else min(m.k, len(items))
    member = groups.matrix_of(pd.Index(items[:cut])).toarray()
    count = member.sum(axis=1)
    a = np.divide(member, count[:, None], out=np.zeros_like(member), where=count[:, None] > 0)
    r = np.arange(1, cut + 1, dtype=np.float32 if m.precision == "float32" else np.float64)
    w = 1.0 / np.log2(np.maximum(r, 2) if m.discount == "log2_max2" else r + 1)
    w = w.astype(np.float64) * (count > 0)
    positions = pd.DataFrame({"rank": np.arange(1, cut + 1), "item": items[:cut], "w": w,
                              "groups": ["|".join(names[int(j)]
                                                  for j in np.flatnonzero(row))
                                         or "(none)" for row in member]})
    d = (w[:, None] * a).sum(axis=0) / w.sum()
    t = _awrf_target(m, groups, relevant, sep)
    mid = 0.5 * (d + t)

    def half_kl(x: np.ndarray) -> np.ndarray:
        return 0.5 * np.where(x > 0, x * np.log(np.where(x > 0, x, 1.0)
                                                / np.where(x > 0, mid, 1.0)), 0.0)

    table = pd.DataFrame({"group": names, "attention": (w[:, None] * a).sum(axis=0),
                          "D": d, "T": t, "M": mid, "term": half_kl(d) + half_kl(t)})
    js = float(table["term"].sum())
    truth = list(relevant) if relevant is not None else items
    from receval._evaluate import evaluate

    recs = _one_list(items, 0)
    value = float(evaluate(recs, pd.DataFrame({"user": 0, "item": truth}), [m],
                           item_groups=item_groups, item_features_sep=sep)[m.label])
    lines = [f"D = attention / sum w = attention / {fmt(float(w.sum()))}",
             f"JS(D, T) = sum of terms = {fmt(js)} (nats)",
             f"AWRF = 1 - JS = {1 - js:.6g}"]
    if m.times_ndcg:
        lines.append(f"x nDCG {value / (1 - js):.6g} = {value:.6g}")
    return ListExplanation(m, (), value, table, None, js, 1.0, tuple(lines), tuple(items),
                           positions)


def _awrf_target(m: AWRF, groups: Any, relevant: Sequence[Any] | None, sep: str | None
                 ) -> np.ndarray:
    """The target distribution T over the groups."""
    g = groups.n_groups
    if m.population is not None:
        given = dict(m.population)
        pop = np.array([given.get(str(x), 0.0) for x in groups.names])
    else:
        count = np.asarray(groups.member.sum(axis=1)).ravel()
        pop = np.asarray(groups.member.multiply(1.0 / count[:, None]).sum(axis=0)).ravel()
    pop = pop / pop.sum()
    if m.target == "uniform":
        return np.full(g, 1.0 / g)
    if m.target == "population":
        return pop
    if relevant is None:
        raise InvalidParameterError(f"explain {m.label} needs relevant= (the user's relevant "
                                    f"items) for its target", parameter="relevant")
    member = groups.matrix_of(pd.Index(list(relevant))).toarray()
    count = member.sum(axis=1)
    share = np.divide(member, count[:, None], out=np.zeros_like(member),
                      where=count[:, None] > 0).sum(axis=0)
    rel = share / share.sum()
    return rel if m.target == "relevance" else m.weight * rel + (1 - m.weight) * pop
