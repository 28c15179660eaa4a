"""The texts each open document had over its last few changes.

pygls applies a ``didChange`` to its copy of the document before our handler runs,
so the text *before* a change is gone by then. An assistant's edit is announced
right after the change that carried it (``comodor/assistantEdit`` names that
version), and capture needs the text it replaced. The announcement may come after
later changes, though: the user typing on right after accepting a completion gets
there first (the client decides on a short burst of changes before it tells). So
this keeps the last few changes of each open document (their texts, which pygls has
just let go of, and their ranges), and the notice's lines can be moved through the
changes that followed it.

Bounded: at most :data:`KEEP_CHANGES` changes and about :data:`KEEP_CHARS` characters
of text per document (the newest change is always kept).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

import attrs

KEEP_CHANGES = 32
"""Changes remembered per document: a burst of fast typing after the assistant's edit."""
KEEP_CHARS = 4_000_000
"""Characters of old text remembered per document, whatever the count."""

PlainChange = tuple[int, int, int, int, str]
"""A ``didChange`` range (start line and character, end line and character) and its text."""


@attrs.frozen
class Change:
    """One ``didChange``: the document went from ``before`` to ``after`` at ``version``."""

    version: int
    before: str
    after: str
    changes: tuple[PlainChange, ...] | None
    """The change's ranges, or None when the client sent the whole text."""


class TextHistory:
    """``uri -> current text`` and ``uri -> the last changes, oldest first``."""

    def __init__(self) -> None:
        self._current: dict[str, str] = {}
        self._changes: dict[str, deque[Change]] = {}

    def opened(self, uri: str, text: str) -> None:
        self._current[uri] = text
        self._changes.pop(uri, None)

    def changed(
        self, uri: str, version: int, text: str, changes: Sequence[PlainChange] | None = None
    ) -> str | None:
        """The document reached ``version`` holding ``text``; return the text it had."""
        previous = self._current.get(uri)
        self._current[uri] = text
        if previous is None:
            self._changes.pop(uri, None)
            return None
        kept = self._changes.setdefault(uri, deque())
        kept.append(Change(version, previous, text, None if changes is None else tuple(changes)))
        size = sum(len(change.before) for change in kept)
        while len(kept) > 1 and (len(kept) > KEEP_CHANGES or size > KEEP_CHARS):
            size -= len(kept.popleft().before)
        return previous

    def since(self, uri: str, version: int) -> list[Change] | None:
        """The change that made ``version`` and every one after it, oldest first.

        None when no remembered change made it: the version the document was opened at,
        one too old, one that never was.
        """
        kept = list(self._changes.get(uri, ()))
        for index, change in enumerate(kept):
            if change.version == version:
                return kept[index:]
        return None

    def before(self, uri: str, version: int) -> str | None:
        """The text before the change that made ``version``, if it is remembered."""
        later = self.since(uri, version)
        return later[0].before if later else None

    def closed(self, uri: str) -> None:
        self._current.pop(uri, None)
        self._changes.pop(uri, None)
