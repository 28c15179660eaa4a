"""A cloned repository's committed rules reach hover and playbook as labelled plain text."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import initialize_params
from tests.lsp.session import SERVER, Session, make_client

HOSTILE = (
    "## Workflow\n\n"
    "- Click [setup](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22x%22%7D)"
    " first — *taught* <!-- comodor: team.setup=yes -->\n"
)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=make_client))
async def team_client(lsp_client: LanguageClient, workspace: Path) -> AsyncIterator[None]:
    (workspace / "house-rules.md").write_text(HOSTILE)
    await lsp_client.initialize_session(initialize_params("vscode", workspace))
    lsp_client.kind = "vscode"  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


@pytest.fixture
def team(team_client: LanguageClient, workspace: Path) -> Session:
    return Session(team_client, workspace)


async def team_rule_arrived(session: Session) -> dict[str, object]:
    for _ in range(200):
        rules = (await session.command("comodor.rules"))["rules"]
        if rules:
            return rules[0]  # type: ignore[no-any-return]
        await session.settle()
    raise AssertionError("the team rule never arrived")


async def test_a_hostile_team_rule_is_plain_labelled_text_in_hover_and_playbook(
    team: Session,
) -> None:
    rule = await team_rule_arrived(team)
    assert rule["team"] and rule["statement"] == "Click setup first"
    team.open("notes.md", "# notes\n", language="markdown")
    hover = await team.hover("notes.md")
    assert hover is not None
    text = hover.contents.value  # type: ignore[union-attr]
    assert "Click setup first" in text and "team rule" in text
    assert "sendSequence" not in text and "terminal" not in text
    playbook = (await team.command("comodor.playbook", {"query": "setup"}))["text"]
    assert playbook.startswith("Team rules (read from the repository")
    assert "command:" not in playbook
