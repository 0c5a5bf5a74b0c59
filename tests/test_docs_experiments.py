"""docs/experiments.md: every python block runs, in order, and prints the text block after it."""

from __future__ import annotations

import contextlib
import io
import re
import warnings
from pathlib import Path

import pytest

from receval.exceptions import TiesAtCutoffWarning

PAGE = Path(__file__).resolve().parents[1] / "docs" / "experiments.md"
BLOCK = re.compile(r"```(python|text)\n(.*?)```", re.S)


def _pairs() -> list[tuple[str, str | None]]:
    """Each python block with the text block right after it (None when there is none)."""
    blocks = BLOCK.findall(PAGE.read_text(encoding="utf-8"))
    out: list[tuple[str, str | None]] = []
    for j, (kind, body) in enumerate(blocks):
        if kind == "python" and not body.lstrip().startswith("class MyModel"):
            after = blocks[j + 1] if j + 1 < len(blocks) else None
            out.append((body, after[1] if after and after[0] == "text" else None))
    return out


@pytest.mark.slow
def test_experiments_page_runs_and_prints_what_it_shows():
    pytest.importorskip("surprise")
    pytest.importorskip("sklearn")
    pytest.importorskip("implicit")  # the implicit example (CI installs receval[implicit])
    namespace: dict[str, object] = {"__name__": "docs_experiments"}
    for code, expected in _pairs():
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer), warnings.catch_warnings():
            warnings.simplefilter("error")
            # recommend's ties-at-the-cutoff warnings go to stderr (the page shows them)
            warnings.filterwarnings("ignore", r"\w+\.recommend: for \d+ users",
                                    TiesAtCutoffWarning)
            exec(compile(code, str(PAGE), "exec"), namespace)
        if expected is not None:
            got = [line.rstrip() for line in buffer.getvalue().strip("\n").splitlines()]
            assert got == [line.rstrip() for line in expected.strip("\n").splitlines()], code
