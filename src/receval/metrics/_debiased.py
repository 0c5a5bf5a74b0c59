r"""Debiased ranking metrics: inverse-propensity weights for logs missing not at random.

A relevant item ``i`` observed with propensity ``P_i`` (the probability that the user's
interaction with it was logged) weighs ``w_i = 1 / P_i`` (``min(w_i, max_weight)`` when
clipped). With ``c_{u,i}`` the metric's per-positive utility (a hit for recall, the
discounted gain for DCG, ...) over the user's observed positives ``R_u`` (Yang, Cui, Xuan,
Wang, Belongie, Estrin, RecSys 2018):

* ``estimator='ips'``: ``m_u = (1 / |R_u|) sum_i w_i c_{u,i}`` (Horvitz-Thompson);
* ``estimator='snips'`` (default): ``m_u = sum_i w_i c_{u,i} / sum_i w_i``, the mean over
  users (``normalize='user'``, the authors' released code), or pooled
  ``sum_u (1/|R_u|) sum_i w c / sum_u (1/|R_u|) sum_i w`` (``normalize='pooled'``).

Propensities: ``propensity='popularity'`` (Yang et al. eq. 15, ``P_i = (n_i / max_j
n_j)^((gamma + 1) / 2)`` from the training counts ``n_i``; ``gamma`` fitted when not given,
``popularity(gamma=1.5)`` to set it, ``gamma >= -1``: ``n_i / max_j n_j`` is in (0, 1], so
``P_i`` is in (0, 1] exactly when the exponent ``(gamma + 1) / 2`` is ``>= 0``; ``gamma = -1``
is ``P_i = 1``, the plain metric), ``'column'`` (``evaluate(propensities=...)``) or
``'recpack'`` (``P_i = n_i / sum_j n_j``, RecPack's ``IPSHitRateK``).
``docs/fairness.md`` has the worked example; the ranking family computes them
(:mod:`receval._engine._families._weighted`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

from receval.exceptions import InvalidParameterError
from receval.metrics._base import Metric, param

__all__ = ["Debiased", "propensity_model"]


def propensity_model(text: str) -> tuple[str, float | None]:
    """Read ``popularity``, ``popularity(gamma=1.5)``, ``column`` or ``recpack``.

    Returns the model's name and gamma (None: fitted, or not a popularity model).

    Raises
    ------
    InvalidParameterError
        An unknown model, a parameter other than popularity's ``gamma``, or a gamma that is
        not a finite number ``>= -1``: ``P_i = (n_i / max_j n_j)^((gamma + 1) / 2)`` with
        ``n_i / max_j n_j`` in (0, 1] is in (0, 1] exactly when ``(gamma + 1) / 2 >= 0``; a
        gamma below -1 gives propensities above 1, weights that favour popular items.
    """
    name, _, rest = str(text).strip().partition("(")
    name = name.strip().lower()
    if name not in ("popularity", "column", "recpack"):
        raise InvalidParameterError(
            f"propensity must be 'popularity', 'popularity(gamma=...)', 'column' or "
            f"'recpack'; got {text!r}", parameter="propensity", examples=[text])
    inner = rest.rstrip().removesuffix(")").strip()
    if not inner:
        return name, None
    key, _, raw = inner.partition("=")
    try:
        gamma = float(raw)
    except ValueError:
        gamma = math.nan
    if name != "popularity" or key.strip() != "gamma" or not math.isfinite(gamma):
        raise InvalidParameterError(
            f"propensity {text!r}: only popularity takes a parameter, gamma=<number> (the "
            f"exponent of Yang et al.'s eq. 15)", parameter="propensity", examples=[text])
    if gamma < -1.0:
        raise InvalidParameterError(
            f"propensity {text!r}: gamma must be a number >= -1, got {gamma:g}: P_i = "
            f"(n_i / max_j n_j)^((gamma + 1) / 2) is a propensity in (0, 1] only when the "
            f"exponent (gamma + 1) / 2 is >= 0; below -1 the propensities exceed 1 and the "
            f"weights 1 / P_i favour popular items (gamma = -1 gives P_i = 1, the plain "
            f"metric)", parameter="propensity", examples=[text])
    return name, gamma


@dataclass(frozen=True, repr=False)
class Debiased(Metric):
    """Propensity weights for a ranking metric (recall, hit rate, DCG, nDCG, AP, AUC)."""

    weighted_parameters: ClassVar[tuple[str, ...]] = (
        "propensity", "estimator", "normalize", "max_weight", "absent")
    trailing: ClassVar[tuple[str, ...]] = (*weighted_parameters, "ties", "missing_recs")

    propensity: str | None = param(
        None, "weigh each relevant item by 1 / its propensity: popularity (Yang et al. eq. "
        "15, gamma fitted) or popularity(gamma=g), g >= -1, column (evaluate(propensities=...)), "
        "recpack (n_i / sum n); None: unweighted", kind=str)
    estimator: str = param("snips", "with a propensity: snips (self-normalised) or ips",
                           options=("snips", "ips"))
    normalize: str = param("user", "snips: normalise each user's weights (the authors' code) "
                           "or pool them over users", options=("user", "pooled"))
    max_weight: float | None = param(None, "clip every weight at this value", kind=float,
                                     check=lambda x: x > 0, rule="a number > 0")
    absent: str = param("skip", "a relevant item without a propensity (absent from train, "
                        "or from propensities=): left out, weight 0 (RecPack), weight "
                        "max_weight, or an error", options=("skip", "zero", "cap", "error"))

    def __post_init__(self) -> None:
        if self.propensity is not None:
            name, gamma = propensity_model(self.propensity)
            canonical = name if gamma is None else f"popularity(gamma={gamma:g})"
            object.__setattr__(self, "propensity", canonical)
        super().__post_init__()
        if self.propensity is None:
            extra = [n for n in self.weighted_parameters[1:]
                     if getattr(self, n) != self.__dataclass_fields__[n].default]
            if extra:
                raise InvalidParameterError(
                    f"{self.display}: {', '.join(extra)} weigh by propensity; give "
                    f"propensity= too (e.g. propensity=popularity)", parameter=extra[0],
                    examples=extra)
            return
        if self.absent == "cap" and self.max_weight is None:
            raise InvalidParameterError(
                f"{self.display}: absent='cap' gives a weight of max_weight; give max_weight",
                parameter="absent", examples=["cap"])
        self._check_weighted()

    def _check_weighted(self) -> None:
        """Variants that have no weighted form raise here (subclasses)."""
        ties = getattr(self, "ties", None)
        if ties == "expected" and self.name in ("ap", "auc"):
            raise InvalidParameterError(
                f"{self.display}: with propensity weights, ties='expected' is defined for "
                f"recall, hit rate, DCG and nDCG (linear in the gains); give another tie "
                f"policy", parameter="ties", examples=[ties])
        if self.normalize == "pooled" and (self.estimator != "snips" or self.name == "ndcg"):
            raise InvalidParameterError(
                f"{self.display}: normalize='pooled' is the pooled SNIPS estimator of "
                f"recall, hit rate, DCG, AP and AUC (nDCG is self-normalised already)",
                parameter="normalize", examples=["pooled"])
        if getattr(self, "aggregation", "macro") == "micro" and self.normalize == "pooled":
            raise InvalidParameterError(
                f"{self.display}: aggregation='micro' and normalize='pooled' both pool over "
                f"users; give one", parameter="normalize", examples=["pooled"])
        if getattr(self, "grades", "relevant") == "judged":
            raise InvalidParameterError(
                f"{self.display}: propensity weights apply to relevant items; grades="
                f"'judged' has no weighted form", parameter="grades", examples=["judged"])
        if self.name == "ap" and (getattr(self, "denominator", "") not in (
                "min_k_relevant", "relevant") or getattr(self, "positions", "") == "all"):
            raise InvalidParameterError(
                f"{self.display}: weighted AP divides by the weights of min(k, |R|) or of "
                f"every relevant item: denominator='min_k_relevant' or 'relevant'",
                parameter="denominator", examples=[getattr(self, "denominator", "")])
        if self.name == "ndcg" and getattr(self, "ideal", "truth") == "list":
            raise InvalidParameterError(
                f"{self.display}: ideal='list' has no weighted form", parameter="ideal",
                examples=["list"])

    @property
    def weighted(self) -> bool:
        """Whether the metric weighs by propensity."""
        return self.propensity is not None

    @property
    def aggregation_mode(self) -> str:
        """``micro`` for pooled SNIPS (a ratio of sums over users), else the metric's own."""
        if self.propensity is not None and self.normalize == "pooled":
            return "micro"
        return str(getattr(self, "aggregation", self.aggregations[0]))

    def propensity_spec(self) -> tuple[str, float | None]:
        """The propensity model and its gamma."""
        assert self.propensity is not None
        return propensity_model(self.propensity)

    def inputs(self) -> tuple[str, ...]:
        """Side inputs the propensities read."""
        if self.propensity is None:
            return ()
        return ("propensities",) if self.propensity == "column" else ("train",)

    @staticmethod
    def describe(metric: Any) -> dict[str, Any]:
        """The weighting of a metric, for settings."""
        return {n: getattr(metric, n) for n in Debiased.weighted_parameters}
