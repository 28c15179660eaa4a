"""``python.string_format`` and ``python.return_annotations`` in Python code.

String formatting is flagged where the formatting is plain to see: a literal
followed by ``.format(…)`` or by ``%`` (bytes have no f-strings and are left alone;
so is a literal passed to a function first, ``_("…").format``, where translation
needs the template), or, the other way round, an f-string with at least one field.
The fix rewrites only what converts without a doubt: every argument used, no
expression an f-string cannot hold (its own quote, a backslash, braces, unpacking),
no ``%d`` whose meaning for floats an f-string would change.

Return annotations are judged on ``def`` headers. Adding ``-> None`` is offered only
for a function that returns no value and yields nothing, and is not a stub, a
property or an abstract method, whose real type only its author knows.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import partial

from .model import Fix, Replacement, Violation
from .source import Literal, Source

_FORMAT_CALL = re.compile(r"[ \t]*\.[ \t]*format[ \t]*\(")
_PERCENT = re.compile(r"[ \t]*%[ \t]*(?=[\w(\[{'\"])")
_FIELD = re.compile(r"\{\{|\}\}|\{([^{}]*)\}")
_FIELD_PARTS = re.compile(r"^(?P<name>[^!:]*)(?P<conv>![rsa])?(?P<spec>:[^{}]*)?$")
_SIMPLE = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$|^-?\d+(?:\.\d+)?$")
_PERCENT_SPEC = re.compile(r"%%|%(\.\d+)?([srafeg])|%")
_NAME = re.compile(r"^[A-Za-z_]\w*$")
_KEYWORD_ARG = re.compile(r"^([A-Za-z_]\w*)\s*=(?!=)\s*(.+)$", re.DOTALL)
_DEF = re.compile(r"^[ \t]*(?:async[ \t]+)?def[ \t]+([A-Za-z_]\w*)[ \t]*\(")
_VALUE_RETURN = re.compile(r"\breturn[ \t]+(?!None\b)[^\s;]|\byield\b")
_STUB_LINE = re.compile(
    r"^\s*(?:\.\.\.|pass|raise\s+NotImplementedError\b.*|[rRuU]?(?:\"\"\"|''')~*.*)$"
)
_NO_GUESS_DECORATOR = re.compile(
    r"^\s*@(?:\w+\.)*(?:property|cached_property|abstractmethod|abstractproperty|overload)\b"
)


# --- string formatting --------------------------------------------------------------- #


def find_string_format(source: Source, value: str) -> list[Violation]:
    if source.language != "python":
        return []
    if value == "fstring":
        return list(_old_style(source))
    if value == "format":
        return list(_fstrings(source))
    return []


def _glued_to_literal(source: Source, lit: Literal) -> bool:
    """Implicit concatenation (``"a" "b".format(x)``): the template is more than one literal.

    Across a line break only where the statement goes on (inside brackets, after a
    backslash): two statements on two lines are two strings.
    """
    line = source.line_of(lit.start)
    inside = source.continuation[line] or source.enclosing_at(lit.start) >= 0
    k = source.code_before(lit.start, " \t\n\\" if inside else " \t")
    return k >= 0 and source.code_text[k] in ("'", '"')


def _old_style(source: Source) -> Iterator[Violation]:
    code = source.code_text
    for lit in source.literals:
        if "b" in lit.prefix.lower() or not lit.closed or _glued_to_literal(source, lit):
            continue
        call = _FORMAT_CALL.match(code, lit.end)
        if call is not None:
            opener = call.end() - 1
            closer = source.close_of.get(opener)
            if closer is None:
                continue
            yield _violation(
                source,
                "fstring",
                lit.start,
                closer + 1,
                partial(_format_call_fix, source, lit, opener, closer),
            )
            continue
        percent = _PERCENT.match(code, lit.end)
        if percent is not None and "%" in lit.body:
            operand_end = _operand_end(source, percent.end())
            if operand_end is None:
                continue
            operand = percent.end()
            yield _violation(
                source,
                "fstring",
                lit.start,
                operand_end,
                partial(_percent_fix, source, lit, operand, operand_end),
            )


def _violation(
    source: Source, value: str, start: int, end: int, fix: Callable[[], Fix | None]
) -> Violation:
    return Violation(
        "python.string_format", value, source.position(start), source.position(end), fix
    )


def _operand_end(source: Source, start: int) -> int | None:
    """Where the right operand of ``%`` ends: a bracketed group, or a name with calls."""
    code = source.code_text
    if start >= len(code):
        return None
    if code[start] in "([{":
        closer = source.close_of.get(start)
        return closer + 1 if closer is not None else None
    literal = source.literal_at(start)
    if literal is not None:
        return literal.end
    m = re.compile(r"[A-Za-z_][\w.]*").match(code, start)
    if m is None:
        return None
    end = m.end()
    while end < len(code) and code[end] in "([":
        closer = source.close_of.get(end)
        if closer is None:
            return None
        end = closer + 1
    return end


def _split_arguments(source: Source, start: int, end: int) -> list[str] | None:
    """The top-level arguments between ``start`` and ``end`` (exclusive), as written."""
    code, text = source.code_text, source.text
    parts: list[str] = []
    depth = 0
    begin = start
    for k in range(start, end):
        char = code[k]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[begin:k])
            begin = k + 1
    last = text[begin:end]
    if last.strip():
        parts.append(last)
    cleaned = [part.strip() for part in parts]
    if any(not part or "\n" in part for part in cleaned):
        return None
    return cleaned


def _embeddable(expression: str, quote: str) -> bool:
    """Whether ``expression`` can stand between an f-string's braces unchanged."""
    if not expression or quote in expression or "\\" in expression:
        return False
    if any(char in expression for char in "{}#") or expression.startswith("*"):
        return False
    return "lambda" not in expression and ":=" not in expression


