"""Run the examples of a documentation page: every python block in order, in one namespace,
and each text block must be what the python block before it printed."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_page(name: str, min_blocks: int) -> None:
    """Run ``docs/<name>``; it must have at least ``min_blocks`` python blocks."""
    page = ROOT / "docs" / name
    blocks = re.findall(r"```(python|text)\n(.*?)```", page.read_text(encoding="utf-8"),
                        flags=re.S)
    assert sum(kind == "python" for kind, _ in blocks) >= min_blocks
    namespace: dict[str, object] = {}
    printed = ""
    for kind, code in blocks:
        if kind == "python":
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(code, str(page), "exec"), namespace)
            printed = out.getvalue()
        else:
            assert printed == code, "the text block must be what the example before prints"
