"""Reflection: learn lessons from finished tasks by asking a model, in the background.

A plain library (no editor, no database): :mod:`.transcript` builds the prompt,
:mod:`.gateway` talks to any OpenAI-compatible endpoint, :mod:`.parse` turns the
reply into validated lessons, :mod:`.worker` runs it all off the main thread,
and :mod:`.reflector` composes the three for the worker.
"""

from __future__ import annotations

from .background import ReflectionWorker, should_reflect
from .gateway import ChatGateway
from .parse import (
    ParseResult,
    ProposedLesson,
    ProposedSkill,
    Reflection,
    parse_reflection,
)
from .reflection_error import ReflectError
from .reflector import CompletionGateway, Reflector
from .transcript import (
    SYSTEM_PROMPT,
    EpisodeSummary,
    Message,
    build_messages,
    build_transcript,
)

__all__ = [
    "SYSTEM_PROMPT",
    "ChatGateway",
    "CompletionGateway",
    "EpisodeSummary",
    "Message",
    "ParseResult",
    "ProposedLesson",
    "ProposedSkill",
    "ReflectError",
    "Reflection",
    "ReflectionWorker",
    "Reflector",
    "build_messages",
    "build_transcript",
    "parse_reflection",
    "should_reflect",
]
