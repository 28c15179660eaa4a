"""What the user changed: the lines agent→user, with replaced lines paired up.

Every correction analyser looks only at these lines. Pairing matters because a
convention is a before/after property of one line ("this string went from double to
single quotes"); a count over whole files would mostly measure the agent's own habits.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

import attrs

PAIR_MIN_RATIO = 0.5
PAIR_LOOKAHEAD = 25


@attrs.frozen
class ChangeSet:
    """The changed lines of one correction (0-based line indices)."""

    before: tuple[str, ...]
    after: tuple[str, ...]
    removed: tuple[int, ...]
    added: tuple[int, ...]
    pairs: tuple[tuple[int, int], ...]
    """(before line, after line) of replaced lines that are edits of each other."""
    hunks: tuple[tuple[range, range], ...] = ()
    """Each run of changed lines: (its lines before, its lines after); one may be empty."""

    @property
    def changed_lines(self) -> int:
        """Lines added plus lines removed."""
        return len(self.removed) + len(self.added)


def _similar(a: str, b: str) -> float:
    a, b = a.strip(), b.strip()
    if a == b:
        return 1.0
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    if matcher.real_quick_ratio() < PAIR_MIN_RATIO or matcher.quick_ratio() < PAIR_MIN_RATIO:
        return 0.0
    return matcher.ratio()


def _pair_block(
    before: tuple[str, ...], after: tuple[str, ...], rows: range, cols: range
) -> list[tuple[int, int]]:
    """Pair lines of one uneven replaced block in order, each with its most similar partner.

    Blocks of equal size are paired line by line instead: detectors only vote when a
    pair differs by exactly their convention, so a wrong pairing costs a vote, never
    invents one.
    """
    pairs: list[tuple[int, int]] = []
    j_next, j2 = cols.start, cols.stop
    for i in rows:
        best_j, best = -1, PAIR_MIN_RATIO
        for j in range(j_next, min(j2, j_next + PAIR_LOOKAHEAD)):
            score = _similar(before[i], after[j])
            if score >= best:
                best_j, best = j, score
                if score == 1.0:
                    break
        if best_j >= 0:
            pairs.append((i, best_j))
            j_next = best_j + 1
    return pairs


def common_ends(before: Sequence[str], after: Sequence[str]) -> tuple[int, int]:
    """Lines shared at the start and at the end (the end never overlaps the start)."""
    limit = min(len(before), len(after))
    head = 0
    while head < limit and before[head] == after[head]:
        head += 1
    tail = 0
    while tail < limit - head and before[-1 - tail] == after[-1 - tail]:
        tail += 1
    return head, tail


def compute_changes(before_text: str, after_text: str) -> ChangeSet:
    """Diff agent→user by lines and pair the replaced lines within each hunk.

    The shared first and last lines are set aside before diffing: a correction
    touches a few lines of a file, and difflib's cost grows with the square of
    what it is given, so a 5,000-line file costs what its edited middle costs.
    """
    before = tuple(before_text.splitlines())
    after = tuple(after_text.splitlines())
    head, tail = common_ends(before, after)
    matcher = difflib.SequenceMatcher(
        None, before[head : len(before) - tail], after[head : len(after) - tail], autojunk=False
    )
    removed: list[int] = []
    added: list[int] = []
    pairs: list[tuple[int, int]] = []
    hunks: list[tuple[range, range]] = []
    for tag, a1, a2, b1, b2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        i1, i2, j1, j2 = a1 + head, a2 + head, b1 + head, b2 + head
        hunks.append((range(i1, i2), range(j1, j2)))
        removed.extend(range(i1, i2))
        added.extend(range(j1, j2))
        if tag == "replace" and i2 - i1 == j2 - j1:
            pairs.extend(zip(range(i1, i2), range(j1, j2), strict=True))
        elif tag == "replace":
            pairs.extend(_pair_block(before, after, range(i1, i2), range(j1, j2)))
    return ChangeSet(
        before=before,
        after=after,
        removed=tuple(removed),
        added=tuple(added),
        pairs=tuple(pairs),
        hunks=tuple(hunks),
    )


_HUNK = re.compile(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@")


def unified_diff(before_text: str, after_text: str, context: int = 1) -> str:
    """Return the agent→user unified diff of the changed hunks only, with minimal context."""
    before = before_text.splitlines()
    after = after_text.splitlines()
    head, tail = common_ends(before, after)
    start = max(0, head - context)
    stop_before = len(before) - max(0, tail - context)
    stop_after = len(after) - max(0, tail - context)
    lines = difflib.unified_diff(
        before[start:stop_before],
        after[start:stop_after],
        fromfile="agent",
        tofile="user",
        n=context,
        lineterm="",
    )

    def shift(match: re.Match[str]) -> str:
        old, new = int(match.group(1)) + start, int(match.group(3)) + start
        return f"@@ -{old}{match.group(2) or ''} +{new}{match.group(4) or ''} @@"

    text = "\n".join(_HUNK.sub(shift, line) for line in lines)
    return text + "\n" if text else ""
