"""Where an assistant's text stands in an open document, as the user goes on editing it.

An assistant that edits inside the editor (chat edits, agent mode, an accepted inline
completion: ``comodor/assistantEdit``) owns only the lines it wrote; the rest of the
document stays the user's. A *region* is a run of whole lines the assistant wrote,
with the text it wrote there (its ``original``). Every later change of the document
moves the regions (lines inserted above shift them), and a change that touches a
region makes it span whatever now stands there, while its ``original`` stays the
assistant's.

At a save, :func:`assistant_view` puts each region's original back into the saved
text: that is the document as the assistant left it, with every edit of the user
*outside* the regions kept. Diffing it against the saved text shows exactly the
user's changes of the assistant's lines, and nothing else; that is what a correction
is analysed on.

Plain data and pure functions, so the judgement is tested without an editor.
Positions are 0-based lines; a region spans ``[start, end)``.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence

import attrs


@attrs.frozen
class Region:
    """Lines ``[start, end)`` of the current text that the assistant wrote as ``original``."""

    start: int
    end: int
    original: tuple[str, ...]


@attrs.frozen
class LineChange:
    """One change of a document: old lines ``[start, end]`` became ``new_lines`` lines.

    LSP's incremental ``didChange`` replaces a character range; seen by line, the
    lines from the range's first to its last become the lines of the result (a
    change inside one line replaces that line with one line).
    """

    start: int
    end: int
    """The last old line the change touched (inclusive)."""
    new_lines: int


def lines_of(text: str) -> list[str]:
    """The document's lines as LSP counts them (a final newline opens an empty last line)."""
    return text.split("\n")


def spans_of(ranges: Iterable[tuple[int, int]], line_count: int) -> list[tuple[int, int]]:
    """Merged ``[start, end)`` line spans for ``(first line, last line)`` pairs, sorted."""
    spans = sorted((max(0, first), min(line_count, last + 1)) for first, last in ranges)
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if end <= start:
            continue
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def whole_changes(old: Sequence[str], new: Sequence[str]) -> list[LineChange]:
    """The line changes that turn ``old`` into ``new``, bottom up (a client sending whole texts).

    Bottom up, each change is in ``old``'s coordinates: nothing above it has moved yet.
    A pure insertion replaces no old line (``end`` is ``start - 1``).
    """
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    changes = [
        LineChange(i1, i2 - 1, j2 - j1)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]
    return changes[::-1]


def shift(regions: Sequence[Region], change: LineChange, old: Sequence[str]) -> list[Region]:
    """The regions after ``change`` of ``old``: moved, and grown where the change touches them.

    Regions the change overlaps (or lines the change joins them with) become one
    region spanning the change; its original is theirs, joined by the old lines that
    stood between them, so the assistant's text is never lost to a user's edit.
    """
    first, last = change.start, change.end + 1  # old lines [first, last) were replaced
    delta = change.new_lines - (last - first)
    before = [region for region in regions if region.end <= first]
    after = [
        Region(region.start + delta, region.end + delta, region.original)
        for region in regions
        if region.start >= last
    ]
    touched = [region for region in regions if region.end > first and region.start < last]
    if not touched:
        return [*before, *after]
    start = min(first, touched[0].start)
    end = max(last, touched[-1].end)
    original: list[str] = list(old[start : touched[0].start])
    for index, region in enumerate(touched):
        original.extend(region.original)
        following = touched[index + 1].start if index + 1 < len(touched) else end
        original.extend(old[region.end : following])
    grown = Region(start, end + delta, tuple(original))
    return [*before, grown, *after]


def add_spans(
    regions: Sequence[Region], spans: Sequence[tuple[int, int]], current: Sequence[str]
) -> list[Region]:
    """The regions after the assistant wrote the lines ``spans`` of ``current``.

    A new span that overlaps an older region takes it over, as it stands now: the
    assistant rewrote those lines, so what it wrote is the text to correct.
    """
    result = list(regions)
    for first, last in spans:
        overlapping = [r for r in result if r.end > first and r.start < last]
        start = min([first, *(r.start for r in overlapping)])
        end = max([last, *(r.end for r in overlapping)])
        result = [r for r in result if r not in overlapping]
        result.append(Region(start, end, tuple(current[start:end])))
        result.sort(key=lambda region: region.start)
    return result


def assistant_view(current: Sequence[str], regions: Sequence[Region]) -> list[str]:
    """``current`` with each region's lines replaced by what the assistant wrote there."""
    view: list[str] = []
    at = 0
    for region in regions:
        view.extend(current[at : region.start])
        view.extend(region.original)
        at = region.end
    view.extend(current[at:])
    return view


def settle(current: Sequence[str], regions: Sequence[Region]) -> list[Region]:
    """The regions after a save counted the user's changes: what stands now is the baseline.

    The next save is compared with this one (each correction counts once), so each
    region's original becomes its current text.
    """
    return [Region(r.start, r.end, tuple(current[r.start : r.end])) for r in regions]


@attrs.frozen
class TextChange:
    """One LSP content change: the character range (UTF-16 columns) and its new text."""

    start_line: int
    start_character: int
    end_line: int
    end_character: int
    text: str

    def by_line(self) -> LineChange:
        return LineChange(self.start_line, self.end_line, self.text.count("\n") + 1)


def _column(line: str, character: int) -> int:
    """The Python index of UTF-16 column ``character`` in ``line`` (LSP's default encoding)."""
    if line.isascii():
        return min(character, len(line))
    units = line.encode("utf-16-le")[: 2 * max(0, character)]
    return len(units.decode("utf-16-le", errors="ignore"))


def apply_change(lines: Sequence[str], change: TextChange) -> list[str]:
    """``lines`` after ``change`` (for the intermediate texts of a multi-change ``didChange``)."""
    first = min(change.start_line, len(lines) - 1)
    last = min(change.end_line, len(lines) - 1)
    head = lines[first][: _column(lines[first], change.start_character)]
    tail = lines[last][_column(lines[last], change.end_character) :]
    middle = lines_of(head + change.text + tail)
    return [*lines[:first], *middle, *lines[last + 1 :]]


def follow(
    regions: Sequence[Region], before: str, after: str, changes: Sequence[TextChange] | None
) -> list[Region]:
    """The regions after one ``didChange`` from ``before`` to ``after``.

    ``changes`` are its incremental changes in order (each in the coordinates the one
    before it left), or None when the client sent the whole text.
    """
    old = lines_of(before)
    if not changes:
        result = list(regions)
        for line_change in whole_changes(old, lines_of(after)):
            result = shift(result, line_change, old)
        return result
    result = list(regions)
    for index, change in enumerate(changes):
        result = shift(result, change.by_line(), old)
        if index + 1 < len(changes):
            old = apply_change(old, change)
    return result
