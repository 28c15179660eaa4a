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
from comodor_lsp.lsp.plain import plain
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


class Session:
    """A real server process, a real workspace folder, and a client speaking to it."""

    def __init__(self, client: LanguageClient, workspace: Path) -> None:
        self.client = client
        self.workspace = workspace
        self.versions: dict[str, int] = {}

    @property
    def kind(self) -> str:
        """Which editor this client plays: ``vscode`` or ``neovim``."""
        return self.client.kind  # type: ignore[attr-defined,no-any-return]

    @property
    def memory(self) -> list[dict[str, Any]]:
        return self.client.memory  # type: ignore[attr-defined,no-any-return]

    async def command(self, name: str, argument: Any = None, *, raw: bool = False) -> Any:
        arguments = [] if argument is None and raw else [argument if argument is not None else {}]
        result = await self.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=name, arguments=arguments)
        )
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

    def uri(self, relative: str) -> str:
        return (self.workspace / relative).resolve().as_uri()

    def open(self, relative: str, text: str | None = None, language: str = "python") -> str:
        uri = self.uri(relative)
        if text is None:
            text = (self.workspace / relative).read_text()
        self.versions[uri] = 1
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id=language, version=1, text=text
                )
            )
        )
        return uri

    def replace_all(self, relative: str, text: str) -> None:
        """The user edits the whole buffer (as a full-text change)."""
        uri = self.uri(relative)
        self.versions[uri] = self.versions.get(uri, 1) + 1
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=uri, version=self.versions[uri]
                ),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )

    def type_at(self, relative: str, line: int, text: str) -> None:
        """The user types ``text`` at the start of ``line`` (an incremental change)."""
        uri = self.uri(relative)
        self.versions[uri] = self.versions.get(uri, 1) + 1
        position = types.Position(line=line, character=0)
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=uri, version=self.versions[uri]
                ),
                content_changes=[
                    types.TextDocumentContentChangePartial(
                        range=types.Range(start=position, end=position), text=text
                    )
                ],
            )
        )

    def save(self, relative: str, text: str) -> None:
        """The editor writes the file and reports the save (with its text)."""
        (self.workspace / relative).write_text(text)
        self.client.text_document_did_save(
            types.DidSaveTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=self.uri(relative)), text=text
            )
        )

    async def hover(self, relative: str, line: int = 0) -> types.Hover | None:
        return await self.client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=self.uri(relative)),
                position=types.Position(line=line, character=0),
            )
        )

    async def wait_memory(
        self, action: str, timeout: float = 10.0, count: int = 1
    ) -> list[dict[str, Any]]:
        """Wait until ``count`` notifications with ``action`` arrived; return them."""
        deadline = time.monotonic() + timeout
        while True:
            found = [event for event in self.memory if event["action"] == action]
            if len(found) >= count:
                return found
            if time.monotonic() > deadline:
                seen = [event["action"] for event in self.memory]
                raise AssertionError(f"no {action!r} notification within {timeout}s; saw {seen}")
            await asyncio.sleep(0.02)

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

    async def settle(self) -> None:
        """Wait until the server has processed everything sent so far (a round trip)."""
        await self.command("comodor.stats")


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
