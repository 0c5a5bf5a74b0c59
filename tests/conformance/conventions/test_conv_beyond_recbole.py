"""Beyond-accuracy conformance with RecBole 1.2.1 (``recbole.evaluator.metrics``), run live.

RecBole's beyond-accuracy metrics read a users x max(topk) matrix of item ids
(``rec.items``, every user's full-ranking top k), ``data.num_items`` (``dataset.num``: the
catalog *plus the padding token* ``[PAD]``) and ``data.count_items`` (training interactions
per item). The test builds those inputs from the cases of ``fixtures/beyond_cases.py`` (item
ids are RecBole's internal ids 1..n, 0 being the padding token) and calls
``calculate_metric`` (the means) and ``metric_info`` (per user) of

* ``ItemCoverage``: distinct items in the matrix / num_items;
* ``AveragePopularity``: per user the mean training count of the top k (0 when absent);
* ``GiniIndex``: Gini over num_items items, the never-recommended ones at 0;
* ``ShannonEntropy``: -sum p ln p over the recommended items, p = count / (users * k),
  *divided by the number of distinct recommended items*;
* ``TailPercentage``: per user the share of the top k in the tail: with ``tail_ratio`` r <= 1
  the first max(int(n r), 1) training items by (count, id) ascending, with r > 1 the items
  with count <= r (items absent from train are never tail).

Each is compared with the written definition in ``_beyond_defs.recbole_defs`` (the spec in
``docs/beyond-accuracy-libraries.md``) on 200 random cases and the hand-made ones.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pytest
import torch
from recbole.evaluator import metrics as rm
from recbole.evaluator.collector import DataStruct

from tests.conformance._data import assert_close
from tests.conformance.conventions._beyond_defs import cases_module, recbole_defs
from tests.conformance.conventions._beyond_receval import compare, evaluate

pytestmark = pytest.mark.conformance

RATIOS = (0.1, 0.2, 0.5, 2.0)


def recbole_ks(case: dict[str, Any]) -> list[int]:
    """The case's cutoffs that every list reaches (RecBole's matrix is rectangular)."""
    ks = [k for k in case["ks"] if k <= case["full_k"]]
    return ks or [case["full_k"]]


def recbole_values(case: dict[str, Any], ks: list[int], ratio: float) -> dict[str, Any]:
    """RecBole's means and per-user values: ``{k: {metric: mean | (mean, per_user)}}``."""
    lists = cases_module().top_k(case, max(ks))
    users = list(lists)
    matrix = np.array([lists[u] for u in users], dtype=np.int64)
    data = DataStruct()
    data.set("rec.items", torch.from_numpy(matrix))
    data.set("data.num_items", case["n_items"] + 1)
    data.set("data.count_items", Counter(item for _, item in case["train"]))
    config = {"topk": ks, "metric_decimal_place": 15, "tail_ratio": ratio}
    means: dict[str, float] = {}
    for cls in (rm.ItemCoverage, rm.AveragePopularity, rm.GiniIndex, rm.ShannonEntropy,
                rm.TailPercentage):
        means.update(cls(config).calculate_metric(data))
    counts = dict(data.get("data.count_items"))
    pop = rm.AveragePopularity(config)
    tail = rm.TailPercentage(config)
    per_pop = pop.metric_info(pop.get_pop(matrix, counts))
    per_tail = tail.metric_info(tail.get_tail(matrix, counts))
    out: dict[str, Any] = {}
    for k in ks:
        out[str(k)] = {
            "itemcoverage": means[f"itemcoverage@{k}"],
            "giniindex": means[f"giniindex@{k}"],
            "shannonentropy": means[f"shannonentropy@{k}"],
            "averagepopularity": (means[f"averagepopularity@{k}"],
                                  dict(zip(users, per_pop[:, k - 1].tolist(), strict=True))),
            "tailpercentage": (means[f"tailpercentage@{k}"],
                               dict(zip(users, per_tail[:, k - 1].tolist(), strict=True))),
        }
    return out


def _same(ours: Any, theirs: Any, what: str) -> None:
    if isinstance(theirs, tuple):
        _same(ours[0], theirs[0], f"{what} mean")
        assert set(ours[1]) == set(theirs[1]), f"{what}: users"
        for user, value in theirs[1].items():
            _same(ours[1][user], value, f"{what} {user}")
    else:
        assert_close(float(ours), float(theirs), what)


