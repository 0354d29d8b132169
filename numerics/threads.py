"""Thread-pool limits of the native libraries (BLAS, OpenMP), for the many tiny dense problems of the checks, where
extra threads only add overhead (ten times the time on busy cores)."""

from __future__ import annotations

import sys
from contextlib import AbstractContextManager
from functools import lru_cache

from threadpoolctl import ThreadpoolController


@lru_cache(maxsize=1)
def _controller(modules: int) -> ThreadpoolController:
    return ThreadpoolController()


def one_thread() -> AbstractContextManager:
    """``threadpoolctl.threadpool_limits(1)`` as a context manager, through a ``ThreadpoolController`` kept as long
    as no module has been imported since it was made: ``threadpool_limits`` scans every loaded shared library on each
    call (2.4 ms; a quick run enters such a block some 500 times). An import may load a library, so a new module
    count rescans."""
    return _controller(len(sys.modules)).limit(limits=1)
