"""One helper for the language-server boundary, so tests read as behaviour, not plumbing.

``Session`` wraps a pytest-lsp client: it runs commands and checks every result
against ``schemas/``, collects ``comodor/memory`` notifications, and opens,
edits and saves documents in a real workspace folder.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from functools import cache
from pathlib import Path
from typing import Any, Union

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


def _read_code_actions_right(client: LanguageClient) -> None:
    """lsprotocol reads every code action result with a ``command`` key as a Command, but a
    CodeAction may carry a command too (``{title, kind, command: {title, command}}``), as
    LSP allows and VS Code and Neovim read it; tell the two apart by the key's type."""
    converter = client.protocol._converter

    def structure(value: Any, _: type) -> types.Command | types.CodeAction:
        kind = types.Command if isinstance(value.get("command"), str) else types.CodeAction
        return converter.structure(value, kind)  # type: ignore[no-any-return]

    converter.register_structure_hook(
        Union[types.Command, types.CodeAction],  # noqa: UP007 - the exact type lsprotocol uses
        structure,
    )


def make_client() -> LanguageClient:
    client = make_test_lsp_client()
    _read_code_actions_right(client)
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

    async def wait_diagnostics(
        self, relative: str, until: Any = None, timeout: float = 10.0
    ) -> list[types.Diagnostic]:
        """Wait for published diagnostics of ``relative`` for which ``until(list)`` holds.

        Without ``until``: the first list published at all (possibly empty).
        """
        uri = self.uri(relative)
        deadline = time.monotonic() + timeout
        while True:
            published = self.client.diagnostics.get(uri)
            if published is not None and (until is None or until(published)):
                return list(published)
            if time.monotonic() > deadline:
                raise AssertionError(f"diagnostics of {relative} never matched; last: {published}")
            await asyncio.sleep(0.02)

    async def code_actions(
        self,
        relative: str,
        diagnostics: list[types.Diagnostic],
        only: list[str] | None = None,
    ) -> list[types.CodeAction]:
        """The code actions for ``diagnostics`` (the range of the first, or line 0)."""
        where = (
            diagnostics[0].range
            if diagnostics
            else types.Range(start=types.Position(0, 0), end=types.Position(0, 0))
        )
        result = await self.client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=self.uri(relative)),
                range=where,
                context=types.CodeActionContext(
                    diagnostics=diagnostics,
                    only=only,  # type: ignore[arg-type]
                ),
            )
        )
        return [action for action in result or [] if isinstance(action, types.CodeAction)]


def edits_of(edit: types.WorkspaceEdit | None) -> list[types.TextEdit]:
    """The text edits of a workspace edit for one document (either form LSP allows)."""
    assert edit is not None
    if edit.document_changes:
        return [e for change in edit.document_changes for e in change.edits]  # type: ignore[union-attr]
    assert edit.changes is not None
    return [e for edits in edit.changes.values() for e in edits]


def apply_edits(text: str, edits: list[types.TextEdit]) -> str:
    """Apply non-overlapping LSP text edits (ASCII text: characters are code units)."""
    lines = text.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)

    def offset(position: types.Position) -> int:
        return starts[position.line] + position.character

    for edit in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
        start, end = offset(edit.range.start), offset(edit.range.end)
        text = text[:start] + edit.new_text + text[end:]
    return text
