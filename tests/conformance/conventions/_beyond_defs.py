"""Each library's beyond-accuracy definitions, written out in numpy (the spec of
``docs/beyond-accuracy-libraries.md``), on the cases of ``fixtures/beyond_cases.py``.

These functions are *not* receval: they state, one library at a time, what that library
computes, so that the conformance tests can check the written definitions against the
library itself (live or its fixture) and receval's presets against both. Every function
takes the case (plain JSON, see ``beyond_cases``) and a cutoff, and returns
``(mean, {user: value})`` for per-user metrics, or a float for global ones. NaN where the
library's mean has no term.
"""

from __future__ import annotations

import importlib.util
import math
from collections import Counter
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

__all__ = ["cases_module", "elliot_defs", "elliot_tail", "evidently_defs", "msr_defs",
           "recbole_defs", "recbole_tail", "recmetrics_defs"]

FIXTURES = Path(__file__).parent / "fixtures"
PerUser = tuple[float, dict[str, float]]


@cache
def cases_module() -> ModuleType:
    """``fixtures/beyond_cases.py`` loaded by path (the fixture scripts load it the same way)."""
    spec = importlib.util.spec_from_file_location("_beyond_cases", FIXTURES / "beyond_cases.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _mean(values: dict[str, float]) -> float:
    return float(np.mean(list(values.values()))) if values else math.nan


def _vec(case: dict[str, Any], item: int) -> np.ndarray:
    return np.asarray(case["features"][str(item)], dtype=np.float64)


def _cos(case: dict[str, Any], a: int, b: int) -> float:
    x, y = _vec(case, a), _vec(case, b)
    return float(x @ y / (np.linalg.norm(x) * np.linalg.norm(y)))


def _train_items(case: dict[str, Any]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for user, item in case["train"]:
        out.setdefault(user, []).append(item)
    return out


def _item_counts(case: dict[str, Any]) -> Counter[int]:
    """Training rows per item (= distinct users per item: the pairs are distinct)."""
    return Counter(item for _, item in case["train"])


# -- Microsoft Recommenders 1.2.1 -----------------------------------------------------------
def _msr_cooc(case: dict[str, Any]) -> Any:
    counts = _item_counts(case)
    together: Counter[tuple[int, int]] = Counter()
    for items in _train_items(case).values():
        for a in items:
            for b in items:
                together[(a, b)] += 1

    def sim(a: int, b: int) -> float:
        n = together.get((a, b), 0)
        return n / math.sqrt(counts[a] * counts[b]) if n else 0.0
    return sim


def msr_defs(case: dict[str, Any], k: int) -> dict[str, Any]:
    """python_evaluation on every user's top k.

    * novelty: sum over recommended rows of -log2(n_i / |train rows|), an item absent from
      train adding 0 but still counting in the denominator (every row); per user the same
      on the user's rows (a micro mean over rows, not a mean of user means);
    * catalog_coverage: distinct recommended / distinct training items;
    * distributional_coverage: -sum p log2 p, p = an item's share of the recommended rows;
    * user_diversity: for users with >= 2 items, 1 - mean similarity over the unordered
      pairs; similarity ``cooc`` = users with both / sqrt(n_a n_b) (0 when they never
      co-occur), ``feat`` = cosine of the feature vectors; diversity = mean over those users;
    * user_serendipity: for users with >= 1 training row, mean over the listed items j of
      (1 - mean over the user's training items h of sim(j, h)) * relevance(j); relevance 1
      for every item (``all``) or the user's truth (``truth``).
    """
    lists = cases_module().top_k(case, k)
    counts = _item_counts(case)
    n_train = len(case["train"])
    nov = {i: -math.log2(c / n_train) for i, c in counts.items()}
    rows = [i for items in lists.values() for i in items]
    out: dict[str, Any] = {
        "novelty": sum(nov.get(i, 0.0) for i in rows) / len(rows),
        "novelty_per_user": {u: sum(nov.get(i, 0.0) for i in items) / len(items)
                             for u, items in lists.items()},
        "catalog_coverage": len(set(rows)) / len(counts),
        "distributional_coverage": -sum(c / len(rows) * math.log2(c / len(rows))
                                         for c in Counter(rows).values()),
    }
    history = _train_items(case)
    relevant = {(u, i) for u, i, _ in case["truth"]}
    for short, sim in (("cooc", _msr_cooc(case)),
                       ("feat", lambda a, b: _cos(case, a, b))):
        div = {u: 1.0 - float(np.mean([sim(a, b) for j, a in enumerate(items)
                                       for b in items[j + 1:]]))
               for u, items in lists.items() if len(items) >= 2}
        out[f"diversity_{short}"], out[f"user_diversity_{short}"] = _mean(div), div
        for rel in ("all", "truth"):
            ser = {u: float(np.mean([
                (1.0 - float(np.mean([sim(j, h) for h in history[u]])))
                * (1.0 if rel == "all" or (u, j) in relevant else 0.0) for j in items]))
                for u, items in lists.items() if history.get(u)}
            out[f"serendipity_{short}_{rel}"] = _mean(ser)
            out[f"user_serendipity_{short}_{rel}"] = ser
    return out


# -- Evidently 0.7.23 -----------------------------------------------------------------------
def evidently_defs(case: dict[str, Any], k: int) -> dict[str, Any]:
    """Report metrics (legacy recsys code) on the frame of every recommended row.

    * novelty: per user the mean over the top-k items that are in train of
      -log2(users_i / training users); users with no such item left out;
    * diversity: per user sum over unordered pairs of the top k of the cosine *distance*,
      divided by the list length (not by the number of pairs); a list of one scores 0;
    * serendipity: per user with a relevant (target > 0) item in the top k and a training
      row, 1 - sum over those relevant items j of mean_h cos(h, j) over the training items h;
    * personalization: 1 - (sum_i c_i^2 - n k) / (k (n^2 - n)), c_i = times item i is in a
      top k, n = users (assumes every list has k items);
    * arp: per user the mean over the top-k items in train of users_i (a count, not a
      share), users without such an item left out; ``arp_normalized`` divides by max users_i;
    * coverage: distinct top-k items that are in train / training items;
    * gini: over the recommended items only, counts ascending c_1..c_m:
      sum (2i - m - 1) c_i / ((m - 1) sum c).
    """
    lists = cases_module().top_k(case, k)
    history = _train_items(case)
    users_i = _item_counts(case)
    n_users = len(history)
    grade = {(u, i): g for u, i, g in case["truth"]}
    nov = {u: float(np.mean([-math.log2(users_i[i] / n_users) for i in items if i in users_i]))
           for u, items in lists.items() if any(i in users_i for i in items)}
    div = {u: sum(1.0 - _cos(case, a, b) for j, a in enumerate(items) for b in items[j + 1:])
           / len(items) for u, items in lists.items()}
    ser = {}
    for u, items in lists.items():
        rel = [j for j in items if grade.get((u, j), 0) > 0]
        if rel and history.get(u):
            ser[u] = 1.0 - sum(_cos(case, h, j) for h in history[u] for j in rel) / len(
                history[u])
    c = Counter(i for items in lists.values() for i in items)
    n = len(lists)
    arp = {u: float(np.mean([users_i[i] for i in items if i in users_i]))
           for u, items in lists.items() if any(i in users_i for i in items)}
    top = max(users_i.values())
    counts = np.sort(np.array(list(c.values()), dtype=np.float64))
    m = len(counts)
    return {
        "novelty": (_mean(nov), nov), "diversity": (_mean(div), div),
        "serendipity": (_mean(ser), ser), "arp": (_mean(arp), arp),
        "personalization": (1.0 - (sum(v * v for v in c.values()) - n * k) / (k * (n * n - n))
                            if n > 1 else math.nan),
        "arp_normalized": _mean({u: v / top for u, v in arp.items()}),
        "coverage": len(set(c) & set(users_i)) / len(users_i),
        "gini": (float(np.sum((2 * np.arange(1, m + 1) - m - 1) * counts)
                       / ((m - 1) * counts.sum())) if m > 1 else math.nan),
    }


# -- RecBole 1.2.1 --------------------------------------------------------------------------
def recbole_tail(case: dict[str, Any], ratio: float) -> set[int]:
    """TailPercentage's tail: ratio <= 1, the first max(int(n * ratio), 1) training items by
    (count, id) ascending; ratio > 1, the items with count <= ratio. Items absent from train
    are never tail items."""
    counts = _item_counts(case)
    if ratio > 1:
        return {i for i, n in counts.items() if n <= ratio}
    ranked = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]))
    return {i for i, _ in ranked[:max(int(len(ranked) * ratio), 1)]}


