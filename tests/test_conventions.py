"""The convention layer: presets, how they read metric names, settings, and the variants that
came with them, each with its arithmetic written out.

The numbers of each library are checked against the library in ``tests/conformance/``; here
the tests pin down receval's own behaviour.
"""

from __future__ import annotations

import math
import warnings

import pandas as pd
import pytest

import receval as rv
from receval.conventions._fairness_presets import FAIRNESS_PRESETS
from receval.exceptions import InvalidParameterError, UnknownMetricError

C = rv.conventions


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


def frame(rows: list[tuple[object, ...]], cols: str) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=cols.split())


# -- the registry of presets -------------------------------------------------------------------
def test_every_required_preset_exists() -> None:
    assert C.available() == ["trec_eval", "ranx", "sklearn", "recbole", "ms_recommenders",
                             "lenskit", "replay", "torchmetrics", "evidently", "elliot",
                             "cornac", *FAIRNESS_PRESETS]


@pytest.mark.parametrize(("alias", "name"), [("pytrec_eval", "trec_eval"),
                                             ("ir_measures", "trec_eval"),
                                             ("scikit-learn", "sklearn"),
                                             ("Recommenders", "ms_recommenders"),
                                             ("LKPY", "lenskit"), ("replay-rec", "replay")])
def test_aliases(alias: str, name: str) -> None:
    assert C.get(alias).name == name


def test_unknown_convention_names_the_close_ones() -> None:
    with pytest.raises(InvalidParameterError, match=r"unknown convention 'trec-evl'.*"
                       r"did you mean 'trec_eval'") as info:
        C.get("trec-evl")
    assert info.value.parameter == "convention"
    with pytest.raises(InvalidParameterError, match="convention must be a name"):
        C.get(3)  # type: ignore[arg-type]


def test_settings_fall_back_to_receval_defaults() -> None:
    conv = C.get("ranx")
    assert conv.setting("ties") == "stable"  # not set by ranx: receval's
    assert conv.setting("no_relevant") == "zero"
    assert set(conv.all_settings()) == set(C.DEFAULTS) == set(C.SETTINGS)


def test_a_preset_with_an_unknown_parameter_is_refused() -> None:
    with pytest.raises(InvalidParameterError, match=r"NDCG has no parameters \['gian'\]"):
        C.Convention("x", "x", "1", "x", {"ndcg": C.MetricRule("n", params={"gian": 1})})
    with pytest.raises(InvalidParameterError, match="unknown settings"):
        C.Convention("x", "x", "1", "x", {}, settings={"tie": "item"})


# -- reading metric names in a convention ------------------------------------------------------
@pytest.mark.parametrize(("conv", "text", "label", "name"), [
    ("trec_eval", "map@10", "MAP(denominator='relevant')@10", "map_cut_10"),
    ("trec_eval", "map", "MAP(denominator='relevant')", "map"),
    ("trec_eval", "ndcg@5", "NDCG(grades='judged')@5", "ndcg_cut_5"),
    ("ranx", "ndcg(gain=exponential)@5", "NDCG(gain='exponential')@5", "ndcg_burges@5"),
    ("ranx", "cg@3", "CG(gain='binary')@3", "hits@3"),
    ("lenskit", "ndcg@10", "NDCG(gain='binary', discount='breese')@10", "NDCG(n=10)"),
    ("lenskit", "recall", "Recall", "Recall()"),
    ("lenskit", "recall@4", "Recall(denominator='min_k_relevant')@4", "Recall(n=4)"),
    ("ms_recommenders", "map", "MAP(denominator='relevant')", "map"),
    ("ms_recommenders", "map@10", "MAP@10", "map_at_k(k=10)"),
    ("elliot", "map@10", "MAP(denominator='k', positions='all')@10", "MAP@10"),
    ("elliot", "ndcg(gain=binary)@10", "NDCG(gain='binary')@10", "nDCGRendle2020@10"),
    ("torchmetrics", "precision(denominator=list_length)@5",
     "Precision(denominator='list_length')@5", "RetrievalPrecision(top_k=5, adaptive_k=True)"),
])
def test_names_read_in_a_convention(conv: str, text: str, label: str, name: str) -> None:
    c = C.get(conv)
    metric = c.metric(text)
    assert metric.label == label
    assert c.library_name(metric) == name
    assert rv.metrics.parse(label) == metric  # labels stay plain receval metrics


