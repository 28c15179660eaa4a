"""The brain worker: every call into the brain runs here, on one of two threads.

* **The write lane** — one daemon thread that runs every call that may write, in
  the order it was submitted. One thread because SQLite serialises writers anyway
  and because order is meaning: a ``didSave`` is processed before the request the
  client sent after it.
* **The read lane** — one daemon thread for calls that only read (``stats``,
  ``rules``, ``playbook``, recall for prefetch). A read first waits, briefly,
  for the writes submitted before it, so a client that saves and then asks
  sees its save; but it never waits longer than :data:`READ_PATIENCE_S`: when a
  write is stuck behind another process's lock (up to the busy timeout), reads
  answer from the last committed state instead of queueing behind it. The store
  gives the read lane its own SQLite connection for exactly this.

Why not pygls's thread pool? Its stdin reader shares that pool, so long brain
work could starve message reading. Why daemon threads? A hung call must never
keep the process alive after ``exit``.

Fire-and-forget work (:meth:`BrainWorker.post`) has nobody to hand an error to,
so its failures are logged with their traceback.

A lane that has worked and then found nothing to do for :data:`QUIET_S` calls
the host's ``on_idle`` once: the language server uses it to hand the memory a
burst of requests freed back to the system (:mod:`comodor.lsp.allocator`). An
idle lane then sleeps on its queue with no timer, so a quiet server never wakes.
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

READ_PATIENCE_S = 0.25
"""How long a read waits for earlier writes before it answers from committed state."""

QUIET_S = 1.0
"""How long a lane must have had nothing to do, after some work, before ``on_idle`` runs."""

_STOP = object()


class _Lane:
    """One daemon thread running queued callables in order."""

    def __init__(
        self,
        name: str,
        after_each: Callable[[], None] | None = None,
        on_idle: Callable[[], object] | None = None,
    ) -> None:
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._after_each = after_each
        self._on_idle = on_idle
        self.thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self.thread.start()

    def _next(self, worked: bool) -> Any:
        """The next item; after work, call ``on_idle`` once the queue stays empty a while."""
        if not worked or self._on_idle is None:
            return self._queue.get()
        try:
            return self._queue.get(timeout=QUIET_S)
        except queue.Empty:
            try:
                self._on_idle()
            except Exception:
                log.exception("the idle hook of %s failed", self.thread.name)
            return self._queue.get()

    def _loop(self) -> None:
        worked = False
        while True:
            item = self._next(worked)
            if item is _STOP:
                return
            worked = True
            future, function = item
            try:
                if future.set_running_or_notify_cancel():
                    try:
                        future.set_result(function())
                    except BaseException as error:
                        future.set_exception(error)
            finally:
                if self._after_each is not None:
                    self._after_each()

    def put(self, future: concurrent.futures.Future[Any], function: Callable[[], Any]) -> None:
        self._queue.put((future, function))

    def stop(self, timeout: float) -> bool:
        self._queue.put(_STOP)
        self.thread.join(timeout)
        return not self.thread.is_alive()


class BrainWorker:
    """Run brain calls off the caller's thread; await them from asyncio or wait on futures."""

    def __init__(
        self, name: str = "comodor-brain", on_idle: Callable[[], object] | None = None
    ) -> None:
        self._progress = threading.Condition()
        self._submitted = 0
        self._completed = 0
        self._stopped = False
        self._writes = _Lane(name, after_each=self._write_done, on_idle=on_idle)
        self._reads = _Lane(f"{name}-read", on_idle=on_idle)

    def _write_done(self) -> None:
        with self._progress:
            self._completed += 1
            self._progress.notify_all()

    def _refused(self, future: concurrent.futures.Future[T]) -> concurrent.futures.Future[T]:
        future.set_exception(RuntimeError("the server is shutting down"))
        return future

    def submit(self, function: Callable[[], T]) -> concurrent.futures.Future[T]:
        """Queue ``function`` on the write lane (in order with every other write)."""
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        if self._stopped:
            return self._refused(future)
        with self._progress:
            self._submitted += 1
        self._writes.put(future, function)
        return future

    def submit_read(self, function: Callable[[], T]) -> concurrent.futures.Future[T]:
        """Queue a read: after the writes submitted before it, or after READ_PATIENCE_S."""
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        if self._stopped:
            return self._refused(future)
        with self._progress:
            target = self._submitted

        def after_earlier_writes() -> T:
            with self._progress:
                self._progress.wait_for(lambda: self._completed >= target, READ_PATIENCE_S)
            return function()

        self._reads.put(future, after_earlier_writes)
        return future

    def post(self, function: Callable[[], object], what: str) -> None:
        """Fire and forget on the write lane; a failure is logged with its traceback."""

        def logged() -> None:
            try:
                function()
            except Exception:
                log.exception("background work failed: %s", what)

        self.submit(logged)

    def call(self, function: Callable[[], T], timeout: float) -> T:
        """Run ``function`` on the write lane and wait for it (inline when already on it).

        For a caller on another thread whose next step depends on the write having
        committed, such as noting Comodor's own write before the file lands, where a
        language server in another process must see the note first.
        """
        if threading.current_thread() is self._writes.thread:
            return function()
        return self.submit(function).result(timeout)

    def drain(self, timeout: float) -> bool:
        """Wait until every write submitted so far has run (not from the write lane itself)."""
        if threading.current_thread() is self._writes.thread:
            return True  # we are the write lane: everything before us has run
        with self._progress:
            target = self._submitted
            return self._progress.wait_for(lambda: self._completed >= target, timeout)

    async def run(self, function: Callable[[], T]) -> T:
        """Await ``function()`` on the write lane; cancelling skips it if not started."""
        return await asyncio.wrap_future(self.submit(function))

    async def run_read(self, function: Callable[[], T]) -> T:
        """Await ``function()`` on the read lane."""
        return await asyncio.wrap_future(self.submit_read(function))

    def stop(self, timeout: float = 0.5) -> bool:
        """Stop after the current calls; return whether both threads ended in time."""
        self._stopped = True
        half = max(0.0, timeout / 2)
        return self._writes.stop(half) & self._reads.stop(half)
