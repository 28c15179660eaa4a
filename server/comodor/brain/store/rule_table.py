"""House-rule dimensions and their votes in the brain file.

A rule row is a dimension (``quotes.style`` in a scope and language); the votes
for its values decide the winner (:func:`comodor.brain.rules.judgement.summarize`).

Every vote is stamped with the store's :attr:`~comodor.brain.store.backend.StoreBase.voter`
(the user), and an origin votes once per user: on a shared database two people's
``save:12`` are two corrections, and a re-scan or a re-read team file replaces only
the votes *its own user* cast, never another person's evidence.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from .backend import StoreBase, Tx, in_marks
from .rows import (
    RULE_COLUMNS,
    VOTE_COLUMNS,
    RuleRow,
    VoteRow,
    rule_from_row,
    vote_from_row,
)


class RuleRows(StoreBase):
    """The rules part of :class:`comodor.brain.store.BrainStore`."""

    def rule_id(self, conn: Tx, key: str, scope: str, language: str | None, category: str) -> int:
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
        *,
        voter: str | None = None,
    ) -> list[int]:
        """Store votes ``(key, scope, language, category, vote)``; return the touched rule ids.

        A vote is unique per (rule, origin, value): the same correction counted
        twice stays one vote. With ``replace_origin``, every earlier vote from that
        origin in ``replace_scope`` is removed first, in the same transaction, so a
        re-scan replaces its previous votes instead of adding to them. ``voter``
        (default: the store's) is whose votes these are, and whose are replaced.
        """
        touched: list[int] = []
        now = time.time()
        voter = voter or self.voter
        with self._write() as conn:
            if replace_origin is not None:
                old = conn.execute(
                    "SELECT DISTINCT v.rule_id FROM rule_votes v JOIN rules r ON r.id = v.rule_id"
                    " WHERE v.origin = ? AND v.voter = ? AND r.scope = ?",
                    (replace_origin, voter, replace_scope),
                ).fetchall()
                touched.extend(row[0] for row in old)
                conn.execute(
                    "DELETE FROM rule_votes WHERE origin = ? AND voter = ? AND rule_id IN"
                    " (SELECT id FROM rules WHERE scope = ?)",
                    (replace_origin, voter, replace_scope),
                )
            for key, scope, language, category, vote in votes:
                rule_id = self.rule_id(conn, key, scope, language, category)
                conn.execute(
                    "INSERT INTO rule_votes (rule_id, value, statement, kind, weight, origin,"
                    " detail, created_at, voter) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
                    " ON CONFLICT (rule_id, voter, origin, value) DO UPDATE SET"
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
                        voter,
                    ),
                )
                conn.execute("UPDATE rules SET updated_at = ? WHERE id = ?", (now, rule_id))
                touched.append(rule_id)
            if replace_origin is not None:
                # A dimension left with no votes at all is noise from an old scan.
                conn.execute(
                    "DELETE FROM rules WHERE scope = ? AND pinned = 0 AND id NOT IN"
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
            clauses.append(f"scope IN ({in_marks(scopes)})")
            params.extend(scopes)
        if ids is not None:
            clauses.append(f"id IN ({in_marks(ids)})")
            params.extend(ids)
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        with self._snapshot() as conn:
            rule_rows = conn.execute(
                f"SELECT {RULE_COLUMNS} FROM rules{where} ORDER BY id", params
            ).fetchall()
            if not rule_rows:
                return []
            marks = in_marks(rule_rows)
            vote_rows = conn.execute(
                f"SELECT rule_id, {VOTE_COLUMNS} FROM rule_votes WHERE rule_id IN ({marks})"
                " ORDER BY id",
                [row[0] for row in rule_rows],
            ).fetchall()
        votes: dict[int, list[VoteRow]] = {}
        for rule_id, *vote in vote_rows:
            votes.setdefault(rule_id, []).append(vote_from_row(vote))
        return [rule_from_row(row, votes.get(row[0], ())) for row in rule_rows]

    def rule_ids(self, dimensions: Sequence[tuple[str, str, str]]) -> dict[Any, int]:
        """The ids of existing dimensions ``(key, scope, language)`` (language '' for none)."""
        found: dict[Any, int] = {}
        for key, scope, language in dimensions:
            rows = self._read(
                "SELECT id FROM rules WHERE key = ? AND scope = ? AND language = ?",
                (key, scope, language or ""),
            )
            if rows:
                found[(key, scope, language or "")] = int(rows[0][0])
        return found

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
