"""Checkpoints of agent writes: content keys before and after, and their status."""

from __future__ import annotations

import time

from .backend import StoreBase
from .rows import AGENT_WRITE_COLUMNS, AgentWrite, agent_write_from_row


class CheckpointRows(StoreBase):
    """The checkpoints part of :class:`comodor.brain.store.BrainStore`."""

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
        with self._write() as tx:
            cursor = tx.execute(
                "INSERT INTO agent_writes (scope, path, before_hash, after_hash, created,"
                " episode_id, last_hash, created_at, source)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (
                    scope,
                    path,
                    before_hash,
                    after_hash,
                    int(created),
                    episode_id,
                    after_hash,
                    time.time(),
                    source,
                ),
            )
            return int(cursor.fetchone()[0])

    def last_agent_write(self, scope: str, path: str) -> AgentWrite | None:
        rows = self._read(
            f"SELECT {AGENT_WRITE_COLUMNS} FROM agent_writes WHERE scope = ? AND path = ?"
            " ORDER BY id DESC LIMIT 1",
            (scope, path),
        )
        return agent_write_from_row(rows[0]) if rows else None

    def update_agent_write(
        self, write_id: int, *, status: str | None = None, last_hash: str | None = None
    ) -> None:
        with self._write() as tx:
            if status is not None:
                tx.execute("UPDATE agent_writes SET status = ? WHERE id = ?", (status, write_id))
            if last_hash is not None:
                tx.execute(
                    "UPDATE agent_writes SET last_hash = ? WHERE id = ?", (last_hash, write_id)
                )

    def agent_written_paths(self, scope: str) -> set[str]:
        rows = self._read("SELECT DISTINCT path FROM agent_writes WHERE scope = ?", (scope,))
        return {str(row[0]) for row in rows}

    def count_agent_writes(self, scope: str) -> int:
        return int(self._read("SELECT count(*) FROM agent_writes WHERE scope = ?", (scope,))[0][0])

    def count_agent_writes_by_source(self, scope: str) -> dict[str, int]:
        rows = self._read(
            "SELECT source, count(*) FROM agent_writes WHERE scope = ? GROUP BY source", (scope,)
        )
        return {str(source): int(count) for source, count in rows}

    def referenced_hashes(self) -> set[str]:
        rows = self._read("SELECT before_hash, after_hash FROM agent_writes")
        return {value for row in rows for value in row if value}

    def prune_agent_writes(self, older_than: float) -> int:
        with self._write() as tx:
            cursor = tx.execute("DELETE FROM agent_writes WHERE created_at < ?", (older_than,))
        return cursor.rowcount
