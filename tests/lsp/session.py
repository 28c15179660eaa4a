"""One helper for the language-server boundary, so tests read as behaviour, not plumbing.

``Session`` wraps a pytest-lsp client: it runs commands and checks every result
against ``schemas/``, collects ``comodor/memory`` notifications, and opens,
edits and saves documents in a real workspace folder.
"""

from __future__ import annotations

import json
import sys
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
from comodor_lsp.testing import Editor, plain
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient, make_test_lsp_client

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "schemas"
SERVER = [sys.executable, "-m", "comodor_lsp", "serve", "--stdio"]


@cache
def schema(relative: str) -> dict[str, Any]:
    return json.loads((SCHEMAS / relative).read_text())


def check(relative: str, value: object) -> None:
    jsonschema.validate(value, schema(relative))


def make_client() -> LanguageClient:
    client = make_test_lsp_client()
    client.memory: list[dict[str, Any]] = []  # type: ignore[attr-defined]

    @client.feature("comodor/memory")
    def memory(params: Any) -> None:
        payload = plain(params)
        check("notifications/comodor-memory.json", payload)
        client.memory.append(payload)  # type: ignore[attr-defined]

    return client


class Session(Editor):
    """A real server process, a real workspace folder, and a client speaking to it.

    The project's one test client (:class:`comodor_lsp.testing.Editor`) around the
    client pytest-lsp manages, checking every command's result against ``schemas/``.
    """

    def __init__(self, client: LanguageClient, workspace: Path) -> None:
        super().__init__(workspace, client)

    @property
    def kind(self) -> str:
        """Which editor this client plays: ``vscode`` or ``neovim``."""
        return self.client.kind  # type: ignore[attr-defined,no-any-return]

    async def command(self, name: str, argument: Any = None, *, raw: bool = False) -> Any:
        result = await super().command(name, argument, raw=raw)
        check(f"commands/{name}.result.json", result)
        return result

    async def command_error(self, name: str, arguments: list[Any]) -> JsonRpcException:
        try:
            await self.client.workspace_execute_command_async(
                types.ExecuteCommandParams(command=name, arguments=arguments)
            )
        except JsonRpcException as error:
            return error
        raise AssertionError(f"{name} {arguments!r} did not fail")
