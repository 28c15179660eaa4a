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


AGENT_WRITE_COLUMNS = (
    "id, scope, path, before_hash, after_hash, created, episode_id, status, last_hash,"
    " created_at, source"
)
"""The columns :func:`agent_write_from_row` reads, in :class:`AgentWrite`'s order."""


def agent_write_from_row(row: Sequence[Any]) -> AgentWrite:
    values = list(row)
    values[5] = bool(values[5])
    values[10] = str(values[10])
    return AgentWrite(*values)


LESSON_COLUMNS = (
    "id, kind, scope, trigger, guidance, confidence, pinned, source, uses, wins, losses, "
    "created_at, updated_at, last_used, last_success"
)
EPISODE_COLUMNS = (
    "id, session_id, scope, goal, success, stopped, steps, elapsed, approvals, tokens, "
    "corrections, undos, retries, tools_used, error_kind, rules_active, recalled, skills, "
    "started_at, ended_at, holdout"
)
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


def episode_from_row(row: Sequence[Any]) -> Episode:
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
