"""A team brain's recall snapshot: keyed to both logs it follows, never trusted blindly.

A team brain's index holds the local file's lessons and the team database's. Its
position is ``(local rev, team rev, queue generation)``: the local file's lesson log
and the database's own ``lesson_log``, whose revisions the database hands out in
commit order (see :mod:`comodor.teamdb.postgres_schema`), so a reader that has seen
revision *n* has seen every change below it. That makes the pair a sound key: the
file (``brain.db.team-recall-<project>``, next to the local brain file) is written
with the pair it reflects, and opening maps it and replays both logs since.

The index holds only the scopes this project recalls from (``global`` and the
project's): a database of five projects' lessons costs each server one project's.

Building the index of 200,000 team lessons takes seconds; mapping the file and
replaying what changed since takes milliseconds. Nothing in the file is trusted:

* its identity names the local brain, the team database (a random id the database
  keeps in ``meta``, so a recreated or another database never matches) and the team
  schema; any difference rebuilds;
* each revision must be at most the log's head (a database restored from an older
  backup is behind the file) and the log must still cover it (old entries are
  pruned); otherwise it rebuilds;
* after the replay the index must hold exactly as many lessons as both stores and
  the outbox do; otherwise it rebuilds;
* it is used only when the database answers at start (offline, nothing can be
  checked), and written only while nothing is queued (a queued lesson's pending id
  means nothing to the next process).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from ..shared import Shared
from .snapshot_file import Loaded, read
from .snapshots import Snapshots

if TYPE_CHECKING:
    from ..store import BrainStore


@runtime_checkable
class TeamSnapshotSource(Protocol):
    """What a team store tells its recall snapshot (``comodor.teamdb.team_store``)."""

    path: Path
    local: BrainStore

    @property
    def read_only(self) -> bool: ...
    def recall_snapshot_identity(self) -> str | None: ...
    def recall_snapshot_covers(self, local_rev: int, team_rev: int) -> bool: ...
    def recall_snapshot_writable(self) -> bool: ...
    def count_indexed_lessons(self, scopes: Sequence[str]) -> int: ...
    def iter_index_rows(
        self, batch: int = 2000, scopes: Sequence[str] | None = None
    ) -> Iterator[tuple[Any, ...]]: ...


def team_snapshot_path(brain_path: Path, project_scope: str) -> Path:
    """``brain.db.team-recall-<project>``: one per project (one brain file serves many)."""
    digest = hashlib.sha256(project_scope.encode()).hexdigest()[:16]
    return brain_path.with_name(f"{brain_path.name}.team-recall-{digest}")


class TeamSnapshots(Snapshots):
    """The snapshot file of a team brain's recall index (see the module docstring)."""

    def __init__(self, shared: Shared, store: TeamSnapshotSource) -> None:
        super().__init__(shared, store.local)
        self.team = store
        self.path = team_snapshot_path(store.path, shared.project_scope)

    def brain_id(self, store: BrainStore) -> str | None:
        del store
        if self._brain_id is None:
            identity = self.team.recall_snapshot_identity()
            if identity is not None:
                self._brain_id = f"{identity}/{'+'.join(sorted(self.shared.scopes))}"
        return self._brain_id

    def writable(self) -> bool:
        return not self.team.read_only and self.team.recall_snapshot_writable()

    def load_team(self) -> Loaded | None:
        """The file if it is whole, ours, and both logs still lead on from it."""
        brain = self.brain_id(self.store)
        if brain is None:
            self.note("the team database does not answer; the recall index is rebuilt")
            return None
        from ..store.sqlite_schema import SCHEMA_VERSION

        loaded, reason = read(self.path, brain=brain, schema=SCHEMA_VERSION)
        if loaded is None:
            self.note(f"{reason}; rebuilt from the brain")
            return None
        if len(loaded.position) != 2:
            self.note("the recall snapshot has no team log position; rebuilt")
            return None
        local_rev, team_rev = loaded.position
        if not self.team.recall_snapshot_covers(local_rev, team_rev):
            self.note("the lesson logs no longer lead on from the recall snapshot; rebuilt")
            return None
        self.reason = ""
        self.file_rev = loaded.rev
        return loaded
