"""Checkpoints of agent writes, and what the user did with them: corrections and undos.

The capture layer decides what a change *is* (see ``comodor.capture.tracker``);
this part records it: a checkpoint per agent write (texts before and after, as
blobs), a counted correction that votes for rule dimensions, an undo that is a
loss for what the task recalled. There is one undo path, :meth:`Checkpoints.undo`,
whether the undo was seen on disk, at a save, or reported by ``comodor.undo``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from .events import AgentWrote, CorrectionCounted, UndoCounted
from .lessons.book import LessonBook
from .models import Rule, Vote
from .redaction.redactor import redact
from .rules.house_rules import HouseRules
from .shared import Shared
from .store import AgentWrite

MAX_DIFF_CHARS = 20_000


class Checkpoints:
    """Agent writes and their fate, for one project."""

    def __init__(self, shared: Shared, rules: HouseRules, lessons: LessonBook) -> None:
        self.shared = shared
        self.rules = rules
        self.lessons = lessons

    def record_write(
        self,
        path: str,
        before: str | None,
        after: str,
        *,
        task_id: int | None = None,
        created: bool | None = None,
        source: str = "disk",
    ) -> int:
        """Checkpoint an agent's write: the text before (None if unknown or new) and after.

        ``source`` says who made it (:data:`~comodor.brain.models.AGENT_WRITE_SOURCES`,
        an assistant's may carry ``:extension-id``), for ``agentWritesBySource`` and the
        corrections and undos that follow it.
        """
        shared = self.shared
        before_hash = shared.blobs.put(before) if before is not None else ""
        after_hash = shared.blobs.put(after)
        if task_id is None:
            last = shared.store.last_episode(shared.project_scope, ended=False)
            task_id = last.id if last is not None and last.open else None
        created = before is None if created is None else created
        write_id = shared.store.add_agent_write(
            shared.project_scope, path, before_hash, after_hash, created, task_id, source
        )
        shared.bus.emit(AgentWrote(path))
        return write_id

    def last_write(self, path: str) -> AgentWrite | None:
        return self.shared.store.last_agent_write(self.shared.project_scope, path)

    def record_correction(
        self,
        path: str,
        votes: Sequence[Vote],
        diff: str,
        episode_id: int | None,
        *,
        rule_keys: Sequence[str] = (),
        source: str = "disk",
    ) -> list[Rule]:
        """One user correction of an agent's write: count it and vote for what it teaches."""
        shared = self.shared
        signal_id = shared.store.add_signal(
            "correction",
            shared.project_scope,
            redact(diff)[:MAX_DIFF_CHARS],
            path=path,
            episode_id=episode_id,
        )
        if episode_id is not None:
            shared.store.bump_episode(episode_id, "corrections")
        newly: list[Rule] = []
        if votes and shared.settings.rules:
            newly = self.rules.record_votes(votes, origin=f"save:{signal_id}")
        keys = tuple(rule_keys or [vote.key for vote in votes])
        shared.bus.emit(CorrectionCounted(path, keys, source))
        return newly

    def undo(self, write: AgentWrite) -> None:
        """The user threw an agent's write away: a loss for what that task recalled."""
        shared = self.shared
        shared.store.update_agent_write(write.id, status="undone")
        shared.store.add_signal(
            "undo", shared.project_scope, "", path=write.path, episode_id=write.episode_id
        )
        if write.episode_id is not None:
            shared.store.bump_episode(write.episode_id, "undos")
            episode = shared.store.get_episode(write.episode_id)
            if episode is not None and episode.recalled:
                shared.store.credit(episode.recalled, won=False)
                self.lessons.changed()
        shared.bus.emit(UndoCounted(write.path, write.source))

    def undo_paths(self, paths: Sequence[str]) -> int:
        """``comodor.undo``: mark the last agent write of each file as undone (files untouched)."""
        undone = 0
        for path in paths:
            write = self.last_write(path)
            if write is None or write.status == "undone":
                continue
            self.undo(write)
            undone += 1
        return undone

    def prune(self, max_age_days: float = 30.0, max_bytes: int = 200_000_000) -> tuple[int, int]:
        """Drop old checkpoints and the blobs nothing refers to any more.

        A checkpoint only matters while a correction or an undo can still refer
        to it; a month is far beyond any correction window. Blobs of live
        checkpoints are kept whatever their size (see ``BlobStore.prune``).
        Returns (checkpoints removed, blobs removed).
        """
        shared = self.shared
        window_s = shared.settings.correction_window_minutes * 60.0 * 2
        horizon = max(max_age_days * 86_400.0, window_s)
        writes = shared.store.prune_agent_writes(time.time() - horizon)
        blobs = shared.blobs.prune(shared.store.referenced_hashes(), max_bytes=max_bytes)
        return writes, blobs
