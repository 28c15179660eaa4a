"""Lessons in words: the playbook's lesson line, and lessons as a Markdown page.

One renderer, so a lesson reads the same in a playbook, in the MCP ``lessons``
resource and anywhere else it is shown.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..models import Lesson


def lesson_line(lesson: Lesson, half_life_days: float) -> str:
    """``- (kind, NN%) When trigger: guidance`` with the effective confidence."""
    confidence = lesson.effective_confidence(half_life_days)
    return f"- ({lesson.kind}, {confidence:.0%}) When {lesson.trigger}: {lesson.guidance}"


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
