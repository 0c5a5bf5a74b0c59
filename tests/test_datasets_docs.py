"""docs/datasets.md: every python block runs, in order, on archives written here (never a
download), and the text blocks are what the block before prints."""

from __future__ import annotations

import urllib.request
from pathlib import Path

import pytest

from tests.doc_pages import run_page
from tests.movielens_files import sample_files, write_archive, write_folder


def test_datasets_page_runs_and_prints_what_it_shows(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    def no_network(url: str, *args: object, **kwargs: object) -> object:
        raise AssertionError(f"the page downloaded {url}")

    monkeypatch.setattr(urllib.request, "urlopen", no_network)
    monkeypatch.chdir(tmp_path)
    write_archive(tmp_path / "ml-latest-small.zip", "ml-latest-small",
                  sample_files("ml-latest-small"))
    cache = tmp_path / "cache"                      # download=True finds it in the cache
    cache.mkdir()
    write_archive(cache / "ml-1m.zip", "ml-1m", sample_files("ml-1m"))
    monkeypatch.setenv("RECEVAL_DATA", str(cache))
    write_folder(tmp_path / "data" / "ml-1m", "ml-1m", sample_files("ml-1m"))
    run_page("datasets.md", min_blocks=4)
