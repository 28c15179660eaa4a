"""``python.import_style`` and ``js.import_style``: imports written in the other form.

Python ``module`` flags ``from M import names`` (never ``__future__``, a relative
import, or ``*``); ``from`` flags ``import M`` when the file uses ``M.name``.
JavaScript/TypeScript ``named`` flags ``import * as ns from 'm'`` (a default import
may not have named exports, so it is left alone); ``namespace`` flags
``import { a, b } from 'm'`` (not ``import type``).

The fix rewrites the import and every use in the file, and only when every use is
plain to see: no name taken already, no use as a keyword argument, an object key or
inside an interpolation field, no re-export.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator

import attrs

from ...conventions.languages import JS_LIKE
from .model import Fix, Replacement, Violation
from .source import Source
from .words import object_member, occurrences, used_anywhere, uses_in_fields

_PY_FROM = re.compile(r"^[ \t]*from[ \t]+([\w.]+)[ \t]+import[ \t]+")
_PY_IMPORT = re.compile(r"^[ \t]*import[ \t]+([A-Za-z_]\w*)[ \t]*$")
_NAME_LIST = re.compile(r"^[\w\s,]*$")
_JS_NAMESPACE = re.compile(r"^[ \t]*import[ \t]+\*[ \t]+as[ \t]+([\w$]+)\b")
_JS_NAMED = re.compile(r"^[ \t]*import[ \t]+\{")
_JS_FROM_AFTER = re.compile(r"[ \t]*from[ \t]+(?=['\"])")
_ATTRIBUTE = re.compile(r"\.([A-Za-z_]\w*)")
_JS_ATTRIBUTE = re.compile(r"\.([A-Za-z_$][\w$]*)")
_ALIAS = re.compile(r"^([\w$]+)(?:\s+as\s+([\w$]+))?$")


@attrs.frozen
class _Statement:
    start: int
    end: int
    module: str
    names: tuple[tuple[str, str], ...] = ()
    """(member, local name) pairs of a names import."""
    alias: str = ""
    """The local name of a whole-module import."""
    tail: str = ""
    """What follows the module string in JavaScript (``;``)."""
    quote: str = "'"


WHOLE_MODULE_VALUES = frozenset({"from", "named"})
"""Values that flag whole-module imports: whether one breaks the rule depends on the uses
of the module anywhere in the file (``os.path``), not only on the import line."""


def find(source: Source, key: str, value: str) -> list[Violation]:
    if key == "python.import_style" and source.language == "python" and value == "module":
        return [v for s in _python_from(source) for v in _to_module(source, s)]
    if key == "js.import_style" and source.language in JS_LIKE and value == "namespace":
        return [v for s in _js_named(source) for v in _to_namespace(source, s)]
    candidates = whole_module_imports(source, key, value)
    used = module_uses(source, {alias for _, alias in candidates}, key)
    return [violation for violation, alias in candidates if used.get(alias)]


def whole_module_imports(source: Source, key: str, value: str) -> list[tuple[Violation, str]]:
    """Each whole-module import (with its fix) and the name it binds, for ``from``/``named``."""
    if key == "python.import_style" and source.language == "python" and value == "from":
        return [(v, s.alias) for s in _python_import(source) for v in _to_from(source, s)]
    if key == "js.import_style" and source.language in JS_LIKE and value == "named":
        return [(v, s.alias) for s in _js_namespace(source) for v in _to_named(source, s)]
    return []


def module_uses(
    source: Source, aliases: set[str], key: str, within: tuple[int, int] | None = None
) -> dict[str, bool]:
    """Whether each module name is read as ``name.member`` outside import statements.

    With ``within``, only uses between those offsets count.
    """
    pattern = _ATTRIBUTE if key == "python.import_style" else _JS_ATTRIBUTE
    spans = _import_spans(source)
    low, high = within if within is not None else (0, len(source.text) + 1)
    result: dict[str, bool] = {}
    for alias in aliases:
        members, _ = _module_members(source, alias, pattern)
        # Members are in text order: look only at those inside ``within`` (a region of
        # many segments asks once per segment, so scanning them all would be quadratic).
        first = bisect.bisect_left(members, (low,))
        result[alias] = False
        for at, _, _ in members[first:]:
            if at >= high:
                break
            if not any(start <= at < end for start, end in spans):
                result[alias] = True
                break
    return result


def _violation(
    source: Source, key: str, value: str, s: _Statement, fix: Callable[[], Fix | None]
) -> Violation:
    end = source.code_before(s.end) + 1
    return Violation(key, value, source.position(s.start), source.position(end), fix)


def _statement_start(source: Source, line: int) -> int:
    code = source.code[line]
    return source.line_starts[line] + len(code) - len(code.lstrip())


def _parse_names(text: str) -> tuple[tuple[str, str], ...] | None:
    names: list[tuple[str, str]] = []
    for raw in text.replace("\n", " ").split(","):
        part = raw.strip()
        if not part:
            continue
        m = _ALIAS.match(part)
        if m is None:
            return None
        names.append((m.group(1), m.group(2) or m.group(1)))
    return tuple(names) or None


def _used_outside(source: Source, name: str, s: _Statement) -> bool:
    """Whether ``name`` is used anywhere but in the import statement ``s`` itself."""
    for at in occurrences(source, name):
        if not s.start <= at < s.end:
            return True
    return any(True for _ in uses_in_fields(source, name, 0, len(source.text)))


def _rewrites_safely(source: Source, name: str, s: _Statement) -> list[tuple[int, int]] | None:
    """Every use of ``name`` outside the import, or None when one of them is not a plain use."""
    uses: list[tuple[int, int]] = []
    code = source.code_text
    others = _import_spans(source)
    for at in occurrences(source, name):
        stop = at + len(name)
        if s.start <= at < s.end:
            continue
        if any(start <= at < end for start, end in others):
            return None  # imported again by another statement
        after = code[stop : stop + 3]
        before = code[max(0, at - 12) : at]
        if re.match(r"\s*=(?!=)", after) or re.match(r"\s*:", after):
            return None  # assigned, a keyword argument, an object key or annotation target
        if re.search(r"\b(?:def|class|as|for|import|function|const|let|var)\s+$", before):
            return None  # the name is defined again
        if source.language != "python" and object_member(source, at, stop):
            return None  # `{ name }` would need a key once the name is qualified
        uses.append((at, stop))
    if any(True for _ in uses_in_fields(source, name, 0, len(source.text))):
        return None
    if any(lit.body == name for lit in source.literals):
        return None  # listed by name (``__all__``, a re-export)
    return uses


def _import_spans(source: Source) -> list[tuple[int, int]]:
    """Where every import statement of the file is (offsets), parenthesized lists included."""
    cached = source.cache.get("import spans")
    if isinstance(cached, list):
        return cached
    spans: list[tuple[int, int]] = []
    source.cache["import spans"] = spans
    for line, code in enumerate(source.code):
        stripped = code.lstrip()
        heads = ("import ", "from ") if source.language == "python" else ("import", "export {")
        if not stripped.startswith(heads) and not re.match(r"export\s*\*", stripped):
            continue
        start = source.line_starts[line]
        end = start + len(code)
        opener = code.find("(") if source.language == "python" else code.find("{")
        if opener >= 0 and (start + opener) in source.close_of:
            end = max(end, source.close_of[start + opener] + 1)
        spans.append((start, end))
    return spans


# --- Python ------------------------------------------------------------------------ #


def _python_from(source: Source) -> Iterator[_Statement]:
    for line, code in enumerate(source.code):
        m = _PY_FROM.match(code)
        if m is None or not source.is_statement_line(line):
            continue
        module = m.group(1)
        if module == "__future__" or module.startswith("."):
            continue
        start = _statement_start(source, line)
        names_at = source.line_starts[line] + m.end()
        if source.code_text.startswith("(", names_at):
            closer = source.close_of.get(names_at)
            if closer is None:
                continue
            listed, end = source.code_text[names_at + 1 : closer], closer + 1
        else:
            end = source.line_starts[line] + len(code.rstrip())
            listed = source.code_text[names_at:end]
        if "*" in listed or "\\" in listed:
            continue
        names = _parse_names(listed) if _NAME_LIST.match(listed.replace(" as ", " ")) else None
        yield _Statement(start, end, module, names=names or ())


def _to_module(source: Source, s: _Statement) -> list[Violation]:
    return [_violation(source, "python.import_style", "module", s, lambda: _module_fix(source, s))]


def _module_fix(source: Source, s: _Statement) -> Fix | None:
    if not s.names or any(member != local for member, local in s.names):
        return None
    top = s.module.split(".")[0]
    existing = re.search(rf"(?m)^[ \t]*import[ \t]+{re.escape(s.module)}[ \t]*$", source.code_text)
    if existing is None and _used_outside(source, top, s):
        return None  # the module's name is taken by something else
    replacements: list[Replacement] = []
    for member, _ in s.names:
        uses = _rewrites_safely(source, member, s)
        if uses is None:
            return None
        for start, end in uses:
            replacements.append(
                Replacement(source.position(start), source.position(end), f"{s.module}.{member}")
            )
    top_level = source.depths[source.line_of(s.start)] == 0
    if existing is not None and top_level:  # imported already: drop this import's lines
        line, end_line = source.line_of(s.start), source.line_of(s.end)
        if end_line + 1 < len(source.lines):
            stop = (end_line + 1, 0)
        else:
            stop = (end_line, len(source.lines[end_line]))
        replacements.append(Replacement((line, 0), stop, ""))
    else:
        replacements.append(
            Replacement(source.position(s.start), source.position(s.end), f"import {s.module}")
        )
    return Fix(f"Import the module: import {s.module}", tuple(sorted(replacements)))


def _python_import(source: Source) -> Iterator[_Statement]:
    for line, code in enumerate(source.code):
        m = _PY_IMPORT.match(code)
        if m is None or not source.is_statement_line(line):
            continue
        start = _statement_start(source, line)
        end = source.line_starts[line] + len(code.rstrip())
        yield _Statement(start, end, m.group(1), alias=m.group(1))


def _module_members(
    source: Source, name: str, pattern: re.Pattern[str]
) -> tuple[list[tuple[int, int, str]], list[int]]:
    """Uses of module ``name``: as ``name.member`` and bare (offsets), worked out once.

    A file may import one module twice; its uses are read once per name.
    """
    key = f"members:{name}"
    cached = source.cache.get(key)
    if isinstance(cached, tuple):
        return cached
    code = source.code_text
    members: list[tuple[int, int, str]] = []
    bare: list[int] = []
    for at in occurrences(source, name):
        attribute = pattern.match(code, at + len(name))
        if attribute is None:
            bare.append(at)
        else:
            members.append((at, attribute.start(1), attribute.group(1)))
    source.cache[key] = (members, bare)
    return members, bare


def _to_from(source: Source, s: _Statement) -> list[Violation]:
    def fix() -> Fix | None:
        found, bare = _module_members(source, s.alias, _ATTRIBUTE)
        members = [member for member in found if not s.start <= member[0] < s.end]
        if not members or any(not s.start <= at < s.end for at in bare):
            return None
        return _from_fix(source, s, members)

    return [_violation(source, "python.import_style", "from", s, fix)]


def _from_fix(source: Source, s: _Statement, members: list[tuple[int, int, str]]) -> Fix | None:
    names = sorted({name for _, _, name in members})
    if any(used_anywhere(source, name) for name in names):
        return None  # a bare name would clash with something the file already has
    if any(True for _ in uses_in_fields(source, s.alias, 0, len(source.text))):
        return None
    replacements = [
        Replacement(source.position(start), source.position(member_start), "")
        for start, member_start, _ in members
    ]
    replacements.append(
        Replacement(
            source.position(s.start),
            source.position(s.end),
            f"from {s.module} import {', '.join(names)}",
        )
    )
    return Fix(f"Import names: from {s.module} import …", tuple(sorted(replacements)))


# --- JavaScript / TypeScript ----------------------------------------------------------- #


def _module_after(source: Source, offset: int) -> tuple[str, str, int, str] | None:
    """(module, quote, end, tail) for `` from 'module';`` at ``offset``; end includes the ``;``."""
    m = _JS_FROM_AFTER.match(source.code_text, offset)
    if m is None:
        return None
    literal = source.literal_at(m.end())
    if literal is None or not literal.closed or literal.quote not in ("'", '"'):
        return None
    line = source.line_of(literal.end)
    rest = source.code[line][literal.end - source.line_starts[line] :]
    if rest.strip() not in ("", ";"):
        return None
    if rest.strip() == ";":
        return literal.body, literal.quote, literal.end + rest.index(";") + 1, ";"
    return literal.body, literal.quote, literal.end, ""


def _js_namespace(source: Source) -> Iterator[_Statement]:
    for line, code in enumerate(source.code):
        m = _JS_NAMESPACE.match(code)
        if m is None:
            continue
        found = _module_after(source, source.line_starts[line] + m.end(1))
        if found is None:
            continue
        module, quote, end, tail = found
        start = _statement_start(source, line)
        yield _Statement(start, end, module, alias=m.group(1), tail=tail, quote=quote)


def _to_named(source: Source, s: _Statement) -> list[Violation]:
    def fix() -> Fix | None:
        found, bare = _module_members(source, s.alias, _JS_ATTRIBUTE)
        members = [member for member in found if not s.start <= member[0] < s.end]
        if not members or any(not s.start <= at < s.end for at in bare):
            return None
        return _named_fix(source, s, members)

    return [_violation(source, "js.import_style", "named", s, fix)]


def _named_fix(source: Source, s: _Statement, members: list[tuple[int, int, str]]) -> Fix | None:
    fix = None
    if not any(True for _ in uses_in_fields(source, s.alias, 0, len(source.text))):
        names = sorted({name for _, _, name in members})
        if not any(used_anywhere(source, name) for name in names):
            replacements = [
                Replacement(source.position(start), source.position(member), "")
                for start, member, _ in members
            ]
            statement = f"import {{ {', '.join(names)} }} from {s.quote}{s.module}{s.quote}{s.tail}"
            replacements.append(
                Replacement(source.position(s.start), source.position(s.end), statement)
            )
            fix = Fix("Use named imports", tuple(sorted(replacements)))
    return fix


def _js_named(source: Source) -> Iterator[_Statement]:
    for line, code in enumerate(source.code):
        m = _JS_NAMED.match(code)
        if m is None:
            continue
        opener = source.line_starts[line] + m.end() - 1
        closer = source.close_of.get(opener)
        if closer is None:
            continue
        found = _module_after(source, closer + 1)
        if found is None:
            continue
        module, quote, end, tail = found
        listed = source.code_text[opener + 1 : closer]
        names = _parse_names(listed) if "type " not in listed else None
        start = _statement_start(source, line)
        yield _Statement(start, end, module, names=names or (), tail=tail, quote=quote)


def _namespace_name(module: str) -> str:
    """``fs`` for ``node:fs``, ``userService`` for ``./user-service.js``, ``fp`` for ``a/fp``."""
    last = module.rsplit(":", maxsplit=1)[-1].rstrip("/").split("/")[-1]
    last = re.sub(r"\.(?:[cm]?[jt]sx?|json)$", "", last)
    words = [word for word in re.split(r"[^A-Za-z0-9]+", last) if word]
    if not words:
        return ""
    name = words[0].lower() + "".join(word[:1].upper() + word[1:] for word in words[1:])
    return name if re.match(r"^[A-Za-z_$][\w$]*$", name) else ""


def _to_namespace(source: Source, s: _Statement) -> list[Violation]:
    return [
        _violation(source, "js.import_style", "namespace", s, lambda: _namespace_fix(source, s))
    ]


def _namespace_fix(source: Source, s: _Statement) -> Fix | None:
    namespace = _namespace_name(s.module)
    if not s.names or not namespace or used_anywhere(source, namespace):
        return None
    if any(member == "default" for member, _ in s.names):
        return None
    if re.search(r"(?m)^\s*export\s*\{", source.code_text):
        return None  # a local export list may name an imported binding
    replacements: list[Replacement] = []
    for member, local in s.names:
        uses = _rewrites_safely(source, local, s)
        if uses is None:
            return None
        for start, end in uses:
            replacements.append(
                Replacement(source.position(start), source.position(end), f"{namespace}.{member}")
            )
    statement = f"import * as {namespace} from {s.quote}{s.module}{s.quote}{s.tail}"
    replacements.append(Replacement(source.position(s.start), source.position(s.end), statement))
    return Fix(f"Import the module: import * as {namespace}", tuple(sorted(replacements)))
