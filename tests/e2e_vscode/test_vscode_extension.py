"""The Comodor extension in a real VS Code, driven like a person would, against the real server.

Run: `PYTHONPATH=server pytest tests/e2e_vscode -m editor` (installs what it needs with
scripts/install-vscode-e2e.sh on first use). Screenshots: test-artifacts/vscode/<test>/.
"""

from __future__ import annotations

import json
import re
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from comodor_lsp import __version__

from .conftest import VSCodeSession
from .vscode_ui import VSCodeUI

pytestmark = [pytest.mark.editor, pytest.mark.slow]


def _broken_server(tmp_path: Path) -> Path:
    """A `comodor-lsp` that says the right name and version but dies at start, like a server
    with a broken install."""
    exe = tmp_path / "broken-bin" / "comodor-lsp"
    exe.parent.mkdir()
    exe.write_text(
        "#!/bin/sh\n"
        f'[ "$1" = --version ] && echo "comodor-lsp {__version__}" && exit 0\n'
        "echo 'comodor-lsp: cannot open the brain (simulated start failure)' >&2\nexit 3\n"
    )
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return exe


@pytest.mark.parametrize("case", ["server-crashes-at-start", "server-path-missing"])
def test_extension_activates_and_explains_a_server_that_cannot_start(
    case: str, tmp_path: Path, vscode_factory: Callable[..., VSCodeSession]
) -> None:
    """Harness smoke test, and real behaviour: when the server cannot start, the user gets one
    clear error with the fixes and an Open Settings button that leads to the setting."""
    if case == "server-crashes-at-start":
        server_path = str(_broken_server(tmp_path))
        expected = re.compile(
            r"The Comodor language server \(.*comodor-lsp serve\) failed to start"
        )
    else:
        server_path = str(tmp_path / "no-such-dir" / "python3")
        expected = re.compile(
            r"comodor\.server\.path is set to .*, which is not an executable file"
        )
    t0 = time.monotonic()
    vs = vscode_factory(settings={"comodor.server.path": server_path})
    ui = vs.ui

    toast = ui.wait_for_toast(expected, timeout_s=45)
    ui.screenshot("start-error-toast")
    for button in ("Use the Bundled Server", "Open Settings", "Show Output"):
        assert toast.locator(".monaco-button", has_text=button).count() == 1, button

    # The activity bar container and the status bar item are there: the extension activated.
    assert (
        ui.page.locator(".activitybar .action-item .action-label[aria-label^='Comodor']").count()
        == 1
    )
    ui.status_item("Comodor").wait_for(state="visible")

    # The House Rules view explains the state instead of showing an empty list.
    ui.page.locator(".activitybar .action-label[aria-label^='Comodor']").click()
    ui.view_pane("House Rules").get_by_text("isn't running").first.wait_for(state="visible")
    ui.screenshot("views-explain-server-down")

    # Open Settings lands on comodor.server.path.
    toast = ui.wait_for_toast(expected)
    ui.click_toast_button(toast, "Open Settings")
    ui.page.locator(
        ".settings-editor .setting-item-contents", has_text="Server: Path"
    ).first.wait_for(state="visible")
    ui.screenshot("settings-server-path")
    print(
        f"[e2e-vscode] {case}: {time.monotonic() - t0:.1f}s (launch {vs.timings})", file=sys.stderr
    )


