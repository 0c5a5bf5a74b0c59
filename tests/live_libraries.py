"""Which live modules of a test folder to collect: one rule for every folder of live tests.

A module that needs a library runs only where that library is installed, except that
``RECEVAL_REQUIRE_CONFORMANCE`` (set by CI) makes a missing library an error, not a module
left out: ``1`` requires the libraries of the main environment (``needs``), a
comma-separated list of imports (``lenskit,evidently``) requires those.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import warnings
from collections.abc import Iterator

__all__ = ["left_out", "quiet_library"]


def left_out(needs: dict[str, str], needs_pandas2: dict[str, str], what: str) -> list[str]:
    """The modules (of ``needs | needs_pandas2``: module -> import) to leave out here."""
    wanted = needs | needs_pandas2
    missing = sorted(f for f, mod in wanted.items() if importlib.util.find_spec(mod) is None)
    setting = os.environ.get("RECEVAL_REQUIRE_CONFORMANCE", "")
    required = (set(needs.values()) if setting == "1"
                else {name.strip() for name in setting.split(",") if name.strip()})
    absent = sorted(f for f in missing if wanted[f] in required)
    if absent:
        raise RuntimeError(f"{what} libraries missing for {absent} "
                           f"(RECEVAL_REQUIRE_CONFORMANCE={setting}): see .ci/run")
    return missing


def quiet_library() -> Iterator[None]:
    """A library's own warnings and log lines silenced while it runs (fixture body)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        logging.disable(logging.WARNING)
        try:
            yield
        finally:
            logging.disable(logging.NOTSET)
