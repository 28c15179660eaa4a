"""``quotes.style``: string literals written with the other quote.

Only literals whose quote is a free choice are flagged (one line, closed, not
triple-quoted, no quote of the other kind inside: :func:`~comodor.conventions.lexer.simple_quoted`
on the same terms the corrections are counted). Never flagged: docstrings and other
triple-quoted strings, template literals, anything inside an f-string or a template
literal, literals the lexer can only have found by misreading (glued to a word, as
inside a Python 3.12 f-string), JSX attribute values and JSX text, whose quotes
formatters treat separately.
"""

from __future__ import annotations

import re

from ...conventions.languages import QUOTE_LANGUAGES
from .model import Fix, Replacement, Violation
from .source import Literal, Source

_QUOTE = {"single": "'", "double": '"'}
_ATTRIBUTE = re.compile(r"[\w-]=$")
_JSX_LINE = re.compile(r"</|/>|<[A-Za-z][\w.]*[\s>]|^\s*>")


def find(source: Source, value: str) -> list[Violation]:
    wanted = _QUOTE.get(value)
    if wanted is None or source.language not in QUOTE_LANGUAGES:
        return []
    jsx = source.language != "python" and source.path.lower().endswith((".jsx", ".tsx"))
    found: list[Violation] = []
    for lit in source.literals:
        if lit.quote == wanted or not _free_choice(lit):
            continue
        if _misread(source, lit) or (jsx and _in_jsx(source, lit)):
            continue
        start, end = source.position(lit.start), source.position(lit.end)
        if start[0] != end[0]:
            continue
        text = lit.prefix + wanted + _requoted(lit, wanted) + wanted
        label = "single" if wanted == "'" else "double"
        fix = Fix(f"Use {label} quotes", (Replacement(start, end, text),))
        found.append(Violation("quotes.style", value, start, end, fix))
    return found


def _free_choice(lit: Literal) -> bool:
    if lit.triple or not lit.closed or lit.quote not in ("'", '"') or "\n" in lit.body:
        return False
    other = '"' if lit.quote == "'" else "'"
    return other not in _unescaped(lit.body, lit.quote)


def _misread(source: Source, lit: Literal) -> bool:
    """A literal glued to a word or another literal is a piece of something larger."""
    text = source.text
    before = text[lit.start - 1] if lit.start > 0 else ""
    after = text[lit.end] if lit.end < len(text) else ""
    return (
        before.isalnum()
        or before in ("_", "'", '"', "`", "\\", "$")
        or after.isalnum()
        or after in ("_", "'", '"', "`")
    )


def _in_jsx(source: Source, lit: Literal) -> bool:
    """An attribute value (``name="x"``, never spaced) or anything on a line with JSX tags."""
    line = source.line_of(lit.start)
    code = source.code[line]
    column = lit.start - source.line_starts[line]
    return bool(_ATTRIBUTE.search(code[:column]) or _JSX_LINE.search(code))


def _unescaped(body: str, quote: str) -> str:
    """The body as it reads with either quote (an escaped quote is a plain quote)."""
    return body.replace("\\" + quote, quote)


def _requoted(lit: Literal, wanted: str) -> str:
    """The body to write between ``wanted`` quotes, meaning exactly the same string.

    An escaped old quote loses its backslash (it needs none any more), except in a
    raw string, where the backslash is part of the value. Escaped backslashes are
    walked over in pairs, so an escaped backslash before a quote is never mistaken
    for an escaped quote.
    """
    if lit.raw:
        return lit.body
    out: list[str] = []
    k = 0
    body = lit.body
    while k < len(body):
        char = body[k]
        if char == "\\" and k + 1 < len(body):
            following = body[k + 1]
            out.append(following if following == lit.quote else char + following)
            k += 2
            continue
        out.append(char)
        k += 1
    return "".join(out)