def test_pypis_other_comodor_is_refused_and_the_bundled_server_is_one_click_away(
    other_comodor: Path, vscode_factory: Callable[..., VSCodeSession]
) -> None:
    """A user who followed an old hint has PyPI's `comodor` (a coding agent whose `serve` is an
    HTTP server) in comodor.server.path: the extension asks it who it is, refuses it, and
    "Use the Bundled Server" gets a working server without typing anything."""
    # Where the Settings editor puts a machine-scoped setting in a remote window (code-server).
    vs = vscode_factory(machine_settings={"comodor.server.path": str(other_comodor)})
    ui = vs.ui
    toast = ui.wait_for_toast(
        re.compile(r"which is not the Comodor language server: .*printed “comodor 2\.0\.1”"),
        timeout_s=45,
    )
    ui.screenshot("other-comodor-refused")
    ui.click_toast_button(toast, "Use the Bundled Server")
    ui.status_item(re.compile(r"\b0 rules\b")).wait_for(state="visible", timeout=60_000)
    ui.screenshot("bundled-server-running")
    # The choice is kept: the setting is gone, so the next window starts the bundled server too.
    machine = json.loads((vs.root / "ud" / "Machine" / "settings.json").read_text() or "{}")
    assert "comodor.server.path" not in machine, machine
    out = vs.comodor_output()
    assert re.search(r"Starting \S+ -I \S+/bundled/tool/launch\.py serve --stdio", out), out
    assert f"The server is comodor-lsp {__version__}" in out


# ---- helpers for the scenario -------------------------------------------------------------

# Sixteen earlier tasks in this project (steps taken, success), so the dashboard has real series
# from the real server to draw, and enough of them for its test to find the fall in steps
# significant. Written through the server's own app, like `comodor-lsp mcp` would.
SEED_HISTORY = """
import sys
from pathlib import Path
from comodor_lsp.app import ComodorApp

app = ComodorApp(Path(sys.argv[1]))
for number, (steps, success) in enumerate(
    [(14, False), (12, True), (13, False), (11, True), (14, True), (12, False), (13, True),
     (12, True), (6, True), (5, True), (6, True), (4, True), (5, True), (6, True), (5, True),
     (4, True)]
):
    task = app.execute("comodor.beginTask", {"goal": f"earlier task {number}"})
    app.execute("comodor.endTask", {"taskId": task["taskId"], "success": success, "steps": steps})
print(app.execute("comodor.progress", {})["headline"])
app.close()
"""


def _seed_history(headline: list[str]) -> Callable[[Path, dict[str, str]], None]:
    def seed(workspace: Path, env: dict[str, str]) -> None:
        done = subprocess.run(
            [sys.executable, "-c", SEED_HISTORY, str(workspace)],
            env={**env, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "server")},
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        headline.append(done.stdout.strip().splitlines()[-1])

    return seed


def wait_for_status(
    ui: VSCodeUI, pattern: str, timeout_s: float = 20, screenshot: str | None = None
) -> str:
    """Run "Comodor: Show Status" (the server's comodor.stats, in words) until its message
    matches `pattern`; screenshot the one that matched, dismiss each, return the text."""
    deadline = time.monotonic() + timeout_s
    while True:
        ui.run_command("Comodor: Show Status")
        toast = ui.wait_for_toast(re.compile(r"Seen: \d+ edits? by your assistant"), timeout_s=10)
        text = toast.locator(".notification-list-item-message").first.inner_text()
        matched = re.search(pattern, text) is not None
        if matched and screenshot:
            ui.screenshot(screenshot)
        ui.run_command("Notifications: Clear All Notifications")
        if matched:
            return text
        if time.monotonic() > deadline:
            raise AssertionError(f"Comodor status never matched {pattern!r}; last: {text!r}")
        time.sleep(0.3)


def _traced(output: str, header: str, kind: str) -> list[Any]:
    """JSON payloads that vscode-languageclient's verbose trace logged after `header`."""
    found = []
    for block in output.split("[Trace - ")[1:]:
        first, _, rest = block.partition("\n")
        if header in first and rest.startswith(f"{kind}: "):
            found.append(json.loads(rest[len(kind) + 2 :].strip()))
    return found


# ---- the scenario -------------------------------------------------------------------


