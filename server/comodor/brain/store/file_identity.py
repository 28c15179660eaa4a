"""Whose SQLite file is this? Tell a Comodor brain from another program's before writing.

PyPI's other ``comodor`` (a terminal coding agent) keeps its own ``brain.db``,
a different schema, at ``$COMODOR_HOME/brain.db`` or
``$XDG_DATA_HOME/comodor/brain.db``: exactly where a user may point us. Opening
that file as ours would run our migrations over its tables. So a brain carries
an identity, SQLite's ``PRAGMA application_id`` (bytes 68-71 of the header),
set by the migration that creates or upgrades it, and every open checks it
*before* anything is written:

* the header names us: ours;
* the header names another program: refused at once, without a connection
  (so not even WAL recovery touches the file);
* no identity yet: looked at through a read-only connection. No tables is a
  fresh file; our tables with a schema version is a brain from before the
  identity existed (the next migration stamps it); anything else is another
  program's, refused.

A refused file is never migrated, moved or written; :class:`ForeignBrain` says
which file it was and how to choose another.
"""

from __future__ import annotations

import enum
import sqlite3
from pathlib import Path
from urllib.parse import quote

from ..errors import BrainUnavailable
from .sqlite_schema import APPLICATION_ID

SQLITE_MAGIC = b"SQLite format 3\x00"
_HEADER_BYTES = 100
_APPLICATION_ID_OFFSET = 68

OUR_TABLES = frozenset({"meta", "lessons", "lesson_log", "rules", "rule_votes", "agent_writes"})
"""Tables only a Comodor brain has all of (``lesson_log`` and ``rule_votes`` are ours alone)."""

_AGENT_TABLES = frozenset({"meta", "lessons", "skills", "facts"})
"""What PyPI's ``comodor`` coding agent keeps in its brain: named in the error when seen."""


class Identity(enum.Enum):
    FRESH = "fresh"
    """Absent, empty, or a database with no tables yet: ours to create."""
    OURS = "ours"
    """Stamped with our application id."""
    OURS_UNSTAMPED = "ours-unstamped"
    """A brain written before the identity existed; the next migration stamps it."""
    NOT_A_DATABASE = "not-a-database"
    """Not an SQLite file at all: the store treats it as damaged (moved aside, kept)."""


class ForeignBrain(BrainUnavailable):
    """The brain path holds another program's SQLite database; it is left as it is."""

    reason = "it is another program's database"


def brain_setting_hint() -> str:
    return (
        "Choose another file with the brainPath setting (in VS Code: comodor.brainPath; "
        "other editors: initializationOptions.brainPath), or point COMODOR_HOME at another folder."
    )


def foreign(path: Path, what: str) -> ForeignBrain:
    return ForeignBrain(
        f"{path} is not a Comodor brain: {what}. Comodor left it exactly as it was "
        f"(nothing migrated, moved or written). {brain_setting_hint()}"
    )


def _header(path: Path) -> bytes | None:
    try:
        with path.open("rb") as file:
            return file.read(_HEADER_BYTES)
    except FileNotFoundError:
        return None


def _header_is_sane(header: bytes) -> bool:
    """Whether the fields SQLite fixes for every file hold (else the header itself is damaged).

    A damaged header can carry any bytes where the application id lives; read
    as an identity they would name "another program" and a user's brain would
    be refused instead of salvaged. The page size must be a power of two from
    512 to 65536 (stored as 1), and the payload fractions are always 64, 32, 32.
    """
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    power_of_two = page_size & (page_size - 1) == 0
    return 512 <= page_size <= 65536 and power_of_two and header[21:24] == b"\x40\x20\x20"


def _stamped_id(header: bytes) -> int:
    raw = header[_APPLICATION_ID_OFFSET : _APPLICATION_ID_OFFSET + 4]
    return int.from_bytes(raw, "big", signed=True)


def describe(application_id: int, tables: set[str]) -> str:
    """Why a file is not ours, in words (naming the other comodor when it looks like it)."""
    if application_id:
        return f"its SQLite application_id is {application_id:#010x}, not Comodor's"
    if tables >= _AGENT_TABLES:
        return "it looks like the brain of PyPI's `comodor` coding agent, a different program"
    listed = ", ".join(sorted(tables)[:6]) or "none"
    return f"it is an SQLite database with other tables ({listed})"


def classify(conn: sqlite3.Connection, path: Path) -> Identity:
    """Judge an open connection's database; raises :class:`ForeignBrain` if it is not ours."""
    application_id = int(conn.execute("PRAGMA application_id").fetchone()[0])
    if application_id == APPLICATION_ID:
        return Identity.OURS
    tables = {
        str(row[0]) for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    }
    if application_id == 0 and not tables:
        return Identity.FRESH
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if application_id == 0 and version > 0 and tables >= OUR_TABLES:
        return Identity.OURS_UNSTAMPED
    raise foreign(path, describe(application_id, tables))


def identify(path: Path) -> Identity | None:
    """Whose file ``path`` is, judged without writing a byte of it.

    Returns ``None`` when a read-only look was not possible (the caller then
    judges with :func:`classify` on its own connection, before any write).
    Raises :class:`ForeignBrain` for another program's database.
    """
    header = _header(path)
    if header is None or len(header) == 0:
        return Identity.FRESH
    if not header.startswith(SQLITE_MAGIC):
        return Identity.NOT_A_DATABASE
    if len(header) == _HEADER_BYTES and not _header_is_sane(header):
        return Identity.NOT_A_DATABASE
    if len(header) == _HEADER_BYTES:
        stamped = _stamped_id(header)
        if stamped == APPLICATION_ID:
            return Identity.OURS
        if stamped != 0:
            raise foreign(path, describe(stamped, set()))
    # No identity in the header: it may be a fresh brain of ours still in its WAL, a brain
    # from before the identity, or someone else's. Look through a read-only connection:
    # without a WAL the file is the whole truth and is read as immutable (SQLite then
    # creates no -shm or -wal beside it); with one, read-only mode reads the WAL too.
    wal = path.with_name(path.name + "-wal")
    mode = "mode=ro" if wal.exists() else "immutable=1"
    uri = f"file:{quote(str(path.resolve()))}?{mode}"
    try:
        conn = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=10.0)
    except sqlite3.Error:
        return None
    try:
        return classify(conn, path)
    except sqlite3.DatabaseError:
        return None
    finally:
        conn.close()
