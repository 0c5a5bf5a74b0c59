"""The validated options of one evaluation, as every partition and the merge read them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from receval._columns import Columns
from receval.conventions import Convention
from receval.data._side import SideInputs
from receval.metrics import Metric

__all__ = ["Options"]


@dataclass(frozen=True)
class Options:
    """Validated options of one evaluation (see :func:`receval.evaluate`)."""

    specs: tuple[tuple[str, Metric], ...]
    columns: Columns
    ties: str
    policies: dict[str, Any]
    relevance_threshold: float | None
    id_cast: str | None
    strict: bool
    catalog: Sequence[Any] | None
    convention: Convention | None
    overrides: dict[str, Any] = field(default_factory=dict)  # settings set over a convention
    fill_value: float | None = None  # resolved "global_mean" when computed outside a partition
    side: SideInputs = field(default_factory=SideInputs)  # train and features, read once
    item_features_missing: str = "error"
    item_features_sep: str | None = "|"
    sample: str | None = None  # the recs column of a stochastic ranker's sample labels
    unused_rank: str | None = None  # a rank column of recs read (checked) but not ranked by

    def missing_recs(self, metric: Metric) -> str:
        """The missing-recommendations policy of one metric (its own, or the call's)."""
        return str(getattr(metric, "missing_recs", None) or self.policies["missing_recs"])

    def metrics_of(self, family: str) -> list[tuple[str, Any]]:
        """The requested metrics of one family (``Metric.family``), with the text asked."""
        return [(t, m) for t, m in self.specs if m.family == family]

    def needs_features(self) -> bool:
        """Whether some requested metric reads ``item_features``."""
        return any("item_features" in getattr(m, "inputs", lambda: ())() for _, m in self.specs)
