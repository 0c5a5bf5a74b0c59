"""The suite's helpers are found whatever else is installed or imported under ``tests``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("imported_first", [False, True], ids=["installed", "imported-first"])
def test_another_tests_package_does_not_shadow_the_helpers(tmp_path: Path,
                                                           imported_first: bool) -> None:
    # a site directory holding a regular package `tests` (some distributions install one)
    # with modules of the helpers' names, optionally imported before pytest starts
    fake = tmp_path / "site" / "tests"
    (fake / "conformance").mkdir(parents=True)
    for name in ("__init__.py", "strategies.py", "frames.py", "conformance/__init__.py"):
        (fake / name).write_text("")
    if imported_first:
        (tmp_path / "site" / "sitecustomize.py").write_text("import tests\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "site")}
    for command in ([sys.executable, "-m", "pytest"],
                    [str(Path(sys.executable).parent / "pytest")]):
        run = subprocess.run(
            [*command, "--collect-only", "-q", "-p", "no:cacheprovider",
             "tests/test_auc.py", "tests/test_seeds.py", "tests/test_spark_seeds.py"],
            cwd=ROOT, env=env, capture_output=True, text=True, check=False)
        assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
        assert "tests/test_auc.py::" in run.stdout
