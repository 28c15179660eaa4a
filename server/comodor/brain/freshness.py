"""Noticing that another process changed the brain, within a fraction of a second.

Several processes share one brain file (two editors' servers, ``comodor-lsp mcp``,
``comodor-lsp call``). Each keeps caches in memory (the recall index, the rule
cache behind hover and diagnostics), so each must learn when another one
wrote. SQLite's ``PRAGMA data_version`` changes whenever *another connection*
commits; polling it on a connection of our own costs one cheap statement, reads
no data and never takes a lock. When it moves, :class:`ChangeWatcher` calls
``on_change`` (the host hands the catching up to its brain worker, which checks
whether the commit was another process's; see ``LearningEngine.catch_up``).

Why poll instead of watching the ``-wal`` file: the WAL is reset and truncated
by checkpoints, inotify is not available everywhere (and its watches are a
scarce resource shared with the workspace watcher), and a 200 ms poll of an
in-memory counter is as cheap as waiting.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

log = logging.getLogger(__name__)

POLL_INTERVAL_S = 0.2


class ChangeWatcher:
    """A daemon thread polling ``data_version`` of ``path``; calls ``on_change`` on change."""

    def __init__(
        self, path: Path, on_change: Callable[[], None], interval: float = POLL_INTERVAL_S
    ) -> None:
        self.path = path
        self.on_change = on_change
        self.interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="comodor-freshness", daemon=True)

    def start(self) -> ChangeWatcher:
        self._thread.start()
        return self

    def _connect(self) -> sqlite3.Connection | None:
        uri = f"file:{quote(str(self.path))}?mode=ro"
        try:
            return sqlite3.connect(uri, uri=True, check_same_thread=False, timeout=1.0)
        except sqlite3.Error:
            return None

    def _run(self) -> None:
        conn: sqlite3.Connection | None = None
        last: int | None = None
        while not self._stop.wait(self.interval):
            if conn is None:
                conn = self._connect()
                if conn is None:
                    continue
            try:
                version = int(conn.execute("PRAGMA data_version").fetchone()[0])
            except sqlite3.Error:
                with contextlib.suppress(sqlite3.Error):
                    conn.close()
                conn, last = None, None  # moved aside, or being replaced: reconnect
                continue
            if version != last:  # also once at start: a commit may predate the first poll
                try:
                    self.on_change()
                except Exception:
                    log.exception("handing a change of the brain on failed")
            last = version
        if conn is not None:
            conn.close()

    def stop(self, timeout: float = 0.5) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout)
