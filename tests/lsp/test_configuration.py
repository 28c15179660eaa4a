"""Configuration: initializationOptions, then workspace settings on top, field by field."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import initialize_params
from tests.lsp.session import SERVER, Session, make_client

pytestmark = pytest.mark.every_client  # the answer depends on the client's capabilities


async def change_configuration(session: Session, value: dict[str, object]) -> None:
    session.client.set_configuration(value, section="comodor")
    session.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings=None)
    )
    await session.settle()


async def test_a_changed_setting_is_pulled_and_applied(session: Session) -> None:
    for number in range(4):
        await session.command(
            "comodor.teach", {"text": f"testing {number}: run case {number}", "pinned": False}
        )
    assert (
        len((await session.command("comodor.playbook", {"query": "testing run"}))["lessons"]) == 4
    )
    await change_configuration(session, {"learning": {"topK": 2}})
    assert (
        len((await session.command("comodor.playbook", {"query": "testing run"}))["lessons"]) == 2
    )


async def test_learning_off_stops_recall_but_keeps_what_was_learned(session: Session) -> None:
    await session.command("comodor.teach", {"text": "testing: run pytest"})
    await change_configuration(session, {"learning": {"enabled": False}})
    assert (await session.command("comodor.playbook", {"query": "testing"}))["text"] == ""
    await change_configuration(session, {"learning": {"enabled": True}})
    assert "run pytest" in (await session.command("comodor.playbook", {"query": "testing"}))["text"]


async def test_workspace_settings_cannot_move_the_brain_or_turn_on_the_network(
    session: Session, tmp_path: Path
) -> None:
    before = (await session.command("comodor.stats"))["brainPath"]
    await change_configuration(
        session,
        {
            "brainPath": str(tmp_path / "stolen.db"),
            "reflect": {"enabled": True, "endpoint": "http://127.0.0.1:9/v1", "model": "x"},
        },
    )
    assert (await session.command("comodor.stats"))["brainPath"] == before
    assert not (tmp_path / "stolen.db").exists()


async def test_a_wrong_setting_is_ignored_and_the_rest_applies(session: Session) -> None:
    await session.command("comodor.teach", {"text": "a: one", "pinned": False})
    await session.command("comodor.teach", {"text": "a: two", "pinned": False})
    await change_configuration(session, {"learning": {"topK": "many", "maxPlaybookTokens": 60}})
    playbook = await session.command("comodor.playbook", {"query": "a one two"})
    assert len(playbook["lessons"]) >= 1  # topK stayed at its default
    assert playbook["tokens"] <= 60 + 80  # the rules block has its own budget


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=make_client))
async def custom_brain_client(lsp_client: LanguageClient, workspace: Path, tmp_path: Path):  # type: ignore[no-untyped-def]
    options = {"brainPath": str(tmp_path / "elsewhere" / "mine.db")}
    await lsp_client.initialize_session(initialize_params("neovim", workspace, options))
    yield
    await lsp_client.shutdown_session()


async def test_initialization_options_may_choose_the_brain(
    custom_brain_client: LanguageClient, workspace: Path, tmp_path: Path
) -> None:
    session = Session(custom_brain_client, workspace)
    stats = await session.command("comodor.stats")
    assert stats["brainPath"] == str(tmp_path / "elsewhere" / "mine.db")
    assert (tmp_path / "elsewhere" / "mine.db").exists()