def test_parameters_written_win_over_the_convention() -> None:
    metric = C.get("trec_eval").metric("ap(denominator=hits)@5")
    assert metric.label == "MAP(denominator='hits')@5"


def test_metric_objects_are_used_as_given() -> None:
    obj = rv.metrics.NDCG(k=5)
    assert C.get("lenskit").metric(obj) is obj


def test_a_metric_the_library_lacks_is_an_error() -> None:
    with pytest.raises(UnknownMetricError, match=r"trec_eval has no DCG: convention "
                       r"'trec_eval' defines Precision, Recall") as info:
        C.get("trec_eval").metric("dcg@10")
    assert info.value.parameter == "metrics"
    assert "evaluate dcg without a convention" in str(info.value)


@pytest.mark.parametrize(("convention", "spec", "name"), [
    ("trec_eval", "fbeta(beta=2)@3", "set_F.4 -M 3"),   # set_F's parameter is beta squared
    ("trec_eval", "fbeta(beta=0.5)", "set_F.0.25"),
    ("trec_eval", "f1@5", "set_F.1 -M 5"),
    ("ranx", "ndcg(gain=exponential)", "ndcg_burges"),
    ("lenskit", "ndcg(gain=linear)", "NDCG(gain='rating')"),
    ("lenskit", "ndcg(gain=linear)@4", "NDCG(n=4, gain='rating')"),
    ("ms_recommenders", "ndcg(gain=linear)", "ndcg_at_k(k=len, score_type='raw')"),
    ("ms_recommenders", "ndcg(gain=exponential, discount=log2)@4",
     "ndcg_at_k(k=4, score_type='exp', discfun_type='log2')"),
    ("torchmetrics", "precision(denominator=list_length)",
     "RetrievalPrecision(adaptive_k=True)"),
])
def test_library_names_of_variants(convention: str, spec: str, name: str) -> None:
    conv = C.get(convention)
    metric = conv.metric(spec)
    assert conv.library_name(metric) == name
    assert conv.not_in_library(metric) == {}


def test_a_variant_the_library_lacks_has_no_library_name_and_is_recorded() -> None:
    # ranx's nDCG has linear (ndcg) or exponential (ndcg_burges) gains, not binary
    conv = C.get("ranx")
    metric = conv.metric("ndcg(gain=binary)@3")
    assert conv.library_name(metric) is None
    assert conv.not_in_library(metric) == {"gain": "binary"}
    ev = rv.evaluate(RECS, TRUTH, ["ndcg(gain=binary)@3", "ndcg@3"], convention="ranx")
    binary, linear = ev.labels
    assert ev.settings["metrics"][binary]["library_name"] is None
    assert ev.settings["metrics"][binary]["not_in_library"] == {"gain": "binary"}
    assert ev.settings["metrics"][linear]["library_name"] == "ndcg@3"
    assert ev.settings["convention_overrides"] == {"metrics": {binary: {"gain": "binary"}}}
    assert f"{binary} = not in ranx" in ev.caption
    # lenskit's AP divides by min(|R|, list length); hits is another library's
    lenskit = C.get("lenskit")
    assert lenskit.not_in_library(lenskit.metric("ap(denominator=hits)@3")) == {
        "denominator": "hits"}


def test_cutoff_rules() -> None:
    with pytest.raises(InvalidParameterError, match=r"needs a cutoff: write ndcg@k"):
        C.get("recbole").metric("ndcg")
    with pytest.raises(InvalidParameterError, match=r"reads the whole list: write ap "
                       r"without @k"):
        C.get("cornac").metric("ap@10")


def test_table_is_generated_from_the_presets() -> None:
    table = C.table()
    assert list(table.columns) == ["receval", *C.available()]
    assert table.loc["ap@k", "trec_eval"] == "map_cut_k = MAP(denominator='relevant')@k"
    assert table.loc["ap", "ms_recommenders"] == "map = MAP(denominator='relevant')"
    assert table.loc["dcg@k", "trec_eval"] == "-"
    assert table.loc["ties", "trec_eval"] == "'item_str_desc'"
    assert table.loc["precision@k", "receval"] == "Precision@k"
    assert list(C.table(["ranx"]).columns) == ["receval", "ranx"]


# -- evaluate with a convention ----------------------------------------------------------------
RECS = frame([("u1", "i1", .9), ("u1", "i2", .8), ("u1", "i3", .8), ("u1", "i4", .5),
              ("u2", "i5", .7), ("u2", "i6", .6)], "user item score")
