"""Correction detectors for what the user cut: verbosity and comments."""

from __future__ import annotations

import re

from .changes import compute_changes
from .findings import Edit, Finding, plural
from .lexer import Lexed

VERBOSITY_MIN_LINES = 5
"""Deleting fewer code lines than this is an ordinary edit, not a verdict on verbosity."""
VERBOSITY_SHARE = 0.5
COMMENTS_MIN = 2
"""One deleted comment is often just stale; two or more is a pattern."""

_PRAGMA = re.compile(
    r"^(?:#!|#\s*(?:type:|noqa|pragma|pylint:|fmt:|-\*-)|//\s*(?:@ts-|eslint|prettier-ignore|"
    r"go:|nolint)|/\*\s*(?:eslint|global|istanbul|prettier-ignore))"
)


def _is_pragma(text: str) -> bool:
    return bool(_PRAGMA.match(text))


def comments(edit: Edit) -> list[Finding]:
    """Vote "fewer" when the user deleted comments the agent wrote (net, pragmas aside).

    Only runs of changed lines whose code stayed the same count: comments that went
    with the code they described were deleted with it, not for being comments.
    """
    removed = added = 0
    for old_lines, new_lines in edit.changes.hunks:
        old_code = "".join(edit.before.squashed(i) for i in old_lines)
        if old_code != "".join(edit.after.squashed(j) for j in new_lines):
            continue
        removed += sum(
            1 for i in old_lines for c in edit.before.comments_on(i) if not _is_pragma(c.text)
        )
        added += sum(
            1 for j in new_lines for c in edit.after.comments_on(j) if not _is_pragma(c.text)
        )
    net = removed - added
    if net < COMMENTS_MIN:
        return []
    return [Finding("comments", "fewer", f"deleted {plural(net, 'comment')} the agent wrote")]


def _code_lines(lexed: Lexed, indices: tuple[int, ...] | range) -> int:
    return sum(1 for k in indices if k < len(lexed.masked) and lexed.masked[k].strip())


def verbosity(edit: Edit, baseline: str | None) -> list[Finding]:
    """Vote "concise" when the user deleted most of the code the agent wrote.

    Without ``baseline`` (the file before the agent touched it) every code line of the
    agent's text counts as the agent's; with it, only the lines the agent added do.
    """
    if baseline is None:
        agent_lines = _code_lines(edit.before, range(len(edit.before.masked)))
    else:
        written = compute_changes(baseline, "\n".join(edit.before.lines))
        agent_lines = _code_lines(edit.before, written.added)
    net_removed = _code_lines(edit.before, edit.changes.removed) - _code_lines(
        edit.after, edit.changes.added
    )
    if agent_lines == 0 or net_removed < VERBOSITY_MIN_LINES:
        return []
    if net_removed < VERBOSITY_SHARE * agent_lines:
        return []
    shown = min(net_removed, agent_lines)
    return [
        Finding(
            "verbosity",
            "concise",
            f"deleted {shown} of the {plural(agent_lines, 'code line')} the agent wrote",
        )
    ]
