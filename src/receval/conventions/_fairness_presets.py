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

#: Presets that define only fairness metrics, by name.
FAIRNESS_PRESETS: Mapping[str, Convention] = {c.name: c for c in (_LIBREC,)}

#: Preset name -> receval metric -> the library's rule (added to an existing preset).
FAIRNESS_RULES: Mapping[str, Mapping[str, MetricRule]] = {}

#: Preset name -> the fairness behaviours receval does not copy (each tested).
FAIRNESS_DIFFERENCES: Mapping[str, tuple[str, ...]] = {}


def with_fairness(convention: Convention) -> Convention:
    """The preset with its fairness rules and differences added."""
    rules = FAIRNESS_RULES.get(convention.name)
    if not rules:
        return convention
    return dataclasses.replace(
        convention, rules={**convention.rules, **rules},
        differences=convention.differences + FAIRNESS_DIFFERENCES.get(convention.name, ()))
