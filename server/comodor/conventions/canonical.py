"""Tell a change of logic from a change of convention by comparing canonical forms.

Both sides are reduced to what a convention cannot change: comments, docstrings,
whitespace, quote style, statement-ending semicolons, trailing commas and return
annotations are dropped; Python keeps its block structure as nesting depth, so moving a
statement in or out of a block still counts. If the two forms differ, the user changed
what the code does (or says), not just how it is written.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from .changes import common_ends
from .indent_reading import leading
from .languages import JS_LIKE
from .lexer import PLACEHOLDER, Lexed, lex

_OPENERS = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}
_JS_OPENERS = {"(": 1, "[": 1, ")": -1, "]": -1}
_COMMA_BEFORE_CLOSER = re.compile(r",(\n?[)\]}])")
_RETURN_ANNOTATION = re.compile(r"^((?:async)?def\w+\(.*\))->.*:$")
_LONE_DOCSTRING = re.compile(r'^[rRuU]?"""(?:.|\n)*"""$')


def _bracket_delta(code: str, table: Mapping[str, int]) -> int:
    return sum(code.count(ch) * delta for ch, delta in table.items())


def _renamer(renames: Mapping[str, str]) -> re.Pattern[str] | None:
    if not renames:
        return None
    words = "|".join(sorted((re.escape(w) for w in renames), key=len, reverse=True))
    return re.compile(rf"(?<![\w\x01]){'(?:' + words + ')'}(?![\w\x02])")


def _logical_lines(lexed: Lexed, language: str | None, renames: Mapping[str, str]) -> list[str]:
    python = language == "python"
    table = _JS_OPENERS if language in JS_LIKE else _OPENERS
    renamer = _renamer(renames)

    def rename(text: str) -> str:
        return renamer.sub(lambda m: renames[m.group(0)], text) if renamer else text

    out: list[str] = []
    stack = [0]
    pending: list[str] = []
    depth = 0
    prefix = ""
    for raw in lexed.masked:
        if not raw.strip() and not pending:
            continue
        code = renamer.sub(lambda m: renames[m.group(0)], raw) if renamer else raw
        if not pending and python:
            width = len(leading(code).expandtabs(8))
            if width > stack[-1]:
                stack.append(width)
            while len(stack) > 1 and width < stack[-1]:
                stack.pop()
            prefix = f"{len(stack) - 1}|"
        pending.append(code)
        depth += _bracket_delta(PLACEHOLDER.sub("", code), table)
        if depth > 0 or code.rstrip().endswith("\\"):
            continue
        depth = 0
        text = lexed.spell("".join(pending), rename)
        pending = []
        if language in JS_LIKE:
            text = text.rstrip(";")
        if python:
            if _LONE_DOCSTRING.match(text):
                continue
            text = _RETURN_ANNOTATION.sub(r"\1:", text)
        if text:
            out.append(prefix + text)
    if pending:
        out.append(prefix + lexed.spell("".join(pending), rename))
    return out


def canonical(lexed: Lexed, language: str | None, renames: Mapping[str, str]) -> str:
    """Reduce lexed code to what no convention in the catalog can change."""
    joined = "\n".join(_logical_lines(lexed, language, renames))
    return _COMMA_BEFORE_CLOSER.sub(r"\1", joined)


def substitute(
    before: tuple[str, ...], after: tuple[str, ...], pairs: Iterable[tuple[int, int]]
) -> str:
    """Return ``before`` with explained lines taken from ``after``, keeping their indentation."""
    lines = list(before)
    for i, j in pairs:
        lines[i] = leading(before[i]) + after[j].lstrip(" \t")
    return "\n".join(lines)


def logic_changed(
    before: Lexed,
    after: Lexed,
    language: str | None,
    *,
    explained: Iterable[tuple[int, int]] = (),
    renames: Mapping[str, str] | None = None,
    setup: Iterable[int] = (),
) -> bool:
    """Whether the edit changed more than the conventions that explain it."""
    explained = list(explained)
    before_lines = before.lines
    if explained:
        before_lines = tuple(substitute(before.lines, after.lines, explained).split("\n"))
    after_lines = after.lines
    dropped = set(setup)
    if dropped:
        after_lines = tuple(line for k, line in enumerate(after.lines) if k not in dropped)
    # Lex only the edited region: the shared start and end cannot differ canonically.
    before_window, after_window = _edited_window(before_lines, after_lines)
    before_lexed = lex("\n".join(before_window), language)
    after_lexed = lex("\n".join(after_window), language)
    return canonical(before_lexed, language, renames or {}) != canonical(after_lexed, language, {})


def _top_level(line: str) -> bool:
    return bool(line) and not line[0].isspace() and line.lstrip()[:1] not in (")", "]", "}")


def _edited_window(
    before: tuple[str, ...], after: tuple[str, ...]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The region both sides differ in, widened to top-level lines at both ends.

    Lines shared at the start and the end cannot differ in canonical form by
    themselves; cutting at a line that starts in column 0 (a new top-level
    statement) keeps block nesting and brackets intact inside the window, so a
    5,000-line file costs what its edited region costs.
    """
    head, tail = common_ends(before, after)
    start = head
    while start > 0 and (start >= len(before) or not _top_level(before[start])):
        start -= 1
    end_before, end_after = len(before) - tail, len(after) - tail
    while end_before < len(before) and not _top_level(before[end_before]):
        end_before += 1
        end_after += 1
    return before[start:end_before], after[start:end_after]
