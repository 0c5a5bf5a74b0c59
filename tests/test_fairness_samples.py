"""Expected exposure of stochastic rankers (``evaluate(sample=...)``) and expeval's group mode.

Hand-computed cases on the toy data, properties (one sample is the deterministic list;
repeated or reordered samples change nothing), the bad inputs of the sample column, and
expeval's own numbers on 60 random cases with 2-5 sampled rankings per user
(``tests/fixtures/fairness/samples.json.gz``, made by ``make_samples.py`` running expeval's
code unchanged), every value within 1e-9.
"""

from __future__ import annotations

import functools
import gzip
import json
import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
from receval.exceptions import (
    ColumnNotFoundError,
    DataError,
    DuplicateRowError,
    InvalidParameterError,
    NonFiniteValueError,
)
from tests.fairness_toy import ITEM_GROUPS, RECS, TEST
from tests.spark_session import spark, to_spark  # noqa: F401 - the session fixture

FIXTURE = Path(__file__).parent / "fixtures" / "fairness" / "samples.json.gz"
RBP = "expected_exposure(browsing=rbp, normalize=false, measure={})@3"

#: User 1 (truth: item 4 grade 5, item 6 grade 4), two sampled rankings, cut at 3.
TWO_SAMPLES = pd.DataFrame([(1, 0, 4, 1), (1, 0, 5, 2), (1, 0, 6, 3), (1, 0, 8, 4),
                            (1, 1, 6, 1), (1, 1, 8, 2), (1, 1, 4, 3), (1, 1, 5, 4)],
                           columns=["user_id", "sample", "item_id", "rank"])
USER_1 = TEST[TEST.user_id == 1]


def test_hand_computed_rbp_over_two_samples() -> None:
    # RBP, patience 0.5: ranks 1, 2, 3 have exposure 1, 0.5, 0.25.
    # sample 0: 4 5 6 -> e(4) = 1,    e(5) = 0.5, e(6) = 0.25
    # sample 1: 6 8 4 -> e(6) = 1,    e(8) = 0.5, e(4) = 0.25
    # mean:     eps(4) = 0.625, eps(5) = 0.25, eps(6) = 0.625, eps(8) = 0.25
    # target: grade 5 level {4}: (1 - 0.5) / 0.5 = 1; grade 4 level {6}: (0.5 - 0.25) / 0.5
    # = 0.5
    # EE-D = 0.625^2 + 0.25^2 + 0.625^2 + 0.25^2 = 0.90625
    # EE-R = 0.625 * 1 + 0.625 * 0.5 = 0.9375
    # EE-L = (0.625 - 1)^2 + 0.25^2 + (0.625 - 0.5)^2 + 0.25^2 = 0.28125 (= D - 2R + 1.25)
    ev = rv.evaluate(TWO_SAMPLES, USER_1, [RBP.format(m) for m in "drl"], sample="sample")
    assert list(ev.per_user.loc[1]) == pytest.approx([0.90625, 0.9375, 0.28125], abs=1e-15)


def test_hand_computed_group_mode_over_two_samples() -> None:
    # items 4 and 6 (the judged ones) are both in group 1: the run's group exposure is
    # 0.625 + 0.625 = 1.25 (items 5 and 8 are not judged: not counted), the target's 1 + 0.5
    # = 1.5: D = 1.25^2 = 1.5625, R = 1.25 * 1.5 = 1.875, L = (1.25 - 1.5)^2 = 0.0625.
    names = ["expected_exposure(browsing=rbp, normalize=false, groups=item_groups, "
             f"measure={m})@3" for m in "drl"]
    ev = rv.evaluate(TWO_SAMPLES, USER_1, names, sample="sample", item_groups=ITEM_GROUPS)
    assert list(ev.per_user.loc[1]) == pytest.approx([1.5625, 1.875, 0.0625], abs=1e-15)
    # one group: expeval's disparity bounds are both 0, the normalised value its default 0
    one = rv.evaluate(TWO_SAMPLES, USER_1, "expected_exposure(groups=item_groups, measure=d)@3",
                      sample="sample", item_groups=ITEM_GROUPS)
    assert one.per_user.iloc[0, 0] == 0.0


