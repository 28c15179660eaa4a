"""One brain, many processes: every door opens the same file, and a running server keeps up.

A rule taught through a second server, ``comodor-lsp mcp`` or ``comodor-lsp call`` must show
in a running server's hover within a second, and the server says so with
``comodor/memory`` ``{action: "changed"}``. The user-level settings file moves the brain
for every door at once. A write stuck behind another process's lock never delays reads.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.lsp.session import Session
from tests.mcp.conftest import mcp_session
from tests.support.rpc import RawServer

pytestmark = pytest.mark.slow

FRESH_WITHIN_S = 1.0


def call(workspace: Path, name: str, argument: dict[str, object]) -> dict[str, object]:
    """``comodor-lsp call`` in its own process, exactly as a user or a script runs it."""
    done = subprocess.run(
        [sys.executable, "-m", "comodor_lsp", "call", name, json.dumps(argument)],
        cwd=workspace,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(done.stdout)  # type: ignore[no-any-return]


async def hover_shows(session: Session, needle: str, timeout: float = 10.0) -> float:
    """Seconds until the document's hover mentions ``needle``."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        hover = await session.hover("notes.md")
        if hover is not None and needle in hover.contents.value:  # type: ignore[union-attr]
            return time.monotonic() - started
        await asyncio.sleep(0.02)
    raise AssertionError(f"{needle!r} never showed in hover")


async def test_a_rule_taught_by_the_command_line_shows_in_hover_within_a_second(
    session: Session, workspace: Path
) -> None:
    session.open("notes.md", "# notes\n", language="markdown")
    await session.settle()
    started = time.monotonic()
    call(workspace, "comodor.teachRule", {"statement": "Keep commits small."})
    taught_after = time.monotonic() - started
    waited = await hover_shows(session, "Keep commits small.")
    assert waited < FRESH_WITHIN_S, f"hover caught up {waited:.2f} s after the CLI returned"
    assert taught_after < 30
    await session.wait_memory("changed")
    stats = await session.command("comodor.stats")
    assert stats["confidentRules"] == 1


async def test_a_rule_taught_over_mcp_and_by_a_second_server_reaches_the_first(
    session: Session, workspace: Path
) -> None:
    session.open("notes.md", "# notes\n", language="markdown")
    async with mcp_session(workspace) as mcp:
        await mcp.call_tool("comodor_teach_rule", {"statement": "Write the test first."})
        assert await hover_shows(session, "Write the test first.") < FRESH_WITHIN_S
    second = RawServer(workspace)
    try:
        second.initialize()
        reply = second.command("comodor.teachRule", {"statement": "Prefer small pure functions."})
        assert "result" in reply, reply
        assert await hover_shows(session, "Prefer small pure functions.") < FRESH_WITHIN_S
    finally:
        second.close()
    lessons_before = (await session.command("comodor.stats"))["lessons"]
    call(workspace, "comodor.teach", {"text": "deploying: run make release"})
    for _ in range(100):
        if (await session.command("comodor.stats"))["lessons"] == lessons_before + 1:
            break
        await asyncio.sleep(0.02)
    else:
        raise AssertionError("a lesson taught elsewhere never reached stats")


async def test_reads_answer_while_another_process_holds_the_write_lock(
    session: Session, workspace: Path, brain_dir: Path
) -> None:
    await session.command("comodor.teachRule", {"statement": "Use tabs."})
    session.open("notes.md", "# notes\n", language="markdown")
    blocker = sqlite3.connect(brain_dir / "brain.db", timeout=1, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")  # another process holds the write lock now
    try:
        waiting = asyncio.ensure_future(
            session.command("comodor.teach", {"text": "a write that must wait: for the lock"})
        )
        await asyncio.sleep(0.3)
        assert not waiting.done()  # the write really waits
        for name, run in (
            ("stats", lambda: session.command("comodor.stats")),
            ("playbook", lambda: session.command("comodor.playbook", {"query": "tabs"})),
            ("rules", lambda: session.command("comodor.rules")),
            ("hover", lambda: session.hover("notes.md")),
        ):
            started = time.monotonic()
            answer = await asyncio.wait_for(run(), timeout=5)
            took = time.monotonic() - started
            assert answer is not None and took < FRESH_WITHIN_S, f"{name} took {took:.2f} s"
        assert not waiting.done()
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    taught = await asyncio.wait_for(waiting, timeout=15)
    assert taught["lesson"]["guidance"] == "for the lock"


async def test_every_door_opens_the_brain_the_user_settings_file_names(
    workspace: Path, brain_dir: Path, tmp_path: Path
) -> None:
    shared = tmp_path / "elsewhere" / "brain.db"
    (brain_dir / "settings.json").write_text(json.dumps({"brainPath": str(shared)}))
    from_cli = call(workspace, "comodor.stats", {})
    async with mcp_session(workspace) as mcp:
        taught = await mcp.call_tool("comodor_teach", {"text": "testing: run pytest -x"})
        assert not taught.is_error
    server = RawServer(workspace)
    try:
        server.initialize()
        from_lsp = server.command("comodor.stats", {})["result"]
    finally:
        server.close()
    assert from_cli["brainPath"] == from_lsp["brainPath"] == str(shared)
    assert from_lsp["lessons"] == 1  # the one MCP taught, in the same file
    assert shared.exists() and not (brain_dir / "brain.db").exists()
    assert os.environ["COMODOR_HOME"] == str(brain_dir)
