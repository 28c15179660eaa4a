"""The recall index on disk: one file next to the brain, mapped at start instead of rebuilt.

Building the index of a 50,000-lesson brain from SQLite takes about half a
second; mapping this file takes a few milliseconds, and only what changed since
(the lesson log after the file's revision) is replayed on top.

The file is a cache, never a source of truth, so nothing in it is trusted: it
carries a magic, a format version, the schema version and the brain's id, the
lesson log revision it reflects, its own length and a CRC-32 of its arrays, and
the arrays are checked against each other before use. Anything that does not
match is reported as a reason and the caller rebuilds from SQLite (and writes a
new file). It holds ids, trust inputs, scope names and 64-bit term hashes only:
no lesson text.

Layout: ``MAGIC``, an 8-byte little-endian header length, the JSON header, then
each array at a 64-byte aligned offset. Written to a temporary file and renamed,
so a reader sees the old file or the new one, never half of one.
"""

from __future__ import annotations

import contextlib
import json
import mmap
import os
import tempfile
import zlib
from pathlib import Path
from typing import Any

import attrs
import numpy as np

from .index import Snapshot

MAGIC = b"COMODOR-RECALL\x00\x01"
FORMAT = 2
"""Bump when the layout or the meaning of any array changes: old files are then rebuilt."""
_ALIGN = 64
DTYPES: dict[str, np.dtype[Any]] = {
    "ids": np.dtype(np.int64),
    "log_trust": np.dtype(np.float64),
    "anchor": np.dtype(np.float64),
    "scope": np.dtype(np.int32),
    "flags": np.dtype(np.uint8),
    "vocab": np.dtype(np.uint64),
    "offsets": np.dtype(np.int64),
    "postings": np.dtype(np.int32),
    "forward_offsets": np.dtype(np.int64),
    "forward": np.dtype(np.int32),
}


@attrs.frozen
class Loaded:
    snapshot: Snapshot
    rev: int
    position: tuple[int, ...] = ()
    """A team brain's log position (local file, team database); () for a brain file."""


def snapshot_path(brain_path: Path) -> Path:
    return brain_path.with_name(brain_path.name + ".recall")


def _aligned(offset: int) -> int:
    return (offset + _ALIGN - 1) // _ALIGN * _ALIGN


def write(
    path: Path,
    snapshot: Snapshot,
    *,
    rev: int,
    brain: str,
    schema: int,
    position: tuple[int, ...] = (),
) -> None:
    """Write ``snapshot`` atomically; an OSError propagates (the caller logs it).

    ``position`` is a team brain's log position, one revision per database.
    """
    arrays = {
        name: np.ascontiguousarray(array, dtype=DTYPES[name])
        for name, array in snapshot.arrays().items()
    }
    layout: dict[str, list[Any]] = {}
    offset = 0
    for name, array in arrays.items():
        layout[name] = [array.dtype.str, int(array.shape[0]), offset]
        offset = _aligned(offset + array.nbytes)
    data = bytearray(offset)
    for name, array in arrays.items():
        start = layout[name][2]
        data[start : start + array.nbytes] = array.tobytes()
    header = {
        "format": FORMAT,
        "schema": schema,
        "brain": brain,
        "rev": rev,
        "position": list(position),
        "scopes": snapshot.scopes,
        "arrays": layout,
        "data_bytes": len(data),
        "crc32": zlib.crc32(data),
    }
    head = json.dumps(header, separators=(",", ":")).encode()
    prefix = MAGIC + len(head).to_bytes(8, "little") + head
    padding = _aligned(len(prefix)) - len(prefix)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(prefix + b"\x00" * padding)
            out.write(data)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def read(path: Path, *, brain: str, schema: int) -> tuple[Loaded | None, str]:
    """The snapshot at ``path`` if it is whole and ours, else ``None`` and why not."""
    try:
        with open(path, "rb") as handle:
            if os.fstat(handle.fileno()).st_size < len(MAGIC) + 8:
                return None, "the recall snapshot is truncated"
            mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    except FileNotFoundError:
        return None, "there is no recall snapshot yet"
    except (OSError, ValueError) as error:
        return None, f"the recall snapshot cannot be read ({error})"
    try:
        return _parse(mapped, brain, schema)
    except (ValueError, KeyError, TypeError, IndexError, OverflowError) as error:
        return None, f"the recall snapshot is damaged ({error})"


def _parse(mapped: mmap.mmap, brain: str, schema: int) -> tuple[Loaded | None, str]:
    if mapped[: len(MAGIC)] != MAGIC:
        return None, "the recall snapshot is not one (wrong magic)"
    length = int.from_bytes(mapped[len(MAGIC) : len(MAGIC) + 8], "little")
    start = len(MAGIC) + 8
    if length <= 0 or start + length > len(mapped):
        return None, "the recall snapshot is truncated"
    header = json.loads(mapped[start : start + length])
    if header.get("format") != FORMAT:
        return None, f"the recall snapshot has format {header.get('format')}, not {FORMAT}"
    if header.get("schema") != schema:
        return None, "the recall snapshot was made for another schema version"
    if header.get("brain") != brain:
        return None, "the recall snapshot belongs to another brain"
    data_start = _aligned(start + length)
    data_bytes = int(header["data_bytes"])
    if data_start + data_bytes != len(mapped):
        return None, "the recall snapshot is truncated or has trailing bytes"
    view = memoryview(mapped)[data_start:]
    if zlib.crc32(view) != header["crc32"]:
        return None, "the recall snapshot is damaged (checksum mismatch)"

    arrays: dict[str, Any] = {}
    for name in Snapshot.ARRAYS:
        dtype, count, offset = header["arrays"][name]
        kind = np.dtype(dtype)
        if kind != DTYPES[name]:
            return None, f"the recall snapshot's {name} has type {kind}, not {DTYPES[name]}"
        if offset < 0 or count < 0 or offset + count * kind.itemsize > data_bytes:
            return None, f"the recall snapshot's {name} lies outside the file"
        arrays[name] = np.frombuffer(view, dtype=kind, count=count, offset=offset)
    scopes = header["scopes"]
    if not isinstance(scopes, list) or not all(isinstance(s, str) for s in scopes):
        return None, "the recall snapshot's scopes are not a list of names"
    snapshot = Snapshot(scopes=scopes, **arrays)
    snapshot.check()
    # Checking touched every page: give them back to the page cache, so only what
    # queries use (the postings of their terms) counts in this process's memory.
    if hasattr(mmap, "MADV_DONTNEED"):
        mapped.madvise(mmap.MADV_DONTNEED)
    rev = header["rev"]
    if not isinstance(rev, int) or rev < 0:
        return None, "the recall snapshot has no revision"
    position = header.get("position", [])
    if not isinstance(position, list) or not all(isinstance(p, int) and p >= 0 for p in position):
        return None, "the recall snapshot's log position is not a list of revisions"
    return Loaded(snapshot, rev, tuple(position)), ""
