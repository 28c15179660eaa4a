"""Salvaging what can still be read from a damaged brain file into a fresh one.

A damaged page (a bad sector, a copy cut short, a sync tool that clobbered the
file mid-write) must not cost the user everything they taught: before a damaged
file is set aside, every row that can still be read is copied into the fresh
brain, table by table, keeping its id so references between tables hold. Rows on
damaged pages are skipped by reading the table in rowid ranges, narrowing a range
that fails down to single rows. SQLite's own ``.recover`` lives in its shell, not
in the library Python ships, so this is the library-level equivalent: it recovers
everything a query can still reach.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

log = logging.getLogger(__name__)

TABLES = (
    "meta",
    "lessons",
    "rules",
    "rule_votes",
    "skills",
    "episodes",
    "signals",
    "feedback",
    "agent_writes",
)
"""Tables worth saving, parents before children (foreign keys). The FTS index and the
lesson log are rebuilt by the fresh file's triggers as rows arrive."""

CHUNK = 512
TIME_BUDGET_S = 20.0


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    try:
        return [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]
    except sqlite3.DatabaseError:
        return []


def _rows(source: sqlite3.Connection, table: str, columns: str, deadline: float) -> Iterator[tuple]:  # type: ignore[type-arg]
    """Every readable row of ``table``; damaged ranges are narrowed to single rows."""
    try:
        yield from source.execute(f"SELECT {columns} FROM {table}")
        return
    except sqlite3.DatabaseError:
        pass
    try:
        top = int(source.execute(f"SELECT max(rowid) FROM {table}").fetchone()[0] or 0)
    except sqlite3.DatabaseError:
        top = 1_000_000  # the rightmost page is damaged too: probe a generous range
    pending = [(1, top)]
    while pending and time.monotonic() < deadline:
        low, high = pending.pop()
        try:
            rows = source.execute(
                f"SELECT {columns} FROM {table} WHERE rowid BETWEEN ? AND ?", (low, high)
            ).fetchall()
        except sqlite3.DatabaseError:
            if high - low < 1:
                continue  # one row on a damaged page: lost
            middle = (low + high) // 2
            pending += [(middle + 1, high), (low, middle)]
            continue
        yield from rows


def salvage(damaged: Path, target: sqlite3.Connection) -> dict[str, int]:
    """Copy every readable row of ``damaged`` into ``target`` (a fresh brain); counts per table."""
    saved: dict[str, int] = {}
    uri = f"file:{quote(str(damaged))}?mode=ro"
    try:
        source = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as error:
        log.warning("cannot open %s to salvage it: %s", damaged, error)
        return saved
    deadline = time.monotonic() + TIME_BUDGET_S
    try:
        for table in TABLES:
            have = _columns(source, table)
            wanted = [column for column in _columns(target, table) if column in have]
            if not wanted:
                continue
            columns = ", ".join(wanted)
            marks = ", ".join("?" * len(wanted))
            count = 0
            target.execute("BEGIN IMMEDIATE")
            try:
                for row in _rows(source, table, columns, deadline):
                    with contextlib.suppress(sqlite3.DatabaseError):  # a row that breaks a rule
                        target.execute(
                            f"INSERT OR IGNORE INTO {table} ({columns}) VALUES ({marks})", row
                        )
                        count += 1
                target.execute("COMMIT")
            except BaseException:
                target.execute("ROLLBACK")
                raise
            saved[table] = count
        _carry_sequences(source, target)
    finally:
        source.close()
    return saved


def _carry_sequences(source: sqlite3.Connection, target: sqlite3.Connection) -> None:
    """Ids the damaged file handed out stay used: never reused, not even a lost row's.

    ``sqlite_sequence`` holds the highest id each ``AUTOINCREMENT`` table ever gave;
    a fresh file only knows the rows that were copied, so a lesson forgotten (or
    lost on a damaged page) above the newest saved one would give its id away.
    """
    try:
        used = source.execute("SELECT name, seq FROM sqlite_sequence").fetchall()
    except sqlite3.DatabaseError:
        return  # an old file, or that page is damaged: the copied rows must do
    target.execute("BEGIN IMMEDIATE")
    try:
        for name, seq in used:
            if name not in TABLES or not isinstance(seq, int):
                continue
            cursor = target.execute(
                "UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?", (seq, name)
            )
            if cursor.rowcount == 0:
                target.execute("INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", (name, seq))
        target.execute("COMMIT")
    except BaseException:
        target.execute("ROLLBACK")
        raise


def describe(saved: dict[str, int]) -> str:
    """The user's words for what was saved: ``42 lessons and 7 house rules``."""
    lessons, rules = saved.get("lessons", 0), saved.get("rules", 0)
    if not lessons and not rules:
        return "nothing could be read from it"
    return (
        f"{lessons} lesson{'s' if lessons != 1 else ''} and {rules} house "
        f"rule{'s' if rules != 1 else ''} were recovered from it"
    )