def _format_call_fix(source: Source, lit: Literal, opener: int, closer: int) -> Fix | None:
    if lit.triple or "\n" in lit.body:
        return None
    arguments = _split_arguments(source, opener + 1, closer)
    if arguments is None:
        return None
    positional: list[str] = []
    named: dict[str, str] = {}
    for argument in arguments:
        keyword = _KEYWORD_ARG.match(argument)
        if keyword is not None:
            named[keyword.group(1)] = keyword.group(2).strip()
        elif named:
            return None
        else:
            positional.append(argument)
    if not all(_embeddable(arg, lit.quote) for arg in [*positional, *named.values()]):
        return None
    used: list[str] = []
    automatic = 0
    pieces: list[str] = []
    position = 0
    for m in _FIELD.finditer(lit.body):
        pieces.append(lit.body[position : m.start()])
        position = m.end()
        if m.group(1) is None:
            pieces.append(m.group())  # `{{` and `}}` mean the same in an f-string
            continue
        parts = _FIELD_PARTS.match(m.group(1))
        if parts is None:
            return None
        name = parts["name"].strip()
        if name == "":
            if automatic < 0 or automatic >= len(positional):
                return None
            expression = positional[automatic]
            automatic += 1
        elif name.isdigit() and automatic <= 0:
            automatic = -1
            if int(name) >= len(positional):
                return None
            expression = positional[int(name)]
        elif name in named:
            expression = named[name]
        else:
            return None  # `{0.attr}`, `{0[key]}`, a name not passed, or mixed numbering
        if expression in used and not _SIMPLE.match(expression):
            return None  # a call written once must not run twice
        used.append(expression)
        pieces.append("{" + expression + (parts["conv"] or "") + (parts["spec"] or "") + "}")
    pieces.append(lit.body[position:])
    if set([*positional, *named.values()]) - set(used) or not used:
        return None  # an unused argument is still evaluated today
    return _rewrite_as_fstring(source, lit, "".join(pieces), closer + 1)


def _percent_fix(source: Source, lit: Literal, operand: int, end: int) -> Fix | None:
    if lit.triple or "\n" in lit.body:
        return None
    code = source.code_text
    if code[operand] == "(":
        arguments = _split_arguments(source, operand + 1, end - 1)
        if arguments is None:
            return None
    elif code[operand] in "[{" or source.literal_at(operand) is not None:
        return None  # a mapping or a list: not positional values
    else:
        arguments = [source.text[operand:end].strip()]
    if not all(_embeddable(arg, lit.quote) for arg in arguments):
        return None
    pieces: list[str] = []
    position = 0
    index = 0
    for m in _PERCENT_SPEC.finditer(lit.body):
        pieces.append(_escape_braces(lit.body[position : m.start()]))
        position = m.end()
        if m.group() == "%%":
            pieces.append("%")
            continue
        kind = m.group(2)
        if kind is None or index >= len(arguments):
            return None
        expression = arguments[index]
        index += 1
        if kind in "sra":
            if m.group(1):
                return None  # `%.3s` truncates: no f-string shorthand says that plainly
            conversion = "" if kind == "s" else f"!{kind}"
            pieces.append("{" + expression + conversion + "}")
        else:
            pieces.append("{" + expression + ":" + (m.group(1) or "") + kind + "}")
    pieces.append(_escape_braces(lit.body[position:]))
    if index != len(arguments):
        return None
    return _rewrite_as_fstring(source, lit, "".join(pieces), end)


