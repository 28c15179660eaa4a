"""Capture through the real server and a real file watcher: agents, editors and git."""

from __future__ import annotations

import asyncio
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.lsp.session import Session
from tests.support.secrets import SECRET_SAMPLES, all_secret_strings

pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True)
async def _watching(session: Session) -> None:
    """Changes made before the watcher is in place cannot be seen: wait for it."""
    await wait_stats(session, "watching", "native")  # type: ignore[arg-type]


AGENT = 'def greet(name):\n    message = "hello " + name\n    return message\n'
USER = "def greet(name):\n    message = 'hello ' + name\n    return message\n"


def git(workspace: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=workspace, check=True, capture_output=True, timeout=60)


def make_repo(workspace: Path) -> None:
    git(workspace, "init", "-q", "-b", "main")
    git(workspace, "config", "user.email", "test@example.com")
    git(workspace, "config", "user.name", "Test")


async def wait_stats(
    session: Session, key: str, value: object, timeout: float = 20.0
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        stats = await session.command("comodor.stats")
        if stats[key] == value:
            return stats
        if time.monotonic() > deadline:
            raise AssertionError(f"stats[{key!r}] stayed {stats[key]}, expected {value}")
        await asyncio.sleep(0.1)


async def terminal_agent_writes(session: Session, name: str, text: str, count: int) -> None:
    """An agent outside the editor writes the file; the watcher must notice."""
    (session.workspace / name).write_text(text)
    await wait_stats(session, "agentWrites", count)


async def test_a_terminal_agents_write_is_seen_as_an_agent_write(session: Session) -> None:
    await terminal_agent_writes(session, "a.py", AGENT, 1)


async def test_an_atomic_rename_write_is_one_agent_write(session: Session) -> None:
    temporary = session.workspace / ".a.py.tmp-agent"
    temporary.write_text(AGENT)
    os.replace(temporary, session.workspace / "a.py")
    await wait_stats(session, "agentWrites", 1)
    (session.workspace / "marker.py").write_text("x = 1\n")
    await wait_stats(session, "agentWrites", 2)


async def test_the_users_own_saves_are_never_agent_writes(session: Session) -> None:
    (session.workspace / "mine.py").write_text("x = 1\n")
    await wait_stats(session, "agentWrites", 1)  # it existed before the editor opened it
    session.open("mine.py")
    for number in range(3):
        session.save("mine.py", f"x = {number + 2}\n")
    (session.workspace / "marker.py").write_text("y = 1\n")  # a later agent write
    stats = await wait_stats(session, "agentWrites", 2)
    assert stats["corrections"] == 3  # each save changed what the 'agent' wrote, once each


async def test_git_checkout_of_50_files_is_not_an_agent_write(session: Session) -> None:
    make_repo(session.workspace)
    for number in range(50):
        (session.workspace / f"m{number}.py").write_text(f"VALUE = {number}\n")
    git(session.workspace, "add", ".")
    git(session.workspace, "commit", "-qm", "one")
    git(session.workspace, "checkout", "-qb", "other")
    for number in range(50):
        (session.workspace / f"m{number}.py").write_text(f'VALUE = "{number}"\n')
    git(session.workspace, "commit", "-qam", "two")
    baseline = (await wait_stats(session, "agentWrites", 50, timeout=30))["agentWrites"]
    git(session.workspace, "checkout", "-q", "main")
    git(session.workspace, "checkout", "-q", "other")
    await asyncio.sleep(1.5)  # let the watcher deliver git's storm
    (session.workspace / "marker.py").write_text("x = 1\n")
    stats = await wait_stats(session, "agentWrites", baseline + 1, timeout=30)
    assert stats["corrections"] == 0 and stats["undos"] == 0


async def test_correcting_two_agent_files_learns_the_rule_with_no_integration(
    session: Session,
) -> None:
    for count, name in enumerate(("a.py", "b.py"), start=1):
        await terminal_agent_writes(session, name, AGENT, count)
        session.open(name, AGENT)
        session.save(name, USER)
    announced = await session.wait_memory("rule")
    assert announced[0]["items"][0]["statement"] == "Use single quotes for strings."
    hover = await session.hover("a.py")
    assert hover is not None and "2 corrections · 100% agree" in hover.contents.value  # type: ignore[union-attr]
    playbook = await session.command("comodor.playbook", {"query": "add a helper"})
    assert "Use single quotes for strings." in playbook["text"]


async def test_a_contradicting_correction_counts_against(session: Session) -> None:
    for count, name in enumerate(("a.py", "b.py"), start=1):
        await terminal_agent_writes(session, name, AGENT, count)
        session.open(name, AGENT)
        session.save(name, USER)
    await terminal_agent_writes(session, "c.py", USER, 3)
    session.open("c.py", USER)
    session.save("c.py", AGENT)
    await wait_stats(session, "corrections", 3)
    rule = (await session.command("comodor.rules"))["rules"][0]
    assert (rule["value"], rule["support"], rule["against"]) == ("single", 2.0, 1.0)
    assert rule["confident"] is False  # 67% agreement


async def test_git_checkout_of_a_file_undoes_the_agents_write(session: Session) -> None:
    make_repo(session.workspace)
    (session.workspace / "a.py").write_text(USER)
    git(session.workspace, "add", ".")
    git(session.workspace, "commit", "-qm", "base")
    await asyncio.sleep(1.5)
    agent_writes = (await session.command("comodor.stats"))["agentWrites"]
    (session.workspace / "a.py").write_text(AGENT)
    await wait_stats(session, "agentWrites", agent_writes + 1)
    git(session.workspace, "checkout", "--", "a.py")
    await session.wait_memory("undo", timeout=20)
    stats = await session.command("comodor.stats")
    assert stats["undos"] == 1 and stats["corrections"] == 0


async def test_deleting_a_file_the_agent_created_is_an_undo(session: Session) -> None:
    await terminal_agent_writes(session, "new.py", AGENT, 1)
    (session.workspace / "new.py").unlink()
    await session.wait_memory("undo", timeout=20)


async def test_binary_huge_and_ignored_files_are_not_agent_writes(session: Session) -> None:
    (session.workspace / "blob.bin").write_bytes(b"\0\1\2" * 100)
    (session.workspace / "huge.py").write_text("x = 1\n" * 500_000)
    (session.workspace / ".gitignore").write_text("generated/\n")
    await wait_stats(session, "agentWrites", 1)  # .gitignore itself is a text file
    (session.workspace / "generated").mkdir()
    (session.workspace / "generated" / "out.py").write_text("x = 1\n")
    (session.workspace / "node_modules").mkdir()
    (session.workspace / "node_modules" / "lib.js").write_text("x;\n")
    (session.workspace / "marker.py").write_text("x = 1\n")
    await wait_stats(session, "agentWrites", 2)
    await asyncio.sleep(1.0)
    assert (await session.command("comodor.stats"))["agentWrites"] == 2


async def test_secrets_in_corrected_files_never_reach_the_brain(
    session: Session, brain_dir: Path
) -> None:
    secrets = "\n".join(sample.context for sample in SECRET_SAMPLES) + "\n"
    await terminal_agent_writes(session, "settings.py", AGENT + secrets, 1)
    session.open("settings.py", AGENT + secrets)
    session.save("settings.py", USER + secrets + "TOKEN_NAME = 'x'\n")
    await wait_stats(session, "corrections", 1)
    await session.command("comodor.stats")
    written = [path.read_bytes() for path in brain_dir.rglob("*") if path.is_file()]
    assert written
    for secret in all_secret_strings():
        assert not any(secret.encode() in data for data in written), secret


async def test_opening_an_agents_file_at_once_still_counts_the_write(session: Session) -> None:
    """An editor may open a file the moment an agent wrote it (an agent that reveals what it
    wrote, a quick Ctrl+P), before the watcher delivered that write (settle 0.15 s + save grace
    0.6 s). The open must not make the write look already known."""
    (session.workspace / "a.py").write_text(AGENT)
    await asyncio.sleep(0.05)  # the kernel has queued the events; nothing is delivered yet
    session.open("a.py", AGENT)
    await wait_stats(session, "agentWrites", 1, timeout=4)
