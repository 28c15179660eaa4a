"""The outbox: every write for the team database is made durable in the local file first.

A write to the team database is an *operation* (a store method and its arguments as
JSON) with a unique op id. :class:`~comodor.teamdb.team_store.TeamStore` puts it here,
then sends what is queued, oldest first; the team database records a *receipt* (the
op id) in the same transaction as the operation, and only then is the entry deleted
here. So:

* **nothing acknowledged is lost**: a write the user was told about is in this file
  (SQLite, committed) before anything is sent;
* **in order**: entries are sent strictly by ``seq``, and a sender moves past one only
  once its receipt exists;
* **exactly once**: an entry sent whose deletion here was lost (a crash, a connection
  that broke during ``COMMIT``) finds its receipt when it is sent again, and is skipped.

While the database is unreachable entries simply stay. A row created then (a lesson
taught offline) gets a *pending id* (:data:`PENDING_IDS` and up, from its ``seq``), so
the user can see, pin or forget it at once; when it is sent, the pending id is mapped
to the real one (``team_ids``) and later entries that name it are translated.
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from collections.abc import Sequence
from typing import Any

import attrs

from .database import Database

PENDING_IDS = 1 << 50
"""The first pending id (rows created while the team database was unreachable)."""
IDS_PER_ENTRY = 1000
"""Pending ids one entry may hand out (one lesson, or one rule per dimension it votes on)."""


def pending_id(seq: int, index: int = 0) -> int:
    return PENDING_IDS + seq * IDS_PER_ENTRY + index


def is_pending(row_id: int) -> bool:
    return row_id >= PENDING_IDS


def target_of(location: str) -> str:
    """Which database an entry is for (a digest of the URL without its password)."""
    return hashlib.sha256(location.encode("utf-8")).hexdigest()[:16]


@attrs.frozen
class Entry:
    """One queued operation."""

    seq: int
    op: str
    name: str
    args: dict[str, Any]
    created_at: float


class Outbox:
    """The queue of operations for one team database, in the local brain file."""

    def __init__(self, local: Database, location: str) -> None:
        self.local = local
        self.target = target_of(location)

    def put(self, name: str, args: dict[str, Any]) -> Entry:
        """Queue an operation durably (one local transaction) and return it."""
        op = uuid.uuid4().hex
        now = time.time()
        text = json.dumps(args, separators=(",", ":"))
        with self.local._write() as tx:
            row = tx.execute(
                "INSERT INTO team_outbox (target, op, name, args, created_at)"
                " VALUES (?, ?, ?, ?, ?) RETURNING seq",
                (self.target, op, name, text, now),
            ).fetchone()
        return Entry(int(row[0]), op, name, args, now)

    def pending(self) -> list[Entry]:
        rows = self.local._read(
            "SELECT seq, op, name, args, created_at FROM team_outbox WHERE target = ? ORDER BY seq",
            (self.target,),
        )
        return [Entry(row[0], row[1], row[2], json.loads(row[3]), row[4]) for row in rows]

    def count(self) -> int:
        rows = self.local._read("SELECT count(*) FROM team_outbox WHERE target = ?", (self.target,))
        return int(rows[0][0])

    def done(self, entry: Entry, mapped: Sequence[tuple[int, int]] = ()) -> None:
        """The database has ``entry``: forget it, remembering the ids its rows got."""
        with self.local._write() as tx:
            if mapped:
                tx.executemany(
                    "INSERT INTO team_ids (pending, real) VALUES (?, ?)"
                    " ON CONFLICT (pending) DO UPDATE SET real = excluded.real",
                    list(mapped),
                )
            tx.execute("DELETE FROM team_outbox WHERE seq = ?", (entry.seq,))

    def real_ids(self, pending: Sequence[int]) -> dict[int, int]:
        """The ids that pending ids became once their rows were sent."""
        if not pending:
            return {}
        marks = ",".join("?" * len(pending))
        rows = self.local._read(
            f"SELECT pending, real FROM team_ids WHERE pending IN ({marks})", list(pending)
        )
        return {int(row[0]): int(row[1]) for row in rows}
