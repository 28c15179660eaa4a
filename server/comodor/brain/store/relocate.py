"""Bring a brain from its previous default location, once, leaving the old one in place.

The default brain used to live in the platform's data folder for ``comodor``
(``~/.local/share/comodor/brain.db``), which is also where PyPI's other
``comodor`` keeps *its* ``brain.db`` when ``XDG_DATA_HOME`` is set (and, on
macOS's case-insensitive disks, always). It now lives under ``comodor-lsp``.
A user who taught the old default must not lose it, so the first open of the
new default copies a brain of ours from the old place: the database through
SQLite's backup API (a consistent copy, including what is still in the WAL of
a running older server) and the checkpoint texts beside it. The old files are
kept; another program's file there is left alone and not copied.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import tempfile
from pathlib import Path
from urllib.parse import quote

from .file_identity import ForeignBrain, Identity, identify

BLOBS_FOLDER = "blobs"


def _copy_database(source: Path, target: Path) -> None:
    """A consistent copy of ``source`` at ``target``, which must not exist yet."""
    fd, temp_name = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    os.close(fd)
    temp = Path(temp_name)
    try:
        reader = sqlite3.connect(f"file:{quote(str(source.resolve()))}?mode=ro", uri=True)
        try:
            writer = sqlite3.connect(temp)
            try:
                reader.backup(writer)
            finally:
                writer.close()
        finally:
            reader.close()
        try:
            os.link(temp, target)  # fails if another process adopted it meanwhile
        except FileExistsError:
            return
        except OSError:
            if target.exists():
                return
            os.replace(temp, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()


def adopt_previous_brain(target: Path, previous: Path | None) -> str | None:
    """Copy our brain from ``previous`` to ``target`` if ``target`` does not exist yet.

    Returns what to tell the user, or ``None`` when nothing was copied (no old
    brain, the new one already exists, or the old file is not ours). An error
    while copying leaves ``target`` absent and the old brain untouched, and says so.
    """
    if previous is None or target.exists() or not previous.is_file():
        return None
    try:
        if identify(previous) not in (Identity.OURS, Identity.OURS_UNSTAMPED):
            return None
    except ForeignBrain:
        return None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        blobs = previous.parent / BLOBS_FOLDER
        if blobs.is_dir():
            shutil.copytree(blobs, target.parent / BLOBS_FOLDER, dirs_exist_ok=True)
        _copy_database(previous, target)
    except (OSError, sqlite3.Error) as error:
        return (
            f"Comodor could not copy its brain from {previous} to {target} ({error}); "
            "it starts a new brain there and leaves the old one untouched."
        )
    return (
        f"Comodor now keeps its brain at {target}. It copied the brain you had at "
        f"{previous}, which is left as it was (you may delete it)."
    )
