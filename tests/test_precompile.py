"""The kernels compiled at install time: the warm-up, the wheel build hook, the shipped cache.

``hatch_build.py`` runs ``python -m receval._precompile`` on a copy of the sources and puts the
numba cache files it leaves in the wheel; ``receval._kernels._cache.ShippedFirstCache`` reads
them even when the package directory is read-only or ``NUMBA_CACHE_DIR`` is set.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

import receval
from receval._precompile import dispatchers

ROOT = Path(__file__).resolve().parents[1]
SRC = Path(receval.__file__).resolve().parents[1]  # where this run imports receval from

#: kernels the warm-up does not compile, and why
SKIPPED = {
    "receval._kernels.grouping.ranked_within_groups": "not called anywhere in receval",
    "receval._kernels.grouping._argsort_range": "only group_argsort_desc calls it, and nothing "
                                                "calls group_argsort_desc",
    "receval._kernels.grouping._argsort_parallel": "as _argsort_range",
}

#: kernels with two compiled versions, and why
TWO_VERSIONS = {
    f"receval._kernels.splitting.{name}": "timestamps are int64 (datetimes, integers) or "
                                          "float64 (other numbers)"
    for name in ("_latest_range", "_latest_parallel", "leakage_counts")}

_BUILD = textwrap.dedent("""
    import sys
    from hatchling.builders.wheel import WheelBuilder
    print(next(WheelBuilder(sys.argv[1]).build(directory=sys.argv[2], versions=["standard"])))
""")


def _project(tmp: Path) -> Path:
    """A copy of the project as a wheel build sees it (no caches, no virtual environments)."""
    proj = tmp / "proj"
    proj.mkdir()
    for name in ("pyproject.toml", "hatch_build.py", "README.md", ".gitignore"):
        shutil.copy(ROOT / name, proj / name)
    shutil.copytree(ROOT / "src" / "receval", proj / "src" / "receval",
                    ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    return proj


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_CACHE_DIR", "RECEVAL_PRECOMPILE", "RECEVAL_SHIPPED_KERNELS")}
    return {**env, "PYTHONPATH": str(SRC), **extra}


def _build_wheel(proj: Path, out: Path, **env: str) -> tuple[Path, str]:
    proc = subprocess.run([sys.executable, "-c", _BUILD, str(proj), str(out)], cwd=proj,
                          env=_env(**env), capture_output=True, text=True, timeout=1200,
                          check=True)
    return Path(proc.stdout.strip().splitlines()[-1]), proc.stderr


def _cache_files(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as zf:
        return [n for n in zf.namelist() if n.endswith((".nbi", ".nbc"))]


@pytest.mark.slow
def test_wheel_ships_every_kernel_the_warm_up_compiles(tmp_path: Path) -> None:
    """Build a wheel with the hook: every kernel is compiled (once) and shipped."""
    report = tmp_path / "report.json"
    wheel, log = _build_wheel(_project(tmp_path), tmp_path / "dist",
                              RECEVAL_PRECOMPILE_REPORT=str(report))
    assert "compiled kernel files" in log, log
    signatures: dict[str, list[str]] = json.loads(report.read_text())
    assert set(signatures) == set(dispatchers())  # the same kernels as this run's receval
    missing = sorted(n for n, sigs in signatures.items() if not sigs and n not in SKIPPED)
    assert not missing, f"kernels the warm-up never compiles: {missing}"
    stale = sorted(n for n in SKIPPED if signatures.get(n))
    assert not stale, f"kernels listed as skipped that the warm-up compiles: {stale}"
    # one version per kernel: numba's literal specialisations of calls between kernels
    # (a constant 0 passed to a helper) aside, no kernel has two sets of argument types
    versions = {n: {re.sub(r"Literal\[int\]\(\d+\)", "int64", s) for s in sigs}
                for n, sigs in signatures.items()}
    several = {n: v for n, v in versions.items() if len(v) > 1 and n not in TWO_VERSIONS}
    assert not several, f"kernels compiled for more than one set of types: {several}"
    assert all(len(versions[n]) == 2 for n in TWO_VERSIONS if versions.get(n))
    shipped = _cache_files(wheel)
    for name, sigs in signatures.items():
        if not sigs:
            continue
        module, function = name.rsplit(".", 1)
        folder = "/".join(module.split(".")[:-1]) + "/__pycache__/"
        stem = f"{module.rsplit('.', 1)[1]}.{function}-"
        index = [n for n in shipped if n.startswith(folder + stem) and n.endswith(".nbi")]
        code = [n for n in shipped if n.startswith(folder + stem) and n.endswith(".nbc")]
        assert index, f"{name}: no index file in the wheel"
        assert code, f"{name}: no code file in the wheel"


def test_wheel_without_warm_up(tmp_path: Path) -> None:
    """RECEVAL_PRECOMPILE=0: a quick build, no compiled kernels in the wheel."""
    wheel, log = _build_wheel(_project(tmp_path), tmp_path / "dist", RECEVAL_PRECOMPILE="0")
    assert "RECEVAL_PRECOMPILE=0" in log
    assert _cache_files(wheel) == []
    with zipfile.ZipFile(wheel) as zf:
        assert "receval/_kernels/ranking.py" in zf.namelist()


@pytest.mark.parametrize(("hook", "switch", "runtime"), [
    ("get_requires_for_build_wheel", "", True),
    ("get_requires_for_build_wheel", "0", False),
    ("get_requires_for_build_editable", "", False)])
def test_build_requirements(tmp_path: Path, hook: str, switch: str, runtime: bool) -> None:
    """The warm-up's build environment has receval's runtime dependencies, and only then."""
    proj = _project(tmp_path)
    code = f"import hatchling.build as b; print(b.{hook}())"
    out = subprocess.run([sys.executable, "-c", code], cwd=proj, check=True, timeout=120,
                         env=_env(RECEVAL_PRECOMPILE=switch), capture_output=True, text=True)
    assert ("numba>=" in out.stdout) == runtime, out.stdout


def test_failed_warm_up_still_builds_the_wheel(tmp_path: Path) -> None:
    """A warm-up that fails: the wheel is built without caches, and the output says so."""
    proj = _project(tmp_path)
    (proj / "src" / "receval" / "_precompile.py").write_text(
        "import sys\nprint('no numba here', file=sys.stderr)\nsys.exit(3)\n")
    wheel, log = _build_wheel(proj, tmp_path / "dist")
    assert "WARNING: the kernel warm-up failed" in log
    assert "no numba here" in log
    assert "exit status 3" in log
    assert _cache_files(wheel) == []


# --- the shipped cache, on a one-function module -------------------------------------------

_TOY = textwrap.dedent("""
    from receval._kernels._jit import njit


    @njit()
    def add(a, b):
        return a + b
