"""Correction detectors for names: the casing the user renamed functions, variables and classes to.

A rename votes only when it keeps the words and changes their casing (``loadUser`` →
``load_user``) on a declaration that is otherwise the same tokens. Renaming to other
words (``load_user`` → ``fetch_account``) is a change of meaning, not of style. The
renames are handed to the logic check, so the uses they touched elsewhere in the file
are not mistaken for a logic change.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence

from .findings import Edit, Finding, plural
from .languages import JS_LIKE

_FUNCTION_NAME: dict[str, re.Pattern[str]] = {
    "python": re.compile(r"^\s*(?:async\s+)?def\s+(\w+)"),
    "ruby": re.compile(r"^\s*def\s+(?:self\.)?(\w+)"),
    "go": re.compile(r"^\s*func\s+(?:\([^)]*\)\s*)?(\w+)"),
    "rust": re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?fn\s+(\w+)"),
}
_JS_FUNCTION = re.compile(
    r"^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*([\w$]+)"
    r"|^\s*(?:export\s+)?(?:const|let|var)\s+([\w$]+)\s*(?::[^=]+)?=\s*(?:async\s*)?"
    r"(?:function\b|\([^)]*\)\s*(?::[^=]+)?=>|\(\s*$|[\w$]+\s*=>)"
)
_PY_VARIABLE = re.compile(r"^\s*([A-Za-z_]\w*)\s*(?::[^=]+)?=(?!=)")
_JS_VARIABLE = re.compile(
    r"^\s*(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?="
)
_CLASS = re.compile(
    r"^\s*(?:(?:export|default|public|private|protected|internal|abstract|final|sealed|"
    r"static|data|open|declare)\s+)*class\s+([A-Za-z_$][\w$]*)"
)
_OPENING = {"(": 1, "[": 1, ")": -1, "]": -1}

_SNAKE = re.compile(r"^_*[a-z][a-z0-9]*(?:_[a-z0-9]+)+_*$")
_CAMEL = re.compile(r"^_*[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+$")
_PASCAL = re.compile(r"^_*[A-Z](?=[A-Za-z0-9]*[a-z])[A-Za-z0-9]*$")
_ONE_LOWER_WORD = re.compile(r"^_*[a-z][a-z0-9]*$")


def casing(name: str) -> str | None:
    """``snake_case``, ``camelCase`` or ``PascalCase``; None when the name shows no casing."""
    if _SNAKE.match(name):
        return "snake_case"
    if _CAMEL.match(name):
        return "camelCase"
    if _PASCAL.match(name):
        return "PascalCase"
    return None


def _words(name: str) -> str:
    return name.replace("_", "").lower()


def function_name(line: str, language: str | None) -> str | None:
    """The function a line declares, if any (masked code)."""
    if language in JS_LIKE:
        m = _JS_FUNCTION.match(line)
        return (m.group(1) or m.group(2)) if m else None
    pattern = _FUNCTION_NAME.get(language or "")
    m = pattern.match(line) if pattern else None
    return m.group(1) if m else None


def variable_name(line: str, language: str | None) -> str | None:
    """The variable a line assigns or declares, if any (not a function, not an attribute)."""
    if language == "python":
        m = _PY_VARIABLE.match(line)
    elif language in JS_LIKE:
        m = None if _JS_FUNCTION.match(line) else _JS_VARIABLE.match(line)
    else:
        return None
    return m.group(1) if m else None


def class_name(line: str, language: str | None) -> str | None:
    """The class a line declares, if any."""
    m = _CLASS.match(line)
    return m.group(1) if m else None


def _inside_brackets(masked: Sequence[str]) -> list[bool]:
    """Whether each line starts inside an open ``(`` or ``[`` (``name=value`` is an argument)."""
    depth = 0
    inside: list[bool] = []
    for line in masked:
        inside.append(depth > 0)
        depth = max(0, depth + sum(line.count(ch) * d for ch, d in _OPENING.items()))
    return inside


def _casing_votes(
    edit: Edit,
    find: Callable[[str, str | None], str | None],
    values: frozenset[str],
    *,
    from_one_word: bool = False,
    outside_brackets: bool = False,
) -> tuple[Counter[str], dict[str, str]]:
    """Count declarations renamed to another casing of the same words, by new casing."""
    votes: Counter[str] = Counter()
    renames: dict[str, str] = {}
    candidates: list[tuple[int, int, str, str]] = []
    for i, j in edit.changes.pairs:
        old = find(edit.before.masked[i], edit.language)
        new = find(edit.after.masked[j], edit.language)
        if old and new and old != new and _words(old) == _words(new):
            candidates.append((i, j, old, new))
    if outside_brackets and candidates:  # whole-file bracket counts: only when needed
        inside_before = _inside_brackets(edit.before.masked)
        inside_after = _inside_brackets(edit.after.masked)
        candidates = [c for c in candidates if not (inside_before[c[0]] or inside_after[c[1]])]
    for i, j, old, new in candidates:
        if not edit.same_up_to_conventions(i, j):
            continue
        old_case, new_case = casing(old), casing(new)
        if new_case not in values or new_case == old_case:
            continue
        if old_case is None and not (from_one_word and _ONE_LOWER_WORD.match(old)):
            continue
        votes[new_case] += 1
        renames[old] = new
    return votes, renames


def _finding(key: str, noun: str, votes: Counter[str], renames: dict[str, str]) -> list[Finding]:
    ranked = votes.most_common(2)
    if not ranked or (len(ranked) == 2 and ranked[0][1] == ranked[1][1]):
        return []
    value, count = ranked[0]
    chosen = {old: new for old, new in renames.items() if casing(new) == value}
    return [Finding(key, value, f"renamed {plural(count, noun)} to {value}", renames=chosen)]


_SNAKE_OR_CAMEL = frozenset({"snake_case", "camelCase"})


def function_names(edit: Edit) -> list[Finding]:
    """Vote for the casing the user renamed the agent's functions to."""
    votes, renames = _casing_votes(edit, function_name, _SNAKE_OR_CAMEL)
    return _finding("naming.functions", "function", votes, renames)


def variable_names(edit: Edit) -> list[Finding]:
    """Vote for the casing the user renamed the agent's variables to (constants aside)."""
    votes, renames = _casing_votes(edit, variable_name, _SNAKE_OR_CAMEL, outside_brackets=True)
    return _finding("naming.variables", "variable", votes, renames)


def class_names(edit: Edit) -> list[Finding]:
    """Vote for the casing the user renamed the agent's classes to (``user`` → ``User`` too)."""
    votes, renames = _casing_votes(
        edit,
        class_name,
        frozenset({"PascalCase", "snake_case", "camelCase"}),
        from_one_word=True,
    )
    return _finding("naming.classes", "class", votes, renames)


_PY_DECLARATIONS = re.compile(
    r"^[ \t]*(?:(?:async[ \t]+)?def[ \t]+(?P<function>\w+)|class[ \t]+(?P<class>\w+)"
    r"|(?P<variable>[A-Za-z_]\w*)(?:[ \t]*:[^=\n]+)?[ \t]+=[ \t])",
    re.MULTILINE,
)
"""Declarations for counting: a variable needs spaces around ``=``, so ``name=value``
keyword arguments (PEP 8 spells them without) are not counted as variables."""
_JS_DECLARATIONS = re.compile(
    r"^[ \t]*(?:export[ \t]+)?(?:default[ \t]+)?(?:"
    r"(?:async[ \t]+)?function[ \t]*\*?[ \t]*(?P<function>[\w$]+)"
    r"|(?:abstract[ \t]+)?class[ \t]+(?P<class>[\w$]+)"
    r"|(?:const|let|var)[ \t]+(?P<binding>[\w$]+)[ \t]*(?::[^=\n]+)?=[ \t]*"
    r"(?P<arrow>(?:async[ \t]*)?(?:function\b|\([^)\n]*\)[ \t]*(?::[^=\n]+)?=>|[\w$]+[ \t]*=>))?)",
    re.MULTILINE,
)
NAMING_KEYS = {
    "function": "naming.functions",
    "variable": "naming.variables",
    "class": "naming.classes",
}


def declared_names(code: str, language: str | None) -> Iterator[tuple[str, str]]:
    """Yield ``(naming key, casing)`` for every declaration in masked ``code`` with a casing.

    For counting a project's habits (observations), in one pass over the text: names
    of one lowercase word or in UPPER_CASE show no casing and are skipped, and so are
    functions and variables in PascalCase (components, type aliases).
    """
    if language == "python":
        pattern = _PY_DECLARATIONS
    elif language in JS_LIKE:
        pattern = _JS_DECLARATIONS
    else:
        return
    for m in pattern.finditer(code):
        groups = m.groupdict()
        if groups.get("binding"):
            kind, name = ("function" if groups["arrow"] else "variable"), groups["binding"]
        else:
            kind = next(k for k in ("function", "class", "variable") if groups.get(k))
            name = groups[kind]
        shape = casing(name)
        if shape is not None and (kind == "class" or shape != "PascalCase"):
            yield NAMING_KEYS[kind], shape
