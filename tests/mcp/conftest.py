"""An MCP client session against a real ``comodor-lsp mcp`` process, beside a language server."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import pytest_lsp
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import initialize_params
from tests.lsp.session import ROOT, SERVER, Session, make_client


@asynccontextmanager
async def mcp_session(workspace: Path) -> AsyncIterator[ClientSession]:
    """``python -m comodor-lsp mcp --workspace`` on this test's brain ($COMODOR_HOME)."""
    # An MCP client starts servers with a minimal environment: only what it is told.
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "comodor_lsp", "mcp", "--workspace", str(workspace)],
        env={"COMODOR_HOME": os.environ["COMODOR_HOME"]},
        cwd=str(ROOT),
    )
    async with (
        stdio_client(server) as (read, write),
        ClientSession(read, write, read_timeout_seconds=60) as session,
    ):
        await session.initialize()
        yield session


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=make_client))
async def lsp_client_session(lsp_client: LanguageClient, workspace: Path) -> AsyncIterator[None]:
    await lsp_client.initialize_session(initialize_params("vscode", workspace))
    lsp_client.kind = "vscode"  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


@pytest.fixture
def lsp(lsp_client_session: LanguageClient, workspace: Path) -> Session:
    return Session(lsp_client_session, workspace)
