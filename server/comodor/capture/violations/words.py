"""Finding a name's uses in code, and inside the fields of f-strings and template literals."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from .source import Source

_FSTRING_FIELD = re.compile(r"\{\{|\}\}|\{([^{}]*)\}")
_TEMPLATE_FIELD = re.compile(r"\$\{([^{}`]*)\}")


@lru_cache(maxsize=512)
def identifier(name: str) -> re.Pattern[str]:
    """``name`` as a whole identifier, not an attribute (``x.name``) nor part of a word."""
    return re.compile(rf"(?<![\w$.]){re.escape(name)}(?![\w$])")


def uses_in_fields(source: Source, name: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """(offset, length) of ``name`` inside f-string fields or ``${}`` between two offsets."""
    pattern = identifier(name)
    for lit in source.literals_between(start, end):
        if lit.is_fstring:
            fields = _FSTRING_FIELD
        elif lit.quote == "`":
            fields = _TEMPLATE_FIELD
        else:
            continue
        body_start = lit.quote_start + len(lit.quote)
        for field in fields.finditer(lit.body):
            expression = field.group(1)
            if expression is None:
                continue
            if lit.is_fstring:
                expression = re.split(r"![rsa]|:", expression, maxsplit=1)[0]
            for use in pattern.finditer(expression):
                yield body_start + field.start(1) + use.start(), len(name)


def used_anywhere(source: Source, name: str) -> bool:
    """Whether ``name`` appears as an identifier in the code or in any interpolation field."""
    if identifier(name).search(source.code_text):
        return True
    return any(True for _ in uses_in_fields(source, name, 0, len(source.text)))


def object_member(source: Source, start: int, end: int) -> bool:
    """A key or a shorthand member of an object literal (``{ name }``, ``name: 1``)."""
    code = source.code_text
    after = re.compile(r"[ \t\n]*(.)").match(code, end)
    following = after.group(1) if after else ""
    before = source.code_before(start)
    preceding = code[before] if before >= 0 else ""
    if not preceding or preceding not in "{,":
        return False
    opener = source.enclosing_at(start)
    if opener < 0 or source.text[opener] != "{":
        return False
    return following == ":" or (following != "" and following in ",}")
