"""Two users, two real ``comodor-lsp serve`` processes, one team database.

Alice and Bob each have a clone of the same repository (so the same project), their
own ``COMODOR_HOME`` and ``COMODOR_USER``, and ``COMODOR_BRAIN_URL`` pointing at a
fresh database on the session's throwaway PostgreSQL cluster.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.support.postgres import Cluster
from tests.support.rpc import RawServer

pytestmark = pytest.mark.slow

REACH_S = 2.0
"""The contract: another user's change reaches a running server within 2 s."""


def git(folder: Path, *argv: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *argv],
        cwd=folder, check=True, capture_output=True, timeout=30,
    )  # fmt: skip


@pytest.fixture
def clones(tmp_path: Path) -> tuple[Path, Path]:
    """Alice's and Bob's clones of one repository (one project key: its root commit)."""
    origin = tmp_path / "origin"
    origin.mkdir()
    git(origin, "init", "-q")
    (origin / "app.py").write_text("print('hello')\n")
    git(origin, "add", ".")
    git(origin, "commit", "-q", "-m", "first")
    for name in ("alice", "bob"):
        git(tmp_path, "clone", "-q", str(origin), name)
    return tmp_path / "alice", tmp_path / "bob"


def start(
    workspace: Path, user: str, url: str, home: Path, learning: dict[str, Any] | None = None
) -> RawServer:
    env = dict(os.environ)
    env.update(COMODOR_HOME=str(home), COMODOR_USER=user, COMODOR_BRAIN_URL=url)
    server = RawServer(workspace, env=env)
    server.initialize({"watch": {"enabled": False}, "learning": learning or {}})
    uri = (workspace / "app.py").as_uri()
    server.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                          "text": (workspace / "app.py").read_text()}},
    )  # fmt: skip
    return server


@pytest.fixture
def team(
    clones: tuple[Path, Path], team_url: str, tmp_path: Path
) -> Iterator[tuple[RawServer, RawServer]]:
    alice = start(clones[0], "alice", team_url, tmp_path / "alice-home")
    bob = start(clones[1], "bob", team_url, tmp_path / "bob-home")
    try:
        yield alice, bob
    finally:
        alice.close()
        bob.close()


def result(reply: dict[str, Any]) -> Any:
    assert "error" not in reply, reply
    return reply["result"]


def hover_text(server: RawServer) -> str:
    uri = (server.workspace / "app.py").as_uri()
    reply = result(
        server.request(
            "textDocument/hover",
            {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}},
        )
    )
    return str(reply["contents"]["value"]) if reply else ""


def within(seconds: float, check: Callable[[], bool]) -> float:
    """Seconds until ``check()`` held; fails after ``seconds``."""
    started = time.monotonic()
    while not check():
        if time.monotonic() - started > seconds:
            raise AssertionError(f"not within {seconds} s")
        time.sleep(0.05)
    return time.monotonic() - started


def told(server: RawServer, phrase: str) -> int:
    """How many ``window/showMessage`` notices containing ``phrase`` the server sent."""
    return sum(
        1
        for note in list(server.notifications)
        if note.get("method") == "window/showMessage" and phrase in note["params"]["message"]
    )


def changed_notices(server: RawServer) -> int:
    return sum(
        1
        for note in list(server.notifications)
        if note.get("method") == "comodor/memory" and note["params"].get("action") == "changed"
    )


def test_a_rule_taught_by_one_user_reaches_the_others_hover_and_playbook_within_2_s(
    team: tuple[RawServer, RawServer],
) -> None:
    alice, bob = team
    assert "tabs" not in hover_text(bob)
    before = changed_notices(bob)
    result(alice.command("comodor.teachRule", {"statement": "Indent with tabs, never spaces."}))
    within(REACH_S, lambda: "Indent with tabs, never spaces." in hover_text(bob))
    within(REACH_S, lambda: changed_notices(bob) > before)
    playbook = result(bob.command("comodor.playbook", {"query": "write a parser"}))
    assert "Indent with tabs, never spaces." in playbook["text"]
    assert "taught by alice" in playbook["text"]


def test_a_lesson_taught_by_one_user_is_in_the_others_playbook_within_2_s(
    team: tuple[RawServer, RawServer],
) -> None:
    alice, bob = team
    result(alice.command("comodor.teach", {"text": "database migrations: run alembic first"}))

    def in_playbook() -> bool:
        found = result(bob.command("comodor.playbook", {"query": "add database migrations"}))
        return "run alembic first" in found["text"]

    within(REACH_S, in_playbook)


def test_the_personal_scope_never_reaches_the_database(
    clones: tuple[Path, Path], team_url: str, tmp_path: Path
) -> None:
    home = tmp_path / "carol-home"
    carol = start(clones[0], "carol", team_url, home, {"shareScope": "global"})
    try:
        result(carol.command("comodor.teach", {"text": "my machine: the GPU is device 1"}))
        result(carol.command("comodor.teachRule", {"statement": "Call me Carol."}))
        lessons = result(carol.command("comodor.lessons", {}))["lessons"]
        assert [lesson["scope"] for lesson in lessons] == ["global"]
    finally:
        carol.close()
    with psycopg.connect(team_url) as conn:
        for table in ("lessons", "rules", "rule_votes", "skills"):
            assert conn.execute(f"SELECT count(*) FROM {table}").fetchone() == (0,), table
    local = sqlite3.connect(home / "brain.db")
    assert local.execute("SELECT guidance FROM lessons").fetchall() == [("the GPU is device 1",)]


def test_a_rule_taught_while_the_database_is_down_arrives_once_it_is_back(
    team: tuple[RawServer, RawServer], pg_cluster: Cluster
) -> None:
    alice, bob = team
    pg_cluster.stop()
    try:
        taught = result(
            alice.command("comodor.teachRule", {"statement": "Write commit messages in English."})
        )
        assert taught["rule"]["statement"] == "Write commit messages in English."
        assert "in English" in hover_text(alice)  # reads are served from memory
        within(10, lambda: told(alice, "unreachable") == 1)
    finally:
        pg_cluster.start()
    within(15, lambda: "Write commit messages in English." in hover_text(bob))
    within(5, lambda: told(alice, "is back; 1 change made meanwhile was sent") == 1)
    assert told(alice, "unreachable") == 1  # told once, not once per write
