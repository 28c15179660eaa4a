"""With ``sync.targets`` set, the language server keeps the instruction files' blocks current."""

from __future__ import annotations

import asyncio
import time
import warnings
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from comodor_lsp.sync import BEGIN
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import initialize_params
from tests.lsp.session import SERVER, Session, make_client
from tests.lsp.test_attribution import marker_write
from tests.lsp.test_corrections import USER, agent_writes

MINE = "# Claude notes\r\n\r\nKeep this line — ✓\r\nno final newline"
TEAM = (
    "## Workflow\n\n- Run make check before pushing — *taught* <!-- comodor: team.check=yes -->\n"
)
OPTIONS = {"learning": {"prefetchDelayMs": 50}, "sync": {"targets": ["AGENTS.md", "CLAUDE.md"]}}


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=make_client))
async def syncing_client(lsp_client: LanguageClient, workspace: Path) -> AsyncIterator[None]:
    (workspace / "CLAUDE.md").write_bytes(MINE.encode())
    (workspace / "house-rules.md").write_text(TEAM)
    await lsp_client.initialize_session(initialize_params("vscode", workspace, OPTIONS))
    lsp_client.kind = "vscode"  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


@pytest.fixture
def syncing(syncing_client: LanguageClient, workspace: Path) -> Session:
    return Session(syncing_client, workspace)


async def wait_for_text(
    path: Path, needle: str, *, present: bool = True, timeout: float = 10.0
) -> float:
    """Poll ``path`` until ``needle`` is (or is no longer) in it; return the seconds waited."""
    started = time.monotonic()
    while True:
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            text = ""
        if (needle in text) == present:
            return time.monotonic() - started
        if time.monotonic() - started > timeout:
            raise AssertionError(
                f"{needle!r} {'never appeared in' if present else 'stayed in'} {path}"
            )
        await asyncio.sleep(0.01)


async def test_a_learned_rule_reaches_the_instruction_files(
    syncing: Session, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agents = workspace / "AGENTS.md"
    # synced at start, with the rule a teammate committed
    await wait_for_text(agents, "Run make check before pushing")
    team = (await syncing.command("comodor.rules"))["rules"]
    assert [(r["key"], r["confident"], r["source"]) for r in team] == [
        ("team.check", True, "evidence")
    ]
    assert "house-rules.md" in team[0]["evidence"]
    for name in ("a.py", "b.py"):
        await agent_writes(syncing, name)
        syncing.save(name, USER)
    await syncing.wait_memory("rule")
    latency = await wait_for_text(agents, "Use single quotes")
    with capsys.disabled():
        print(f"\nlive sync: rule in AGENTS.md {latency * 1000:.0f} ms after the rule notification")
    if latency > 1.0:
        warnings.warn(f"live sync took {latency:.2f}s on this (loaded) machine", stacklevel=1)
    assert latency < 8.0
    await wait_for_text(workspace / "CLAUDE.md", "Use single quotes")
    claude = (workspace / "CLAUDE.md").read_bytes()
    assert claude.startswith(MINE.encode() + b"\r\n\r\n" + BEGIN.encode())
    assert b"\n" not in claude.replace(b"\r\n", b"")

    # taught and forgotten over LSP: in, then out
    rule = (await syncing.command("comodor.teachRule", {"statement": "Never push to main"}))["rule"]
    await wait_for_text(agents, "Never push to main")
    await syncing.command("comodor.forgetRule", {"id": rule["id"]})
    await wait_for_text(agents, "Never push to main", present=False)
    # a disabled rule leaves too (no memory event: the rule cache change is what counts)
    rules = (await syncing.command("comodor.rules"))["rules"]
    quotes = next(r for r in rules if r["key"] == "quotes.style")
    await syncing.command("comodor.setRule", {"id": quotes["id"], "active": False})
    await wait_for_text(agents, "Use single quotes", present=False)

    # our own writes to AGENTS.md and CLAUDE.md are neither agent writes nor corrections,
    # and neither is the user's edit of them
    text = (workspace / "AGENTS.md").read_text() + "\nMy own note.\n"
    syncing.open("AGENTS.md", (workspace / "AGENTS.md").read_text(), language="markdown")
    syncing.save("AGENTS.md", text)
    stats = await marker_write(syncing, 3)  # a.py, b.py and the marker
    assert (stats["agentWrites"], stats["corrections"]) == (3, 2)

    # a workspace's settings cannot choose the files Comodor writes (a cloned repository's
    # .vscode/settings.json pointing at .git/config or a virtualenv's activate script)
    (workspace / ".git").mkdir()
    (workspace / ".git" / "config").write_text("[core]\n")
    syncing.client.set_configuration(
        {"sync": {"targets": [".git/config", "docs/AI.md"]}}, section="comodor"
    )
    syncing.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings=None)
    )
    await syncing.command("comodor.teachRule", {"statement": "Keep functions short."})
    await wait_for_text(agents, "Keep functions short")
    assert (workspace / ".git" / "config").read_text() == "[core]\n"
    assert not (workspace / "docs" / "AI.md").exists()
