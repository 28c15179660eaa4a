"""The brain file: one SQLite database, safe to share between processes.

Why SQLite: it is a single file the user owns, it survives ``kill -9`` (WAL with
``synchronous=NORMAL`` keeps every committed transaction through a process
crash), and several processes (the language server, the MCP server, the CLI)
can use it at once: WAL lets readers and one writer proceed together and the
busy timeout queues writers.

Rules of this module:

* Counters change in SQL (``wins = wins + 1``), never read-modify-write in
  Python: two processes crediting the same lesson must both count.
* Every write is one transaction; a failure rolls back and leaves nothing half
  written.
* A file that is not a database, or is damaged, is moved aside (never deleted)
  and a fresh brain is started; :attr:`BrainStore.notices` says so, and the
  caller tells the user.
* A brain that cannot be written (read-only folder, full disk) raises
  :class:`BrainUnavailable` with a message a user can act on; reads keep working.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

import attrs

from comodor.brain.errors import BrainError, BrainUnavailable
from comodor.brain.models import Episode, Lesson, Skill
from comodor.brain.schema import MIGRATIONS, SCHEMA_VERSION


@attrs.frozen
class VoteRow:
    """One stored vote for a value of a rule."""

    value: str
    statement: str
    kind: str
    weight: float
    origin: str
    detail: str
    created_at: float


@attrs.frozen
class RuleRow:
    """A stored rule dimension with its votes; :mod:`comodor.brain.rules` decides the winner."""

    id: int
    key: str
    scope: str
    language: str | None
    category: str
    pinned: bool
    active: bool
    created_at: float
    updated_at: float
    votes: tuple[VoteRow, ...]


@attrs.frozen
class AgentWrite:
    """A checkpoint of one agent write: content hashes before and after."""

    id: int
    scope: str
    path: str
    before_hash: str
    after_hash: str
    created: bool
    episode_id: int | None
    status: str
    last_hash: str
    created_at: float


_LESSON_COLUMNS = (
    "id, kind, scope, trigger, guidance, confidence, pinned, source, uses, wins, losses, "
    "created_at, updated_at, last_used, last_success"
)
_EPISODE_COLUMNS = (
    "id, session_id, scope, goal, success, stopped, steps, elapsed, approvals, tokens, "
    "corrections, undos, retries, tools_used, error_kind, rules_active, recalled, skills, "
    "started_at, ended_at, holdout"
)
_INSERT_LESSON = (
    "INSERT INTO lessons (kind, scope, trigger, guidance, terms, confidence, pinned, source,"
    " uses, wins, losses, created_at, updated_at, last_used, last_success)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def _lesson_row(lesson: Lesson, terms: str) -> tuple[Any, ...]:
    return (
        lesson.kind,
        lesson.scope,
        lesson.trigger,
        lesson.guidance,
        terms,
        lesson.confidence,
        int(lesson.pinned),
        lesson.source,
        lesson.uses,
        lesson.wins,
        lesson.losses,
        lesson.created_at,
        lesson.updated_at,
        lesson.last_used,
        lesson.last_success,
    )


EPISODE_COUNTERS = frozenset({"corrections", "undos", "retries", "approvals", "steps"})


def _lesson(row: Sequence[Any]) -> Lesson:
    return Lesson(
        id=row[0],
        kind=row[1],
        scope=row[2],
        trigger=row[3],
        guidance=row[4],
        confidence=row[5],
        pinned=bool(row[6]),
        source=row[7],
        uses=row[8],
        wins=row[9],
        losses=row[10],
        created_at=row[11],
        updated_at=row[12],
        last_used=row[13],
        last_success=row[14],
    )


def _episode(row: Sequence[Any]) -> Episode:
    return Episode(
        id=row[0],
        session_id=row[1],
        scope=row[2],
        goal=row[3],
        success=bool(row[4]),
        stopped=row[5],
        steps=row[6],
        elapsed=row[7],
        approvals=row[8],
        tokens=row[9],
        corrections=row[10],
        undos=row[11],
        retries=row[12],
        tools_used=json.loads(row[13]),
        error_kind=row[14],
        rules_active=row[15],
        recalled=json.loads(row[16]),
        skills=json.loads(row[17]),
        started_at=row[18],
        ended_at=row[19],
        holdout=bool(row[20]),
    )


def _reason(error: BaseException, path: Path | None = None) -> str:
    message = str(error).lower()
    folder_read_only = path is not None and not os.access(path.parent, os.W_OK)
    if "readonly" in message or "read-only" in message or folder_read_only:
        return "its folder or file is read-only"
    if "disk is full" in message or "no space" in message:
        return "the disk is full"
    if "locked" in message or "busy" in message:
        return "another process held it locked for too long"
    return str(error)


def _unavailable(path: Path, error: BaseException) -> BrainUnavailable:
    reason = _reason(error, path)
    unavailable = BrainUnavailable(
        f"cannot write the brain at {path}: {reason}. Nothing was changed; "
        "free space or fix permissions, then try again."
    )
    unavailable.reason = reason
    return unavailable


class BrainStore:
    """Typed access to the brain file. Thread-safe; several processes may share the file."""

    def __init__(self, path: Path | str, *, busy_timeout_ms: int = 10_000) -> None:
        self.path = Path(path)
        self.notices: list[str] = []
        """Things the user should be told about opening this brain (e.g. a corrupt file)."""
        self.read_only = False
        """True when the brain could only be opened for reading (see ``_open_read_only``)."""
        self._lock = threading.RLock()
        self._busy_timeout_ms = busy_timeout_ms
        self._conn = self._open()

    # -- opening ---------------------------------------------------------- #

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(
            self.path, isolation_level=None, check_same_thread=False, timeout=30.0
        )
        conn.execute(f"PRAGMA busy_timeout = {int(self._busy_timeout_ms)}")
        conn.execute("PRAGMA foreign_keys = ON")
        return conn

    def _open(self) -> sqlite3.Connection:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise BrainUnavailable(
                f"cannot create the brain folder {self.path.parent}: {error}"
            ) from error
        try:
            conn = self._connect()
            self._prepare(conn)
            return conn
        except BrainError:
            raise
        except sqlite3.DatabaseError as error:
            if not self._looks_corrupt(error):
                return self._open_read_only(error)
            moved = self._move_aside()
            self.notices.append(
                f"The brain file {self.path} was damaged ({error}). It was moved to "
                f"{moved} (not deleted) and a fresh brain was started."
            )
            conn = self._connect()
            self._prepare(conn)
            return conn

    def _open_read_only(self, error: sqlite3.DatabaseError) -> sqlite3.Connection:
        """Fall back to reading a brain we cannot write (read-only folder, full disk).

        What the user taught stays visible (hover, playbooks); writes fail with a
        clear message until the cause is fixed. A missing file cannot be read
        either, so then the error stands.
        """
        if not self.path.exists():
            raise _unavailable(self.path, error) from error
        uri = f"file:{quote(str(self.path.resolve()))}?immutable=1"
        try:
            conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            conn.execute("SELECT count(*) FROM lessons WHERE id = -1").fetchone()
        except sqlite3.DatabaseError:
            raise _unavailable(self.path, error) from error
        if version != SCHEMA_VERSION:
            conn.close()
            raise _unavailable(self.path, error)
        self.read_only = True
        self.notices.append(
            f"Comodor cannot write its brain at {self.path} ({_reason(error, self.path)}). "
            "It shows what it already knows but learns nothing new until that is fixed."
        )
        return conn

    @staticmethod
    def _looks_corrupt(error: sqlite3.DatabaseError) -> bool:
        message = str(error).lower()
        return any(
            phrase in message
            for phrase in ("not a database", "malformed", "corrupt", "file is encrypted")
        )

    def _move_aside(self) -> Path:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        target = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
        counter = 1
        while target.exists():
            target = self.path.with_name(f"{self.path.name}.corrupt-{stamp}-{counter}")
            counter += 1
        self.path.rename(target)
        for suffix in ("-wal", "-shm"):
            companion = self.path.with_name(self.path.name + suffix)
            if companion.exists():
                companion.rename(target.with_name(target.name + suffix))
        return target

    def _prepare(self, conn: sqlite3.Connection) -> None:
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()
        if mode is None:
            raise sqlite3.DatabaseError("file is not a database")
        conn.execute("PRAGMA synchronous = NORMAL")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            conn.close()
            raise BrainError(
                f"the brain at {self.path} was written by a newer Comodor (schema "
                f"{version}, this one knows {SCHEMA_VERSION}); upgrade Comodor to use it"
            )
        if version == 0:
            # A fresh file, or something that is not ours: check before writing.
            tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            if tables:
                conn.execute("SELECT 1 FROM meta LIMIT 1")  # raises if it isn't a brain
        for index in range(version, SCHEMA_VERSION):
            conn.execute("BEGIN IMMEDIATE")
            if conn.execute("PRAGMA user_version").fetchone()[0] > index:
                conn.execute("COMMIT")  # another process migrated meanwhile
                continue
            self._migrate(conn, index)
        # Touch the schema so a damaged file fails here, at open, not at first use.
        conn.execute("SELECT count(*) FROM lessons WHERE id = -1").fetchone()

    @staticmethod
    def _migrate(conn: sqlite3.Connection, index: int) -> None:
        statements = [part for part in _split_sql(MIGRATIONS[index]) if part.strip()]
        try:
            for statement in statements:
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {index + 1}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    # -- transactions ----------------------------------------------------- #

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; rolled back entirely on any error."""
        with self._lock:
            try:
                self._conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as error:
                raise _unavailable(self.path, error) from error
            try:
                yield self._conn
                self._conn.execute("COMMIT")
            except sqlite3.Error as error:
                with contextlib.suppress(sqlite3.Error):
                    self._conn.execute("ROLLBACK")
                raise _unavailable(self.path, error) from error
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    self._conn.execute("ROLLBACK")
                raise

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        with self._lock:
            return self._conn.execute(sql, params).fetchall()

    def close(self) -> None:
        with self._lock:
            with contextlib.suppress(sqlite3.Error):
                self._conn.execute("PRAGMA optimize")
            self._conn.close()

    def data_version(self) -> int:
        """Changes whenever *another* connection commits; a cheap staleness check."""
        return int(self._read("PRAGMA data_version")[0][0])

    def integrity_check(self) -> str:
        return str(self._read("PRAGMA integrity_check")[0][0])

    def get_meta(self, key: str) -> str | None:
        rows = self._read("SELECT value FROM meta WHERE key = ?", (key,))
        return str(rows[0][0]) if rows else None

    def set_meta(self, key: str, value: str) -> None:
        with self._write() as conn:
            conn.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?)"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    # -- lessons ---------------------------------------------------------- #

    def add_lesson(self, lesson: Lesson, terms: str) -> Lesson:
        with self._write() as conn:
            cursor = conn.execute(_INSERT_LESSON, _lesson_row(lesson, terms))
        lesson.id = int(cursor.lastrowid or 0)
        return lesson

    def add_lessons(self, lessons: Iterable[tuple[Lesson, str]]) -> int:
        """Bulk insert in one transaction (imports, benchmarks)."""
        rows = [_lesson_row(lesson, terms) for lesson, terms in lessons]
        with self._write() as conn:
            conn.executemany(_INSERT_LESSON, rows)
        return len(rows)

    def get_lessons(self, ids: Sequence[int]) -> list[Lesson]:
        """Lessons by id, in the order asked; missing ids are skipped."""
        if not ids:
            return []
        marks = ",".join("?" * len(ids))
        rows = self._read(f"SELECT {_LESSON_COLUMNS} FROM lessons WHERE id IN ({marks})", ids)
        by_id = {row[0]: _lesson(row) for row in rows}
        return [by_id[lesson_id] for lesson_id in ids if lesson_id in by_id]

    def get_lesson(self, lesson_id: int) -> Lesson | None:
        found = self.get_lessons([lesson_id])
        return found[0] if found else None

    def lessons(self, scopes: Sequence[str], limit: int = 1_000_000) -> list[Lesson]:
        marks = ",".join("?" * len(scopes))
        rows = self._read(
            f"SELECT {_LESSON_COLUMNS} FROM lessons WHERE scope IN ({marks})"
            " ORDER BY pinned DESC, updated_at DESC, id DESC LIMIT ?",
            [*scopes, limit],
        )
        return [_lesson(row) for row in rows]

    def count_lessons(self, scopes: Sequence[str]) -> int:
        marks = ",".join("?" * len(scopes))
        return int(
            self._read(f"SELECT count(*) FROM lessons WHERE scope IN ({marks})", scopes)[0][0]
        )

    def search_lessons(
        self, match: str, scopes: Sequence[str], limit: int
    ) -> list[tuple[Lesson, float]]:
        """Full-text search (FTS5 ``MATCH`` expression), best bm25 first."""
        marks = ",".join("?" * len(scopes))
        columns = ", ".join(f"l.{name.strip()}" for name in _LESSON_COLUMNS.split(","))
        rows = self._read(
            f"SELECT {columns}, bm25(lessons_fts) FROM lessons_fts"
            f" JOIN lessons l ON l.id = lessons_fts.rowid"
            f" WHERE lessons_fts MATCH ? AND l.scope IN ({marks})"
            f" ORDER BY bm25(lessons_fts) LIMIT ?",
            [match, *scopes, limit],
        )
        return [(_lesson(row[:-1]), -float(row[-1])) for row in rows]

    def index_rows(self, lesson_ids: Sequence[int] | None = None) -> list[tuple[Any, ...]]:
        """Rows the recall index is built from: id, scope, terms, trust inputs, pinned."""
        sql = (
            "SELECT id, scope, terms, confidence, wins, losses, created_at, last_success, pinned"
            " FROM lessons"
        )
        if lesson_ids is None:
            return self._read(sql)
        marks = ",".join("?" * len(lesson_ids))
        return self._read(f"{sql} WHERE id IN ({marks})", lesson_ids)

    def iter_index_rows(self, batch: int = 2000) -> Iterator[tuple[Any, ...]]:
        """Every lesson's index row, streamed in batches to keep the peak memory low."""
        last = 0
        while True:
            rows = self._read(
                "SELECT id, scope, terms, confidence, wins, losses, created_at, last_success,"
                " pinned FROM lessons WHERE id > ? ORDER BY id LIMIT ?",
                (last, batch),
            )
            yield from rows
            if len(rows) < batch:
                return
            last = rows[-1][0]

    def lesson_log_since(self, rev: int) -> tuple[int, list[int]]:
        """Lessons changed after ``rev`` (by any process) and the newest rev."""
        rows = self._read(
            "SELECT rev, lesson_id FROM lesson_log WHERE rev > ? ORDER BY rev", (rev,)
        )
        if not rows:
            return rev, []
        return rows[-1][0], list(dict.fromkeys(row[1] for row in rows))

    def lesson_log_head(self) -> int:
        return int(self._read("SELECT coalesce(max(rev), 0) FROM lesson_log")[0][0])

    def update_lesson_text(self, lesson_id: int, trigger: str, guidance: str, terms: str) -> None:
        with self._write() as conn:
            conn.execute(
                "UPDATE lessons SET trigger = ?, guidance = ?, terms = ?, updated_at = ?"
                " WHERE id = ?",
                (trigger, guidance, terms, time.time(), lesson_id),
            )

    def reinforce(self, lesson_id: int, boost: float, ceiling: float) -> None:
        """Seeing a lesson restated is evidence for it: raise its prior, atomically."""
        with self._write() as conn:
            conn.execute(
                "UPDATE lessons SET confidence = min(?, confidence + ?), updated_at = ?"
                " WHERE id = ?",
                (ceiling, boost, time.time(), lesson_id),
            )

    def set_pinned(self, lesson_id: int, pinned: bool) -> bool:
        with self._write() as conn:
            cursor = conn.execute(
                "UPDATE lessons SET pinned = ?, updated_at = ? WHERE id = ?",
                (int(pinned), time.time(), lesson_id),
            )
        return cursor.rowcount > 0

    def delete_lesson(self, lesson_id: int) -> bool:
        with self._write() as conn:
            cursor = conn.execute("DELETE FROM lessons WHERE id = ?", (lesson_id,))
        return cursor.rowcount > 0

    def delete_lessons(self, ids: Sequence[int]) -> int:
        if not ids:
            return 0
        with self._write() as conn:
            conn.executemany("DELETE FROM lessons WHERE id = ?", [(i,) for i in ids])
        return len(ids)

    def credit(self, ids: Sequence[int], won: bool, now: float | None = None) -> None:
        """Share a task's outcome with the lessons it recalled, as atomic increments."""
        if not ids:
            return
        now = time.time() if now is None else now
        with self._write() as conn:
            if won:
                conn.executemany(
                    "UPDATE lessons SET wins = wins + 1, last_success = ?, updated_at = ?"
                    " WHERE id = ?",
                    [(now, now, lesson_id) for lesson_id in ids],
                )
            else:
                conn.executemany(
                    "UPDATE lessons SET losses = losses + 1, updated_at = ? WHERE id = ?",
                    [(now, lesson_id) for lesson_id in ids],
                )

    def mark_used(self, ids: Sequence[int], now: float | None = None) -> None:
        if not ids:
            return
        now = time.time() if now is None else now
        with self._write() as conn:
            conn.executemany(
                "UPDATE lessons SET uses = uses + 1, last_used = ? WHERE id = ?",
                [(now, lesson_id) for lesson_id in ids],
            )

    def prune_lesson_log(self, keep: int = 50_000) -> None:
        with self._write() as conn:
            conn.execute(
                "DELETE FROM lesson_log"
                " WHERE rev < (SELECT coalesce(max(rev), 0) FROM lesson_log) - ?",
                (keep,),
            )

    # -- rules ------------------------------------------------------------ #

    def rule_id(
        self, conn: sqlite3.Connection, key: str, scope: str, language: str | None, category: str
    ) -> int:
        """The id of a rule dimension, created if new (call inside :meth:`_write`)."""
        now = time.time()
        conn.execute(
            "INSERT INTO rules (key, scope, language, category, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (key, scope, language) DO NOTHING",
            (key, scope, language or "", category, now, now),
        )
        row = conn.execute(
            "SELECT id FROM rules WHERE key = ? AND scope = ? AND language = ?",
            (key, scope, language or ""),
        ).fetchone()
        return int(row[0])

    def add_votes(
        self,
        votes: Sequence[tuple[str, str, str | None, str, VoteRow]],
        replace_origin: str | None = None,
        replace_scope: str | None = None,
    ) -> list[int]:
        """Store votes ``(key, scope, language, category, vote)``; return the touched rule ids.

        A vote is unique per (rule, origin, value): the same correction counted
        twice stays one vote. With ``replace_origin``, every earlier vote from that
        origin in ``replace_scope`` is removed first, in the same transaction, so a
        re-scan replaces its previous votes instead of adding to them.
        """
        touched: list[int] = []
        now = time.time()
        with self._write() as conn:
            if replace_origin is not None:
                old = conn.execute(
                    "SELECT DISTINCT v.rule_id FROM rule_votes v JOIN rules r ON r.id = v.rule_id"
                    " WHERE v.origin = ? AND r.scope = ?",
                    (replace_origin, replace_scope),
                ).fetchall()
                touched.extend(row[0] for row in old)
                conn.execute(
                    "DELETE FROM rule_votes WHERE origin = ? AND rule_id IN"
                    " (SELECT id FROM rules WHERE scope = ?)",
                    (replace_origin, replace_scope),
                )
            for key, scope, language, category, vote in votes:
                rule_id = self.rule_id(conn, key, scope, language, category)
                conn.execute(
                    "INSERT INTO rule_votes (rule_id, value, statement, kind, weight, origin,"
                    " detail, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
                    " ON CONFLICT (rule_id, origin, value) DO UPDATE SET"
                    " statement = excluded.statement, weight = excluded.weight,"
                    " detail = excluded.detail",
                    (
                        rule_id,
                        vote.value,
                        vote.statement,
                        vote.kind,
                        vote.weight,
                        vote.origin,
                        vote.detail,
                        vote.created_at,
                    ),
                )
                conn.execute("UPDATE rules SET updated_at = ? WHERE id = ?", (now, rule_id))
                touched.append(rule_id)
            if replace_origin is not None:
                # A dimension left with no votes at all is noise from an old scan.
                conn.execute(
                    "DELETE FROM rules WHERE scope = ? AND NOT pinned AND id NOT IN"
                    " (SELECT rule_id FROM rule_votes)",
                    (replace_scope,),
                )
        return list(dict.fromkeys(touched))

    def rules(
        self, scopes: Sequence[str] | None = None, ids: Sequence[int] | None = None
    ) -> list[RuleRow]:
        clauses: list[str] = []
        params: list[Any] = []
        if scopes is not None:
            clauses.append(f"scope IN ({','.join('?' * len(scopes))})")
            params.extend(scopes)
        if ids is not None:
            clauses.append(f"id IN ({','.join('?' * len(ids))})")
            params.extend(ids)
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        with self._lock:
            rule_rows = self._conn.execute(
                "SELECT id, key, scope, language, category, pinned, active, created_at,"
                f" updated_at FROM rules{where} ORDER BY id",
                params,
            ).fetchall()
            if not rule_rows:
                return []
            marks = ",".join("?" * len(rule_rows))
            vote_rows = self._conn.execute(
                "SELECT rule_id, value, statement, kind, weight, origin, detail, created_at"
                f" FROM rule_votes WHERE rule_id IN ({marks}) ORDER BY id",
                [row[0] for row in rule_rows],
            ).fetchall()
        votes: dict[int, list[VoteRow]] = {}
        for row in vote_rows:
            votes.setdefault(row[0], []).append(VoteRow(*row[1:]))
        return [
            RuleRow(
                id=row[0],
                key=row[1],
                scope=row[2],
                language=row[3] or None,
                category=row[4],
                pinned=bool(row[5]),
                active=bool(row[6]),
                created_at=row[7],
                updated_at=row[8],
                votes=tuple(votes.get(row[0], ())),
            )
            for row in rule_rows
        ]

    def set_rule_flags(
        self, rule_id: int, *, pinned: bool | None = None, active: bool | None = None
    ) -> bool:
        sets: list[str] = ["updated_at = ?"]
        params: list[Any] = [time.time()]
        if pinned is not None:
            sets.append("pinned = ?")
            params.append(int(pinned))
        if active is not None:
            sets.append("active = ?")
            params.append(int(active))
        with self._write() as conn:
            cursor = conn.execute(
                f"UPDATE rules SET {', '.join(sets)} WHERE id = ?", [*params, rule_id]
            )
        return cursor.rowcount > 0

    def delete_rule(self, rule_id: int) -> bool:
        with self._write() as conn:
            cursor = conn.execute("DELETE FROM rules WHERE id = ?", (rule_id,))
        return cursor.rowcount > 0

    # -- skills ----------------------------------------------------------- #

    def add_skill(self, skill: Skill) -> Skill:
        with self._write() as conn:
            cursor = conn.execute(
                "INSERT INTO skills (name, description, steps, scope, source, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (
                    skill.name,
                    skill.description,
                    json.dumps(skill.steps),
                    skill.scope,
                    skill.source,
                    skill.created_at,
                ),
            )
        skill.id = int(cursor.lastrowid or 0)
        return skill

    def skills(self, scopes: Sequence[str]) -> list[Skill]:
        marks = ",".join("?" * len(scopes))
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
        with self._write() as conn:
            conn.executemany(
                f"UPDATE skills SET {column} = {column} + 1, uses = uses + 1 WHERE id = ?",
                [(skill_id,) for skill_id in ids],
            )

    # -- episodes --------------------------------------------------------- #

    def open_episode(self, episode: Episode) -> Episode:
        with self._write() as conn:
            cursor = conn.execute(
                "INSERT INTO episodes (session_id, scope, goal, recalled, skills, rules_active,"
                " started_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
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
        episode.id = int(cursor.lastrowid or 0)
        return episode

    def mark_holdout(self, episode_id: int) -> None:
        """The task runs without memory: nothing recalled into it is credited or counted."""
        with self._write() as conn:
            conn.execute(
                "UPDATE episodes SET holdout = 1, recalled = '[]', skills = '[]',"
                " rules_active = 0 WHERE id = ?",
                (episode_id,),
            )

    def close_episode(self, episode: Episode) -> None:
        """Record the outcome; counters captured meanwhile (corrections, undos) are kept."""
        with self._write() as conn:
            conn.execute(
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
        rows = self._read(f"SELECT {_EPISODE_COLUMNS} FROM episodes WHERE id = ?", (episode_id,))
        return _episode(rows[0]) if rows else None

    def episodes(self, scope: str, *, ended: bool = True) -> list[Episode]:
        condition = "ended_at > 0" if ended else "1"
        rows = self._read(
            f"SELECT {_EPISODE_COLUMNS} FROM episodes WHERE scope = ? AND {condition}"
            " ORDER BY ended_at, id",
            (scope,),
        )
        return [_episode(row) for row in rows]

    def last_episode(self, scope: str, *, ended: bool) -> Episode | None:
        order = "ended_at DESC, id DESC" if ended else "id DESC"
        condition = "ended_at > 0" if ended else "1"
        rows = self._read(
            f"SELECT {_EPISODE_COLUMNS} FROM episodes WHERE scope = ? AND {condition}"
            f" ORDER BY {order} LIMIT 1",
            (scope,),
        )
        return _episode(rows[0]) if rows else None

    def bump_episode(self, episode_id: int, counter: str, amount: int = 1) -> None:
        if counter not in EPISODE_COUNTERS:
            raise ValueError(f"not an episode counter: {counter}")
        with self._write() as conn:
            conn.execute(
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
        with self._write() as conn:
            cursor = conn.execute(
                "INSERT INTO signals (kind, scope, episode_id, path, detail, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (kind, scope, episode_id, path, detail, time.time()),
            )
        return int(cursor.lastrowid or 0)

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
        with self._write() as conn:
            conn.execute(
                "INSERT INTO feedback (target, target_id, value, note, created_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (target, target_id, value, note, time.time()),
            )

    # -- agent writes (checkpoints) ---------------------------------------- #

    def add_agent_write(
        self,
        scope: str,
        path: str,
        before_hash: str,
        after_hash: str,
        created: bool,
        episode_id: int | None,
    ) -> int:
        with self._write() as conn:
            cursor = conn.execute(
                "INSERT INTO agent_writes (scope, path, before_hash, after_hash, created,"
                " episode_id, last_hash, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    scope,
                    path,
                    before_hash,
                    after_hash,
                    int(created),
                    episode_id,
                    after_hash,
                    time.time(),
                ),
            )
        return int(cursor.lastrowid or 0)

    def last_agent_write(self, scope: str, path: str) -> AgentWrite | None:
        rows = self._read(
            "SELECT id, scope, path, before_hash, after_hash, created, episode_id, status,"
            " last_hash, created_at FROM agent_writes WHERE scope = ? AND path = ?"
            " ORDER BY id DESC LIMIT 1",
            (scope, path),
        )
        if not rows:
            return None
        row = rows[0]
        return AgentWrite(
            row[0], row[1], row[2], row[3], row[4], bool(row[5]), row[6], row[7], row[8], row[9]
        )

    def update_agent_write(
        self, write_id: int, *, status: str | None = None, last_hash: str | None = None
    ) -> None:
        with self._write() as conn:
            if status is not None:
                conn.execute("UPDATE agent_writes SET status = ? WHERE id = ?", (status, write_id))
            if last_hash is not None:
                conn.execute(
                    "UPDATE agent_writes SET last_hash = ? WHERE id = ?", (last_hash, write_id)
                )

    def agent_written_paths(self, scope: str) -> set[str]:
        rows = self._read("SELECT DISTINCT path FROM agent_writes WHERE scope = ?", (scope,))
        return {str(row[0]) for row in rows}

    def count_agent_writes(self, scope: str) -> int:
        return int(self._read("SELECT count(*) FROM agent_writes WHERE scope = ?", (scope,))[0][0])

    def referenced_hashes(self) -> set[str]:
        rows = self._read("SELECT before_hash, after_hash FROM agent_writes")
        return {value for row in rows for value in row if value}

    def prune_agent_writes(self, older_than: float) -> int:
        with self._write() as conn:
            cursor = conn.execute("DELETE FROM agent_writes WHERE created_at < ?", (older_than,))
        return cursor.rowcount


def _split_sql(script: str) -> list[str]:
    """Split a migration into statements, keeping ``CREATE TRIGGER … END;`` whole."""
    statements: list[str] = []
    current: list[str] = []
    for line in script.splitlines():
        current.append(line)
        candidate = "\n".join(current).strip()
        if candidate.endswith(";") and sqlite3.complete_statement(candidate):
            statements.append(candidate)
            current = []
    if "\n".join(current).strip():
        statements.append("\n".join(current))
    return statements
