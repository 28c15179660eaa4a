#!/usr/bin/env python3
"""Build the VS Code extension as a per-platform VSIX that carries its language server.

    python3 scripts/build_vsix.py [--target linux-x64] [--pythons 3.11,3.12,3.13,3.14]

(``./scripts/package-vsix`` and ``npm run package`` in ``client-vscode`` run this.)

What goes into ``client-vscode/bundled/`` (see ARCHITECTURE.md, "The VSIX carries its server"):

* ``libs/common``: this checkout's server, built as a wheel, and every wheel the language
  server needs at run time that is the same file for every Python version (pure Python,
  ``abi3``, or a platform-only wheel such as watchdog's on Linux);
* ``libs/cp3XX``: wheels with compiled parts built for one CPython version, for each
  version in ``--pythons``, when there are any (``manifest.json`` then lists the versions);
* ``manifest.json``: name, version, target and those Python versions, read by the
  extension and by ``tool/launch.py``.

Every Python version gets the same version of every package (the oldest Python's choice is
pinned for the others), so what the server does does not depend on the user's Python, and on
Linux a compiled package's shared libraries (``numpy.libs``: OpenBLAS, 25 MB) are then the same
files for every version: they are carried once, in ``libs/common``, and ``tool/launch.py``
loads them before the package is first imported (``sharedLibraries`` in the manifest).
What only a package's developers use is left out (``prune``): test suites, caches, C headers
and sources, static libraries, type stubs and documentation; licences stay.

Everything comes from PyPI through pip (``pip download --platform … --python-version …``,
so any target can be built on this machine) and from npm; nothing else is fetched.
The MCP SDK (``mcp``: pydantic-core, starlette, uvicorn…) is left out: only
``comodor-lsp mcp`` uses it, and the extension runs ``serve``.

The version is ``comodor_lsp.__version__``; the build refuses to run when
``client-vscode/package.json`` says another one. Prints the VSIX's path on its last line.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLIENT = ROOT / "client-vscode"
BUNDLE = CLIENT / "bundled"
WORK = CLIENT / "build"

SERVER_NAME = "comodor-lsp"
PYTHONS = ("3.11", "3.12", "3.13", "3.14")
NOT_FOR_THE_LANGUAGE_SERVER = frozenset({"mcp"})
"""Runtime dependencies only ``comodor-lsp mcp`` imports (checked by tests/test_release.py)."""


def _manylinux(arch: str) -> list[str]:
    return [f"manylinux_2_{minor}_{arch}" for minor in range(28, 16, -1)] + [
        f"manylinux2014_{arch}"
    ]


def _macos(arch: str, first: int) -> list[str]:
    tags = [f"macosx_{major}_0_{a}" for major in range(15, 10, -1) for a in (arch, "universal2")]
    if first == 10:
        tags += [
            f"macosx_10_{minor}_{a}" for minor in range(15, 8, -1) for a in (arch, "universal2")
        ]
    return tags


TARGETS: dict[str, list[str]] = {
    "linux-x64": _manylinux("x86_64"),
    "linux-arm64": _manylinux("aarch64"),
    "darwin-x64": _macos("x86_64", 10),
    "darwin-arm64": _macos("arm64", 11),
    "win32-x64": ["win_amd64"],
}


def log(message: str) -> None:
    print(f"[build-vsix] {message}", file=sys.stderr, flush=True)


def run(*args: str | Path, cwd: Path = ROOT) -> None:
    subprocess.run([str(a) for a in args], cwd=cwd, check=True, stdout=sys.stderr)


def this_target() -> str:
    system = {"Linux": "linux", "Darwin": "darwin", "Windows": "win32"}[platform.system()]
    machine = platform.machine().lower()
    arch = "arm64" if machine in ("arm64", "aarch64") else "x64"
    return f"{system}-{arch}"


def server_version() -> str:
    tree = ast.parse((ROOT / "server" / "comodor" / "__init__.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "__version__":
            return str(ast.literal_eval(node.value))
    raise SystemExit("build-vsix: no __version__ in server/comodor/__init__.py")


def language_server_requirements() -> list[str]:
    """The runtime dependencies from pyproject.toml that ``comodor-lsp serve`` needs."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    keep = []
    for requirement in project["dependencies"]:
        name = re.split(r"[\s<>=!~\[;]", requirement, maxsplit=1)[0].lower()
        if name not in NOT_FOR_THE_LANGUAGE_SERVER:
            keep.append(requirement)
    return keep


def wheel_tags(filename: str) -> tuple[str, str, str]:
    """(python, abi, platform) tags of a wheel file name."""
    parts = filename[: -len(".whl")].split("-")
    return parts[-3], parts[-2], parts[-1]


