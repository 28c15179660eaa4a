"""The recall index of one brain, kept current with the lesson log, whoever wrote it.

The index is built the first time it is needed (hosts warm it off their event
loop right after start-up): numpy and the index are imported then, not when the
brain is opened, so a language server answers ``initialize`` without them.

Opening maps the snapshot file (:mod:`comodor.brain.recall.snapshot_file`) and replays the
lesson log since its revision. The snapshot is never trusted blindly: a file
that is missing, damaged, of another format, schema or brain, or whose revision
the log no longer covers, or that leaves the index holding a different number of
lessons than the brain, is rebuilt from SQLite (and a new file written).

A team brain's log position spans two databases
(:data:`~comodor.brain.store.interface.LogPosition`): its snapshot is keyed to both
revisions and checked against both logs (:mod:`comodor.brain.recall.team_snapshots`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..shared import Shared
from ..store import BrainStore
from ..store.interface import LogPosition
from .entries import indexed

if TYPE_CHECKING:
    from .index import RecallIndex
    from .snapshots import Snapshots
    from .team_snapshots import TeamSnapshotSource


def _revisions(position: LogPosition) -> tuple[int, ...]:
    """A team position's two revisions (the file's key); () for a brain file's int."""
    return () if isinstance(position, int) else (int(position[0]), int(position[1]))


class IndexKeeper:
    """Builds, follows and persists the recall index. Callers hold ``shared.lock``."""

    def __init__(self, shared: Shared) -> None:
        self.shared = shared
        self._index: RecallIndex | None = None
        self._snapshots: Snapshots | None = None
        self._position: LogPosition | None = None
        """The lesson log position the index reflects; None until it is built."""
        self._scopes: frozenset[str] | None = None
        """The only scopes the index holds (a team brain's: this project's); None: all."""

    @property
    def built(self) -> bool:
        return self._index is not None and self._position is not None

    def reset(self) -> None:
        """Forget the index and its snapshot keeper (the brain file was replaced)."""
        self.close()
        self._index = None
        self._snapshots = None
        self._position = None
        self._scopes = None

    @property
    def snapshots(self) -> Snapshots | None:
        """The snapshot file's keeper, once the index was built (tests and benchmarks)."""
        return self._snapshots

    def current(self) -> RecallIndex:
        """The index, built if need be and caught up with the log."""
        self.sync()
        assert self._index is not None
        return self._index

    def sync(self) -> bool:
        """Catch up with every lesson change; True if a change could alter an earlier answer.

        Building the index changes no answer (there was none before it), so it is False.
        """
        index = self._index
        if index is None or self._position is None:
            self._open()
            return False
        head, changed = self.shared.store.lesson_log_since(self._position)
        if not changed:
            self._follow(index, head)
            return False
        self._replay(index, head, changed)
        if self._snapshots is not None:
            self._snapshots.maybe_compact(index, position=_revisions(head))
        return True

    def _follow(self, index: RecallIndex, head: LogPosition) -> None:
        self._position = head
        if isinstance(head, int):
            index.rev = head
        else:  # both logs only move forward: their sum counts changes for compaction
            index.rev = head[0] + head[1]

    def _replay(self, index: RecallIndex, head: LogPosition, changed: Sequence[int]) -> None:
        present = {row[0]: row for row in self.shared.store.index_rows(changed)}
        scopes = self._scopes
        for lesson_id in changed:
            row = present.get(lesson_id)
            if row is None or (scopes is not None and row[1] not in scopes):
                index.remove(lesson_id)
            else:
                index.upsert(indexed(row))
        self._follow(index, head)

    def _open(self) -> None:
        from .index import RecallIndex
        from .snapshots import Snapshots

        shared = self.shared
        store = shared.store
        half_life = shared.settings.half_life_days
        index = self._index = RecallIndex(half_life)
        head = store.lesson_log_head()
        from .team_snapshots import TeamSnapshotSource

        if isinstance(head, tuple) and isinstance(store, TeamSnapshotSource):
            self._open_team(index, store, head)
            return
        if not isinstance(store, BrainStore) or not isinstance(head, int):
            index.rebuild((indexed(row) for row in store.iter_index_rows()), half_life)
            self._follow(index, head)
            return
        snapshots = self._snapshots = self._snapshots or Snapshots(shared, store)
        loaded = snapshots.load(store)
        if loaded is not None and not (loaded.rev <= head and store.lesson_log_covers(loaded.rev)):
            snapshots.note("the lesson log no longer covers the recall snapshot; rebuilt")
        elif loaded is not None:
            index.load(loaded.snapshot, loaded.rev)
            head, changed = store.lesson_log_since(loaded.rev)
            self._position = loaded.rev
            if changed:
                self._replay(index, head, changed)
            if len(index) == store.count_all_lessons():
                snapshots.maybe_compact(index)
                return
            snapshots.note("the recall snapshot disagrees with the brain; rebuilt")
        index.rebuild((indexed(row) for row in store.iter_index_rows()), half_life)
        self._follow(index, head)
        snapshots.maybe_compact(index, now=True)

    def _open_team(self, index: RecallIndex, store: TeamSnapshotSource, head: LogPosition) -> None:
        """Map the team snapshot and replay both logs since, or rebuild (and write one)."""
        from .team_snapshots import TeamSnapshots

        shared = self.shared
        scopes = list(shared.scopes)
        self._scopes = frozenset(scopes)
        snapshots = self._snapshots = self._snapshots or TeamSnapshots(shared, store)
        assert isinstance(snapshots, TeamSnapshots)
        loaded = snapshots.load_team()
        if loaded is not None:
            local_rev, team_rev = loaded.position
            index.load(loaded.snapshot, local_rev + team_rev)
            self._position = (local_rev, team_rev, -1)  # -1: queued lessons are looked at
            since, changed = shared.store.lesson_log_since(self._position)
            self._replay(index, since, changed)
            if len(index) == store.count_indexed_lessons(scopes):
                snapshots.maybe_compact(index, position=_revisions(since))
                return
            snapshots.note("the recall snapshot disagrees with the brain; rebuilt")
        index.rebuild(indexed(row) for row in store.iter_index_rows(scopes=scopes))
        self._follow(index, head)
        snapshots.maybe_compact(index, now=True, position=_revisions(head))

    def set_half_life(self, half_life_days: float) -> None:
        if self._index is not None:
            self._index.set_half_life(half_life_days)

    def close(self) -> None:
        """Let a compaction under way finish writing its file (it never touches SQLite)."""
        if self._snapshots is not None:
            self._snapshots.wait(2.0)
