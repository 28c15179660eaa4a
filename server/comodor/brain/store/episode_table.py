"""Episodes (tasks), signals (corrections, undos, denials) and feedback rows."""

from __future__ import annotations

import json
import time

from ..models import Episode
from .backend import StoreBase
from .rows import (
    EPISODE_COLUMNS,
    EPISODE_COUNTERS,
    episode_from_row,
)


class EpisodeRows(StoreBase):
    """The episodes part of :class:`comodor.brain.store.BrainStore`."""

    def open_episode(self, episode: Episode) -> Episode:
        with self._write() as tx:
            cursor = tx.execute(
                "INSERT INTO episodes (session_id, scope, goal, recalled, skills, rules_active,"
                " started_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (
                    episode.session_id,
                    episode.scope,
                    episode.goal,
                    json.dumps(episode.recalled),
                    json.dumps(episode.skills),
                    episode.rules_active,
                    episode.started_at,
                ),
            )
            episode.id = int(cursor.fetchone()[0])
        return episode

    def mark_holdout(self, episode_id: int) -> None:
        """The task runs without memory: nothing recalled into it is credited or counted."""
        with self._write() as tx:
            tx.execute(
                "UPDATE episodes SET holdout = 1, recalled = '[]', skills = '[]',"
                " rules_active = 0 WHERE id = ?",
                (episode_id,),
            )

    def close_episode(self, episode: Episode) -> None:
        """Record the outcome; counters captured meanwhile (corrections, undos) are kept."""
        with self._write() as tx:
            tx.execute(
                "UPDATE episodes SET success = ?, stopped = ?, steps = ?, elapsed = ?,"
                " approvals = ?, tokens = ?, retries = ?, tools_used = ?, error_kind = ?,"
                " ended_at = ? WHERE id = ?",
                (
                    int(episode.success),
                    episode.stopped,
                    episode.steps,
                    episode.elapsed,
                    episode.approvals,
                    episode.tokens,
                    episode.retries,
                    json.dumps(episode.tools_used),
                    episode.error_kind,
                    episode.ended_at,
                    episode.id,
                ),
            )

    def get_episode(self, episode_id: int) -> Episode | None:
        rows = self._read(f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE id = ?", (episode_id,))
        return episode_from_row(rows[0]) if rows else None

    def episodes(self, scope: str, *, ended: bool = True) -> list[Episode]:
        condition = " AND ended_at > 0" if ended else ""
        rows = self._read(
            f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE scope = ?{condition}"
            " ORDER BY ended_at, id",
            (scope,),
        )
        return [episode_from_row(row) for row in rows]

    def last_episode(self, scope: str, *, ended: bool) -> Episode | None:
        order = "ended_at DESC, id DESC" if ended else "id DESC"
        condition = " AND ended_at > 0" if ended else ""
        rows = self._read(
            f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE scope = ?{condition}"
            f" ORDER BY {order} LIMIT 1",
            (scope,),
        )
        return episode_from_row(rows[0]) if rows else None

    def bump_episode(self, episode_id: int, counter: str, amount: int = 1) -> None:
        if counter not in EPISODE_COUNTERS:
            raise ValueError(f"not an episode counter: {counter}")
        with self._write() as tx:
            tx.execute(
                f"UPDATE episodes SET {counter} = {counter} + ? WHERE id = ?",
                (amount, episode_id),
            )

    def count_episodes(self, scope: str) -> int:
        return int(
            self._read(
                "SELECT count(*) FROM episodes WHERE scope = ? AND ended_at > 0"
                " AND stopped != 'cancelled'",
                (scope,),
            )[0][0]
        )

    # -- signals and feedback -------------------------------------------- #

    def add_signal(
        self,
        kind: str,
        scope: str,
        detail: str = "",
        *,
        path: str = "",
        episode_id: int | None = None,
    ) -> int:
        with self._write() as tx:
            cursor = tx.execute(
                "INSERT INTO signals (kind, scope, episode_id, path, detail, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
                (kind, scope, episode_id, path, detail, time.time()),
            )
            return int(cursor.fetchone()[0])

    def episode_signals(self, episode_id: int, kind: str) -> list[str]:
        """The details of one task's signals of ``kind``, oldest first."""
        rows = self._read(
            "SELECT detail FROM signals WHERE episode_id = ? AND kind = ? ORDER BY id",
            (episode_id, kind),
        )
        return [str(row[0]) for row in rows]

    def count_signals(self, scope: str, kind: str) -> int:
        return int(
            self._read("SELECT count(*) FROM signals WHERE scope = ? AND kind = ?", (scope, kind))[
                0
            ][0]
        )

    def add_feedback(self, target: str, target_id: int, value: float, note: str) -> None:
        with self._write() as tx:
            tx.execute(
                "INSERT INTO feedback (target, target_id, value, note, created_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (target, target_id, value, note, time.time()),
            )
