"""A slow, obviously-correct reference implementation of receval's ranking metrics.

Everything here is plain Python written straight from the formulas, one user at a time, with
no numpy and no closed forms, so that it can be checked by eye against the definitions.

A user's ranked list is given as ``grades``: the grade of each recommended item in rank order,
best first, 0 when the item is not relevant. ``rel`` is the list of the grades of all of the
user's relevant items (recommended or not; every one is > 0), so ``len(rel) == |R|``. ``k`` is
the cutoff, or ``None`` for the whole list. Ratios whose denominator is 0 are 0.

Tie policies are list transformations of ``(score, grade, item)`` rows; ``expected`` is the
plain mean of a metric over every ordering of every tied block (itertools.permutations over
the product of the blocks), so only small blocks are affordable.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any

Grades = Sequence[float]
Row = tuple[float, float, Any]  # (score, grade, item)
MetricFn = Callable[[Grades, Grades, "int | None"], float]

TIE_POLICIES = ("stable", "item", "item_desc", "item_str_desc", "optimistic", "pessimistic",
                "expected")


# -- building blocks ---------------------------------------------------------------------------


def top(grades: Grades, k: int | None) -> list[float]:
    """The first ``k`` grades of the list (all of them when ``k`` is None)."""
    return list(grades) if k is None else list(grades[:k])


def nominal_k(grades: Grades, k: int | None) -> int:
    """The cutoff as a number of places: ``k``, or the list length when ``k`` is None."""
    return len(grades) if k is None else k


def is_relevant(grade: float) -> bool:
    """An item is relevant when its grade is positive."""
    return grade > 0


def hits(grades: Grades, k: int | None) -> int:
    """Number of relevant items among the first ``k``."""
    return sum(1 for g in top(grades, k) if is_relevant(g))


def gain(grade: float, kind: str) -> float:
    """Gain of an item of grade ``grade``: linear, exponential or binary."""
    if kind == "linear":
        return float(grade)
    if kind == "exponential":
        return 2.0**grade - 1.0
    if kind == "binary":
        return 1.0 if is_relevant(grade) else 0.0
    if kind == "shifted_exponential":  # 2^(g - t + 1) - 1 with t = 1 (no threshold)
        return 2.0 ** (grade - 1.0 + 1.0) - 1.0 if is_relevant(grade) else 0.0
    raise ValueError(kind)


def discount(i: int, kind: str) -> float:
    """Discount of the 1-based rank ``i``."""
    if kind == "log2":
        return 1.0 / math.log2(i + 1)
    if kind == "breese":
        return 1.0 / max(1.0, math.log2(i))
    if kind == "ln":
        return 1.0 / math.log(i + 1)
    raise ValueError(kind)


# -- metrics -----------------------------------------------------------------------------------


def precision(grades: Grades, rel: Grades, k: int | None, denominator: str = "k") -> float:
    """hits@k / k (k = list length when None), or hits@k / min(k, n); 0 when it is 0."""
    n = nominal_k(grades, k) if denominator == "k" else len(top(grades, k))
    if n == 0:
        return 0.0
    return hits(grades, k) / n


def recall(grades: Grades, rel: Grades, k: int | None, denominator: str = "relevant") -> float:
    """hits@k / |R|, or hits@k / min(k, |R|)."""
    d = len(rel) if denominator == "relevant" else min(nominal_k(grades, k), len(rel))
    if d == 0:
        return 0.0
    return hits(grades, k) / d


def fbeta(grades: Grades, rel: Grades, k: int | None, beta: float = 1.0,
          denominator: str = "k") -> float:
    """(1 + b²) hits@k / (b² |R| + k), or with min(k, n) for k (``list_length``)."""
    places = nominal_k(grades, k) if denominator == "k" else len(top(grades, k))
    den = beta**2 * len(rel) + places
    if den == 0:
        return 0.0
    return (1 + beta**2) * hits(grades, k) / den


def hit_rate(grades: Grades, rel: Grades, k: int | None) -> float:
    """1 if there is a relevant item among the first k, else 0."""
    return 1.0 if hits(grades, k) > 0 else 0.0


def rr(grades: Grades, rel: Grades, k: int | None) -> float:
    """1 / rank of the first relevant item within k, 0 if none."""
    for i, g in enumerate(top(grades, k), start=1):
        if is_relevant(g):
            return 1.0 / i
    return 0.0


def arhr(grades: Grades, rel: Grades, k: int | None) -> float:
    """Sum of 1 / i over the relevant items i within k."""
    return sum(1.0 / i for i, g in enumerate(top(grades, k), start=1) if is_relevant(g))


def ap(grades: Grades, rel: Grades, k: int | None, denominator: str = "min_k_relevant",
       positions: str = "relevant") -> float:
    """Sum over the hits i within k of P@i, divided by the chosen denominator.

    ``positions='all'``: the sum runs over every place i = 1..k (P@i counts the empty places
    of a short list as misses), Elliot's MAP.
    """
    total = 0.0
    if positions == "all":
        total = sum(precision(grades, rel, i) for i in range(1, nominal_k(grades, k) + 1))
    for i, g in enumerate(top(grades, k), start=1):
        if positions == "relevant" and is_relevant(g):
            total += precision(grades, rel, i)
    if denominator == "min_k_relevant":  # without a cutoff: |R| (k unbounded)
        d = len(rel) if k is None else min(k, len(rel))
    elif denominator == "relevant":
        d = len(rel)
    elif denominator == "hits":
        d = hits(grades, k)
    elif denominator == "min_relevant_list":
        d = min(len(rel), len(top(grades, k)))
    elif denominator == "k":
        d = nominal_k(grades, k)
    else:
        raise ValueError(denominator)
    if d == 0:
        return 0.0
    return total / d


def cg(grades: Grades, rel: Grades, k: int | None, gain_kind: str = "linear") -> float:
    """Sum of the gains within k."""
    return sum(gain(g, gain_kind) for g in top(grades, k))


def dcg(grades: Grades, rel: Grades, k: int | None, gain_kind: str = "linear",
        discount_kind: str = "log2") -> float:
    """Sum of gain(g_i) * discount(i) within k."""
    return sum(gain(g, gain_kind) * discount(i, discount_kind)
               for i, g in enumerate(top(grades, k), start=1))


def ideal_grades(grades: Grades, rel: Grades, k: int | None, ideal: str) -> list[float]:
    """The grades of the ideal list: all relevant grades (truth) or the list's own (list),
    sorted in decreasing order and cut at k."""
    source = grades if ideal == "list" else rel
    return top(sorted(source, reverse=True), None if ideal == "truth_uncut" else k)


def ndcg(grades: Grades, rel: Grades, k: int | None, gain_kind: str = "linear",
         discount_kind: str = "log2", ideal: str = "truth") -> float:
    """DCG@k / IDCG@k (0 when the ideal DCG is 0)."""
    best = dcg(ideal_grades(grades, rel, k, ideal), rel, None, gain_kind, discount_kind)
    if best == 0:
        return 0.0
    return dcg(grades, rel, k, gain_kind, discount_kind) / best


def rank_score(grades: Grades, rel: Grades, k: int | None, alpha: float = 5.0) -> float:
    """Sum over hits i within k of 2^(-(i-1)/alpha), over the same sum for min(k, |R|) hits
    at the top."""
    num = sum(2.0 ** (-(i - 1) / alpha)
              for i, g in enumerate(top(grades, k), start=1) if is_relevant(g))
    m = len(rel) if k is None else min(k, len(rel))
    den = sum(2.0 ** (-(j - 1) / alpha) for j in range(1, m + 1))
    if den == 0:
        return 0.0
    return num / den


def metric(name: str, **params: Any) -> MetricFn:
    """The oracle of metric ``name`` with parameters named as in receval."""
    if name == "precision":
        pden = params.get("denominator", "k")
        return lambda g, r, k: precision(g, r, k, pden)
    if name == "recall":
        rden = params.get("denominator", "relevant")
        return lambda g, r, k: recall(g, r, k, rden)
    if name == "f1":
        return lambda g, r, k: fbeta(g, r, k, 1.0)
    if name == "fbeta":
        fden = params.get("denominator", "k")
        return lambda g, r, k: fbeta(g, r, k, float(params["beta"]), fden)
    if name == "hit_rate":
        return hit_rate
    if name == "mrr":
        return rr
    if name == "arhr":
        return arhr
    if name == "ap":
        den = params.get("denominator", "min_k_relevant")
        pos = params.get("positions", "relevant")
        return lambda g, r, k: ap(g, r, k, den, pos)
    if name == "cg":
        gk = params.get("gain", "linear")
        return lambda g, r, k: cg(g, r, k, gk)
    if name == "dcg":
        gk, dk = params.get("gain", "linear"), params.get("discount", "log2")
        return lambda g, r, k: dcg(g, r, k, gk, dk)
    if name == "ndcg":
        gk, dk = params.get("gain", "linear"), params.get("discount", "log2")
        ideal = params.get("ideal", "truth")
        return lambda g, r, k: ndcg(g, r, k, gk, dk, ideal)
    if name == "rank_score":
        alpha = float(params.get("alpha", 5.0))
        return lambda g, r, k: rank_score(g, r, k, alpha)
    raise ValueError(name)


# -- the catalogue of variants, as receval metric strings ------------------------------------

#: The cutoffs the tests use (None: the whole list).
KS: tuple[int | None, ...] = (1, 2, 3, 5, 10, None)
GAINS = ("linear", "exponential", "binary")
DISCOUNTS = ("log2", "breese", "ln")

#: Every ranking metric and variant of receval: (name, parameters) as in ``metric()``.
VARIANTS: list[tuple[str, dict[str, Any]]] = [
    ("precision", {}),
    ("recall", {}),
    ("f1", {}),
    ("fbeta", {"beta": 0.5}),
    ("fbeta", {"beta": 2.0}),
    ("fbeta", {"beta": 2.0, "denominator": "list_length"}),
    ("hit_rate", {}),
    ("mrr", {}),
    ("arhr", {}),
    ("precision", {"denominator": "list_length"}),
    ("recall", {"denominator": "min_k_relevant"}),
    *[("ap", {"denominator": d})
      for d in ("min_k_relevant", "relevant", "hits", "min_relevant_list", "k")],
    ("ap", {"denominator": "k", "positions": "all"}),
    *[("cg", {"gain": g}) for g in GAINS],
    *[("dcg", {"gain": g, "discount": d}) for g in GAINS for d in DISCOUNTS],
    *[("ndcg", {"gain": g, "discount": d, "ideal": i})
      for g in GAINS for d in DISCOUNTS for i in ("truth", "list", "truth_uncut")],
    *[("rank_score", {"alpha": a}) for a in (1.0, 2.5, 5.0)],
    *[(name, {"gain": "shifted_exponential"}) for name in ("cg", "dcg", "ndcg")],
]


def spec(name: str, params: dict[str, Any], k: int | None, ties: str | None = None) -> str:
    """The metric string ``name(p=v, ...)@k``."""
    items = dict(params)
    if ties is not None:
        items["ties"] = ties
    text = name
    if items:
        text += "(" + ", ".join(f"{key}={val}" for key, val in items.items()) + ")"
    if k is not None:
        text += f"@{k}"
    return text



# -- tie policies ------------------------------------------------------------------------------


def order_stable(rows: Sequence[Row]) -> list[Row]:
    """By score descending; ties keep their input order (Python's sort is stable)."""
    return sorted(rows, key=lambda r: -r[0])


def order_item(rows: Sequence[Row]) -> list[Row]:
    """By score descending, ties by item id ascending."""
    return sorted(rows, key=lambda r: (-r[0], r[2]))


def order_item_desc(rows: Sequence[Row]) -> list[Row]:
    """By score descending, ties by item id descending."""
    return sorted(rows, key=lambda r: (-r[0], _Desc(r[2])))


def order_item_str_desc(rows: Sequence[Row]) -> list[Row]:
    """By score descending, ties by the item id's text descending (trec_eval's docno order:
    ``"9" > "10"``)."""
    return sorted(rows, key=lambda r: (-r[0], _Desc(str(r[2]))))


class _Desc:
    """Reverses the order of any comparable value (ints or strings alike)."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __lt__(self, other: _Desc) -> bool:
        return bool(other.value < self.value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Desc) and bool(self.value == other.value)

    __hash__ = None  # type: ignore[assignment]


def order_optimistic(rows: Sequence[Row]) -> list[Row]:
    """By score descending, ties by grade descending (relevant first)."""
    return sorted(rows, key=lambda r: (-r[0], -r[1]))


def order_pessimistic(rows: Sequence[Row]) -> list[Row]:
    """By score descending, ties by grade ascending (relevant last)."""
    return sorted(rows, key=lambda r: (-r[0], r[1]))


ORDERS: dict[str, Callable[[Sequence[Row]], list[Row]]] = {
    "stable": order_stable,
    "item": order_item,
    "item_desc": order_item_desc,
    "item_str_desc": order_item_str_desc,
    "optimistic": order_optimistic,
    "pessimistic": order_pessimistic,
}


def tied_blocks(rows: Sequence[Row]) -> list[list[Row]]:
    """The blocks of equal scores, best block first."""
    return [list(b) for _, b in itertools.groupby(order_stable(rows), key=lambda r: r[0])]


def all_orders(rows: Sequence[Row]) -> Iterator[list[Row]]:
    """Every ranking obtained by permuting each tied block independently."""
    per_block = [list(itertools.permutations(b)) for b in tied_blocks(rows)]
    for choice in itertools.product(*per_block):
        yield [r for block in choice for r in block]


def n_orders(rows: Sequence[Row]) -> int:
    """How many rankings ``all_orders`` yields."""
    return math.prod(math.factorial(len(b)) for b in tied_blocks(rows))


def grades_of(rows: Sequence[Row]) -> list[float]:
    """The grade column of ranked rows."""
    return [r[1] for r in rows]


def values(metrics: Sequence[tuple[MetricFn, int | None]], rows: Sequence[Row],
           rel: Grades, policy: str) -> list[float]:
    """Each ``(metric, k)`` of one user under a tie policy (expected: mean over all orders)."""
    if policy == "expected":
        lists = [grades_of(o) for o in all_orders(rows)]
        return [math.fsum(fn(g, rel, k) for g in lists) / len(lists) for fn, k in metrics]
    g = grades_of(ORDERS[policy](rows))
    return [fn(g, rel, k) for fn, k in metrics]


def value(fn: MetricFn, k: int | None, rows: Sequence[Row], rel: Grades, policy: str) -> float:
    """One metric of one user under a tie policy."""
    return values([(fn, k)], rows, rel, policy)[0]


# -- from the two tables to per-user inputs ----------------------------------------------------


def user_inputs(recs: Any, truth: Any) -> dict[Any, tuple[list[Row], list[float]]]:
    """Per truth user: the ``(score, grade, item)`` rows in input order and the relevant grades.

    ``recs`` has columns user, item, score; ``truth`` has user, item and optionally rating (no
    rating: every truth row has grade 1). Truth rows of grade 0 are not relevant. Users with
    recommendations and no truth row are not evaluated and not returned.
    """
    has_rating = "rating" in truth.columns
    ratings = list(truth["rating"]) if has_rating else [1.0] * len(truth)
    grade_of: dict[tuple[Any, Any], float] = {}
    rel: dict[Any, list[float]] = {}
    for u, i, g in zip(truth["user"], truth["item"], ratings, strict=True):
        grade_of[(u, i)] = float(g)
        rel.setdefault(u, [])
        if is_relevant(g):
            rel[u].append(float(g))
    rows: dict[Any, list[Row]] = {u: [] for u in rel}
    for u, i, s in zip(recs["user"], recs["item"], recs["score"], strict=True):
        if u in rows:
            g = grade_of.get((u, i), 0.0)
            rows[u].append((float(s), g if is_relevant(g) else 0.0, i))
    return {u: (rows[u], rel[u]) for u in rel}
