"""Progress of ``cross_validate``: a bar on a terminal, one line per (model, fold) otherwise.

With ``progress=None`` or ``True``: a transient rich bar when stdout is a terminal, and when it
is not (a pipe, a file, a CI log, a notebook) one line per fitted (model, fold) on stderr,
``cross_validate: model 'knn', fold 2/5: 1.23 s (fit 0.80, recommend 0.31, evaluate 0.12)``,
so that a long run shows it is alive without corrupting the output. ``False``: nothing.
"""

from __future__ import annotations

import sys
from types import TracebackType
from typing import Any

__all__ = ["CvProgress"]


class CvProgress:
    """Context manager reporting each finished (model, fold) run."""

    def __init__(self, progress: bool | None, total: int, n_folds: int) -> None:
        on = progress is None or bool(progress)
        self.mode = "off" if not on else ("bar" if sys.stdout.isatty() else "lines")
        self.n_folds = n_folds
        self._bar: Any = None
        self._task: Any = None
        self.total = total

    def __enter__(self) -> CvProgress:
        if self.mode == "bar":
            from rich.progress import Progress

            self._bar = Progress(transient=True)
            self._bar.__enter__()
            self._task = self._bar.add_task("cross-validating", total=self.total)
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._bar is not None:
            self._bar.__exit__(kind, exc, tb)

    def start(self, name: str, fold: int) -> None:
        """A run begins (the bar's description)."""
        if self._bar is not None:
            self._bar.update(self._task, description=f"fold {fold + 1}/{self.n_folds}: {name}")

    def done(self, name: str, fold: int, seconds: dict[str, float]) -> None:
        """A run ended after ``seconds`` (per step)."""
        if self._bar is not None:
            self._bar.advance(self._task)
        elif self.mode == "lines":
            steps = ", ".join(f"{step} {value:.2f}" for step, value in seconds.items())
            line = (f"cross_validate: model {name!r}, fold {fold + 1}/{self.n_folds}: "
                    f"{sum(seconds.values()):.2f} s ({steps})")
            encoding = getattr(sys.stderr, "encoding", None) or "utf-8"
            line = line.encode(encoding, "backslashreplace").decode(encoding)
            print(line, file=sys.stderr, flush=True)
