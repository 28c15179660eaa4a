"""What a violation detector reports: where a rule is broken, and the edit that mends it."""

from __future__ import annotations

import bisect
from collections.abc import Callable
from functools import cached_property

import attrs

Position = tuple[int, int]
"""(line, column): 0-based, columns in code points of the document's text."""


@attrs.frozen(order=True)
class Replacement:
    """Replace the text from ``start`` to ``end`` with ``text`` (an insertion when equal)."""

    start: Position
    end: Position
    text: str


@attrs.frozen
class Fix:
    """An edit that makes a place follow the rule, as one unit (all or nothing)."""

    title: str
    replacements: tuple[Replacement, ...]


Fixer = Callable[[], "Fix | None"]


@attrs.frozen(slots=False)
class Violation:
    """One place that breaks the rule ``key = value``."""

    key: str
    value: str
    start: Position
    end: Position
    fixer: Fix | Fixer | None = attrs.field(default=None, eq=False, repr=False)
    """The fix, or how to work it out: locating a place is cheap, proving a rename safe
    is not, and diagnostics need only the places (code actions ask for the fixes)."""

    @cached_property
    def fix(self) -> Fix | None:
        """The edit that mends this place; None when none can be trusted to keep the meaning."""
        fixer = self.fixer
        return fixer() if callable(fixer) else fixer


def merge_fixes(fixes: list[Fix]) -> tuple[Replacement, ...]:
    """All the fixes that fit together, in document order, for "fix all".

    A fix is taken whole or not at all (half a rename breaks code). Identical fixes
    (every line of one re-indented block reports the same block fix) count once; a
    fix that overlaps one already taken is left for the next run.
    """
    taken: list[Replacement] = []
    """Sorted; pairwise apart (or equal), so their ends are sorted too."""
    seen: set[tuple[Replacement, ...]] = set()
    for fix in fixes:
        if fix.replacements in seen:
            continue
        seen.add(fix.replacements)
        if any(_collides(new, taken) for new in fix.replacements):
            continue
        for replacement in fix.replacements:
            bisect.insort(taken, replacement)
    return tuple(sorted(set(taken)))


def _collides(new: Replacement, taken: list[Replacement]) -> bool:
    """Whether ``new`` overlaps a replacement of ``taken`` (only its neighbours can).

    A 5,000-line file has thousands of fixes: comparing each with every one taken
    made fix-all quadratic (over a second); this is a bisection and a few looks.
    """
    index = bisect.bisect_left(taken, new)
    for old in reversed(taken[max(0, index - 2) : index]):
        if _overlaps(new, old):
            return True
        if old.end <= new.start:
            break  # every earlier one ends earlier still
    for old in taken[index:]:
        if old.start >= new.end and old.start != new.start:
            break
        if _overlaps(new, old):
            return True
    return False


def _overlaps(a: Replacement, b: Replacement) -> bool:
    if a == b:
        return False
    if a.start == a.end == b.start == b.end:
        return True  # two insertions at one place: their order would be a guess
    return a.start < b.end and b.start < a.end
