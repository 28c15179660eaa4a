"""Reading signals out of what happened: denials and repeated tool failures.

Both become house rules through votes, like corrections do, so the same
counting and the same confidence rules apply everywhere. What a denial is about
(its key and the words its rule quotes) is :mod:`comodor.brain.denials`' job.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Sequence

import attrs

from comodor.brain.denials import DenialKey, denial_key
from comodor.brain.models import Message

NOT_DENIALS = frozenset({"timeout", "timed_out", "timedout", "cancelled", "canceled", "error"})

__all__ = ["NOT_DENIALS", "DenialKey", "Pitfall", "denial_key", "find_pitfalls", "tool_errors"]


def _slug(text: str, limit: int = 60) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug[:limit] or "x"


def normalise_error(text: str) -> str:
    """An error message without the parts that differ between two runs of the same failure."""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    first = re.sub(r"(['\"]).*?\1", "<str>", first)
    first = re.sub(r"(/[\w.@-]+)+/?", "<path>", first)
    first = re.sub(r"0x[0-9a-fA-F]+|\b[0-9a-f]{7,40}\b", "<hex>", first)
    first = re.sub(r"\d+(\.\d+)?", "<n>", first)
    return " ".join(first.lower().split())[:160]


@attrs.frozen
class Pitfall:
    """A tool that failed at least twice with the same normalised error in one task."""

    tool: str
    error: str
    count: int

    @property
    def key(self) -> str:
        digest = hashlib.sha1(self.error.encode("utf-8")).hexdigest()[:8]
        return f"pitfall.{_slug(self.tool, 40)}.{digest}"

    @property
    def statement(self) -> str:
        return (
            f'`{self.tool}` keeps failing with "{self.error[:100]}"; fix the cause '
            "before calling it again."
        )


def tool_errors(messages: Sequence[Message]) -> list[Message]:
    return [message for message in messages if message.role == "tool" and message.is_error]


def find_pitfalls(messages: Sequence[Message]) -> list[Pitfall]:
    counts: Counter[tuple[str, str]] = Counter()
    for message in tool_errors(messages):
        error = normalise_error(message.content or "")
        counts[(message.name or "tool", error)] += 1
    return [Pitfall(tool, error, count) for (tool, error), count in counts.items() if count >= 2]
