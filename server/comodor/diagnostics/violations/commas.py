"""``trailing_commas``: the last item of a multi-line list, call or literal, and its comma.

A bracket counts when its closer opens a line of its own (the layout formatters
"explode") and it holds a list whose trailing comma is style, not meaning:

- Python calls, definitions, ``import (…)``, list/dict/set literals and tuples with a
  comma already; never a subscript (``x[a,]`` is a tuple index), a parenthesized
  expression (``(a,)`` is a tuple), a comprehension or generator, nor a one-item tuple
  when removing;
- JavaScript/TypeScript calls, arrow parameters, array literals, object literals and
  import/export lists; never a block, an enum, a type literal, a member access, a
  parenthesized expression, or a list ending in a rest element (``...rest,`` does not
  parse).
"""

from __future__ import annotations

import re

from ...conventions.languages import JS_LIKE
from .model import Fix, Replacement, Violation
from .source import Pair, Source

_PY_KEYWORDS = frozenset(
    {
        "if", "elif", "while", "return", "and", "or", "not", "in", "is", "with", "assert",
        "yield", "await", "lambda", "else", "for", "del", "except", "raise", "case", "match",
    }
)  # fmt: skip
_JS_KEYWORDS = frozenset(
    {
        "if", "while", "for", "switch", "catch", "with", "return", "typeof", "void", "await",
        "yield", "in", "of", "instanceof", "new", "delete", "throw", "case", "else", "do",
    }
)  # fmt: skip
_WORD_BEFORE = re.compile(r"[\w$]+$")
_NOT_AN_ITEM_END = frozenset("([{,;:=+-*/\\.|&<>!?%^~")
_TOP_LEVEL = re.compile(r"[,([{]|\bfor\b")
_ARROW_AFTER = re.compile(r"\s*(?::[^=;{}]+)?=>")
_OBJECT_BEFORE = re.compile(
    r"(?:[(,\[:?]|=(?!>)|\|\||&&|\?\?|\breturn|\bimport|\bexport|\byield|\bdefault)\s*$"
)


def find(source: Source, value: str) -> list[Violation]:
    language = source.language
    if value not in ("always", "never") or (language != "python" and language not in JS_LIKE):
        return []
    found: list[Violation] = []
    code = source.code_text
    for pair in source.pairs:
        if pair.close < 0 or not _closer_opens_its_line(source, pair.close):
            continue
        last = source.code_before(pair.close)
        if last <= pair.open:
            continue  # empty
        char = code[last]
        if value == "always":
            if char == "," or char in _NOT_AN_ITEM_END or not _style_list(source, pair, last):
                continue
            if source.literal_at(last) is None and _in_unclosed_literal(source, last):
                continue
            at = source.position(last + 1)
            fix = Fix("Add a trailing comma", (Replacement(at, at, ","),))
            found.append(Violation("trailing_commas", value, source.position(last), at, fix))
        elif char == ",":
            if not _style_list(source, pair, last) or _one_item_tuple(source, pair, last):
                continue
            start, end = source.position(last), source.position(last + 1)
            fix = Fix("Remove the trailing comma", (Replacement(start, end, ""),))
            found.append(Violation("trailing_commas", value, start, end, fix))
    return found


def _closer_opens_its_line(source: Source, close: int) -> bool:
    line = source.line_of(close)
    start = source.line_starts[line]
    return not source.code_text[start:close].strip() and not source.starts_inside[line]


def _in_unclosed_literal(source: Source, offset: int) -> bool:
    return source.code_text[offset] == "~"


def _top_level(source: Source, pair: Pair) -> tuple[int, bool]:
    """(top-level commas, whether a top-level ``for`` makes it a comprehension)."""
    commas = 0
    comprehension = False
    code = source.code_text
    k = pair.open + 1
    while True:
        m = _TOP_LEVEL.search(code, k, pair.close)
        if m is None:
            return commas, comprehension
        token = m.group()
        if token == ",":
            commas += 1
            k = m.end()
        elif token == "for":
            comprehension = True
            k = m.end()
        else:
            closer = source.close_of.get(m.start())
            if closer is None or closer > pair.close:
                return commas, comprehension
            k = closer + 1


def _word_before(source: Source, offset: int) -> tuple[str, str]:
    """(the character before ``offset`` in the code, the word ending there if any)."""
    k = source.code_before(offset)
    if k < 0:
        return "", ""
    char = source.code_text[k]
    m = _WORD_BEFORE.search(source.code_text, max(0, k - 80), k + 1)
    return char, (m.group() if m else "")


def _style_list(source: Source, pair: Pair, last: int) -> bool:
    """Whether a trailing comma in this bracket is a matter of style."""
    before, word = _word_before(source, pair.open)
    if source.language == "python":
        return _python_list(source, pair, before, word)
    if _last_item_is_rest(source, pair, last):
        return False
    return _js_list(source, pair, before, word)


def _python_list(source: Source, pair: Pair, before: str, word: str) -> bool:
    commas, comprehension = _top_level(source, pair)
    if comprehension:
        return False
    callish = (bool(word) and word not in _PY_KEYWORDS) or before in (")", "]")
    if word == "import":
        return True
    if pair.char == "(":
        return callish or commas > 0
    if pair.char == "[":
        return not callish and before not in ("'", '"')
    return True  # dict and set literals


def _js_list(source: Source, pair: Pair, before: str, word: str) -> bool:
    callish = (bool(word) and word not in _JS_KEYWORDS) or before in (")", "]")
    if pair.char == "(":
        if callish:
            return True
        return bool(_ARROW_AFTER.match(source.code_text, pair.close + 1))
    if pair.char == "[":
        return not callish and before not in ("'", '"', "`")
    row, column = source.position(pair.open)
    text_before = source.code[row][:column]
    if re.search(r"\benum\s+[\w$]+\s*$|\b(?:interface|type)\b", text_before):
        return False
    if source.language == "typescript" and text_before.rstrip().endswith(":"):
        return False  # `x: {` may be a type literal, whose members end with `;`
    if source.path.lower().endswith((".jsx", ".tsx")) and re.search(r"[\w-]=$", text_before):
        return False  # a JSX attribute's `{…}` holds an expression, not a list
    return bool(_OBJECT_BEFORE.search(text_before))


def _last_item_is_rest(source: Source, pair: Pair, last: int) -> bool:
    """Whether the last item starts with ``...`` (a rest element or spread)."""
    code = source.code_text
    k = last
    while k > pair.open:
        char = code[k]
        if char in ")]}":
            opener = source.open_of.get(k)
            if opener is None:
                return False
            k = opener - 1
            continue
        if char == ",":
            break
        k -= 1
    return code[k + 1 : last + 1].lstrip().startswith("...")


def _one_item_tuple(source: Source, pair: Pair, last: int) -> bool:
    if source.language != "python" or pair.char != "(":
        return False
    before, word = _word_before(source, pair.open)
    callish = (bool(word) and word not in _PY_KEYWORDS) or before in (")", "]")
    commas, _ = _top_level(source, pair)
    return not callish and commas == 1