def test_group_mode_on_deterministic_lists() -> None:
    # user 1's list 4 5 6: eps(4) = 1, eps(6) = 0.25 -> group 1: 1.25, target 1.5 (as above)
    ev = rv.evaluate(RECS, TEST, "expected_exposure(browsing=rbp, normalize=false, "
                     "groups=item_groups)@3", item_groups=ITEM_GROUPS)
    assert ev.per_user.loc[1].iloc[0] == pytest.approx(0.0625, abs=1e-15)


NAMES = ["expected_exposure@3", "expected_exposure(measure=d)@3",
         "expected_exposure(measure=r)@3", "expected_exposure(browsing=rbp, normalize=false)@3",
         "expected_exposure(judgments=complete)@3",
         "expected_exposure(judgments=complete, measure=r, grades=binary)@3"]


def test_one_sample_is_the_deterministic_list() -> None:
    plain = rv.evaluate(RECS, TEST, NAMES).per_user
    one = rv.evaluate(RECS.assign(sample="a"), TEST, NAMES, sample="sample").per_user
    pd.testing.assert_frame_equal(plain, one, rtol=0, atol=1e-15)


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 4), st.randoms(use_true_random=False))
def test_repeated_and_reordered_samples_change_nothing(copies: int, rnd: Any) -> None:
    rng = np.random.default_rng(rnd.randint(0, 2**31))
    # two distinct sampled rankings per user, each repeated `copies` times, rows shuffled:
    # the mean exposure is that of the two rankings
    a = RECS.assign(sample=0)
    b = RECS.assign(sample=1, score=-RECS.score)
    base = rv.evaluate(pd.concat([a, b]), TEST, NAMES, sample="sample").per_user
    many = pd.concat([x.assign(sample=x["sample"] + 2 * c) for c in range(copies)
                      for x in (a, b)])
    many = many.iloc[rng.permutation(len(many))]
    got = rv.evaluate(many, TEST, NAMES, sample="sample").per_user
    pd.testing.assert_frame_equal(base, got, rtol=0, atol=1e-12)


@pytest.mark.parametrize(("frame", "kw", "error", "words"), [
    (TWO_SAMPLES.drop(columns="sample"), {}, ColumnNotFoundError, "no sample column"),
    (TWO_SAMPLES.assign(sample=[0, 0, None, 0, 1, 1, 1, 1]), {}, NonFiniteValueError,
     "missing values"),
    (pd.concat([TWO_SAMPLES, TWO_SAMPLES.assign(user_id=2, sample=7).iloc[:4],
                TWO_SAMPLES.assign(user_id=3).iloc[:4]]), {}, DataError, "user 1: 2"),
    (TWO_SAMPLES, {"metrics": ["expected_exposure@3", "ndcg@3", "awrf@3"]},
     InvalidParameterError, "NDCG@3"),
    (TWO_SAMPLES, {"sample": 3}, InvalidParameterError, "name of a column"),
    (TWO_SAMPLES, {"buckets": 2}, InvalidParameterError, "in memory only"),
    (pd.concat([TWO_SAMPLES, TWO_SAMPLES.iloc[:1]]), {}, DuplicateRowError,
     r"repeat within a sampled ranking.*\(1, 0, 4\)"),
])
def test_bad_samples(frame: pd.DataFrame, kw: dict[str, Any], error: type, words: str) -> None:
    metrics = kw.pop("metrics", "expected_exposure@3")
    kw.setdefault("sample", "sample")
    truth = pd.concat([USER_1, USER_1.assign(user_id=2), USER_1.assign(user_id=3)])
    with pytest.raises(error, match=words):
        rv.evaluate(frame, truth, metrics, **kw)


