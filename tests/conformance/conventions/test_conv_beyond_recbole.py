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
from unittest import mock

import numpy as np
import pandas as pd
import pytest
import torch
from recbole.evaluator import metrics as rm
from recbole.evaluator.collector import DataStruct

import receval as rv
from receval.exceptions import InvalidParameterError
from tests.conformance._data import assert_close
from tests.conformance.conventions._beyond_defs import cases_module, recbole_defs
from tests.conformance.conventions._beyond_receval import compare, evaluate, frames

pytestmark = pytest.mark.conformance

RATIOS = (0.1, 0.2, 0.5, 2.0)


def recbole_ks(case: dict[str, Any]) -> list[int]:
    """The case's cutoffs that every list reaches (RecBole's matrix is rectangular)."""
    ks = [k for k in case["ks"] if k <= case["full_k"]]
    return ks or [case["full_k"]]


def recbole_values(case: dict[str, Any], ks: list[int], ratio: float,
                   num_items: int | None = None) -> dict[str, Any]:
    """RecBole's means and per-user values: ``{k: {metric: mean | (mean, per_user)}}``.

    ``num_items``: ``dataset.num(item_id)``, by default the case's catalog plus ``[PAD]``.
    """
    lists = cases_module().top_k(case, max(ks))
    users = list(lists)
    matrix = np.array([lists[u] for u in users], dtype=np.int64)
    data = DataStruct()
    data.set("rec.items", torch.from_numpy(matrix))
    data.set("data.num_items", case["n_items"] + 1 if num_items is None else num_items)
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
    """ItemCoverage and GiniIndex divide by ``dataset.num(item_id)``, the catalog plus
    RecBole's ``[PAD]`` token (the preset's ``extra_items=1``). Six catalog items, three
    recommended: coverage 3 / 7, not 3 / 6."""
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


def _check_preset(case: dict[str, Any], ratio: float, catalog: bool = True) -> None:
    """convention='recbole' against RecBole live.

    With ``catalog``: ``catalog=`` the case's items 1..n (RecBole's dataset holds them all;
    its ``[PAD]`` id 0 is the preset's ``extra_items=1``). Without: RecBole's num_items is
    the items of train, truth and the lists, plus ``[PAD]``, which is what receval counts.
    """
    ks = recbole_ks(case)
    lists = cases_module().top_k(case, max(ks))
    seen = ({i for _, i in case["train"]} | {i for _, i, _ in case["truth"]}
            | {i for items in lists.values() for i in items})
    live = recbole_values(case, ks, ratio, None if catalog else len(seen) + 1)
    tail = "" if ratio == 0.1 else f"(tail={ratio})"
    for k in ks:
        names = [f"{m}{tail if m == 'long_tail' else ''}@{k}" for m in PRESET]
        rows = [[u, i, float(-j)] for u, items in lists.items() for j, i in enumerate(items)]
        extra = {"catalog": list(range(1, case["n_items"] + 1))} if catalog else {}
        ev = evaluate(case, names, "recbole", recs_rows=rows, **extra)
        for name, label in zip(names, ev.labels, strict=True):
            theirs = live[str(k)][PRESET[name.split("@")[0].split("(")[0]]]
            mean, users = theirs if isinstance(theirs, tuple) else (theirs, None)
            compare(ev, label, mean, users, f"{case['name']} {name} (catalog: {catalog})")


@pytest.mark.slow
def test_preset_reproduces_recbole_on_random_cases() -> None:
    """convention='recbole', 200 random + 2 hand-made cases, tail ratios 0.1 (RecBole's
    default) and 0.2, 0.5; every user's top k is given as RecBole's item matrix holds it;
    with catalog= the case's items, and without (train, truth and lists only)."""
    for case in [*cases_module().edge_cases(), *cases_module().random_cases()]:
        for ratio in RATIOS[:3]:
            _check_preset(case, ratio)
        _check_preset(case, 0.1, catalog=False)


@pytest.mark.parametrize("catalog", [True, False])
def test_preset_reproduces_recbole_on_edge_cases(catalog: bool) -> None:
    """The hand-made cases, with and without catalog= (every environment runs these)."""
    for case in cases_module().edge_cases():
        _check_preset(case, 0.1, catalog=catalog)


def test_num_items_counts_items_only_in_the_truth() -> None:
    """edge-same-lists: every user gets items 4, 5, 6; train holds 1, 2, 3. An item seen
    only in the truth (7) is an item of RecBole's dataset: num_items = |{1..7}| + [PAD] = 8,
    itemcoverage@3 = 3 / 8; receval counts it without catalog= (today's 3 / 8, not 3 / 7)."""
    case = dict(cases_module().edge_cases()[1])
    case["truth"] = [*case["truth"], ["u0", 7, 1]]
    live = recbole_values(case, [3], 0.1, num_items=8)["3"]
    assert_close(live["itemcoverage"], 3 / 8, "itemcoverage@3")
    rows = [[u, i, float(-j)] for u, items in cases_module().top_k(case, 3).items()
            for j, i in enumerate(items)]
    ev = evaluate(case, ["catalog_coverage@3", "gini@3"], "recbole", recs_rows=rows)
    assert ev[ev.labels[0]] == 3 / 8
    assert_close(ev[ev.labels[1]], live["giniindex"], "giniindex@3")
    assert ev.settings["beyond"]["dataset_items"] == 7


