"""The beyond-accuracy metrics in the engine: side inputs, per-user values, global exposure.

:func:`run` is called by :func:`receval._engine.evaluate_partition` with the encoded
interactions of one partition; it returns a :class:`BeyondPartial` (ids, never codes).
:func:`finish` merges the partials: per-user values by concatenation, exposure counts and
personalization sums by adding them per item id.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from receval._kernels import beyond as BK
from receval.data import Interactions
from receval.data._side import read_features, train_ids
from receval.exceptions import DataError, InvalidParameterError, format_examples
from receval.metrics import _beyond as M

__all__ = ["BeyondPartial", "finish", "run"]

_MODES = {"cosine": BK.COSINE, "jaccard": BK.JACCARD, "euclidean": BK.EUCLIDEAN,
          "cooccurrence": BK.COOCCURRENCE}


@dataclass
class BeyondPartial:
    """Per-user values and global sums of one partition."""

    per_user: dict[str, tuple[pd.Index, np.ndarray, np.ndarray, np.ndarray]]
    exposure: dict[str, pd.Series]
    personal: dict[str, tuple[pd.Series, pd.Series, int]]
    train_items: pd.Index
    counts: dict[str, int] = field(default_factory=dict)
    seen_items: pd.Index = field(default_factory=lambda: pd.Index([]))  # truth + recs


@dataclass
class _Side:
    """Train and features encoded with the partition's item codes (extended)."""

    items: pd.Index  # item ids of every code: recs/truth items first, then the others
    n_train_users: int
    n_train_rows: int
    pop_rows: np.ndarray  # training interactions per item code
    pop_users: np.ndarray  # distinct training users per item code
    in_train: np.ndarray
    h_starts: np.ndarray  # each partition user's training items (sorted codes)
    h_ends: np.ndarray
    h_item: np.ndarray
    user_items: Any  # sparse users x items (0/1) of train, or None
    feats: np.ndarray
    usable: np.ndarray


def _check_inputs(metrics: Sequence[M.BeyondMetric], opts: Any) -> None:
    for m in metrics:
        for need in m.inputs():
            if need == "truth":
                continue
            if getattr(opts, need) is None:
                raise InvalidParameterError(
                    f"{m.label} needs evaluate({need}=...): "
                    + ("the training interactions (user, item)" if need == "train" else
                       "a table item -> features (wide numeric columns, a long (item, "
                       "feature) table or an item -> vector column)"),
                    parameter=need)
        if (m.ties or opts.ties) == "expected":
            raise InvalidParameterError(
                f"{m.label}: ties='expected' is not defined for beyond-accuracy metrics; "
                f"pass ties='stable' or 'item' for this metric", parameter="ties")


