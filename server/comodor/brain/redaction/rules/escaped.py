"""A secret literal escaped by the syntax that holds it: ``N'Ligh''thouse!6053'``, ``"a`$b"``.

A quote inside an SQL string is doubled (``''``), as is one inside a PowerShell or a VB
string (``""``); PowerShell escapes ``$`` and ``"`` with a backtick (`` `$ ``). The rules
that read a value stop at the first quote or take the ``$`` for an interpolation, so they
keep the rest of the secret, or all of it. This rule reads a literal after a secret's name (or a
plain-text secure-string conversion) that holds such an escape before its first blank, to
its real end, and takes it when what it spells, less its escapes, has a credential's shape.
"""

from __future__ import annotations

import re
from typing import Final

from ..base import ASSIGNMENT, Rule
from .net import PICKED, PLAIN, shape

# A secret's name (or PowerShell's plain-text conversion), an operator or a flag, the string's
# prefix (``N'`` in T-SQL, ``@"`` in C#), then a literal with an escape before its first
# blank or lone quote: the regex engine drops every other use of these words in code. Not
# ``key``: far the commonest of them in code (0.07 ms a correction), and a key is drawn, not
# typed with quotes and dollars in it.
_ESCAPED_RE: Final = re.compile(
    r"(?:pass|pwd|secret|token|asplaintext)"
    r"[\w-]{0,20}[\"'\]]?(?:[ \t]*(?:=>|:=|[=:,])|[ \t]+-force)?[ \t]*[ne@$]?"
    r"(?P<q>['\"])(?:(?!(?P=q))[^\s`]){1,128}?(?:(?P=q)(?P=q)|`[$\"`'])"
)
_MOST: Final = 200


def _closing(text: str, at: int, quote: str) -> int | None:
    """Where a *quote* string holding *at* ends: the first lone quote, doubled ones skipped."""
    i, end = at, min(len(text), at + _MOST)
    while i < end:
        c = text[i]
        if c == "`" and i + 1 < end:
            i += 2
            continue
        if c == quote:
            if text.startswith(quote, i + 1):
                i += 2
                continue
            return i
        if c in " \t\n":
            return None
        i += 1
    return None


def _spelled(inside: str, quote: str) -> str:
    """What a literal spells without its escapes' marks (the escaped ``$`` dropped too)."""
    return inside.replace(quote * 2, quote).replace("`$", "").replace("`", "")


def _escaped_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    quote = text[m.start("q")]
    start = m.end("q")
    end = _closing(text, start, quote)
    if end is None:
        return []
    value = _spelled(text[start:end], quote)
    strong = shape(value) >= PICKED or (len(value) >= 8 and shape(value) >= PLAIN)
    return [(start, end)] if strong else []


ESCAPED_RULES: Final[tuple[Rule, ...]] = (
    Rule("password", ASSIGNMENT, _ESCAPED_RE, on_lowercase=True, spans=_escaped_spans),
)
