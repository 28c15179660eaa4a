"""What every backend of the brain store provides, so the table code is written once.

The queries of the table groups (:mod:`.lessons`, :mod:`.rules`, :mod:`.episodes`,
:mod:`.checkpoints`) are written once, in the SQL that SQLite and PostgreSQL agree
on: ``?`` placeholders (the PostgreSQL backend turns them into ``%s``),
``INSERT … RETURNING id``, ``INSERT … ON CONFLICT … DO UPDATE SET … = excluded.…``,
``coalesce``, ``CASE``, integers for flags. They run through the three transaction
shapes of :class:`StoreBase` — :meth:`~StoreBase._write`, :meth:`~StoreBase._read`
and :meth:`~StoreBase._snapshot` — which each backend implements over its own driver
(:class:`~comodor.brain.store.database.Database` for the SQLite file,
:class:`~comodor.brain.store.postgres.PostgresDatabase` for a team's server).

What the dialects do *not* share stays in the backend: opening and migrating,
full-text search (:meth:`StoreBase._search_rows`: FTS5 ``bm25`` in SQLite,
``tsvector`` and ``ts_rank`` in PostgreSQL), and how another process's commit is
noticed. Nothing above this layer knows which backend it talks to.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any, Protocol


class Cursor(Protocol):
    """The part of a DB-API cursor the table code uses."""

    @property
    def rowcount(self) -> int: ...
    def fetchone(self) -> Any: ...
    def fetchall(self) -> list[Any]: ...


class Tx(Protocol):
    """One open transaction: statements in the shared dialect (``?`` placeholders)."""

    def execute(self, sql: str, parameters: Sequence[Any] = ..., /) -> Cursor: ...
    def executemany(self, sql: str, parameters: Any, /) -> Cursor: ...


class StoreBase:
    """The transaction shapes and meta table every backend offers the table code.

    Subclasses implement the three transaction shapes and full-text search; the
    table groups are mixins over this class, and a concrete store is the mixins
    plus one backend (``BrainStore`` = the mixins + SQLite).
    """

    notices: list[str]
    """Things the user should be told about opening this store (e.g. a corrupt file)."""
    read_only: bool
    """True when the store can only be read (see the SQLite backend's read-only fallback)."""
    voter: str = ""
    """Whose votes this store writes (see :mod:`comodor.brain.user_name`); set by the opener."""
    keeps_feedback: bool = True
    """Whether this backend holds the ``feedback`` table (a team database does not: feedback
    is personal)."""

    def _write(self) -> contextlib.AbstractContextManager[Tx]:
        """One write transaction; rolled back entirely on any error."""
        raise NotImplementedError

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """One query on the read connection: never waits for a writer's lock."""
        raise NotImplementedError

    def _snapshot(self) -> contextlib.AbstractContextManager[Tx]:
        """Several reads that must see one committed state (one read transaction)."""
        raise NotImplementedError

    def _search_rows(
        self, columns: str, words: Sequence[str], scopes: Sequence[str], limit: int
    ) -> list[Any]:
        """Full-text search of lessons: rows of ``columns`` plus a score, best first.

        ``columns`` are lesson columns qualified with ``l.``; a row matches when its
        trigger or guidance contains any of ``words`` (stemmed). Higher scores are
        better matches; scores are comparable within one answer only.
        """
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    # -- meta --------------------------------------------------------------- #

    def get_meta(self, key: str) -> str | None:
        rows = self._read("SELECT value FROM meta WHERE key = ?", (key,))
        return str(rows[0][0]) if rows else None

    def set_meta(self, key: str, value: str) -> None:
        with self._write() as tx:
            tx.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?)"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )


def in_marks(values: Sequence[Any]) -> str:
    """``?,?,?`` for an ``IN (…)`` list of ``values`` (never empty: callers check)."""
    return ",".join("?" * len(values))
