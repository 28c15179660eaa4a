"""A thin helper layer over Playwright for driving VS Code (code-server) like a person does.

Everything goes through the keyboard, the mouse and what is on screen: the command palette,
Quick Open, typing in the editor, Ctrl+S, hovering a word, reading notification toasts and tree
rows. No VS Code internals are called, so a passing test means a user could do the same.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from playwright.sync_api import Locator, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

QUICK_INPUT = ".quick-input-widget"
QUICK_INPUT_BOX = ".quick-input-widget .quick-input-box input"
QUICK_ROW = ".quick-input-widget .quick-input-list .monaco-list-row"
TOAST = ".notifications-toasts .notification-toast"
EDITOR = ".editor-instance .monaco-editor"


class VSCodeUI:
    """Drives one code-server page. `artifacts` is where screenshots go."""

    def __init__(self, page: Page, artifacts: Path) -> None:
        self.page = page
        self.artifacts = artifacts
        self.artifacts.mkdir(parents=True, exist_ok=True)
        self.shots: list[Path] = []

    # ---- workbench -------------------------------------------------------------------------

    def wait_for_workbench(self, timeout_s: float = 60) -> None:
        self.page.wait_for_selector(".monaco-workbench", timeout=timeout_s * 1000)
        # The status bar is drawn last; once it is there, key bindings are live.
        self.page.wait_for_selector(".part.statusbar", timeout=timeout_s * 1000)

    def screenshot(self, name: str) -> Path:
        path = self.artifacts / f"{len(self.shots) + 1:02d}-{name}.png"
        self.page.screenshot(path=str(path))
        self.shots.append(path)
        return path

    # ---- command palette and quick input -----------------------------------------------------

    def run_command(self, title: str, timeout_s: float = 15) -> None:
        """Open the palette, type the command's title, and run the matching entry."""
        self.page.keyboard.press("Escape")
        self.page.keyboard.press("F1")
        box = self.page.locator(QUICK_INPUT_BOX)
        box.wait_for(state="visible", timeout=timeout_s * 1000)
        box.fill(f">{title}")
        row = self.page.locator(
            QUICK_ROW,
            has=self.page.locator(".label-name", has_text=re.compile(rf"^{re.escape(title)}$")),
        )
        row.first.wait_for(state="visible", timeout=timeout_s * 1000)
        # Select the exact entry (fuzzy matching may rank a longer title first).
        row.first.click()

    def answer_input(self, text: str, timeout_s: float = 15) -> None:
        """Type into the input box a command opened (showInputBox) and press Enter."""
        box = self.page.locator(QUICK_INPUT_BOX)
        box.wait_for(state="visible", timeout=timeout_s * 1000)
        box.fill("")
        box.type(text)
        self.page.keyboard.press("Enter")
        self.page.locator(QUICK_INPUT).wait_for(state="hidden", timeout=timeout_s * 1000)

    def open_file(self, name: str, timeout_s: float = 20) -> None:
        """Ctrl+P, type the file name, Enter; wait until its tab is active.

        Quick Open searches a file list it refreshes from file events: a file written
        a moment ago may not be in it yet, so the search is asked again until it is.
        """
        deadline = time.monotonic() + timeout_s
        while True:
            self.page.keyboard.press("Escape")
            self.page.keyboard.press("Control+P")
            box = self.page.locator(QUICK_INPUT_BOX)
            box.wait_for(state="visible", timeout=timeout_s * 1000)
            box.fill(name)
            row = self.page.locator(QUICK_ROW, has_text=name).first
            try:
                row.wait_for(state="visible", timeout=3000)
                break
            except PlaywrightTimeout:
                if time.monotonic() > deadline:
                    raise
        self.page.keyboard.press("Enter")
        self.page.locator(".tabs-container .tab.active", has_text=name).wait_for(
            timeout=timeout_s * 1000
        )
        self.page.locator(f"{EDITOR} .view-lines").first.wait_for(timeout=timeout_s * 1000)

    def switch_to_tab(self, name: str, timeout_s: float = 10) -> None:
        """Click an open editor's tab; wait until it is the active one."""
        self.page.locator(".tabs-container .tab", has_text=name).first.click()
        self.page.locator(".tabs-container .tab.active", has_text=name).wait_for(
            timeout=timeout_s * 1000
        )

    # ---- editor ----------------------------------------------------------------------------

    def focus_editor(self) -> None:
        self.page.locator(f"{EDITOR} .view-lines").first.click()

    def go_to_line(self, line: int) -> None:
        self.page.keyboard.press("Control+G")
        box = self.page.locator(QUICK_INPUT_BOX)
        box.wait_for(state="visible")
        box.fill(f":{line}")
        self.page.keyboard.press("Enter")
        self.page.locator(QUICK_INPUT).wait_for(state="hidden")

    def go_to(self, line: int, column: int) -> None:
        """Ctrl+G ``line:column`` (both 1-based): put the cursor there."""
        self.page.keyboard.press("Control+G")
        box = self.page.locator(QUICK_INPUT_BOX)
        box.wait_for(state="visible")
        box.fill(f":{line}:{column}")
        self.page.keyboard.press("Enter")
        self.page.locator(QUICK_INPUT).wait_for(state="hidden")

    def squiggles(self, severity: str = "info") -> Locator:
        """The diagnostics' wavy underlines Monaco draws in the visible editor lines."""
        return self.page.locator(f"{EDITOR} .squiggly-{severity}")

    def quick_fix_menu(self, timeout_s: float = 10) -> Locator:
        """Ctrl+. at the cursor; the code action menu that opens."""
        self.page.keyboard.press("Control+.")
        menu = self.page.locator(".action-widget").first
        menu.wait_for(state="visible", timeout=timeout_s * 1000)
        return menu

    def retype_line(self, line: int, text: str) -> None:
        """Replace a line's text (after its indentation) by typing it, key by key."""
        self.go_to_line(line)
        self.page.keyboard.press("Home")  # first non-blank character
        self.page.keyboard.press("Shift+End")
        self.page.keyboard.type(text.strip(), delay=5)

    def type_text(self, text: str) -> None:
        self.page.keyboard.type(text, delay=5)

    def save(self) -> None:
        self.page.keyboard.press("Control+S")
        # The dirty dot on the active tab goes away once the save finished.
        self.page.locator(".tabs-container .tab.active.dirty").wait_for(
            state="detached", timeout=10_000
        )

    def editor_text(self) -> str:
        """The visible lines as text (Monaco renders spaces as no-break spaces)."""
        text = self.page.locator(f"{EDITOR} .view-lines").first.inner_text()
        return text.replace("\xa0", " ")

    # ---- hover -----------------------------------------------------------------------------

    def word_rect(self, word: str) -> dict[str, float]:
        """Screen rectangle of the first occurrence of `word` in the visible editor lines.

        Monaco re-renders token spans often, so a span locator may have no box; a DOM Range
        over the text node gives the glyphs' real position.
        """
        rect = self.page.evaluate(
            """(word) => {
                const lines = document.querySelectorAll(
                    '.editor-instance .monaco-editor .view-lines .view-line');
                for (const line of lines) {
                    const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
                    let node;
                    while ((node = walker.nextNode())) {
                        const i = node.textContent.indexOf(word);
                        if (i >= 0) {
                            const range = document.createRange();
                            range.setStart(node, i);
                            range.setEnd(node, i + word.length);
                            const r = range.getBoundingClientRect();
                            return {x: r.x, y: r.y, width: r.width, height: r.height};
                        }
                    }
                }
                return null;
            }""",
            word,
        )
        if not rect:
            raise AssertionError(f"{word!r} is not visible in the editor")
        return rect

    def hover_word(self, word: str, expect_text: str, timeout_s: float = 10) -> Locator:
        """Move the mouse onto `word` and wait for a hover containing `expect_text`."""
        hover = self.page.locator(".monaco-hover", has_text=expect_text).first
        for _attempt in range(3):
            r = self.word_rect(word)
            y = r["y"] + r["height"] / 2
            # Two moves: Monaco starts its hover timer on mousemove inside the word.
            self.page.mouse.move(r["x"] + 2, y)
            self.page.mouse.move(r["x"] + min(8, r["width"] - 1), y)
            try:
                hover.wait_for(state="visible", timeout=timeout_s * 1000 / 3)
                self.page.wait_for_timeout(400)  # the hover fades in; let the screenshot show it
                return hover
            except PlaywrightTimeout:
                self.page.mouse.move(5, 5)
        raise AssertionError(f"no hover with {expect_text!r} over {word!r}")

    # ---- notifications -----------------------------------------------------------------------

    def wait_for_toast(
        self, text: str | re.Pattern[str], timeout_s: float = 30, center_fallback: bool = True
    ) -> Locator:
        """Wait for a notification toast. VS Code sometimes files a notification straight into
        the notification centre (e.g. depending on focus, or after its toast timed out); with
        `center_fallback` we then look there, as a user clicking the bell would."""
        toast = self.page.locator(TOAST, has_text=text).first
        try:
            toast.wait_for(state="visible", timeout=timeout_s * 1000)
        except PlaywrightTimeout:
            if not center_fallback:
                raise
            self.run_command("Notifications: Show Notifications")
            item = self.page.locator(
                ".notifications-center .notification-list-item", has_text=text
            ).first
            item.wait_for(state="visible", timeout=5000)
            print(f"[vscode_ui] notification {text!r} was in the notification centre, not a toast")
            return item
        self.page.wait_for_timeout(400)  # toasts slide and fade in; let screenshots show them
        return toast

    def toast_texts(self) -> list[str]:
        """Messages of all notifications, shown as toasts or sitting in the notification centre."""
        message = ".notification-list-item-message"
        selector = f"{TOAST} {message}, .notifications-center {message}"
        return self.page.locator(selector).all_inner_texts()

    def click_toast_button(self, toast: Locator, label: str) -> None:
        toast.locator(".monaco-button", has_text=label).first.click()

    # ---- views -------------------------------------------------------------------------------

    def view_pane(self, title: str) -> Locator:
        return self.page.locator(
            ".pane", has=self.page.locator(".pane-header", has_text=title)
        ).first

    def tree_rows(self, title: str) -> Locator:
        return self.view_pane(title).locator(".monaco-list-row")

    def wait_for_tree_row(
        self, view_title: str, text: str | re.Pattern[str], timeout_s: float = 15
    ) -> Locator:
        row = self.tree_rows(view_title).filter(has_text=text).first
        row.wait_for(state="visible", timeout=timeout_s * 1000)
        return row

    def status_item(self, text: str | re.Pattern[str]) -> Locator:
        return self.page.locator(".part.statusbar .statusbar-item", has_text=text).first

    def wait_until(
        self, predicate, timeout_s: float = 10, interval_s: float = 0.2, what: str = "condition"
    ) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if predicate():
                return
            time.sleep(interval_s)
        raise AssertionError(f"timed out waiting for {what}")
