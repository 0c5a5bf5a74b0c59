"""What a convention is: one library's metric variants and evaluation settings, as data."""

from __future__ import annotations

import dataclasses
import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from receval.exceptions import InvalidParameterError, UnknownMetricError
from receval.metrics import Metric, get, parse

__all__ = ["DEFAULTS", "SETTINGS", "Convention", "MetricRule"]

#: receval's own value of every setting a convention may change (``evaluate`` parameters).
DEFAULTS: Mapping[str, Any] = MappingProxyType({
    "ties": "stable",
    "no_relevant": "skip",
    "missing_recs": "zero",
    "recs_without_truth": "ignore",
    "missing_predictions": "error",
    "relevance_threshold": None,
    "truth_scope": "all",
    "score_precision": "float64",
    "item_features_missing": "error",
})

#: What each setting decides, for tables and docs.
SETTINGS: Mapping[str, str] = MappingProxyType({
    "ties": "order of items with equal scores",
    "no_relevant": "truth users without a relevant item",
    "missing_recs": "truth users without recommendations",
    "recs_without_truth": "users with recommendations but no truth row",
    "missing_predictions": "truth ratings without a prediction (rating metrics)",
    "relevance_threshold": "a truth grade is relevant when >= this (None: when > 0)",
    "truth_scope": "truth rows the library sees: all, or only recommended items",
    "score_precision": "precision the library reads scores in",
    "item_features_missing": "an item without a row in item_features (similarity metrics)",
})


@dataclass(frozen=True)
class MetricRule:
    """How one library defines one receval metric.

    Attributes
    ----------
    name : str
        The library's name with a cutoff, ``{k}`` standing for it (``"ndcg_cut_{k}"``).
    name_whole : str
        The library's name without a cutoff ("" when it needs one).
    params : dict
        receval parameters that reproduce the library's definition.
    params_whole : dict, optional
        Different parameters when there is no cutoff (MS Recommenders' ``map`` versus
        ``map_at_k``); by default ``params``.
    params_features : dict, optional
        Parameters that replace those of ``params`` when ``evaluate(item_features=...)`` is
        given: a library that compares items by their features when it has them and by
        co-occurrence otherwise (MS Recommenders' ``item_sim_measure``).
    cutoff : {"any", "required", "none"}
        Whether the library computes the metric with a cutoff, without, or both.
    variants : tuple of (dict, str)
        Other receval parameters that select another of the library's own variants, with
        its name (ranx: ``({"gain": "exponential"}, "ndcg_burges@{k}")``).
    free : tuple of str
        receval parameters the library takes as a parameter of its own, any value: the name
        writes them as ``{param}``, or ``{param^2}`` for their square (trec_eval's
        ``set_F.{beta^2}``).
    note : str
        What a user should know (shown in the table's notes).
    """

    name: str
    name_whole: str = ""
    params: Mapping[str, Any] = field(default_factory=dict)
    params_whole: Mapping[str, Any] | None = None
    params_features: Mapping[str, Any] | None = None
    cutoff: str = "any"
    variants: tuple[tuple[Mapping[str, Any], str], ...] = ()
    free: tuple[str, ...] = ()
    note: str = ""

    def parameters(self, k: int | None, *, item_features: bool = False) -> Mapping[str, Any]:
        """The receval parameters for a metric with cutoff ``k`` (None: the whole list).

        With ``item_features`` (the evaluation has ``item_features=``), ``params_features``
        replace the parameters they name.
        """
        base = self.params_whole if k is None and self.params_whole is not None else \
            self.params
        if item_features and self.params_features:
            return {**base, **self.params_features}
        return base

    def forms(self, k: int | None) -> list[tuple[Mapping[str, Any], str]]:
        """Every metric the library computes under this rule: (receval parameters, name)."""
        base = self.parameters(k)
        name = self.name if k is not None else (self.name_whole or self.name)
        return [(base, name), *(({**base, **params}, other)
                                for params, other in self.variants)]


