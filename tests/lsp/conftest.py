"""A real ``comodor-lsp serve`` process per test, as VS Code and as Neovim would start it."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.lsp.session import SERVER, Session, make_client

CLIENTS = {
    "vscode": ("visual-studio-code", "Visual Studio Code"),
    "neovim": ("neovim", "Neovim"),
}


def initialize_params(
    kind: str, workspace: Path, options: dict[str, Any] | None = None
) -> types.InitializeParams:
    preset, name = CLIENTS[kind]
    return types.InitializeParams(
        capabilities=client_capabilities(preset),
        client_info=types.ClientInfo(name=name),
        workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="ws")],
        root_uri=workspace.as_uri(),
        initialization_options=options
        if options is not None
        else {"learning": {"prefetchDelayMs": 50}},
    )


@pytest.fixture
def brain_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    return home


def server_config(brain_home: Path) -> ClientServerConfig:
    env = dict(os.environ)
    env["COMODOR_HOME"] = str(brain_home)
    return ClientServerConfig(server_command=SERVER, client_factory=make_client, server_env=env)


@pytest_lsp.fixture(
    params=list(CLIENTS),
    config=ClientServerConfig(server_command=SERVER, client_factory=make_client),
)
async def client(
    request: pytest.FixtureRequest, lsp_client: LanguageClient, workspace: Path
) -> AsyncIterator[None]:
    result = await lsp_client.initialize_session(initialize_params(request.param, workspace))
    lsp_client.init_result = result  # type: ignore[attr-defined]
    lsp_client.kind = request.param  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


@pytest.fixture
def session(client: LanguageClient, workspace: Path) -> Session:
    return Session(client, workspace)
