"""Reading indentation: which character, how many columns make one level, how deep a line is.

The unit is the most common *increase* of indentation between consecutive code lines,
not the greatest common divisor or the smallest indent: a single aligned continuation
line (two spaces under a bracket) must not turn 4-space code into "2".

A line's *depth* is how many indented blocks enclose it, read from the stack of
indentation widths above it, never from its width divided by a unit: a line that
moved from 4 to 8 columns because the user wrapped it in a new ``with`` block is one
level deeper, not re-indented to 8 spaces per level.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

WIDTHS = (2, 4, 8)
_LEADING = re.compile(r"^([ \t]*)\S", re.MULTILINE)


def leading(line: str) -> str:
    """Return the leading whitespace of ``line``."""
    return line[: len(line) - len(line.lstrip(" \t"))]


def indent_char(line: str) -> str | None:
    """Return "tabs" or "spaces" for an indented line, None when not indented or mixed."""
    lead = leading(line)
    if not lead or not line.strip():
        return None
    if set(lead) == {"\t"}:
        return "tabs"
    if set(lead) == {" "}:
        return "spaces"
    return None


def indent_unit(lines: Iterable[str]) -> int | None:
    """Return 2, 4 or 8: the usual step between space-indented levels, or None if unseen."""
    steps: Counter[int] = Counter()
    previous = 0
    for lead in _LEADING.findall("\n".join(lines)):
        if "\t" in lead:
            previous = 0
            continue
        width = len(lead)
        if width > previous:
            steps[width - previous] += 1
        previous = width
    ranked = [(count, -step) for step, count in steps.items() if step in WIDTHS]
    if not ranked:
        return None
    return -max(ranked)[1]


def nesting_depths(lines: Sequence[str]) -> list[int | None]:
    """Return each line's depth (enclosing indented blocks); None for blank lines.

    Pass masked code (comments and string bodies blanked) so that neither a comment
    at an odd column nor the inside of a multi-line string moves the stack. A line
    that dedents to a column no enclosing line used (a misaligned continuation) has
    no readable depth either.
    """
    stack = [0]
    depths: list[int | None] = []
    for line in lines:
        if not line.strip():
            depths.append(None)
            continue
        width = len(leading(line))
        if width > stack[-1]:
            stack.append(width)
        else:
            while width < stack[-1]:
                stack.pop()
            if width != stack[-1]:
                stack.append(width)
                depths.append(None)
                continue
        depths.append(len(stack) - 1)
    return depths
