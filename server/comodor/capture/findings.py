"""The shared vocabulary of the correction detectors: what they read and what they report."""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from comodor.capture.changes import ChangeSet
from comodor.capture.lexer import Lexed


@attrs.frozen
class Edit:
    """One correction, lexed once and handed to every detector."""

    changes: ChangeSet
    before: Lexed
    after: Lexed
    language: str | None


@attrs.frozen
class Finding:
    """A detector's verdict: a value for a key, and which edits that verdict explains.

    ``explained`` lists (before, after) line pairs that the convention fully accounts for,
    ``renames`` maps old to new identifiers, and ``setup`` lists added lines the
    convention needs (``import logging``); the logic check applies all three before it
    compares, so a pure convention change is never also reported as a logic change.
    """

    key: str
    value: str
    detail: str
    explained: frozenset[tuple[int, int]] = frozenset()
    renames: Mapping[str, str] = attrs.field(factory=dict)
    setup: frozenset[int] = frozenset()


def majority(forward: int, backward: int) -> tuple[bool, int, int] | None:
    """Return (forward wins, winner count, loser count), or None on a tie or no evidence."""
    if forward == backward:
        return None
    return (forward > backward, max(forward, backward), min(forward, backward))


def plural(count: int, word: str) -> str:
    """Spell "1 string" / "3 strings" for details a human reads."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"
