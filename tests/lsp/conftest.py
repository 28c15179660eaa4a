"""A real ``comodor-lsp serve`` process per test, as VS Code or as Neovim would start it.

The server's answers depend on the client in a few places only: hover (command links for
VS Code), code actions and their edits (resolve support, document changes) and the
configuration pull. Modules that test those mark themselves ``every_client`` and run each
test once per client; every other test runs once, as one of the two (chosen by its name, so
both clients keep being exercised across the suite). Tests that only need *a* server that
stays up, not a fresh one, share one per module (:func:`shared_session`).
"""

from __future__ import annotations

import os
import zlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
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


def client_kinds(test: pytest.Function) -> list[str]:
    """The clients ``test`` runs as: both where marked ``every_client``, else one by its name."""
    kinds = list(CLIENTS)
    if test.get_closest_marker("every_client"):
        return kinds
    return [kinds[zlib.crc32(test.name.encode()) % len(kinds)]]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "client" in metafunc.fixturenames:
        metafunc.parametrize("client", client_kinds(metafunc.definition), indirect=True)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=make_client))
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


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def shared_session(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Session]:
    """One real server for a whole module (its tests need ``loop_scope="module"``).

    For tests that need a server which stays up, not a fresh one: each compares what it
    reads before and after itself, so what earlier tests left behind does not matter, and
    the server surviving every test before is part of what they check. It plays the
    client the module's name picks (see :func:`client_kinds`).
    """
    workspace = tmp_path_factory.mktemp("ws").resolve()
    home = tmp_path_factory.mktemp("home")
    lsp_client = make_client()
    await lsp_client.start_io(*SERVER, env={**os.environ, "COMODOR_HOME": str(home)})
    kind = list(CLIENTS)[zlib.crc32(request.module.__name__.encode()) % len(CLIENTS)]
    result = await lsp_client.initialize_session(initialize_params(kind, workspace))
    lsp_client.init_result = result  # type: ignore[attr-defined]
    lsp_client.kind = kind  # type: ignore[attr-defined]
    try:
        yield Session(lsp_client, workspace)
    finally:
        await lsp_client.shutdown_session()
        await lsp_client.stop()
