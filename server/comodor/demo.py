"""``comodor-lsp demo``: the whole loop, end to end, through the real language server.

It starts ``comodor-lsp serve`` as a subprocess and plays both sides over LSP on a
temporary workspace: an agent writes Python files (straight to disk, as a
terminal agent would, and through ``comodor.agentEdit``), the user corrects the
quotes in two of them and saves, a task is begun and ended. Then it prints what
the server learned: the house rules with their evidence, the playbook for the
next request, the hover text and the progress headline. Nothing is faked; it is
the same protocol any editor speaks.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

from .lsp.plain import plain

AGENT_FILES = {
    "greet.py": 'def greet(name):\n    message = "hello, " + name\n    return message\n',
    "config.py": 'DEFAULT_NAME = "world"\nGREETING = "hello"\n',
}
USER_FIXES = {name: text.replace('"', "'") for name, text in AGENT_FILES.items()}


class DemoClient:
    """Just enough of an editor: open, save, hover, run commands, collect notifications."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace
        self.client = LanguageClient("comodor-demo", "1")
        self.memory: list[dict[str, Any]] = []

        @self.client.feature("comodor/memory")  # type: ignore[untyped-decorator]
        def on_memory(params: Any) -> None:
            self.memory.append(plain(params))

    async def start(self) -> None:
        await self.client.start_io(sys.executable, "-m", "comodor_lsp", "serve")
        await self.client.initialize_async(
            types.InitializeParams(
                capabilities=types.ClientCapabilities(),
                client_info=types.ClientInfo(name="comodor-demo"),
                workspace_folders=[types.WorkspaceFolder(uri=self.workspace.as_uri(), name="demo")],
                initialization_options={"learning": {"prefetchDelayMs": 50}},
            )
        )
        self.client.initialized(types.InitializedParams())

    async def stop(self) -> None:
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await self.client.stop()  # type: ignore[no-untyped-call]

    async def command(self, name: str, argument: dict[str, Any] | None = None) -> Any:
        return await self.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=name, arguments=[argument or {}])
        )

    def uri(self, name: str) -> str:
        return (self.workspace / name).as_uri()

    def open(self, name: str) -> None:
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=self.uri(name),
                    language_id="python",
                    version=1,
                    text=(self.workspace / name).read_text(),
                )
            )
        )

    def save(self, name: str, text: str) -> None:
        (self.workspace / name).write_text(text)
        self.client.text_document_did_save(
            types.DidSaveTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=self.uri(name)), text=text
            )
        )

    async def hover(self, name: str) -> str:
        result = await self.client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=self.uri(name)),
                position=types.Position(line=0, character=0),
            )
        )
        if result is None:
            return "(no hover)"
        contents = result.contents
        return contents.value if isinstance(contents, types.MarkupContent) else str(contents)

    async def wait_for(self, action: str, timeout: float = 15.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for event in self.memory:
                if event.get("action") == action:
                    return event
            await asyncio.sleep(0.05)
        raise TimeoutError(f"the server sent no {action!r} notification within {timeout:.0f} s")


def _indent(text: str) -> str:
    return "\n".join("   " + line if line else "" for line in text.splitlines())


async def _play(workspace: Path) -> None:
    editor = DemoClient(workspace)
    await editor.start()
    try:
        print("1. The user teaches a lesson from the command palette:")
        taught = await editor.command(
            "comodor.teach", {"text": "running the tests: use pytest -q -p no:cacheprovider"}
        )
        lesson = taught["lesson"]
        print(f"   lesson #{lesson['id']}: When {lesson['trigger']}: {lesson['guidance']}\n")

        print("2. A task begins; an agent writes two files:")
        task = await editor.command("comodor.beginTask", {"goal": "add a greeting module"})
        for name, text in AGENT_FILES.items():
            (workspace / name).write_text(text)
            await editor.command("comodor.agentEdit", {"uri": editor.uri(name), "text": text})
            print(f"   agent wrote {name} (double quotes)")
        await editor.command(
            "comodor.endTask",
            {"taskId": task["taskId"], "success": True, "steps": 4, "tokens": 1800},
        )
        print()

        print("3. The user opens both files, changes the quotes to single, and saves:")
        for name, text in USER_FIXES.items():
            editor.open(name)
            editor.save(name, text)
            print(f"   saved {name}")
        learned = await editor.wait_for("rule")
        for rule in learned["items"]:
            print(f"   -> Learned: {rule['statement']} — from {rule['evidence']}")
        print()

        print("4. House rules the server now holds:")
        for rule in (await editor.command("comodor.rules"))["rules"]:
            mark = "confident" if rule["confident"] else "not yet confident"
            print(
                f"   - {rule['statement']} [{rule['key']}={rule['value']}, "
                f"{rule['language'] or 'any language'}, {rule['evidence']}, {mark}]"
            )
        print()

        print("5. The playbook the assistant gets for its next request:")
        playbook = await editor.command("comodor.playbook", {"query": "run the tests"})
        print(_indent(playbook["text"]) + f"\n   ({playbook['tokens']} tokens)\n")

        print("6. Hovering in a Python file shows:")
        editor.open("greet.py")
        print(_indent(await editor.hover("greet.py")) + "\n")

        print("7. Progress:")
        progress = await editor.command("comodor.progress")
        print(f"   {progress['headline']}")
        stats = await editor.command("comodor.stats")
        print(
            f"   agent writes {stats['agentWrites']}, corrections {stats['corrections']}, "
            f"confident rules {stats['confidentRules']}, brain {stats['brainPath']}"
        )
    finally:
        await editor.stop()


def run_demo(keep: bool = False) -> int:
    folder = Path(tempfile.mkdtemp(prefix="comodor-demo-"))
    workspace = folder / "workspace"
    workspace.mkdir()
    previous = os.environ.get("COMODOR_HOME")
    os.environ["COMODOR_HOME"] = str(folder / "home")  # a throw-away brain, never the user's
    try:
        print(f"Comodor demo: a real `comodor-lsp serve` on a temporary workspace ({workspace})\n")
        asyncio.run(_play(workspace))
    finally:
        if previous is None:
            os.environ.pop("COMODOR_HOME", None)
        else:
            os.environ["COMODOR_HOME"] = previous
        if keep:
            print(f"\nKept {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)
    return 0
