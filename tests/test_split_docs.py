"""docs/split.md: every Python example runs, and the printed report is what the page shows."""

from __future__ import annotations

from tests.doc_pages import run_page


def test_split_page_examples_run_and_print_what_the_page_shows() -> None:
    run_page("split.md", min_blocks=5)
