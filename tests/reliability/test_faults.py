"""Faults a user's machine really has: a damaged brain, a full disk, a read-only folder.

The disk-full and read-only cases use real tmpfs mounts (root only), so SQLite
meets a real ENOSPC and a real read-only file system, not a simulation.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.rpc import RawServer

pytestmark = pytest.mark.slow


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 1 MiB tmpfs: a disk that really fills up."""
    mount = tmp_path / "small-disk"
    mount.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root (CI runs as root)")
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)], check=True)
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def brain_options(path: Path) -> dict[str, object]:
    return {"brainPath": str(path), "watch": {"enabled": False}}


def shown_messages(server: RawServer) -> list[str]:
    return [
        n["params"]["message"]
        for n in server.notifications
        if n.get("method") == "window/showMessage"
    ]


def test_a_damaged_brain_is_moved_aside_and_the_user_told(workspace: Path, tmp_path: Path) -> None:
    brain = tmp_path / "brain" / "brain.db"
    brain.parent.mkdir()
    brain.write_bytes(b"SQLite format 3\x00" + b"\xff" * 8192)
    server = RawServer(workspace)
    try:
        server.initialize(brain_options(brain))
        taught = server.command("comodor.teach", {"text": "after the damage: it still works"})
        assert "result" in taught
        server.wait_notification("window/showMessage", lambda p: "moved to" in p["message"])
    finally:
        server.close()
    aside = [path for path in brain.parent.iterdir() if ".corrupt-" in path.name]
    assert aside and aside[0].read_bytes().startswith(b"SQLite format 3")


def test_a_full_disk_is_a_clear_error_and_the_editor_keeps_working(
    workspace: Path, small_disk: Path
) -> None:
    server = RawServer(workspace)
    try:
        server.initialize(brain_options(small_disk / "brain.db"))
        server.command("comodor.teachRule", {"statement": "Use tabs."})
        acknowledged = 0
        error = None
        for number in range(2000):
            reply = server.command(
                "comodor.teach", {"text": f"filler {number}: " + "x" * 1900, "pinned": False}
            )
            if "error" in reply:
                error = reply["error"]
                break
            acknowledged += 1
        assert error is not None, "the 1 MiB disk never filled"
        assert "the disk is full" in error["message"]
        assert "Nothing was changed" in error["message"]
        # The editor keeps working: reads, hover, stats.
        stats = server.command("comodor.stats", {})["result"]
        assert stats["lessons"] == acknowledged
        hover = server.request(
            "textDocument/hover",
            {
                "textDocument": {"uri": (workspace / "a.py").as_uri()},
                "position": {"line": 0, "character": 0},
            },
        )
        assert "Use tabs." in hover["result"]["contents"]["value"]
        playbook = server.command("comodor.playbook", {"query": "filler"})
        assert "result" in playbook
    finally:
        server.close()


def test_a_read_only_brain_folder_keeps_what_was_learned_visible(
    workspace: Path, small_disk: Path
) -> None:
    brain = small_disk / "brain.db"
    server = RawServer(workspace)
    server.initialize(brain_options(brain))
    server.command("comodor.teachRule", {"statement": "Prefer pathlib over os.path."})
    server.close()
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    server = RawServer(workspace)
    try:
        server.initialize(brain_options(brain))
        assert _eventually_told(server, "read-only"), shown_messages(server)
        rules = server.command("comodor.rules", {})["result"]["rules"]
        assert [rule["statement"] for rule in rules] == ["Prefer pathlib over os.path."]
        refused = server.command("comodor.teach", {"text": "new: cannot be stored"})
        assert "read-only" in refused["error"]["message"]
        assert "result" in server.command("comodor.playbook", {"query": "paths"})
    finally:
        server.close()


def test_a_brain_folder_that_cannot_be_created_still_lets_the_editor_work(
    workspace: Path, small_disk: Path
) -> None:
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    server = RawServer(workspace)
    try:
        server.initialize(brain_options(small_disk / "nested" / "brain.db"))
        assert _eventually_told(server, "temporary brain")
        assert "result" in server.command("comodor.teach", {"text": "kept for this session"})
    finally:
        server.close()


def _eventually_told(server: RawServer, words: str = "cannot write its brain") -> bool:
    server.command("comodor.stats", {})  # a round trip: earlier notifications have arrived
    return any(words in message for message in shown_messages(server))


def test_the_command_line_says_so_and_fails_when_it_cannot_write(
    workspace: Path, small_disk: Path
) -> None:
    """``comodor-lsp call`` must never report success for a write that was thrown away."""
    home = small_disk / "home"
    home.mkdir()
    env = {**os.environ, "COMODOR_HOME": str(home)}

    def call(name: str, argument: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "comodor_lsp", "call", name, argument],
            cwd=workspace,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    first = call("comodor.teach", '{"text": "kept: before the disk went read-only"}')
    assert first.returncode == 0, first.stderr
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    refused = call("comodor.teach", '{"text": "lost: the brain is read-only"}')
    assert refused.returncode != 0
    assert "read-only" in refused.stderr and refused.stdout == ""
    listed = call("comodor.lessons", "{}")
    assert listed.returncode == 0
    assert "before the disk went read-only" in listed.stdout and "lost:" not in listed.stdout
