"""docs/fairness.md: every python block runs, in order, and prints the text block after it."""

from __future__ import annotations

import warnings

from tests.doc_pages import run_page


def test_fairness_page_runs() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run_page("fairness.md", 10)
