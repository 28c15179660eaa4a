"""``js.semicolons``: JavaScript/TypeScript statements ended the other way.

Without a parser this detector must be sure a line ends a statement before it says
so. A line counts only when its end sits directly in a block (or at the top level:
not inside ``(``/``[``, an object literal, an enum or a type literal), its code ends
in something that can end a statement (a name, a literal, ``)``, ``]``, ``++``,
``--``, ``return``/``break``/``continue``), it is not the head of a statement that
goes on (``if (…)``, ``else``, a decorator, a bare name that may be an object's
shorthand member, JSX), and the next line does not continue it (``.``, ``?``, an
operator, or ``(``/``[``/a template literal, which JavaScript would glue on).
A closing ``}`` is never judged: it may end a block or an object.

Removing a semicolon is offered only where Automatic Semicolon Insertion gives the
same program: never before a line that starts with ``(``, ``[``, a template
literal, ``.`` or an operator.
"""

from __future__ import annotations

import re

from ...conventions.languages import JS_LIKE
from .model import Fix, Replacement, Violation
from .source import Source

_ENDS_STATEMENT = re.compile(r"(?:[\w$)\]'\"`]|\+\+|--)$")
_CONTINUES = re.compile(
    r"^(?:[.?:,=+\-*/%&|^<>!~]|in\b|of\b|as\b|instanceof\b|satisfies\b|extends\b|implements\b)"
)
_GLUED = re.compile(r"^[(\[`]")
_HEAD = re.compile(
    r"^(?:(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?"
    r"(?:if|for|while|do|else|switch|try|catch|finally|function\*?|class|interface|enum"
    r"|namespace|module|with)\b|case\b|default\s*:|@|<|\}\s*(?:else|catch|finally)\b)"
)
_KEYWORD_BEFORE_BRACKET = re.compile(r"\b(?:if|for|while|switch|catch|with)\s*$")
_OPEN_WORD = re.compile(
    r"\b(?:else|do|try|finally|async|await|new|typeof|void|yield|extends|implements|in|of"
    r"|instanceof|case|return\s+await)$"
)
_ALONE = frozenset({"return", "break", "continue", "debugger"})
_PROPERTY = re.compile(r"^(?:[\w$]+|'~*'|\"~*\"|\[[^\]]*\])\??\s*:")
_BARE_NAME = re.compile(r"^[\w$]+$")
_JSX = re.compile(r"</|/>|<[A-Za-z][\w.]*[\s>]|^\s*>")
_BLOCK_BEFORE_BRACE = re.compile(
    r"(?:\)|=>|\belse|\btry|\bfinally|\bdo|\bstatic)\s*$"
    r"|^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?"
    r"(?:class|interface|namespace|module)\b[^=]*$"
)


def find(source: Source, value: str) -> list[Violation]:
    if source.language not in JS_LIKE or value not in ("always", "never"):
        return []
    jsx = source.path.lower().endswith((".jsx", ".tsx"))
    found: list[Violation] = []
    following = _next_code_lines(source)
    for line in range(len(source.code)):
        text = source.code[line].rstrip()
        if not text.strip() or not _judged(source, line, jsx):
            continue
        after = following[line]
        if value == "always":
            if text.endswith(";") or not _ends_statement(text.strip()):
                continue
            if after is not None and (_CONTINUES.match(after) or _GLUED.match(after)):
                continue
            end = (line, len(text))
            fix = Fix("Add a semicolon", (Replacement(end, end, ";"),))
            found.append(Violation("js.semicolons", value, (line, len(text) - 1), end, fix))
        else:
            stripped = text.strip()
            if not stripped.endswith(";") or stripped == ";" or stripped.startswith("for"):
                continue
            if after is not None and (_CONTINUES.match(after) or _GLUED.match(after)):
                continue  # without the semicolon the next line would join this statement
            start, end = (line, len(text) - 1), (line, len(text))
            fix = Fix("Remove the semicolon", (Replacement(start, end, ""),))
            found.append(Violation("js.semicolons", value, start, end, fix))
    return found


def _judged(source: Source, line: int, jsx: bool) -> bool:
    """Whether the end of ``line`` ends a statement of a block, where a semicolon is style."""
    if source.starts_inside[line]:
        return False
    stripped = source.code[line].strip()
    closer_led = stripped[:1] in (")", "]")
    if not (source.is_statement_line(line) or closer_led):
        return False
    if _HEAD.match(stripped) or _PROPERTY.match(stripped) or (jsx and _JSX.search(stripped)):
        return False
    if closer_led and not _plain_statement_closed(source, line):
        return False
    end_context = source.enclosing[line + 1] if line + 1 < len(source.lines) else -1
    return _is_block(source, end_context)


def _plain_statement_closed(source: Source, line: int) -> bool:
    """A line like ``)`` or ``})`` closes a call, not the condition of an ``if``/``for``."""
    offset = source.line_starts[line] + len(source.code[line]) - len(source.code[line].lstrip())
    opener = source.open_of.get(offset)
    if opener is None:
        return False
    row, column = source.position(opener)
    head = source.code[row]
    return not (_HEAD.match(head.strip()) or _KEYWORD_BEFORE_BRACKET.search(head[:column]))


def _ends_statement(stripped: str) -> bool:
    if stripped in _ALONE:
        return True
    if _BARE_NAME.match(stripped) or _OPEN_WORD.search(stripped):
        return False
    return bool(_ENDS_STATEMENT.search(stripped))


def _is_block(source: Source, opener: int) -> bool:
    """Whether the bracket at ``opener`` is a block's brace (-1, the top level, is one too)."""
    if opener < 0:
        return True
    if source.text[opener] != "{":
        return False
    known = source.cache.setdefault("blocks", {})
    assert isinstance(known, dict)
    if opener not in known:
        known[opener] = _opens_block(source, opener)
    return bool(known[opener])


def _opens_block(source: Source, opener: int) -> bool:
    row, column = source.position(opener)
    before = source.code[row][:column]
    if before.strip():
        return bool(_BLOCK_BEFORE_BRACE.search(before))
    above = next(
        (source.code[k].rstrip() for k in range(row - 1, -1, -1) if source.code[k].strip()), ""
    )
    return not above or above.endswith((")", "=>", "else", "try", "finally", "do", ";", "}"))


def _next_code_lines(source: Source) -> list[str | None]:
    """For each line, the stripped code of the next line that has code (None at the end)."""
    result: list[str | None] = [None] * len(source.code)
    upcoming: str | None = source.after
    for line in range(len(source.code) - 1, -1, -1):
        result[line] = upcoming
        stripped = source.code[line].strip()
        if stripped:
            upcoming = stripped
    return result
