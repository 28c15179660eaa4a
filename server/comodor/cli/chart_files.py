"""``comodor-lsp progress --svg FILE`` / ``--html FILE``: where the pictures go, checked first.

A path that cannot be written is said in one line before the brain is opened, and
a file is only ever replaced whole (:func:`~comodor.brain.atomic.write_atomic`),
so a bad path or a full disk leaves nothing behind: no empty file, no half a
picture. The pictures themselves come from :mod:`comodor.progress_chart`.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..brain.atomic import write_atomic

__all__ = ["problem", "write"]


def problem(raw: str) -> str | None:
    """Why ``raw`` cannot take a chart (one sentence naming it), or None when it can."""
    if not raw.strip():
        return "the chart's file name is empty; give a path such as progress.svg"
    path = Path(raw).expanduser()
    try:
        if path.is_dir():
            return f"{path} is a folder; give a file name such as {path / 'progress.svg'}"
        folder = path.parent
        if not folder.is_dir():
            return f"the folder {folder} does not exist; create it or choose another path"
        os.stat(path, follow_symlinks=False)  # a name the system refuses fails here
    except FileNotFoundError:
        pass
    except OSError as error:
        return f"cannot use {raw}: {error.strerror or error}; choose another path"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"cannot write into {folder} (permission denied); choose another path"
    return None


def write(raw: str, text: str) -> Path:
    """Replace ``raw`` with ``text`` (UTF-8) in one step; raises OSError and leaves nothing."""
    path = Path(raw).expanduser()
    write_atomic(path, text.encode("utf-8"))
    return path
