"""Reading indentation: which character, and how many columns make one level.

The unit is the most common *increase* of indentation between consecutive code lines,
not the greatest common divisor or the smallest indent: a single aligned continuation
line (two spaces under a bracket) must not turn 4-space code into "2".
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

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
