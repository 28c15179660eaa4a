"""The SQLite backend: the brain file itself, its migrations, transactions, two connections.

Why SQLite: it is a single file the user owns, it survives ``kill -9`` (WAL with
``synchronous=NORMAL`` keeps every committed transaction through a process
crash), and several processes (the language server, the MCP server, the CLI)
can use it at once: WAL lets readers and one writer proceed together and the
busy timeout queues writers.

Why two connections: a write may wait up to the busy timeout for another
process's lock. Reads must not queue behind it, so they use a second
connection of their own (WAL lets it read the last committed state while the
writer waits), each connection behind its own lock.

Rules of the store:

* Counters change in SQL (``wins = wins + 1``), never read-modify-write in
  Python: two processes crediting the same lesson must both count.
* Every write is one transaction; a failure rolls back and leaves nothing half
  written.
* A file that is not a database, or is damaged, is moved aside (never deleted)
  and a fresh brain is started; :attr:`Database.notices` says so, and the
  caller tells the user.
* A brain that cannot be written (read-only folder, full disk) raises
  :class:`BrainUnavailable` with a message a user can act on; reads keep working.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ..errors import BrainError, BrainUnavailable
from ..recall.text import terms, trigger_prefix
from ..user_name import current_user
from .backend import StoreBase
from .file_identity import Identity, classify, identify
from .salvage import describe, salvage
from .sqlite_schema import COMPATIBLE_FROM, MIGRATIONS, SCHEMA_VERSION, usable_by


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


def unavailable(path: Path, error: BaseException) -> BrainUnavailable:
    """The user-facing error for a write the brain file refused."""
    reason = _reason(error, path)
    failure = BrainUnavailable(
        f"cannot write the brain at {path}: {reason}. Nothing was changed; "
        "free space or fix permissions, then try again."
    )
    failure.reason = reason
    return failure


def _index_terms(text: object) -> str:
    """``comodor_terms(text)`` for migrations: a lesson's terms, as ``lessons.terms`` holds them."""
    return " ".join(terms(str(text or "")))


def _trigger_prefix(trigger: object, stored: object) -> int:
    """``comodor_trigger_prefix(trigger, terms)`` for migrations: see ``text.trigger_prefix``."""
    return trigger_prefix(str(trigger or ""), str(stored or "").split())


def split_sql(script: str) -> list[str]:
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


def compatible_from(conn: sqlite3.Connection, version: int) -> int:
    """The oldest schema whose Comodor may use this file (``version`` if not recorded)."""
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = 'compatible_from'").fetchone()
    except sqlite3.OperationalError:  # no meta table: nothing was recorded
        return version
    try:
        return int(row[0]) if row else version
    except ValueError:  # not a number: trust only what we know
        return version


