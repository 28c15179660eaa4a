"""The brain thread: one daemon thread that runs every call into the app, in order.

Why not pygls's thread pool? Its stdin reader shares that pool, so long brain
work could starve message reading. Why one thread? Calls then run in the order
the client sent them (a ``didSave`` is processed before the request that
follows it), and SQLite serialises writers anyway. Why daemon? A hung call must
never keep the process alive after ``exit``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")

_STOP = object()


class BrainWorker:
    """Run callables on one background thread; await them from asyncio."""

    def __init__(self, name: str = "comodor-brain") -> None:
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self._stopped = False
        self._thread.start()

    def _loop(self) -> None:
        while True:
            item = self._queue.get()
            if item is _STOP:
                return
            future, function = item
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(function())
            except BaseException as error:
                future.set_exception(error)

    def submit(self, function: Callable[[], T]) -> concurrent.futures.Future[T]:
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        if self._stopped:
            future.set_exception(RuntimeError("the server is shutting down"))
            return future
        self._queue.put((future, function))
        return future

    async def run(self, function: Callable[[], T]) -> T:
        """Await ``function()`` on the brain thread; cancelling skips it if not started."""
        return await asyncio.wrap_future(self.submit(function))

    def stop(self, timeout: float = 0.5) -> bool:
        """Stop after the current call; return whether the thread ended in time."""
        self._stopped = True
        self._queue.put(_STOP)
        self._thread.join(timeout)
        return not self._thread.is_alive()