def pip_platform_args(target: str, python: str) -> list[str]:
    args = ["--only-binary=:all:", "--implementation", "cp", "--python-version", python]
    for tag in TARGETS[target]:
        args += ["--platform", tag]
    return args


def wheel_project(filename: str) -> tuple[str, str]:
    """(normalised project name, version) of a wheel file name."""
    name, version = filename.split("-")[:2]
    return re.sub(r"[-_.]+", "-", name).lower(), version


def download(
    target: str, python: str, requirements: list[str], pins: list[Path] | None = None
) -> list[Path]:
    """Download every wheel the language server needs on ``target`` under CPython ``python``.

    With ``pins`` (the wheels chosen for another Python), at the versions they have.
    """
    folder = WORK / "wheels" / target / f"py{python.replace('.', '')}"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    constraints: list[str | Path] = []
    if pins:
        pinned = folder.parent / f"pins-{python}.txt"
        pinned.write_text(
            "".join(f"{n}=={v}\n" for n, v in sorted(wheel_project(w.name) for w in pins))
        )
        constraints = ["--constraint", pinned]
    run(
        sys.executable,
        "-m",
        "pip",
        "download",
        "--quiet",
        "--disable-pip-version-check",
        "--dest",
        folder,
        *pip_platform_args(target, python),
        *constraints,
        *requirements,
    )
    return sorted(folder.glob("*.whl"))


PRUNED_FOLDERS = frozenset({"tests", "__pycache__", "include", "_examples"})
"""Folders no import needs: test suites, byte-code caches, C headers, example code."""
PRUNED_SUFFIXES = (".pyc", ".pyi", ".h", ".c", ".pxd", ".pyx", ".a", ".pc", ".md", ".rst")
"""Files no import needs: caches, type stubs, C headers and sources, static libraries,
pkg-config files, documentation."""
TEST_ONLY_MODULES = re.compile(
    r"_(simd|multiarray_tests|umath_tests|rational_tests|struct_ufunc_tests|operand_flag_tests)\."
)
"""numpy's compiled modules that only its own test suite imports."""
KEPT = re.compile(r"(LICEN[CS]E|COPYING|NOTICE|AUTHORS)", re.IGNORECASE)


def prune(folder: Path) -> None:
    """Delete what only a package's developers use from an installed ``folder``.

    ``*.dist-info`` folders are kept whole (licences, and the metadata ``importlib.metadata``
    reads), and so is any licence file elsewhere; ``tests/test_vsix.py`` imports the
    result to prove nothing the server needs went with them.
    """
    for path in sorted(folder.rglob("*"), key=lambda p: len(p.parts), reverse=True):
        if any(part.endswith(".dist-info") for part in path.relative_to(folder).parts):
            continue
        if path.is_dir():
            if path.name in PRUNED_FOLDERS:
                shutil.rmtree(path)
        elif KEPT.match(path.name):
            continue
        elif path.name.endswith(PRUNED_SUFFIXES) or TEST_ONLY_MODULES.match(path.name):
            path.unlink()
    for path in sorted(folder.rglob("*"), key=lambda p: len(p.parts), reverse=True):
        if path.is_dir() and not any(path.iterdir()):
            path.rmdir()


def _same_tree(a: Path, b: Path) -> bool:
    files_a = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    files_b = sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    return files_a == files_b and all((a / f).read_bytes() == (b / f).read_bytes() for f in files_a)


def share_libraries(target: str, folders: list[Path], common: Path) -> list[str]:
    """Move each ``<package>.libs`` folder that is the same in every version's folder to common.

    One copy goes to ``common``; the names moved go to the manifest's ``sharedLibraries``.

    Linux only: its dynamic loader reuses a library already loaded under the same name
    (auditwheel names them by content hash), so ``tool/launch.py`` loading them first is
    enough. Windows (delvewheel's DLL folder) and macOS (``.dylibs`` inside the package) keep
    their per-version copies.
    """
    if not target.startswith("linux-") or len(folders) < 2:
        return []
    shared = []
    for candidate in sorted(folders[0].glob("*.libs")):
        copies = [folder / candidate.name for folder in folders]
        if all(c.is_dir() and _same_tree(candidate, c) for c in copies[1:]):
            shutil.move(candidate, common / candidate.name)
            for copy in copies[1:]:
                shutil.rmtree(copy)
            shared.append(candidate.name)
    return shared


