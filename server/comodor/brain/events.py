"""A tiny synchronous event bus: how the brain tells its hosts what it learned.

The brain emits ``memory`` events (a rule became confident, lessons were
learned, something was taught or forgotten). The language server forwards them
as ``comodor/memory`` notifications; the CLI prints them; tests collect them.
Listeners run on the emitting thread and must be quick and non-blocking.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

Listener = Callable[[dict[str, Any]], None]


class EventBus:
    """Fan out memory events to listeners; a failing listener never breaks the brain."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []
        self._lock = threading.Lock()

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def emit(self, action: str, **payload: Any) -> None:
        event = {"action": action, **payload}
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(event)
            except Exception:  # a UI problem must not lose what was learned
                log.exception("memory listener failed for %s", action)
