"""A small LSP client that drives a real ``comodor-lsp serve`` subprocess for benchmarks.

Benchmarks must measure the server a user runs, not an in-process shortcut, so this
plays the editor and the agent over stdio exactly as ``comodor-lsp demo`` does: open,
save (with text), run commands, collect ``comodor/memory`` notifications. The server
runs with ``COMODOR_HOME`` pointing at a throw-away folder, and with this checkout's
``server/`` first on ``PYTHONPATH`` so the code under test is the code in the tree.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import time
from pathlib import Path
from typing import Any

from comodor_lsp.lsp.plain import plain
from lsprotocol import types
from pygls.lsp.client import LanguageClient

SERVER_SOURCE = Path(__file__).resolve().parents[1] / "server"
LANGUAGE_IDS = {".py": "python", ".ts": "typescript", ".js": "javascript"}


def server_env(home: Path) -> dict[str, str]:
    """The environment of the server process: a private brain and this checkout's code."""
    env = dict(os.environ)
    env["COMODOR_HOME"] = str(home)
    previous = env.get("PYTHONPATH", "")
    env["PYTHONPATH"] = os.pathsep.join(part for part in (str(SERVER_SOURCE), previous) if part)
    return env


class BenchClient:
    """Just enough of an editor and an agent to replay a user's day against the server."""

    def __init__(self, workspace: Path, home: Path, options: dict[str, Any] | None = None) -> None:
        self.workspace = workspace
        self.home = home
        self.options = options or {}
        self.client = LanguageClient("comodor-bench", "1")
        self.memory: list[dict[str, Any]] = []
        self.versions: dict[str, int] = {}
        self.stderr_tail: list[str] = []
        self._drain: asyncio.Task[None] | None = None

        @self.client.feature("comodor/memory")  # type: ignore[untyped-decorator]
        def on_memory(params: Any) -> None:
            self.memory.append(plain(params))

    async def start(self) -> None:
        await self.client.start_io(
            sys.executable, "-m", "comodor_lsp", "serve", env=server_env(self.home)
        )
        process = getattr(self.client, "_server", None)
        if process is not None and process.stderr is not None:
            self._drain = asyncio.create_task(self._read_stderr(process.stderr))
        await self.client.initialize_async(
            types.InitializeParams(
                capabilities=types.ClientCapabilities(),
                client_info=types.ClientInfo(name="comodor-bench"),
                workspace_folders=[
                    types.WorkspaceFolder(uri=self.workspace.as_uri(), name="bench")
                ],
                initialization_options=self.options,
            )
        )
        self.client.initialized(types.InitializedParams())

    async def _read_stderr(self, stream: asyncio.StreamReader) -> None:
        """Keep the server's stderr pipe from filling up; remember its last lines."""
        while True:
            line = await stream.readline()
            if not line:
                return
            self.stderr_tail = [*self.stderr_tail[-19:], line.decode(errors="replace").rstrip()]

    async def stop(self) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.client.shutdown_async(None), 10)
            self.client.exit(None)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.client.stop(), 10)  # type: ignore[no-untyped-call]
        if self._drain is not None:
            self._drain.cancel()

    async def command(self, name: str, argument: dict[str, Any] | None = None) -> Any:
        result = await self.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=name, arguments=[argument or {}])
        )
        return plain(result)

    def uri(self, name: str) -> str:
        return (self.workspace / name).resolve().as_uri()

    def _language(self, name: str) -> str:
        return LANGUAGE_IDS.get(Path(name).suffix, "plaintext")

    async def agent_edit(self, name: str, text: str) -> None:
        """The agent writes ``text`` and says so (``comodor.agentEdit``)."""
        path = self.workspace / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        await self.command("comodor.agentEdit", {"uri": self.uri(name), "text": text})

    async def agent_write_to_disk(self, name: str, text: str, timeout: float = 15.0) -> None:
        """The agent writes straight to disk, like a terminal agent; wait for the watcher."""
        before = (await self.command("comodor.stats"))["agentWrites"]
        path = self.workspace / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        deadline = time.monotonic() + timeout
        while (await self.command("comodor.stats"))["agentWrites"] <= before:
            if time.monotonic() > deadline:
                raise TimeoutError(f"the watcher did not report the agent's write of {name}")
            await asyncio.sleep(0.05)

    def open(self, name: str, text: str) -> None:
        uri = self.uri(name)
        self.versions[uri] = 1
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id=self._language(name), version=1, text=text
                )
            )
        )

    def close(self, name: str) -> None:
        self.client.text_document_did_close(
            types.DidCloseTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=self.uri(name))
            )
        )

    def save(self, name: str, text: str) -> None:
        """The editor writes the file, then reports the save with its text."""
        (self.workspace / name).write_text(text)
        self.client.text_document_did_save(
            types.DidSaveTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=self.uri(name)), text=text
            )
        )

    async def settle(self) -> dict[str, Any]:
        """A round trip: the server has processed everything sent before it."""
        return await self.command("comodor.stats")  # type: ignore[no-any-return]

    async def rules(self) -> list[dict[str, Any]]:
        return (await self.command("comodor.rules", {"includeUnconfident": True}))["rules"]  # type: ignore[no-any-return]


@contextlib.asynccontextmanager
async def running_server(workspace: Path, home: Path, options: dict[str, Any] | None = None) -> Any:
    """Start a server on ``workspace`` with its brain in ``home``; always stop it."""
    client = BenchClient(workspace, home, options)
    await client.start()
    try:
        yield client
    finally:
        await client.stop()
