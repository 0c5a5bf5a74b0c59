"""docs/split.md: every Python example runs, and the printed report is what the page shows."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

PAGE = Path(__file__).resolve().parents[1] / "docs" / "split.md"


def test_split_page_examples_run_and_print_what_the_page_shows() -> None:
    text = PAGE.read_text(encoding="utf-8")
    blocks = re.findall(r"```(python|text)\n(.*?)```", text, flags=re.S)
    assert sum(kind == "python" for kind, _ in blocks) >= 5
    namespace: dict[str, object] = {}
    printed = ""
    for kind, code in blocks:
        if kind == "python":
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(code, str(PAGE), "exec"), namespace)
            printed = out.getvalue()
        else:
            assert printed == code, "the text block must be what the example before prints"
