"""The PostgreSQL backend: a team's database, for what a team shares.

Why PostgreSQL: a team that outgrows one laptop already runs one, knows how to back
it up, secure it and watch it; Comodor needs no server of its own. psycopg 3 with a
small pool (``psycopg-pool``) talks to it; the table code is the same as for the
SQLite file (see :mod:`comodor.brain.store.backend`): this module turns ``?`` into ``%s``
and supplies the three transaction shapes.

* **Writes** run in one explicit transaction on a pooled connection. A writer that
  is already inside a transaction on this thread joins it (:meth:`PostgresDatabase.
  _write` is re-entrant), which is how the outbox sends an operation and its receipt
  atomically.
* **Reads** are single autocommit statements; :meth:`~PostgresDatabase._snapshot`
  is one ``REPEATABLE READ`` read-only transaction.
* **Full-text search** is the ``fts`` column (``to_tsvector('english', …)``, kept by a
  trigger only when the text changes) with ``ts_rank``.
* **Freshness**: every connection sets ``comodor.origin`` to this store's token, and
  the schema's triggers send it with ``NOTIFY`` (see :mod:`comodor.teamdb.postgres_schema`).

Secrets: the password comes from ``PGPASSWORD`` or ``~/.pgpass`` (libpq reads both);
a URL that carries one anyway is shown only through :func:`redact_url`. Connecting
never hangs: libpq's ``connect_timeout`` bounds it, and a refused login is a
:class:`~comodor.brain.errors.BrainUnavailable` that names the cause.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ..brain.errors import BrainError, BrainUnavailable
from ..brain.store.backend import StoreBase, Tx
from ..brain.store.lesson_table import LessonRows
from ..brain.store.rule_table import RuleRows
from ..brain.store.sqlite_schema import usable_by
from ..brain.user_name import current_user
from .postgres_schema import (
    MIGRATION_LOCK,
    TEAM_COMPATIBLE_FROM,
    TEAM_MIGRATIONS,
    TEAM_SCHEMA_VERSION,
)
from .retention import ArchiveRows

log = logging.getLogger(__name__)

CONNECT_TIMEOUT_S = 3
"""How long opening one connection may take before the database counts as unreachable."""
POOL_TIMEOUT_S = 4.0
"""How long a call waits for a pooled connection (a dead server fails faster: refused)."""
POOL_SIZE = 1
"""Pooled connections per server: one writer (and reader); the listener is the other.

PostgreSQL's ``max_connections`` (100 by default, 3 of them kept for superusers) is
the team's budget: at two per server it holds 48 editors, at five (a pool that grew
to four under load, plus the listener) only 19, and a server refused its listener
connection hears no change. Callers on other threads wait for the one connection
(statements are short: reads are single statements or one snapshot, writes one
transaction) instead of opening more.
"""
URL_SCHEMES = ("postgresql", "postgres")
RECEIPT_DAYS = 30
"""How long a receipt is kept: far longer than an outbox entry waits to be deleted."""


def is_database_url(url: str) -> bool:
    return urlsplit(url.strip()).scheme.lower() in URL_SCHEMES


def redact_url(url: str) -> str:
    """``url`` as it may be shown or logged: any password replaced by ``***``."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<an unreadable database URL>"
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    port = f":{parts.port}" if parts.port else ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}{port}"))


@functools.lru_cache(maxsize=512)
def to_pyformat(sql: str) -> str:
    """The shared dialect's ``?`` placeholders as psycopg's ``%s`` (``%`` escaped)."""
    return sql.replace("%", "%%").replace("?", "%s")


def describe(error: BaseException) -> str:
    """A connection error in words a user can act on (first line, no URL, no password)."""
    text = str(error).strip().splitlines()
    first = text[0] if text else type(error).__name__
    lowered = str(error).lower()
    if "password authentication failed" in lowered:
        return f"the database refused the login ({first}); check PGPASSWORD or ~/.pgpass"
    if "no password supplied" in lowered:
        return "the database wants a password; set PGPASSWORD or add it to ~/.pgpass"
    if "timeout" in lowered or "timed out" in lowered:
        return f"no answer within {CONNECT_TIMEOUT_S} s ({first})"
    return first


