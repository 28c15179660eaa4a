"""Choose which source files of a project to read, the way its own tooling would.

The walk skips what is not the project's own code (VCS data, dependencies, virtual
environments, build output, Comodor's own folder) and whatever ``.gitignore`` files
exclude, then spreads the sample evenly over what is left so one huge folder does not
drown the rest. It only stats files; reading them is the caller's business.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import pathspec

from ..languages import CODE_LANGUAGES, language_of

SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".comodor",
        "node_modules",
        "bower_components",
        "__pycache__",
        ".venv",
        "venv",
        ".env",
        "env",
        ".tox",
        ".nox",
        ".eggs",
        "site-packages",
        "build",
        "dist",
        "out",
        "target",
        ".next",
        ".nuxt",
        ".svelte-kit",
        ".turbo",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".cache",
        ".gradle",
        ".idea",
        ".vscode",
        "coverage",
        "htmlcov",
        "vendor",
        ".terraform",
    }
)
CANDIDATE_FACTOR = 10
"""The walk stops after this many times ``max_files`` candidates, to stay fast on monorepos."""


@attrs.frozen
class SourceFile:
    """A file chosen for the sample, with the stat data the fingerprint uses."""

    path: Path
    rel: str
    language: str
    size: int
    mtime_ns: int


def _load_gitignore(directory: Path) -> Any:
    try:
        lines = (directory / ".gitignore").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    try:
        return pathspec.GitIgnoreSpec.from_lines(lines.splitlines())
    except (ValueError, TypeError):
        return None


def _ignored(rel: str, is_dir: bool, specs: list[tuple[str, Any]]) -> bool:
    for base, spec in specs:
        sub = rel[len(base) + 1 :] if base else rel
        if spec.match_file(sub + "/" if is_dir else sub):
            return True
    return False


def _walk(root: Path, limit: int, max_file_bytes: int) -> Iterator[SourceFile]:
    """Yield candidate source files in a stable order, honouring every .gitignore."""
    stack: list[tuple[Path, str, list[tuple[str, Any]]]] = [(root, "", [])]
    found = 0
    while stack:
        directory, rel_dir, inherited = stack.pop()
        spec = _load_gitignore(directory)
        specs = [*inherited, (rel_dir, spec)] if spec is not None else inherited
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            continue
        if any(e.name == "pyvenv.cfg" for e in entries) and rel_dir:
            continue
        subdirs: list[tuple[Path, str, list[tuple[str, Any]]]] = []
        for entry in entries:
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            try:
                if entry.is_symlink():
                    continue
                if entry.is_dir():
                    if entry.name not in SKIP_DIRS and not _ignored(rel, True, specs):
                        subdirs.append((Path(entry.path), rel, specs))
                    continue
                language = language_of(entry.name)
                if language not in CODE_LANGUAGES or ".min." in entry.name:
                    continue
                if _ignored(rel, False, specs):
                    continue
                stat = entry.stat()
            except OSError:
                continue
            if language is None or stat.st_size == 0 or stat.st_size > max_file_bytes:
                continue
            yield SourceFile(Path(entry.path), rel, language, stat.st_size, stat.st_mtime_ns)
            found += 1
            if found >= limit:
                return
        stack.extend(reversed(subdirs))


def sample_files(root: Path, max_files: int, max_file_bytes: int) -> list[SourceFile]:
    """Return at most ``max_files`` source files spread evenly over the project."""
    if max_files <= 0:
        return []
    candidates = list(_walk(root, max_files * CANDIDATE_FACTOR, max_file_bytes))
    if len(candidates) <= max_files:
        return candidates
    step = len(candidates) / max_files
    return [candidates[int(k * step)] for k in range(max_files)]