def _side(data: Interactions, opts: Any, users: np.ndarray, need_feats: bool) -> _Side:
    ids = data.item_ids
    extra: list[Any] = []
    t_user = t_item = None
    if opts.train is not None:
        t_user, t_item = train_ids(opts.train, opts.columns)
        extra.extend(pd.unique(t_item[~t_item.isin(ids)]))
    features = read_features(opts.item_features, opts.columns) if need_feats else None
    if features is not None:
        extra.extend(features.items[~features.items.isin(ids)])
    items = ids.append(pd.Index(pd.unique(pd.Series(extra, dtype=object)))) if extra else ids
    m = len(items)
    pop_rows = np.zeros(m)
    pop_users = np.zeros(m)
    h_starts = h_ends = np.zeros(len(users), dtype=np.int64)
    h_item = np.empty(0, dtype=np.int64)
    n_users = n_rows = 0
    user_items = None
    if t_user is not None and t_item is not None:
        ic = items.get_indexer(pd.Index(t_item))
        uc, uniq = pd.factorize(t_user)
        n_users, n_rows = len(uniq), len(ic)
        pop_rows = np.bincount(ic, minlength=m).astype(np.float64)
        user_items = sp.csr_matrix((np.ones(len(ic)), (uc, ic)), shape=(n_users, m))
        user_items.data[:] = 1.0  # duplicates summed: a user counts once per item
        user_items.sum_duplicates()
        user_items.data[:] = 1.0
        pop_users = np.asarray(user_items.sum(axis=0)).ravel()
        part = pd.Index(uniq).get_indexer(data.user_ids[users])
        rows = user_items[np.maximum(part, 0)]
        lengths = np.diff(rows.indptr) * (part >= 0)
        h_ends = np.cumsum(lengths)
        h_starts = h_ends - lengths
        rows.sort_indices()
        keep = np.repeat(part >= 0, np.diff(rows.indptr))
        h_item = rows.indices[keep].astype(np.int64)
    feats = np.zeros((m, 1))
    usable = np.ones(m, dtype=np.bool_)
    if features is not None:
        feats = np.zeros((m, features.matrix.shape[1]))
        feats[items.get_indexer(features.items)] = features.matrix
        usable = np.zeros(m, dtype=np.bool_)
        usable[items.get_indexer(features.items)] = True
    return _Side(items, n_users, n_rows, pop_rows, pop_users, pop_rows > 0, h_starts,
                 h_ends, h_item, user_items, feats, usable)


def _unit(feats: np.ndarray) -> np.ndarray:
    norm = np.linalg.norm(feats, axis=1)
    out = np.zeros_like(feats)
    np.divide(feats, norm[:, None], out=out, where=norm[:, None] > 0)
    return out


