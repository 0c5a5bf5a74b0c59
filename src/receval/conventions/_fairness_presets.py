"""The fairness, calibration and debiased-metric part of the presets (issue 25, DESIGN §13).

Libraries that define only such metrics get a preset of their own here (LibRec's
miscalibration, ...); libraries with a preset for accuracy metrics get their fairness rules
added by :func:`with_fairness`. Each rule and each difference is checked against the
library's own code (live where it installs, else values it produced, stored with the script
that made them) by ``tests/test_fairness_conventions.py``; ``docs/fairness.md`` states
every library's definition.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from receval.conventions._model import Convention, MetricRule

__all__ = ["FAIRNESS_DIFFERENCES", "FAIRNESS_PRESETS", "FAIRNESS_RULES", "with_fairness"]

R = MetricRule

_LIBREC = Convention(
    name="librec",
    library="LibRec",
    versions="librec 3.0.0 (MiscalibrationEvaluator.java as of e89dd02, 2021-06-17)",
    summary="miscalibration as KL(list || smoothed training profile) in base 2, genre shares "
            "over the number of items, over users with a test row",
    rules={
        "miscalibration": R(
            "MiscalibrationEvaluator (rec.recommender.ranking.topn={k})",
            params={"split": "binary", "order": "list_profile", "base": 2.0,
                    "users": "truth"},
            cutoff="required",
            note="each genre of a multi-genre item counts 1, divided by the number of items "
                 "(the shares need not sum to 1, so a value can be negative); alpha = 0.01"),
    },
    differences=(
        "a user with a test row and no training row, or no recommendation, makes LibRec's "
        "mean NaN; receval leaves that user out of the mean and counts them (n_undefined)",
        "LibRec before 2021-06 (1db8452) compared the list with the user's test items, not "
        "the training history; the convention reproduces the current code",
    ),
)

_EXPEVAL = Convention(
    name="expeval",
    library="expeval",
    versions="diazf/expeval @ 69ab070 (2022-07; expeval.py, metrics.py, exposure.py)",
    summary="expected exposure with the gerr user model (patience 0.5, stop 0.5), only "
            "relevant items judged, values normalised by expeval's bounds",
    rules={
        "expected_exposure": R(
            "expeval.py (run cut at {k})", "expeval.py", params={}, cutoff="any",
            variants=(({"browsing": "rbp(patience=0.5)"}, "expeval.py -u rbp"),
                      ({"judgments": "complete"}, "expeval.py -C"),
                      ({"grades": "binary"}, "expeval.py -B"),
                      ({"normalize": False}, "expeval.py -U"),
                      ({"groups": "item_groups"}, "expeval.py -G")),
            note="the run cut at k; -p and -r are browsing's patience and stop; measure d, "
                 "r, l are expeval's disparity, relevance and difference lines; normalised "
                 "relevance is 1.0 for a user with one relevance level (expeval's bounds); "
                 "a run file with several samples per query is evaluate(sample=...), "
                 "the groups of -G are item_groups="),
    },
    differences=(
        "group mode (-G): expeval's group relevance bounds are both 0 (normalised group "
        "relevance is always 1), receval refuses measure=r with normalize=true there; a "
        "user without a list has group difference 0 in expeval (its relevance's upper "
        "bound), the target's squared norm in receval; a run that exposes none of the "
        "judged items has group disparity inf in expeval (its l2 of a zero vector), 0 in "
        "receval",
        "sampled rankings over Parquet buckets or on Spark are not offered (in memory only)",
        "the gerr bounds use patience * stop where the user model uses patience * (1 - "
        "stop); receval reproduces expeval's bounds (the same at stop = 0.5)",
    ),
)

_TREC_FAIR = Convention(
    name="trec_fair_2022",
    aliases=("trec_fair",),
    library="TREC Fair Ranking 2022 (wptrec)",
    versions="fair-trec/trec2022-fair-public @ 6fd105f (wptrec/metrics/awrf.py)",
    summary="AWRF with float32 weights 1/log2(max(r, 2)), natural-log Jensen-Shannon, "
            "items without alignment dropped with their weight",
    rules={
        "awrf": R("AWRFMetric (run cut at {k})", "AWRFMetric", params={"precision": "float32",
                                                        "ungrouped": "skip"},
                  variants=(({"target": "relevance"}, "AWRFMetric, target from qrels"),
                            ({"target": "population"}, "AWRFMetric, background target"),
                            ({"target": "mix"}, "AWRFMetric, mixed target (geography, "
                                                "gender)"),
                            ({"times_ndcg": True}, "Score = nDCG x AWRF")),
                  note="population: give the background distribution as population={...}; "
                       "several fairness dimensions are one intersectional item_groups"),
    },
    differences=(
        "several fairness dimensions are combined by the outer product of their "
        "alignments; receval reads one item_groups table: give it the intersectional "
        "groups",
    ),
)

_CLAYRS = Convention(
    name="clayrs",
    library="ClayRS",
    versions="clayrs 0.5.1 (clayrs/evaluation/metrics/fairness_metrics.py)",
    summary="delta GAP with popularity = training rows / users, the popular items the first "
            "round(0.2 |items|), users grouped by their share of popular items",
    rules={
        "delta_gap": R("DeltaGap(user_groups={'BB': 0.2, 'Diverse': 0.6, 'Niche': 0.2}, "
                       "top_n={k})", params={"order": "train"}, cutoff="required",
                       note="ties of popularity and of users' shares in order of first "
                            "appearance in train"),
    },
    differences=(
        "ClayRS's delta GAP of a group whose profiles have popularity 0 is 0; receval's is "
        "undefined (NaN)",
        "ClayRS averages the popularity of every profile row (a repeated (user, item) "
        "counts again); receval's profile holds each item once",
        "DeltaGap(original_ratings=train + test) has no receval form: popularity is read "
        "from train",
    ),
)

_ZHU = Convention(
    name="zhu2020",
    library="Zhu, Wang, Caverlee (SIGIR 2020) code",
    versions="Zziwei/Item-Underrecommendation-Bias @ 72331eb (utility.py)",
    summary="RSP and REO with 1e-10 added to the mean, multi-genre items counted in each "
            "genre",
    rules={
        "rsp": R("ranking_analysis RSP@{k}", params={"eps": 1e-10}, cutoff="required"),
        "reo": R("ranking_analysis REO@{k}", params={"eps": 1e-10}, cutoff="required"),
    },
    differences=(
        "the code reads the candidate counts per user and genre from tables built in its "
        "notebooks; receval counts the group's items the user has no training row for",
    ),
)

_RECPACK = Convention(
    name="recpack",
    library="RecPack",
    versions="recpack 0.3.6 (recpack/metrics/ips.py)",
    summary="IPSHitRateK: the sum over the hits of 1 / (n_i / sum n), fitted on the "
            "training interactions, capped at 10000; items never interacted with weigh 0",
    rules={
        "hit_rate": R("IPSHitRateK(K={k})", params={
            "propensity": "recpack", "estimator": "ips", "max_weight": 10000.0,
            "absent": "zero"}, cutoff="required",
            note="fit(X) on the training interactions (0/1); a user's value is the sum of "
                 "the weights of their hits, not a mean"),
    },
    differences=(
        "RecPack fits the propensities on the values of the matrix it is given (ratings "
        "if it holds ratings, contrary to its docstring); receval counts training rows",
        "top K by argpartition, which orders tied scores arbitrarily; receval's tie policy "
        "decides",
    ),
)

_YANG = Convention(
    name="yang2018",
    library="Yang et al. (RecSys 2018) code",
    versions="ylongqi/unbiased-offline-recommender-evaluation @ 28f0f15 (eq() of "
             "experiments_section_5/*_test.py)",
    summary="SNIPS normalised per user, propensities (n_i)^((gamma + 1) / 2) from training "
            "counts, positives of items absent from train left out",
    rules={
        "recall": R("eq() recall", params={"propensity": "popularity",
                                            "estimator": "snips"}, free=("propensity",),
                    note="their recall counts Z < 1, i.e. recall@1; give the gamma of the "
                         "paper as propensity='popularity(gamma=...)'"),
    },
    differences=(
        "the code's AUC is 1 - Z / |C| over every candidate item (other positives counted, "
        "the positive itself in |C|); receval's weighted AUC is over the list's "
        "non-relevant items, so the convention does not offer AUC",
        "gamma is estimated per data set in the paper; receval fits the discrete power law "
        "of the training counts (Clauset et al. 2009) when it is not given",
    ),
)

#: Presets that define only fairness metrics, by name.
FAIRNESS_PRESETS: Mapping[str, Convention] = {c.name: c for c in (
    _LIBREC, _EXPEVAL, _TREC_FAIR, _CLAYRS, _ZHU, _RECPACK, _YANG)}

_ELLIOT = {
    "rsp": R("RSP@{k}", params={"users": "truth", "ungrouped": "skip"}, cutoff="required",
             variants=(({"groups": "popularity"},
                        "ExtendedPopRSP(pop_ratio={pop_ratio})@{k}"),),
             free=("pop_ratio",),
             note="RSP over the item clustering file; PopRSP is pop_ratio = 0.8"),
    "reo": R("REO@{k}", params={"users": "truth", "ungrouped": "skip"}, cutoff="required",
             variants=(({"groups": "popularity"},
                        "ExtendedPopREO(pop_ratio={pop_ratio})@{k}"),),
             free=("pop_ratio",),
             note="REO over the item clustering file; PopREO is pop_ratio = 0.8"),
    "bias_disparity": R("BiasDisparityBD@{k}", params={"users": "truth",
                                                        "ungrouped": "skip"},
                        cutoff="required",
                        variants=(({"part": "br"}, "BiasDisparityBR@{k}"),
                                  ({"part": "bs"}, "BiasDisparityBS@{k}")),
                        note="one value per (user cluster, item cluster): ev.groups(label)"),
}

#: Preset name -> receval metric -> the library's rule (added to an existing preset).
FAIRNESS_RULES: Mapping[str, Mapping[str, MetricRule]] = {"elliot": _ELLIOT}

#: Preset name -> the fairness behaviours receval does not copy (each tested).
FAIRNESS_DIFFERENCES: Mapping[str, tuple[str, ...]] = {
    "cornac": (
        "PropensityStratifiedEvaluation: since cornac 1.17 its ranking metrics take item "
        "indices and the module still passes dense vectors, so every ranking metric it "
        "reports is wrong (Recall@3 0.028 instead of 0.583 on docs/fairness.md's example); "
        "rv.protocols.propensity_stratified runs the published protocol with receval's "
        "metrics",
        "PropensityStratifiedEvaluation's IPS row looks propensities up by inner index in "
        "a dict keyed by raw item id (a miss weighs 1) and its NDCG gains are 2^(1/p) - 1; "
        "receval's ips row is SNIPS with weights 1/p",
    ),
    "elliot": (
        "the short head of PopRSP / PopREO breaks ties of popularity in Python's set order "
        "of the item ids (ascending for small integers, arbitrary for strings); receval "
        "breaks them by ascending id",
        "cluster ids must be the integers 0..n-1 in Elliot; receval takes any group names",
        "RSP's denominator counts every item of the clustering file, also items outside "
        "the catalog; receval does the same with the items of item_groups",
    ),
}


def with_fairness(convention: Convention) -> Convention:
    """The preset with its fairness rules and differences added."""
    rules = FAIRNESS_RULES.get(convention.name)
    if not rules:
        return convention
    return dataclasses.replace(
        convention, rules={**convention.rules, **rules},
        differences=convention.differences + FAIRNESS_DIFFERENCES.get(convention.name, ()))
