"""The personal half of a team brain: what never leaves the laptop.

Tasks (episodes), signals (corrections, undos, denials), feedback, checkpoints of
agent writes and meta are one user's activity on one machine: a
:class:`~comodor.teamdb.team_store.TeamStore` keeps them in the local file, always.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..brain.models import Episode
from ..brain.store.rows import AgentWrite

if TYPE_CHECKING:
    from ..brain.store import BrainStore


class PersonalRows:
    """Delegates the personal tables to :attr:`local` (the SQLite brain file)."""

    local: BrainStore

    def open_episode(self, episode: Episode) -> Episode:
        return self.local.open_episode(episode)

    def mark_holdout(self, episode_id: int) -> None:
        self.local.mark_holdout(episode_id)

    def close_episode(self, episode: Episode) -> None:
        self.local.close_episode(episode)

    def get_episode(self, episode_id: int) -> Episode | None:
        return self.local.get_episode(episode_id)

    def episodes(self, scope: str, *, ended: bool = True) -> list[Episode]:
        return self.local.episodes(scope, ended=ended)

    def last_episode(self, scope: str, *, ended: bool) -> Episode | None:
        return self.local.last_episode(scope, ended=ended)

    def bump_episode(self, episode_id: int, counter: str, amount: int = 1) -> None:
        self.local.bump_episode(episode_id, counter, amount)

    def count_episodes(self, scope: str) -> int:
        return self.local.count_episodes(scope)

    def add_signal(
        self,
        kind: str,
        scope: str,
        detail: str = "",
        *,
        path: str = "",
        episode_id: int | None = None,
    ) -> int:
        return self.local.add_signal(kind, scope, detail, path=path, episode_id=episode_id)

    def episode_signals(self, episode_id: int, kind: str) -> list[str]:
        return self.local.episode_signals(episode_id, kind)

    def count_signals(self, scope: str, kind: str) -> int:
        return self.local.count_signals(scope, kind)

    def add_feedback(self, target: str, target_id: int, value: float, note: str) -> None:
        self.local.add_feedback(target, target_id, value, note)

    def add_agent_write(
        self,
        scope: str,
        path: str,
        before_hash: str,
        after_hash: str,
        created: bool,
        episode_id: int | None,
        source: str = "disk",
    ) -> int:
        return self.local.add_agent_write(
            scope, path, before_hash, after_hash, created, episode_id, source
        )

    def last_agent_write(self, scope: str, path: str) -> AgentWrite | None:
        return self.local.last_agent_write(scope, path)

    def update_agent_write(
        self, write_id: int, *, status: str | None = None, last_hash: str | None = None
    ) -> None:
        self.local.update_agent_write(write_id, status=status, last_hash=last_hash)

    def agent_written_paths(self, scope: str) -> set[str]:
        return self.local.agent_written_paths(scope)

    def count_agent_writes(self, scope: str) -> int:
        return self.local.count_agent_writes(scope)

    def count_agent_writes_by_source(self, scope: str) -> dict[str, int]:
        return self.local.count_agent_writes_by_source(scope)

    def referenced_hashes(self) -> set[str]:
        return self.local.referenced_hashes()

    def prune_agent_writes(self, older_than: float) -> int:
        return self.local.prune_agent_writes(older_than)

    def get_meta(self, key: str) -> str | None:
        return self.local.get_meta(key)

    def set_meta(self, key: str, value: str) -> None:
        self.local.set_meta(key, value)

    # The learned vocabulary is one user's wording: it stays on this machine.

    def observe_vocabulary(
        self, scope: str, query_terms: Sequence[str], lesson_terms: Sequence[str]
    ) -> None:
        self.local.observe_vocabulary(scope, query_terms, lesson_terms)

    def vocabulary_tasks(self, scope: str) -> int:
        return self.local.vocabulary_tasks(scope)

    def vocabulary(
        self, scope: str, min_pair_tasks: int
    ) -> tuple[int, dict[tuple[str, str], int], list[tuple[str, str, int]]]:
        return self.local.vocabulary(scope, min_pair_tasks)

    def observe_words(self, scope: str, words: Sequence[str]) -> int:
        return self.local.observe_words(scope, words)

    def word_tasks(self, scope: str) -> int:
        return self.local.word_tasks(scope)

    def prune_words(self, scope: str, below: int, unseen_for: int) -> int:
        return self.local.prune_words(scope, below, unseen_for)

    def word_vocabulary(
        self, scope: str, min_pair_tasks: int
    ) -> tuple[int, dict[str, int], list[tuple[str, str, int]]]:
        return self.local.word_vocabulary(scope, min_pair_tasks)
