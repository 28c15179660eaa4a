"""``naming.functions``, ``naming.variables``, ``naming.classes``: declarations in another casing.

Declarations are found the way corrections find them (:mod:`~comodor.conventions.detect_naming`):
``def``/``function``/arrow functions, assignments and ``const``/``let``/``var``, ``class``.
Only a name that shows a casing can break a casing rule: one lowercase word, an
``UPPER_CASE`` constant or a dunder says nothing. Never flagged: functions and
variables in PascalCase (React components, type aliases, class aliases), attributes in
a Python class body (models often mirror a wire format on purpose), methods whose name
a framework dictates (``setUp``, ``visit_Name``, ``do_GET``).

The fix renames, and only where every use can be seen: a local of a function, renamed
through that function (f-string and template-literal fields included). A module-level
name may be imported elsewhere; renaming it is a job for the language's own rename.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ...conventions.detect_naming import casing, class_name, function_name, variable_name
from ...conventions.languages import JS_LIKE
from .model import Fix, Replacement, Violation
from .source import Source
from .words import identifier, object_member, used_anywhere, uses_in_fields

_FRAMEWORK_NAMES = frozenset(
    {
        # unittest.TestCase and TestResult
        "setUp", "tearDown", "setUpClass", "tearDownClass", "setUpModule",
        "tearDownModule", "asyncSetUp", "asyncTearDown", "setUpTestData", "runTest",
        "shortDescription", "startTest", "stopTest", "startTestRun", "stopTestRun",
        "addError", "addFailure", "addSkip", "addSuccess", "addExpectedFailure",
        "addUnexpectedSuccess", "addSubTest", "addDuration",
        # logging.Formatter and Handler
        "formatTime", "formatException", "formatStack", "formatMessage", "usesTime",
        "handleError", "createLock", "setFormatter", "getMessage",
        # xml.sax handlers, socketserver, http.server
        "startElement", "endElement", "startDocument", "endDocument", "startElementNS",
        "endElementNS", "ignorableWhitespace", "processingInstruction",
        "setDocumentLocator", "startPrefixMapping", "endPrefixMapping", "log_message",
    }
)  # fmt: skip
"""Methods whose camelCase name a standard library base class dictates."""
_FRAMEWORK_PREFIX = re.compile(r"^(?:visit|depart|leave)_[A-Za-z]|^do_[A-Z]+$")
_ONE_LOWER_WORD = re.compile(r"^_*[a-z][a-z0-9]*$")
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+")
_KINDS: dict[str, tuple[str, Callable[[str, str | None], str | None]]] = {
    "naming.functions": ("function", function_name),
    "naming.variables": ("variable", variable_name),
    "naming.classes": ("class", class_name),
}


def find(source: Source, key: str, value: str) -> list[Violation]:
    language = source.language
    if language != "python" and language not in JS_LIKE:
        return []
    kind, declared = _KINDS[key]
    found: list[Violation] = []
    for line, code in enumerate(source.code):
        if not source.is_statement_line(line):
            continue
        name = declared(code, language)
        if not name or not _breaks(name, kind, value):
            continue
        if kind == "function" and language == "python" and _dictated(name):
            continue
        if kind == "variable" and language == "python" and _in_class_body(source, line):
            continue
        column = _column(code, name)
        if column < 0:
            continue
        start, end = (line, column), (line, column + len(name))
        new = convert(name, value)
        fixer = _renamer(source, line, name, new) if new and new != name else None
        found.append(Violation(key, value, start, end, fixer))
    return found


def _breaks(name: str, kind: str, wanted: str) -> bool:
    shape = casing(name)
    if kind == "class":
        if shape is None:
            return wanted == "PascalCase" and bool(_ONE_LOWER_WORD.match(name))
        return shape != wanted
    if shape is None or shape == "PascalCase":
        return False
    return shape != wanted


def _dictated(name: str) -> bool:
    return (
        name in _FRAMEWORK_NAMES
        or (name.startswith("__") and name.endswith("__"))
        or bool(_FRAMEWORK_PREFIX.match(name))
    )


def _in_class_body(source: Source, line: int) -> bool:
    header = source.header_of(line)
    return header is not None and source.code[header].lstrip().startswith("class ")


def _column(code: str, name: str) -> int:
    m = re.search(rf"(?<![\w$.]){re.escape(name)}(?![\w$])", code)
    return m.start() if m else -1


def convert(name: str, wanted: str) -> str:
    """``name`` in the wanted casing, its leading and trailing underscores kept."""
    core = name.strip("_")
    head = name[: len(name) - len(name.lstrip("_"))]
    tail = name[len(name.rstrip("_")) :]
    words = [word for part in core.split("_") for word in _WORDS.findall(part)]
    if not words:
        return name
    if wanted == "snake_case":
        out = "_".join(word.lower() for word in words)
    elif wanted == "camelCase":
        out = words[0].lower() + "".join(word[:1].upper() + word[1:].lower() for word in words[1:])
    elif wanted == "PascalCase":
        out = "".join(word[:1].upper() + word[1:].lower() for word in words)
    else:
        return name
    return head + out + tail


# --- the rename ------------------------------------------------------------------------ #


def _renamer(source: Source, line: int, old: str, new: str) -> Callable[[], Fix | None]:
    return lambda: _rename(source, line, old, new)


def _rename(source: Source, line: int, old: str, new: str) -> Fix | None:
    """Rename a function's local everywhere in that function, or None when unsure."""
    scope = _local_scope(source, line, old)
    if scope is None or source.path.lower().endswith((".jsx", ".tsx")):
        return None
    start, end = scope
    if used_anywhere(source, new):
        return None  # the new name is taken somewhere in the file
    replacements: list[Replacement] = []
    code = source.code_text
    for m in identifier(old).finditer(code, start, end):
        if _keyword_argument(source, m.end()):
            return None  # a parameter's name in a call: not ours to rename
        if source.language != "python" and object_member(source, m.start(), m.end()):
            return None
        replacements.append(Replacement(source.position(m.start()), source.position(m.end()), new))
    for at, length in uses_in_fields(source, old, start, end):
        replacements.append(Replacement(source.position(at), source.position(at + length), new))
    if not replacements:
        return None
    return Fix(f"Rename to {new}", tuple(sorted(replacements)))