def _balanced(expression: str) -> bool:
    """Brackets close in order: a ``:`` inside ``d[1:2]`` was not a format spec."""
    depth = 0
    for char in expression:
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def _escape_braces(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


def _rewrite_as_fstring(source: Source, lit: Literal, body: str, end: int) -> Fix:
    prefix = "".join(char for char in lit.prefix if char.lower() == "r") + "f"
    replacement = Replacement(
        source.position(lit.start), source.position(end), prefix + lit.quote + body + lit.quote
    )
    return Fix("Rewrite as an f-string", (replacement,))


def _fstrings(source: Source) -> Iterator[Violation]:
    for lit in source.literals:
        if not lit.is_fstring or not lit.closed:
            continue
        fields = [m for m in _FIELD.finditer(lit.body) if m.group(1) is not None]
        if not fields:
            continue  # no interpolation at all: not this rule's business
        yield _violation(source, "format", lit.start, lit.end, partial(_fstring_fix, source, lit))


def _concatenated(source: Source, lit: Literal) -> bool:
    """Whether the literal is glued to another one (``f"a{x}" "b"``): one string, two parts."""
    if _glued_to_literal(source, lit):
        return True
    code = source.code_text
    inside = source.enclosing_at(lit.end) >= 0
    skip = " \t\n\\" if inside else " \t\\"
    k = lit.end
    while k < len(code) and code[k] in skip:
        k += 1
    return source.literal_at(k) is not None


def _fstring_fix(source: Source, lit: Literal) -> Fix | None:
    if lit.triple or "\n" in lit.body or _concatenated(source, lit):
        return None
    pieces: list[str] = []
    arguments: list[str] = []
    position = 0
    for m in _FIELD.finditer(lit.body):
        pieces.append(lit.body[position : m.start()])
        position = m.end()
        if m.group(1) is None:
            pieces.append(m.group())
            continue
        parts = _FIELD_PARTS.match(m.group(1))
        expression = parts["name"].strip() if parts is not None else ""
        if parts is None or not expression or expression.endswith("=") or not _balanced(expression):
            return None
        arguments.append(expression)
        pieces.append("{" + (parts["conv"] or "") + (parts["spec"] or "") + "}")
    pieces.append(lit.body[position:])
    if not arguments or "{" in lit.body[position:].replace("{{", ""):
        return None
    prefix = "".join(char for char in lit.prefix if char.lower() == "r")
    text = f"{prefix}{lit.quote}{''.join(pieces)}{lit.quote}.format({', '.join(arguments)})"
    replacement = Replacement(source.position(lit.start), source.position(lit.end), text)
    return Fix("Rewrite with str.format()", (replacement,))


# --- return annotations ------------------------------------------------------------ #


def find_return_annotations(source: Source, value: str) -> list[Violation]:
    if source.language != "python" or value not in ("added", "removed"):
        return []
    found: list[Violation] = []
    for line, code in enumerate(source.code):
        m = _DEF.match(code)
        if m is None or not source.is_statement_line(line):
            continue
        opener = source.line_starts[line] + m.end() - 1
        closer = source.close_of.get(opener)
        if closer is None:
            continue
        header = _header_end(source, closer + 1)
        if header is None:
            continue
        arrow_at = source.code_text.find("->", closer + 1, header)
        name_start = source.line_starts[line] + m.start(1)
        name = (source.position(name_start), source.position(name_start + len(m.group(1))))
        if value == "added" and arrow_at < 0:
            found.append(
                Violation(
                    "python.return_annotations",
                    value,
                    *name,
                    partial(_none_fix, source, line, header, closer),
                )
            )
        elif value == "removed" and arrow_at >= 0:
            end = source.code_before(header) + 1
            start = source.position(closer + 1)
            fix = Fix(
                "Remove the return annotation",
                (Replacement(start, source.position(header), ""),),
            )
            found.append(
                Violation(
                    "python.return_annotations",
                    value,
                    source.position(arrow_at),
                    source.position(end),
                    fix,
                )
            )
    return found


def _none_fix(source: Source, line: int, header: int, closer: int) -> Fix | None:
    if not _returns_nothing(source, line, header):
        return None
    at = source.position(closer + 1)
    return Fix("Annotate the return type: -> None", (Replacement(at, at, " -> None"),))


def _header_end(source: Source, start: int) -> int | None:
    """The offset of the ``:`` ending a ``def`` header whose parameters close before ``start``."""
    code = source.code_text
    k = start
    while k < len(code):
        char = code[k]
        if char == ":":
            return k
        if char in "([{":
            closer = source.close_of.get(k)
            if closer is None:
                return None
            k = closer + 1
            continue
        last = source.code_before(k, " \t") if char == "\n" else -1
        if last >= 0 and code[last] != "\\":
            return None  # the header ended without its colon
        k += 1
    return None


def _returns_nothing(source: Source, line: int, header: int) -> bool:
    """No value returned, nothing yielded, not a stub, not a property or abstract method."""
    for k in range(line - 1, -1, -1):
        above = source.code[k]
        if not above.strip():
            continue
        if not above.lstrip().startswith("@"):
            break
        if _NO_GUESS_DECORATOR.match(above):
            return False
    depth = source.depths[line]
    header_line = source.line_of(header)
    rest = source.code[header_line][header - source.line_starts[header_line] + 1 :]
    body: list[str] = [rest] if rest.strip() else []
    for k in range(header_line + 1, len(source.lines)):
        other = source.depths[k]
        if other is not None and depth is not None and other <= depth:
            break
        if source.starts_inside[k] != "string":
            body.append(source.code[k])
    code_lines = [text for text in body if text.strip()]
    if not code_lines or all(_STUB_LINE.match(text) for text in code_lines):
        return False
    return not any(_VALUE_RETURN.search(text) for text in code_lines)
