"""Real code that no one here wrote: two consecutive releases of published packages.

``bench.realcode`` replays the edits between two releases as a user's corrections.
This module fetches the releases with the registries' own clients (``pip download``
of the wheel, ``npm pack`` of the tarball), keeps them under ``bench/out/releases/``
so reruns are offline, and reads the source files out of the archives in memory.

Archives are untrusted input: nothing is extracted to disk, member names are
normalised and refused when they would leave the package (absolute, ``..``), and
only text source files of a modest size are read.
"""

from __future__ import annotations

import io
import posixpath
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

import attrs
from comodor_lsp.conventions.languages import language_of

CACHE = Path("bench/out/releases")
LANGUAGES = frozenset({"python", "javascript", "typescript"})
MAX_FILE_BYTES = 400_000
SKIP_PARTS = frozenset({"dist", "build", "vendor", "node_modules", "__pycache__", "umd"})
"""Folders of generated or bundled code: their diffs are a build tool's, not a person's."""
SKIP_SUFFIXES = (".min.js", ".map", ".bundle.js")
FETCH_TIMEOUT_S = 180


@attrs.frozen
class Release:
    """Two consecutive releases of one package from one registry."""

    registry: str
    """``pypi`` or ``npm``."""
    name: str
    old: str
    new: str

    @property
    def label(self) -> str:
        return f"{self.name} {self.old} → {self.new}"


RELEASES: tuple[Release, ...] = (
    Release("pypi", "attrs", "23.1.0", "23.2.0"),
    Release("pypi", "requests", "2.31.0", "2.32.0"),
    Release("pypi", "click", "8.1.7", "8.1.8"),
    Release("pypi", "rich", "13.6.0", "13.7.0"),
    Release("pypi", "flask", "3.0.2", "3.0.3"),
    Release("pypi", "httpx", "0.27.0", "0.27.1"),
    Release("pypi", "jinja2", "3.1.3", "3.1.4"),
    Release("npm", "commander", "11.1.0", "12.0.0"),
    Release("npm", "preact", "10.22.0", "10.22.1"),
    Release("npm", "axios", "1.7.2", "1.7.3"),
)
"""Consecutive releases (no release between them), chosen for real, varied human edits:
refactors, re-nested blocks, Python 2 code removed, new parameters, type changes."""


class FetchError(RuntimeError):
    """A release could not be downloaded (and is not in the cache)."""


def archive_path(registry: str, name: str, version: str, cache: Path = CACHE) -> Path:
    suffix = ".whl" if registry == "pypi" else ".tgz"
    return cache / f"{registry}-{name}-{version}{suffix}"


def fetch(registry: str, name: str, version: str, cache: Path = CACHE) -> Path:
    """The release's archive, downloaded once with the registry's own client."""
    target = archive_path(registry, name, version, cache)
    if target.exists():
        return target
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="comodor-release-") as folder:
        if registry == "pypi":
            command = [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--quiet",
                "--disable-pip-version-check",
                "--timeout",
                "30",
                "--retries",
                "1",
                "--no-deps",
                "--only-binary",
                ":all:",
                "--dest",
                folder,
                f"{name}=={version}",
            ]
            pattern = "*.whl"
        elif registry == "npm":
            npm = shutil.which("npm")
            if npm is None:
                raise FetchError(f"{name} {version}: npm is not installed and nothing is cached")
            command = [
                npm,
                "pack",
                "--silent",
                "--ignore-scripts",
                "--pack-destination",
                folder,
                f"{name}@{version}",
            ]
            pattern = "*.tgz"
        else:
            raise FetchError(f"unknown registry {registry!r}")
        try:
            completed = subprocess.run(
                command, capture_output=True, text=True, check=False, timeout=FETCH_TIMEOUT_S
            )
        except subprocess.TimeoutExpired as error:
            raise FetchError(
                f"{registry} {name} {version}: no answer in {FETCH_TIMEOUT_S} s"
            ) from error
        found = sorted(Path(folder).glob(pattern))
        if completed.returncode != 0 or not found:
            raise FetchError(
                f"{registry} {name} {version}: download failed "
                f"({completed.stderr.strip()[-300:] or 'no archive'})"
            )
        shutil.move(str(found[0]), target)
    return target


def safe_member(name: str) -> str | None:
    """A member name as a relative POSIX path inside the package, or None if it is not one."""
    if "\\" in name or "\0" in name:
        return None
    normal = posixpath.normpath(name)
    if normal.startswith(("/", "../")) or normal in (".", "..") or "/../" in f"/{normal}/":
        return None
    return normal


def wanted(path: str) -> bool:
    parts = path.split("/")
    if any(part in SKIP_PARTS or part.endswith((".dist-info", ".egg-info")) for part in parts):
        return False
    return not path.endswith(SKIP_SUFFIXES) and language_of(path) in LANGUAGES


def _decode(data: bytes) -> str | None:
    if len(data) > MAX_FILE_BYTES or b"\0" in data[:8192]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def source_files(archive: Path) -> dict[str, str]:
    """The package's source files (path → text), read from the archive in memory."""
    files: dict[str, str] = {}
    if archive.suffix == ".whl":
        with zipfile.ZipFile(archive) as wheel:
            for info in wheel.infolist():
                path = safe_member(info.filename)
                if info.is_dir() or path is None or not wanted(path):
                    continue
                if info.file_size > MAX_FILE_BYTES:
                    continue
                text = _decode(wheel.read(info))
                if text is not None:
                    files[path] = text
        return files
    with tarfile.open(archive, "r:gz") as tar:
        for member in tar.getmembers():
            if not member.isfile() or member.size > MAX_FILE_BYTES:
                continue
            path = safe_member(member.name)
            if path is None:
                continue
            path = path.split("/", 1)[1] if path.startswith("package/") else path
            if not wanted(path):
                continue
            handle = tar.extractfile(member)
            if handle is None:
                continue
            text = _decode(handle.read())
            if text is not None:
                files[path] = text
    return files


def write_wheel(target: Path, files: dict[str, str]) -> Path:
    """Write a minimal wheel holding ``files`` (tests build releases without a network)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(target, "w") as wheel:
        for path, text in files.items():
            wheel.writestr(path, text)
    return target


def write_tarball(target: Path, files: dict[str, str]) -> Path:
    """Write a minimal npm tarball (``package/…``) holding ``files``."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(target, "w:gz") as tar:
        for path, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(f"package/{path}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return target
