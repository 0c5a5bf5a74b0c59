"""Names that users give (systems, models): text that every encoding and report can hold."""

from __future__ import annotations

import re
from typing import Any

from receval.exceptions import DataWarning, warn

__all__ = ["TEST_NAMES", "clean_name"]

#: The name of each paired ``test`` in tables, legends, reports and warnings.
TEST_NAMES = {"t": "paired t test", "wilcoxon": "Wilcoxon signed-rank test",
              "sign": "sign test", "permutation": "paired permutation test",
              "bootstrap": "paired bootstrap test"}

_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_name(key: Any, *, what: str, parameter: str) -> str:
    """``str(key)``, lone surrogates (no text encoding holds them) replaced by U+FFFD.

    Such a name could be neither stored by pandas' string columns nor written to a report or
    a terminal; the replacement is warned about (:class:`~receval.exceptions.DataWarning`),
    naming ``parameter`` and ``what`` the name is of (``"system"``, ``"model"``).
    """
    name = str(key)
    clean = _SURROGATE.sub("\ufffd", name)
    if clean != name:
        warn(f"{parameter}: the {what} name {name!r} holds lone surrogates, which no text "
             f"encoding can hold; it is named {clean!r} (U+FFFD for each)", DataWarning)
    return clean
