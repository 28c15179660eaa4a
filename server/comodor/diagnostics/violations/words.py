"""Finding a name's uses in code, and inside the fields of f-strings and template literals."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from .source import Source

_FSTRING_FIELD = re.compile(r"\{\{|\}\}|\{([^{}]*)\}")
_TEMPLATE_FIELD = re.compile(r"\$\{([^{}`]*)\}")


@lru_cache(maxsize=512)
def _literal(name: str) -> re.Pattern[str]:
    # The name comes first, so the engine searches for it as a literal; the character
    # before is checked by hand (a leading lookbehind makes it try every position).
    return re.compile(rf"{re.escape(name)}(?![\w$])")


class Identifier:
    """Finds ``name`` as a whole identifier, not an attribute (``x.name``) nor part of a word."""

    def __init__(self, name: str) -> None:
        self.pattern = _literal(name)

    def finditer(
        self, text: str, start: int = 0, end: int | None = None
    ) -> Iterator[re.Match[str]]:
        stop = len(text) if end is None else end
        for m in self.pattern.finditer(text, start, stop):
            at = m.start()
            if at == 0 or not _JOINS.match(text, at - 1):
                yield m

    def search(self, text: str, start: int = 0, end: int | None = None) -> re.Match[str] | None:
        return next(self.finditer(text, start, end), None)


_JOINS = re.compile(r"[\w$.]")


def identifier(name: str) -> Identifier:
    return Identifier(name)


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
    return name in names_of(source)


def names_of(source: Source) -> frozenset[str]:
    """Every identifier the document uses (code and interpolation fields), computed once."""
    cached = source.cache.get("names")
    if isinstance(cached, frozenset):
        return cached
    occurrences(source, "")
    index = source.cache["occurrences"]
    assert isinstance(index, dict)
    names = set(index)
    for lit in source.literals:
        if lit.is_fstring or lit.quote == "`":
            names.update(_BARE_NAME.findall(lit.body))
    frozen = frozenset(names)
    source.cache["names"] = frozen
    return frozen


_NAME = re.compile(r"(?<![\w$.])[A-Za-z_$][\w$]*")
_BARE_NAME = re.compile(r"[A-Za-z_$][\w$]*")


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


def occurrences(source: Source, name: str) -> list[int]:
    """Offsets of ``name`` as an identifier in the code, from an index built once."""
    cached = source.cache.get("occurrences")
    index: dict[str, list[int]]
    if isinstance(cached, dict):
        index = cached
    else:
        index = {}
        for m in _NAME.finditer(source.code_text):
            index.setdefault(m.group(), []).append(m.start())
        source.cache["occurrences"] = index
    found: list[int] = index.get(name, [])
    return found
