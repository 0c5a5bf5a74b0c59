"""Wheel build hook: ship receval's kernels compiled on the machine that builds the wheel.

``pip install .`` builds a wheel, then installs it. This hook copies the package sources to a
temporary directory, runs the warm-up ``python -m receval._precompile`` there (numba compiles
every kernel version the public API uses and caches it in each module's ``__pycache__``, as
``*.nbi`` index and ``*.nbc`` code files), and puts those files in the wheel at the same
paths. The first ``receval demo`` after the install then loads the kernels instead of
compiling them. numba uses a cache entry only for the same numba version, Python, CPU and
source file content (and receval adds NumPy's major.minor): a wheel taken to another machine
or environment compiles as if it had no cache (docs/performance.md, "The first run").

The warm-up needs receval's runtime dependencies in the build environment: :meth:`dependencies`
returns ``[project] dependencies`` (one list, in pyproject.toml), except for editable builds.
Environment variable ``RECEVAL_PRECOMPILE``: ``0`` skips the warm-up (a quick build; no runtime
dependencies in the build environment), ``serial`` compiles only the one-thread kernel
versions, anything else (or unset) compiles both; ``RECEVAL_PRECOMPILE_REPORT=FILE`` writes
each kernel's compiled signatures there (JSON). A failed warm-up never fails the build: the
wheel is built without compiled kernels, and the build output says so. Editable installs
compile nothing here.
"""

from __future__ import annotations

import inspect
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

#: the environment variable that skips (``0``) or limits (``serial``) the warm-up
SWITCH = "RECEVAL_PRECOMPILE"
#: a warm-up that takes longer is stopped (and the wheel built without compiled kernels)
TIMEOUT_S = 1800
#: numba settings of the build process that would change what gets cached, or where
_CLEARED = ("NUMBA_CACHE_DIR", "NUMBA_DISABLE_JIT", "RECEVAL_SHIPPED_KERNELS")


def mode() -> str:
    """``"off"``, ``"serial"`` or ``"all"``, from ``RECEVAL_PRECOMPILE``."""
    value = os.environ.get(SWITCH, "").strip().lower()
    if value in ("0", "no", "false", "off"):
        return "off"
    return "serial" if value == "serial" else "all"


def _editable_build() -> bool:
    """Whether hatchling is asking for an editable build's requirements (no warm-up there)."""
    frame = inspect.currentframe()
    while frame is not None:
        if frame.f_code.co_name == "get_requires_for_build_editable":
            return True
        frame = frame.f_back
    return False


def precompile(package: Path, workdir: Path, *, serial_only: bool = False,
               log: Any = print) -> dict[str, str] | None:
    """Copy ``package`` into ``workdir``, run the warm-up there, list the cache files made.

    Returns ``{absolute source path: path inside the wheel}`` for every ``*.nbi``/``*.nbc``
    file, or None when the warm-up failed (its output is logged).
    """
    copy = workdir / package.name
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns(
        "__pycache__", "*.pyc", "*.nbi", "*.nbc"))
    env = {k: v for k, v in os.environ.items() if k not in _CLEARED}
    # the copy first, and the build environment: pip < 26 makes it a PYTHONPATH entry whose
    # sitecustomize adds the build requirements to sys.path (pip >= 26, build and uv make it
    # a virtual environment: sys.executable)
    path = [str(workdir), *os.environ.get("PYTHONPATH", "").split(os.pathsep)]
    env.update(PYTHONPATH=os.pathsep.join(p for p in path if p), PYTHONDONTWRITEBYTECODE="1")
    cmd = [sys.executable, "-m", f"{package.name}._precompile"]
    if serial_only:
        cmd.append("--serial-only")
    if os.environ.get("RECEVAL_PRECOMPILE_REPORT"):  # each kernel's signatures, as JSON
        cmd += ["--report", os.environ["RECEVAL_PRECOMPILE_REPORT"]]
    started = time.perf_counter()
    try:
        proc = subprocess.run(cmd, cwd=workdir, env=env, capture_output=True, text=True,
                              timeout=TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        log(f"receval: the kernel warm-up did not finish: {exc}")
        return None
    for line in (proc.stdout + proc.stderr).splitlines():
        log(f"receval warm-up | {line}")
    if proc.returncode != 0:
        log(f"receval: the kernel warm-up failed (exit status {proc.returncode})")
        return None
    files = {str(path): path.relative_to(workdir).as_posix()
             for pattern in ("*.nbi", "*.nbc") for path in sorted(copy.rglob(pattern))}
    log(f"receval: {len(files)} compiled kernel files "
        f"({sum(os.path.getsize(p) for p in files) / 1e6:.1f} MB) "
        f"in {time.perf_counter() - started:.0f} s")
    return files


class PrecompileHook(BuildHookInterface):  # type: ignore[type-arg]
    """Put the kernels compiled by ``receval._precompile`` in the wheel."""

    PLUGIN_NAME = "custom"

    def dependencies(self) -> list[str]:
        """receval's runtime dependencies: the warm-up imports and runs receval."""
        if mode() == "off" or _editable_build():
            return []
        return list(self.metadata.core.dependencies)

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        """Run the warm-up and force-include its cache files (standard wheels only)."""
        self._workdir: str | None = None
        if self.target_name != "wheel" or version != "standard":
            return
        if mode() == "off":
            self.app.display_info(f"receval: {SWITCH}=0, the wheel ships no compiled kernels")
            return
        self._workdir = tempfile.mkdtemp(prefix="receval-precompile-")
        self.app.display_info("receval: compiling the kernels to ship them in the wheel "
                              f"(set {SWITCH}=0 to skip) ...")
        files = precompile(Path(self.root) / "src" / "receval", Path(self._workdir),
                           serial_only=mode() == "serial", log=self.app.display_info)
        if not files:
            self.app.display_warning(
                "receval: WARNING: the kernel warm-up failed (output above); the wheel ships "
                "no compiled kernels, so the first call of each kernel compiles it (about "
                "20 s for `receval demo`). receval itself is unaffected.")
            return
        build_data["force_include"].update(files)

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        """Remove the temporary copy once the wheel is written."""
        if getattr(self, "_workdir", None):
            shutil.rmtree(self._workdir, ignore_errors=True)  # type: ignore[arg-type]
