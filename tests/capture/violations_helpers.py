"""Helpers for the violation detector tests: what is flagged, and the text after the fixes."""

from __future__ import annotations

import ast
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest
from comodor_lsp.diagnostics.violations import (
    Replacement,
    Violation,
    find_violations,
    merge_fixes,
    split_lines,
)


def code(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def violations(
    text: str,
    language: str,
    rules: dict[str, str],
    path: str = "",
) -> list[Violation]:
    path = path or {"python": "app.py", "javascript": "app.js", "typescript": "app.ts"}.get(
        language, "file.txt"
    )
    found = find_violations(text, language, path, rules)
    return sorted((v for vs in found.values() for v in vs), key=lambda v: (v.start, v.key))


def flagged(text: str, language: str, rules: dict[str, str], path: str = "") -> list[str]:
    """The flagged text of each violation, prefixed with its 1-based line number."""
    lines = split_lines(text)
    out = []
    for v in violations(text, language, rules, path):
        (line, start), (end_line, end) = v.start, v.end
        shown = lines[line][start:end] if line == end_line else lines[line][start:] + "…"
        out.append(f"{line + 1}: {shown}")
    return out


def apply(text: str, replacements: tuple[Replacement, ...] | list[Replacement]) -> str:
    lines = split_lines(text)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    joined = "\n".join(lines)
    for r in sorted(replacements, key=lambda r: r.start, reverse=True):
        start = starts[r.start[0]] + r.start[1]
        end = starts[r.end[0]] + r.end[1]
        joined = joined[:start] + r.text + joined[end:]
    return joined


def fix_all(text: str, language: str, rules: dict[str, str], path: str = "") -> str:
    fixes = [v.fix for v in violations(text, language, rules, path) if v.fix is not None]
    return apply(text, merge_fixes(fixes))


def same_python(before: str, after: str) -> None:
    """The fixed code compiles and means the same (the same syntax tree)."""
    assert ast.dump(ast.parse(after)) == ast.dump(ast.parse(before))


def parses_as_javascript(text: str, tmp_path: Path, name: str = "fixed.mjs") -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    target = tmp_path / name
    target.write_text(text)
    completed = subprocess.run(
        [node, "--check", str(target)], capture_output=True, text=True, check=False
    )
    assert completed.returncode == 0, completed.stderr