TRUTH = frame([("u1", "i1", 5), ("u1", "i3", 4), ("u1", "i9", 3), ("u2", "i6", 5),
               ("u3", "i7", 4), ("u3", "i8", 2)], "user item rating")


def test_result_records_convention_variants_and_library_names() -> None:
    ev = rv.evaluate(RECS, TRUTH, ["ndcg@3", "ap@3"], convention="ms_recommenders")
    assert ev.settings["convention"] == "ms_recommenders"
    assert ev.settings["convention_overrides"] == {}
    variants = ev.settings["metrics"]
    ndcg = variants["NDCG(gain='binary', discount='ln', zero_ideal='skip', missing_recs='zero')@3"]
    assert ndcg["library_name"] == "ndcg_at_k(k=3)"
    assert ndcg["gain"] == "binary"
    assert ndcg["ideal"] == "truth"
    assert variants["MAP@3"]["denominator"] == "min_k_relevant"
    assert "convention='ms_recommenders'" in repr(ev)
    assert "ms_recommenders" in ev.to_markdown()
    assert '"convention": "ms_recommenders"' in ev.to_json()


def test_explicit_settings_override_the_convention_and_are_recorded() -> None:
    ev = rv.evaluate(RECS, TRUTH, ["precision@3"], convention="ms_recommenders",
                     missing_recs="zero")
    # u3 (no recommendations) now scores 0: (2/3 + 1/3 + 0) / 3
    assert close(ev["precision@3"], 1 / 3)
    assert ev.settings["convention_overrides"] == {"missing_recs": "zero"}


def test_ms_recommenders_ndcg_counts_every_truth_user_and_precision_does_not() -> None:
    ev = rv.evaluate(RECS, TRUTH, ["precision@3", "ndcg@3"], convention="ms_recommenders")
    # precision over the 2 users with predictions: (2/3 + 1/3) / 2 (u1's tie kept in order)
    assert close(ev["precision@3"], 0.5)
    summary = ev.summaries["Precision@3"]
    assert summary.n_users == 2
    assert summary.n_excluded == 1
    # binary nDCG, ln discount: u1 hits at 1 and 3 of |R| = 3, u2 at 2 of |R| = 1, u3: 0
    u1 = (1 / math.log(2) + 1 / math.log(4)) / (1 / math.log(2) + 1 / math.log(3)
                                                 + 1 / math.log(4))
    u2 = (1 / math.log(3)) / (1 / math.log(2))
    label = "NDCG(gain='binary', discount='ln', zero_ideal='skip', missing_recs='zero')@3"
    assert close(ev[label], (u1 + u2 + 0.0) / 3)
    assert math.isnan(ev.per_user.loc["u3", "Precision@3"])
    assert ev.per_user.loc["u3", label] == 0.0
    assert ev.summaries[label].n_users == 3


def test_lenskit_scores_users_with_recommendations_but_no_truth_as_zero() -> None:
    recs = pd.concat([RECS, frame([("u4", "i1", .3)], "user item score")])
    ev = rv.evaluate(recs, TRUTH, ["hit_rate@3"], convention="lenskit")
    # u1 hit, u2 hit, u4 (no truth) 0; u3 (no recommendations) not measured
    assert close(ev["hit_rate@3"], 2 / 3)
    assert list(ev.users.recs_without_truth_scored) == ["u4"]
    assert list(ev.users.skipped_missing_recs) == ["u3"]
    assert len(ev.users.recs_without_truth) == 0
    row = ev.users.summary().loc["recommendations without truth"]
    assert row["count"] == 1
    assert row["handling"] == "recs_without_truth='zero': scored 0, counted in evaluated"


def test_truth_scope_recommended_counts_only_the_recommended_relevant_items() -> None:
    # u1's relevant i9 is not recommended: recall@3 = 2 hits / 2 recommended relevant = 1
    ev = rv.evaluate(RECS, TRUTH, ["recall@3", "ap(denominator=relevant)@3"],
                     truth_scope="recommended", no_relevant="zero")
    assert ev.per_user.loc["u1", "Recall@3"] == 1.0
    # AP: (1/1 + 2/3) / 2
    assert close(ev.per_user.loc["u1", "MAP(denominator='relevant')@3"], (1 + 2 / 3) / 2)
    assert close(rv.evaluate(RECS, TRUTH, ["recall@3"]).per_user.loc["u1", "Recall@3"], 2 / 3)


