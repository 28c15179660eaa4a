"""Checking a document again after an edit: only the top-level blocks that changed.

A user types one character in a 5,000-line file; reading the whole file again costs
far more than the line that changed. So a document is read as *segments* that start
at a top-level line: a line at column 0 that begins with code, outside any string,
comment or bracket and not continuing the line before. At such a line every reader
starts afresh: the lexer is outside every literal, no bracket is open, the nesting
depth is 0. A segment can therefore be read on its own, and what it breaks is what
the whole document's reading would say of those lines — with two exceptions handled
here:

- a JavaScript line's verdict depends on the next code line (``a`` then ``(b)`` is
  one statement): each segment is read knowing the first code line after it, and the
  segment before an edit is read again with it;
- a whole-module import (``import os`` under "import names") breaks the rule only if
  the module is read as ``os.path`` *somewhere*: each segment keeps its own uses and
  the verdict is taken over all of them.

Some detectors look back over a line break: what precedes a bracket (``foo`` then a
``[`` at column 0 is judged as an index), the line above a ``{`` (a block or an
object). So a segment starts only at a line that begins with a name or keyword (or
``@``): no lookback from such a line crosses into the segment before. Nor does one
start right under a decorator (today only a fix reads the decorators above a
``def``; a detector that reads them stays right).

After an edit, the lines common to the old and new text at both ends are kept; the
segments the changed lines touch are read again as one region, which must end where a
segment may start (else it grows to the next old segment start, up to the end).
:class:`DocumentChecker` gives the same places as :func:`find_violations` (a test
replays random edits of real files to prove it), without their fixes: code actions
work those out on the whole text.
"""

from __future__ import annotations

import bisect
import re
import threading
from collections.abc import Callable, Mapping
from typing import TypeVar

import attrs

from .detectors import DETECTORS
from .imports import WHOLE_MODULE_VALUES, module_uses, whole_module_imports
from .model import Violation
from .source import Source

_Item = TypeVar("_Item")

_WHOLE_FILE = frozenset({"python.import_style", "js.import_style"})


@attrs.define
class _Segment:
    start: int
    """First line (in the document's current numbering)."""
    count: int
    """How many lines."""
    source: Source
    span: tuple[int, int]
    """The segment's offsets in ``source`` (segments read together share one source)."""
    found: dict[str, list[Violation]]
    """Violations of the segment's own reading (lines relative to ``start``), no fixes."""
    candidates: dict[str, list[tuple[Violation, str]]]
    """Whole-module imports, by key: whether they break the rule is decided document-wide."""
    uses: dict[str, dict[str, bool]] = attrs.Factory(dict)
    """By key: which module names the segment reads as ``name.member``."""
    placed: tuple[int, dict[str, list[Violation]]] | None = None
    """``found`` renumbered for the document, and the start it was renumbered for."""

    def in_document(self) -> dict[str, list[Violation]]:
        """The segment's violations in the document's numbering (kept until it moves)."""
        if self.placed is None or self.placed[0] != self.start:
            moved = {rule: [_moved(v, self.start) for v in vs] for rule, vs in self.found.items()}
            self.placed = (self.start, moved)
        return self.placed[1]


_STARTS_WITH_A_WORD = re.compile(r"[A-Za-z_$@]")


def _starts_segment(source: Source, line: int) -> bool:
    """Whether ``line`` of ``source`` is a top-level line a reading may start at."""
    if not _STARTS_WITH_A_WORD.match(source.code[line]) or source.starts_inside[line]:
        return False
    if source.enclosing[line] >= 0 or source.continuation[line]:
        return False
    return not _under_a_decorator(source, line)


def _under_a_decorator(source: Source, line: int) -> bool:
    """Whether the code line above ``line`` (comments skipped) is a decorator."""
    above = next((k for k in range(line - 1, -1, -1) if not source.is_blank(k)), None)
    return above is not None and source.code[above].lstrip().startswith("@")


