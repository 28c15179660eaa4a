"""Correction detector for import style: names from a module, or the module itself.

Python: ``import os`` … ``os.path.join(…)`` against ``from os import path`` …
``path.join(…)``. JavaScript/TypeScript: ``import * as fs from 'fs'`` (or a default
import used the same way) … ``fs.readFile(…)`` against ``import { readFile } from
'fs'`` … ``readFile(…)``.

The change is clear only when both halves are there: the import of one module was
replaced by the other form of importing *the same module*, and the uses the user
touched read the same once ``alias.name`` and ``name`` are swapped. A new import of
another module, or an import dropped with the code that used it, is no vote.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import attrs

from .findings import Edit, Finding, plural
from .languages import JS_LIKE
from .lexer import Lexed

_PY_MODULE = re.compile(r"^\s*import\s+([\w.]+)(?:\s+as\s+(\w+))?\s*$")
_PY_NAMES = re.compile(r"^\s*from\s+([\w.]+)\s+import\s+\(?([\w\s,]+?)\)?\s*,?\s*$")
_JS_WHOLE = re.compile(
    r"^\s*import\s+(?:\*\s+as\s+)?([A-Za-z_$][\w$]*)\s+from\s+\x01(\d+)\x02\s*;?\s*$"
)
_JS_NAMES = re.compile(r"^\s*import\s+\{([^}]*)\}\s+from\s+\x01(\d+)\x02\s*;?\s*$")
_NAME_ALIAS = re.compile(r"^([\w$]+)(?:\s+as\s+([\w$]+))?$")
_IDENTIFIER = re.compile(r"(?<![\w\x01])[A-Za-z_$][\w$]*")


@attrs.frozen
class _Import:
    """One import line: which module, and the local names it binds."""

    line: int
    module: str
    alias: str = ""
    """For a whole-module import: the name the module is used by."""
    names: tuple[tuple[str, str], ...] = ()
    """For a names import: (local name, member of the module)."""


def _names(listed: str) -> tuple[tuple[str, str], ...] | None:
    found: list[tuple[str, str]] = []
    for raw in listed.split(","):
        part = raw.strip()
        if not part:
            continue
        m = _NAME_ALIAS.match(part)
        if m is None:
            return None
        member = m.group(1)
        found.append((m.group(2) or member, member))
    return tuple(found) or None


def _string(lexed: Lexed, index: str) -> str:
    return lexed.strings[int(index)].body


def _read(lexed: Lexed, lines: Iterable[int], language: str | None) -> list[_Import]:
    found: list[_Import] = []
    for k in lines:
        code = lexed.masked[k]
        if language == "python":
            whole = _PY_MODULE.match(code)
            if whole:
                found.append(_Import(k, whole.group(1), alias=whole.group(2) or whole.group(1)))
                continue
            listed = _PY_NAMES.match(code)
            names = _names(listed.group(2)) if listed else None
            if listed and names:
                found.append(_Import(k, listed.group(1), names=names))
        else:
            whole = _JS_WHOLE.match(code)
            if whole:
                found.append(_Import(k, _string(lexed, whole.group(2)), alias=whole.group(1)))
                continue
            listed = _JS_NAMES.match(code)
            names = _names(listed.group(1)) if listed else None
            if listed and names:
                found.append(_Import(k, _string(lexed, listed.group(2)), names=names))
    return found


def _casing_aside(code: str) -> str:
    """Masked code with names compared regardless of casing (string bodies are placeholders)."""
    return _IDENTIFIER.sub(lambda m: m.group(0).replace("_", "").lower(), code)


def _qualify(code: str, alias: str, names: tuple[tuple[str, str], ...]) -> str:
    """Rewrite bare uses of imported names as ``alias.member``."""
    for local, member in names:
        code = re.sub(rf"(?<![\w$.]){re.escape(local)}(?![\w$])", f"{alias}.{member}", code)
    return code


def _converted(
    edit: Edit, old: _Import, new: _Import, whole: _Import, listed: _Import
) -> set[tuple[int, int]]:
    """Changed line pairs that read the same once ``alias.member`` and the bare name swap.

    ``old`` was removed and ``new`` added; ``whole`` and ``listed`` are the same two
    imports by form (whole module, names).
    """
    to_names = old is whole
    pairs: set[tuple[int, int]] = set()
    for i, j in edit.changes.pairs:
        if i == old.line or j == new.line:
            continue
        before, after = edit.before.masked[i], edit.after.masked[j]
        if f"{whole.alias}." not in (before if to_names else after):
            continue
        if to_names:
            after = _qualify(after, whole.alias, listed.names)
        else:
            before = _qualify(before, whole.alias, listed.names)
        if edit.before.spell(_casing_aside(before)) == edit.after.spell(_casing_aside(after)):
            pairs.add((i, j))  # a name renamed to another casing on the same line is its own vote
    return pairs


def import_style(edit: Edit) -> list[Finding]:
    """Vote for the form of import the user rewrote the agent's imports to."""
    if edit.language != "python" and edit.language not in JS_LIKE:
        return []
    removed = _read(edit.before, edit.changes.removed, edit.language)
    added = _read(edit.after, edit.changes.added, edit.language)
    if not removed or not added:
        return []
    uses = {True: 0, False: 0}
    explained: dict[bool, set[tuple[int, int]]] = {True: set(), False: set()}
    for old in removed:
        for new in added:
            if old.module != new.module or bool(old.names) == bool(new.names):
                continue
            to_names = bool(old.alias)
            whole, listed = (old, new) if to_names else (new, old)
            converted = _converted(edit, old, new, whole, listed)
            if converted:
                uses[to_names] += len(converted)
                explained[to_names] |= converted | {(old.line, new.line)}
    if uses[True] == uses[False]:
        return []
    to_names = uses[True] > uses[False]
    python = edit.language == "python"
    if to_names:
        value = "from" if python else "named"
        what = "imported names instead of whole modules"
    else:
        value = "module" if python else "namespace"
        what = "imported whole modules instead of names"
    return [
        Finding(
            "python.import_style" if python else "js.import_style",
            value,
            f"{what} ({plural(uses[to_names], 'use')} rewritten)",
            explained=frozenset(explained[to_names]),
        )
    ]