def recbole_defs(case: dict[str, Any], k: int, ratio: float = 0.1) -> dict[str, Any]:
    """evaluator.metrics on the users x k item matrix (every list has >= k items).

    num_items is RecBole's ``dataset.num(item_id)``: the catalog plus the padding token.
    """
    lists = cases_module().top_k(case, k)
    counts = _item_counts(case)
    n_all = case["n_items"] + 1
    c = Counter(i for items in lists.values() for i in items)
    total = len(lists) * k
    ranked = np.sort(np.array(list(c.values()), dtype=np.float64))
    idx = np.arange(n_all - len(ranked) + 1, n_all + 1)
    tail = recbole_tail(case, ratio)
    pop = {u: sum(counts.get(i, 0) for i in items) / k for u, items in lists.items()}
    share = {u: sum(i in tail for i in items) / k for u, items in lists.items()}
    return {
        "itemcoverage": len(c) / n_all,
        "averagepopularity": (_mean(pop), pop),
        "giniindex": float(np.sum((2 * idx - n_all - 1) * ranked) / total / n_all),
        "shannonentropy": -sum(v / total * math.log(v / total) for v in c.values()) / len(c),
        "tailpercentage": (_mean(share), share),
    }


# -- recmetrics 0.1.5 -----------------------------------------------------------------------
def recmetrics_defs(case: dict[str, Any], k: int) -> dict[str, Any]:
    """recmetrics on the users' top-k lists (every list has k items).

    * novelty(predicted, pop, u, n): per list sum of -log2(pop_i / u) / n with pop the
      training rows of the item, u the training users, n = k; the mean over lists (KeyError
      for an item absent from train: None here);
    * personalization: 1 - mean over ordered pairs of distinct lists of the cosine of their
      0/1 item vectors (|A & B| / k);
    * intra_list_similarity: mean over lists of the mean cosine over unordered pairs
      (features); a list of one item raises ZeroDivisionError (None here);
    * prediction_coverage: round(100 * distinct recommended / training items, 2).
    """
    lists = cases_module().top_k(case, k)
    counts = _item_counts(case)
    u = len(_train_items(case))
    rows = [lists[user] for user in sorted(lists)]  # the order the fixture passes them
    known = all(i in counts for items in rows for i in items)
    per = [sum(-math.log2(counts[i] / u) for i in items) / k for items in rows] if known else []
    n = len(rows)
    overlap = sum(len(set(a) & set(b)) / k for x, a in enumerate(rows)
                  for y, b in enumerate(rows) if x != y)
    ils = [float(np.mean([_cos(case, a, b) for j, a in enumerate(items) for b in items[j + 1:]]))
           for items in rows if len(items) > 1]
    return {
        "novelty": float(np.mean(per)) if known else None,
        "novelty_per_list": per if known else None,
        "personalization": 1.0 - overlap / (n * (n - 1)) if n > 1 else math.nan,
        "intra_list_similarity": float(np.mean(ils)) if len(ils) == n else None,
        "prediction_coverage": round(len({i for r in rows for i in r}) / len(counts) * 100, 2),
    }


