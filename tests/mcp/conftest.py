"""An MCP client session against a real ``comodor-lsp mcp`` process, beside a language server."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import pytest
import pytest_lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import initialize_params
from tests.lsp.session import ROOT, SERVER, Session, make_client

if TYPE_CHECKING:
    from mcp.client.session import ClientSession


@asynccontextmanager
async def mcp_session(
    workspace: Path, *, env: dict[str, str] | None = None, errlog: TextIO = sys.stderr
) -> AsyncIterator[ClientSession]:
    """``python -m comodor-lsp mcp --workspace`` on this test's brain ($COMODOR_HOME).

    The MCP SDK is imported here, not at the top: every worker imports this module when it
    collects, and the SDK costs half a second of CPU to import.
    """
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    # An MCP client starts servers with a minimal environment: only what it is told.
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "comodor_lsp", "mcp", "--workspace", str(workspace)],
        env={"COMODOR_HOME": os.environ["COMODOR_HOME"], **(env or {})},
        cwd=str(ROOT),
    )
    async with (
        stdio_client(server, errlog=errlog) as (read, write),
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
