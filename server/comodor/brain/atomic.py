"""Writing a file so that nothing planted in its folder can redirect the write.

Comodor writes into folders it does not own: the workspace (exported house rules,
the managed block in ``AGENTS.md``) comes from a cloned repository, and a
repository can commit symbolic links. A fixed temporary name next to the target
(``.house-rules.md.tmp``) committed as a link to ``~/.bashrc`` would make an
innocent "Export house rules" overwrite the user's shell start-up file. So every
write here:

* resolves the folder once, checks it (the caller's ``allowed`` test, e.g. "inside
  the workspace and not in ``.git``"), and then works through a descriptor of that
  folder opened with ``O_NOFOLLOW``, so swapping the folder for a link after the
  check changes nothing;
* creates its temporary file under a random name with ``O_CREAT | O_EXCL |
  O_NOFOLLOW``: an existing file or link of that name makes the open fail instead
  of being followed;
* replaces the target with ``rename`` relative to that descriptor, which replaces
  a directory entry and never follows a link at the destination.

The file's permissions are kept when it exists; a new file gets ``0o666`` minus the
umask, like any other file the user creates.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Callable
from pathlib import Path

__all__ = ["UnsafeWrite", "write_atomic"]


class UnsafeWrite(OSError):
    """The target's folder is not where the caller may write (after resolving links)."""


def _open_folder(folder: Path) -> int:
    """A descriptor of ``folder`` itself, refusing a folder that is a symbolic link."""
    flags = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_NOFOLLOW", 0)
    descriptor = os.open(folder, flags)
    try:
        opened, expected = os.fstat(descriptor), os.stat(folder, follow_symlinks=False)
    except OSError:
        os.close(descriptor)
        raise
    if (opened.st_dev, opened.st_ino) != (expected.st_dev, expected.st_ino):
        os.close(descriptor)
        raise UnsafeWrite(f"{folder} changed while it was being opened")
    return descriptor


def write_atomic(
    path: Path,
    data: bytes,
    *,
    allowed: Callable[[Path], bool] = lambda folder: True,
    before_replace: Callable[[], bool] | None = None,
) -> bool:
    """Replace ``path`` with ``data`` atomically; return False if ``before_replace`` said no.

    ``path``'s folder is resolved (it is created first when missing) and must pass
    ``allowed``; otherwise :class:`UnsafeWrite` is raised and nothing is written.
    ``before_replace`` runs after the temporary file is complete and may veto the
    replacement (the sync uses it to notice a user's save in the meantime); the
    temporary file is always removed.
    """
    folder = path.parent.resolve()
    if not allowed(folder):
        raise UnsafeWrite(f"refusing to write into {folder}")
    folder.mkdir(parents=True, exist_ok=True)
    folder = folder.resolve()  # mkdir may have walked through a link created meanwhile
    if not allowed(folder):
        raise UnsafeWrite(f"refusing to write into {folder}")
    name = path.name
    directory = _open_folder(folder)
    temporary = f".{name}.{secrets.token_hex(6)}.comodor-tmp"
    try:
        try:
            current = os.stat(name, dir_fd=directory, follow_symlinks=False)
            mode: int | None = (
                stat.S_IMODE(current.st_mode) if stat.S_ISREG(current.st_mode) else None
            )
        except FileNotFoundError:
            mode = None
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        descriptor = os.open(temporary, flags, 0o666, dir_fd=directory)
        try:
            with os.fdopen(descriptor, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
                if mode is not None:
                    os.fchmod(handle.fileno(), mode)
            if before_replace is not None and not before_replace():
                return False
            os.replace(temporary, name, src_dir_fd=directory, dst_dir_fd=directory)
            return True
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary, dir_fd=directory)
    finally:
        os.close(directory)