def test_user_corrects_quotes_twice_and_sees_house_rule(
    vscode_factory: Callable[..., VSCodeSession],
) -> None:
    """Issue 5, end to end in VS Code with the real server: teach a rule, let an agent write two
    files, correct their quotes by typing, save, and see the learned rule everywhere.

    Installed as a user would (issue 18): the VSIX into a fresh profile, comodor.server.path
    unset, and only a plain Python with no Comodor on PATH; the server is the bundled one."""
    t0 = time.monotonic()
    marks: dict[str, float] = {}

    def mark(step: str) -> None:
        marks[step] = round(time.monotonic() - t0, 1)

    headline: list[str] = []
    vs = vscode_factory(
        settings={
            "comodor.trace.server": "verbose",
            "editor.codeActionsOnSave": {"source.fixAll.comodor": "explicit"},
        },
        before_start=_seed_history(headline),
    )
    ui = vs.ui
    mark("workbench")

    # 1. The extension activates and starts the server: the status bar counts the rules.
    ui.status_item(re.compile(r"\b0 rules\b")).wait_for(state="visible", timeout=60_000)
    ui.page.locator(".activitybar .action-label[aria-label^='Comodor']").click()
    ui.view_pane("House Rules").get_by_text("No house rules yet").wait_for(state="visible")
    ui.screenshot("server-running")
    mark("server running")
    # The Python the extension chose (code-server's extension host resolves PATH from a login
    # shell, so it may be the system's rather than the bare virtualenv) has no Comodor at all.
    started = re.search(r"Starting (\S+) -I \S+/bundled/tool/launch\.py serve", vs.comodor_output())
    assert started, vs.comodor_output()
    bare = subprocess.run(
        [started.group(1), "-I", "-c", "import comodor_lsp"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "No module named 'comodor_lsp'" in bare.stderr, (started.group(1), bare)

    # The settings reached the server: the answer to its pull of section `comodor` has the
    # same shape as initializationOptions (client-only keys left out).
    out = vs.comodor_output()
    init = _traced(out, "Sending request 'initialize", "Params")[0]["initializationOptions"]
    pulled = [r[0] for r in _traced(out, "Sending response 'workspace/configuration", "Result")]
    assert pulled and all(p == init for p in pulled), (init, pulled)
    # Defaults are not sent (the server has the same ones, and the user's settings file must
    # not be hidden by them); nothing is set in this profile, so nothing is sent.
    assert init == {}, init
    assert not {"server", "trace", "brainPath"} & set(init)
    # The extension shows comodor/memory itself, and says so: no showMessage duplicates.
    capabilities = _traced(out, "Sending request 'initialize", "Params")[0]["capabilities"]
    assert capabilities["experimental"]["comodorMemory"] is True

    # 2. Teach a house rule from the palette; the House Rules view lists it.
    ui.run_command("Comodor: Teach a House Rule")
    ui.answer_input("Use pathlib for file paths.")
    ui.wait_for_toast("House rule added: Use pathlib for file paths.")
    row = ui.wait_for_tree_row("House Rules", "Use pathlib for file paths.")
    assert "taught by you" in row.inner_text()
    ui.status_item(re.compile(r"\b1 rule\b")).wait_for(state="visible")
    ui.screenshot("rule-taught")
    mark("rule taught")

    # 3. An agent outside the editor writes two files, once the server's watcher is ready.
    ui.run_command("Notifications: Clear All Notifications")
    wait_for_status(ui, r"^Comodor is watching this workspace", screenshot="watcher-ready")
    agent_files = {
        "greet.py": 'def greet(name):\n    return "Hello, " + name\n\n\nprint(greet("world"))\n',
        "config.py": 'MODE = "debug"\nNAME = "comodor"\n',
    }
    for name, text in agent_files.items():
        (vs.workspace / name).write_text(text)
    status = wait_for_status(ui, r"Seen: 2 edits by your assistant", screenshot="agent-wrote")
    assert "0 corrections" in status, status
    mark("agent wrote 2 files")

    # 4. The user opens each file (Ctrl+P), retypes the lines with double quotes using single
    #    quotes (select the line's text, type), and saves with Ctrl+S.
    for name, text in agent_files.items():
        ui.open_file(name)
        ui.focus_editor()
        for number, line in enumerate(text.splitlines(), start=1):
            if '"' in line:
                ui.retype_line(number, line.replace('"', "'"))
        ui.save()
        assert (vs.workspace / name).read_text() == text.replace('"', "'")
        ui.screenshot(f"corrected-{name}")
    mark("2 corrections saved")

    # 5. Comodor announces the rule it learned, once; the taught rule is not "learned".
    toast = ui.wait_for_toast(
        "Learned: Use single quotes for strings. — from 2 of your corrections", timeout_s=30
    )
    assert toast.locator(".monaco-button", has_text="Forget").count() == 1
    ui.screenshot("learned-toast")
    messages = ui.toast_texts()
    assert sum("Learned:" in m for m in messages) == 1, messages
    # Once: the extension declares experimental.comodorMemory, so the server does not also
    # announce the rule with showMessage.
    assert not [m for m in messages if "Comodor learned a house rule" in m], messages
    mark("learned toast")

    # 6. Hovering a line shows the house rules, rendered: the title, the statements, the evidence,
    #    and Forget/Pin links that VS Code trusts (plain text if it did not).
    hover = ui.hover_word("NAME", "House rules")
    assert hover.locator("strong", has_text="House rules").count() >= 1, "markdown not rendered"
    quotes = hover.locator("li", has_text="Use single quotes for strings.")
    assert "2 corrections · 100% agree" in quotes.inner_text()
    assert "taught by you" in hover.locator("li", has_text="Use pathlib").inner_text()
    ui.screenshot("hover-house-rules")
    pin = quotes.locator("a", has_text=re.compile(r"^Pin$"))
    assert pin.count() == 1, quotes.inner_html()
    pin.click()
    ui.page.locator(".part.statusbar", has_text="Pinned the house rule").wait_for(state="visible")
    ui.page.keyboard.press("Escape")
    mark("hover")

    # 7. The House Rules view lists both rules with their evidence (the learned one now pinned).
    ui.run_command("Comodor: Focus on House Rules View")
    row = ui.wait_for_tree_row("House Rules", "Use single quotes for strings.")
    ui.wait_until(lambda: "pinned" in row.inner_text(), what="the pin to show in the view")
    assert "2 corrections · 100% agree · python" in row.inner_text()
    ui.wait_for_tree_row("House Rules", "Use pathlib for file paths.")
    ui.wait_for_tree_row("Recent Corrections", "config.py")
    ui.wait_for_tree_row("Recent Corrections", "greet.py")
    ui.status_item(re.compile(r"\b2 rules\b")).wait_for(state="visible")
    ui.screenshot("house-rules-view")
    mark("house rules view")

    # 8. Show Progress opens the dashboard with the server's headline and its charts.
    ui.run_command("Comodor: Show Progress")
    ui.page.locator(".tabs-container .tab", has_text="Comodor Progress").wait_for(state="visible")
    frame = ui.page.frame_locator("iframe.webview.ready").frame_locator("iframe")
    frame.locator(".headline", has_text=headline[0]).wait_for(state="visible")
    assert headline[0].startswith("Steps per task down"), headline
    # The server's standalone SVGs (comodor.progressChart), shown as images.
    assert frame.locator("img.chart").count() >= 1
    assert "Active house rules" in frame.locator(".stats").inner_text()
    ui.screenshot("progress-dashboard")
    mark("progress dashboard")

    # A settings change in the Settings editor reaches the server (it pulls `comodor` again).
    ui.run_command("Preferences: Open Settings (UI)")
    ui.page.locator(".settings-editor").wait_for(state="visible")
    ui.page.keyboard.type("comodor.learning.topK")
    top_k = (
        ui.page.locator(".settings-editor .setting-item-contents", has_text="Top K")
        .locator("input")
        .first
    )
    top_k.wait_for(state="visible")
    top_k.fill("9")
    ui.page.keyboard.press("Tab")
    ui.wait_until(
        lambda: any(
            r[0].get("learning", {}).get("topK") == 9
            for r in _traced(vs.comodor_output(), "Sending response 'workspace/config", "Result")
        ),
        timeout_s=20,
        what="the server to pull the changed setting",
    )
    mark("settings re-pulled")

    # 9. The agent writes another file with double quotes: opened, it shows a Comodor squiggle
    #    under each string, and the Problems panel lists them with the rule's words.
    ui.page.locator(".tabs-container .tab", has_text="greet.py").first.click()  # leave Settings
    ui.focus_editor()
    ui.run_command("Notifications: Clear All Notifications")
    report = 'TITLE = "Quarterly report"\nOWNER = "finance"\nprint(TITLE, OWNER)\n'
    (vs.workspace / "report.py").write_text(report)
    wait_for_status(ui, r"Seen: 3 edits by your assistant")
    ui.open_file("report.py")
    squiggles = ui.squiggles("info")
    ui.wait_until(lambda: squiggles.count() == 2, timeout_s=20, what="two Comodor squiggles")
    ui.screenshot("diagnostics-squiggles")
    ui.page.keyboard.press("Control+Shift+M")
    problem = ui.page.locator(
        ".markers-panel .monaco-list-row", has_text="Use single quotes for strings."
    )
    problem.first.wait_for(state="visible", timeout=15_000)
    assert problem.count() == 2 and "comodor" in problem.first.inner_text()
    ui.screenshot("problems-panel")
    ui.page.keyboard.press("Control+Shift+M")
    mark("diagnostics shown")

    # 10. Ctrl+. inside the first string offers the quick fix and fix-all; the quick fix mends
    #     that string only, and its squiggle clears.
    ui.focus_editor()
    ui.go_to(1, 12)
    menu = ui.quick_fix_menu()
    fix = menu.locator(".monaco-list-row", has_text="Use single quotes")
    fix.first.wait_for(state="visible")
    assert menu.locator(".monaco-list-row", has_text="Fix all Comodor issues").count() >= 1
    assert menu.locator(".monaco-list-row", has_text="Not here").count() == 1
    ui.screenshot("quick-fix-menu")
    assert "focused" in (fix.first.get_attribute("class") or "")  # the preferred fix, first
    ui.page.keyboard.press("Enter")
    ui.wait_until(lambda: squiggles.count() == 1, timeout_s=15, what="the fixed squiggle to clear")
    assert "TITLE = 'Quarterly report'" in ui.editor_text()
    assert 'OWNER = "finance"' in ui.editor_text()
    ui.screenshot("quick-fix-applied")
    mark("quick fix")

    # 11. Saving runs source.fixAll.comodor (editor.codeActionsOnSave): the file follows the
    #     rule, every squiggle is gone, and the fixed agent file counted as one more correction.
    ui.save()
    ui.wait_until(
        lambda: (vs.workspace / "report.py").read_text() == report.replace('"', "'"),
        timeout_s=15,
        what="the save to apply fix-all",
    )
    ui.wait_until(lambda: squiggles.count() == 0, timeout_s=15, what="every squiggle to clear")
    ui.screenshot("fixed-on-save")
    wait_for_status(ui, r"\b3 corrections\b")
    mark("fix-all on save")

    # 12. "Comodor: Fix all Comodor issues" from the palette mends a file in one go.
    (vs.workspace / "notes.py").write_text('NOTE = "draft"\nLABEL = "todo"\n')
    wait_for_status(ui, r"Seen: 4 edits by your assistant")
    ui.open_file("notes.py")
    ui.wait_until(lambda: squiggles.count() == 2, timeout_s=20, what="the squiggles of notes.py")
    ui.run_command("Comodor: Fix all Comodor issues")
    ui.wait_until(lambda: squiggles.count() == 0, timeout_s=15, what="fix-all to clear them")
    assert "NOTE = 'draft'" in ui.editor_text() and "LABEL = 'todo'" in ui.editor_text()
    ui.screenshot("fix-all-from-palette")
    mark("fix-all command")

    timings = {"launch": vs.timings, "steps_s": marks}
    (ui.artifacts / "timings.json").write_text(json.dumps(timings, indent=2))
    print(f"[e2e-vscode] scenario: {json.dumps(timings)}", file=sys.stderr)