def test_float32_scores_make_ties() -> None:
    recs = frame([("q", "a", 1.0 + 1e-9), ("q", "b", 1.0)], "user item score")
    truth = frame([("q", "a", 1), ("q", "b", 0)], "user item rating")
    assert rv.evaluate(recs, truth, "mrr")["mrr"] == 1.0
    # in float32 both are 1.0: a tie, broken by id text descending (b before a)
    ev = rv.evaluate(recs, truth, "mrr", score_precision="float32", ties="item_str_desc")
    assert ev["mrr"] == 0.5
    assert rv.evaluate(recs, truth, "mrr", convention="trec_eval")["mrr"] == 0.5


def test_item_str_desc_orders_ids_as_text() -> None:
    # ids 9 and 10 tied: as text "9" > "10", so 9 comes first; numerically 10 first
    recs = frame([("q", 10, 1.0), ("q", 9, 1.0)], "user item score")
    truth = frame([("q", 9, 1)], "user item rating")
    assert rv.evaluate(recs, truth, "mrr", ties="item_str_desc")["mrr"] == 1.0
    assert rv.evaluate(recs, truth, "mrr", ties="item_desc")["mrr"] == 0.5


def test_judged_grades_are_gains_below_the_threshold() -> None:
    # grades in rank order: 1, 3, 0; threshold 2 makes only the 3 relevant
    recs = frame([("q", "a", 3.0), ("q", "b", 2.0), ("q", "c", 1.0)], "user item score")
    truth = frame([("q", "a", 1), ("q", "b", 3), ("q", "c", 0)], "user item rating")
    ev = rv.evaluate(recs, truth, ["ndcg", "ndcg(grades=judged)"], relevance_threshold=2)
    # relevant only: DCG = 3/log2(3), ideal 3/log2(2)
    assert close(ev["ndcg"], (3 / math.log2(3)) / 3)
    # judged: DCG = 1 + 3/log2(3); ideal = 3 + 1/log2(3)
    assert close(ev["ndcg(grades=judged)"], (1 + 3 / math.log2(3)) / (3 + 1 / math.log2(3)))


def test_judged_grades_score_a_user_without_relevant_items() -> None:
    recs = frame([("q", "a", 2.0), ("q", "b", 1.0)], "user item score")
    truth = frame([("q", "a", 0), ("q", "b", 1)], "user item rating")
    ev = rv.evaluate(recs, truth, ["ndcg(grades=judged)", "ap"], relevance_threshold=2,
                     no_relevant="zero")
    # no grade reaches 2, yet grade 1 is a gain: DCG = 1/log2(3), ideal = 1
    assert close(ev["ndcg(grades=judged)"], 1 / math.log2(3))
    assert ev["ap"] == 0.0


def test_shifted_exponential_gain_uses_the_threshold() -> None:
    # Elliot: gain 2^(g - t + 1) - 1 for g >= t; t = 3: grades 5, 3 -> gains 7, 1
    recs = frame([("q", "a", 2.0), ("q", "b", 1.0)], "user item score")
    truth = frame([("q", "a", 3), ("q", "b", 5), ("q", "c", 2)], "user item rating")
    ev = rv.evaluate(recs, truth, ["ndcg(gain=shifted_exponential)@2"], relevance_threshold=3)
    dcg = 1 / 1 + 7 / math.log2(3)
    ideal = 7 / 1 + 1 / math.log2(3)
    assert close(ev["ndcg(gain=shifted_exponential)@2"], dcg / ideal)
    # threshold 0 (Elliot's default): gains 2^(g + 1) - 1: 15, 63, 7
    ev0 = rv.evaluate(recs, truth, ["ndcg(gain=shifted_exponential)@2"],
                      relevance_threshold=0)
    assert close(ev0["ndcg(gain=shifted_exponential)@2"],
                 (15 + 63 / math.log2(3)) / (63 + 15 / math.log2(3)))
    with pytest.raises(InvalidParameterError, match=r"relevant items .* only"):
        rv.metrics.parse("ndcg(gain=shifted_exponential, grades=judged)")


