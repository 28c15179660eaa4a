"""The shared vocabulary of the correction detectors: what they read and what they report.

Every detector votes only for what changed *for its dimension*: a pair of lines
counts when the two are the same tokens once the catalogued conventions are set
aside (:meth:`Edit.same_up_to_conventions`). A line whose logic changed as well
teaches nothing, however its quotes or commas moved.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import attrs

from .changes import ChangeSet
from .languages import JS_LIKE
from .lexer import Lexed

_IDENTIFIER = re.compile(r"(?<![\w\x01])[A-Za-z_$][\w$]*")
_RETURN_ANNOTATION = re.compile(r"^((?:async)?def\w+\(.*\))->.*:$")
_COMMA_BEFORE_CLOSER = re.compile(r",([)\]}])")


@attrs.frozen
class Edit:
    """One correction, lexed once and handed to every detector."""

    changes: ChangeSet
    before: Lexed
    after: Lexed
    language: str | None

    def same_up_to_conventions(self, i: int, j: int) -> bool:
        """Whether before line ``i`` and after line ``j`` differ only by catalogued conventions.

        Spacing, indentation, quote style, statement semicolons, trailing commas,
        Python return annotations and the casing of names are set aside; anything else
        that differs (an operator, a number, a word) means the line changed meaning.
        """
        return convention_form(self.before, i, self.language) == convention_form(
            self.after, j, self.language
        )


def convention_form(lexed: Lexed, line: int, language: str | None) -> str:
    """The code of ``line`` with every convention the catalog knows of set aside."""
    if line >= len(lexed.masked):
        return ""
    code = _IDENTIFIER.sub(lambda m: m.group(0).replace("_", "").lower(), lexed.masked[line])
    text = lexed.spell(code)
    if language in JS_LIKE:
        text = text.rstrip(";")
    if language == "python":
        text = _RETURN_ANNOTATION.sub(r"\1:", text)
    return _COMMA_BEFORE_CLOSER.sub(r"\1", text).rstrip(",")


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
