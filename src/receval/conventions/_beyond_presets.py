"""The beyond-accuracy part of the presets (DESIGN §9).

Which receval variant reproduces each library's novelty, diversity, serendipity, popularity,
long-tail and exposure metrics, kept apart from the accuracy rules of ``_presets.py``;
:func:`with_beyond` adds them to a preset. Each rule and each difference is checked against
the library (or values it produced) by ``tests/conformance/conventions/test_conv_beyond_*``;
``docs/beyond-accuracy-libraries.md`` states every library's definitions.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from receval.conventions._model import Convention, MetricRule

__all__ = ["BEYOND_DIFFERENCES", "BEYOND_RULES", "BEYOND_SETTINGS", "with_beyond"]

R = MetricRule

#: MS Recommenders' ``item_sim_measure="item_feature_vector"``: the cosine of the feature
#: vectors, used when the evaluation has ``item_features=`` (co-occurrence otherwise).
_FEATURES = {"similarity": "cosine"}
_SIMILARITY_NOTE = ("co-occurrence in train (item_sim_measure='item_cooccurrence_count'), or "
                    "the cosine of the feature vectors when item_features= is given "
                    "('item_feature_vector'); an item without features has similarity 0 "
                    "(item_features_missing='zero')")

#: Microsoft Recommenders' functions have no cutoff: ``f@k`` is f given every user's top k.
_MSR = {
    "novelty": R("novelty@{k}", "novelty",
                 {"popularity": "interactions", "absent": "zero", "aggregation": "micro"},
                 note="a mean over every recommended row; per user, novelty on the user's "
                      "rows; an item absent from train adds 0"),
    "diversity": R("diversity@{k}", "diversity", {"similarity": "cooccurrence"},
                   params_features=_FEATURES,
                   variants=(({"similarity": "cosine"},
                              "diversity(item_sim_measure='item_feature_vector')@{k}"),),
                   note="users with one item are left out; " + _SIMILARITY_NOTE),
    "serendipity": R("serendipity(col_relevance=...)@{k}",
                     "serendipity(col_relevance=...)",
                     {"expected": "similarity", "similarity": "cooccurrence"},
                     params_features=_FEATURES,
                     variants=(({"similarity": "cosine"},
                                "serendipity(col_relevance=..., item_sim_measure="
                                "'item_feature_vector')@{k}"),),
                     note=_SIMILARITY_NOTE),
    "unexpectedness": R("serendipity@{k}", "serendipity",
                        {"expected": "similarity", "similarity": "cooccurrence"},
                        params_features=_FEATURES,
                        variants=(({"similarity": "cosine"},
                                   "serendipity(item_sim_measure='item_feature_vector') "
                                   "@{k}"),),
                        note="serendipity without a relevance column: every item relevant; "
                             + _SIMILARITY_NOTE),
    "item_coverage": R("catalog_coverage@{k}", "catalog_coverage", {"over": "train"},
                       note="distinct recommended items / distinct training items: a "
                            "recommended item outside train counts, so it can exceed 1"),
    "distributional_coverage": R("distributional_coverage@{k}",
                                 "distributional_coverage"),
}

_EVIDENTLY = {
    "novelty": R("Novelty(k={k})", params={"popularity": "users", "absent": "skip"},
                 cutoff="required"),
    "diversity": R("Diversity(k={k}, item_features=...)",
                   params={"similarity": "cosine", "normalize": "items"}, cutoff="required",
                   note="the sum of pairwise cosine distances divided by the list length"),
    "serendipity": R("Serendipity(k={k}, item_features=...)",
                     params={"expected": "similarity", "similarity": "cosine",
                             "combine": "sum"}, cutoff="required",
                     note="1 - the sum over the relevant items of the top k of their mean "
                          "cosine to the user's training items (below 0 or above 1 "
                          "possible); users without a relevant item in the top k or "
                          "without training rows left out; relevance_threshold=t is the "
                          "legacy SerendipityMetric's min_rel_score=t"),
    "personalization": R("Personalization(k={k})", params={"overlap": "k_full"},
                         cutoff="required",
                         note="every list counted as k items long: a list shorter than k "
                              "raises the value (a DataWarning says so), above 1 possible"),
    "gini": R("PopularityBiasMetric(k={k}, metric='gini')",
              params={"items": "recommended", "normalize": "n-1"}, cutoff="required"),
    "popularity": R("PopularityBiasMetric(k={k}, metric='arp')",
                    params={"popularity": "users", "absent": "skip"}, cutoff="required",
                    variants=(({"scale": "max"}, "PopularityBiasMetric(k={k}, metric='arp', "
                                                 "normalize_arp=True)"),)),
    "item_coverage": R("PopularityBiasMetric(k={k}, metric='coverage')",
                       params={"over": "train", "absent": "skip"}, cutoff="required",
                       note="the recommended items that are in train / the training items"),
}

#: RecBole's ``dataset.num(item_id)``: every item of its dataset, plus the [PAD] token.
_NUM_ITEMS = ("num_items = every item of catalog=, train=, the truth and the lists, plus "
              "RecBole's [PAD] token; needs train= or catalog= (items only in a validation "
              "split or the .item file: give them in catalog=)")

_RECBOLE = {
    "item_coverage": R("itemcoverage@{k}", params={"over": "dataset", "extra_items": 1},
                       cutoff="required", note=_NUM_ITEMS),
    "gini": R("giniindex@{k}", params={"items": "dataset", "extra_items": 1},
              cutoff="required", note=_NUM_ITEMS),
    "entropy": R("shannonentropy@{k}", params={"normalize": "distinct"}, cutoff="required"),
    "popularity": R("averagepopularity@{k}", cutoff="required"),
    "long_tail": R("tailpercentage@{k} (tail_ratio={tail})",
                   params={"tail": 0.1, "absent": "not_tail"}, cutoff="required",
                   free=("tail",)),
}

_ELLIOT = {
    "popularity": R("ARP@{k}", params={"popularity": "users"}, cutoff="required"),
    "distributional_coverage": R("SEntropy@{k}", params={"weights": "lists"},
                                 cutoff="required",
                                 note="each list weighs 1 in total, each of its items "
                                      "1/|L_u|"),
}

#: Preset name -> receval metric -> the library's rule.
BEYOND_RULES: Mapping[str, Mapping[str, MetricRule]] = {
    "ms_recommenders": _MSR, "evidently": _EVIDENTLY, "recbole": _RECBOLE, "elliot": _ELLIOT}

#: Preset name -> the beyond-accuracy settings that differ from receval's defaults.
BEYOND_SETTINGS: Mapping[str, Mapping[str, str]] = {
    # a pair with an item missing from item_feature_df gets similarity 0 (fillna(0))
    "ms_recommenders": {"item_features_missing": "zero"},
}

#: Preset name -> the beyond-accuracy behaviours receval does not copy (each tested).
BEYOND_DIFFERENCES: Mapping[str, tuple[str, ...]] = {
    "ms_recommenders": (
        "serendipity with a relevance column averages over every user with a training row, "
        "a user without truth scoring 0; receval's serendipity needs truth and leaves that "
        "user out",
        "the functions are wrong under pandas 3 (a fillna on a column copy is ignored, and "
        "agg(...)[0] raises KeyError); the convention reproduces them under pandas 2",
        "a training row given twice counts twice in the co-occurrence counts and in a "
        "user's history mean; receval counts a (user, item) pair once there (novelty counts "
        "rows in both)",
        "item_sim_measure='item_feature_vector' raises ZeroDivisionError when any item has a "
        "zero feature vector; receval's cosine of a zero vector is 0",
        "col_relevance is cast to float16 and multiplies the unexpectedness; receval's "
        "relevance is 1 for a relevant truth row and 0 otherwise, MS Recommenders' number "
        "for a 0/1 relevance column",
    ),
    "evidently": (  # ties (an average rank) are listed with the accuracy rules
        "Serendipity's mean over the user's history counts training rows: a row given twice "
        "weighs twice; receval counts a (user, item) pair once",
        "sklearn's cosine distance of an item to itself is 0 even for a zero feature vector "
        "(Serendipity of a recommended item in the user's own history); receval's cosine of "
        "a zero vector is 0 to every item",
        "Personalization of a single list is NaN for a list of k items and infinite for a "
        "shorter one (a division by zero); receval gives NaN with an UndefinedMetricWarning",
    ),
    "recbole": (
        "num_items also counts items seen only in a validation split or in the .item file; "
        "receval counts them when they are given in catalog=",
        "TailPercentage with tail_ratio > 1 (a count threshold) has no receval variant",
    ),
    "elliot": (
        "APLT and ACLT take the short head as the most popular items covering 80 % of the "
        "training interactions; receval's head is a share of the items, so the convention "
        "does not offer them",
        "Gini is 1 - a Gini index normalised by n - 1, and ItemCoverage a count of items; "
        "the convention does not offer them",
        "EFD and EPC weight novelty by relevance and rank; receval has no such metric",
    ),
}


def with_beyond(convention: Convention) -> Convention:
    """The preset with its beyond-accuracy rules, settings and differences added."""
    rules = BEYOND_RULES.get(convention.name)
    if not rules:
        return convention
    return dataclasses.replace(
        convention, rules={**convention.rules, **rules},
        settings={**convention.settings, **BEYOND_SETTINGS.get(convention.name, {})},
        differences=convention.differences + BEYOND_DIFFERENCES.get(convention.name, ()))
