"""What the recall index is told about a lesson, and what it answers (no numpy here).

Kept apart from :mod:`comodor.brain.recall.index` so that building these records, and
the modules that do, load without numpy: the index (and numpy) is imported
only when it is first built, off the host's start-up path.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import attrs


class IndexedLesson(NamedTuple):
    """What the index needs to know about a lesson."""

    id: int
    scope: str
    terms: tuple[str, ...]
    trust: float
    anchor: float
    """Epoch seconds from which decay runs (the last success, or creation)."""
    pinned: bool = False
    trigger_terms: int = 0
    """How many of ``terms``, from the first, are the trigger's; 0: not told (all alike)."""

    def trigger_term(self, position: int) -> bool:
        """Whether ``terms[position]`` is weighed as a trigger term (see ``GUIDANCE_WEIGHT``)."""
        return self.trigger_terms <= 0 or position < self.trigger_terms


@attrs.frozen
class Hit:
    """One recalled lesson with its score parts."""

    id: int
    score: float
    relevance: float
    confidence: float
    pinned: bool = False
    expanded: bool = False
    """Found through learned associations only (ranked after every real match)."""


def indexed(row: Sequence[Any]) -> IndexedLesson:
    """An index row of the store (``LessonRows.index_rows``) as the index takes it."""
    lesson_id, scope, term_text, confidence, wins, losses, created, last_success, pinned = row[:9]
    trust = (confidence * 2.0 + wins) / (2.0 + wins + losses)
    return IndexedLesson(
        lesson_id,
        scope,
        tuple(term_text.split()),
        trust,
        max(created, last_success),
        bool(pinned),
        int(row[9] or 0) if len(row) > 9 else 0,
    )