def _code_of_line(text: str, language: str | None) -> str | None:
    """The stripped code of a line that starts a segment (strings, comments blanked)."""
    return Source(text, language).code[0].strip()


def _clean_end(source: Source) -> bool:
    """Whether the text ends where a new segment could start (nothing left open)."""
    if any(pair.close < 0 for pair in source.pairs):
        return False
    last = next((code for code in reversed(source.code) if code.strip()), "")
    if last.rstrip().endswith("\\") or last.lstrip().startswith("@"):
        return False
    end = len(source.text)
    return all(lit.closed or lit.end < end for lit in source.literals) and all(
        stop < end or not source.text[start:stop].startswith("/*")
        for start, stop in source.comments
    )


class DocumentChecker:
    """One document's last reading, kept to read only what an edit changed.

    Safe to share between threads: one check at a time (each one changes the reading).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._lines: tuple[str, ...] = ()
        self._key: tuple[str | None, str, tuple[tuple[str, str], ...]] | None = None
        self._segments: list[_Segment] = []

    def check(
        self, lines: tuple[str, ...], language: str | None, path: str, wanted: Mapping[str, str]
    ) -> dict[str, list[Violation]]:
        """The violations of ``wanted`` in the document made of ``lines`` (no fixes)."""
        key = (language, path, tuple(sorted(wanted.items())))
        with self._lock:
            if key != self._key or not self._segments:
                self._key = key
                self._segments = self._read(lines, 0, len(lines), language, path, wanted)
            else:
                self._update(lines, language, path, wanted)
            self._lines = lines
            return self._assemble(wanted)

    # -- reading ---------------------------------------------------------------------- #

    def _read(
        self,
        lines: tuple[str, ...],
        start: int,
        stop: int,
        language: str | None,
        path: str,
        wanted: Mapping[str, str],
    ) -> list[_Segment]:
        """Read lines ``[start, stop)`` as segments (one per top-level start inside)."""
        # ``lines[stop]`` (when there is one) starts the next segment: it has code.
        after = _code_of_line(lines[stop], language) if stop < len(lines) else None
        region = Source("\n".join(lines[start:stop]), language, path, after=after)
        starts = [0] + [k for k in range(1, len(region.lines)) if _starts_segment(region, k)]
        found: dict[str, list[Violation]] = {}
        candidates: dict[str, list[tuple[Violation, str]]] = {}
        for rule, value in wanted.items():
            if rule in _WHOLE_FILE and value in WHOLE_MODULE_VALUES:
                candidates[rule] = whole_module_imports(region, rule, value)
            elif rule in DETECTORS:
                found[rule] = DETECTORS[rule](region, rule, value, wanted)
        # One segment per region: what was read together is read again together. The
        # starts inside it are where the next edit's region may begin.
        found_by = _by_segment(found, starts, lambda violation: violation)
        candidates_by = _by_segment(candidates, starts, lambda pair: pair[0])
        segments: list[_Segment] = []
        for i, first in enumerate(starts):
            following = starts[i + 1] if i + 1 < len(starts) else None
            segments.append(
                _Segment(
                    start=start + first,
                    count=(following if following is not None else len(region.lines)) - first,
                    source=region,
                    span=(
                        region.line_starts[first],
                        region.line_starts[following]
                        if following is not None
                        else len(region.text) + 1,
                    ),
                    found={
                        rule: [_moved(v, -first) for v in parts[i]]
                        for rule, parts in found_by.items()
                    },
                    candidates={
                        rule: [(_moved(v, -first), alias) for v, alias in parts[i]]
                        for rule, parts in candidates_by.items()
                    },
                )
            )
        return segments

    def _update(
        self, lines: tuple[str, ...], language: str | None, path: str, wanted: Mapping[str, str]
    ) -> None:
        old = self._lines
        prefix = 0
        limit = min(len(old), len(lines))
        while prefix < limit and old[prefix] == lines[prefix]:
            prefix += 1
        if prefix == len(old) == len(lines):
            return  # nothing changed
        suffix = 0
        while (
            suffix < limit - prefix and old[len(old) - 1 - suffix] == lines[len(lines) - 1 - suffix]
        ):
            suffix += 1
        shift = len(lines) - len(old)
        segments = self._segments
        # The segment before the edit is read again: its last line's verdict may hang on
        # the first code line after it. It starts above every changed line, so it still
        # starts a segment (what precedes it is unchanged).
        first = max(0, _segment_at(segments, prefix) - 1)
        last = _segment_at(segments, max(prefix, len(old) - suffix - 1))
        step = 1
        while True:
            stop_old = segments[last].start + segments[last].count
            stop = stop_old + shift
            start = segments[first].start
            if stop <= start:  # every line up to the next segment was deleted
                fresh = []
                break
            fresh = self._read(lines, start, stop, language, path, wanted)
            if stop >= len(lines) or _clean_end(fresh[0].source):
                break
            if last + 1 >= len(segments):
                stop = len(lines)
                fresh = self._read(lines, start, stop, language, path, wanted)
                break
            # The edit left something open (a docstring, a bracket): read on to a later
            # old start, twice as many segments further each time (an unclosed """ is
            # read to the end in a few readings, not one per segment).
            last = min(last + step, len(segments) - 1)
            step *= 2
        tail = segments[last + 1 :]
        for segment in tail:
            segment.start += shift
        self._segments = [*segments[:first], *fresh, *tail]

    # -- assembling ---------------------------------------------------------------------- #

    def _assemble(self, wanted: Mapping[str, str]) -> dict[str, list[Violation]]:
        result: dict[str, list[Violation]] = {rule: [] for rule in wanted}
        for rule, value in wanted.items():
            if rule in _WHOLE_FILE and value in WHOLE_MODULE_VALUES:
                result[rule] = self._whole_module(rule)
        for segment in self._segments:
            for rule, found in segment.in_document().items():
                result.setdefault(rule, []).extend(found)
        return result

    def _whole_module(self, rule: str) -> list[Violation]:
        aliases = {
            alias for segment in self._segments for _, alias in segment.candidates.get(rule, [])
        }
        used: set[str] = set()
        for segment in self._segments:
            known = segment.uses.setdefault(rule, {})
            missing = aliases - set(known)
            if missing:
                known.update(module_uses(segment.source, missing, rule, segment.span))
            used |= {alias for alias in aliases if known.get(alias)}
        return [
            _moved(violation, segment.start)
            for segment in self._segments
            for violation, alias in segment.candidates.get(rule, [])
            if alias in used
        ]


def _segment_at(segments: list[_Segment], line: int) -> int:
    """The index of the segment holding ``line`` (old numbering)."""
    low, high = 0, len(segments) - 1
    while low < high:
        middle = (low + high + 1) // 2
        if segments[middle].start <= line:
            low = middle
        else:
            high = middle - 1
    return low


def _moved(violation: Violation, lines: int) -> Violation:
    (line, column), (end_line, end_column) = violation.start, violation.end
    return Violation(
        violation.key, violation.value, (line + lines, column), (end_line + lines, end_column)
    )


def _by_segment(
    found: Mapping[str, list[_Item]], starts: list[int], violation_of: Callable[[_Item], Violation]
) -> dict[str, list[list[_Item]]]:
    """Each rule's items split by the segment their first line falls in (one pass each).

    ``starts`` are the segments' first lines, ascending; a segment holds the lines up to
    the next start. Bisecting keeps a region of many segments linear in its size.
    """
    split: dict[str, list[list[_Item]]] = {}
    for rule, items in found.items():
        parts: list[list[_Item]] = [[] for _ in starts]
        for item in items:
            index = bisect.bisect_right(starts, violation_of(item).start[0]) - 1
            parts[max(index, 0)].append(item)
        split[rule] = parts
    return split
