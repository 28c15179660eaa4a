"""Violation detectors for code habits: string formatting, return annotations, names, imports.

The fixes are judged by what they do: a rewritten string has the same value when run,
renamed and re-imported code compiles to the same program up to the renaming.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.capture.violations_helpers import (
    code,
    fix_all,
    flagged,
    parses_as_javascript,
    same_python,
    violations,
)

# --- string formatting -----------------------------------------------------------------------

FORMATTING = code(
    """
    def describe(user, items, price, _):
        title = "{} ({})".format(user.name, len(items))
        line = "%s costs %.2f" % (items[0], price)
        plain = "%s" % user
        label = _("Hello {name}").format(name=user.name)
        data = b"%d bytes" % len(items)
        count = "%d items" % len(items)
        nested = "{0.name}".format(user)
        extra = "{}".format(user, price)
        debug = f"{user=}"
        return title, line, plain, label, data, count, nested, extra, debug
    """
)


class User:
    name = "Ada"

    def __str__(self) -> str:
        return "user Ada"

    def __repr__(self) -> str:
        return "User('Ada')"


def run(text: str) -> object:
    namespace: dict[str, object] = {}
    exec(text, namespace)
    describe = namespace["describe"]
    return describe(User(), ["tea", "cake"], 2.5, lambda s: s)  # type: ignore[operator]


def test_format_and_percent_are_flagged_where_a_literal_is_formatted() -> None:
    found = flagged(FORMATTING, "python", {"python.string_format": "fstring"})
    assert [entry.split(":")[0] for entry in found] == ["2", "3", "4", "7", "8", "9"]
    # not 5 (`_("…").format`: translation needs the template) nor 6 (bytes)


def test_fstring_fixes_give_the_same_strings_and_skip_what_would_change() -> None:
    fixed = fix_all(FORMATTING, "python", {"python.string_format": "fstring"})
    assert 'title = f"{user.name} ({len(items)})"' in fixed
    assert 'line = f"{items[0]} costs {price:.2f}"' in fixed
    assert 'plain = f"{user}"' in fixed
    assert 'count = "%d items" % len(items)' in fixed  # %d truncates floats; f"{x}" would not
    assert 'nested = "{0.name}".format(user)' in fixed
    assert 'extra = "{}".format(user, price)' in fixed  # an unused argument still runs
    assert run(fixed) == run(FORMATTING)


def test_fstrings_are_rewritten_with_format_when_that_is_the_rule() -> None:
    text = code(
        """
        def describe(user, items, price, _):
            title = f"{user.name} ({len(items)})"
            money = f"{price:.2f} for {items[0]!r}"
            empty = f"no fields"
            debug = f"{user=}"
            return title, money, empty, debug
        """
    )
    assert [
        e.split(":")[0] for e in flagged(text, "python", {"python.string_format": "format"})
    ] == [
        "2",
        "3",
        "5",
    ]
    fixed = fix_all(text, "python", {"python.string_format": "format"})
    assert 'title = "{} ({})".format(user.name, len(items))' in fixed
    assert 'money = "{:.2f} for {!r}".format(price, items[0])' in fixed
    assert 'debug = f"{user=}"' in fixed  # `=` has no str.format spelling
    assert run(fixed) == run(text)


# --- return annotations ----------------------------------------------------------------------

MODULE = code(
    '''
    from abc import ABC, abstractmethod


    class Shape(ABC):
        def __init__(self, name):
            self.name = name

        @property
        def label(self):
            return self.name.title()

        @abstractmethod
        def area(self):
            ...

        def describe(self):
            print(f"{self.name}: {self.area()}")

        def points(self):
            yield from ()


    def make(name: str) -> Shape:
        """def inside(a docstring): is not a function"""
        return Shape(name)


    async def save(shape,
                   path):
        with open(path, "w") as handle:
            handle.write(shape.name)
    '''
)


def test_functions_without_a_return_annotation_are_flagged_by_name() -> None:
    assert flagged(MODULE, "python", {"python.return_annotations": "added"}) == [
        "5: __init__",
        "9: label",
        "13: area",
        "16: describe",
        "19: points",
        "28: save",
    ]


def test_none_is_added_only_where_nothing_is_returned() -> None:
    found = {
        v.start[0] + 1: v.fix
        for v in violations(MODULE, "python", {"python.return_annotations": "added"})
    }
    assert [line for line, fix in found.items() if fix is not None] == [5, 16, 28]
    fixed = fix_all(MODULE, "python", {"python.return_annotations": "added"})
    assert "def __init__(self, name) -> None:" in fixed
    assert "def describe(self) -> None:" in fixed
    assert "               path) -> None:" in fixed
    ast.parse(fixed)


def test_removing_annotations_keeps_the_code_valid() -> None:
    text = "def total(rows: list[int]) -> dict[str, int]:\n    return {'n': sum(rows)}\n"
    assert flagged(text, "python", {"python.return_annotations": "removed"}) == [
        "1: -> dict[str, int]"
    ]
    fixed = fix_all(text, "python", {"python.return_annotations": "removed"})
    assert fixed.startswith("def total(rows: list[int]):\n")


# --- naming ----------------------------------------------------------------------------------

NAMES = code(
    """
    import unittest

    maxRetries = 3
    MAX_SIZE = 10
    UserMap = dict[str, int]


    def loadUser(userId, cache):
        cachedUser = cache.get(userId)
        if cachedUser is None:
            cachedUser = fetch(userId, retries=maxRetries)
        print(f"loaded {cachedUser}")
        return cachedUser


    class userRecord:
        firstName: str = ""


    class TestLoad(unittest.TestCase):
        def setUp(self):
            self.cacheHits = 0
    """
)


def test_names_in_another_casing_are_flagged_but_not_constants_types_or_framework_names() -> None:
    rules = {
        "naming.functions": "snake_case",
        "naming.variables": "snake_case",
        "naming.classes": "PascalCase",
    }
    assert flagged(NAMES, "python", rules) == [
        "3: maxRetries",
        "8: loadUser",
        "9: cachedUser",
        "11: cachedUser",
        "16: userRecord",
    ]  # not MAX_SIZE, UserMap, firstName (a class body), setUp (unittest's)


def test_a_local_is_renamed_through_its_function_and_its_fstrings() -> None:
    fixed = fix_all(NAMES, "python", {"naming.variables": "snake_case"})
    assert "cached_user = cache.get(userId)" in fixed
    assert 'print(f"loaded {cached_user}")' in fixed
    assert "maxRetries = 3" in fixed  # module level: other files may import it
    same_python(NAMES.replace("cachedUser", "cached_user"), fixed)


def test_no_rename_when_a_name_is_taken_or_used_as_a_keyword() -> None:
    text = code(
        """
        def send(payload):
            retryCount = 0
            retry_count = 1
            post(payload, retryCount=retryCount)
            return retry_count
        """
    )
    (found,) = violations(text, "python", {"naming.variables": "snake_case"})
    assert found.fix is None


def test_javascript_names_and_react_components() -> None:
    text = code(
        """
        export function load_user(id) {
          const cached_user = cache.get(id)
          return cached_user ?? fetchUser(id)
        }

        function UserCard({ user }) {
          const full_name = `${user.first} ${user.last}`
          return `<b>${full_name}</b>`
        }
        """
    )
    rules = {"naming.functions": "camelCase", "naming.variables": "camelCase"}
    assert flagged(text, "javascript", rules) == [
        "1: load_user",
        "2: cached_user",
        "7: full_name",
    ]
    fixed = fix_all(text, "javascript", rules)
    assert "return `<b>${fullName}</b>`" in fixed and "const cachedUser" in fixed
    assert "export function load_user" in fixed  # exported: renaming is the language's job


# --- import style ------------------------------------------------------------------------------


def test_python_from_imports_become_module_imports_with_every_use_qualified() -> None:
    text = code(
        """
        from __future__ import annotations

        from os.path import join, exists
        from . import helpers


        def target(root):
            path = join(root, "out")
            return path if exists(path) else helpers.default()
        """
    )
    assert flagged(text, "python", {"python.import_style": "module"}) == [
        "3: from os.path import join, exists"
    ]
    fixed = fix_all(text, "python", {"python.import_style": "module"})
    assert "import os.path\n" in fixed
    assert 'path = os.path.join(root, "out")' in fixed
    assert "os.path.exists(path)" in fixed
    ast.parse(fixed)


def test_python_module_imports_become_from_imports() -> None:
    text = "import json\n\n\ndef dump(rows):\n    return json.dumps(rows, indent=2)\n"
    assert flagged(text, "python", {"python.import_style": "from"}) == ["1: import json"]
    fixed = fix_all(text, "python", {"python.import_style": "from"})
    assert (
        fixed == "from json import dumps\n\n\ndef dump(rows):\n    return dumps(rows, indent=2)\n"
    )


def test_javascript_namespace_and_named_imports_both_ways(tmp_path: Path) -> None:
    namespace = code(
        """
        import * as fs from 'node:fs';

        export function read(path) {
          return fs.existsSync(path) ? fs.readFileSync(path, 'utf8') : '';
        }
        """
    )
    assert flagged(namespace, "javascript", {"js.import_style": "named"}) == [
        "1: import * as fs from 'node:fs';"
    ]
    named = fix_all(namespace, "javascript", {"js.import_style": "named"})
    assert named.startswith("import { existsSync, readFileSync } from 'node:fs';\n")
    assert "return existsSync(path) ? readFileSync(path, 'utf8') : '';" in named
    parses_as_javascript(named, tmp_path)
    back = fix_all(named, "javascript", {"js.import_style": "namespace"})
    assert back.startswith("import * as fs from 'node:fs';\n")
    assert "fs.existsSync(path) ? fs.readFileSync(path, 'utf8')" in back
    parses_as_javascript(back, tmp_path, "back.mjs")
