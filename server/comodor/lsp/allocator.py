"""The long-running server's memory: fewer malloc arenas, and freed pages handed back.

Both are glibc matters, so both are here and both do nothing elsewhere.

**Arenas.**

glibc gives each thread that allocates its own arena (up to eight per core), and
each keeps the pages it once used. The server has half a dozen threads (the
brain's two lanes, stdin, diagnostics, the watcher, the freshness poller) that
take turns under the GIL, so separate arenas buy no speed, only memory:
measured with a 50k-lesson brain, two arenas keep 1–3 MB less resident
(``python -m bench.server``, idle RSS 85 -> 84 MB in its table). This is the
same setting as ``MALLOC_ARENA_MAX=2``; a user who set that variable keeps their
own value.

**Freed pages.** glibc keeps what a burst of requests freed (numpy's score
arrays, SQLite rows, JSON being written) for the next allocation, and returns
only the top of its heap. :func:`release_free_memory` asks it to hand back
every free page (``malloc_trim``); the brain worker calls it once a lane has
gone quiet, off the event loop (ctypes releases the GIL for the call). Measured
with a 50k-lesson brain after 900 requests: idle RSS 80 -> 78 MB.
"""

from __future__ import annotations

import functools
import logging
import os
import sys
from collections.abc import Callable

M_ARENA_MAX = -8
"""glibc's ``mallopt`` parameter number for the arena limit (``malloc.h``)."""

ARENAS = 2

log = logging.getLogger(__name__)


def limit_malloc_arenas() -> bool:
    """Cap glibc's arenas; call before the server starts its threads. True if applied."""
    if not sys.platform.startswith("linux") or "MALLOC_ARENA_MAX" in os.environ:
        return False
    import ctypes  # here, not at the top: the server imports this module before initialize

    try:
        mallopt = ctypes.CDLL(None).mallopt  # glibc; other C libraries have no such call
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    applied = bool(mallopt(M_ARENA_MAX, ARENAS))
    if not applied:
        log.debug("mallopt(M_ARENA_MAX) was refused; keeping the C library's default")
    return applied


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None  # not glibc (musl has no such call)
    trim.argtypes = (ctypes.c_size_t,)
    trim.restype = ctypes.c_int
    return trim


def release_free_memory() -> bool:
    """Hand the pages malloc holds free back to the system; True if some were released."""
    trim = _malloc_trim()
    return bool(trim(0)) if trim is not None else False