def install(wheels: list[Path], into: Path, target: str, python: str) -> None:
    into.mkdir(parents=True, exist_ok=True)
    run(
        sys.executable,
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        "--no-deps",
        "--no-compile",
        # The wheels were chosen for ``python`` (``download`` checked Requires-Python for
        # it); pip would check them against the Python running the build instead.
        "--ignore-requires-python",
        "--target",
        into,
        *pip_platform_args(target, python),
        *wheels,
    )
    shutil.rmtree(into / "bin", ignore_errors=True)  # console scripts for the build's Python


def build_server_wheel() -> Path:
    folder = WORK / "server-wheel"
    shutil.rmtree(folder, ignore_errors=True)
    run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", folder, ROOT)
    (wheel,) = folder.glob("comodor_lsp-*.whl")
    return wheel


def bundle(target: str, pythons: list[str], version: str) -> dict[str, object]:
    requirements = language_server_requirements()
    log(f"{target}: {', '.join(requirements)} for Python {', '.join(pythons)}")
    first = pythons[0]
    per_python = {first: download(target, first, requirements)}
    for python in pythons[1:]:
        per_python[python] = download(target, python, requirements, pins=per_python[first])
    names = [{w.name for w in wheels} for wheels in per_python.values()]
    shared = set.intersection(*names)
    specific = {
        python: [w for w in wheels if w.name not in shared] for python, wheels in per_python.items()
    }
    for wheels in specific.values():
        for wheel in wheels:
            if wheel_tags(wheel.name)[1] == "none":
                log(f"{wheel.name} differs between Python versions; bundled per version")
    shutil.rmtree(BUNDLE / "libs", ignore_errors=True)
    common = [w for w in per_python[first] if w.name in shared]
    common_folder = BUNDLE / "libs" / "common"
    install([*common, build_server_wheel()], common_folder, target, first)
    prune(common_folder)
    versioned = any(specific.values())
    shared_libraries: list[str] = []
    if versioned:
        folders = []
        for python, wheels in specific.items():
            folder = BUNDLE / "libs" / f"cp{python.replace('.', '')}"
            if wheels:
                install(wheels, folder, target, python)
                prune(folder)
            else:
                folder.mkdir(parents=True)
            folders.append(folder)
        shared_libraries = share_libraries(target, folders, common_folder)
    manifest: dict[str, object] = {
        "name": SERVER_NAME,
        "version": version,
        "target": target,
        "pythons": pythons if versioned else [],
        "sharedLibraries": shared_libraries,
        "wheels": {
            "common": sorted(w.name for w in common),
            **{python: sorted(w.name for w in wheels) for python, wheels in specific.items()},
        },
    }
    (BUNDLE / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def package(target: str, version: str) -> Path:
    npm = shutil.which("npm") or "npm"
    if not (CLIENT / "node_modules" / "@vscode" / "vsce").is_dir():
        run(npm, "ci", "--no-audit", "--no-fund", "--loglevel=error", cwd=CLIENT)
    run(npm, "run", "-s", "check", cwd=CLIENT)
    shutil.copyfile(
        ROOT / "CHANGELOG.md", CLIENT / "CHANGELOG.md"
    )  # one changelog, in the VSIX too
    name = json.loads((CLIENT / "package.json").read_text())["name"]
    out = CLIENT / f"{name}-{version}-{target}.vsix"
    out.unlink(missing_ok=True)
    vsce = CLIENT / "node_modules" / ".bin" / ("vsce.cmd" if os.name == "nt" else "vsce")
    run(
        vsce,
        "package",
        "--no-dependencies",
        "--allow-missing-repository",
        "--target",
        target,
        "--out",
        out,
        cwd=CLIENT,
    )
    return out


def describe(vsix: Path) -> str:
    """The VSIX's name, size and file count, as the build's last log line says them."""
    with zipfile.ZipFile(vsix) as archive:
        files = sum(1 for info in archive.infolist() if not info.is_dir())
    size = vsix.stat().st_size
    return f"{vsix.name}: {size / 2**20:.1f} MB ({size:,} bytes), {files:,} files"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", default=this_target(), choices=sorted(TARGETS))
    parser.add_argument("--pythons", default=",".join(PYTHONS), help="CPython versions, 3.11+")
    args = parser.parse_args()
    version = server_version()
    extension = json.loads((CLIENT / "package.json").read_text())["version"]
    if extension != version:
        raise SystemExit(
            f"build-vsix: client-vscode/package.json says version {extension}, the server "
            f"(server/comodor/__init__.py) {version}: set package.json's version to {version}."
        )
    pythons = [p.strip() for p in args.pythons.split(",") if p.strip()]
    manifest = bundle(args.target, pythons, version)
    log(f"bundled: {json.dumps(manifest['wheels'])}")
    vsix = package(args.target, version)
    log(describe(vsix))
    print(vsix)
    return 0


if __name__ == "__main__":
    sys.exit(main())
