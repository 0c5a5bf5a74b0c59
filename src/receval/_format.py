"""Numbers as text, the same in notebooks, reports and the command line."""

from __future__ import annotations

import math
from typing import Any

__all__ = ["fmt"]


def fmt(value: Any, digits: int = 4) -> str:
    """A number as text: ``digits`` decimals, ``nan`` for a missing value, ints as ints."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.{digits}f}"
    return str(value)