def test_ap_over_all_positions() -> None:
    # rel in rank order 0, 1, 0 and k = 5 (two empty places): P@1..5 = 0, 1/2, 1/3, 1/4, 1/5
    recs = frame([("q", "a", 3.0), ("q", "b", 2.0), ("q", "c", 1.0)], "user item score")
    truth = frame([("q", "b", 1)], "user item rating")
    ev = rv.evaluate(recs, truth, "ap(denominator=k, positions=all)@5")
    assert close(ev["ap(denominator=k, positions=all)@5"], (0 + 1 / 2 + 1 / 3 + 1 / 4 + 1 / 5) / 5)
    with pytest.raises(InvalidParameterError, match="needs denominator='k'"):
        rv.metrics.parse("ap(positions=all)@5")


def test_a_metric_can_leave_users_without_recommendations_out() -> None:
    ev = rv.evaluate(RECS, TRUTH, ["hr@3", "hr(missing_recs=skip)@3"])
    assert close(ev["hr@3"], 2 / 3)
    assert ev["hr(missing_recs=skip)@3"] == 1.0
    assert ev.users.n_evaluated == 3
    # when every metric leaves them out, they are skipped users
    ev = rv.evaluate(RECS, TRUTH, ["hr(missing_recs=skip)@3"])
    assert list(ev.users.skipped_missing_recs) == ["u3"]


def test_recs_without_truth_zero_keeps_them_in_the_mean() -> None:
    recs = pd.concat([RECS, frame([("u4", "i1", .3)], "user item score")])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rv.RecevalWarning)
        ev = rv.evaluate(recs, TRUTH, ["hr@3"], recs_without_truth="zero")
    assert close(ev["hr@3"], 2 / 4)  # u1, u2 hit; u3 and u4 score 0
    assert ev.users.to_dict()["recs_without_truth_scored"] == 1


def test_relevance_threshold_zero_makes_every_row_relevant() -> None:
    truth = frame([("q", "a", 0), ("q", "b", 2)], "user item rating")
    recs = frame([("q", "a", 2.0), ("q", "b", 1.0)], "user item score")
    assert rv.evaluate(recs, truth, "mrr", relevance_threshold=0)["mrr"] == 1.0
    assert rv.evaluate(recs, truth, "mrr")["mrr"] == 0.5


# -- a rule that depends on the inputs: MS Recommenders' item similarity ----------------------
BEYOND_RECS = frame([("u1", "a", 3), ("u1", "b", 2), ("u1", "c", 1), ("u2", "a", 2),
                     ("u2", "d", 1)], "user item score")
BEYOND_TRUTH = frame([("u1", "a", 1), ("u2", "d", 1)], "user item rating")
BEYOND_TRAIN = frame([("u1", "d"), ("u2", "b"), ("u2", "c"), ("u3", "a"), ("u3", "b")],
                     "user item")
BEYOND_FEATS = frame([("a", 1.0, 0.0), ("b", 0.0, 1.0), ("c", 1.0, 1.0), ("d", 1.0, 0.0)],
                     "item x y")


@pytest.mark.parametrize(("name", "plain", "features"), [
    ("diversity@3", "Diversity(similarity='cooccurrence')@3", "Diversity@3"),
    ("unexpectedness@3", "Unexpectedness(expected='similarity')@3",
     "Unexpectedness(expected='similarity', similarity='cosine')@3"),
    ("serendipity@3", "Serendipity(expected='similarity')@3",
     "Serendipity(expected='similarity', similarity='cosine')@3"),
    ("diversity(similarity=cooccurrence)@3", "Diversity(similarity='cooccurrence')@3",
     "Diversity(similarity='cooccurrence')@3"),
    ("ndcg@3", "NDCG(gain='binary', discount='ln', zero_ideal='skip', missing_recs='zero')@3",
     "NDCG(gain='binary', discount='ln', zero_ideal='skip', missing_recs='zero')@3"),
])
def test_ms_recommenders_reads_similarity_from_the_inputs(name: str, plain: str,
                                                           features: str) -> None:
    """Co-occurrence without item_features, the feature vectors' cosine with them
    (item_sim_measure='item_feature_vector'); a similarity written in the name wins."""
    conv = C.get("ms_recommenders")
    assert conv.metric(name).label == plain
    assert conv.metric(name, item_features=True).label == features
    with_features = rv.evaluate(BEYOND_RECS, BEYOND_TRUTH, [name], convention=conv,
                                train=BEYOND_TRAIN, item_features=BEYOND_FEATS)
    without = rv.evaluate(BEYOND_RECS, BEYOND_TRUTH, [name], convention=conv,
                          train=BEYOND_TRAIN)
    assert with_features.labels == [features]
    assert without.labels == [plain]
    assert with_features.settings["metrics"][features]["library_name"] is not None


