"""docs/studies.md: its examples run and print what the page shows; its TOML is a valid config."""

from __future__ import annotations

import re

import pytest

from receval.study._config import load, resolve
from receval.study._schema import compare_keys, fixed_sections
from tests.doc_pages import ROOT, run_page

PAGE = ROOT / "docs" / "studies.md"


@pytest.mark.filterwarnings("ignore::receval.exceptions.UndefinedMetricWarning")
def test_examples_run():
    run_page("studies.md", min_blocks=5)


def test_toml_blocks_are_valid_configs(tmp_path):
    blocks = re.findall(r"```toml\n(.*?)```", PAGE.read_text(encoding="utf-8"), flags=re.S)
    assert blocks
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks += re.findall(r"```toml\n(.*?)```", readme, flags=re.S)
    for i, block in enumerate(blocks):
        (tmp_path / f"{i}.toml").write_text(block)
        resolve(load(tmp_path / f"{i}.toml")[0], tmp_path)


def test_every_key_is_documented():
    text = PAGE.read_text(encoding="utf-8")
    for section, keys in fixed_sections().items():
        if section == "evaluate":
            continue  # evaluate's options: "every option of evaluate" (docs/metrics.md)
        for key in keys:
            assert f"`{key.name}`" in text, f"[{section}] {key.name}"
    for key in compare_keys():
        assert f"`{key.name}`" in text, f"[compare] {key.name}"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "docs/studies.md" in readme
