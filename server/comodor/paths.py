"""Where the brain lives and how a project is identified.

The project key must survive moving or re-cloning the folder, otherwise a user
who renames a directory loses everything learned about that project. For a git
repository the root commit is such an identity; otherwise the resolved path is
the best we have.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import platformdirs

BRAIN_FILE = "brain.db"
DATA_FOLDER = "comodor-lsp"
"""Our folder in the platform's data directory: not ``comodor``, where PyPI's other
``comodor`` (a coding agent) keeps a ``brain.db`` of its own."""
PREVIOUS_DATA_FOLDER = "comodor"


def default_brain_path(override: str = "") -> Path:
    """The brain file: ``override``, else ``$COMODOR_HOME/brain.db``, else the user data dir."""
    if override:
        return Path(override).expanduser()
    home = os.environ.get("COMODOR_HOME")
    if home:
        return Path(home).expanduser() / BRAIN_FILE
    return Path(platformdirs.user_data_dir(DATA_FOLDER, appauthor=False)) / BRAIN_FILE


def previous_default_brain_path(override: str = "") -> Path | None:
    """Where the default brain was before it moved to ``comodor-lsp`` (None if not the default)."""
    if override or os.environ.get("COMODOR_HOME"):
        return None
    return Path(platformdirs.user_data_dir(PREVIOUS_DATA_FOLDER, appauthor=False)) / BRAIN_FILE


def _git_root_commit(folder: Path) -> str | None:
    try:
        completed = subprocess.run(
            ["git", "rev-list", "--max-parents=0", "HEAD"],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if completed.returncode != 0:
        return None
    roots = sorted(completed.stdout.split())
    return roots[0] if roots else None


def project_key(folder: Path | str) -> str:
    """A short, stable key for a project folder (git root commit, else path hash)."""
    path = Path(folder).expanduser().resolve()
    root = _git_root_commit(path) if path.is_dir() else None
    if root:
        return "git-" + root[:16]
    digest = hashlib.sha256(str(path).encode("utf-8")).hexdigest()
    return "path-" + digest[:16]


def resolve_inside(root: Path, raw: str | Path) -> Path:
    """``raw`` (relative to ``root``, or absolute) resolved through every symlink.

    Raises ``ValueError`` when the real location is outside ``root``: a path with
    ``..``, an absolute path elsewhere, or a symlink (the file itself or any
    folder on the way) that points out of the folder. Callers write to the
    returned path, never to ``raw``, so a symlink is followed, not replaced.
    """
    base = root.resolve()
    candidate = Path(raw).expanduser()
    if not candidate.is_absolute():
        candidate = base / candidate
    resolved = candidate.resolve()
    resolved.relative_to(base)  # raises ValueError when outside
    return resolved


def in_git_folder(root: Path, path: Path) -> bool:
    """Whether ``path`` (resolved, inside ``root``) lies in a ``.git`` folder.

    Git's own files (``.git/config``, hooks) run code; no write of Comodor's
    belongs there, whatever a setting says.
    """
    try:
        parts = path.relative_to(root.resolve()).parts
    except ValueError:
        return False
    return ".git" in parts


def writable_folder(root: Path) -> Callable[[Path], bool]:
    """The folder test for :func:`comodor.brain.atomic.write_atomic` inside a workspace."""
    base = root.resolve()

    def allowed(folder: Path) -> bool:
        try:
            folder.relative_to(base)
        except ValueError:
            return False
        return not in_git_folder(base, folder)

    return allowed
