"""Which workspace paths are noise: the one rule book the watcher and the tracker share.

The watcher and the tracker must agree exactly. If the tracker counted an editor save
of a file the watcher never reports (or the other way round), it would see a
"correction" of something the agent never wrote. So both ask :meth:`IgnoreRules.is_ignored`.

Three sources of rules, checked in this order:

1. Built-in folders that are never user-authored code: VCS metadata, dependency trees,
   virtualenvs (by name, or any folder holding ``pyvenv.cfg``), tool caches and
   ``.comodor``. Generic output names (``build``, ``dist``, ``target``, ``out``) are *not*
   built in: plenty of projects keep real sources in a folder called ``build`` or
   ``out``, and a project that generates them almost always lists them in ``.gitignore``.
   Missing an agent write is silent and costly; an extra report is cheap.
2. ``.gitignore`` files (root and nested, deepest file wins, ``!`` negation, an
   ignored folder cannot be re-included, as in git) plus ``.git/info/exclude``.
   ``.gitignore`` files above the workspace root and the global ``core.excludesFile``
   are not read.
3. The user's ``exclude`` globs (gitignore syntax); these always win.

Editor temp and swap files are ignored by name, whatever the rules say, so an
atomic save reports only its target.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Sequence
from pathlib import Path

from pathspec import GitIgnoreSpec

ALWAYS_IGNORED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".jj",
        "node_modules",
        ".venv",
        "venv",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".tox",
        ".nox",
        ".eggs",
        ".next",
        ".comodor",
    }
)
"""Folder names ignored anywhere in the tree (never watched recursively either)."""

_TEMP_SUFFIXES = (".swp", ".swo", ".swx", "~", ".tmp", ".bak", ".orig", ".crswap")
_TEMP_PATTERN = re.compile(
    r"""^(
        \.\#.*            # emacs lock files
      | \#.*\#            # emacs auto-save
      | 4913              # vim's "can I write here" probe
      | .*___jb_(tmp|old)___   # JetBrains safe write
      | .*\.tmp\.[0-9.]+  # <name>.tmp.<pid>.<time>, used by terminal agents' atomic writes
      | \.goutputstream-.*     # GLib atomic replace
    )$""",
    re.VERBOSE,
)


def is_temp_name(name: str) -> bool:
    """True for editor/agent scratch files that only exist to be renamed or deleted."""
    return name.endswith(_TEMP_SUFFIXES) or _TEMP_PATTERN.match(name) is not None


def _read_spec(file: Path) -> GitIgnoreSpec | None:
    try:
        text = file.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    lines = text.splitlines()
    if not any(line.strip() and not line.startswith("#") for line in lines):
        return None
    return GitIgnoreSpec.from_lines(lines)


class IgnoreRules:
    """Decide whether a path under ``root`` is noise. Thread-safe; decisions are cached.

    Call :meth:`invalidate` when a ``.gitignore``, ``pyvenv.cfg`` or ``info/exclude``
    changes; the watcher does that itself for the files it sees.
    """

    def __init__(
        self, root: Path, *, exclude: Sequence[str] = (), git_info_exclude: Path | None = None
    ) -> None:
        self.root = root
        self._root_str = str(root)
        self._prefix = self._root_str.rstrip(os.sep) + os.sep
        self._exclude = GitIgnoreSpec.from_lines(list(exclude)) if exclude else None
        self._info_exclude_file = git_info_exclude
        self._lock = threading.Lock()
        self._specs: dict[str, GitIgnoreSpec | None] = {}
        self._dirs: dict[str, bool] = {}
        self._info_exclude: GitIgnoreSpec | None = None
        self._info_loaded = False

    def invalidate(self) -> None:
        """Forget cached files and decisions (a rule file changed)."""
        with self._lock:
            self._specs.clear()
            self._dirs.clear()
            self._info_loaded = False

    def relative(self, path: str | os.PathLike[str]) -> str | None:
        """``path`` relative to the root with ``/`` separators, or None if outside it."""
        text = os.fspath(path)
        if not text.startswith(self._prefix):
            return None
        rel = text[len(self._prefix) :]
        if os.sep != "/":
            rel = rel.replace(os.sep, "/")
        return rel or None

    def is_ignored(self, path: str | os.PathLike[str], *, is_dir: bool | None = None) -> bool:
        """True if changes to ``path`` must not be reported (outside the root counts).

        ``is_dir`` matters for patterns ending in ``/``; when None it is looked up on disk
        (a deleted path then counts as a file).
        """
        rel = self.relative(path)
        if rel is None:
            return True
        parent, _, name = rel.rpartition("/")
        if parent and self._dir_ignored(parent):
            return True
        if is_dir is None:
            is_dir = os.path.isdir(os.fspath(path))
        if is_dir:
            return self._dir_ignored(rel)
        if is_temp_name(name):
            return True
        with self._lock:
            return self._matched(rel, is_dir=False)

    def _dir_ignored(self, rel: str) -> bool:
        with self._lock:
            cached = self._dirs.get(rel)
        if cached is not None:
            return cached
        parent, _, name = rel.rpartition("/")
        if (
            (parent and self._dir_ignored(parent))
            or name in ALWAYS_IGNORED_DIRS
            or os.path.exists(os.path.join(self._root_str, rel, "pyvenv.cfg"))
        ):
            verdict = True
        else:
            with self._lock:
                verdict = self._matched(rel, is_dir=True)
        with self._lock:
            self._dirs[rel] = verdict
        return verdict

    def _matched(self, rel: str, *, is_dir: bool) -> bool:
        """Git's rules for one path whose parent folders are known not to be ignored."""
        tail = "/" if is_dir else ""
        if self._exclude is not None and self._exclude.match_file(rel + tail):
            return True
        parts = rel.split("/")
        for depth in range(len(parts) - 1, -1, -1):
            base = "/".join(parts[:depth])
            spec = self._spec(base)
            if spec is None:
                continue
            verdict = spec.check_file("/".join(parts[depth:]) + tail).include
            if verdict is not None:
                return bool(verdict)
        info = self._info_spec()
        if info is not None:
            return bool(info.match_file(rel + tail))
        return False

    def _spec(self, base: str) -> GitIgnoreSpec | None:
        if base not in self._specs:
            folder = Path(self._root_str, base) if base else self.root
            self._specs[base] = _read_spec(folder / ".gitignore")
        return self._specs[base]

    def _info_spec(self) -> GitIgnoreSpec | None:
        if not self._info_loaded:
            self._info_loaded = True
            file = self._info_exclude_file
            self._info_exclude = _read_spec(file) if file is not None else None
        return self._info_exclude
