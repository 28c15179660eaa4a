"""What the editor is told once: a team brain that is not shared, a setting that is ignored.

A real ``comodor-lsp serve`` through pytest-lsp. The missing PostgreSQL driver is
real too: a ``psycopg.py`` first on the server's ``PYTHONPATH`` makes Python's own
``import psycopg`` fail in the server process, as in an install without the
``team`` extra (the test venv has the driver).
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

from lsprotocol import types
from pytest_lsp import ClientServerConfig

from tests.lsp.conftest import initialize_params
from tests.lsp.session import SERVER, Session, make_client

BLOCK_PSYCOPG = "raise ModuleNotFoundError(\"No module named 'psycopg'\", name='psycopg')\n"


def _environment(tmp: Path) -> dict[str, str]:
    """A home with a bad setting, a team URL, and no driver for it."""
    home = tmp / "home"
    home.mkdir()
    (home / "settings.json").write_text(json.dumps({"learning": {"topK": "six"}}))
    blocked = tmp / "blocked"
    blocked.mkdir()
    (blocked / "psycopg.py").write_text(BLOCK_PSYCOPG)
    env = dict(os.environ)
    env.update(
        COMODOR_HOME=str(home),
        COMODOR_BRAIN_URL="postgresql://dora@127.0.0.1:9/team",
        PYTHONPATH=os.pathsep.join(filter(None, [str(blocked), env.get("PYTHONPATH")])),
    )
    return env


async def _start(workspace: Path, env: dict[str, str]) -> Session:
    config = ClientServerConfig(server_command=SERVER, client_factory=make_client, server_env=env)
    client = await config.start()
    client.init_result = await client.initialize_session(  # type: ignore[attr-defined]
        initialize_params("vscode", workspace)
    )
    client.kind = "vscode"  # type: ignore[attr-defined]
    return Session(client, workspace)


async def _messages(session: Session, wanted: int) -> list[types.ShowMessageParams]:
    for _ in range(100):
        if len(session.client.messages) >= wanted:
            break
        await asyncio.sleep(0.05)
    await session.settle()
    return list(session.client.messages)


async def test_a_team_url_without_its_driver_is_said_once_and_the_local_brain_keeps_learning(
    workspace: Path, tmp_path: Path
) -> None:
    env = _environment(tmp_path)
    session = await _start(workspace, env)
    try:
        taught = await session.command("comodor.teach", {"text": "testing: use pytest -q"})
        session.client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings={})
        )
        messages = await _messages(session, 2)
        lessons = await session.command("comodor.lessons", {})
    finally:
        await session.client.shutdown_session()
    team = [m for m in messages if "team brain is not shared" in m.message]
    assert len(team) == 1, [m.message for m in messages]
    assert team[0].type == types.MessageType.Warning
    assert "pip install 'comodor-lsp[team]'" in team[0].message
    assert str(Path(env["COMODOR_HOME"]) / "brain.db") in team[0].message
    assert "temporary brain" not in team[0].message, "what it learns is kept"
    assert [lesson["id"] for lesson in lessons["lessons"]] == [taught["lesson"]["id"]]
    assert (Path(env["COMODOR_HOME"]) / "brain.db").is_file()

    settings = [m for m in messages if "learning.topK" in m.message]
    assert [m.message for m in settings] == [
        f'Comodor settings: learning.topK: "six" is not allowed in {env["COMODOR_HOME"]}'
        "/settings.json; it must be a whole number from 1 to 50; it is ignored until it is "
        "fixed."
    ], "the same words as the command line, once, even after a configuration change"


async def test_a_brain_url_that_is_not_postgresql_is_said_once_instead_of_failing_to_start(
    workspace: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = dict(os.environ, COMODOR_HOME=str(home), COMODOR_BRAIN_URL="mysql://dora:s3cret@db/t")
    session = await _start(workspace, env)
    try:
        taught = await session.command("comodor.teach", {"text": "testing: use pytest -q"})
        messages = await _messages(session, 1)
        lessons = await session.command("comodor.lessons", {})
    finally:
        await session.client.shutdown_session()
    team = [m for m in messages if "team brain is not shared" in m.message]
    assert len(team) == 1 and team[0].type == types.MessageType.Warning
    assert team[0].message.startswith("brain.url must be a postgresql:// URL, got 'mysql://")
    assert "s3cret" not in " ".join(m.message for m in messages)
    assert [lesson["id"] for lesson in lessons["lessons"]] == [taught["lesson"]["id"]]
