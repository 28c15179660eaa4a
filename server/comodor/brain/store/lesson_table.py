"""Lessons and skills in the brain file: what recall and credit read and write.

Lesson texts live here and in the full-text index (FTS5 in the SQLite file, a
``tsvector`` column in PostgreSQL); the in-memory recall index is built from
:meth:`LessonRows.index_rows` and follows every change (ours or another process's)
through ``lesson_log``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from ..models import Lesson, Skill
from ..recall.text import trigger_prefix
from .backend import StoreBase, in_marks
from .interface import LogPosition
from .rows import (
    INDEX_ROW_COLUMNS,
    INSERT_LESSON,
    LESSON_COLUMNS,
    LESSON_FIELDS,
    lesson_from_row,
    lesson_to_row,
)


class LessonRows(StoreBase):
    """The lessons part of :class:`comodor.brain.store.BrainStore`."""

    def add_lesson(self, lesson: Lesson, terms: str) -> Lesson:
        with self._write() as tx:
            row = tx.execute(INSERT_LESSON + " RETURNING id", lesson_to_row(lesson, terms))
            lesson.id = int(row.fetchone()[0])
        return lesson

    def add_lessons(self, lessons: Iterable[tuple[Lesson, str]]) -> int:
        """Bulk insert in one transaction (imports, benchmarks)."""
        rows = [lesson_to_row(lesson, terms) for lesson, terms in lessons]
        with self._write() as tx:
            tx.executemany(INSERT_LESSON, rows)
        return len(rows)

    def get_lessons(self, ids: Sequence[int]) -> list[Lesson]:
        """Lessons by id, in the order asked; missing ids are skipped."""
        if not ids:
            return []
        marks = in_marks(ids)
        rows = self._read(f"SELECT {LESSON_COLUMNS} FROM lessons WHERE id IN ({marks})", ids)
        by_id = {row[0]: lesson_from_row(row) for row in rows}
        return [by_id[lesson_id] for lesson_id in ids if lesson_id in by_id]

    def get_lesson(self, lesson_id: int) -> Lesson | None:
        found = self.get_lessons([lesson_id])
        return found[0] if found else None

    def lessons(self, scopes: Sequence[str], limit: int = 1_000_000) -> list[Lesson]:
        marks = in_marks(scopes)
        rows = self._read(
            f"SELECT {LESSON_COLUMNS} FROM lessons WHERE scope IN ({marks})"
            " ORDER BY pinned DESC, updated_at DESC, id DESC LIMIT ?",
            [*scopes, limit],
        )
        return [lesson_from_row(row) for row in rows]

    def count_lessons(self, scopes: Sequence[str]) -> int:
        marks = in_marks(scopes)
        return int(
            self._read(f"SELECT count(*) FROM lessons WHERE scope IN ({marks})", scopes)[0][0]
        )

    def search_lessons(
        self, words: Sequence[str], scopes: Sequence[str], limit: int
    ) -> list[tuple[Lesson, float]]:
        """Lessons whose text has any of ``words`` (stemmed), best match first."""
        if not words or not scopes:
            return []
        columns = ", ".join(f"l.{name}" for name in LESSON_FIELDS)
        rows = self._search_rows(columns, words, scopes, limit)
        return [(lesson_from_row(row[:-1]), float(row[-1])) for row in rows]

    def lessons_with_terms(
        self, ids: Sequence[int] | None = None, *, after: int = 0, batch: int = 2000
    ) -> list[tuple[Lesson, str]]:
        """Whole lessons with their recall terms: by id, or the next ``batch`` after ``after``."""
        sql = f"SELECT {LESSON_COLUMNS}, terms FROM lessons"
        if ids is not None:
            if not ids:
                return []
            rows = self._read(f"{sql} WHERE id IN ({in_marks(ids)})", ids)
        else:
            rows = self._read(f"{sql} WHERE id > ? ORDER BY id LIMIT ?", (after, batch))
        return [(lesson_from_row(row[:-1]), str(row[-1])) for row in rows]

    def index_rows(self, lesson_ids: Sequence[int] | None = None) -> list[tuple[Any, ...]]:
        """Rows the recall index is built from (``brain.indexed.indexed`` reads them).

        id, scope, terms, trust inputs, pinned, and how many of the terms are the
        trigger's.
        """
        sql = f"SELECT {INDEX_ROW_COLUMNS} FROM lessons"
        if lesson_ids is None:
            return self._read(sql)
        marks = in_marks(lesson_ids)
        return self._read(f"{sql} WHERE id IN ({marks})", lesson_ids)

    def iter_index_rows(self, batch: int = 2000) -> Iterator[tuple[Any, ...]]:
        """Every lesson's index row, streamed in batches to keep the peak memory low."""
        last = 0
        while True:
            rows = self.index_rows_after(last, batch)
            yield from rows
            if len(rows) < batch:
                return
            last = rows[-1][0]

    def index_rows_after(
        self, after: int, batch: int, scopes: Sequence[str] | None = None
    ) -> list[tuple[Any, ...]]:
        """The next ``batch`` index rows after lesson id ``after`` (of ``scopes``, if given)."""
        where = "id > ?" if scopes is None else f"id > ? AND scope IN ({in_marks(scopes)})"
        return self._read(
            f"SELECT {INDEX_ROW_COLUMNS} FROM lessons WHERE {where} ORDER BY id LIMIT ?",
            (after, *(scopes or ()), batch),
        )

    def lesson_log_since(self, rev: LogPosition) -> tuple[LogPosition, list[int]]:
        """Lessons changed after ``rev`` (by any process) and the newest rev."""
        assert isinstance(rev, int), "one database's log position is an int"
        rows = self._read(
            "SELECT rev, lesson_id FROM lesson_log WHERE rev > ? ORDER BY rev", (rev,)
        )
        if not rows:
            return rev, []
        return rows[-1][0], list(dict.fromkeys(row[1] for row in rows))

    def lesson_log_head(self) -> LogPosition:
        return int(self._read("SELECT coalesce(max(rev), 0) FROM lesson_log")[0][0])

    def lesson_log_covers(self, rev: int) -> bool:
        """Whether every change after ``rev`` is still in the log (old entries are pruned)."""
        newest, oldest = self._read("SELECT max(rev), min(rev) FROM lesson_log")[0]
        return newest is None or int(newest) <= rev or int(oldest) <= rev + 1

    def count_all_lessons(self) -> int:
        """Every lesson of every scope (what the recall index must hold)."""
        return int(self._read("SELECT count(*) FROM lessons")[0][0])

    def update_lesson_text(self, lesson_id: int, trigger: str, guidance: str, terms: str) -> None:
        with self._write() as tx:
            tx.execute(
                "UPDATE lessons SET trigger = ?, guidance = ?, terms = ?, trigger_terms = ?,"
                " updated_at = ? WHERE id = ?",
                (
                    trigger,
                    guidance,
                    terms,
                    trigger_prefix(trigger, terms.split()),
                    time.time(),
                    lesson_id,
                ),
            )

    def lesson_terms(self, scopes: Sequence[str]) -> dict[int, tuple[str, ...]]:
        """Every lesson's index terms (what merging compares), by id."""
        if not scopes:
            return {}
        rows = self._read(
            f"SELECT id, terms FROM lessons WHERE scope IN ({in_marks(scopes)})", scopes
        )
        return {int(row[0]): tuple(str(row[1]).split()) for row in rows}

    def merge_lessons(self, pairs: Sequence[tuple[int, int]]) -> int:
        """Fold each ``(kept, merged)`` in order: summed counters, then ``merged`` is gone.

        One transaction; the counters are added in SQL (another process crediting
        the kept lesson meanwhile still counts). Feedback about the merged lesson
        moves to the kept one. Returns how many merges happened (both lessons there).
        """
        done = 0
        now = time.time()
        with self._write() as tx:
            for kept, merged in pairs:
                if kept == merged:
                    continue
                row = tx.execute(
                    "SELECT wins, losses, uses, confidence, pinned, last_success, last_used"
                    " FROM lessons WHERE id = ?",
                    (merged,),
                ).fetchone()
                if row is None:
                    continue
                wins, losses, uses, confidence, pinned, last_success, last_used = row
                cursor = tx.execute(
                    "UPDATE lessons SET wins = wins + ?, losses = losses + ?, uses = uses + ?,"
                    " confidence = CASE WHEN confidence < ? THEN ? ELSE confidence END,"
                    " pinned = CASE WHEN pinned < ? THEN ? ELSE pinned END,"
                    " last_success = CASE WHEN last_success < ? THEN ? ELSE last_success END,"
                    " last_used = CASE WHEN last_used < ? THEN ? ELSE last_used END,"
                    " updated_at = ? WHERE id = ?",
                    (
                        wins, losses, uses, confidence, confidence, pinned, pinned,
                        last_success, last_success, last_used, last_used, now, kept,
                    ),
                )  # fmt: skip
                if cursor.rowcount != 1:
                    continue
                tx.execute("DELETE FROM lessons WHERE id = ?", (merged,))
                if self.keeps_feedback:
                    tx.execute(
                        "UPDATE feedback SET target_id = ?"
                        " WHERE target = 'lesson' AND target_id = ?",
                        (kept, merged),
                    )
                done += 1
        return done

    def reinforce(self, lesson_id: int, boost: float, ceiling: float) -> None:
        """Seeing a lesson restated is evidence for it: raise its prior, atomically."""
        with self._write() as tx:
            tx.execute(
                "UPDATE lessons SET confidence = CASE WHEN confidence + ? < ?"
                " THEN confidence + ? ELSE ? END, updated_at = ? WHERE id = ?",
                (boost, ceiling, boost, ceiling, time.time(), lesson_id),
            )

    def set_pinned(self, lesson_id: int, pinned: bool) -> bool:
        with self._write() as tx:
            cursor = tx.execute(
                "UPDATE lessons SET pinned = ?, updated_at = ? WHERE id = ?",
                (int(pinned), time.time(), lesson_id),
            )
        return cursor.rowcount > 0

    def delete_lesson(self, lesson_id: int) -> bool:
        with self._write() as tx:
            cursor = tx.execute("DELETE FROM lessons WHERE id = ?", (lesson_id,))
        return cursor.rowcount > 0

    def delete_lessons(self, ids: Sequence[int]) -> int:
        if not ids:
            return 0
        with self._write() as tx:
            tx.executemany("DELETE FROM lessons WHERE id = ?", [(i,) for i in ids])
        return len(ids)

    def credit(self, ids: Sequence[int], won: bool, now: float | None = None) -> None:
        """Share a task's outcome with the lessons it recalled, as atomic increments."""
        if not ids:
            return
        now = time.time() if now is None else now
        with self._write() as tx:
            if won:
                tx.executemany(
                    "UPDATE lessons SET wins = wins + 1, last_success = ?, updated_at = ?"
                    " WHERE id = ?",
                    [(now, now, lesson_id) for lesson_id in ids],
                )
            else:
                tx.executemany(
                    "UPDATE lessons SET losses = losses + 1, updated_at = ? WHERE id = ?",
                    [(now, lesson_id) for lesson_id in ids],
                )

    def mark_used(self, ids: Sequence[int], now: float | None = None) -> None:
        if not ids:
            return
        now = time.time() if now is None else now
        with self._write() as tx:
            tx.executemany(
                "UPDATE lessons SET uses = uses + 1, last_used = ? WHERE id = ?",
                [(now, lesson_id) for lesson_id in ids],
            )

    def prune_lesson_log(self, keep: int = 50_000) -> None:
        with self._write() as tx:
            tx.execute(
                "DELETE FROM lesson_log"
                " WHERE rev < (SELECT coalesce(max(rev), 0) FROM lesson_log) - ?",
                (keep,),
            )

    # -- skills ----------------------------------------------------------- #

    def add_skill(self, skill: Skill) -> Skill:
        with self._write() as tx:
            cursor = tx.execute(
                "INSERT INTO skills (name, description, steps, scope, source, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
                (
                    skill.name,
                    skill.description,
                    json.dumps(skill.steps),
                    skill.scope,
                    skill.source,
                    skill.created_at,
                ),
            )
            skill.id = int(cursor.fetchone()[0])
        return skill

    def skills(self, scopes: Sequence[str]) -> list[Skill]:
        marks = in_marks(scopes)
        rows = self._read(
            "SELECT id, name, description, steps, scope, source, uses, wins, losses, created_at"
            f" FROM skills WHERE scope IN ({marks}) ORDER BY id",
            scopes,
        )
        return [
            Skill(
                id=row[0],
                name=row[1],
                description=row[2],
                steps=json.loads(row[3]),
                scope=row[4],
                source=row[5],
                uses=row[6],
                wins=row[7],
                losses=row[8],
                created_at=row[9],
            )
            for row in rows
        ]

    def credit_skills(self, ids: Sequence[int], won: bool) -> None:
        if not ids:
            return
        column = "wins" if won else "losses"
        with self._write() as tx:
            tx.executemany(
                f"UPDATE skills SET {column} = {column} + 1, uses = uses + 1 WHERE id = ?",
                [(skill_id,) for skill_id in ids],
            )
