"""Who wrote a file: Comodor's own writes, empty files and the editor's files are no agent's.

Each test makes the writes a user would see (a real file, a real watcher, a real server),
then lets a terminal agent write a marker file: once the marker is counted, every change
before it has been classified too, so the exact count says what was (not) an agent write.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from tests.lsp.session import Session
from tests.lsp.test_capture import AGENT, USER, wait_stats

pytestmark = pytest.mark.slow

MARKER = "x = 1\n"


@pytest.fixture(autouse=True)
async def _watching(session: Session) -> None:
    await wait_stats(session, "watching", "native")  # type: ignore[arg-type]


async def marker_write(session: Session, expected_agent_writes: int) -> dict[str, Any]:
    """A terminal agent writes one more file; once *it* is classified, return the stats.

    ``comodor.undo`` of the marker answers ``undone: 1`` only once the marker's own write
    is recorded, so the probe cannot be fooled by an earlier write wrongly counted (each
    marker also adds one undo to the stats).
    """
    name = f"marker{expected_agent_writes}.py"
    (session.workspace / name).write_text(MARKER)
    deadline = time.monotonic() + 20.0
    while (await session.command("comodor.undo", {"uris": [session.uri(name)]}))["undone"] == 0:
        if time.monotonic() > deadline:
            raise AssertionError(f"the marker write {name} was never counted")
        await asyncio.sleep(0.05)
    stats: dict[str, Any] = await session.command("comodor.stats")
    return stats


def did_create(session: Session, *names: str) -> None:
    session.client.workspace_did_create_files(
        types.CreateFilesParams(files=[types.FileCreate(uri=session.uri(name)) for name in names])
    )


async def test_empty_files_made_with_touch_are_not_agent_writes(session: Session) -> None:
    for name in ("empty.py", "notes.md", "blank.ts"):
        (session.workspace / name).touch()
    (session.workspace / "spaces.py").write_text("\n\n")
    stats = await marker_write(session, 1)
    assert stats["agentWrites"] == 1


async def test_an_agents_write_to_a_touched_file_is_an_agent_write_with_an_empty_before(
    session: Session,
) -> None:
    target = session.workspace / "new.py"
    target.touch()
    await marker_write(session, 1)
    target.write_text(AGENT)  # the agent fills the file the user created
    await wait_stats(session, "agentWrites", 2)
    session.open("new.py", AGENT)
    session.save("new.py", "")  # emptying it again restores what was there before the agent
    await session.wait_memory("undo", count=2)  # the marker's, then this one
    stats = await session.command("comodor.stats")
    assert (stats["undos"], stats["corrections"]) == (2, 0)


async def test_a_correction_of_an_agents_write_to_a_touched_file_still_counts(
    session: Session,
) -> None:
    target = session.workspace / "new.py"
    target.touch()
    await marker_write(session, 1)
    target.write_text(AGENT)
    await wait_stats(session, "agentWrites", 2)
    session.open("new.py", AGENT)
    session.save("new.py", USER)
    stats = await wait_stats(session, "corrections", 1)
    assert stats["agentWrites"] == 2


async def test_exporting_rules_to_any_path_is_not_an_agent_write(session: Session) -> None:
    await session.command("comodor.teachRule", {"statement": "Run ruff before committing."})
    exported = await session.command("comodor.exportRules", {"path": "docs/house-rules.md"})
    path = Path(exported["path"])
    assert path == session.workspace / "docs" / "house-rules.md" and path.is_file()
    await session.command("comodor.exportRules", {"path": "HOUSE.md"})
    await marker_write(session, 1)
    # the user edits the exported file: not a correction of anything an agent wrote
    edited = path.read_text() + "\n- Also: keep functions short.\n"
    session.open("docs/house-rules.md", path.read_text(), language="markdown")
    session.save("docs/house-rules.md", edited)
    stats = await marker_write(session, 2)
    assert (stats["agentWrites"], stats["corrections"]) == (2, 0)


async def test_comodor_sync_from_a_terminal_is_not_an_agent_write(
    session: Session, brain_dir: Path
) -> None:
    """``comodor-lsp sync`` is another process on the same brain: the server must still know."""
    await session.command("comodor.teachRule", {"statement": "Never push to main."})
    env = {**os.environ, "COMODOR_HOME": str(brain_dir)}
    for target in ("AGENTS.md", "CLAUDE.md"):
        subprocess.run(
            [sys.executable, "-m", "comodor_lsp", "sync", "--target", target],
            cwd=session.workspace,
            env=env,
            check=True,
            capture_output=True,
            timeout=60,
        )
        assert "Never push to main." in (session.workspace / target).read_text()
    stats = await marker_write(session, 1)
    assert stats["agentWrites"] == 1


async def test_files_under_comodors_own_folder_are_not_agent_writes(session: Session) -> None:
    folder = session.workspace / ".comodor"
    folder.mkdir()
    (folder / "notes.md").write_text("# mine\n")
    assert await session.command("comodor.agentEdit", {"uri": session.uri(".comodor/notes.md")})
    stats = await marker_write(session, 1)
    assert stats["agentWrites"] == 1


async def test_a_file_the_editor_created_is_not_an_agent_write(session: Session) -> None:
    """The explorer's "New File" and a paste of a file: ``workspace/didCreateFiles``."""
    (session.workspace / "pasted.py").write_text(AGENT)  # a copy pasted in the explorer
    did_create(session, "pasted.py")
    (session.workspace / "fresh.py").touch()
    did_create(session, "fresh.py")
    stats = await marker_write(session, 1)
    assert stats["agentWrites"] == 1
    # ... and the user's edit of the pasted file is not a correction
    session.open("pasted.py", AGENT)
    session.save("pasted.py", USER)
    stats = await marker_write(session, 2)
    assert (stats["agentWrites"], stats["corrections"]) == (2, 0)


async def test_a_file_the_editor_announced_before_creating_it_is_not_an_agent_write(
    session: Session,
) -> None:
    """``workspace/willCreateFiles`` arrives before the file exists."""
    result = await session.client.workspace_will_create_files_async(
        types.CreateFilesParams(files=[types.FileCreate(uri=session.uri("module.py"))])
    )
    assert result is None
    await session.settle()
    (session.workspace / "module.py").write_text('"""A module."""\n')
    stats = await marker_write(session, 1)
    assert stats["agentWrites"] == 1


async def test_opening_a_file_that_does_not_exist_yet_makes_it_the_editors(
    session: Session,
) -> None:
    """Neovim's ``:e new.py``: the buffer exists before the file; writing it is the editor's."""
    template = "def main():\n    pass\n"
    session.open("new.py", template)
    await session.settle()
    (session.workspace / "new.py").write_text(template)
    stats = await marker_write(session, 1)
    assert stats["agentWrites"] == 1
    # a later agent write to it is an agent's, against the editor's text
    (session.workspace / "new.py").write_text(AGENT)
    await wait_stats(session, "agentWrites", 2)


async def test_the_server_asks_vscode_for_file_creations(session: Session) -> None:
    capabilities = session.client.init_result.capabilities  # type: ignore[attr-defined]
    operations = capabilities.workspace.file_operations
    if session.kind == "vscode":
        assert operations.did_create is not None and operations.will_create is not None
        assert operations.did_create.filters[0].pattern.glob == "**/*"
    else:  # Neovim does not announce file operations; nothing is registered for it
        assert operations is None or operations.did_create is None
