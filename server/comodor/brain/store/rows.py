"""Rows of the brain file as typed records, and the mappers between them.

The brain's own records (:mod:`comodor.brain.models`) are what the rest of the
brain works with; these are the storage-shaped pieces (a rule with its raw
votes, a checkpoint's hashes) and the column lists the queries share.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import attrs

from ..models import Episode, Lesson
from ..recall.text import trigger_prefix


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
    voter: str = ""
    """Who cast it (``COMODOR_USER`` or the login name; '' for votes from before users)."""


@attrs.frozen
class RuleRow:
    """A stored rule dimension with its votes.

    :mod:`comodor.brain.rules.judgement` decides the winner.
    """

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
    source: str = "disk"
    """Who made it: one of :data:`comodor.brain.models.AGENT_WRITE_SOURCES`."""


AGENT_WRITE_FIELDS = (
    "id", "scope", "path", "before_hash", "after_hash", "created", "episode_id", "status",
    "last_hash", "created_at", "source",
)  # fmt: skip
"""The ``agent_writes`` columns :func:`agent_write_from_row` reads, by name."""
AGENT_WRITE_COLUMNS = ", ".join(AGENT_WRITE_FIELDS)


def columns_of(row: Sequence[Any], fields: Sequence[str]) -> dict[str, Any]:
    """A row selected with ``", ".join(fields)`` as a mapping from each field to its value.

    The one place a row's positions meet the column names: every query selects its
    columns from the same tuple of names the mapper then reads them by.
    """
    if len(row) != len(fields):
        raise ValueError(f"a row of {len(row)} values for the {len(fields)} columns {fields}")
    return dict(zip(fields, row, strict=True))


def agent_write_from_row(row: Sequence[Any]) -> AgentWrite:
    values = columns_of(row, AGENT_WRITE_FIELDS)
    values["created"] = bool(values["created"])
    values["source"] = str(values["source"])
    return AgentWrite(**values)


LESSON_FIELDS = (
    "id", "kind", "scope", "trigger", "guidance", "confidence", "pinned", "source", "uses",
    "wins", "losses", "created_at", "updated_at", "last_used", "last_success",
)  # fmt: skip
"""The ``lessons`` columns :func:`lesson_from_row` reads, by name."""
LESSON_COLUMNS = ", ".join(LESSON_FIELDS)
EPISODE_FIELDS = (
    "id", "session_id", "scope", "goal", "success", "stopped", "steps", "elapsed", "approvals",
    "tokens", "corrections", "undos", "retries", "tools_used", "error_kind", "rules_active",
    "recalled", "skills", "started_at", "ended_at", "holdout",
)  # fmt: skip
"""The ``episodes`` columns :func:`episode_from_row` reads, by name."""
EPISODE_COLUMNS = ", ".join(EPISODE_FIELDS)
RULE_FIELDS = (
    "id", "key", "scope", "language", "category", "pinned", "active", "created_at", "updated_at",
)  # fmt: skip
"""The ``rules`` columns :func:`rule_from_row` reads, by name."""
RULE_COLUMNS = ", ".join(RULE_FIELDS)
VOTE_FIELDS = (
    "value", "statement", "kind", "weight", "origin", "detail", "created_at", "voter",
)  # fmt: skip
"""The ``rule_votes`` columns :func:`vote_from_row` reads, by name (after ``rule_id``)."""
VOTE_COLUMNS = ", ".join(VOTE_FIELDS)
INDEX_ROW_COLUMNS = (
    "id, scope, terms, confidence, wins, losses, created_at, last_success, pinned, trigger_terms"
)
"""The ``lessons`` columns of an index row, in the order ``recall.entries.indexed`` reads."""
INSERT_LESSON = (
    "INSERT INTO lessons (kind, scope, trigger, guidance, terms, trigger_terms, confidence,"
    " pinned, source, uses, wins, losses, created_at, updated_at, last_used, last_success)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def lesson_to_row(lesson: Lesson, terms: str) -> tuple[Any, ...]:
    return (
        lesson.kind,
        lesson.scope,
        lesson.trigger,
        lesson.guidance,
        terms,
        trigger_prefix(lesson.trigger, terms.split()),
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


def lesson_from_row(row: Sequence[Any]) -> Lesson:
    values = columns_of(row, LESSON_FIELDS)
    values["pinned"] = bool(values["pinned"])
    return Lesson(**values)


def episode_from_row(row: Sequence[Any]) -> Episode:
    values = columns_of(row, EPISODE_FIELDS)
    for flag in ("success", "holdout"):
        values[flag] = bool(values[flag])
    for listed in ("tools_used", "recalled", "skills"):
        values[listed] = json.loads(values[listed])
    return Episode(**values)


def rule_from_row(row: Sequence[Any], votes: Sequence[VoteRow]) -> RuleRow:
    values = columns_of(row, RULE_FIELDS)
    values["language"] = values["language"] or None
    values["pinned"] = bool(values["pinned"])
    values["active"] = bool(values["active"])
    return RuleRow(**values, votes=tuple(votes))


def vote_from_row(row: Sequence[Any]) -> VoteRow:
    return VoteRow(**columns_of(row, VOTE_FIELDS))
