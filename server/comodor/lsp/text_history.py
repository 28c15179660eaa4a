"""The texts each open document had over its last few changes.

pygls applies a ``didChange`` to its copy of the document before our handler runs,
so the text *before* a change is gone by then. An assistant's edit is announced
right after the change that carried it (``comodor/assistantEdit`` names that
version), and capture needs the text it replaced. The announcement may come after
later changes, though: the user typing on right after accepting a completion gets
there first (the client decides on a short burst of changes before it tells). So
this keeps the last few changes of each open document (what each replaced, and their
ranges), and the notice's lines can be moved through the changes that followed it.

Each change is kept as what it took out, not as the whole text it replaced: a keystroke
in a 5,000-line file is one character to keep, where a copy of the file is 190 kB (and
a burst of 21 such copies stayed resident for good, ~4 MB of an idle server's memory).
The texts are rebuilt from the current one, newest change first, only when a notice
asks for them.

Bounded: at most :data:`KEEP_CHANGES` changes and about :data:`KEEP_CHARS` characters
of replaced text per document (the newest change is always kept).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

import attrs

KEEP_CHANGES = 32
"""Changes remembered per document: a burst of fast typing after the assistant's edit."""
KEEP_CHARS = 4_000_000
"""Characters of replaced text remembered per document, whatever the count."""

PlainChange = tuple[int, int, int, int, str]
"""A ``didChange`` range (start line and character, end line and character) and its text."""

_FIRST_STEP = 4096
"""Characters compared at once when looking for where two texts differ (then doubled)."""


@attrs.frozen
class Change:
    """One ``didChange``: the document went from ``before`` to ``after`` at ``version``."""

    version: int
    before: str
    after: str
    changes: tuple[PlainChange, ...] | None
    """The change's ranges, or None when the client sent the whole text."""


@attrs.frozen
class _Undo:
    """One change, as what undoes it: ``after[:start] + removed + after[start + inserted:]``."""

    version: int
    start: int
    removed: str
    inserted: int
    changes: tuple[PlainChange, ...] | None

    def undone(self, after: str) -> str:
        """The text before this change, from the text it made."""
        return after[: self.start] + self.removed + after[self.start + self.inserted :]


def _common_prefix(a: str, b: str) -> int:
    """How many leading characters ``a`` and ``b`` share.

    Compared in slices that double in size (C-speed comparisons, few of them), then the
    differing slice is halved down; ``startswith`` at an offset copies only one side.
    """
    limit = min(len(a), len(b))
    low, step = 0, _FIRST_STEP
    while low < limit:
        high = min(limit, low + step)
        if not a.startswith(b[low:high], low):
            break
        low, step = high, step * 2
    else:
        return limit
    while low < high:  # a[:low] matches; they differ before ``high``
        middle = (low + high + 1) // 2
        if a.startswith(b[low:middle], low):
            low = middle
        else:
            high = middle - 1
    return low


def _common_suffix(a: str, b: str, limit: int) -> int:
    """How many trailing characters ``a`` and ``b`` share, at most ``limit``."""
    low, step = 0, _FIRST_STEP
    while low < limit:
        high = min(limit, low + step)
        if not a.startswith(b[len(b) - high : len(b) - low], len(a) - high):
            break
        low, step = high, step * 2
    else:
        return limit
    while low < high:  # the last ``low`` match; they differ within the last ``high``
        middle = (low + high + 1) // 2
        if a.startswith(b[len(b) - middle : len(b) - low], len(a) - middle):
            low = middle
        else:
            high = middle - 1
    return low


def _undo(version: int, before: str, after: str, changes: tuple[PlainChange, ...] | None) -> _Undo:
    """What turns ``after`` back into ``before``: the span between what they share."""
    start = _common_prefix(before, after)
    end = _common_suffix(before, after, min(len(before), len(after)) - start)
    return _Undo(
        version, start, before[start : len(before) - end], len(after) - start - end, changes
    )


class TextHistory:
    """``uri -> current text`` and ``uri -> the last changes, oldest first``."""

    def __init__(self) -> None:
        self._current: dict[str, str] = {}
        self._changes: dict[str, deque[_Undo]] = {}

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
        kept.append(_undo(version, previous, text, None if changes is None else tuple(changes)))
        size = sum(len(change.removed) for change in kept)
        while len(kept) > 1 and (len(kept) > KEEP_CHANGES or size > KEEP_CHARS):
            size -= len(kept.popleft().removed)
        return previous

    def since(self, uri: str, version: int) -> list[Change] | None:
        """The change that made ``version`` and every one after it, oldest first.

        None when no remembered change made it: the version the document was opened at,
        one too old, one that never was.
        """
        kept = list(self._changes.get(uri, ()))
        first = next((i for i, change in enumerate(kept) if change.version == version), None)
        if first is None:
            return None
        after = self._current[uri]
        rebuilt: list[Change] = []
        for undo in reversed(kept[first:]):
            before = undo.undone(after)
            rebuilt.append(Change(undo.version, before, after, undo.changes))
            after = before
        rebuilt.reverse()
        return rebuilt

    def before(self, uri: str, version: int) -> str | None:
        """The text before the change that made ``version``, if it is remembered."""
        later = self.since(uri, version)
        return later[0].before if later else None

    def closed(self, uri: str) -> None:
        self._current.pop(uri, None)
        self._changes.pop(uri, None)
