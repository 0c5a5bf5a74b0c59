"""rv.compare / compare_folds: inputs, pairing of users, coverage readings, tables, errors."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval.exceptions import EmptyInputError, InvalidParameterError, UnknownMetricError
from tests.compare_helpers import result


def tables(n_users=60, seed=0):
    rng = np.random.default_rng(seed)
    truth = pd.DataFrame({"user": np.repeat(np.arange(n_users), 4),
                          "item": rng.integers(0, 30, 4 * n_users)})
    truth = truth.drop_duplicates(["user", "item"])
    systems = {}
    for name, bias in (("good", 1.0), ("fair", 0.5), ("random", 0.0)):
        r = np.random.default_rng(seed + len(systems) + 1)
        rows = []
        for u in range(n_users):
            rel = set(truth.loc[truth["user"] == u, "item"])
            rows.extend((u, i, r.random() + bias * (i in rel)) for i in range(30))
        systems[name] = pd.DataFrame(rows, columns=["user", "item", "score"])
    return systems, truth


# -- seed 003: rating comparisons on different coverage ---------------------------------------
TRUTH = pd.DataFrame({"user": ["u1", "u1", "u1", "u2", "u2"],
                      "item": ["i1", "i2", "i3", "i1", "i4"],
                      "rating": [4.0, 2.0, 5.0, 3.0, 1.0]})
PRED_A = pd.DataFrame({"user": ["u1", "u1", "u2", "u2"], "item": ["i1", "i2", "i1", "i4"],
                       "score": [3.5, 2.0, 3.0, 2.0]})      # predicts 4 of 5 truth pairs
PRED_B = pd.DataFrame({"user": ["u1", "u1", "u2"], "item": ["i1", "i3", "i1"],
                       "score": [4.0, 4.0, 2.0]})           # predicts 3 of 5 truth pairs


def test_seed_003_coverage_both_readings():
    cmp = rv.compare({"A": PRED_A, "B": PRED_B}, TRUTH, ["mae", "rmse"])
    table = cmp.table()
    # common subset = the pairs both predict: (u1, i1) and (u2, i1)
    #   A: |3.5 - 4| = .5, |3 - 3| = 0 -> MAE .25, RMSE sqrt(.25 / 2) = .353553
    #   B: |4 - 4| = 0, |2 - 3| = 1    -> MAE .5,  RMSE sqrt(1 / 2) = .707107
    assert table.loc["A", "MAE [common]"] == pytest.approx(0.25)
    assert table.loc["B", "MAE [common]"] == pytest.approx(0.5)
    assert table.loc["A", "RMSE [common]"] == pytest.approx(np.sqrt(0.125))
    assert table.loc["B", "RMSE [common]"] == pytest.approx(np.sqrt(0.5))
    # fill with the global mean of the truth ratings (4 + 2 + 5 + 3 + 1) / 5 = 3
    #   A: errors .5, 0, |3 - 5| = 2, 0, |2 - 1| = 1 -> MAE 3.5 / 5 = .7
    #   B: errors 0, |3 - 2| = 1, |4 - 5| = 1, 1, |3 - 1| = 2 -> MAE 5 / 5 = 1
    assert table.loc["A", "MAE [fill=global_mean]"] == pytest.approx(0.7)
    assert table.loc["B", "MAE [fill=global_mean]"] == pytest.approx(1.0)
    #   RMSE A: sqrt((.25 + 0 + 4 + 0 + 1) / 5) = sqrt(1.05); B: sqrt((0+1+1+1+4)/5)
    assert table.loc["A", "RMSE [fill=global_mean]"] == pytest.approx(np.sqrt(1.05))
    assert table.loc["B", "RMSE [fill=global_mean]"] == pytest.approx(np.sqrt(1.4))
    assert table["coverage"].to_dict() == pytest.approx({"A": 0.8, "B": 0.6})
    assert cmp.coverage.loc["A", "predicted"] == 4
    assert cmp.coverage.loc["B", "truth_pairs"] == 5
    assert list(table.columns) == ["MAE [common]", "RMSE [common]", "MAE [fill=global_mean]",
                                   "RMSE [fill=global_mean]", "coverage"]


def test_seed_003_fill_with_a_number_and_single_readings():
    cmp = rv.compare({"A": PRED_A, "B": PRED_B}, TRUTH, "mae", coverage="fill",
                     missing_predictions=2.5)
    # A: .5, 0, |2.5 - 5| = 2.5, 0, 1 -> 4 / 5 = .8
    # B: 0, |2.5 - 2| = .5, 1, 1, |2.5 - 1| = 1.5 -> 4 / 5 = .8
    assert cmp.table()["MAE [fill=2.5]"].to_dict() == pytest.approx({"A": 0.8, "B": 0.8})
    common = rv.compare({"A": PRED_A, "B": PRED_B}, TRUTH, "mae", coverage="common")
    assert list(common.table().columns) == ["MAE [common]", "coverage"]


# -- inputs and pairing -----------------------------------------------------------------------
def test_tables_and_results_give_the_same_numbers():
    systems, truth = tables()
    metrics = ["ndcg@10", "precision@5"]
    from_tables = rv.compare(systems, truth, metrics)
    results = {k: rv.evaluate(v, truth, metrics) for k, v in systems.items()}
    from_results = rv.compare(results)
    pd.testing.assert_frame_equal(from_tables.tests, from_results.tests)
    for k, ev in results.items():  # same users: the means are evaluate's aggregates, bit for bit
        assert from_tables.means.loc[k].to_dict() == ev.to_dict()
    assert from_tables.beats("good", "NDCG@10") == ["fair", "random"]
    assert len(rv.compare(results, metrics="ndcg@10").tests) == 3


def test_means_are_exactly_rounded():
    # precision@10 of the three users: 1/10, 2/10, 3/10. Summed in float, 0.1 + 0.2 + 0.3 =
    # 0.6000000000000001 and / 3 = 0.20000000000000004; the exactly rounded mean is 0.2, as
    # evaluate's aggregate
    recs = pd.DataFrame({"user": np.repeat([0, 1, 2], 10), "item": np.tile(np.arange(10), 3),
                         "score": np.tile(np.arange(10.0, 0.0, -1.0), 3)})
    truth = pd.DataFrame({"user": [0, 1, 1, 2, 2, 2], "item": [0, 0, 1, 0, 1, 2]})
    assert (0.1 + 0.2 + 0.3) / 3 == 0.20000000000000004
    cmp = rv.compare({"A": recs, "B": recs}, truth, "precision@10")
    assert cmp.means.loc["A"].tolist() == [0.2]
    assert rv.evaluate(recs, truth, ["precision@10"])["precision@10"] == 0.2


def test_micro_metrics_are_the_pooled_ratio():
    # recall(aggregation=micro): a has num [1, 2] over den [2, 2] -> R = 3/4;
    # its linearised values 3/4 + (num - 3/4 den) / 2 = [.5, 1.0], mean .75
    a = result({"recall(aggregation=micro)@5": [0.5, 1.0]},
               terms={"recall(aggregation=micro)@5": ([1, 2], [2, 2])})
    # b: num [0, 1] over den [2, 2] -> R = 1/4, values 1/4 + (num - den/4)/2 = [0, .5]
    b = result({"recall(aggregation=micro)@5": [0.0, 0.5]},
               terms={"recall(aggregation=micro)@5": ([0, 1], [2, 2])})
    cmp = rv.compare({"a": a, "b": b})
    label = "Recall(aggregation='micro')@5"
    assert cmp.table()[label].to_dict() == pytest.approx({"a": 0.75, "b": 0.25})
    assert cmp.tests.iloc[0]["diff"] == pytest.approx(0.5)
    # differences [.5, .5] are constant: t = +inf, p = 0
    assert cmp.tests.iloc[0]["p_value"] == 0.0


def test_micro_rmse_matches_evaluate():
    rng = np.random.default_rng(0)
    truth = pd.DataFrame({"user": np.repeat(np.arange(40), 5), "item": np.tile(np.arange(5), 40),
                          "rating": rng.integers(1, 6, 200).astype(float)})
    preds = {s: truth.assign(score=truth["rating"] + rng.normal(0, sd, 200))
             .drop(columns="rating") for s, sd in (("x", 0.5), ("y", 1.0))}
    cmp = rv.compare(preds, truth, "rmse")
    for s, p in preds.items():
        assert cmp.table().loc[s, "RMSE [common]"] == pytest.approx(rv.evaluate(p, truth, "rmse")
                                                                    ["rmse"])
    assert cmp.tests.set_index("metric").loc["RMSE [common]", "significant"]


def test_users_common_and_union():
    a = result({"precision@5": [0.2, 0.4, 0.6, 0.0]}, ["u1", "u2", "u3", "u4"], missing=["u4"])
    b = result({"precision@5": [0.4, 0.4, 0.2, 0.2]}, ["u1", "u2", "u3", "u4"])
    common = rv.compare({"a": a, "b": b})
    # u4 has no list from a: left out; means over u1..u3: a = 1.2 / 3, b = 1.0 / 3
    assert common.table()["Precision@5"].to_dict() == pytest.approx({"a": 0.4, "b": 1 / 3})
    assert common.users.loc["a", "lacking"] == 1
    assert common.users.loc["b", "lacking"] == 0
    union = rv.compare({"a": a, "b": b}, users="union")
    # u4 scored 0 by a's missing-recs policy: a = 1.2 / 4, b = 1.2 / 4
    assert union.table()["Precision@5"].to_dict() == pytest.approx({"a": 0.3, "b": 0.3})
    assert union.users.loc["a", "compared"] == 4


def test_baseline_pairs_and_marks():
    systems, truth = tables()
    cmp = rv.compare(systems, truth, ["ndcg@10"], baseline="random", correction="holm")
    assert list(zip(cmp.tests["system_a"], cmp.tests["system_b"], strict=True)) == [
        ("good", "random"), ("fair", "random")]
    md = cmp.to_markdown()
    assert "| a   | good" in md
    assert "ᶜ" in md
    assert "holm over 2 tests" in md
    assert "$^{c}$" in cmp.to_latex()
    assert "<sup>c</sup>" in cmp.to_html()
    assert cmp._repr_html_() == cmp.to_html()
    assert repr(cmp).startswith("Comparison(3 systems")


def test_lower_is_better_marks():
    a = result({"mae": [0.1, 0.2, 0.1, 0.15, 0.1, 0.2]})
    b = result({"mae": [0.5, 0.6, 0.55, 0.7, 0.5, 0.6]})
    cmp = rv.compare({"a": a, "b": b})
    assert cmp.beats("a", "MAE") == ["b"]
    assert cmp.beats("b", "MAE") == []


def test_folds_pair_users_within_each_fold():
    f0a = result({"precision@5": [0.2, 0.4]}, ["u1", "u2"])
    f1a = result({"precision@5": [0.6, 0.8]}, ["u1", "u2"])
    f0b = result({"precision@5": [0.0, 0.4]}, ["u1", "u2"])
    f1b = result({"precision@5": [0.4, 0.4]}, ["u1", "u2"])
    cmp = rv.stats.compare_folds({"a": [f0a, f1a], "b": [f0b, f1b]})
    # differences per (fold, user): .2, 0, .2, .4 -> mean .2 over 4 pairs
    row = cmp.tests.iloc[0]
    assert row["diff"] == pytest.approx(0.2)
    assert row["n_users"] == 4
    assert cmp.settings["folds"] == 2
    with pytest.raises(InvalidParameterError, match="same number of folds") as e:
        rv.stats.compare_folds({"a": [f0a, f1a], "b": [f0b]})
    assert e.value.parameter == "results"


@pytest.mark.slow  # two fresh interpreters import receval
def test_same_numbers_in_another_process():
    code = ("import sys; sys.path.insert(0, '.'); from tests.compare_helpers import result;"
            "import numpy as np, receval as rv; r = np.random.default_rng(0);"
            "a, b = r.random(300), r.random(300);"
            "c = rv.compare({'a': result({'ndcg@10': a}), 'b': result({'ndcg@10': b})},"
            " test='{test}', n_resamples=500, seed=7);"
            "print(repr(c.tests['p_value'].tolist() + c.ci['low'].tolist()))")
    for test in ("bootstrap", "permutation"):
        r = np.random.default_rng(0)
        a, b = r.random(300), r.random(300)
        here = rv.compare({"a": result({"ndcg@10": a}), "b": result({"ndcg@10": b})},
                          test=test, n_resamples=500, seed=7)
        out = subprocess.run([sys.executable, "-c", code.replace("{test}", test)],
                             capture_output=True, text=True, check=True,
                             env={"PYTHONPATH": "src", "PYTHONHASHSEED": "123"})
        assert eval(out.stdout) == here.tests["p_value"].tolist() + here.ci["low"].tolist()
        other = rv.compare({"a": result({"ndcg@10": a}), "b": result({"ndcg@10": b})},
                           test=test, n_resamples=500, seed=8)
        assert other.ci["low"].tolist() != here.ci["low"].tolist()


# -- bad input --------------------------------------------------------------------------------
@pytest.mark.parametrize(("kwargs", "parameter"), [
    ({"test": "anova"}, "test"), ({"correction": "sidak"}, "correction"),
    ({"alpha": 0}, "alpha"), ({"alpha": 1.5}, "alpha"), ({"confidence": 1}, "confidence"),
    ({"confidence": -0.1}, "confidence"), ({"users": "all"}, "users"),
    ({"n_resamples": 0}, "n_resamples"), ({"seed": -1}, "seed"),
    ({"baseline": "nobody"}, "baseline"), ({"coverage": "some"}, "coverage"),
])
def test_bad_options(kwargs, parameter):
    two = {"a": result({"ndcg@10": [0.1, 0.2]}), "b": result({"ndcg@10": [0.3, 0.2]})}
    with pytest.raises(InvalidParameterError) as e:
        rv.compare(two, **kwargs)
    assert e.value.parameter == parameter
    assert repr(next(iter(kwargs.values()))) in str(e.value)


def test_bad_systems():
    one = {"a": result({"ndcg@10": [0.1, 0.2]})}
    with pytest.raises(InvalidParameterError, match="at least two systems") as e:
        rv.compare(one)
    assert e.value.parameter == "systems"
    with pytest.raises(InvalidParameterError) as e:
        rv.compare([result({"ndcg@10": [0.1]})] * 2)
    assert e.value.parameter == "systems"
    apart = {"a": result({"ndcg@10": [0.1, 0.2]}, ["u1", "u2"]),
             "b": result({"ndcg@10": [0.3, 0.2]}, ["u3", "u4"])}
    with pytest.raises(EmptyInputError, match="no user in common") as e:
        rv.compare(apart)
    assert e.value.parameter == "systems"
    mixed = {"a": result({"ndcg@10": [0.1]}), "b": PRED_A}
    with pytest.raises(InvalidParameterError, match="mixes") as e:
        rv.compare(mixed)
    with pytest.raises(UnknownMetricError):
        rv.compare({"a": result({"ndcg@10": [0.1]}), "b": result({"map@10": [0.1]})})
    with pytest.raises(InvalidParameterError) as e:
        rv.compare({"A": PRED_A, "B": PRED_B}, None, "mae")
    assert e.value.parameter == "truth"
    with pytest.raises(InvalidParameterError) as e:
        rv.compare({"A": PRED_A, "B": PRED_B}, TRUTH)
    assert e.value.parameter == "metrics"


def test_no_user_in_common_counts_the_users_with_a_list():
    # 6 truth users; A has lists for users 0, 1, B for 2, 3, 4. Under missing_recs='zero'
    # each per-user table holds all 6 users (the others scored 0): the message counts lists
    systems, truth = tables(6)
    apart = {"A": systems["good"][systems["good"]["user"] < 2],
             "B": systems["fair"][systems["fair"]["user"].between(2, 4)]}
    with pytest.raises(EmptyInputError, match=r"users with a list per system: "
                                              r"\{'A': 2, 'B': 3\}") as e:
        rv.compare(apart, truth, ["ndcg@10"])
    assert e.value.parameter == "systems"


@pytest.mark.parametrize("call", [
    lambda: rv.compare({"A": PRED_A, "B": PRED_B}, TRUTH, []),
    lambda: rv.compare({"a": result({"ndcg@10": [0.1]}), "b": result({"ndcg@10": [0.2]})},
                       metrics=[]),
    lambda: rv.stats.compare_folds({"a": [result({"ndcg@10": [0.1]})],
                                    "b": [result({"ndcg@10": [0.2]})]}, metrics=[]),
])
def test_empty_metrics_is_refused_as_by_evaluate(call):
    with pytest.raises(InvalidParameterError, match="metrics is empty: name at least one "
                                                    "metric") as e:
        call()
    assert e.value.parameter == "metrics"


def test_global_metrics_alone_give_each_systems_value_without_a_test():
    # Gini and exposure have one value per list set, no per-user values: docs/fairness.md
    # says rv.compare reports each system's value (rv.evaluate's) and runs no test
    from tests.fairness_toy import ITEM_GROUPS, RECS, TEST, TRAIN

    rev = RECS.assign(score=-RECS["score"])
    metrics = ["gini@3", "exposure@3"]
    opts = {"train": TRAIN, "item_groups": ITEM_GROUPS}
    for test in ("t", "bootstrap"):
        cmp = rv.compare({"a": RECS, "b": rev, "c": RECS}, TEST, metrics, test=test, **opts)
        for name, recs in (("a", RECS), ("b", rev)):
            ev = rv.evaluate(recs, TEST, metrics, **opts)
            assert cmp.table().loc[name].tolist() == [ev["Gini@3"], ev["Exposure@3"]]
        assert cmp.tests.empty
        assert cmp.ci.empty
        assert cmp.settings["not_tested"] == ["Gini@3", "Exposure@3"]
        assert cmp.settings["n_tests"] == 0
        assert "over 0 tests" in cmp.to_markdown()


def test_metric_undefined_for_every_user_is_reported_untested():
    # diversity@1: a one-item list has no pair, so no user has a value (NaN, as evaluate)
    from tests.fairness_toy import GENRES, RECS, TEST

    rev = RECS.assign(score=-RECS["score"])
    with pytest.warns(rv.exceptions.UndefinedMetricWarning, match=r"Diversity@1 \(0 users"):
        cmp = rv.compare({"a": RECS, "b": rev}, TEST, ["diversity@1"], item_features=GENRES)
    assert cmp.table()["Diversity@1"].isna().all()
    row = cmp.tests.iloc[0]
    assert np.isnan(row["p_value"])
    assert not row["significant"]
    assert row["n_users"] == 0


@pytest.mark.parametrize(("options", "named"), [
    ({"relevance_threshold": 4}, "relevance_threshold: system 'a' = None, system 'b' = 4"),
    ({"ties": "optimistic"}, "ties: system 'a' = 'stable', system 'b' = 'optimistic'"),
    ({"no_relevant": "zero"}, "no_relevant: system 'a' = 'skip', system 'b' = 'zero'"),
])
def test_results_under_different_settings_are_warned_about(options, named):
    # the toy lists of docs/fairness.md (graded truth): b's NDCG is another definition
    from tests.fairness_toy import RECS, TEST

    a = rv.evaluate(RECS, TEST, ["ndcg@3"])
    b = rv.evaluate(RECS.assign(score=-RECS["score"]), TEST, ["ndcg@3"], **options)
    with pytest.warns(rv.exceptions.DataWarning, match="evaluated under different settings") \
            as caught:
        cmp = rv.compare({"a": a, "b": b})
    assert named in str(caught[0].message)
    assert len(cmp.tests) == 1  # warned, not refused
    with pytest.warns(rv.exceptions.DataWarning, match=re.escape("system 'b' (fold 0) = ")):
        rv.stats.compare_folds({"a": [a], "b": [b]})


def test_settings_that_do_not_change_values_are_not_compared():
    # the columns (named otherwise) give the same values: no warning
    from tests.fairness_toy import RECS, TEST

    a = rv.evaluate(RECS, TEST, ["ndcg@3"])
    renamed = RECS.rename(columns={"user_id": "uid"})
    b = rv.evaluate(renamed, TEST, ["ndcg@3"], columns={"user": "uid", "truth_user": "user_id"})
    assert a.settings["columns"] != b.settings["columns"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", rv.exceptions.DataWarning)
        rv.compare({"a": a, "b": b})


# -- command line -----------------------------------------------------------------------------
def test_cli(tmp_path):
    from click.testing import CliRunner

    from receval.cli import cli

    systems, truth = tables(30)
    truth.to_csv(tmp_path / "truth.csv", index=False)
    paths = []
    for name, frame in systems.items():
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
        paths.append(str(tmp_path / f"{name}.csv"))
    runner = CliRunner()
    args = ["compare", str(tmp_path / "truth.csv"), *paths, "-m", "ndcg@10", "-m", "p@5",
            "--test", "t", "--correction", "holm"]
    out = runner.invoke(cli, args)
    assert out.exit_code == 0, out.output
    assert "| a   | good" in out.output
    assert "p_adjusted" in out.output
    assert "Friedman" in out.output
    js = runner.invoke(cli, [*args, "--format", "json", "--names", "x,y,z", "--baseline", "z"])
    doc = json.loads(js.stdout)
    assert [t["system_b"] for t in doc["tests"]] == ["z"] * 4
    bad = runner.invoke(cli, [*args, "--test", "anova"])
    assert bad.exit_code == 2
    assert "test must be one of" in bad.output
    names = runner.invoke(cli, [*args, "--names", "x,y"])
    assert names.exit_code == 2
    assert "--names gives 2 names for 3 runs" in names.output
    wilcoxon = [*args[:-4], "--test", "wilcoxon", "--format", "json"]
    exact = runner.invoke(cli, [*wilcoxon, "--method", "exact"])
    assert exact.exit_code == 0, exact.output
    api = rv.compare(systems, truth, ["ndcg@10", "p@5"], test="wilcoxon", method="exact")
    assert [t["p_value"] for t in json.loads(exact.stdout)["tests"]] == \
        pytest.approx(api.tests["p_value"].tolist(), rel=5e-2)  # JSON: 2-3 digits
    mismatch = runner.invoke(cli, [*args, "--method", "exact"])  # with the t test
    assert mismatch.exit_code == 2
    assert "method='exact' chooses the null distribution" in mismatch.output
    for spelling in ("none", "None"):  # rv.compare reads it: no correction either way
        plain = runner.invoke(cli, [*args[:-1], spelling, "--format", "json"])
        assert plain.exit_code == 0, plain.output
        doc = json.loads(plain.stdout)
        assert doc["settings"]["correction"] is None
        assert [t["p_adjusted"] for t in doc["tests"]] == [t["p_value"] for t in doc["tests"]]
    sidak = runner.invoke(cli, [*args[:-1], "sidak"])
    assert sidak.exit_code == 2
    assert "correction must be None or 'none'" in sidak.output


def test_latex_and_html_escape_names():
    cmp = rv.compare({"knn_5": result({"ndcg@10": [0.9, 0.8, 0.7, 0.9]}),
                      "<pop>": result({"ndcg@10": [0.1, 0.2, 0.1, 0.2]})})
    tex = cmp.to_latex()
    assert r"\#" in tex
    assert r"knn\_5" in tex
    assert "$^{b}$" in tex
    assert "&lt;pop&gt;" in cmp.to_html()