class Database(StoreBase):
    """One brain file: a write connection, a read connection, migrations, meta."""

    def __init__(self, path: Path | str, *, busy_timeout_ms: int = 10_000, voter: str = "") -> None:
        self.path = Path(path)
        self.voter = voter or current_user()
        self.notices: list[str] = []
        """Things the user should be told about opening this brain (e.g. a corrupt file)."""
        self.read_only = False
        """True when the brain could only be opened for reading (see ``_open_read_only``)."""
        self._lock = threading.RLock()
        self._read_lock = threading.Lock()
        self._busy_timeout_ms = busy_timeout_ms
        self._conn = self._open()
        self._reader = self._conn if self.read_only else self._connect()
        self._seen_version = self.data_version()
        self._reader_version = self._read_version()

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
        # Another program's database is refused here, before a connection that could write.
        identity = identify(self.path)
        try:
            conn = self._connect()
            self._prepare(conn, identity)
            return conn
        except BrainError:
            raise
        except sqlite3.DatabaseError as error:
            if not self._looks_corrupt(error):
                return self._open_read_only(error)
            return self._start_over(str(error))

    def _start_over(self, problem: str) -> sqlite3.Connection:
        """Set the damaged file aside, start a fresh one, and salvage what can be read."""
        moved = self._move_aside()
        conn = self._connect()
        self._prepare(conn)
        saved = salvage(moved, conn)
        self.notices.append(
            f"The brain file {self.path} was damaged ({problem}). It was moved to "
            f"{moved} (not deleted) and a fresh brain was started; {describe(saved)}."
        )
        return conn

    def recover_if_damaged(self) -> str | None:
        """Check every page; if any is damaged, salvage into a fresh file now. Say what happened.

        Opening only touches the pages it needs, so a damaged page deep in a
        table shows up later, in the middle of some query. Hosts call this once
        in the background after opening (``PRAGMA quick_check`` reads the whole
        file: about 40 ms for 50,000 lessons). The pages it read stay in the read
        connection's cache for good unless released (``shrink_memory``): about
        1 MB of an idle server's memory, for pages no query asked for.
        """
        if self.read_only:
            return None
        with self._read_lock:
            try:
                verdict = str(self._reader.execute("PRAGMA quick_check(1)").fetchone()[0])
            except sqlite3.DatabaseError as error:
                verdict = str(error)
            else:
                self._reader.execute("PRAGMA shrink_memory")
        if verdict == "ok":
            return None
        with self._lock, self._read_lock:
            for conn in {id(self._conn): self._conn, id(self._reader): self._reader}.values():
                with contextlib.suppress(sqlite3.Error):
                    conn.close()
            self._conn = self._start_over(verdict)
            self._reader = self._connect()
            self._seen_version = self.data_version()
            self._reader_version = self._read_version_unlocked()
        return self.notices[-1]

    def _open_read_only(self, error: sqlite3.DatabaseError) -> sqlite3.Connection:
        """Fall back to reading a brain we cannot write (read-only folder, full disk).

        What the user taught stays visible (hover, playbooks); writes fail with a
        clear message until the cause is fixed. A missing file cannot be read
        either, so then the error stands.
        """
        if not self.path.exists():
            raise unavailable(self.path, error) from error
        uri = f"file:{quote(str(self.path.resolve()))}?immutable=1"
        try:
            conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
            classify(conn, self.path)  # another program's file is refused, even read-only
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            conn.execute("SELECT count(*) FROM lessons WHERE id = -1").fetchone()
        except BrainError:
            conn.close()
            raise
        except sqlite3.DatabaseError:
            raise unavailable(self.path, error) from error
        if not usable_by(SCHEMA_VERSION, version, compatible_from(conn, version)):
            # an older file cannot be migrated read-only; a newer one must agree
            conn.close()
            raise unavailable(self.path, error)
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

    def _prepare(self, conn: sqlite3.Connection, identity: Identity | None = None) -> None:
        conn.create_function("comodor_terms", 1, _index_terms, deterministic=True)
        conn.create_function("comodor_trigger_prefix", 2, _trigger_prefix, deterministic=True)
        if identity is None:  # no read-only look was possible: judge before the first write
            try:
                classify(conn, self.path)
            except BrainError:
                conn.close()
                raise
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()
        if mode is None:
            raise sqlite3.DatabaseError("file is not a database")
        conn.execute("PRAGMA synchronous = NORMAL")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION and not usable_by(
            SCHEMA_VERSION, version, compatible_from(conn, version)
        ):
            conn.close()
            raise BrainError(
                f"the brain at {self.path} was written by a newer Comodor (schema "
                f"{version}, this one knows {SCHEMA_VERSION}); upgrade Comodor to use it"
            )
        if version < SCHEMA_VERSION:
            # A migration may rebuild a parent table (DROP, then RENAME): with foreign
            # keys on, dropping ``rules`` would delete every vote through ON DELETE
            # CASCADE. The pragma is a no-op inside a transaction, so it is turned off
            # here, around them all; each migration checks the keys before it commits.
            conn.execute("PRAGMA foreign_keys = OFF")
            try:
                for index in range(version, SCHEMA_VERSION):
                    conn.execute("BEGIN IMMEDIATE")
                    if conn.execute("PRAGMA user_version").fetchone()[0] > index:
                        conn.execute("COMMIT")  # another process migrated meanwhile
                        continue
                    self._migrate(conn, index)
            except BrainError:
                conn.close()
                raise
            finally:
                with contextlib.suppress(sqlite3.ProgrammingError):  # closed above
                    conn.execute("PRAGMA foreign_keys = ON")
        # Touch the schema so a damaged file fails here, at open, not at first use.
        conn.execute("SELECT count(*) FROM lessons WHERE id = -1").fetchone()

    def _migrate(self, conn: sqlite3.Connection, index: int) -> None:
        """Run migration ``index`` in the open transaction; commit only if no key broke.

        Rows that already pointed at nothing before (a brain salvaged from damage, or
        written by a tool with foreign keys off) do not stop the upgrade: only rows
        this migration would orphan do.
        """
        statements = [part for part in split_sql(MIGRATIONS[index]) if part.strip()]
        try:
            already = len(conn.execute("PRAGMA foreign_key_check").fetchall())
            for statement in statements:
                conn.execute(statement)
            broken = conn.execute("PRAGMA foreign_key_check").fetchall()
            if len(broken) > already:
                table, row, parent = broken[0][0], broken[0][1], broken[0][2]
                orphaned = len(broken) - already
                raise BrainError(
                    f"upgrading the brain at {self.path} to schema {index + 1} would leave "
                    f"{orphaned} row(s) pointing at nothing (first: {table} row {row} -> "
                    f"{parent}). That step was undone and the file left as it was; report "
                    "this as a Comodor bug."
                )
            conn.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('compatible_from', ?)",
                (str(min(COMPATIBLE_FROM, index + 1)),),
            )
            conn.execute(f"PRAGMA user_version = {index + 1}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    # -- transactions ----------------------------------------------------- #

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction on the write connection; rolled back entirely on any error."""
        with self._lock:
            try:
                self._conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as error:
                raise unavailable(self.path, error) from error
            try:
                yield self._conn
                self._conn.execute("COMMIT")
            except sqlite3.Error as error:
                with contextlib.suppress(sqlite3.Error):
                    self._conn.execute("ROLLBACK")
                raise unavailable(self.path, error) from error
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    self._conn.execute("ROLLBACK")
                raise

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """One query on the read connection: never waits for a writer's lock."""
        with self._read_lock:
            return self._reader.execute(sql, params).fetchall()

    @contextlib.contextmanager
    def _snapshot(self) -> Iterator[sqlite3.Connection]:
        """Several reads that must see one committed state (one read transaction)."""
        with self._read_lock:
            self._reader.execute("BEGIN")
            try:
                yield self._reader
            finally:
                self._reader.execute("COMMIT")

    def _search_rows(
        self, columns: str, words: Sequence[str], scopes: Sequence[str], limit: int
    ) -> list[Any]:
        """FTS5: any of the quoted words (so nothing in them is syntax), best ``bm25`` first."""
        match = " OR ".join(f'"{word}"' for word in words)
        marks = ",".join("?" * len(scopes))
        return self._read(
            f"SELECT {columns}, -bm25(lessons_fts) FROM lessons_fts"
            f" JOIN lessons l ON l.id = lessons_fts.rowid"
            f" WHERE lessons_fts MATCH ? AND l.scope IN ({marks})"
            f" ORDER BY bm25(lessons_fts) LIMIT ?",
            [match, *scopes, limit],
        )

    @property
    def location(self) -> str:
        """Where this brain is, as a user would name it."""
        return str(self.path)

    def close(self) -> None:
        # No ``PRAGMA optimize`` here: it runs ANALYZE, a schema change, and with
        # SQLite 3.40 another process's next insert into the lessons (whose
        # triggers write the FTS5 index) could then fail with "no such table:
        # lessons" (seen in tests/brain/test_store.py, four writers at once).
        with self._lock:
            if self._reader is not self._conn:
                with self._read_lock:
                    self._reader.close()
            self._conn.close()

    # -- other processes -------------------------------------------------- #

    def data_version(self) -> int:
        """Changes whenever another connection commits (cheap: no file read)."""
        with self._lock:
            return int(self._conn.execute("PRAGMA data_version").fetchone()[0])

    def changed_elsewhere(self) -> bool:
        """Whether another process committed since the last call (ours do not count).

        ``data_version`` of the write connection moves only for commits made by
        other connections, and our read connection never writes, so a change is
        always another process's.
        """
        version = self.data_version()
        changed = version != self._seen_version
        self._seen_version = version
        return changed

    def _read_version(self) -> int:
        with self._read_lock:
            return self._read_version_unlocked()

    def _read_version_unlocked(self) -> int:
        return int(self._reader.execute("PRAGMA data_version").fetchone()[0])

    def committed_since_last_look(self) -> bool:
        """Whether anyone (we included) committed since the last call; never waits for a lock.

        Asked on the read connection, which every other connection's commits move
        (our write connection's too), so a read can check its caches are current
        without queueing behind a writer.
        """
        version = self._read_version()
        changed = version != self._reader_version
        self._reader_version = version
        return changed

    def integrity_check(self) -> str:
        return str(self._read("PRAGMA integrity_check")[0][0])
