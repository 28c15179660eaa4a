"""What the user changed: the lines agent→user, with replaced lines paired up.

Every correction analyser looks only at these lines. Pairing matters because a
convention is a before/after property of one line ("this string went from double to
single quotes"); a count over whole files would mostly measure the agent's own habits.
"""

from __future__ import annotations

import difflib

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


def compute_changes(before_text: str, after_text: str) -> ChangeSet:
    """Diff agent→user by lines and pair the replaced lines within each hunk."""
    before = tuple(before_text.splitlines())
    after = tuple(after_text.splitlines())
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    removed: list[int] = []
    added: list[int] = []
    pairs: list[tuple[int, int]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
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
    )


def unified_diff(before_text: str, after_text: str, context: int = 1) -> str:
    """Return the agent→user unified diff of the changed hunks only, with minimal context."""
    lines = difflib.unified_diff(
        before_text.splitlines(),
        after_text.splitlines(),
        fromfile="agent",
        tofile="user",
        n=context,
        lineterm="",
    )
    text = "\n".join(lines)
    return text + "\n" if text else ""
