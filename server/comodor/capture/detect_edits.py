"""Correction detectors for what the user cut or renamed: verbosity, comments, function names."""

from __future__ import annotations

import re
from collections import Counter

from comodor.capture.changes import compute_changes
from comodor.capture.findings import Edit, Finding, majority, plural
from comodor.capture.lexer import Lexed

VERBOSITY_MIN_LINES = 5
"""Deleting fewer code lines than this is an ordinary edit, not a verdict on verbosity."""
VERBOSITY_SHARE = 0.5
COMMENTS_MIN = 2
"""One deleted comment is often just stale; two or more is a pattern."""

_PRAGMA = re.compile(
    r"^(?:#!|#\s*(?:type:|noqa|pragma|pylint:|fmt:|-\*-)|//\s*(?:@ts-|eslint|prettier-ignore|"
    r"go:|nolint)|/\*\s*(?:eslint|global|istanbul|prettier-ignore))"
)
_FUNCTION_NAME: dict[str, re.Pattern[str]] = {
    "python": re.compile(r"^\s*(?:async\s+)?def\s+(\w+)"),
    "ruby": re.compile(r"^\s*def\s+(?:self\.)?(\w+)"),
    "go": re.compile(r"^\s*func\s+(?:\([^)]*\)\s*)?(\w+)"),
    "rust": re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?fn\s+(\w+)"),
}
_JS_FUNCTION = re.compile(
    r"^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*(\w+)"
    r"|^\s*(?:export\s+)?(?:const|let|var)\s+(\w+)\s*=\s*(?:async\s*)?(?:function\b|\(|\w+\s*=>)"
)
_SNAKE = re.compile(r"^_*[a-z][a-z0-9]*(?:_[a-z0-9]+)+_*$")
_CAMEL = re.compile(r"^_*[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+$")


def _is_pragma(text: str) -> bool:
    return bool(_PRAGMA.match(text))


def comments(edit: Edit) -> list[Finding]:
    """Vote "fewer" when the user deleted comments the agent wrote (net, pragmas aside)."""
    removed = sum(
        1
        for i in edit.changes.removed
        for c in edit.before.comments_on(i)
        if not _is_pragma(c.text)
    )
    added = sum(
        1 for j in edit.changes.added for c in edit.after.comments_on(j) if not _is_pragma(c.text)
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


def _function_name(line: str, language: str | None) -> str | None:
    if language in ("javascript", "typescript"):
        m = _JS_FUNCTION.match(line)
        return (m.group(1) or m.group(2)) if m else None
    pattern = _FUNCTION_NAME.get(language or "")
    m = pattern.match(line) if pattern else None
    return m.group(1) if m else None


def _casing(name: str) -> str | None:
    if _SNAKE.match(name):
        return "snake_case"
    if _CAMEL.match(name):
        return "camelCase"
    return None


def function_names(edit: Edit) -> list[Finding]:
    """Vote for the casing the user renamed the agent's new functions to."""
    votes: Counter[str] = Counter()
    renames: dict[str, str] = {}
    for i, j in edit.changes.pairs:
        old = _function_name(edit.before.masked[i], edit.language)
        new = _function_name(edit.after.masked[j], edit.language)
        if not old or not new or old == new:
            continue
        if old.replace("_", "").lower() != new.replace("_", "").lower():
            continue
        old_case, new_case = _casing(old), _casing(new)
        if new_case and old_case and new_case != old_case:
            votes[new_case] += 1
            renames[old] = new
    verdict = majority(votes["snake_case"], votes["camelCase"])
    if verdict is None:
        return []
    to_snake, count, _ = verdict
    value = "snake_case" if to_snake else "camelCase"
    chosen = {old: new for old, new in renames.items() if _casing(new) == value}
    return [
        Finding(
            "naming.functions",
            value,
            f"renamed {plural(count, 'function')} to {value}",
            renames=chosen,
        )
    ]
