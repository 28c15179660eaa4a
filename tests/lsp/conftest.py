"""A real ``comodor-lsp serve`` process per test, as VS Code or as Neovim would start it.

The server's answers depend on the client in a few places only: hover (command links for
VS Code), code actions and their edits (resolve support, document changes) and the
configuration pull. Tests whose checks differ there (a module, or a single test) are
marked ``every_client`` and run once per client; every other test runs once, as one of the
two (chosen by its name, so both clients keep being exercised across the suite). Tests that
only need *a* server that stays up, not a fresh one, share one per module
(:func:`shared_session`).
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


def one_client_for(name: str) -> str:
    """The client a test (or a module's shared server) plays, picked by its name."""
    kinds = list(CLIENTS)
    return kinds[zlib.crc32(name.encode()) % len(kinds)]


def client_kinds(test: pytest.Function) -> list[str]:
    """The clients ``test`` runs as: both where marked ``every_client``, else one by its name.

    ``COMODOR_EVERY_CLIENT=1`` runs every test as both: after changing how the server reads
    the client's capabilities, it checks that the marks still cover every difference.
    """
    if test.get_closest_marker("every_client") or os.environ.get("COMODOR_EVERY_CLIENT") == "1":
        return list(CLIENTS)
    return [one_client_for(test.name)]


async def initialize_as(lsp_client: LanguageClient, kind: str, workspace: Path) -> None:
    """Initialize ``lsp_client``'s server as the ``kind`` of editor would, on ``workspace``."""
    result = await lsp_client.initialize_session(initialize_params(kind, workspace))
    lsp_client.init_result = result  # type: ignore[attr-defined]
    lsp_client.kind = kind  # type: ignore[attr-defined]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "client" in metafunc.fixturenames:
        metafunc.parametrize("client", client_kinds(metafunc.definition), indirect=True)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=make_client))
async def client(
    request: pytest.FixtureRequest, lsp_client: LanguageClient, workspace: Path
) -> AsyncIterator[None]:
    await initialize_as(lsp_client, request.param, workspace)
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
    client the module's name picks (:func:`one_client_for`).
    """
    workspace = tmp_path_factory.mktemp("ws").resolve()
    home = tmp_path_factory.mktemp("home")
    lsp_client = make_client()
    await lsp_client.start_io(*SERVER, env={**os.environ, "COMODOR_HOME": str(home)})
    await initialize_as(lsp_client, one_client_for(request.module.__name__), workspace)
    try:
        yield Session(lsp_client, workspace)
    finally:
        await lsp_client.shutdown_session()
        await lsp_client.stop()
