"""When the recall index is written to its snapshot file, and on which thread.

Opening maps the last snapshot and replays the lesson log since its revision
(:meth:`comodor.brain.lessons.book.LessonBook.sync`). That replay must stay small for
start-up to stay instant, so once :data:`COMPACT_AFTER_CHANGES` changes (or
:data:`COMPACT_AFTER_SLOTS` new or retired lessons) piled up since the file was
written, the index is compacted into a new file:

* under the brain's lock, :meth:`RecallIndex.frozen` copies what compaction
  reads (a few arrays, the small delta) — well under a millisecond;
* on a daemon thread that never touches SQLite, the copy is folded into one
  compact snapshot and written atomically;
* under the lock again, if nothing changed meanwhile, the index swaps its
  in-memory base and delta for the mapped file (so its memory is the page
  cache's, shared and reclaimable). If something did change, the file still
  stands for the next start and the next compaction tries again.
"""

from __future__ import annotations

import logging
import threading
import time

from ..shared import Shared
from ..store import BrainStore
from ..store.sqlite_schema import SCHEMA_VERSION
from .index import RecallIndex
from .snapshot_file import Loaded, read, snapshot_path, write

log = logging.getLogger(__name__)

COMPACT_AFTER_CHANGES = 500
"""Lesson log entries since the snapshot (a credit is one) before it is rewritten."""
COMPACT_AFTER_SLOTS = 256
"""New, edited or forgotten lessons since the in-memory base before it is compacted."""
BRAIN_ID_KEY = "brain_id"


class Snapshots:
    """The snapshot file of one brain's recall index."""

    def __init__(self, shared: Shared, store: BrainStore) -> None:
        self.shared = shared
        self.store = store
        self.path = snapshot_path(store.path)
        self.file_rev = -1
        """The revision of the newest snapshot file we read or wrote; -1 if none."""
        self.reason = ""
        """Why the last open did not use the file ("" when it did)."""
        self.compactions = 0
        self.last_compaction_ms = 0.0
        self._thread: threading.Thread | None = None
        self._brain_id: str | None = None

    def brain_id(self, store: BrainStore) -> str | None:
        if self._brain_id is None:
            self._brain_id = store.get_meta(BRAIN_ID_KEY)
        return self._brain_id

    def writable(self) -> bool:
        """Whether a snapshot may be written now (a team brain adds its own conditions)."""
        return not self.shared.store.read_only

    def note(self, reason: str) -> None:
        self.reason = reason
        log.info("recall index: %s", reason)

    def load(self, store: BrainStore) -> Loaded | None:
        brain = self.brain_id(store)
        if brain is None:
            self.note("the brain has no id; the recall index is rebuilt")
            return None
        loaded, reason = read(self.path, brain=brain, schema=SCHEMA_VERSION)
        if loaded is None:
            self.note(f"{reason}; rebuilt from the brain")
            return None
        self.reason = ""
        self.file_rev = loaded.rev
        return loaded

    def busy(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def maybe_compact(
        self, index: RecallIndex, *, now: bool = False, position: tuple[int, ...] = ()
    ) -> None:
        """Start a compaction if enough changed (caller holds the lock).

        ``position`` is a team brain's log position the index reflects (written in the
        file's header); a brain file's is ``index.rev`` alone.
        """
        if self.busy() or self._brain_id is None or not self.writable():
            return
        behind = index.rev - self.file_rev if self.file_rev >= 0 else COMPACT_AFTER_CHANGES
        if not now and behind < COMPACT_AFTER_CHANGES and index.delta_size < COMPACT_AFTER_SLOTS:
            return
        if index.rev == self.file_rev and index.delta_size == 0:
            return
        job, rev, mutations = index.frozen(), index.rev, index.mutations
        brain = self._brain_id
        lock = self.shared.lock

        def compact() -> None:
            started = time.perf_counter()
            try:
                write(
                    self.path, job(), rev=rev, brain=brain, schema=SCHEMA_VERSION,
                    position=position,
                )  # fmt: skip
            except OSError as error:
                log.warning("could not write the recall snapshot %s: %s", self.path, error)
                return
            self.file_rev = rev
            loaded, reason = read(self.path, brain=brain, schema=SCHEMA_VERSION)
            if loaded is None:
                log.warning("the recall snapshot just written does not read back: %s", reason)
                return
            with lock:
                if index.mutations == mutations:
                    current = index.rev
                    index.load(loaded.snapshot, rev)
                    index.rev = max(current, rev)
            self.compactions += 1
            self.last_compaction_ms = (time.perf_counter() - started) * 1000.0

        def logged() -> None:
            try:
                compact()
            except Exception:
                log.exception("recall index compaction failed")

        self._thread = threading.Thread(target=logged, name="comodor-recall-compact", daemon=True)
        self._thread.start()

    def wait(self, timeout: float) -> bool:
        thread = self._thread
        if thread is None:
            return True
        thread.join(timeout)
        return not thread.is_alive()
