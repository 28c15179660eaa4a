"""A scripted editing session in real VS Code whose every action knows who made it.

The ground truth for bench/attribution.py and tests/e2e_vscode/test_attribution_session.py:
the user's actions go through Playwright's keyboard and mouse (typing, paste, undo/redo,
format on save with VS Code's built-in TypeScript formatter, rename symbol with F2, a snippet,
multi-cursor edits, Comodor's own quick fix and fix-all), the assistant's through the test
assistant extension (a multi-hunk `WorkspaceEdit` via its palette command, or an inline
completion the user accepts with Tab). Each action is recorded with its actor and kind; an
assistant's edit also with the document version it produced (the test extension reports it),
so the observed side can be matched edit by edit.

The observed side is what Comodor's extension said: its output channel's line for each
`comodor/assistantEdit` it sent ("An assistant's edit (<source>: <why>): <uri> version <n>",
logged right before the notice goes out), read from VS Code's log file on disk. After each
action the script notes how many such lines exist, so a wrong one is traced to the action
during (or just before) which it appeared.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from playwright.sync_api import TimeoutError as PlaywrightTimeout

from .conftest import VSCodeSession
from .vscode_ui import EDITOR, QUICK_INPUT, QUICK_INPUT_BOX, VSCodeUI

ATTRIBUTION = re.compile(r"An assistant's edit \((\S+): (.*)\): (\S+) version (\d+)\s*$", re.M)

SETTLE_S = 5.5
"""attribution.ts's SETTLE_MS (5 s) and a little: how long a tab must have been hidden before
an edit in it may be an assistant's. The user keeps working meanwhile (no idle sleep)."""

# The workspace: TypeScript for the formatter, rename and snippet; Python for Comodor's
# quotes rule (seeded as a committed team rule, so its quick fix and fix-all are offered
# from the start and nothing has to be learned first).
TEAM_RULES = (
    "# House rules\n\n"
    "- Use single quotes for strings — *python · 3 corrections · 100% agree* "
    "<!-- comodor: quotes.style=single lang=python -->\n"
)
SNIPPETS = {
    "Log a value": {
        "scope": "typescript",
        "prefix": "logv",
        "body": ["console.log('${1:value}', ${2:value});$0"],
        "description": "console.log a value",
    }
}
FILES: dict[str, str] = {
    "shapes.ts": "export function area(width: number, height: number): number {\n"
    "  return width * height;\n}\n",
    "notes.py": "TITLE = 'notes'\n",
    "main.py": "import notes\n\nprint(notes.TITLE)\n",
    ".comodor/house-rules.md": TEAM_RULES,
    ".vscode/project.code-snippets": json.dumps(SNIPPETS, indent=2),
}
SETTINGS: dict[str, Any] = {
    "workbench.editor.enablePreview": False,
    "workbench.editor.enablePreviewFromQuickOpen": False,
    "[typescript]": {
        "editor.formatOnSave": True,
        "editor.defaultFormatter": "vscode.typescript-language-features",
    },
    "typescript.format.semicolons": "insert",
    "typescript.tsserver.log": "off",
    "typescript.disableAutomaticTypeAcquisition": True,
    "editor.inlineSuggest.enabled": True,
    "workbench.secondarySideBar.defaultVisibility": "hidden",
}


@dataclass
class Action:
    """One thing someone did. `version` (assistant edits only) is the document version the
    edit produced; `seen` is how many attribution lines existed right after the action."""

    n: int
    actor: str  # "user" | "assistant"
    kind: str
    file: str
    source: str = "user"  # what a correct attribution says: "extension", "inline-completion"
    uri: str = ""
    version: int | None = None
    seen: int = 0
    secs: float = 0.0


@dataclass
class Record:
    """What one session did and what Comodor reported."""

    name: str
    host: str
    proposal: bool
    actions: list[Action] = field(default_factory=list)
    observed: list[dict[str, Any]] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "actions": [asdict(a) for a in self.actions]}


def attributions(vs: VSCodeSession) -> list[dict[str, Any]]:
    """Comodor's output-channel line for each edit it called an assistant's, parsed."""
    return [
        {"source": m[0], "why": m[1], "uri": m[2], "version": int(m[3])}
        for m in ATTRIBUTION.findall(vs.comodor_output())
    ]


