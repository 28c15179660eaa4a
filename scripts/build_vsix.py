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


def download(target: str, python: str, requirements: list[str]) -> list[Path]:
    """Every wheel the language server needs on ``target`` under CPython ``python``."""
    folder = WORK / "wheels" / target / f"py{python.replace('.', '')}"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
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
        *requirements,
    )
    return sorted(folder.glob("*.whl"))


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
    per_python = {python: download(target, python, requirements) for python in pythons}
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
    first = pythons[0]
    common = [w for w in per_python[first] if w.name in shared]
    install([*common, build_server_wheel()], BUNDLE / "libs" / "common", target, first)
    versioned = any(specific.values())
    if versioned:
        for python, wheels in specific.items():
            folder = BUNDLE / "libs" / f"cp{python.replace('.', '')}"
            if wheels:
                install(wheels, folder, target, python)
            else:
                folder.mkdir(parents=True)
    manifest: dict[str, object] = {
        "name": SERVER_NAME,
        "version": version,
        "target": target,
        "pythons": pythons if versioned else [],
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
    log(f"{vsix.name}: {vsix.stat().st_size / 1e6:.1f} MB")
    print(vsix)
    return 0


if __name__ == "__main__":
    sys.exit(main())