# -- Elliot 0.3.1 ---------------------------------------------------------------------------
def elliot_tail(case: dict[str, Any], ratio: float = 0.8) -> set[int]:
    """Popularity.get_long_tail: training items by decreasing popularity (ties in item-index
    order, ascending ids here) form the short head until their popularity sums to ``ratio``
    of the training rows (the item that reaches it included); the others are the tail."""
    counts = _item_counts(case)
    limit = len(case["train"]) * ratio
    head: set[int] = set()
    for item in sorted(sorted(counts), key=lambda i: -counts[i]):
        head.add(item)
        limit -= counts[item]
        if limit <= 0:
            break
    return set(counts) - head


def elliot_defs(case: dict[str, Any], k: int, ratio: float = 0.8) -> dict[str, Any] | None:
    """Elliot's metric classes on lists of training items only (Elliot ranks no other item).

    * ARP: per user the mean training popularity (distinct users) of the top k;
    * APLT / ACLT: per user the share / number of the top k in ``elliot_tail``;
    * Gini: 1 - sum_j (2 (j + N - m + 1) - N - 1) c_j / total / (N - 1) (j = 0..m-1 over the
      m recommended items' counts ascending, N the training items): one minus the Gini
      index, so 1 is perfectly even exposure;
    * SEntropy: sum_i w_i (-log2(c_i / total)) / users, w_i the sum of 1 / list length over
      the users recommended i (-sum p log2 p when every list has the same length);
    * ItemCoverage: the number of distinct recommended items (not a share).
    """
    counts = _item_counts(case)
    ranked = cases_module().top_k(case, None)
    lists = {u: [i for i in items if i in counts][:k] for u, items in ranked.items()}
    lists = {u: items for u, items in lists.items() if items}
    if not lists:
        return None
    tail = elliot_tail(case, ratio)
    c = Counter(i for items in lists.values() for i in items)
    total = sum(c.values())
    n_all, m = len(counts), len(c)
    gini = sum((2 * (j + n_all - m + 1) - n_all - 1) * v / total
               for j, v in enumerate(sorted(c.values()))) / (n_all - 1)
    weight: Counter[int] = Counter()
    for items in lists.values():
        for i in items:
            weight[i] += 1 / len(items)
    arp = {u: sum(counts[i] for i in items) / len(items) for u, items in lists.items()}
    aplt = {u: len(set(items) & tail) / len(items) for u, items in lists.items()}
    aclt = {u: float(len(set(items) & tail)) for u, items in lists.items()}
    return {
        "ARP": (_mean(arp), arp), "APLT": (_mean(aplt), aplt), "ACLT": (_mean(aclt), aclt),
        "Gini": 1.0 - gini,
        "SEntropy": sum(w * -math.log2(c[i] / total) for i, w in weight.items()) / len(lists),
        "ItemCoverage": float(m),
    }