def _local_scope(source: Source, line: int, name: str) -> tuple[int, int] | None:
    """The offsets of the function body ``line`` declares ``name`` in (None at module level)."""
    if source.language == "python":
        return _python_scope(source, line, name)
    return _brace_scope(source, line)


def _python_scope(source: Source, line: int, name: str) -> tuple[int, int] | None:
    header = source.header_of(line)
    while header is not None and not re.match(r"\s*(?:async\s+)?def\s", source.code[header]):
        header = source.header_of(header)
    if header is None:
        return None
    depth = source.depths[header]
    start_line = header + 1
    while start_line < len(source.lines) and not source.is_statement_line(start_line):
        start_line += 1  # the rest of a multi-line signature
    signature = source.code_text[source.line_starts[header] : source.line_starts[start_line]]
    if identifier(name).search(signature):
        return None  # a parameter: renaming it changes the function's keyword arguments
    end_line = len(source.lines)
    for k in range(start_line, len(source.lines)):
        other = source.depths[k]
        if other is not None and depth is not None and other <= depth:
            end_line = k
            break
    start = source.line_starts[start_line] if start_line < len(source.lines) else len(source.text)
    end = source.line_starts[end_line] if end_line < len(source.lines) else len(source.text)
    body = source.code_text[start:end]
    if re.search(rf"\b(?:global|nonlocal)\b[^\n]*\b{re.escape(name)}\b", body):
        return None
    return start, end


def _brace_scope(source: Source, line: int) -> tuple[int, int] | None:
    """The block a ``const``/``let``/``function`` declaration lives in, if inside a function."""
    code = source.code[line]
    if code.lstrip().startswith(("export", "var ")):
        return None
    opener = source.enclosing[line]
    if opener < 0 or source.text[opener] != "{" or opener not in source.close_of:
        return None
    if not _inside_function(source, opener):
        return None
    return opener + 1, source.close_of[opener]


def _inside_function(source: Source, opener: int) -> bool:
    """Whether some brace enclosing ``opener`` (itself included) opens a function body."""
    while opener >= 0:
        row, column = source.position(opener)
        before = source.code[row][:column].rstrip()
        if before.endswith(("=>", ")")) and not re.search(
            r"\b(?:if|for|while|switch|catch|with)\s*\(.*\)$", before
        ):
            return True
        opener = source.enclosing_at(opener)
    return False


def _keyword_argument(source: Source, end: int) -> bool:
    """``name=`` right inside a call's parentheses."""
    if re.compile(r"[ \t]*=(?!=)").match(source.code_text, end) is None:
        return False
    opener = source.enclosing_at(end)
    return opener >= 0 and source.text[opener] == "("
