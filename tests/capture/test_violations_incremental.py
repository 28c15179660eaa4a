"""Reading only what an edit changed finds exactly what reading the whole document finds.

Random edits (characters, quotes, brackets, line breaks, indentation, docstring
quotes) are replayed on real-looking Python and TypeScript files; after each one, the
incremental reading must list the same places as a fresh reading of the whole text.
"""

from __future__ import annotations

import random

import pytest
from comodor_lsp.diagnostics.violations import (
    DocumentChecker,
    find_violations,
    find_violations_again,
    split_lines,
)

from bench.codegen import Style, new_spec, render
from tests.capture.test_violations_layout import SERVER_JS, SERVICE, TWO_SPACE
from tests.capture.violations_helpers import code

PYTHON_RULES = {
    "quotes.style": "single",
    "python.string_format": "fstring",
    "python.return_annotations": "added",
    "naming.functions": "snake_case",
    "naming.variables": "snake_case",
    "naming.classes": "PascalCase",
    "python.import_style": "from",
    "trailing_commas": "always",
    "indent.width": "4",
}
TYPESCRIPT_RULES = {
    "quotes.style": "single",
    "js.semicolons": "never",
    "trailing_commas": "always",
    "naming.functions": "camelCase",
    "naming.variables": "camelCase",
    "indent.width": "2",
    "js.import_style": "named",
}
PIECES = [
    "x", " ", "\n", "\n\n", "    ", "\t", '"', "'", '"""', "(", ")", "[", "]", "{", "}",
    ",", ";", ":", "#", "//", "/*", "*/", "\\", "def f():\n", "import os\n", "os.path",
    'f"{a}"', "`${b}`", "return", "=", "if x:\n    y = 1\n",
    # lines at column 0 whose reading looks back over the line break above them
    "\n/* c */ x = 1\n", "\n{\n", "\n(b)\n", "\n[\n  1,\n  2\n]\n", "\n`t`\n",
    "\n@property\n", "\n@abstractmethod\ndef g(self):\n    pass\n", "\n.then()\n",
    "\nimport * as fs from 'fs'\n", "fs.readFile", "\nimport os.path\n", "\r\n",
]  # fmt: skip


def places(found: dict[str, list]) -> list[tuple]:  # type: ignore[type-arg]
    return sorted((v.key, v.value, v.start, v.end) for vs in found.values() for v in vs)


def generated(language: str, seed: int) -> str:
    rng = random.Random(seed)
    style = Style(py_imports="module", ts_semicolons="always", ts_trailing="never")
    return "\n".join(render(new_spec(rng, language, k), style) for k in range(12))


def edit(text: str, rng: random.Random) -> str:
    """A keystroke-sized edit, now and then a paste at a line start or a cut of the top."""
    at = rng.randrange(len(text) + 1)
    roll = rng.random()
    if roll < 0.02:
        return text[text.find("\n", at) + 1 :]  # the top of the file cut away
    if roll < 0.3 and text:
        end = min(len(text), at + rng.randrange(1, 40 if roll < 0.05 else 12))
        return text[:at] + text[end:]
    if roll < 0.4:
        at = text.rfind("\n", 0, at) + 1
    return text[:at] + rng.choice(PIECES) + text[at:]


@pytest.mark.parametrize(
    ("language", "path", "rules", "start"),
    [
        ("python", "a.py", PYTHON_RULES, "generated"),
        ("python", "b.py", PYTHON_RULES, SERVICE + "\n\n" + TWO_SPACE),
        ("typescript", "c.ts", TYPESCRIPT_RULES, "generated"),
        ("javascript", "d.js", TYPESCRIPT_RULES, SERVER_JS),
        ("typescript", "e.tsx", TYPESCRIPT_RULES, "generated"),
    ],
)
@pytest.mark.parametrize("seed", range(6))
def test_random_edits_find_what_a_whole_reading_finds(
    language: str, path: str, rules: dict[str, str], start: str, seed: int
) -> None:
    rng = random.Random(seed)
    text = generated(language, seed) if start == "generated" else start
    checker = DocumentChecker()
    for step in range(80):
        text = edit(text, rng)
        again = find_violations_again(checker, text, language, path, rules)
        whole = find_violations(text, language, path, rules)
        assert places(again) == places(whole), (step, text)


def test_an_edit_that_opens_a_docstring_reads_on_to_where_it_closes() -> None:
    text = code(
        """
        def one():
            return "a"


        def two():
            return "b"


        def three():
            return "c"
        """
    )
    checker = DocumentChecker()
    rules = {"quotes.style": "single"}
    assert len(places(find_violations_again(checker, text, "python", "a.py", rules))) == 3
    opened = text.replace('    return "a"', '    return """a"', 1)
    again = find_violations_again(checker, opened, "python", "a.py", rules)
    assert places(again) == places(find_violations(opened, "python", "a.py", rules))


def check_twice(before: str, after: str, language: str, path: str, rules: dict[str, str]) -> None:
    """Read ``before``, then ``after`` incrementally: the places must be a whole reading's."""
    checker = DocumentChecker()
    find_violations_again(checker, before, language, path, rules)
    again = find_violations_again(checker, after, language, path, rules)
    assert places(again) == places(find_violations(after, language, path, rules))


def test_a_comment_led_line_does_not_hide_a_needless_semicolon_above_it() -> None:
    before = "import { send } from './client';\n\nfoo()\n/* c */ x = 1\n"
    after = before.replace("foo()", "foo();")
    check_twice(before, after, "typescript", "a.ts", {"js.semicolons": "never"})


def test_a_brace_at_column_0_is_judged_by_the_line_above_it() -> None:
    before = "export func\n{\n  a = 1;\n}\n\nx = 2;\n"
    after = before.replace("x = 2;", "x = 3;")
    check_twice(before, after, "typescript", "a.ts", {"js.semicolons": "never"})


def test_a_bracket_at_column_0_is_judged_by_the_word_before_it() -> None:
    before = "x = foo\n[\n  1,\n  2\n]\n\ny = 1\n"
    after = before.replace("y = 1", "y = 2")
    check_twice(before, after, "python", "a.py", {"trailing_commas": "always"})


def test_cutting_the_top_of_the_file_keeps_the_rest() -> None:
    checker = DocumentChecker()
    rules = {"quotes.style": "single"}
    texts = [
        'x = "a"\n\ny = "b"\n\nz = "c"\n',
        'y = "b"\n\nz = "c"\n',
        'w = "new"\ny = "b"\n\nz = "c"\n',
        'w = "new"\ny = "b"\n\nz = "changed"\n',
    ]
    for text in texts:
        again = find_violations_again(checker, text, "python", "a.py", rules)
        assert places(again) == places(find_violations(text, "python", "a.py", rules))
    assert sum(segment.count for segment in checker._segments) == len(split_lines(texts[-1]))
