"""What a sampled evaluation must know and say.

The sampling strategy (the corrections need uniform negatives), the standard error of each
mean over the lists, and corrected means outside the metric's range.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from receval.exceptions import (
    InvalidParameterError,
    SampledCorrectionWarning,
    format_examples,
    warn,
)
from receval.sampled._negatives import STRATEGIES

__all__ = ["check_catalog", "out_of_range", "resolve_strategy", "standard_errors"]


def resolve_strategy(given: str | None, recorded: Any, correction: str) -> str | None:
    """How the negatives were drawn: ``strategy=``, else the candidate table's record.

    The corrections assume uniformly drawn negatives (the sampled rank is then binomial),
    so under a correction the strategy must be known and uniform:

    * recorded or given ``"popularity"``: refused;
    * neither given nor recorded (a table built by hand, or one whose ``DataFrame.attrs``
      pandas dropped, as ``merge`` does): refused until ``strategy="uniform"`` says so;
    * given and recorded, and different: refused (one of them is wrong).

    Raises
    ------
    InvalidParameterError
        ``parameter='strategy'``, or ``'correction'`` for popularity-sampled negatives.
    """
    if recorded is not None and recorded not in STRATEGIES:
        raise InvalidParameterError(
            f"scored records an unknown sampling strategy {recorded!r} (in "
            f"DataFrame.attrs['receval_sampled']); it must be one of "
            f"{', '.join(map(repr, STRATEGIES))}", parameter="strategy", examples=[recorded])
    if given is not None and recorded is not None and given != recorded:
        raise InvalidParameterError(
            f"strategy={given!r} contradicts the record of scored, whose negatives "
            f"rv.sampled.negatives drew with strategy={recorded!r}: leave strategy= out, or "
            f"pass the table those negatives came from", parameter="strategy",
            examples=[given, recorded])
    strategy = given if given is not None else recorded
    if correction == "none":
        return strategy
    if strategy == "popularity":
        how = "given" if given is not None else "recorded by rv.sampled.negatives"
        raise InvalidParameterError(
            f"correction={correction!r} assumes uniformly sampled negatives (the sampled rank "
            f"is then binomial); these were sampled by popularity (strategy {how}): use "
            f"correction='none'", parameter="correction", examples=[correction])
    if strategy is None:
        raise InvalidParameterError(
            f"correction={correction!r} assumes uniformly sampled negatives, and scored does "
            f"not say how its negatives were drawn (rv.sampled.negatives records it in "
            f"DataFrame.attrs, which merge and other libraries drop): pass "
            f"strategy='uniform' if every untouched item was equally likely",
            parameter="strategy", examples=[None])
    return strategy


def check_catalog(n_items: int, recorded: Any, correction: str) -> None:
    """Warn when ``n_items`` is not the catalog the negatives were drawn from."""
    if correction == "none" or recorded is None or int(recorded) == int(n_items):
        return
    warn(f"n_items={n_items} differs from the catalog of {int(recorded)} items the negatives "
         f"were drawn from (rv.sampled.negatives' record): correction={correction!r} "
         f"assumes the negatives are uniform over the n_items - 1 other items",
         SampledCorrectionWarning)


def standard_errors(per_list: pd.DataFrame, labels: Sequence[str]) -> dict[str, float]:
    """Standard error of each mean over lists: ``sd(ddof=1) / sqrt(L)``.

    The lists are independent samplings, so the mean of a per-list value has this standard
    error (NaN with fewer than two lists with a value).
    """
    out = {}
    for label in labels:
        v = per_list[label].to_numpy(dtype=np.float64)
        v = v[~np.isnan(v)]
        out[label] = float(np.std(v, ddof=1) / np.sqrt(len(v))) if len(v) > 1 else float("nan")
    return out


def out_of_range(means: dict[str, float], ranges: dict[str, tuple[float, float]],
                 errors: dict[str, float], uncorrected: dict[str, float], correction: str,
                 n_lists: int) -> list[str]:
    """Warn for each corrected mean outside ``[low, high]``, its metric's range; the labels.

    ``ranges`` gives the smallest and largest value of each metric at one positive per list
    (over the true ranks 1..n: 0 beyond the cutoff, ``M(1)`` at the top).
    """
    bad = [label for label, value in means.items()
           if not ranges[label][0] - 1e-12 <= value <= ranges[label][1] + 1e-12]
    if bad:
        shown = "; ".join(
            f"{label} = {means[label]:.4g} (standard error {errors[label]:.2g}, range "
            f"[{ranges[label][0]:g}, {ranges[label][1]:g}], uncorrected "
            f"{uncorrected[label]:.4g})" for label in bad[:5])
        warn(f"correction={correction!r} gives means outside the metric's range: {shown}. "
             f"The correction's table (settings['sampled']['tables']) has entries outside "
             f"the range that cancel out only on average over many samplings, and "
             f"{n_lists} lists are too few for that here; {_ADVICE.get(correction, _MORE)} "
             f"(docs/sampled.md, 'When a correction is safe'). Metrics: "
             f"{format_examples(bad, len(bad))}", SampledCorrectionWarning)
    return bad


_MORE = "use more lists"
#: What to use instead of a correction whose mean left the range: never itself
#: (rank_estimate's table is the metric at a rank, always in range; minimal_bias varies
#: more than bias_variance, so it is no advice for it).
_ADVICE = {
    "minimal_bias": "use correction='bias_variance' or 'rank_estimate', or more lists",
    "bias_variance": "use a larger gamma (the weight of the variance), "
                     "correction='rank_estimate', or more lists",
}
