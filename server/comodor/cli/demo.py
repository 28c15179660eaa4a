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
import tempfile
from pathlib import Path

from ..brain.lessons.markdown import instruction
from ..testing import Editor

AGENT_FILES = {
    "greet.py": 'def greet(name):\n    message = "hello, " + name\n    return message\n',
    "config.py": 'DEFAULT_NAME = "world"\nGREETING = "hello"\n',
}
USER_FIXES = {name: text.replace('"', "'") for name, text in AGENT_FILES.items()}


def _indent(text: str) -> str:
    return "\n".join("   " + line if line else "" for line in text.splitlines())


async def _play(workspace: Path) -> None:
    editor = await Editor.launch(
        workspace, options={"learning": {"prefetchDelayMs": 50}}, name="comodor-demo"
    )
    try:
        print("1. The user teaches a lesson from the command palette:")
        taught = await editor.command(
            "comodor.teach", {"text": "running the tests: use pytest -q -p no:cacheprovider"}
        )
        lesson = taught["lesson"]
        print(f"   lesson #{lesson['id']}: {instruction(lesson['trigger'], lesson['guidance'])}\n")

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
        (learned,) = await editor.wait_memory("rule", timeout=15)
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
        print(_indent(await editor.hover_text("greet.py")) + "\n")

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