def test_ms_recommenders_diversity_with_features_hand_computed() -> None:
    # cosine: u1 pairs ab 0, ac 1/sqrt2, bc 1/sqrt2 -> 1 - (0 + 2/sqrt2) / 3; u2 ad 1 -> 0.
    # co-occurrence (no features): a and b co-occur once (u3): 1/sqrt(1 * 2); b and c once
    # (u2): 1/sqrt(2 * 1); a and c never -> u1 = 1 - (2/sqrt2) / 3; u2: a and d never -> 1
    s = 1 / math.sqrt(2)
    feat = rv.evaluate(BEYOND_RECS, BEYOND_TRUTH, ["diversity@3"], convention="ms_recommenders",
                       train=BEYOND_TRAIN, item_features=BEYOND_FEATS)
    cooc = rv.evaluate(BEYOND_RECS, BEYOND_TRUTH, ["diversity@3"], convention="ms_recommenders",
                       train=BEYOND_TRAIN)
    assert feat.per_user[feat.labels[0]].tolist() == pytest.approx([1 - 2 * s / 3, 0.0])
    assert cooc.per_user[cooc.labels[0]].tolist() == pytest.approx([1 - 2 * s / 3, 1.0])


def test_item_features_missing_is_a_convention_setting() -> None:
    """ms_recommenders gives an item without features similarity 0 ('zero'); another value
    passed to evaluate overrides it and is recorded; receval's default is 'error'."""
    assert C.DEFAULTS["item_features_missing"] == "error"
    assert C.get("ms_recommenders").setting("item_features_missing") == "zero"
    partial = BEYOND_FEATS[BEYOND_FEATS["item"] != "c"]
    # zero: u1 pairs ab 0, ac 0, bc 0 -> 1; u2 0
    ev = rv.evaluate(BEYOND_RECS, BEYOND_TRUTH, ["diversity@3"], convention="ms_recommenders",
                     train=BEYOND_TRAIN, item_features=partial)
    assert ev.per_user[ev.labels[0]].tolist() == pytest.approx([1.0, 0.0])
    assert ev.settings["beyond"]["item_features_missing"] == "zero"
    assert ev.settings["convention_overrides"] == {}
    skip = rv.evaluate(BEYOND_RECS, BEYOND_TRUTH, ["diversity@3"], convention="ms_recommenders",
                       train=BEYOND_TRAIN, item_features=partial, item_features_missing="skip")
    assert skip.settings["convention_overrides"] == {"item_features_missing": "skip"}
    assert skip.per_user[skip.labels[0]].tolist() == pytest.approx([1.0, 0.0])  # ab alone
    with pytest.raises(rv.exceptions.DataError, match="no features"):
        rv.evaluate(BEYOND_RECS, BEYOND_TRUTH, ["diversity@3"], train=BEYOND_TRAIN,
                    item_features=partial)


def test_table_and_side_by_side_show_the_feature_form() -> None:
    cell = C.table(["ms_recommenders"]).loc["diversity@k", "ms_recommenders"]
    assert cell == ("diversity@k = Diversity(similarity='cooccurrence')@k; with item_features: "
                    "diversity(item_sim_measure='item_feature_vector')@k = Diversity@k")
    sbs = C.side_by_side(BEYOND_RECS, BEYOND_TRUTH, ["diversity@3"], ["ms_recommenders"],
                         train=BEYOND_TRAIN, item_features=BEYOND_FEATS)
    assert sbs.names.loc["diversity@3", "ms_recommenders"] == (
        "diversity(item_sim_measure='item_feature_vector')@3 = Diversity@3")
    assert close(sbs.values.loc["diversity@3", "ms_recommenders"],  # (u1 + u2 0) / 2
                 (1 - 2 / math.sqrt(2) / 3 + 0.0) / 2)
    described = C.get("ms_recommenders").describe()["metrics"]["diversity"]
    assert described["params_features"] == {"similarity": "cosine"}


def test_a_rule_with_unknown_feature_parameters_is_refused() -> None:
    with pytest.raises(InvalidParameterError, match="no parameters"):
        C.Convention("x", "X", "1", "", {"diversity": C.MetricRule(
            "d@{k}", params_features={"similarity_kind": "cosine"})})