class Script:
    """Drives the session and records every action. `assistant` is tests/e2e_vscode/
    test_assistant_edits.py's Assistant (its control folder), for the assistant's actions."""

    def __init__(self, vs: VSCodeSession, assistant: Any, record: Record) -> None:
        self.vs = vs
        self.ui: VSCodeUI = vs.ui
        self.page = vs.ui.page
        self.kb = vs.ui.page.keyboard
        self.assistant = assistant
        self.record = record
        self.accepted = 0
        self.counter = 0  # unique names for what the user types

    # ---- bookkeeping -----------------------------------------------------------------------

    def _act(self, actor: str, kind: str, file: str, do: Callable[[], Any], **extra: Any) -> Action:
        t0 = time.monotonic()
        result = do()
        action = Action(n=len(self.record.actions), actor=actor, kind=kind, file=file, **extra)
        if isinstance(result, dict):
            action.uri = result.get("uri", "")
            action.version = result.get("version")
        action.secs = round(time.monotonic() - t0, 2)
        action.seen = len(ATTRIBUTION.findall(self.vs.comodor_output()))
        self.record.actions.append(action)
        return action

    def user(self, kind: str, file: str, do: Callable[[], Any]) -> Action:
        return self._act("user", kind, file, do)

    def users(self) -> int:
        return sum(a.actor == "user" for a in self.record.actions)

    def uid(self) -> int:
        self.counter += 1
        return self.counter

    # ---- editor helpers ----------------------------------------------------------------------

    def show(self, name: str) -> None:
        if self.page.locator(".tabs-container .tab", has_text=name).count():
            self.ui.switch_to_tab(name)
        else:
            self.ui.open_file(name)
        self.ui.focus_editor()

    def text(self) -> str:
        return self.ui.editor_text()

    def wait_text(self, check: Callable[[str], bool], what: str, timeout_s: float = 15) -> None:
        self.ui.wait_until(lambda: check(self.text()), timeout_s=timeout_s, what=what)

    def _position(self) -> tuple[int, int]:
        """The cursor's line and column as the status bar shows them ("Ln 4, Col 7")."""
        text = self.page.locator("#status\\.editor\\.selection").first.inner_text()
        m = re.search(r"Ln (\d+), Col (\d+)", text)
        return (int(m[1]), int(m[2])) if m else (0, 0)

    def cursor_line(self) -> int:
        return self._position()[0]

    def cursor_column(self) -> int:
        return self._position()[1]

    def end_of_file(self) -> None:
        self.kb.press("Control+End")

    def palette(self, title: str) -> None:
        self.ui.run_command(title)

    # ---- the user's actions ------------------------------------------------------------------

    def type_line(self, file: str, line: str) -> None:
        """Type a new line at the end of the file, key by key."""

        def do() -> None:
            self.end_of_file()
            self.kb.press("Enter")
            self.kb.type(line, delay=3)
            self.wait_text(lambda t: line.strip() in t, f"{line!r} to appear")

        self.user("typing", file, do)

    def copy_paste_line(self, file: str) -> None:
        """Select the current last line, copy it, paste it on a new line below."""

        def do() -> None:
            self.end_of_file()
            self.kb.press("Home")
            self.kb.press("Shift+End")
            self.kb.press("Control+C")
            self.kb.press("End")
            line = self.cursor_line()
            self.kb.press("Enter")
            self.kb.press("Control+V")
            # The cursor ends on the next line, the copied text's end (not the line start).
            self.ui.wait_until(
                lambda: self.cursor_line() == line + 1 and self.cursor_column() > 1,
                what="the paste",
            )

        self.user("paste", file, do)

    def _press_until_changed(self, key: str, what: str) -> None:
        """Press *key* and wait for the text to change; once more if the press went nowhere.

        A key press now and then never reaches the editor (one run in ten or so: Ctrl+Z
        left the text as it was for 15 s, and the same session passed before and after).
        Whatever took it, a widget or the focus, the user would press again: close widgets,
        put the focus back in the editor if it left, press once more. Both presses are the
        user's, so the session's verdict is the same either way.
        """
        before = self.text()
        self.kb.press(key)
        try:
            self.wait_text(lambda t: t != before, what, timeout_s=5)
            return
        except AssertionError:
            self.ui.screenshot(f"lost-{key.replace('+', '-')}")
        self.kb.press("Escape")
        if not self.page.evaluate("!!document.activeElement?.closest('.monaco-editor')"):
            self.ui.focus_editor()
        self.kb.press(key)
        self.wait_text(lambda t: t != before, f"{what} (pressed twice)")

    def undo(self, file: str) -> None:
        self.user("undo", file, lambda: self._press_until_changed("Control+Z", "Ctrl+Z to undo"))

    def redo(self, file: str) -> None:
        self.user(
            "redo",
            file,
            lambda: self._press_until_changed("Control+Shift+Z", "Ctrl+Shift+Z to redo"),
        )

    def save_formatted(self, file: str, expect: str) -> None:
        """Ctrl+S in a TypeScript file: format on save (the built-in formatter) rewrites it."""

        def do() -> None:
            self.ui.save()
            path = self.vs.workspace / file
            self.ui.wait_until(lambda: expect in path.read_text(), what=f"{expect!r} on disk")

        self.user("format-on-save", file, do)

    def format_document(self, file: str, expect: str) -> None:
        """ "Format Document" from the palette (Shift+Alt+F opens the browser's menu bar in
        code-server) until the TypeScript server is up and the formatter answers."""

        def do() -> None:
            deadline = time.monotonic() + 60
            while True:
                self.ui.run_command("Format Document")
                try:
                    self.wait_text(lambda t: expect in t, "the formatter", timeout_s=3)
                    return
                except AssertionError:
                    if time.monotonic() > deadline:
                        raise

        self.user("format-command", file, do)

    def rename(self, file: str, line: int, column: int, old: str, new: str) -> None:
        """F2 on a symbol, type the new name, Enter: the built-in TypeScript rename."""

        def do() -> None:
            self.ui.go_to(line, column)
            self.kb.press("F2")
            box = self.page.locator(".rename-box input")
            box.wait_for(state="visible", timeout=30_000)
            box.fill(new)  # the rename box's own text, not the document's
            box.press("Enter")
            self.wait_text(lambda t: old not in t and new in t, f"{old} renamed to {new}")

        self.user("rename", file, do)

    def snippet(self, file: str) -> None:
        """Snippets: Insert Snippet → the workspace's "Log a value", then Escape."""

        def do() -> None:
            self.end_of_file()
            self.kb.press("Enter")
            before = self.text().count("console.log")
            self.ui.run_command("Snippets: Insert Snippet")
            box = self.page.locator(QUICK_INPUT_BOX)
            box.fill("Log a value")
            row = self.page.locator(".quick-input-list .monaco-list-row", has_text="Log a value")
            row.first.wait_for(state="visible")
            self.kb.press("Enter")
            self.page.locator(QUICK_INPUT).wait_for(state="hidden")
            self.wait_text(lambda t: t.count("console.log") > before, "the snippet")
            self.kb.press("Escape")

        self.user("snippet", file, do)

    def multi_cursor(self, file: str, lines: int, text: str) -> None:
        """Cursors on the last `lines` lines' starts (Ctrl+Alt+Up), type `text` at all of them."""

        def do() -> None:
            self.end_of_file()
            self.kb.press("Home")
            self.kb.press("Home")  # column 1 even when the line is indented
            for _ in range(lines - 1):
                self.kb.press("Shift+Alt+ArrowUp")
            mark = text.strip()
            before = self.text().count(mark)
            self.kb.type(text, delay=3)
            self.wait_text(lambda t: t.count(mark) >= before + lines, "multi-cursor typing")
            self.kb.press("Escape")

        self.user("multi-cursor", file, do)

    def quick_fix(self, file: str) -> None:
        """Type a double-quoted line in notes.py, wait for Comodor's squiggle, Ctrl+. → fix."""
        n = self.uid()
        line = f'LABEL_{n} = "label {n}"'
        self.type_line(file, line)

        def do() -> None:
            self.kb.press("End")
            self.kb.press("ArrowLeft")
            self.kb.press("ArrowLeft")
            # Until the server's diagnostic for the new line has arrived, Ctrl+. finds nothing.
            deadline = time.monotonic() + 20
            while True:
                menu = self.page.locator(".action-widget").first
                self.kb.press("Control+.")
                fix = menu.locator(".monaco-list-row", has_text="Use single quotes")
                try:
                    fix.first.wait_for(state="visible", timeout=2000)
                    break
                except PlaywrightTimeout:
                    self.kb.press("Escape")
                    if time.monotonic() > deadline:
                        raise
            if "focused" not in (fix.first.get_attribute("class") or ""):
                fix.first.hover()  # the mouse focuses a row; a click is taken by the menu's cover
            self.kb.press("Enter")
            self.wait_text(lambda t: f"LABEL_{n} = 'label {n}'" in t, "the quick fix")

        self.user("quick-fix", file, do)

    def fix_all(self, file: str) -> None:
        """Two double-quoted lines, then "Comodor: Fix all Comodor issues"."""
        names = [self.uid(), self.uid()]
        for n in names:
            self.type_line(file, f'NAME_{n} = "name {n}"')

        def do() -> None:
            squiggles = self.page.locator(f"{EDITOR} .squiggly-info")
            self.ui.wait_until(lambda: squiggles.count() >= 2, timeout_s=20, what="two squiggles")
            self.ui.run_command("Comodor: Fix all Comodor issues")
            self.wait_text(lambda t: all(f"NAME_{n} = 'name {n}'" in t for n in names), "fix-all")
            self.ui.focus_editor()

        self.user("fix-all", file, do)

    def save_plain(self, file: str) -> None:
        self.user("save", file, self.ui.save)

    # ---- the assistant's actions ---------------------------------------------------------------

    def assistant_edit(self, kind: str, file: str, hunks: list[dict[str, Any]], save: bool) -> None:
        path = self.vs.workspace / file

        def do() -> dict[str, Any]:
            result = self.assistant.edit(path, hunks, save=save)
            return {"uri": path.as_uri(), "version": result["after"]["version"]}

        self._act("assistant", kind, file, do, source="extension")

    def accept_completion(self, file: str, prefix: str, text: str) -> None:
        """The user types `prefix`; the assistant's ghost text appears; Tab accepts it."""

        def do() -> dict[str, Any]:
            self.end_of_file()
            self.kb.press("Enter")
            self.kb.type(prefix, delay=3)
            ghost = self.page.locator(f"{EDITOR} .ghost-text-decoration")
            ghost.first.wait_for(state="visible", timeout=15_000)
            self.kb.press("Tab")
            self.accepted += 1
            done = self.assistant.folder / f"accepted-{self.accepted}.json"
            self.ui.wait_until(done.exists, what="the acceptance to be reported")
            self.wait_text(lambda t: (prefix + text).strip() in t, "the accepted text")
            return dict(json.loads(done.read_text()))

        # Typing the prefix is the user's; only Tab's insertion is the assistant's edit.
        self._act("assistant", "inline-completion", file, do, source="inline-completion")

    # ---- whole sessions ------------------------------------------------------------------------

    def warm_up_typescript(self) -> None:
        """Open shapes.ts and make sure the TypeScript server formats (first Shift+Alt+F)."""
        self.show("shapes.ts")
        self.type_line("shapes.ts", "export const  unit=1")
        self.format_document("shapes.ts", "export const unit = 1")

    def typescript_round(self, r: int) -> None:
        """Typing, format on save, paste, undo/redo, snippet, multi-cursor, sometimes a rename."""
        f = "shapes.ts"
        self.show(f)
        n = self.uid()
        self.type_line(f, f"export function sum{n}(a:number,b:number){{")
        self.type_line(f, "  return a+b")
        self.type_line(f, "}")
        self.save_formatted(f, f"export function sum{n}(a: number, b: number) {{")
        self.type_line(f, f"export const total{n}=sum{n}(1,2)")
        self.copy_paste_line(f)
        self.undo(f)
        self.redo(f)
        self.undo(f)
        self.type_line(f, f"// note {n}")
        self.type_line(f, f"// more {n}")
        self.multi_cursor(f, 2, "// ")
        self.snippet(f)
        self.save_formatted(f, f"export const total{n} = sum{n}(1, 2);")
        if r % 2 == 0:
            new = f"add{n}"
            # The file was just saved; Monaco's DOM lists the lines in no set order.
            text = (self.vs.workspace / f).read_text()
            line = next(i for i, ln in enumerate(text.splitlines(), 1) if f"sum{n}(a" in ln)
            self.rename(f, line, len("export function ") + 2, f"sum{n}", new)
            self.save_formatted(f, f"function {new}(")

    def python_round(self, r: int) -> None:
        """Typing with single and double quotes, Comodor's quick fix and fix-all, paste, undo."""
        f = "notes.py"
        self.show(f)
        n = self.uid()
        self.type_line(f, f"COUNT_{n} = {n}")
        self.type_line(f, f"WORD_{n} = 'word {n}'")
        self.quick_fix(f)
        self.copy_paste_line(f)
        self.undo(f)
        self.redo(f)
        if r % 2 == 1:
            self.fix_all(f)
        self.type_line(f, f"# done {n}")
        self.multi_cursor(f, 2, "# ")
        self.undo(f)
        self.save_plain(f)


def hunks_for(path: Path, tag: str) -> list[dict[str, Any]]:
    """Two hunks far apart in `path`: replace the first line's end and append at the end,
    as an assistant's multi-hunk WorkspaceEdit does."""
    lines = path.read_text().splitlines()
    last = len(lines)
    return [
        {"line": 0, "character": len(lines[0]), "text": f"  # {tag}"},
        {"line": last, "character": 0, "text": f'\nASSISTANT_{tag} = "{tag}"\n'},
    ]
