"""A secret literal escaped by the syntax that holds it: ``N'Ligh''thouse!6053'``, ``"a`$b"``.

A quote inside an SQL string is doubled (``''``), as is one inside a PowerShell or a VB
string (``""``); PowerShell escapes ``$`` and ``"`` with a backtick (`` `$ ``). The rules
that read a value stop at the first quote or take the ``$`` for an interpolation, so they
keep the rest of the secret, or all of it. This rule starts at the escape itself -- a doubled
quote or a backtick escape between a credential's characters, rare in code -- reads the
whole literal around it, and takes it when a secret's name (or a plain-text secure-string
conversion) stands just before the literal and what the literal spells, less its escapes,
has a credential's shape.
"""

from __future__ import annotations

import re
from typing import Final

from ..base import ASSIGNMENT, Rule, line_start
from .net import PICKED, PLAIN, shape

_CREDENTIAL_CHARS: Final = r"[A-Za-z0-9!#%*+?@^~_.-]"
_ESCAPE_RE: Final = re.compile(
    r"(?<=" + _CREDENTIAL_CHARS + r")(?:''|\"\"|`[$\"`'])(?=" + _CREDENTIAL_CHARS + r"|[$])"
)
# Before the literal: a secret's name and an operator or a flag, then the string's prefix
# (``N'`` in T-SQL, ``@"`` in C#), or PowerShell's ``ConvertTo-SecureString -AsPlainText``.
_NAMED_BEFORE: Final = re.compile(
    r"(?:pass|pwd|secret|token|key|cred|auth|asplaintext|securestring)"
    r"[\w-]{0,20}[\"'\]]?(?:[ \t]*(?:=>|:=|[=:,])|[ \t]+-force|[ \t]*\(?)?[ \t]*[ne@$]?$",
    re.IGNORECASE,
)
_MOST: Final = 200


def _literal(text: str, at: int) -> tuple[int, int, str] | None:
    """The string literal the escape at *at* lies in: its inside's span and its quote."""
    begin = line_start(text, at, _MOST)
    for quote in "'\"":
        opened = _opening(text, begin, at, quote)
        if opened is None:
            continue
        closed = _closing(text, at, quote)
        if closed is not None:
            return opened, closed, quote
    return None


def _opening(text: str, begin: int, at: int, quote: str) -> int | None:
    """Where a *quote* string holding *at* starts: after a lone quote, doubled ones skipped."""
    i = at - 1
    while i >= begin:
        if text[i] == quote:
            if i > begin and text[i - 1] == quote:
                i -= 2
                continue
            return i + 1
        if text[i] in " \t":
            return None  # a credential holds no blank
        i -= 1
    return None


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
    found = _literal(text, m.start())
    if found is None:
        return []
    start, end, quote = found
    if not _NAMED_BEFORE.search(text, max(0, start - 60), start - 1):
        return []
    value = _spelled(text[start:end], quote)
    strong = shape(value) >= PICKED or (len(value) >= 8 and shape(value) >= PLAIN)
    return [(start, end)] if strong else []


ESCAPED_RULES: Final[tuple[Rule, ...]] = (
    Rule("password", ASSIGNMENT, _ESCAPE_RE, spans=_escaped_spans),
)