def test_num_items_needs_train_or_catalog() -> None:
    """Without train= and catalog= receval cannot know the training items RecBole's dataset
    holds: an error naming both, rather than a smaller num_items."""
    case = cases_module().edge_cases()[1]
    data = frames(case)
    with pytest.raises(InvalidParameterError, match=r"train=.*catalog="):
        rv.evaluate(data["recs"], data["truth"], ["catalog_coverage@3"], convention="recbole")


# -- num_items as RecBole's own data pipeline counts it -----------------------------------------
TOY_TRAIN = {"u1": ["i1", "i2", "i3"], "u2": ["i1", "i2"], "u3": ["i1", "i4"],
             "u4": ["i1", "i2", "i5"], "u5": ["i1", "i2", "i3", "i6"]}
TOY_VALID = {"u1": ["i8"], "u2": ["i3"], "u3": ["i2"], "u4": ["i3"], "u5": ["i4"]}
TOY_TEST = {"u1": ["i7"], "u2": ["i4"], "u3": ["i3"], "u4": ["i7"], "u5": ["i5"]}
TOY_ITEMS = [f"i{j}" for j in range(1, 10)]  # the .item file: i9 is in no interaction
#: top-2 lists (RecBole's Pop on the toy data recommends i8, i6, i5 and i3)
TOY_LISTS = {"u1": ["i6", "i5"], "u2": ["i8", "i5"], "u3": ["i3", "i5"], "u4": ["i8", "i6"],
             "u5": ["i8", "i5"]}


def _toy_dataset(path: Any, item_file: bool) -> Any:
    """RecBole's dataset of the toy benchmark files (train, valid, test .inter, .item)."""
    from recbole.config import Config
    from recbole.data import create_dataset

    t = 0
    for part, rows in (("train", TOY_TRAIN), ("valid", TOY_VALID), ("test", TOY_TEST)):
        lines = ["user_id:token\titem_id:token\ttimestamp:float"]
        for user, items in rows.items():
            for item in items:
                t += 1
                lines.append(f"{user}\t{item}\t{t}")
        (path / "toy").mkdir(exist_ok=True)
        (path / "toy" / f"toy.{part}.inter").write_text("\n".join(lines) + "\n")
    (path / "toy" / "toy.item").write_text(
        "item_id:token\tgenre:token\n" + "".join(f"{i}\tg\n" for i in TOY_ITEMS))
    # RecBole 1.2.1's Config reads np.float_, np.complex_ and np.unicode_ (gone in numpy 2)
    with mock.patch.object(np, "float_", np.float64, create=True), \
            mock.patch.object(np, "complex_", np.complex128, create=True), \
            mock.patch.object(np, "unicode_", np.str_, create=True):
        config = Config(model="Pop", dataset="toy", config_dict={
            "data_path": str(path), "benchmark_filename": ["train", "valid", "test"],
            "load_col": {"inter": ["user_id", "item_id", "timestamp"],
                         **({"item": ["item_id", "genre"]} if item_file else {})},
            "device": "cpu", "use_gpu": False, "show_progress": False, "state": "ERROR",
            "checkpoint_dir": str(path / "saved")})
        return create_dataset(config)


@pytest.mark.usefixtures("library_noise_ignored")  # RecBole's pandas deprecations and logs
@pytest.mark.parametrize("item_file", [False, True])
def test_num_items_of_recbole_pipeline(tmp_path: Any, monkeypatch: pytest.MonkeyPatch,
                                       item_file: bool) -> None:
    """RecBole's ``dataset.num(item_id)``, built by its own pipeline from benchmark files:
    [PAD] + every item of train, valid and test interactions (i7 only in test, i8 only in
    valid) + the .item file's (i9). ItemCoverage and GiniIndex given that num_items equal
    the preset with train= (the train part), truth (the test part) and the lists: without
    catalog= when every item is in those inputs (i8 is recommended), with catalog= the .item
    file's items when the dataset holds one more."""
    monkeypatch.chdir(tmp_path)  # RecBole writes its log directories into the working dir
    dataset = _toy_dataset(tmp_path, item_file)
    num_items = dataset.num("item_id")
    assert num_items == 1 + (9 if item_file else 8)
    matrix = np.array([[dataset.token2id("item_id", i) for i in TOY_LISTS[u]]
                       for u in TOY_LISTS], dtype=np.int64)
    data = DataStruct()
    data.set("rec.items", torch.from_numpy(matrix))
    data.set("data.num_items", num_items)
    config = {"topk": [2], "metric_decimal_place": 15}
    theirs = {**rm.ItemCoverage(config).calculate_metric(data),
              **rm.GiniIndex(config).calculate_metric(data)}
    recs = pd.DataFrame([(u, i, float(2 - r)) for u, items in TOY_LISTS.items()
                         for r, i in enumerate(items)], columns=["user", "item", "score"])
    truth = pd.DataFrame([(u, i) for u, items in TOY_TEST.items() for i in items],
                         columns=["user", "item"])
    train = pd.DataFrame([(u, i) for u, items in TOY_TRAIN.items() for i in items],
                         columns=["user", "item"])
    ev = rv.evaluate(recs, truth, ["catalog_coverage@2", "gini@2"], convention="recbole",
                     train=train, catalog=TOY_ITEMS if item_file else None)
    assert_close(ev[ev.labels[0]], theirs["itemcoverage@2"], "itemcoverage@2")
    assert_close(ev[ev.labels[1]], theirs["giniindex@2"], "giniindex@2")
    assert_close(theirs["itemcoverage@2"], 4 / num_items, "4 distinct items recommended")