@dataclass(frozen=True)
class Convention:
    """A named set of metric variants and settings that reproduces one library's numbers.

    Parameters
    ----------
    name : str
        The value of ``evaluate(convention=...)``.
    library : str
        The library (and the tools that share its code).
    versions : str
        The versions whose numbers the conformance suite compares with.
    summary : str
        One line on the library's choices.
    rules : dict
        receval metric name -> :class:`MetricRule`; a metric without a rule is not offered.
    settings : dict
        Values of the ``evaluate`` settings (see :data:`SETTINGS`) that differ from
        receval's defaults.
    differences : tuple of str
        What receval does not reproduce, and why (each tested as a difference).
    aliases : tuple of str
        Other names of the convention (``"pytrec_eval"``).
    """

    name: str
    library: str
    versions: str
    summary: str
    rules: Mapping[str, MetricRule]
    settings: Mapping[str, Any] = field(default_factory=dict)
    differences: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        unknown = set(self.settings) - set(DEFAULTS)
        if unknown:
            raise InvalidParameterError(f"convention {self.name!r}: unknown settings "
                                        f"{sorted(unknown)}", parameter="settings")
        for metric, rule in self.rules.items():
            cls = get(metric)
            names = {f.name for f in cls.parameters()}
            for params in (rule.params, rule.params_whole or {}, rule.params_features or {},
                           *(v for v, _ in rule.variants)):
                bad = set(params) - names
                if bad:
                    raise InvalidParameterError(
                        f"convention {self.name!r}: {cls.display} has no parameters "
                        f"{sorted(bad)}", parameter="rules")

    def setting(self, name: str) -> Any:
        """The convention's value of one ``evaluate`` setting."""
        return self.settings.get(name, DEFAULTS[name])

    def all_settings(self) -> dict[str, Any]:
        """Every setting, the convention's value or receval's default."""
        return {name: self.setting(name) for name in DEFAULTS}

    def rule(self, metric: str | type[Metric] | Metric) -> MetricRule:
        """The rule for one metric, or an error saying what the library offers."""
        cls = metric if isinstance(metric, type) else (
            type(metric) if isinstance(metric, Metric) else get(metric))
        if cls.name in self.rules:
            return self.rules[cls.name]
        offered = ", ".join(get(m).display for m in self.rules)
        raise UnknownMetricError(
            f"{self.library} has no {cls.display}: convention {self.name!r} defines "
            f"{offered}; evaluate {cls.name} without a convention", parameter="metrics",
            examples=[cls.name])

    def metric(self, spec: str | Metric, *, item_features: bool = False) -> Metric:
        """Read a metric in this convention: its rule's parameters, then those written.

        ``item_features``: whether the evaluation has ``item_features=`` (a rule's
        ``params_features`` then apply: MS Recommenders compares items by their feature
        vectors when it has them). A :class:`~receval.metrics.Metric` object is a complete
        specification and is returned as it is (after checking that the library offers it).
        """
        if isinstance(spec, Metric):
            self._check_cutoff(spec, self.rule(spec))
            return spec
        # the rule from the name and cutoff alone: the rule's parameters may be what makes
        # the written ones valid (recpack's hit_rate(max_weight=5) needs its propensity)
        head = re.match(r"\s*([A-Za-z_][A-Za-z0-9_\-]*)", spec)
        at = re.search(r"@\s*(\d+)\s*$", spec)
        rule = self.rule(head.group(1) if head else spec)
        k = int(at.group(1)) if at else None
        metric = parse(spec, defaults=rule.parameters(k, item_features=item_features))
        self._check_cutoff(metric, rule)
        return metric

    def _check_cutoff(self, metric: Metric, rule: MetricRule) -> None:
        if rule.cutoff == "required" and metric.takes_k and metric.k is None:
            raise InvalidParameterError(
                f"{self.library}'s {rule.name.replace('{k}', 'k')} needs a cutoff: write "
                f"{metric.name}@k under convention {self.name!r}", parameter="k",
                examples=[metric.label])
        if rule.cutoff == "none" and metric.k is not None:
            raise InvalidParameterError(
                f"{self.library}'s {rule.name_whole} reads the whole list: write "
                f"{metric.name} without @k under convention {self.name!r}", parameter="k",
                examples=[metric.label])

    def _closest(self, metric: Metric) -> tuple[str, dict[str, Any]]:
        """The library's form nearest to ``metric``.

        Its name, and the parameters of ``metric`` that differ from it (empty when the
        library computes ``metric``).
        """
        rule = self.rule(metric)
        best: tuple[str, dict[str, Any]] | None = None
        for params, name in rule.forms(metric.k):
            diff = {f.name: getattr(metric, f.name) for f in metric.parameters()
                    if f.name not in rule.free
                    and getattr(metric, f.name) != params.get(f.name, f.default)}
            if best is None or len(diff) < len(best[1]):
                best = (name, diff)
        assert best is not None  # every rule has its base form
        return best

    def library_name(self, metric: Metric) -> str | None:
        """The library's own name of ``metric`` (its variant, with the cutoff).

        None when the metric's parameters select a variant the library does not compute
        (see :meth:`not_in_library`).
        """
        name, diff = self._closest(metric)
        if diff:
            return None
        if metric.k is None:  # a variant's name without its cutoff
            name = _without_cutoff(name, self.rule(metric))
        else:
            name = name.replace("{k}", str(metric.k))
        return re.sub(r"\{(\w+)(\^2)?\}",
                      lambda m: f"{getattr(metric, m[1]) ** (2 if m[2] else 1):g}", name)

    def not_in_library(self, metric: Metric) -> dict[str, Any]:
        """Parameters of ``metric`` that no form of the library's metric has.

        ``{}`` when the library computes it; otherwise a variant written in the metric's
        name, over the convention.
        """
        return self._closest(metric)[1]

    def describe(self) -> dict[str, Any]:
        """Everything the convention sets, as plain data (for JSON and docs)."""
        return {
            "name": self.name, "library": self.library, "versions": self.versions,
            "summary": self.summary, "aliases": list(self.aliases),
            "settings": self.all_settings(),
            "metrics": {m: {**dataclasses.asdict(r), "params": dict(r.params),
                            "params_features": (None if r.params_features is None
                                                else dict(r.params_features))}
                        for m, r in self.rules.items()},
            "differences": list(self.differences),
        }


def _without_cutoff(name: str, rule: MetricRule) -> str:
    """A variant's name for the whole list.

    Its cutoff parameter is left out (``NDCG(n={k}, gain='rating')`` ->
    ``NDCG(gain='rating')``), or written as the rule's whole-list name writes it where the
    library has no uncut form (MS Recommenders' ``k=len``).
    """
    whole = re.search(r"\b(\w+)=(len\w*)", rule.name_whole)
    if whole and f"{whole[1]}={{k}}" in name:
        return name.replace("{k}", whole[2])
    name = re.sub(r"\((?:\w+=)?\{k\}\)", "()", name)  # f(k={k}) -> f()
    name = re.sub(r"\b\w+=\{k\}, ", "", name)  # f(n={k}, gain=...) -> f(gain=...)
    return re.sub(r"(?:@| -M |_)\{k\}", "", name)


def close_names(name: str, names: list[str]) -> str:
    """A ``did you mean`` hint."""
    close = difflib.get_close_matches(name, names, n=3, cutoff=0.5)
    return f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
