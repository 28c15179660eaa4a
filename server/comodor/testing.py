"""One small LSP client for everything that drives a real server: demo, benchmarks, tests.

It plays the editor and the agent over stdio exactly as a user's editor would:
open, change, save (with text), hover, run commands, collect ``comodor/memory``
notifications. Benchmarks and the demo start their own server with
:meth:`Editor.launch`; the test suite wraps the client pytest-lsp manages (and
checks every result against ``schemas/`` on top, see ``tests/lsp/session.py``).
Nothing here is faked: it is the same protocol any editor speaks.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

LANGUAGE_IDS = {".py": "python", ".ts": "typescript", ".js": "javascript", ".md": "markdown"}
STDERR_LINES = 20


def plain(value: Any) -> Any:
    """``value`` with every namedtuple (how pygls hands over unknown params) a dict."""
    if hasattr(value, "_asdict"):
        return {key: plain(item) for key, item in value._asdict().items()}
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return value


def server_env(home: Path | None, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The server's environment: this one, with a private brain when ``home`` is given."""
    env = dict(os.environ)
    if home is not None:
        env["COMODOR_HOME"] = str(home)
    env.update(extra or {})
    return env


class Editor:
    """Just enough of an editor and an agent to talk to a real ``comodor-lsp serve``."""

    def __init__(
        self, workspace: Path, client: LanguageClient | None = None, *, name: str = "comodor-client"
    ) -> None:
        self.workspace = workspace
        self.client = client if client is not None else LanguageClient(name, "1")
        shared: list[dict[str, Any]] | None = getattr(self.client, "memory", None)
        self.memory: list[dict[str, Any]] = shared if shared is not None else []
        """The ``comodor/memory`` notifications so far (the managed client's own list, if any)."""
        self.arrivals: list[float] = []
        """``time.perf_counter()`` when each of :attr:`memory` arrived (for benchmarks)."""
        self.messages: list[str] = []
        """``window/showMessage`` texts the server sent (what an editor would pop up)."""
        self.versions: dict[str, int] = {}
        self.diagnostics: dict[str, list[types.Diagnostic]] = {}
        """The last diagnostics published for each document (a client of our own only)."""
        self.stderr_tail: list[str] = []
        self.initialize_result: types.InitializeResult | None = None
        self._drain: asyncio.Task[None] | None = None
        if client is None:

            @self.client.feature("comodor/memory")  # type: ignore[untyped-decorator]
            def on_memory(params: Any) -> None:
                self.arrivals.append(time.perf_counter())
                self.memory.append(plain(params))

            @self.client.feature(types.WINDOW_SHOW_MESSAGE)  # type: ignore[untyped-decorator]
            def on_message(params: types.ShowMessageParams) -> None:
                self.messages.append(params.message)

            @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)  # type: ignore[untyped-decorator]
            def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
                self.diagnostics[params.uri] = list(params.diagnostics)

    # -- a server of our own -------------------------------------------------------- #

    @classmethod
    async def launch(
        cls,
        workspace: Path,
        *,
        home: Path | None = None,
        options: dict[str, Any] | None = None,
        env: dict[str, str] | None = None,
        name: str = "comodor-client",
        capabilities: types.ClientCapabilities | None = None,
    ) -> Editor:
        """Start ``python -m comodor_lsp serve`` on ``workspace`` and initialize it.

        Unless told otherwise it declares ``experimental.comodorMemory`` (it shows the
        ``comodor/memory`` notifications itself), as the VS Code extension does.
        """
        editor = cls(workspace, name=name)
        await editor.client.start_io(
            sys.executable, "-m", "comodor_lsp", "serve", env=server_env(home, env)
        )
        process = getattr(editor.client, "_server", None)
        if process is not None and process.stderr is not None:
            editor._drain = asyncio.create_task(editor._read_stderr(process.stderr))
        editor.initialize_result = await editor.client.initialize_async(
            types.InitializeParams(
                capabilities=capabilities
                or types.ClientCapabilities(experimental={"comodorMemory": True}),
                client_info=types.ClientInfo(name=name),
                workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="ws")],
                initialization_options=options or {},
            )
        )
        editor.client.initialized(types.InitializedParams())
        return editor

    async def _read_stderr(self, stream: asyncio.StreamReader) -> None:
        """Keep the server's stderr pipe from filling up; remember its last lines."""
        while True:
            line = await stream.readline()
            if not line:
                return
            text = line.decode(errors="replace").rstrip()
            self.stderr_tail = [*self.stderr_tail[-(STDERR_LINES - 1) :], text]

    @property
    def pid(self) -> int | None:
        process = getattr(self.client, "_server", None)
        return process.pid if process is not None else None

    async def stop(self) -> None:
        """Shut the server down politely (shutdown, exit), and stop the client."""
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.client.shutdown_async(None), 10)
            self.client.exit(None)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.client.stop(), 10)  # type: ignore[no-untyped-call]
        if self._drain is not None:
            self._drain.cancel()

    # -- commands and notifications ---------------------------------------------------- #

    async def command(self, name: str, argument: Any = None, *, raw: bool = False) -> Any:
        """Run a protocol command with one argument (``{}`` by default; none when ``raw``)."""
        arguments = [] if argument is None and raw else [argument if argument is not None else {}]
        result = await self.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=name, arguments=arguments)
        )
        return plain(result)

    async def settle(self) -> Any:
        """A round trip: the server has processed everything sent before it."""
        return await self.command("comodor.stats")

    async def rules(self) -> list[dict[str, Any]]:
        """Every house rule the server holds, confident or not."""
        rules: list[dict[str, Any]] = (
            await self.command("comodor.rules", {"includeUnconfident": True})
        )["rules"]
        return rules

    async def wait_memory(
        self, action: str, timeout: float = 10.0, count: int = 1
    ) -> list[dict[str, Any]]:
        """Wait until ``count`` ``comodor/memory`` notifications with ``action`` arrived."""
        deadline = time.monotonic() + timeout
        while True:
            found = [event for event in self.memory if event.get("action") == action]
            if len(found) >= count:
                return found
            if time.monotonic() > deadline:
                seen = [event.get("action") for event in self.memory]
                raise AssertionError(f"no {action!r} notification within {timeout}s; saw {seen}")
            await asyncio.sleep(0.02)

    # -- documents -------------------------------------------------------------------- #

    def uri(self, relative: str) -> str:
        return (self.workspace / relative).resolve().as_uri()

    def open(self, relative: str, text: str | None = None, language: str | None = None) -> str:
        uri = self.uri(relative)
        if text is None:
            text = (self.workspace / relative).read_text()
        language = language or LANGUAGE_IDS.get(Path(relative).suffix, "plaintext")
        self.versions[uri] = 1
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id=language, version=1, text=text
                )
            )
        )
        return uri

    def _changed(self, relative: str, change: Any) -> None:
        uri = self.uri(relative)
        self.versions[uri] = self.versions.get(uri, 1) + 1
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=uri, version=self.versions[uri]
                ),
                content_changes=[change],
            )
        )

    def replace_all(self, relative: str, text: str) -> None:
        """The user edits the whole buffer (a full-text change)."""
        self._changed(relative, types.TextDocumentContentChangeWholeDocument(text=text))

    def type_at(self, relative: str, line: int, text: str) -> None:
        """The user types ``text`` at the start of ``line`` (an incremental change)."""
        position = types.Position(line=line, character=0)
        self._changed(
            relative,
            types.TextDocumentContentChangePartial(
                range=types.Range(start=position, end=position), text=text
            ),
        )

    def replace_lines(
        self, relative: str, text: str, hunks: Sequence[tuple[int, int, str]]
    ) -> tuple[str, list[dict[str, Any]]]:
        """Replace lines ``[start, end)`` of ``text`` by each hunk's text in one ``didChange``.

        The changes go bottom up, as VS Code sends a multi-hunk edit, so each applies to
        the text the one before left. Returns the new text and the LSP ranges where each
        hunk's text now stands (whole lines: a range ends at the start of the next line).
        """
        lines = text.split("\n")
        changes = [
            types.TextDocumentContentChangePartial(
                range=types.Range(
                    start=types.Position(line=start, character=0),
                    end=types.Position(line=end, character=0),
                ),
                text=new,
            )
            for start, end, new in sorted(hunks, reverse=True)
        ]
        result, ranges, offset = list(lines), [], 0
        for start, end, new in sorted(hunks):
            added = new.split("\n")[:-1]
            at = start + offset
            result[at : at + end - start] = added
            ranges.append(
                {
                    "start": {"line": at, "character": 0},
                    "end": {"line": at + len(added), "character": 0},
                }
            )
            offset += len(added) - (end - start)
        uri = self.uri(relative)
        self.versions[uri] = self.versions.get(uri, 1) + 1
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=uri, version=self.versions[uri]
                ),
                content_changes=list(changes),
            )
        )
        return "\n".join(result), ranges

    def assistant_edit_in_editor(
        self,
        relative: str,
        text: str,
        hunks: Sequence[tuple[int, int, str]],
        source: str = "chat-edit",
    ) -> str:
        """An assistant inside the editor applies ``hunks``, and the client says so.

        The hunks go as in :meth:`replace_lines`; then ``comodor/assistantEdit`` names
        the new version and the hunks' ranges. Returns the new text.
        """
        after, ranges = self.replace_lines(relative, text, hunks)
        uri = self.uri(relative)
        self.client.protocol.notify(
            "comodor/assistantEdit",
            {"uri": uri, "version": self.versions[uri], "source": source, "ranges": ranges},
        )
        return after

    def save(self, relative: str, text: str) -> None:
        """The editor writes the file, then reports the save with its text."""
        path = self.workspace / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        self.client.text_document_did_save(
            types.DidSaveTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=self.uri(relative)), text=text
            )
        )

    def close(self, relative: str) -> None:
        self.client.text_document_did_close(
            types.DidCloseTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=self.uri(relative))
            )
        )

    async def hover(self, relative: str, line: int = 0) -> types.Hover | None:
        result: types.Hover | None = await self.client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=self.uri(relative)),
                position=types.Position(line=line, character=0),
            )
        )
        return result

    async def hover_text(self, relative: str, line: int = 0) -> str:
        """The hover as the user reads it, or ``(no hover)``."""
        result = await self.hover(relative, line)
        if result is None:
            return "(no hover)"
        contents = result.contents
        return contents.value if isinstance(contents, types.MarkupContent) else str(contents)

    # -- the agent ---------------------------------------------------------------------- #

    async def agent_edit(self, relative: str, text: str) -> None:
        """The agent writes ``text`` and says so (``comodor.agentEdit``)."""
        path = self.workspace / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        await self.command("comodor.agentEdit", {"uri": self.uri(relative), "text": text})

    async def agent_write_to_disk(self, relative: str, text: str, timeout: float = 15.0) -> None:
        """The agent writes straight to disk, like a terminal agent; wait for the watcher."""
        before = (await self.command("comodor.stats"))["agentWrites"]
        path = self.workspace / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        deadline = time.monotonic() + timeout
        while (await self.command("comodor.stats"))["agentWrites"] <= before:
            if time.monotonic() > deadline:
                raise TimeoutError(f"the watcher did not report the agent's write of {relative}")
            await asyncio.sleep(0.05)


@contextlib.asynccontextmanager
async def running_server(
    workspace: Path,
    home: Path | None = None,
    options: dict[str, Any] | None = None,
    **launch: Any,
) -> AsyncIterator[Editor]:
    """A server on ``workspace`` (brain in ``home``) for the block; always stopped after."""
    editor = await Editor.launch(workspace, home=home, options=options, **launch)
    try:
        yield editor
    finally:
        await editor.stop()
