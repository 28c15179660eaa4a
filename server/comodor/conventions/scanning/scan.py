"""Learn a project's conventions once at startup: config evidence plus counted code.

The scan is read-only and bounded (a sample of files, each below a size limit) so it
can run as the server starts. Its fingerprint lets the caller skip rescanning until
something that could change a convention has changed.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import attrs

from ..lexer import lex
from ..votes import Vote
from .config_merge import combine, with_observations
from .config_sources import CONFIG_FILES, config_votes
from .observe import Tally, observations
from .sampling import SourceFile, sample_files

DEFAULT_MAX_FILES = 300
DEFAULT_MAX_FILE_BYTES = 200_000
TEXT_BUDGET = 1_500_000
"""Characters of code the scan reads in all, shared out between the sampled files.

The head of a file shows its conventions as well as its whole; the budget keeps a
sample of large files as fast as one of small files.
"""
MIN_CHARS_PER_FILE = 4_000
SCANNER_VERSION = "2"
"""Part of the fingerprint, so a smarter scanner rescans projects scanned by an older one."""


@attrs.frozen
class Scan:
    """What the project says about its conventions, and how to tell when that may change."""

    votes: tuple[Vote, ...]
    fingerprint: str
    files_sampled: int


def _fingerprint(root: Path, files: list[SourceFile]) -> str:
    digest = hashlib.sha256(f"comodor-scan {SCANNER_VERSION}\n".encode())
    for name in CONFIG_FILES:
        try:
            content = (root / name).read_bytes()
        except OSError:
            continue
        digest.update(f"config {name} {hashlib.sha256(content).hexdigest()}\n".encode())
    for f in files:
        digest.update(f"file {f.rel} {f.mtime_ns} {f.size}\n".encode())
    return digest.hexdigest()


def project_fingerprint(root: Path) -> str:
    """Hash the config files' contents and the default sample's stat data (reads no code)."""
    root = Path(root)
    return _fingerprint(root, sample_files(root, DEFAULT_MAX_FILES, DEFAULT_MAX_FILE_BYTES))


def _read_source(f: SourceFile, max_chars: int) -> str | None:
    """Read the head of a source file, whole lines only; None for binary or unreadable."""
    try:
        with f.path.open("rb") as handle:
            data = handle.read(max_chars + 1)
    except OSError:
        return None
    if b"\0" in data[:8192]:
        return None
    if len(data) > max_chars:
        data = data[: data.rfind(b"\n", 0, max_chars) + 1]
    return data.decode("utf-8", errors="replace")


def scan_project(
    root: Path,
    *,
    max_files: int = DEFAULT_MAX_FILES,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
) -> Scan:
    """Scan ``root``: evidence from config files, observations from a sample of the code."""
    root = Path(root)
    files = sample_files(root, max_files, max_file_bytes)
    tally = Tally()
    sampled = 0
    per_file = max(MIN_CHARS_PER_FILE, TEXT_BUDGET // max(1, len(files)))
    for f in files:
        text = _read_source(f, per_file)
        if text is None:
            continue
        tally.add_file(lex(text, f.language), f.language)
        sampled += 1
    votes = combine(with_observations(config_votes(root, files), observations(tally)))
    return Scan(votes=tuple(votes), fingerprint=_fingerprint(root, files), files_sampled=sampled)