""")

_RUN = textwrap.dedent("""
    import json, sys
    from numba.core import caching
    from receval._kernels import _cache


    def refuse(self):
        raise PermissionError("read-only")


    for name in filter(None, sys.argv[1].split(",")):  # places made unwritable
        setattr(getattr(caching, name, None) or getattr(_cache, name), "ensure_cache_path",
                refuse)
    import toy
    toy.add(1, 2)
    if len(sys.argv) > 2:
        toy.add(1.5, 2.5)  # a version nobody cached: compiled, saved only where writable
    stats = toy.add.stats
    print(json.dumps({"hits": sum(stats.cache_hits.values()),
                      "misses": sum(stats.cache_misses.values()),
                      "path": stats.cache_path, "writable": toy.add._cache.writable}))
""")


def _toy(toy: Path, tmp: Path, *refused: str, new_version: bool = False, **env: str
         ) -> dict[str, object]:
    """Call ``toy.add`` in a new process (home and temporary directory in ``tmp``)."""
    args = [sys.executable, "-c", _RUN, ",".join(refused)] + (["new"] if new_version else [])
    home = tmp / "home"
    base = {**_env(), "PYTHONPATH": os.pathsep.join([str(toy), str(SRC)]),
            "HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache"), "TMPDIR": str(tmp / "t")}
    (tmp / "t").mkdir(exist_ok=True)
    proc = subprocess.run(args, env={**base, **env}, capture_output=True, text=True,
                          timeout=300, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def shipped(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A module whose kernel was compiled in-tree, as the wheel build leaves it."""
    toy = tmp_path_factory.mktemp("toy")
    (toy / "toy.py").write_text(_TOY)
    first = _toy(toy, tmp_path_factory.mktemp("first"))
    assert (first["hits"], first["misses"]) == (0, 1)
    assert first["path"] == str(toy / "__pycache__")
    assert list((toy / "__pycache__").glob("toy.add-*.nbi"))
    return toy


def test_in_tree_cache_is_read_when_writable(shipped: Path, tmp_path: Path) -> None:
    again = _toy(shipped, tmp_path)
    assert (again["hits"], again["misses"]) == (1, 0)


def test_read_only_package_reads_the_shipped_cache(shipped: Path, tmp_path: Path) -> None:
    """site-packages read-only: the shipped kernel loads; new versions go to the user cache."""
    run = _toy(shipped, tmp_path, "InTreeCacheLocator", new_version=True)
    assert (run["hits"], run["misses"]) == (1, 1)
    assert str(run["path"]).startswith(str(tmp_path / "home" / ".cache"))
    assert list(Path(str(run["path"])).glob("toy.add-*.nbc"))  # the float version, saved
    assert len(list((shipped / "__pycache__").glob("toy.add-*.nbc"))) == 1  # untouched


def test_nothing_writable_still_reads_and_compiles(shipped: Path, tmp_path: Path) -> None:
    run = _toy(shipped, tmp_path, "InTreeCacheLocator", "UserWideCacheLocator",
               "TempDirCacheLocator", new_version=True)
    assert (run["hits"], run["misses"], run["writable"]) == (1, 1, False)


def test_numba_cache_dir_set_reads_the_shipped_cache_first(shipped: Path, tmp_path: Path
                                                            ) -> None:
    run = _toy(shipped, tmp_path, NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"))
    assert (run["hits"], run["misses"]) == (1, 0)
    assert str(run["path"]).startswith(str(tmp_path / "numba-cache"))


def test_shipped_cache_can_be_ignored(shipped: Path, tmp_path: Path) -> None:
    """RECEVAL_SHIPPED_KERNELS=0 with NUMBA_CACHE_DIR: numba's own behaviour (cold starts)."""
    run = _toy(shipped, tmp_path, NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"),
               RECEVAL_SHIPPED_KERNELS="0")
    assert (run["hits"], run["misses"]) == (0, 1)
    assert list(Path(str(run["path"])).glob("toy.add-*.nbi"))


def test_unreadable_shipped_cache_is_no_cache(shipped: Path, tmp_path: Path) -> None:
    """A damaged shipped index: the kernel is compiled, nothing fails."""
    toy = tmp_path / "toy"
    shutil.copytree(shipped, toy)
    for index in (toy / "__pycache__").glob("toy.add-*.nbi"):
        index.write_bytes(b"not a pickle")
    run = _toy(toy, tmp_path, NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"))
    assert (run["hits"], run["misses"]) == (0, 1)
