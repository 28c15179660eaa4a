"""Content-addressed blobs: the text of files before and after each agent write.

Checkpoints must outlive editor buffers and process restarts, yet the brain
database should stay small and fast. So texts live as files named by their
content key under the brain's folder; the database only holds keys. Identical
texts are stored once. Pruning removes blobs no checkpoint refers to, and old
ones beyond a size budget, without ever removing a blob a live checkpoint needs.

A blob's name is the SHA-256 of the *redacted* text (:func:`content_key`), never of
the text itself: a hash of a file that holds ``password = hunter2`` would let anyone
with the brain folder confirm a guessed password offline. Two texts that differ only
in a secret therefore share a key, which is what undo detection wants anyway.

Brains written before this change hold raw-text hashes in ``agent_writes``; those
blobs stay readable by name, but an undo of a write recorded before the upgrade may
be missed (its stored hash is compared with a content key). Nothing is lost by that.
"""

from __future__ import annotations

import contextlib
import hashlib
import time
from pathlib import Path

from .atomic import write_atomic
from .errors import BrainUnavailable
from .redaction.redactor import redact


def text_hash(text: str) -> str:
    """A cheap hash of the raw text, for comparisons that never leave memory.

    Never store it: for a text holding a secret it is a password oracle. What is stored
    (blob names, ``agent_writes`` hashes) is :func:`content_key`.
    """
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def content_key(text: str) -> str:
    """The key a text is stored and compared under: the SHA-256 of its redacted form."""
    return redacted_key(redact(text))


def redacted_key(redacted: str) -> str:
    """:func:`content_key` of a text that has been redacted already."""
    return text_hash(redacted)


class BlobStore:
    """Write-once text blobs in ``<root>/<aa>/<hash>``."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _path(self, digest: str) -> Path:
        return self.root / digest[:2] / digest

    def put(self, text: str) -> str:
        """Store ``text`` redacted and return its :func:`content_key`.

        Undo detection only compares keys, and correction analysis diffs two
        redacted texts, so neither needs the secret itself.
        """
        redacted = redact(text)
        digest = redacted_key(redacted)
        target = self._path(digest)
        if target.exists():
            return digest
        try:
            write_atomic(target, redacted.encode("utf-8", "surrogatepass"))
        except OSError as error:
            raise BrainUnavailable(
                f"cannot write a checkpoint under {self.root}: {error.strerror or error}. "
                "Free space or fix permissions, then try again."
            ) from error
        return digest

    def get(self, digest: str) -> str | None:
        if not digest:
            return None
        try:
            return self._path(digest).read_text(encoding="utf-8", errors="surrogatepass")
        except OSError:
            return None

    def prune(
        self,
        keep: set[str],
        *,
        max_age_s: float = 30 * 86_400.0,
        max_bytes: int = 200_000_000,
        grace_s: float = 3600.0,
    ) -> int:
        """Remove unreferenced blobs, and referenced ones only beyond age *and* size budgets.

        A blob younger than ``grace_s`` is never removed: a write stores its blobs
        before the row that refers to them, so a young "orphan" may be in flight.
        """
        if not self.root.exists():
            return 0
        entries: list[tuple[float, int, Path]] = []
        removed = 0
        now = time.time()
        for path in self.root.glob("*/*"):
            if path.name.startswith("."):
                continue
            try:
                stat = path.stat()
            except OSError:
                continue
            if path.name not in keep:
                if now - stat.st_mtime < grace_s:
                    continue
                with contextlib.suppress(OSError):
                    path.unlink()
                    removed += 1
                continue
            entries.append((stat.st_mtime, stat.st_size, path))
        total = sum(size for _, size, _ in entries)
        for mtime, size, path in sorted(entries):
            if total <= max_bytes:
                break
            if now - mtime < max_age_s:
                break
            with contextlib.suppress(OSError):
                path.unlink()
                removed += 1
                total -= size
        return removed
