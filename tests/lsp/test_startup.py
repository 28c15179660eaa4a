"""Start-up: the server answers ``initialize`` without loading what only later work needs.

The editor waits for the ``initialize`` answer before it shows anything, so the
modules on that path are the ones the brain needs to open; capture's analysis,
the house-rule checkers and the recall index (with numpy) load once the session
runs, and the optional parts (the MCP server, reflection's HTTP client, the
team brain's PostgreSQL driver) never load in a plain workspace. The server is
a real ``comodor-lsp serve`` started with ``-X importtime``, which makes the
interpreter itself write every module it imports to stderr, in order.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.rpc import RawServer

LATER = (
    "comodor_lsp.capture.tracker",
    "comodor_lsp.conventions.corrections",
    "comodor_lsp.diagnostics.violations",
    "comodor_lsp.capture.workspace_capture",
    "comodor_lsp.diagnostics.rule_check",
    "comodor_lsp.sync",
    "numpy",
    "watchdog",
)
"""Loaded during the session, after ``initialize`` has been answered."""

NOT_USED_BY_THIS_SESSION = (
    "comodor_lsp.mcp_tools",
    "mcp",
    "httpx",
    "psycopg",
    "comodor_lsp.mcp_server",
    "comodor_lsp.reflect",
    "comodor_lsp.teamdb",
)
"""The agent-tool table (only ``comodor.tool`` needs it), and what a plain workspace never
needs: the MCP server, reflection (its HTTP client), the team brain (PostgreSQL)."""

TEAM_DOOR = ("comodor_lsp.teamdb", "comodor_lsp.teamdb.opening")
"""The one module of the team package every session loads: it chooses between the local
file and a team database (and imports nothing of the database without a ``brain.url``)."""


def _never_used(loaded: set[str]) -> list[str]:
    """Loaded modules that belong to a part this plain session should never need."""
    return sorted(
        name
        for name in loaded
        if name not in TEAM_DOOR
        and any(name == root or name.startswith(root + ".") for root in NOT_USED_BY_THIS_SESSION)
    )


SENTINEL = b"this is not JSON"
"""Malformed input the server logs (and answers with ParseError): a mark in its stderr."""


def _imported(stderr: str) -> list[str]:
    """Module names from ``-X importtime`` lines, in import order."""
    return [
        line.rpartition("|")[2].strip()
        for line in stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    ]


def test_initialize_is_answered_before_capture_checkers_and_optional_parts_load(
    workspace: Path, tmp_path: Path
) -> None:
    (workspace / "app.py").write_text('def main():\n    return "x"\n')
    log = tmp_path / "stderr.txt"
    with log.open("wb") as stderr:
        server = RawServer(
            workspace,
            env=dict(os.environ),
            stderr=stderr,
            command=[sys.executable, "-X", "importtime", "-m", "comodor_lsp", "serve"],
        )
        try:
            reply = server.request(
                "initialize",
                {
                    "processId": os.getpid(),
                    "capabilities": {},
                    "workspaceFolders": [{"uri": workspace.as_uri(), "name": "ws"}],
                    "initializationOptions": {},
                },
            )
            assert "capabilities" in reply["result"]
            server.send_raw(SENTINEL)  # answered after everything imported so far was logged
            assert server.next_unaddressed()["error"]["code"] == -32700
            server.notify("initialized", {})
            uri = (workspace / "app.py").as_uri()
            server.notify(
                "textDocument/didOpen",
                {
                    "textDocument": {
                        "uri": uri,
                        "languageId": "python",
                        "version": 1,
                        "text": (workspace / "app.py").read_text(),
                    }
                },
            )
            server.command("comodor.teachRule", {"statement": "Use single quotes for strings."})
            server.wait_notification("textDocument/publishDiagnostics", lambda p: p["diagnostics"])
            hover = server.request(
                "textDocument/hover",
                {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 4}},
            )
            assert "error" not in hover
            assert "result" in server.command("comodor.playbook", {"query": "return a string"})
            deadline = time.monotonic() + 20
            while server.command("comodor.stats", {})["result"]["watching"] == "off":
                assert time.monotonic() < deadline, "capture never started"
                time.sleep(0.05)
        finally:
            server.close()
    text = log.read_text(errors="replace")
    before, mark, after = text.partition("malformed input")
    assert mark, "the server did not log the malformed input"
    at_initialize = set(_imported(before))
    everything = at_initialize | set(_imported(after))

    assert {"comodor_lsp.app", "comodor_lsp.brain.engine"} <= at_initialize  # the brain opened
    assert [name for name in LATER if name in at_initialize] == []
    assert [name for name in LATER if name not in everything] == []  # and they did load later
    assert _never_used(everything) == []


def test_building_the_server_loads_no_capture_checkers_nor_optional_parts() -> None:
    code = (
        "import sys, comodor_lsp.lsp.main as main; main.create_server(); "
        "print('\\n'.join(sorted(sys.modules)))"
    )
    loaded = set(
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
        ).stdout.split()
    )
    assert "pygls.lsp.server" in loaded
    assert [name for name in LATER if name in loaded] == []
    assert _never_used(loaded) == []


def test_the_server_caps_malloc_arenas_unless_the_user_chose_a_value(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from comodor_lsp.lsp.allocator import limit_malloc_arenas

    monkeypatch.setenv("MALLOC_ARENA_MAX", "8")
    assert limit_malloc_arenas() is False
    monkeypatch.delenv("MALLOC_ARENA_MAX")
    assert limit_malloc_arenas() is sys.platform.startswith("linux")
