"""numba's on-disk cache for receval's kernels, reading the compiled kernels shipped in the wheel.

A wheel built by ``pip install .`` carries the kernels compiled on the build machine in each
module's ``__pycache__`` (``*.nbi`` index and ``*.nbc`` code files; see ``hatch_build.py`` and
:mod:`receval._precompile`). numba alone reads them only when it may also write there, and
never when ``NUMBA_CACHE_DIR`` is set. :class:`ShippedFirstCache` reads them in every case:

- **read**: the in-tree ``__pycache__`` next to the module first (shipped, possibly read-only),
  then the writable cache below;
- **write**: ``NUMBA_CACHE_DIR`` when it is set, else the in-tree ``__pycache__`` when it is
  writable, else numba's user-wide cache directory, else ``<tmp>/receval-numba``; when none is
  writable, nothing is written (the kernel is compiled in memory, as numba does with no cache).

An entry is used only when its key matches the running process: numba compares the numba
version, the SHA-256 of the module's source, the function's bytecode, the signature and the
CPU (name and features); this cache adds NumPy's ``major.minor`` (numba types some NumPy
functions differently by NumPy version, and the wheel's build environment may have another
NumPy than the one it is installed next to). Any mismatch means numba compiles, as without a
cache. ``RECEVAL_SHIPPED_KERNELS=0`` ignores the in-tree cache unless it is also where this
process writes (numba's own behaviour; ``benchmarks/run.py`` measures cold starts so).
"""

# numba.core.caching has no type annotations
# mypy: disable-error-code="no-untyped-call"

from __future__ import annotations

import os
import tempfile
from typing import Any

from numba.core.caching import (
    CompileResultCacheImpl,
    FunctionCache,
    IndexDataCacheFile,
    InTreeCacheLocator,
    UserProvidedCacheLocator,
    UserWideCacheLocator,
)
from numba.np.numpy_support import numpy_version

__all__ = ["ShippedFirstCache", "TempDirCacheLocator", "shipped_cache_dir"]


def shipped_cache_dir(py_file: str) -> str:
    """The in-tree cache directory of a module: its ``__pycache__``, where the wheel ships."""
    return os.path.join(os.path.dirname(os.path.abspath(py_file)), "__pycache__")


class TempDirCacheLocator(UserProvidedCacheLocator):
    """The last writable place: ``<tmp>/receval-numba`` (Spark executors, read-only homes)."""

    def __init__(self, py_func: Any, py_file: str) -> None:
        super().__init__(py_func, py_file)
        self._cache_path = os.path.join(tempfile.gettempdir(), "receval-numba",
                                        self.get_suitable_cache_subpath(py_file))

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> Any:
        # UserProvidedCacheLocator.from_function declines when NUMBA_CACHE_DIR is unset
        return super(UserProvidedCacheLocator, cls).from_function(py_func, py_file)


class _ReadOnlyLocator(InTreeCacheLocator):
    """No writable place at all: the in-tree path, only read (see ``ShippedFirstCache``)."""

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> Any:
        return cls(py_func, py_file) if os.path.exists(py_file) else None


class _Impl(CompileResultCacheImpl):  # type: ignore[misc]
    # numba's own order (NUMBA_CACHE_DIR, in-tree, user-wide), then the temporary directory
    _locator_classes = [UserProvidedCacheLocator, InTreeCacheLocator,  # noqa: RUF012 (numba's)
                        UserWideCacheLocator, TempDirCacheLocator, _ReadOnlyLocator]


class ShippedFirstCache(FunctionCache):  # type: ignore[misc]
    """numba's function cache, reading the in-tree (shipped) cache first, writing elsewhere.

    Parameters
    ----------
    py_func : function
        The Python function of a ``numba.njit`` dispatcher.
    """

    _impl_class = _Impl

    def __init__(self, py_func: Any) -> None:
        super().__init__(py_func)
        locator = self._impl.locator
        self._writable = not isinstance(locator, _ReadOnlyLocator)
        shipped = shipped_cache_dir(locator._py_file)
        self._shipped: IndexDataCacheFile | None = None
        if os.environ.get("RECEVAL_SHIPPED_KERNELS", "1") != "0" and (
                not self._writable or os.path.abspath(self._cache_path) != shipped):
            self._shipped = IndexDataCacheFile(
                cache_path=shipped, filename_base=self._impl.filename_base,
                source_stamp=locator.get_source_stamp())

    @property
    def writable(self) -> bool:
        """Whether newly compiled versions are saved (somewhere writable was found)."""
        return self._writable

    def _load_overload(self, sig: Any, target_context: Any) -> Any:
        if not self._enabled:
            return None
        key = self._index_key(sig, target_context.codegen())
        files = [self._shipped, self._cache_file if self._writable else None]
        for cache_file in files:
            if cache_file is None:
                continue
            try:
                data = cache_file.load(key)
            except Exception:  # an unreadable (truncated, foreign) cache file is no cache
                if cache_file is not self._shipped:
                    raise  # numba's own behaviour for the cache it writes
                data = None
            if data is not None:
                return self._impl.rebuild(target_context, data)
        return None

    def _save_overload(self, sig: Any, data: Any) -> None:
        if self._writable:
            super()._save_overload(sig, data)

    def _index_key(self, sig: Any, codegen: Any) -> Any:
        return (*super()._index_key(sig, codegen), ("numpy", numpy_version))
