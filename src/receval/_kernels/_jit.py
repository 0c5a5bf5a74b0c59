"""The numba entry points, with an on-disk cache so that a new process does not recompile."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numba

from receval._kernels._cache import ShippedFirstCache

F = TypeVar("F", bound=Callable[..., Any])

__all__ = ["PARALLEL_MIN", "n_chunks", "njit", "prange", "readonly", "use_parallel"]

prange = numba.prange


def njit(*, parallel: bool = False) -> Callable[[F], F]:
    """Compile with numba in nopython mode, cached on disk, fastmath off (exact IEEE).

    The cache is numba's (what ``cache=True`` enables), reading the kernels compiled at
    install time first (:class:`receval._kernels._cache.ShippedFirstCache`): site-packages
    may be read-only (Spark executors, CI), ``NUMBA_CACHE_DIR`` may be set.
    """

    def wrap(fn: F) -> F:
        dispatcher = numba.njit(parallel=parallel, nogil=True)(fn)
        if hasattr(dispatcher, "enable_caching"):  # a function under NUMBA_DISABLE_JIT=1
            # what Dispatcher.enable_caching() sets, with receval's cache
            dispatcher._cache = ShippedFirstCache(fn)  # type: ignore[attr-defined]
        return dispatcher  # type: ignore[return-value]

    return wrap


def n_chunks(n: int) -> int:
    """Chunks of groups for a parallel loop: a few per thread, so threads stay balanced."""
    return max(1, min(n, 8 * numba.get_num_threads()))


#: Below this many rows a kernel runs on one thread: waking the thread pool costs more than
#: it saves on small inputs (and much more on a loaded machine).
PARALLEL_MIN = 200_000


def use_parallel(rows: int) -> bool:
    """Whether a kernel over ``rows`` rows should run on the thread pool."""
    return rows >= PARALLEL_MIN and numba.get_num_threads() > 1


def readonly(a: Any) -> Any:
    """A read-only view of an array a kernel only reads (O(1), no copy).

    numba compiles a kernel once for writable and once for read-only arrays (Arrow-backed
    columns are read-only); passing every read-only input as a read-only view keeps one
    compiled version whatever the input's origin.
    """
    view = a.view()
    view.flags.writeable = False
    return view