def test_group_relevance_normalised_is_refused() -> None:
    with pytest.raises(InvalidParameterError, match="always 1"):
        rv.metrics.parse("expected_exposure(groups=item_groups, measure=r)@3")


def test_sample_flag_on_the_command_line(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from receval.cli import cli

    TWO_SAMPLES.to_csv(tmp_path / "recs.csv", index=False)
    USER_1.to_csv(tmp_path / "truth.csv", index=False)
    out = CliRunner().invoke(cli, ["evaluate", str(tmp_path / "recs.csv"),
                                   str(tmp_path / "truth.csv"), "-m", RBP.format("l"),
                                   "--sample", "sample"])
    assert out.exit_code == 0, out.output
    assert "0.281" in out.output  # 0.28125, as above


# -- expeval ----------------------------------------------------------------------------------
@functools.cache
def fixture() -> dict[str, Any]:
    with gzip.open(FIXTURE, "rt", encoding="utf-8") as f:
        data: dict[str, Any] = json.load(f)
    return data


FLAGS = {"gerr": "", "gerr -U": "normalize=false", "rbp": "browsing=rbp",
         "rbp -U": "browsing=rbp, normalize=false", "gerr -C": "judgments=complete",
         "rbp -C -U": "browsing=rbp, judgments=complete, normalize=false",
         "gerr -B": "grades=binary",
         "gerr p0.7 r0.3": "browsing='cascade(patience=0.7, stop=0.3)'",
         "gerr -G": "groups=item_groups", "gerr -G -U": "groups=item_groups, normalize=false",
         "rbp -G": "browsing=rbp, groups=item_groups",
         "rbp -G -U": "browsing=rbp, groups=item_groups, normalize=false",
         "gerr -G -C": "groups=item_groups, judgments=complete",
         "rbp -G -C -U": "browsing=rbp, groups=item_groups, judgments=complete, "
                         "normalize=false"}
MEASURES = {"disparity": "d", "relevance": "r", "difference": "l"}


def _names(k: int) -> dict[tuple[str, str], str]:
    out = {}
    for flags, params in FLAGS.items():
        for measure, m in MEASURES.items():
            if "-G" in flags and m == "r" and "-U" not in flags:
                continue  # expeval's group relevance bounds are both 0: always 1 (below)
            out[flags, measure] = "ee(" + ", ".join(
                x for x in (params, f"measure={m}") if x) + f")@{k}"
    return out


@pytest.mark.conformance
def test_expeval_on_sampled_rankings() -> None:
    data = fixture()
    assert len(data["cases"]) == 60
    bad, n, zero_exposure = [], 0, 0
    for c in data["cases"]:
        recs = pd.DataFrame(c["recs"], columns=["user_id", "sample", "item_id", "rank"])
        truth = pd.DataFrame(c["test"], columns=["user_id", "item_id", "rating"])
        groups = pd.DataFrame([(int(i), g) for i, gs in c["item_groups"].items() for g in gs],
                              columns=["item_id", "group"])
        names = _names(c["k"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ev = rv.evaluate(recs, truth, list(names.values()), sample="sample",
                             item_groups=groups)
        for (flags, measure), metric in names.items():
            label = rv.metrics.parse(metric).label
            for qid, values in c["expeval"][flags].items():
                want, got = values[measure], float(ev.per_user.loc[int(qid), label])
                if math.isinf(want):  # expeval's l2 of a zero vector is inf: no judged item
                    zero_exposure += 1  # of the groups was exposed (receval: 0)
                    raw = rv.metrics.parse(metric if "normalize=false" in metric else
                                           metric.replace(")@", ", normalize=false)@"))
                    got_raw = rv.evaluate(recs, truth, raw, sample="sample",
                                          item_groups=groups).per_user.loc[int(qid)].iloc[0]
                    assert got_raw == 0.0
                    continue
                n += 1
                if abs(got - want) > 1e-9:
                    bad.append((c["seed"], flags, measure, qid, got, want))
            if "-G" in flags and "-U" not in flags:  # the group relevance receval refuses
                assert all(v["relevance"] == 1.0 for v in c["expeval"][flags].values())
    assert not bad, bad[:10]
    assert n > 4000
    assert zero_exposure > 0


def test_doors_compare_by_and_settings() -> None:
    two = pd.concat([RECS.assign(sample=0), RECS.assign(sample=1, score=-RECS.score)])
    ev = rv.evaluate(two, TEST, "expected_exposure@3", sample="sample")
    assert ev.settings["columns"]["sample"] == "sample"
    by = ev.by({1: "a", 2: "a", 3: "b", 4: "b"})
    want = ev.per_user.iloc[:, 0].groupby({1: "a", 2: "a", 3: "b", 4: "b"}.get).mean()
    assert list(by.iloc[:, 1]) == pytest.approx(list(want), abs=1e-15)
    cmp = rv.compare({"two": two, "one": RECS.assign(sample=0)}, TEST, ["expected_exposure@3"],
                     sample="sample", n_resamples=200)
    one = rv.evaluate(RECS, TEST, "expected_exposure@3")
    label = ev.labels[0]
    assert cmp.ci.loc[("two", label), "mean"] == pytest.approx(ev[label], abs=1e-15)
    assert cmp.ci.loc[("one", label), "mean"] == pytest.approx(one[label], abs=1e-15)


def test_spark_refuses_samples(spark: Any) -> None:  # noqa: F811
    with pytest.raises(InvalidParameterError, match="not on Spark"):
        rv.evaluate(to_spark(spark, TWO_SAMPLES), to_spark(spark, USER_1),
                    "expected_exposure@3", sample="sample")


VARIANTS = [*NAMES, "expected_exposure(browsing='rbp(patience=0.8)', judgments=complete, "
            "normalize=false, measure=d)@5",
            "expected_exposure(browsing='cascade(patience=0.7, stop=0.3)', grades=binary)@2"]


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(1, 3))
def test_copies_of_one_ranking_are_the_deterministic_list(seed: int, copies: int) -> None:
    # random users, grades 0-4 (0: judged, not relevant), lists of 1-8 items; every sample
    # a copy of the list: the mean exposure is the list's, so every variant is the same
    rng = np.random.default_rng(seed)
    recs, truth = [], []
    for u in range(int(rng.integers(2, 7))):
        items = rng.choice(20, int(rng.integers(1, 9)), replace=False)
        recs += [(u, int(i), float(-r)) for r, i in enumerate(items)]
        held = rng.choice(20, int(rng.integers(1, 6)), replace=False)
        truth += [(u, int(i), int(g)) for i, g in zip(held, rng.integers(0, 5, len(held)),
                                                      strict=True)]
    recs_f = pd.DataFrame(recs, columns=["user_id", "item_id", "score"])
    truth_f = pd.DataFrame(truth, columns=["user_id", "item_id", "rating"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = rv.evaluate(recs_f, truth_f, VARIANTS).per_user
        many = rv.evaluate(pd.concat([recs_f.assign(sample=c) for c in range(copies)]),
                           truth_f, VARIANTS, sample="sample").per_user
    pd.testing.assert_frame_equal(plain, many, rtol=0, atol=1e-12)


def test_repeats_within_a_sample_under_duplicates_first() -> None:
    # user a: sample 0 ranks 4, 5; sample 1 ranks 4, 4 (the repeat dropped): eps(4) = (1 + 1)
    # / 2 = 1, eps(5) = 0.5 / 2 = 0.25; target 4: 1 -> EE-L = 0 + 0.25^2 = 0.0625
    # user b: eps(4) = eps(5) = 0.5; target 5: 1 -> EE-L = 0.25 + 0.25 = 0.5
    recs = pd.DataFrame([("a", 0, 4, 1), ("a", 0, 5, 2), ("a", 1, 4, 1), ("a", 1, 4, 2),
                         ("b", 0, 4, 1), ("b", 1, 5, 1)],
                        columns=["user", "sample", "item", "rank"])
    truth = pd.DataFrame([("a", 4, 1), ("b", 5, 1)], columns=["user", "item", "rating"])
    ev = rv.evaluate(recs, truth, RBP.format("l"), sample="sample", duplicates="first")
    assert list(ev.per_user.iloc[:, 0]) == pytest.approx([0.0625, 0.5], abs=1e-15)
    assert ev.settings["recs_duplicates_dropped"] == 1


@pytest.mark.parametrize(("name", "kw", "error", "words"), [
    ("expected_exposure(groups=item_groups)@3", {}, InvalidParameterError,
     "needs evaluate\\(item_groups"),
    ("expected_exposure(groups=popularity)@3", {}, InvalidParameterError, "needs evaluate\\(train"),
    ("expected_exposure(groups=item_groups)@3", {"item_groups": {1: "a", 2: "a"}}, DataError,
     "6 judged items have no group"),
    ("expected_exposure(groups=popularity)@3", {"train": "TRAIN"}, DataError,
     "absent from train.*8"),
])
def test_group_mode_refuses(name: str, kw: dict[str, Any], error: type, words: str) -> None:
    from tests.fairness_toy import TRAIN

    kw = {k: TRAIN if v == "TRAIN" else v for k, v in kw.items()}
    with pytest.raises(error, match=words):
        rv.evaluate(RECS, TEST, name, **kw)


def test_group_mode_skips_ungrouped_judged_items() -> None:
    # popularity groups: item 8 (judged for users 2 and 4) is absent from train; skipped, user
    # 1 (items 4 and 6, both in the tail) is as in group mode above: 0.0625
    from tests.fairness_toy import TRAIN

    ev = rv.evaluate(RECS, TEST, "expected_exposure(groups=popularity, ungrouped=skip, "
                     "browsing=rbp, normalize=false)@3", train=TRAIN)
    assert ev.per_user.iloc[0, 0] == pytest.approx(0.0625, abs=1e-15)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_group_mode_with_one_item_per_group_is_item_mode(seed: int) -> None:
    # every item its own group, every recommended item judged (complete judgments): the
    # group vectors are the item vectors, so the raw measures agree
    rng = np.random.default_rng(seed)
    recs, truth = [], []
    for u in range(int(rng.integers(2, 6))):
        judged = rng.choice(15, int(rng.integers(2, 9)), replace=False)
        grades = rng.integers(0, 4, len(judged))
        grades[0] = max(int(grades[0]), 1)
        truth += [(u, int(i), int(g)) for i, g in zip(judged, grades, strict=True)]
        for s in range(2):
            listed = rng.permutation(judged)[:int(rng.integers(1, len(judged) + 1))]
            recs += [(u, s, int(i), r) for r, i in enumerate(listed, 1)]
    recs_f = pd.DataFrame(recs, columns=["user_id", "sample", "item_id", "rank"])
    truth_f = pd.DataFrame(truth, columns=["user_id", "item_id", "rating"])
    names = {m: f"expected_exposure(judgments=complete, normalize=false, measure={m})@4"
             for m in "drl"}
    grouped = {m: n.replace(")@", ", groups=item_groups)@") for m, n in names.items()}
    ev = rv.evaluate(recs_f, truth_f, [*names.values(), *grouped.values()], sample="sample",
                     item_groups={i: f"g{i}" for i in range(15)})
    for m in "drl":
        a = ev.per_user[rv.metrics.parse(names[m]).label]
        b = ev.per_user[rv.metrics.parse(grouped[m]).label]
        np.testing.assert_allclose(a.to_numpy(), b.to_numpy(), rtol=0, atol=1e-12)
