"""Retention for a team database: lessons nobody recalled for N days, archived, never lost.

A team brain only grows: a year of 50 people's lessons is 200,000 rows, and every
server indexes every one. ``learning.archiveAfterDays`` (0, the default, is off)
lets a team move the lessons nobody has recalled for that many days out of recall:

* **never silently**: the server that archives says how many and how to get them
  back (a notice), and ``comodor-lsp team status`` counts the archived lessons per
  scope;
* **never deleted**: a lesson moves whole, with its id, into ``archived_lessons``
  (schema 4) in the same transaction that removes it from ``lessons``; the removal
  is logged like any other, so every server's recall index drops it;
* **restorable**: ``comodor-lsp team restore`` moves lessons back with the same id
  (ids are never reused, so nothing else can hold it), and the log makes every
  server index them again;
* pinned lessons are never archived, and "recalled" means ``last_used`` (bumped
  whenever recall returned the lesson); a lesson never recalled counts from when it
  was taught or last edited.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from ..brain.store.backend import StoreBase
from ..brain.store.rows import LESSON_COLUMNS

_MOVED_BACK = f"{LESSON_COLUMNS}, terms, trigger_terms"


class ArchiveRows(StoreBase):
    """Archiving and restoring lessons (mixed into ``PostgresStore``)."""

    def archive_unrecalled(
        self, scopes: Sequence[str], days: float, now: float | None = None
    ) -> int:
        """Move the unpinned lessons of ``scopes`` not recalled for ``days`` days; how many."""
        if not scopes or days <= 0:
            return 0
        now = time.time() if now is None else now
        before = now - days * 86_400.0
        marks = ",".join("?" * len(scopes))
        with self._write() as tx:
            rows = tx.execute(
                "WITH gone AS (DELETE FROM lessons WHERE scope IN ("
                + marks
                + ") AND pinned = 0 AND greatest(last_used, created_at, updated_at) < ?"
                " RETURNING *) INSERT INTO archived_lessons SELECT gone.*, ? FROM gone"
                " RETURNING id",
                (*scopes, before, now),
            ).fetchall()
        return len(rows)

    def restore_archived(self, ids: Sequence[int] | None, scopes: Sequence[str]) -> list[int]:
        """Move archived lessons of ``scopes`` back (all of them when ``ids`` is None)."""
        if not scopes or ids == []:
            return []
        marks = ",".join("?" * len(scopes))
        where = f"scope IN ({marks})"
        params: list[Any] = list(scopes)
        if ids is not None:
            where += f" AND id IN ({','.join('?' * len(ids))})"
            params += list(ids)
        with self._write() as tx:
            rows = tx.execute(
                f"WITH back AS (DELETE FROM archived_lessons WHERE {where} RETURNING *)"
                f" INSERT INTO lessons ({_MOVED_BACK}) SELECT {_MOVED_BACK} FROM back"
                " RETURNING id",
                params,
            ).fetchall()
        return sorted(int(row[0]) for row in rows)

    def archived_lessons(self, scopes: Sequence[str], limit: int = 1000) -> list[tuple[int, str]]:
        """Archived lessons of ``scopes``, newest archived first: (id, "trigger: guidance")."""
        if not scopes:
            return []
        marks = ",".join("?" * len(scopes))
        rows = self._read(
            f"SELECT id, trigger, guidance FROM archived_lessons WHERE scope IN ({marks})"
            " ORDER BY archived_at DESC, id LIMIT ?",
            [*scopes, limit],
        )
        return [(int(r[0]), f"{r[1]}: {r[2]}") for r in rows]
