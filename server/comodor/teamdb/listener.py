"""Hearing another user's change, and the database going away and coming back.

One daemon thread per running server holds a connection of its own with
``LISTEN comodor_brain``. Every commit to the shared tables ends in a ``NOTIFY``
carrying the writer's origin token (see :mod:`comodor.teamdb.postgres_schema`); a token that
is not ours is another user's (or another process's) change, and ``on_change`` hands
the catching up to the brain worker (``LearningEngine.catch_up``: the recall index
follows the lesson log, the rule cache reloads, hover, diagnostics and views refresh,
and the client gets ``comodor/memory`` ``{action: "changed"}``). Notifications arrive
within milliseconds of the commit; the 2 s promise leaves room for a loaded machine.

Why a thread and not polling: ``LISTEN`` costs nothing while nothing happens, and it
is also the cheapest outage detector there is. When the connection breaks (the server
stopped, the network went), ``on_lost`` tells the store at once; the thread then tries
again every :data:`RETRY_S` and, once connected, calls ``on_back`` (the store sends its
outbox first) and ``on_change`` (anything missed meanwhile is caught up).
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable
from typing import Any

from .postgres import CONNECT_TIMEOUT_S
from .postgres_schema import CHANNEL

log = logging.getLogger(__name__)

RETRY_S = 1.0
"""How often an unreachable database is tried again."""
WAKE_S = 0.5
"""How often the thread looks up from waiting (to notice :meth:`TeamListener.stop`)."""


class TeamListener:
    """A daemon thread listening for the team database's changes."""

    def __init__(
        self,
        url: str,
        origin: str,
        *,
        on_change: Callable[[bool], None],
        on_lost: Callable[[str], None],
        on_back: Callable[[], None],
    ) -> None:
        self.url = url
        self.origin = origin
        self.on_change = on_change
        """Called with ``ours`` (a commit by this process) for every notification."""
        self.on_lost = on_lost
        self.on_back = on_back
        self.connected = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="comodor-team-listen", daemon=True)

    def start(self) -> TeamListener:
        self._thread.start()
        return self

    def _connect(self) -> Any:
        import psycopg

        conn = psycopg.connect(
            self.url,
            autocommit=True,
            connect_timeout=CONNECT_TIMEOUT_S,
            application_name="comodor-listen",
        )
        conn.execute(f"LISTEN {CHANNEL}")
        return conn

    def _run(self) -> None:
        import psycopg

        first = True
        while not self._stop.is_set():
            try:
                conn = self._connect()
            except psycopg.Error as error:
                if first:
                    self._call(self.on_lost, str(error).splitlines()[0] if str(error) else "")
                first = False
                self._stop.wait(RETRY_S)
                continue
            if not first:
                self._call(self.on_back)
            first = False
            self.connected.set()
            self._call(self.on_change, False)  # whatever happened before we listened
            try:
                while not self._stop.is_set():
                    for note in conn.notifies(timeout=WAKE_S):
                        self._call(self.on_change, note.payload == self.origin)
            except psycopg.Error as error:
                self.connected.clear()
                self._call(self.on_lost, str(error).splitlines()[0] if str(error) else "")
            finally:
                with contextlib.suppress(psycopg.Error):
                    conn.close()

    def _call(self, function: Callable[..., None], *args: Any) -> None:
        try:
            function(*args)
        except Exception:
            log.exception("handling a team database event failed")

    def stop(self, timeout: float = 1.0) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout)
