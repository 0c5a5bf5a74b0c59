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

__all__ = ["BEYOND_DIFFERENCES", "BEYOND_RULES", "with_beyond"]

R = MetricRule

#: Microsoft Recommenders' functions have no cutoff: ``f@k`` is f given every user's top k.
_MSR = {
    "novelty": R("novelty@{k}", "novelty",
                 {"popularity": "interactions", "absent": "zero", "aggregation": "micro"},
                 note="a mean over every recommended row; per user, novelty on the user's "
                      "rows; an item absent from train adds 0"),
    "diversity": R("diversity@{k}", "diversity", {"similarity": "cooccurrence"},
                   variants=(({"similarity": "cosine"},
                              "diversity(item_sim_measure='item_feature_vector')@{k}"),),
                   note="users with one item are left out"),
    "serendipity": R("serendipity(col_relevance=...)@{k}",
                     "serendipity(col_relevance=...)",
                     {"expected": "similarity", "similarity": "cooccurrence"},
                     variants=(({"similarity": "cosine"},
                                "serendipity(col_relevance=..., item_sim_measure="
                                "'item_feature_vector')@{k}"),)),
    "unexpectedness": R("serendipity@{k}", "serendipity",
                        {"expected": "similarity", "similarity": "cooccurrence"},
                        variants=(({"similarity": "cosine"},
                                   "serendipity(item_sim_measure='item_feature_vector') "
                                   "@{k}"),),
                        note="serendipity without a relevance column: every item relevant"),
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
    "personalization": R("Personalization(k={k})", params={"overlap": "k"},
                         cutoff="required"),
    "gini": R("PopularityBiasMetric(k={k}, metric='gini')",
              params={"items": "recommended", "normalize": "n-1"}, cutoff="required"),
    "popularity": R("PopularityBiasMetric(k={k}, metric='arp')",
                    params={"popularity": "users", "absent": "skip"}, cutoff="required",
                    variants=(({"scale": "max"}, "PopularityBiasMetric(k={k}, metric='arp', "
                                                 "normalize_arp=True)"),)),
    "item_coverage": R("PopularityBiasMetric(k={k}, metric='coverage')", cutoff="required",
                       note="over the training items: give catalog= the training items"),
}

_RECBOLE = {
    "item_coverage": R("itemcoverage@{k}", cutoff="required",
                       note="num_items counts RecBole's [PAD] token: catalog + 1"),
    "gini": R("giniindex@{k}", cutoff="required",
              note="over num_items items, RecBole's [PAD] token included"),
    "entropy": R("shannonentropy@{k}", params={"normalize": "distinct"}, cutoff="required"),
    "popularity": R("averagepopularity@{k}", cutoff="required"),
    "long_tail": R("tailpercentage@{k} (tail_ratio={tail})",
                   params={"tail": 0.1, "absent": "not_tail"}, cutoff="required",
                   free=("tail",)),
}

_ELLIOT = {
    "popularity": R("ARP@{k}", params={"popularity": "users"}, cutoff="required"),
    "distributional_coverage": R("SEntropy@{k}", cutoff="required",
                                 note="equal to Elliot's when every list has k items"),
}

#: Preset name -> receval metric -> the library's rule.
BEYOND_RULES: Mapping[str, Mapping[str, MetricRule]] = {
    "ms_recommenders": _MSR, "evidently": _EVIDENTLY, "recbole": _RECBOLE, "elliot": _ELLIOT}

#: Preset name -> the beyond-accuracy behaviours receval does not copy (each tested).
BEYOND_DIFFERENCES: Mapping[str, tuple[str, ...]] = {
    "ms_recommenders": (
        "serendipity with a relevance column averages over every user with a training row, "
        "a user without truth scoring 0; receval's serendipity needs truth and leaves that "
        "user out",
        "the functions are wrong under pandas 3 (a fillna on a column copy is ignored, and "
        "agg(...)[0] raises KeyError); the convention reproduces them under pandas 2",
    ),
    "evidently": (
        "Serendipity sums the similarity of every relevant recommended item to the user's "
        "history (the value can be negative); receval's serendipity is a mean over the top "
        "k, so the convention does not offer it",
        "Personalization assumes every list has k items (shorter lists give values above "
        "1); receval divides by k as Evidently does, for lists of k items",
        "tied scores share an average rank, so a top k can hold more than k items; receval "
        "ranks every item on its own place",
        "PopularityBiasMetric's coverage counts only the recommended items that are in "
        "train; receval with catalog= the training items refuses a recommended item outside "
        "the catalog (DataError)",
    ),
    "recbole": (
        "ItemCoverage and GiniIndex divide by dataset.num(item_id), which counts the [PAD] "
        "token: give catalog= the catalog plus one item to reproduce them",
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
    """The preset with its beyond-accuracy rules and differences added."""
    rules = BEYOND_RULES.get(convention.name)
    if not rules:
        return convention
    return dataclasses.replace(
        convention, rules={**convention.rules, **rules},
        differences=convention.differences + BEYOND_DIFFERENCES.get(convention.name, ()))
