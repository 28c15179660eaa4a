"""The files Comodor writes itself, so that capture never mistakes them for an agent's.

The instruction-file sync rewrites ``AGENTS.md``, an export writes the house rules to
any Markdown file the user names. The watcher sees those writes like any other, and
without this registry they would be counted as agent writes, and a user's later edit
of ``AGENTS.md`` as a "correction" of something no agent wrote.

Every writer notes ``(path, content)`` here *before* it replaces the file: the watcher
may deliver the change before the writer returns, and a note for content that then
never landed (a vetoed or failed write) is harmless, because only a file holding
exactly that text at that path matches it, and that text is Comodor's own.

Two memories, both consulted by :meth:`OwnWrites.wrote`:

* this process's recent writes, a bounded set (the live sync and exports of the
  language server itself);
* the brain's meta table, one digest per path, so a write by *another* process on the
  same brain (``comodor-lsp sync`` in a terminal, ``exportRules`` through the MCP server)
  is recognised by the language server watching the workspace.

Content is compared by the hash of the text as capture reads it (UTF-8, undecodable
bytes replaced), the same hash the tracker keeps for every file.
"""

from __future__ import annotations

import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..brain.blobs import text_hash

if TYPE_CHECKING:
    from ..brain.store import Store

log = logging.getLogger(__name__)

KEEP_NOTES = 256
"""Recent own writes remembered in memory (a sync writes a handful of files per change)."""
META_PREFIX = "own-write:"
NOTE_PATIENCE_S = 5.0
"""How long a writer waits for the brain to record its note before writing anyway."""


def _where(path: Path | str) -> str:
    return os.path.realpath(path)


def content_hash(data: bytes) -> str:
    """The hash capture computes for a file holding ``data``."""
    return text_hash(data.decode("utf-8", errors="replace"))


class OwnWrites:
    """A bounded, thread-safe record of ``(path, content hash)`` that Comodor wrote."""

    def __init__(
        self,
        store: Store | None = None,
        limit: int = KEEP_NOTES,
        call: Callable[[Callable[[], object], float], object] | None = None,
    ) -> None:
        self._store = store
        self._limit = limit
        self._call = call
        """Runs the brain write on the brain worker and waits (the writer may be the
        sync's thread); the note must be committed before the file is replaced, or a
        language server in another process can see the file first and count it."""
        self._recent: OrderedDict[tuple[str, str], None] = OrderedDict()
        self._lock = threading.Lock()

    def note(self, path: Path, data: bytes) -> None:
        """Comodor is about to write ``data`` to ``path`` (call it before the write)."""
        where, digest = _where(path), content_hash(data)
        with self._lock:
            self._recent[(where, digest)] = None
            self._recent.move_to_end((where, digest))
            while len(self._recent) > self._limit:
                self._recent.popitem(last=False)
        store = self._store
        if store is None:
            return

        def remember() -> None:
            try:
                store.set_meta(META_PREFIX + where, digest)
            except Exception:  # the in-memory note still covers this process
                log.warning("could not record Comodor's own write of %s", where, exc_info=True)

        if self._call is None:
            remember()
            return
        try:
            self._call(remember, NOTE_PATIENCE_S)
        except Exception:  # a busy or stopping worker: the in-memory note still stands
            log.warning("could not record Comodor's own write of %s in time", where)

    def wrote(self, path: Path | str, text: str) -> bool:
        """Whether ``path`` now holding ``text`` is exactly what Comodor wrote there."""
        where, digest = _where(path), text_hash(text)
        with self._lock:
            if (where, digest) in self._recent:
                return True
        if self._store is None:
            return False
        try:
            return self._store.get_meta(META_PREFIX + where) == digest
        except Exception:
            log.warning("could not look up Comodor's own writes", exc_info=True)
            return False
