"""Metric specifications: frozen dataclasses whose fields are the metric's variants."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from receval.data._build import TIE_POLICIES as TIES
from receval.exceptions import InvalidParameterError

__all__ = ["MAX_CUTOFF", "TIES", "Metric", "param"]

#: The largest cutoff ``@k``: 2**31 - 1, longer than any list (a longer one is refused: the
#: kernels count places in 64-bit integers, and k + n must not overflow them).
MAX_CUTOFF = 2**31 - 1


def param(default: Any, doc: str, *, options: tuple[Any, ...] | None = None,
          kind: type | tuple[type, ...] = str, check: Callable[[Any], bool] | None = None,
          rule: str = "") -> Any:
    """Declare a metric parameter: its default, documentation and validation rule.

    Parameters
    ----------
    default : object
        The value when the parameter is not given.
    doc : str
        One line for ``receval metrics`` and the docs.
    options : tuple, optional
        The allowed values, if they are a closed set.
    kind : type or tuple of types
        The Python type(s) of a valid value (``None`` is allowed when it is the default).
    check : callable, optional
        A further predicate on the value, described by ``rule``.
    rule : str
        The rule ``check`` enforces, for error messages.
    """
    meta = {"doc": doc, "options": options, "kind": kind, "check": check, "rule": rule}
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class Metric:
    """Base of every metric: a named, validated set of variant parameters.

    Subclasses set the class attributes below and declare their parameters with
    :func:`param`. ``repr()`` is the canonical label, e.g. ``NDCG(gain='exponential')@10``,
    which :func:`receval.metrics.parse` reads back to an equal metric.

    Attributes
    ----------
    name : str
        Registry name (lower case).
    display : str
        Name in labels.
    aliases : tuple of str
        Other registry names.
    family : {"ranking", "rating", "per_list", "exposure"}
        Which engine family computes it (:mod:`receval._engine._families`): per-user ranked
        lists against the truth, per-user rating pairs, a value per list from its items
        alone, or one value for the whole set of lists.
    takes_k : bool
        Whether ``@k`` is meaningful.
    bounds : (float, float)
        The range of the per-user value.
    higher_is_better : bool
        The direction of improvement.
    aggregations : tuple of str
        ``macro`` (mean over users) and/or ``micro`` (sum of numerators over sum of
        denominators), the first being the default.
    """

    name: ClassVar[str] = ""
    display: ClassVar[str] = ""
    aliases: ClassVar[tuple[str, ...]] = ()
    family: ClassVar[str] = "ranking"
    takes_k: ClassVar[bool] = True
    bounds: ClassVar[tuple[float, float]] = (0.0, 1.0)
    higher_is_better: ClassVar[bool] = True
    aggregations: ClassVar[tuple[str, ...]] = ("macro",)
    summary: ClassVar[str] = ""
    formula: ClassVar[str] = ""

    k: int | None = None

    def __post_init__(self) -> None:
        if self.k is not None or not self.takes_k:
            if not self.takes_k and self.k is not None:
                raise InvalidParameterError(
                    f"{self.display} takes no cutoff, got @{self.k}", parameter="k")
            if self.k is not None and (isinstance(self.k, bool) or not isinstance(self.k, int)
                                       or not 1 <= self.k <= MAX_CUTOFF):
                raise InvalidParameterError(
                    f"the cutoff k of {self.display} must be an integer >= 1 (at most 2**31 - "
                    f"1 = {MAX_CUTOFF}; or None for the whole list), got {self.k!r}",
                    parameter="k", examples=[self.k])
        for f in self.parameters():
            self._validate(f, getattr(self, f.name))

    # -- parameters --------------------------------------------------------------------------
    trailing: ClassVar[tuple[str, ...]] = ()
    """Inherited parameters listed after the metric's own ones (in labels and docs)."""

    @classmethod
    def parameters(cls) -> list[dataclasses.Field[Any]]:
        """The metric's declared parameters (every field but ``k``), its own ones first."""
        fields = [f for f in dataclasses.fields(cls) if f.name != "k"]
        return ([f for f in fields if f.name not in cls.trailing]
                + [f for f in fields if f.name in cls.trailing])

    def _validate(self, f: dataclasses.Field[Any], value: Any) -> None:
        meta = f.metadata
        if value is None and f.default is None:
            return
        options = meta.get("options")
        if options is not None:
            if value not in options:
                raise InvalidParameterError(
                    f"the {f.name!r} parameter of {self.display} must be one of "
                    f"{', '.join(repr(o) for o in options)}; got {value!r}",
                    parameter=f.name, examples=[value])
            return
        kind = meta.get("kind", str)
        ok = isinstance(value, kind) and not isinstance(value, bool)
        if ok and isinstance(value, float):
            ok = math.isfinite(value)
        check = meta.get("check")
        if ok and check is not None:
            ok = bool(check(value))
        if not ok:
            rule = meta.get("rule") or f"a {getattr(kind, '__name__', kind)}"
            raise InvalidParameterError(
                f"the {f.name!r} parameter of {self.display} must be {rule}; got {value!r}",
                parameter=f.name, examples=[value])

    def non_defaults(self) -> dict[str, Any]:
        """Parameters whose value differs from the default, in declaration order."""
        return {f.name: getattr(self, f.name) for f in self.parameters()
                if getattr(self, f.name) != f.default}

    # -- labels ------------------------------------------------------------------------------
    def label_name(self) -> str:
        """The name part of the label (subclasses may specialise it)."""
        return self.display

    def label_params(self) -> dict[str, Any]:
        """The parameters shown in the label."""
        return self.non_defaults()

    @property
    def label(self) -> str:
        """Canonical label: ``Name(param=value, ...)@k``."""
        shown = self.label_params()
        text = self.label_name()
        if shown:
            text += "(" + ", ".join(f"{k}={v!r}" for k, v in shown.items()) + ")"
        if self.k is not None:
            text += f"@{self.k}"
        return text

    def __repr__(self) -> str:
        return self.label

    def __str__(self) -> str:
        return self.label

    def replace(self, **changes: Any) -> Metric:
        """A copy with some parameters changed (validated again)."""
        return dataclasses.replace(self, **changes)

    # -- aggregation -------------------------------------------------------------------------
    @property
    def aggregation_mode(self) -> str:
        """``macro`` or ``micro``."""
        return str(getattr(self, "aggregation", self.aggregations[0]))

    def finalize(self, value: Any) -> Any:
        """Transform a ratio into the metric's value (RMSE takes a square root)."""
        return value

    undefined_is_zero: ClassVar[bool] = True
    """Whether ``0/0`` for a user means 0 (ranking) or an undefined value (correlations)."""

    def left_out(self, num: np.ndarray, den: np.ndarray) -> np.ndarray | None:
        """Users this metric's own parameters leave out of its mean, given their terms.

        None (nobody) unless a metric has such a parameter (nDCG's ``zero_ideal='skip'``).
        """
        return None

