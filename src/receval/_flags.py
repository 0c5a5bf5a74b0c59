"""Flags: a boolean parameter takes True or False, never a truthy stand-in."""

from __future__ import annotations

from typing import Any

import numpy as np

from receval.exceptions import InvalidParameterError

__all__ = ["check_flag"]


def check_flag(value: Any, parameter: str, *, none: bool = False) -> bool | None:
    """``value`` as a bool (numpy's too), or an error naming ``parameter``; None if ``none``.

    ``"false"``, ``"no"``, ``0`` and ``1`` are refused: a string is always truthy, so taking
    it would silently turn the flag on.
    """
    if value is None and none:
        return None
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise InvalidParameterError(
        f"{parameter} must be True or False{' (or None)' if none else ''}, got "
        f"{type(value).__name__} {value!r}", parameter=parameter, examples=[repr(value)])
