"""Lessons in words: the playbook's lesson line, and lessons as a Markdown page.

One renderer, so a lesson reads the same in a playbook, in the MCP ``lessons``
resource and anywhere else it is shown.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..models import Lesson

GENERAL_TRIGGER = "generally"
"""The trigger of a lesson taught without one ("use tabs"): it applies always, so it is not said."""

_LEADING_WHEN = re.compile(r"^\s*when\b[\s,:]*", re.IGNORECASE)


def plain_trigger(trigger: str) -> str:
    """The trigger without a leading "When" or trailing punctuation a user typed.

    Users teach "When running the tests: use pytest -q"; the stored trigger must be
    "running the tests", or every door would read "When When running the tests".
    """
    clean = " ".join(trigger.split())
    clean = _LEADING_WHEN.sub("", clean, count=1)
    return clean.rstrip(" :;,.-")


def instruction(trigger: str, guidance: str) -> str:
    """The lesson as one plain instruction: "When trigger: guidance", or the guidance alone.

    A lesson that applies generally says only what to do; the renderer, not each
    door, decides the wording, so the LSP, MCP and CLI never differ.
    """
    when = plain_trigger(trigger)
    what = " ".join(guidance.split())
    if not when or when.casefold() == GENERAL_TRIGGER:
        return what
    return f"When {when}: {what}"


def lesson_line(lesson: Lesson, half_life_days: float) -> str:
    """``- (kind, NN%) When trigger: guidance`` with the effective confidence."""
    confidence = lesson.effective_confidence(half_life_days)
    return f"- ({lesson.kind}, {confidence:.0%}) {instruction(lesson.trigger, lesson.guidance)}"


def lessons_markdown(lessons: Sequence[Lesson], half_life_days: float, project: str = "") -> str:
    """Lessons as a page an assistant can read: pinned first, then by confidence."""
    lines = ["# Lessons", ""]
    if project:
        lines += [f"Learned by Comodor for {project}.", ""]
    if not lessons:
        return "\n".join([*lines, "No lessons yet.", ""])
    ordered = sorted(
        lessons,
        key=lambda lesson: (not lesson.pinned, -lesson.effective_confidence(half_life_days)),
    )
    lines += [lesson_line(lesson, half_life_days) for lesson in ordered]
    return "\n".join([*lines, ""])