def _cooccurrence(side: _Side, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted keys ``a * M + b`` and cosine co-occurrence for every recommended ``a``."""
    m = len(side.items)
    rec = np.unique(rows)
    x = side.user_items
    c = (x[:, rec].T @ x).tocoo()
    a = rec[c.row]
    sim = c.data / np.sqrt(side.pop_users[a] * side.pop_users[c.col])
    keys = a.astype(np.int64) * m + c.col
    order = np.argsort(keys)
    return keys[order], sim[order]


class _Lists:
    """One tie policy's ranked lists cut at k: rows, their user and their item codes."""

    def __init__(self, data: Interactions, users: np.ndarray, policy: str):
        self.lists = data.ranked(users, policy)
        self.lengths = self.lists.ends - self.lists.starts

    def cut(self, k: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        take = np.minimum(self.lengths, k) if k else self.lengths
        first = np.repeat(self.lists.starts, take)
        pos = first + (np.arange(take.sum()) - np.repeat(np.cumsum(take) - take, take))
        return take, pos, np.repeat(np.arange(len(take)), take)


def _popularity_of(side: _Side, kind: str) -> tuple[np.ndarray, float]:
    if kind == "users":
        return side.pop_users, float(side.n_train_users)
    return side.pop_rows, float(side.n_train_rows)


def _absent_error(metric: M.BeyondMetric, side: _Side, codes: np.ndarray) -> None:
    bad = pd.unique(side.items[codes[~side.in_train[codes]]])
    if len(bad):
        raise DataError(f"{metric.label}: {len(bad)} recommended items are absent from train "
                        f"(e.g. {format_examples(list(bad[:5]), len(bad))}); pass "
                        f"absent='one', 'zero' or 'skip'", parameter="absent",
                        n_bad=len(bad), examples=list(bad[:5]))


def _row_terms(metric: M.BeyondMetric, side: _Side, item: np.ndarray, rel: np.ndarray,
               lists: _Lists, take: np.ndarray, pos: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """Per top-k row: the metric's term and whether the row counts (in the denominator)."""
    counts = np.ones(len(item), dtype=bool)
    if isinstance(metric, M.Novelty):
        pop, total = _popularity_of(side, metric.popularity)
        known = side.in_train[item]
        if metric.absent == "error":
            _absent_error(metric, side, item)
        p = np.where(known, pop[item], 1.0) / max(total, 1.0)
        term = -np.log(p) / math.log(metric.base)
        if metric.absent == "zero":
            term[~known] = 0.0
        elif metric.absent == "skip":
            counts = known
        return term, counts
    if isinstance(metric, M.Popularity):
        pop, total = _popularity_of(side, metric.popularity)
        scale = {"count": 1.0, "max": float(pop.max(initial=0.0)) or 1.0,
                 "share": total or 1.0}[metric.scale]
        if metric.absent == "skip":
            counts = side.in_train[item]
        return pop[item] / scale, counts
    if isinstance(metric, (M.LongTail, M.LongTailCoverage)):
        return _tail_mask(metric, side)[item].astype(np.float64), counts
    return _unexpected(metric, side, item, rel, lists, take, pos)


def _tail_mask(metric: M.LongTail | M.LongTailCoverage, side: _Side) -> np.ndarray:
    train = np.flatnonzero(side.in_train)
    ids = np.arange(len(train))  # train codes sorted by id order of side.items
    order_id = np.argsort(np.asarray(side.items[train].astype(str)) if
                          side.items.dtype == object else np.asarray(side.items[train]),
                          kind="stable")
    rank_id = np.empty_like(ids)
    rank_id[order_id] = ids
    count = side.pop_rows[train]
    tail = np.zeros(len(side.items), dtype=bool)
    if metric.tail is not None:  # bottom share by (count, id)
        order = np.lexsort((rank_id, count))
        tail[train[order[:max(int(len(train) * metric.tail), 1)]]] = True
    else:  # outside the top share by (-count, id)
        order = np.lexsort((rank_id, -count))
        tail[train] = True
        tail[train[order[:max(int(len(train) * metric.head), 1)]]] = False
    if metric.absent == "tail":
        tail[~side.in_train] = True
    return tail


def _unexpected(metric: M.BeyondMetric, side: _Side, item: np.ndarray, rel: np.ndarray,
                lists: _Lists, take: np.ndarray, pos: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
    assert isinstance(metric, M.Serendipity)
    starts = np.cumsum(take) - take
    out = np.zeros(len(item))
    if metric.expected == "popular":
        by_pop = np.flatnonzero(side.in_train)
        id_rank = np.argsort(np.argsort(np.asarray(side.items[by_pop].astype(str)) if
                                        side.items.dtype == object
                                        else np.asarray(side.items[by_pop]), kind="stable"))
        by_pop = by_pop[np.lexsort((id_rank, -side.pop_rows[by_pop]))].astype(np.int64)
        want = metric.n_expected or metric.k
        n_exp = take.copy() if want is None else np.full(len(take), want, dtype=np.int64)
        BK.expected_unexpected(starts, take, item, side.h_starts, side.h_ends, side.h_item,
                               by_pop, n_exp.astype(np.int64), out)
    else:
        mode = _MODES[metric.similarity]
        keys, vals, feats, mode = _similarity_inputs(side, mode, item, history=True)
        BK.mean_similarity_to_history(starts, take, item, side.h_starts, side.h_ends,
                                      side.h_item, side.usable, mode, feats, keys, vals,
                                      len(side.items), out)
    if not isinstance(metric, M.Unexpectedness):
        out = out * rel
    counts = ~np.isnan(out)
    return np.nan_to_num(out), counts


#: Largest table of precomputed similarities (recommended items x item codes), in cells.
DENSE_CELLS = 20_000_000


def _dense(side: _Side, mode: int, rec: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Similarities of the recommended items (rows) to ``cols`` (item codes), as a table."""
    if mode == BK.COOCCURRENCE:
        x = side.user_items
        c = np.asarray((x[:, rec].T @ x[:, cols]).todense(), dtype=np.float64)
        norm = np.sqrt(np.outer(side.pop_users[rec], side.pop_users[cols]))
        return np.divide(c, norm, out=np.zeros_like(c), where=norm > 0)
    if mode == BK.COSINE:
        unit = _unit(side.feats)
        return np.asarray(unit[rec] @ unit[cols].T)
    if mode == BK.JACCARD:
        nz = (side.feats != 0).astype(np.float64)
        inter = nz[rec] @ nz[cols].T
        union = nz[rec].sum(1)[:, None] + nz[cols].sum(1)[None, :] - inter
        return np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)
    a, b = side.feats[rec], side.feats[cols]
    sq = (a * a).sum(1)[:, None] + (b * b).sum(1)[None, :] - 2 * a @ b.T
    return np.asarray(np.sqrt(np.maximum(sq, 0.0)))


def _similarity_inputs(side: _Side, mode: int, item: np.ndarray, *, history: bool = False
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Kernel inputs for one similarity: a dense table when it fits, else the raw form."""
    m = len(side.items)
    rec = np.unique(item)
    if len(rec) * (m if history else len(rec)) <= DENSE_CELLS and mode != BK.EUCLIDEAN:
        dense = _dense(side, mode, rec, np.arange(m) if history else rec)
        rows = np.zeros(m, dtype=np.int64)
        rows[rec] = np.arange(len(rec))
        return (rows, np.zeros(1), np.ascontiguousarray(dense),
                BK.DENSE_ROWS if history else BK.DENSE)
    return (*_raw_similarity(side, mode, item), mode)


def _raw_similarity(side: _Side, mode: int, item: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if mode == BK.COOCCURRENCE:
        keys, vals = _cooccurrence(side, item)
        return keys, vals, np.zeros((1, 1))
    feats = _unit(side.feats) if mode == BK.COSINE else side.feats
    return np.zeros(1, dtype=np.int64), np.zeros(1), np.ascontiguousarray(feats)


def _diversity(metric: M.Diversity, side: _Side, item: np.ndarray, take: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    mode = _MODES[metric.similarity]
    usable = side.usable if mode != BK.COOCCURRENCE else np.ones(len(side.items), dtype=bool)
    keys, vals, feats, mode = _similarity_inputs(side, mode, item)
    n = len(take)
    total, pairs, count = np.zeros(n), np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    BK.list_dissimilarity(np.cumsum(take) - take, take, item, usable, mode, feats, keys,
                          vals, len(side.items), total, pairs, count)
    den = pairs if metric.normalize == "pairs" else count
    return total, den.astype(np.float64)


def _features_missing(metrics: Sequence[M.BeyondMetric], side: _Side, item: np.ndarray,
                      policy: str) -> int:
    """Recommended items without features: an error, or a count of skipped items."""
    if not any("item_features" in m.inputs() for m in metrics):
        return 0
    bad = pd.unique(side.items[item[~side.usable[item]]])
    if len(bad) and policy == "error":
        raise DataError(f"item_features: {len(bad)} recommended items have no features "
                        f"(e.g. {format_examples(list(bad[:5]), len(bad))}); pass "
                        f"item_features_missing='skip' to leave them out of similarities",
                        parameter="item_features", n_bad=len(bad), examples=list(bad[:5]))
    return len(bad)


def run(data: Interactions, opts: Any) -> BeyondPartial:
    """Compute every requested beyond-accuracy metric over the users with a list."""
    metrics = [m for _, m in opts.of(M.BeyondMetric)]
    _check_inputs(metrics, opts)
    in_recs = data.recs_count() > 0
    users = np.flatnonzero(in_recs)
    need_feats = any("item_features" in m.inputs() for m in metrics)
    side = _side(data, opts, users, need_feats)
    ids = data.user_ids[users]
    has_truth = (data.truth_count() > 0)[users]
    out = BeyondPartial({}, {}, {}, side.items[side.in_train], seen_items=data.item_ids,
                        counts={
        "users_with_list": len(users),
        "truth_users_without_list": int(((data.truth_count() > 0) & ~in_recs).sum()),
        "items_without_features": 0, "train_given": int(opts.train is not None)})
    by_policy: dict[str, _Lists] = {}
    for m in metrics:
        policy = m.ties or opts.ties
        lists = by_policy.setdefault(policy, _Lists(data, users, policy))
        take, pos, row_user = lists.cut(m.k)
        item = lists.lists.item[pos].astype(np.int64)
        out.counts["items_without_features"] = max(
            out.counts["items_without_features"],
            _features_missing([m], side, item, opts.item_features_missing))
        if not m.per_user:
            _global_state(m, side, item, take, out)
            continue
        if isinstance(m, M.Diversity):
            num, den = _diversity(m, side, item, take)
        else:
            rel = lists.lists.rel[pos].astype(np.float64)
            term, counts = _row_terms(m, side, item, rel, lists, take, pos)
            num = np.bincount(row_user, weights=term * counts, minlength=len(users))
            den = np.bincount(row_user, weights=counts.astype(np.float64),
                              minlength=len(users))
            if isinstance(m, M.LongTailCoverage):
                den = (take > 0).astype(np.float64)
        if isinstance(m, M.Serendipity) and not isinstance(m, M.Unexpectedness):
            den = np.where(has_truth, den, 0.0)
            num = np.where(has_truth, num, 0.0)
        value = np.full(len(users), np.nan)
        np.divide(num, den, out=value, where=den > 0)
        out.per_user[m.label] = (ids, value, num, den)
    return out


def _global_state(m: M.BeyondMetric, side: _Side, item: np.ndarray, take: np.ndarray,
                  out: BeyondPartial) -> None:
    counts = np.bincount(item, minlength=len(side.items)).astype(np.float64)
    hit = np.flatnonzero(counts)
    if isinstance(m, M.Personalization):
        w_user = (1.0 / np.sqrt(np.maximum(take, 1)) if m.overlap == "cosine"
                  else np.full(len(take), 1.0 / math.sqrt(m.k or max(int(take.max(initial=1)), 1))))
        w = np.repeat(w_user, take)
        a = np.bincount(item, weights=w, minlength=len(side.items))
        b = np.bincount(item, weights=w * w, minlength=len(side.items))
        out.personal[m.label] = (pd.Series(a[hit], index=side.items[hit]),
                                 pd.Series(b[hit], index=side.items[hit]),
                                 int((take > 0).sum()))
        return
    out.exposure[m.label] = pd.Series(counts[hit], index=side.items[hit])


def _add(series: Sequence[pd.Series]) -> pd.Series:
    if len(series) == 1:
        return series[0]
    return pd.concat(series).groupby(level=0).sum()


def finish(metric: M.BeyondMetric, partials: Sequence[BeyondPartial], catalog: Any
           ) -> tuple[float, int]:
    """The global value of one metric over every partition, and its number of users."""
    n_users = sum(p.counts["users_with_list"] for p in partials)
    if isinstance(metric, M.Personalization):
        parts = [p.personal[metric.label] for p in partials]
        a, b = _add([x[0] for x in parts]), _add([x[1] for x in parts])
        u = sum(x[2] for x in parts)
        if u < 2:
            return float("nan"), u
        overlap = 0.5 * float(((a * a) - b).sum()) / (u * (u - 1) / 2.0)
        if metric.overlap == "cosine":  # the identity's rounding can leave [0, 1] by 1 ulp
            overlap = min(max(overlap, 0.0), 1.0)
        return 1.0 - overlap, u
    counts = _add([p.exposure[metric.label] for p in partials])
    if isinstance(metric, M.Gini):
        c = counts.to_numpy()
        if metric.items == "catalog":
            cat = _catalog(catalog, partials, counts)
            c = np.concatenate([np.zeros(len(cat) - len(c)), c])
        c = np.sort(c)
        n = len(c)
        j = np.arange(1, n + 1)
        m = n if metric.normalize == "n" else n - 1
        if m <= 0 or c.sum() == 0:
            return float("nan"), n_users
        return float(np.sum((2 * j - n - 1) * c) / (m * c.sum())), n_users
    assert isinstance(metric, M.Entropy)
    p = counts.to_numpy() / counts.sum()
    h = float(-(p * np.log(p)).sum())
    if metric.base is not None:
        h /= math.log(metric.base)
    if metric.normalize == "distinct":
        h /= len(p)
    return h, n_users


def _train_given(partials: Sequence[BeyondPartial]) -> bool:
    """Whether the partials were computed with ``train=``."""
    return bool(partials[0].counts.get("train_given", 0))


def _catalog(catalog: Any, partials: Sequence[BeyondPartial], counts: pd.Series) -> pd.Index:
    if catalog is not None:
        cat = pd.Index(pd.unique(pd.Series(list(catalog))))
    elif _train_given(partials):
        cat = partials[0].train_items.append(counts.index).unique()
    else:  # as item coverage: every item of the truth and the recommendations
        cat = partials[0].seen_items.append([p.seen_items for p in partials[1:]]).unique()
    outside = counts.index[~counts.index.isin(cat)]
    if len(outside):
        raise DataError(f"{len(outside)} recommended items are not in catalog (e.g. "
                        f"{format_examples(list(outside[:5]), len(outside))})",
                        parameter="catalog", n_bad=len(outside), examples=list(outside[:5]))
    return cat


def merge_into(partials: Sequence[Any], opts: Any, summaries: dict[str, Any],
               frame: pd.DataFrame, order: list[str]) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Add the beyond metrics' summaries and per-user columns; return the settings entry."""
    from receval._result import MetricSummary

    parts: list[BeyondPartial] = [p.beyond for p in partials if p.beyond is not None]
    cols: dict[str, pd.Series] = {}
    for _, m in opts.of(M.BeyondMetric):
        if not m.per_user:
            total, n = finish(m, parts, opts.catalog)
            summaries[m.label] = MetricSummary(m, total, "global", n)
            continue
        got = [p.per_user[m.label] for p in parts]
        users = got[0][0].append([g[0] for g in got[1:]]) if len(got) > 1 else got[0][0]
        value, num, den = (np.concatenate([g[i] for g in got]) for i in (1, 2, 3))
        if not users.is_monotonic_increasing:  # user order, as in one in-memory partition,
            with contextlib.suppress(TypeError):  # so that sums are the same to the last bit
                perm = np.asarray(users.argsort(), dtype=np.int64)
                users, value, num, den = users[perm], value[perm], num[perm], den[perm]
        undefined = int(np.isnan(value).sum())
        micro = getattr(m, "aggregation", "macro") == "micro"
        if micro:
            agg = float(num.sum() / den.sum()) if den.sum() > 0 else float("nan")
        else:
            agg = float(np.nanmean(value)) if len(value) > undefined else float("nan")
        summaries[m.label] = MetricSummary(m, agg, "micro" if micro else "macro",
                                           len(value) - undefined, undefined,
                                           m.ties or opts.ties)
        cols[m.label] = pd.Series(value, index=users)
    if cols:
        extra = pd.DataFrame(cols)
        extra.index.name = "user"
        frame = frame.join(extra, how="outer") if len(frame.columns) else extra
        frame = frame[[c for c in order if c in frame.columns]]
        with contextlib.suppress(TypeError):  # ids that do not order: keep them as they came
            frame = frame.sort_index()
    settings = {
        "users_with_list": sum(p.counts["users_with_list"] for p in parts),
        "truth_users_without_list": sum(p.counts["truth_users_without_list"] for p in parts),
        "item_features_missing": opts.item_features_missing,
        "items_without_features": max((p.counts["items_without_features"] for p in parts),
                                      default=0),
        "train_given": opts.train is not None,
        "item_features_given": opts.item_features is not None,
    }
    return frame, settings
