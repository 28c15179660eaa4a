"""PyPI's other ``comodor`` (a terminal coding agent) and ours, installed in one virtualenv.

That program's distribution, import package and command are all ``comodor``, and it keeps
its own ``brain.db`` (another schema) at ``$XDG_DATA_HOME/comodor`` or ``$COMODOR_HOME``. Its
users are the people most likely to want this memory, so both must work side by side: each
command runs, each import is its own, and neither touches the other's brain.

Installs ``comodor==2.0.1`` from PyPI and this checkout's wheel into a fresh virtualenv.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from comodor_lsp import SERVER_NAME, __version__

from tests.support.rpc import RawServer

pytestmark = pytest.mark.slow

THEIR_VERSION = "2.0.1"


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory, distribution: Path) -> Iterator[Path]:
    venv = tmp_path_factory.mktemp("both") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    (wheel,) = distribution.glob("*.whl")
    subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "-q",
            f"comodor=={THEIR_VERSION}",
            str(wheel),
        ],
        check=True,
        capture_output=True,
        timeout=600,
    )
    yield venv


@pytest.fixture
def env(tmp_path: Path, both: Path) -> dict[str, str]:
    """A user with no COMODOR_HOME: both programs use their default places."""
    home = tmp_path / "home"
    home.mkdir()
    return {
        "PATH": f"{both / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "LANG": "C.UTF-8",
    }


def run(env: dict[str, str], *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        list(args),
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=check,
        stdin=subprocess.DEVNULL,
        cwd=env["HOME"],
    )


def files(folder: Path) -> dict[str, bytes]:
    """The brain and its WAL, byte for byte (SQLite's -shm is a shared-memory index every
    reader updates, not data, so it is left out)."""
    return {
        p.name: p.read_bytes()
        for p in sorted(folder.glob("brain.db*"))
        if not p.name.endswith("-shm")
    }


def test_both_commands_run_and_each_import_is_its_own(both: Path, env: dict[str, str]) -> None:
    assert run(env, "comodor", "--version").stdout.strip() == f"comodor {THEIR_VERSION}"
    assert run(env, "comodor-lsp", "--version").stdout.strip() == f"{SERVER_NAME} {__version__}"
    found = run(
        env,
        str(both / "bin" / "python"),
        "-c",
        "import importlib.metadata as m, json, comodor, comodor_lsp\n"
        "files = m.files('comodor-lsp')\n"
        "print(json.dumps({'theirs': comodor.__file__, 'ours': comodor_lsp.__file__,\n"
        "  'versions': [m.version('comodor'), m.version('comodor-lsp')],\n"
        "  'top': sorted({f.parts[0] for f in files if f.parts[0] != '..'}),\n"
        "  'scripts': sorted(f.name for f in files if f.parts[0] == '..')}))",
    )
    found_out = json.loads(found.stdout)
    site = next((both / "lib").glob("python3.*")) / "site-packages"
    assert Path(found_out["theirs"]) == site / "comodor" / "__init__.py"
    assert Path(found_out["ours"]) == site / "comodor_lsp" / "__init__.py"
    assert found_out["versions"] == [THEIR_VERSION, __version__]
    # Our distribution installs nothing named comodor: one package, one command.
    assert found_out["top"] == ["comodor_lsp", f"comodor_lsp-{__version__}.dist-info"]
    assert found_out["scripts"] == ["comodor-lsp"]


def test_each_keeps_its_own_brain_and_neither_touches_the_others(
    both: Path, env: dict[str, str]
) -> None:
    data = Path(env["XDG_DATA_HOME"])
    run(env, "comodor", "curator", "run")  # opens (creates) the agent's brain, offline
    their_folder = data / "comodor"
    assert (their_folder / "brain.db").is_file()
    theirs = files(their_folder)

    workspace = Path(env["HOME"]) / "project"
    workspace.mkdir()
    server = RawServer(workspace, env=env, command=[str(both / "bin" / "comodor-lsp"), "serve"])
    try:
        reply = server.initialize()
        assert reply["result"]["serverInfo"] == {"name": SERVER_NAME, "version": __version__}
        taught = server.command("comodor.teachRule", {"statement": "Use pathlib for paths."})
        assert "result" in taught, taught
    finally:
        server.close()
    # No notice: the agent's brain at our old default is not ours to adopt.
    shown = [n["params"]["message"] for n in server.notifications if "showMessage" in n["method"]]
    assert not [m for m in shown if "brain" in m], shown

    ours = data / "comodor-lsp" / "brain.db"
    conn = sqlite3.connect(ours)
    assert conn.execute("PRAGMA application_id").fetchone()[0] == int.from_bytes(b"CmdL", "big")
    conn.close()
    assert files(their_folder) == theirs

    mine = files(ours.parent)
    run(env, "comodor", "curator", "run")
    assert files(ours.parent) == mine
    rules = run(env, "comodor-lsp", "call", "comodor.rules", "{}", "--workspace", str(workspace))
    assert "Use pathlib for paths." in rules.stdout


def test_a_shared_comodor_home_refuses_the_agents_brain_and_leaves_it_alone(
    both: Path, env: dict[str, str]
) -> None:
    shared = Path(env["HOME"]) / "shared-home"
    env = {**env, "COMODOR_HOME": str(shared)}
    run(env, "comodor", "curator", "run")
    assert (shared / "brain.db").is_file()
    theirs = files(shared)

    refused = run(env, "comodor-lsp", "call", "comodor.rules", "{}", check=False)
    assert refused.returncode == 1
    assert f"{shared / 'brain.db'} is not a Comodor brain" in refused.stderr
    assert "brainPath" in refused.stderr

    workspace = Path(env["HOME"]) / "project"
    workspace.mkdir()
    server = RawServer(workspace, env=env, command=[str(both / "bin" / "comodor-lsp"), "serve"])
    try:
        assert "result" in server.initialize()
        shown: list[str] = []
        deadline = time.monotonic() + 15
        while not shown and time.monotonic() < deadline:
            shown = [
                n["params"]["message"]
                for n in list(server.notifications)
                if n.get("method") == "window/showMessage"
            ]
            time.sleep(0.1)
    finally:
        server.close()
    assert any("is not a Comodor brain" in m and "temporary brain" in m for m in shown), shown
    assert files(shared) == theirs
    assert run(env, "comodor", "curator", "run").returncode == 0
