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
again after a jittered, growing wait (:class:`~comodor.teamdb.backoff.Backoff`: 0.5 s
doubling to 30 s, drawn at random so fifty servers do not knock in step after a
restart) and, once connected, calls ``on_back`` (the store sends its outbox first) and
``on_change`` (anything missed meanwhile is caught up).

Nothing is lost while it was away: ``LISTEN`` is issued *before* the catch-up, so a
commit is either already in what the catch-up reads (the recall index follows the
database's lesson log from its last revision, the rule cache reloads) or it sends a
notification this connection hears. The same holds for a server whose first
connection was refused (the database out of connection slots): it keeps trying, more
and more rarely, and catches up in full the moment it gets in.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from .backoff import HEALTHY_S, Backoff
from .postgres import CONNECT_TIMEOUT_S
from .postgres_schema import CHANNEL

log = logging.getLogger(__name__)

APPLICATION_NAME = "comodor-listen"
"""The listener's ``application_name`` in ``pg_stat_activity`` (the pool's is ``comodor``)."""
KEEPALIVE: dict[str, Any] = {"keepalives": 1, "keepalives_idle": 30, "keepalives_interval": 10,
             "keepalives_count": 3}  # fmt: skip
"""TCP keepalives: a database host that vanished without closing is noticed in ~1 min."""
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
        backoff: Backoff | None = None,
        offline: Callable[[], bool] | None = None,
    ) -> None:
        self.url = url
        self.origin = origin
        self.on_change = on_change
        """Called with ``ours`` (a commit by this process) for every notification."""
        self.on_lost = on_lost
        self.on_back = on_back
        self.offline = offline
        """Whether the store still counts itself offline while we are connected."""
        self.connected = threading.Event()
        self.backoff = backoff or Backoff()
        self.nudges = Backoff()
        """Waits between ``on_back`` calls while connected but the store is still offline."""
        self.attempts = 0
        """Connections tried so far (each a TCP connect and login the database sees)."""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="comodor-team-listen", daemon=True)

    def start(self) -> TeamListener:
        self._thread.start()
        return self

    def _connect(self) -> Any:
        import psycopg

        self.attempts += 1
        conn = psycopg.connect(
            self.url,
            autocommit=True,
            connect_timeout=CONNECT_TIMEOUT_S,
            application_name=APPLICATION_NAME,
            **KEEPALIVE,
        )
        try:
            conn.execute(f"LISTEN {CHANNEL}")
        except BaseException:
            conn.close()
            raise
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
                wait = self.backoff.next()
                log.info(
                    "the team database is unreachable (try %d failed: %s); next try in %.2f s",
                    self.backoff.failures,
                    str(error).splitlines()[0] if str(error) else type(error).__name__,
                    wait,
                )
                self._stop.wait(wait)
                continue
            if not first:
                self._call(self.on_back)
            first = False
            self.connected.set()
            self._call(self.on_change, False)  # whatever happened before we listened
            since = time.monotonic()
            self.nudges.reset()
            nudge_at = since + self.nudges.next()
            try:
                while not self._stop.is_set():
                    for note in conn.notifies(timeout=WAKE_S):
                        self._call(self.on_change, note.payload == self.origin)
                    now = time.monotonic()
                    if self.backoff.failures and now - since >= HEALTHY_S:
                        self.backoff.reset()
                    if now >= nudge_at:
                        nudge_at = now + self._nudge()
            except psycopg.Error as error:
                self.connected.clear()
                self._call(self.on_lost, str(error).splitlines()[0] if str(error) else "")
            finally:
                with contextlib.suppress(psycopg.Error):
                    conn.close()
            # Lost: wait before the first try too (a database that drops every new
            # connection at once must not be reconnected to in a tight loop).
            self._stop.wait(self.backoff.next())

    def _nudge(self) -> float:
        """Tell the store again that the database is back, if it still thinks otherwise.

        The listener can be back before the store's own pooled connection is (the pool
        reconnects on its own, slower, backoff): the outbox then fails to go out and
        the store counts itself offline again, with nothing left to wake it, and
        its queued writes would wait for the user's next one. While that lasts,
        ``on_back`` is called again after a growing, jittered wait; the seconds until
        the next look are returned.
        """
        if self.offline is None:
            return HEALTHY_S
        try:
            behind = self.offline()
        except Exception:
            log.exception("asking the store whether it is online failed")
            behind = False
        if not behind:
            self.nudges.reset()
            return WAKE_S
        self._call(self.on_back)
        return self.nudges.next()

    def _call(self, function: Callable[..., None], *args: Any) -> None:
        try:
            function(*args)
        except Exception:
            log.exception("handling a team database event failed")

    def stop(self, timeout: float = 1.0) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout)
