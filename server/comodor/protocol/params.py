"""The params of every command and notification, as the client sends them.

Field names are snake_case here and camelCase on the wire. Each field is
declared with its limits (:mod:`comodor.protocol.fields`): structuring a
client's JSON (:func:`comodor.protocol.structure`) checks types strictly and
limits once, and ``schemas/`` publishes the same limits.
"""

from __future__ import annotations

import re
from typing import Any

import attrs

from ..brain.errors import InvalidInput
from ..brain.models import (
    LESSON_KINDS,
    MAX_MESSAGES,
    MAX_NOTE_CHARS,
    MAX_QUERY_CHARS,
    MAX_STATEMENT_CHARS,
    MAX_TEACH_CHARS,
    MAX_TOOL_CHARS,
    MESSAGE_ROLES,
)
from .fields import SCHEMA, choice, integer, items, number, text

MAX_STOPPED_CHARS = 40


@attrs.frozen
class MessageParams:
    """One message of a finished task's transcript."""

    role: str = attrs.field(**choice(MESSAGE_ROLES))
    name: str | None = None
    content: str | None = None
    is_error: bool = False


@attrs.frozen
class NoParams:
    """Commands that take no fields (an empty object, or no argument at all)."""


@attrs.frozen
class TeachParams:
    text: str = attrs.field(**text(max_chars=MAX_TEACH_CHARS))
    kind: str = attrs.field(default="preference", **choice(LESSON_KINDS))
    pinned: bool = True


@attrs.frozen
class TeachRuleParams:
    statement: str = attrs.field(**text(max_chars=MAX_STATEMENT_CHARS))


@attrs.frozen
class IdParams:
    id: int = attrs.field(**integer(minimum=0))


@attrs.frozen
class PinParams:
    id: int = attrs.field(**integer(minimum=0))
    pinned: bool = True


@attrs.frozen
class SetRuleParams:
    id: int = attrs.field(**integer(minimum=0))
    pinned: bool | None = None
    active: bool | None = None


@attrs.frozen
class LessonsParams:
    query: str = attrs.field(default="", **text(max_chars=MAX_QUERY_CHARS, min_chars=0))
    limit: int = attrs.field(default=20, **integer(minimum=1))


@attrs.frozen
class RulesParams:
    include_unconfident: bool = True


@attrs.frozen
class PlaybookParams:
    query: str = attrs.field(**text(max_chars=MAX_QUERY_CHARS, min_chars=0))
    max_tokens: int | None = attrs.field(default=None, **integer(minimum=1))
    uri: str | None = None
    """Added to the spec: with no ``query``, the language server answers for what was
    prefetched while this document was being edited."""


@attrs.frozen
class BeginTaskParams:
    goal: str = attrs.field(**text(max_chars=MAX_QUERY_CHARS))


@attrs.frozen
class EndTaskParams:
    task_id: int = attrs.field(**integer(minimum=1))
    success: bool
    stopped: str = attrs.field(default="done", **text(max_chars=MAX_STOPPED_CHARS))
    steps: int | None = attrs.field(default=None, **integer(minimum=0))
    elapsed: float | None = attrs.field(default=None, **number(minimum=0))
    approvals: int | None = attrs.field(default=None, **integer(minimum=0))
    tokens: int | None = attrs.field(default=None, **integer(minimum=0))
    messages: list[MessageParams] = attrs.field(
        default=attrs.Factory(list), **items(max_items=MAX_MESSAGES)
    )


@attrs.frozen
class FeedbackParams:
    good: bool
    note: str = attrs.field(default="", **text(max_chars=MAX_NOTE_CHARS, min_chars=0))
    task_id: int | None = attrs.field(default=None, **integer(minimum=1))


@attrs.frozen
class DeniedParams:
    tool: str = attrs.field(**text(max_chars=MAX_TOOL_CHARS))
    subject: str = attrs.field(**text(max_chars=MAX_QUERY_CHARS))
    reason: str = "denied"
    """Added to the spec: ``timeout`` or ``cancelled`` are not denials and teach nothing."""


@attrs.frozen
class AgentEditParams:
    uri: str
    text: str | None = None


@attrs.frozen
class UndoParams:
    uris: list[str]


PLACE_PATTERN = r"^[0-9a-f]{16}$"


def _place(instance: object, attribute: attrs.Attribute[str], value: str) -> None:
    del instance, attribute
    if not isinstance(value, str) or re.match(PLACE_PATTERN, value) is None:
        raise InvalidInput(
            "place", "must be 16 lowercase hexadecimal digits (a diagnostic's place)"
        )


@attrs.frozen
class NotHereParams:
    """``comodor.notHere``: the user says a rule does not apply at one place.

    ``place`` comes from the diagnostic's ``data.place``: the first 16 hex digits of
    the SHA-256 of the flagged line's text, stripped of surrounding whitespace.
    """

    id: int = attrs.field(**integer(minimum=0))
    uri: str = attrs.field(**text(max_chars=4000))
    place: str = attrs.field(validator=_place, metadata={SCHEMA: {"pattern": PLACE_PATTERN}})


@attrs.frozen
class ExportRulesParams:
    path: str | None = None


@attrs.frozen
class ToolParams:
    """Added to the spec: run one agent tool (the MCP tool table) through the editor."""

    name: str
    arguments: dict[str, Any] = attrs.field(factory=dict)


@attrs.frozen
class DraftParams:
    """``comodor/draft``: the user is typing a request."""

    text: str


ASSISTANT_SOURCES = ("chat-edit", "inline-completion", "next-edit", "extension")
"""Protocol v1.2: who made an edit inside the editor (``comodor/assistantEdit``)."""
SOURCE_PATTERN = r"^(chat-edit|inline-completion|next-edit|extension)(:[A-Za-z0-9._-]{1,200})?$"
MAX_ASSISTANT_RANGES = 1000


def _source(instance: object, attribute: attrs.Attribute[str], value: str) -> None:
    del instance, attribute
    if not isinstance(value, str) or re.match(SOURCE_PATTERN, value) is None:
        raise InvalidInput(
            "source",
            "must be chat-edit, inline-completion, next-edit or extension,"
            " optionally followed by ':' and an extension id",
        )


@attrs.frozen
class PositionParams:
    line: int = attrs.field(**integer(minimum=0))
    character: int = attrs.field(**integer(minimum=0))


@attrs.frozen
class RangeParams:
    start: PositionParams
    end: PositionParams


@attrs.frozen
class AssistantEditParams:
    """``comodor/assistantEdit``: the document reached ``version`` through an assistant's edit.

    ``ranges`` are where the new text stands in that version; the server counts them as an
    agent write so the user's later change inside them is a correction of the assistant.
    """

    uri: str = attrs.field(**text(max_chars=4000))
    version: int = attrs.field(**integer(minimum=0))
    source: str = attrs.field(validator=_source, metadata={SCHEMA: {"pattern": SOURCE_PATTERN}})
    ranges: list[RangeParams] = attrs.field(**items(max_items=MAX_ASSISTANT_RANGES))
