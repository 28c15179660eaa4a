"""Reading signals out of what happened: denials and repeated tool failures.

Both become house rules through votes, like corrections do, so the same
counting and the same confidence rules apply everywhere. What a denial is about
(its key and the words its rule quotes) is :mod:`comodor.brain.rules.denials`' job.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Sequence

import attrs

from ..models import Message
from ..redaction.base import MARKER_RE
from ..redaction.redactor import cut, redact
from .denials import DenialKey, denial_key

NOT_DENIALS = frozenset({"timeout", "timed_out", "timedout", "cancelled", "canceled", "error"})

__all__ = ["NOT_DENIALS", "DenialKey", "Pitfall", "denial_key", "find_pitfalls", "tool_errors"]


def _slug(text: str, limit: int = 60) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug[:limit] or "x"


def _normalise_piece(text: str) -> str:
    text = re.sub(r"(['\"]).*?\1", "<str>", text)
    text = re.sub(r"(/[\w.@-]+)+/?", "<path>", text)
    text = re.sub(r"0x[0-9a-fA-F]+|\b[0-9a-f]{7,40}\b", "<hex>", text)
    text = re.sub(r"\d+(\.\d+)?", "<n>", text)
    return text.lower()


def normalise_error(text: str) -> str:
    """An error message without the parts that differ between two runs of the same failure.

    The text is redacted *first*: lower-casing and replacing digits would turn a secret into
    fragments no rule recognises any more (``github_pat_<n>...``, ``akia...``), and those
    would reach rule statements and instruction files. The markers redaction leaves are kept
    exactly as they are, so the normalised text still says what was removed.
    """
    redacted = redact(text)
    first = next((line.strip() for line in redacted.splitlines() if line.strip()), "")
    pieces = MARKER_RE.split(first)
    markers = MARKER_RE.findall(first)
    normalised = _normalise_piece(pieces[0])
    for marker, piece in zip(markers, pieces[1:], strict=True):
        normalised += marker + _normalise_piece(piece)
    return cut(" ".join(normalised.split()), 160)


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
            f'`{self.tool}` keeps failing with "{cut(self.error, 100)}"; fix the cause '
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