def _check_definitions(case: dict[str, Any]) -> None:
    ks = recbole_ks(case)
    for ratio in RATIOS:
        live = recbole_values(case, ks, ratio)
        for k in ks:
            written = recbole_defs(case, k, ratio)
            for name, value in live[str(k)].items():
                _same(written[name], value, f"{case['name']} {name}@{k} tail_ratio={ratio}")


@pytest.mark.slow
def test_written_definitions_match_recbole_on_random_cases() -> None:
    """200 random cases x their cutoffs x four tail ratios (two of them > 1 or >= 0.5)."""
    for case in cases_module().random_cases():
        _check_definitions(case)


@pytest.mark.parametrize("index", [0, 1])
def test_written_definitions_match_recbole_on_edge_cases(index: int) -> None:
    """A list of one, a cold user, an item absent from train, every user with one list."""
    _check_definitions(cases_module().edge_cases()[index])


def test_num_items_counts_the_padding_token() -> None:
    """Difference (to list in the preset): ItemCoverage and GiniIndex divide by
    ``dataset.num(item_id)``, the catalog plus RecBole's ``[PAD]`` token. Six catalog items,
    three recommended: coverage 3 / 7, not 3 / 6."""
    case = cases_module().edge_cases()[1]
    assert case["n_items"] == 6
    live = recbole_values(case, [3], 0.1)["3"]
    assert_close(live["itemcoverage"], 3 / 7, "itemcoverage@3")


def test_entropy_is_divided_by_the_recommended_items() -> None:
    """Difference: ShannonEntropy divides the entropy by the number of distinct recommended
    items. Three users each recommended items 4, 5, 6: p = 3/9 each, entropy ln 3, RecBole
    ln(3) / 3."""
    live = recbole_values(cases_module().edge_cases()[1], [3], 0.1)["3"]
    assert_close(live["shannonentropy"], float(np.log(3.0)) / 3.0, "shannonentropy@3")


#: receval metric under convention="recbole" -> RecBole's key
PRESET = {"catalog_coverage": "itemcoverage", "gini": "giniindex",
          "entropy": "shannonentropy", "popularity": "averagepopularity",
          "long_tail": "tailpercentage"}


def _check_preset(case: dict[str, Any], ratio: float) -> None:
    """convention='recbole' against RecBole live, catalog= the items plus the [PAD] id 0."""
    ks = recbole_ks(case)
    live = recbole_values(case, ks, ratio)
    tail = "" if ratio == 0.1 else f"(tail={ratio})"
    for k in ks:
        names = [f"{m}{tail if m == 'long_tail' else ''}@{k}" for m in PRESET]
        lists = cases_module().top_k(case, k)
        rows = [[u, i, float(-j)] for u, items in lists.items() for j, i in enumerate(items)]
        ev = evaluate(case, names, "recbole", recs_rows=rows,
                      catalog=list(range(case["n_items"] + 1)))
        for name, label in zip(names, ev.labels, strict=True):
            theirs = live[str(k)][PRESET[name.split("@")[0].split("(")[0]]]
            mean, users = theirs if isinstance(theirs, tuple) else (theirs, None)
            compare(ev, label, mean, users, f"{case['name']} {name}")


@pytest.mark.slow
def test_preset_reproduces_recbole_on_random_cases() -> None:
    """convention='recbole', 200 random + 2 hand-made cases, tail ratios 0.1 (RecBole's
    default) and 0.2, 0.5; every user's top k is given as RecBole's item matrix holds it."""
    for case in [*cases_module().edge_cases(), *cases_module().random_cases()]:
        for ratio in RATIOS[:3]:
            _check_preset(case, ratio)


def test_difference_pad_token_in_the_catalog() -> None:
    """Difference (recbole): with catalog= the 6 catalog items receval's coverage is 3/6;
    RecBole's 3/7 needs the [PAD] token as a seventh catalog item."""
    case = cases_module().edge_cases()[1]
    ev = evaluate(case, ["catalog_coverage@3"], "recbole", catalog=list(range(1, 7)))
    assert ev[ev.labels[0]] == 0.5
    assert recbole_values(case, [3], 0.1)["3"]["itemcoverage"] == pytest.approx(3 / 7)
