"""Run reflections in the background, one model call at a time.

Reflection is a luxury: it must never slow the editor, pile up work behind a
slow local model, or delay shutdown. So there is exactly one daemon thread, a
small queue that sheds the *oldest* episode when full (recent work is the most
relevant), a gate that skips trivial successes before they cost a model call,
and a ``stop()`` that cancels the in-flight call instead of waiting for it.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable

from .parse import Reflection
from .transcript import EpisodeSummary

__all__ = ["MIN_STEPS_TO_REFLECT", "ReflectionWorker", "should_reflect"]

MIN_STEPS_TO_REFLECT = 4


def should_reflect(summary: EpisodeSummary) -> bool:
    """Decide whether a finished task is worth a model call.

    Failures, user corrections, tool errors and longer tasks carry lessons; a
    quick clean success almost never does, so it costs nothing.
    """
    if not summary.success or summary.corrections:
        return True
    if any(m.role == "tool" and m.is_error for m in summary.messages):
        return True
    return summary.steps >= MIN_STEPS_TO_REFLECT


class ReflectionWorker:
    """Background queue in front of ``reflect_fn``; results go to ``on_result``.

    ``on_result`` runs on the worker thread and is not called after ``stop()``
    (the store it writes to may already be closed). ``on_stop`` is called by
    ``stop()`` to abort a hung call, typically ``gateway.cancel``.
    """

    def __init__(
        self,
        reflect_fn: Callable[[EpisodeSummary], Reflection],
        on_result: Callable[[int, Reflection], None],
        *,
        max_queue: int = 8,
        log: logging.Logger,
        on_stop: Callable[[], None] | None = None,
        gate: Callable[[EpisodeSummary], bool] = should_reflect,
    ) -> None:
        self._reflect_fn = reflect_fn
        self._on_result = on_result
        self._on_stop = on_stop
        self._gate = gate
        self._max_queue = max(1, max_queue)
        self._log = log
        self._jobs: deque[tuple[int, EpisodeSummary]] = deque()
        self._cond = threading.Condition()
        self._busy = False
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="comodor-reflect", daemon=True)
        self._thread.start()

    @property
    def pending(self) -> int:
        """Jobs waiting in the queue (not counting the one being reflected on)."""
        with self._cond:
            return len(self._jobs)

    def submit(self, episode_id: int, summary: EpisodeSummary, *, force: bool = False) -> bool:
        """Queue an episode; return False if it was gated out or the worker stopped."""
        if not force and not self._gate(summary):
            return False
        with self._cond:
            if self._stopping:
                return False
            if len(self._jobs) >= self._max_queue:
                dropped, _ = self._jobs.popleft()
                self._log.info(
                    "reflection queue full (%d); dropped the oldest episode %d",
                    self._max_queue,
                    dropped,
                )
            self._jobs.append((episode_id, summary))
            self._cond.notify_all()
        return True

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until the queue is empty and no call runs; False on timeout."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._jobs and not self._busy, timeout)

    def stop(self, timeout: float = 0.5) -> bool:
        """Drop queued jobs, cancel the running call, join; True if the thread ended."""
        with self._cond:
            already = self._stopping
            self._stopping = True
            dropped = len(self._jobs)
            self._jobs.clear()
            self._cond.notify_all()
        if not already:
            if dropped:
                self._log.info("reflection stopped; %d queued episodes dropped", dropped)
            if self._on_stop is not None:
                try:
                    self._on_stop()
                except Exception as exc:
                    self._log.warning("cancelling the reflection call failed: %s", _line(exc))
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: bool(self._jobs) or self._stopping)
                if self._stopping:
                    return
                episode_id, summary = self._jobs.popleft()
                self._busy = True
            try:
                self._one(episode_id, summary)
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()

    def _one(self, episode_id: int, summary: EpisodeSummary) -> None:
        try:
            reflection = self._reflect_fn(summary)
        except Exception as exc:
            if self._stopping:
                self._log.debug("reflection for episode %d abandoned at stop", episode_id)
            else:
                self._log.warning("reflection for episode %d failed: %s", episode_id, _line(exc))
            return
        if self._stopping:
            return
        try:
            self._on_result(episode_id, reflection)
        except Exception as exc:
            self._log.warning(
                "storing the reflection for episode %d failed: %s", episode_id, _line(exc)
            )


def _line(exc: BaseException) -> str:
    """One-line description of an exception (no traceback, no newlines)."""
    text = " ".join(str(exc).split())
    name = type(exc).__name__
    if name == "ReflectError":
        return text or name
    return f"{name}: {text}" if text else name