def refused_login(error: BaseException) -> bool:
    """Whether ``error`` says the login itself is wrong (no retry can fix it)."""
    lowered = str(error).lower()
    return any(
        phrase in lowered
        for phrase in (
            "password authentication failed",
            "no password supplied",
            "does not exist",
            "no pg_hba.conf entry",
        )
    )


class _Tx:
    """A psycopg connection seen through the shared dialect."""

    def __init__(self, conn: Any) -> None:
        self._conn = conn

    def execute(self, sql: str, parameters: Sequence[Any] = (), /) -> Any:
        return self._conn.execute(to_pyformat(sql), parameters or None)

    def executemany(self, sql: str, parameters: Any, /) -> Any:
        cursor = self._conn.cursor()
        cursor.executemany(to_pyformat(sql), list(parameters))
        return cursor


class PostgresDatabase(StoreBase):
    """A team database: a connection pool, migrations, the shared dialect, meta."""

    keeps_feedback = False  # feedback is personal: it stays in the member's brain file

    def __init__(
        self,
        url: str,
        *,
        origin: str = "",
        voter: str = "",
        min_size: int = POOL_SIZE,
        max_size: int = POOL_SIZE,
    ) -> None:
        import psycopg

        self.url = url
        self.voter = voter or current_user()
        self.notices: list[str] = []
        self.read_only = False
        self.origin = origin or uuid.uuid4().hex
        """This store's token: ``NOTIFY`` payloads carrying it are our own commits."""
        self._psycopg = psycopg
        self._local = threading.local()
        self._pruned = 0.0
        with self._connect() as conn:
            self._migrate(conn)
        self._sizes = (min_size, max_size)
        self._pool = self._new_pool()
        self._pool.open(wait=True, timeout=POOL_TIMEOUT_S)

    def _new_pool(self) -> Any:
        from psycopg_pool import ConnectionPool

        return ConnectionPool(
            self.url,
            min_size=self._sizes[0],
            max_size=self._sizes[1],
            kwargs=self.connect_options(),
            configure=self._configure,
            timeout=POOL_TIMEOUT_S,
            open=False,
            name="comodor-team",
        )

    # -- connections ------------------------------------------------------------ #

    @property
    def location(self) -> str:
        return redact_url(self.url)

    def connect_options(self) -> dict[str, Any]:
        return {
            "autocommit": True,
            "connect_timeout": CONNECT_TIMEOUT_S,
            "application_name": "comodor",
        }

    def _configure(self, conn: Any) -> None:
        conn.execute("SELECT set_config('comodor.origin', %s, false)", (self.origin,))

    def _connect(self) -> Any:
        """One connection of our own (migrations, the listener), or a clear error."""
        try:
            conn = self._psycopg.connect(self.url, **self.connect_options())
        except self._psycopg.Error as error:
            raise self.unreachable(error) from error
        self._configure(conn)
        return conn

    def unreachable(self, error: BaseException) -> BrainUnavailable:
        failure = BrainUnavailable(
            f"cannot reach the team database {self.location}: {describe(error)}"
        )
        failure.reason = describe(error)
        return failure

    def is_connection_error(self, error: BaseException) -> bool:
        """Whether ``error`` means the database is out of reach (not that a query is wrong)."""
        from psycopg_pool import PoolTimeout

        return isinstance(error, (self._psycopg.OperationalError, PoolTimeout))

    # -- migrations ------------------------------------------------------------- #

    def _migrate(self, conn: Any) -> None:
        """Bring the schema up to date; the first of several processes does it, once."""
        conn.execute("SELECT pg_advisory_lock(%s)", (MIGRATION_LOCK,))
        try:
            version = self.schema_version(conn)
            if version > TEAM_SCHEMA_VERSION:
                if not usable_by(TEAM_SCHEMA_VERSION, version, self.compatible_from(conn)):
                    raise BrainError(
                        f"the team database {self.location} was migrated by a newer Comodor "
                        f"(schema {version}, this one knows {TEAM_SCHEMA_VERSION}); "
                        "upgrade Comodor"
                    )
                log.info(
                    "the team database %s is at schema %d, newer than this Comodor's %d, "
                    "and says this one can still use it",
                    self.location,
                    version,
                    TEAM_SCHEMA_VERSION,
                )
                return
            for index in range(version, TEAM_SCHEMA_VERSION):
                with conn.transaction():
                    conn.execute(TEAM_MIGRATIONS[index])
                    for key, value in (
                        ("schema_version", index + 1),
                        ("compatible_from", min(TEAM_COMPATIBLE_FROM, index + 1)),
                    ):
                        conn.execute(
                            "INSERT INTO meta (key, value) VALUES (%s, %s)"
                            " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                            (key, str(value)),
                        )
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (MIGRATION_LOCK,))

    @staticmethod
    def schema_version(conn: Any) -> int:
        if conn.execute("SELECT to_regclass('meta')").fetchone()[0] is None:
            return 0
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        return int(row[0]) if row else 0

    @classmethod
    def compatible_from(cls, conn: Any) -> int:
        """The oldest schema whose Comodor may use this database (its own, if not recorded)."""
        version = cls.schema_version(conn)
        if version == 0:
            return 0
        row = conn.execute("SELECT value FROM meta WHERE key = 'compatible_from'").fetchone()
        return int(row[0]) if row else version

    # -- transactions ----------------------------------------------------------- #

    @contextlib.contextmanager
    def _write(self) -> Iterator[Tx]:
        """One transaction; inside another on this thread, part of that one."""
        current = getattr(self._local, "tx", None)
        if current is not None:
            yield current
            return
        with self._pool.connection() as conn, conn.transaction():
            tx = _Tx(conn)
            self._local.tx = tx
            try:
                yield tx
            finally:
                self._local.tx = None

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        current = getattr(self._local, "tx", None)
        if current is not None:  # read what this transaction wrote
            return list(current.execute(sql, params).fetchall())
        with self._pool.connection() as conn:
            return list(conn.execute(to_pyformat(sql), params or None).fetchall())

    @contextlib.contextmanager
    def _snapshot(self) -> Iterator[Tx]:
        current = getattr(self._local, "tx", None)
        if current is not None:
            yield current
            return
        with self._pool.connection() as conn, conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            tx = _Tx(conn)
            self._local.tx = tx  # a read inside joins it (the pool has one connection)
            try:
                yield tx
            finally:
                self._local.tx = None

    def _search_rows(
        self, columns: str, words: Sequence[str], scopes: Sequence[str], limit: int
    ) -> list[Any]:
        """Any of the words, stemmed like the ``fts`` column, best ``ts_rank`` first."""
        query = " || ".join("plainto_tsquery('english', ?)" for _ in words)
        marks = ",".join("?" * len(scopes))
        return self._read(
            f"SELECT {columns}, ts_rank(l.fts, q.query) AS score"
            f" FROM lessons l, (SELECT {query} AS query) q"
            f" WHERE l.fts @@ q.query AND l.scope IN ({marks})"
            " ORDER BY score DESC, l.id LIMIT ?",
            [*words, *scopes, limit],
        )

    def close(self) -> None:
        self._pool.close(timeout=1.0)

    # -- the outbox's receipts ------------------------------------------------------ #

    def send(self, op: str, apply: Callable[[], int | None]) -> tuple[bool, int | None]:
        """Apply ``op`` once: in one transaction with its receipt; (applied now, result).

        A receipt already there means an earlier send committed (and only its deletion
        from the outbox was lost): nothing is applied again, its result is returned.
        """
        with self._write() as tx:
            taken = tx.execute(
                "INSERT INTO receipts (op, sent_at) VALUES (?, ?)"
                " ON CONFLICT (op) DO NOTHING RETURNING op",
                (op, time.time()),
            ).fetchone()
            if taken is None:
                row = tx.execute("SELECT result FROM receipts WHERE op = ?", (op,)).fetchone()
                return False, (int(row[0]) if row and row[0] is not None else None)
            result = apply()
            if result is not None:
                tx.execute("UPDATE receipts SET result = ? WHERE op = ?", (result, op))
            if time.time() - self._pruned > RECEIPT_DAYS * 86_400 / 10:
                self._pruned = time.time()
                tx.execute(
                    "DELETE FROM receipts WHERE sent_at < ?",
                    (time.time() - RECEIPT_DAYS * 86_400,),
                )
        return True, result

    # -- health ----------------------------------------------------------------- #

    def ping(self) -> float:
        """Seconds for one round trip to the database (raises when it is unreachable)."""
        started = time.perf_counter()
        self._read("SELECT 1")
        return time.perf_counter() - started

    def reset(self) -> None:
        """After a connection error: drop broken connections, and answer now whether to retry.

        Left to itself the pool reconnects on its own backoff (1 s, doubling) and the next
        call waits up to :data:`POOL_TIMEOUT_S` for it: a write stalled 4 s when the server
        is down and seconds more after it is back. One connection of our own answers in
        milliseconds either way -- refused (raised here, so the caller goes offline at
        once) or let in (then the pool is renewed, as :meth:`revive` does).
        """
        self._pool.check()
        if self._pool.get_stats().get("pool_available", 0):
            return
        self._psycopg.connect(self.url, **self.connect_options()).close()
        self.revive()

    def revive(self) -> None:
        """The database answers again (our listener got in): reconnect the pool now.

        psycopg_pool reconnects a lost connection on its own, 1 s doubling, so after
        a 10 s outage its next try can be 5 to 20 s away while the database is long
        back; writes queued meanwhile would wait for it. A pool with no connection
        ready is replaced by a fresh one (a connection still lent out is closed when
        it comes back).
        """
        if self._pool.get_stats().get("pool_available", 0):
            return
        old, self._pool = self._pool, self._new_pool()
        self._pool.open(wait=False)
        old.close(timeout=0.0)

    def schema_state(self) -> tuple[int, bool]:
        """The database's schema, and whether this Comodor may use it.

        It may when the schema is its own, or newer and recorded as compatible with it.
        """
        with self._pool.connection() as conn:
            version = self.schema_version(conn)
            usable_from = self.compatible_from(conn)
        return version, usable_by(TEAM_SCHEMA_VERSION, version, usable_from)

    def integrity_check(self) -> str:
        version, usable = self.schema_state()
        return "ok" if usable else f"schema {version}"


class PostgresStore(LessonRows, RuleRows, ArchiveRows, PostgresDatabase):
    """The shared half of a team brain: lessons, skills, rules and votes in PostgreSQL."""

    def database_id(self) -> str:
        """The database's own random id (``meta.database_id``), made by the first to ask.

        A recall snapshot names it, so a snapshot of a dropped and recreated database,
        or of another one at the same address, is never taken for this one's.
        """
        found = self._read("SELECT value FROM meta WHERE key = 'database_id'")
        if found:  # the usual case: a read, no write at every start
            return str(found[0][0])
        with self._write() as tx:
            tx.execute(
                "INSERT INTO meta (key, value) VALUES ('database_id', ?)"
                " ON CONFLICT (key) DO NOTHING",
                (uuid.uuid4().hex,),
            )
            row = tx.execute("SELECT value FROM meta WHERE key = 'database_id'").fetchone()
        return str(row[0])
