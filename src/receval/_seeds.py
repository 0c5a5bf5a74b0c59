"""Seeds: every random draw of receval comes from an explicit integer seed."""

from __future__ import annotations

import numbers
from typing import Any

from receval.exceptions import InvalidParameterError

__all__ = ["check_seed"]


def check_seed(seed: Any, *, parameter: str = "seed") -> int:
    """``seed`` as an int from 0 to 2**63 - 1 (a 64-bit integer, as Spark's), or an error.

    Splits, negative sampling and the random model draw from keyed hashes or generators of
    this seed, so the same seed gives the same result in any process; ``None`` (fresh
    entropy), floats and booleans are refused, naming ``parameter``.
    """
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) \
            or not 0 <= int(seed) < 2**63:
        raise InvalidParameterError(
            f"{parameter} must be an integer from 0 to 2**63 - 1 (receval's random draws are "
            f"reproducible: the same seed gives the same result in any process), got "
            f"{seed!r}", parameter=parameter, examples=[seed])
    return int(seed)
