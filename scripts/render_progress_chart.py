#!/usr/bin/env python3
"""Render README's progress picture, ``docs/progress-chart.svg`` (and ``.png``), from real tasks.

    .venv/bin/python scripts/render_progress_chart.py

Nothing in the picture is drawn by hand: 24 tasks run through the protocol's own
commands (``comodor.beginTask`` / ``comodor.endTask``, as an agent sends them) on a
fresh brain in a throwaway workspace, and the SVG is what ``comodor-lsp progress
--svg`` writes for it. The PNG is the same SVG rendered by headless Chromium (skipped
with a note when Playwright or Chromium is missing). The history is seeded, so a
second run writes the same files; ``tests/test_progress_chart.py`` checks that the
committed SVG is still what this script produces.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
TASKS = 24
CHROMIUM = os.environ.get("COMODOR_E2E_CHROMIUM", "/usr/bin/chromium")


def run_history(workspace: Path) -> None:
    """Twenty-four tasks of an assistant that learns the project: fewer steps, fewer asks."""
    from comodor_lsp.app import ComodorApp

    rng = random.Random(25)
    app = ComodorApp(workspace)
    try:
        for number in range(TASKS):
            progress = number / (TASKS - 1)  # 0 for the first task, 1 for the last
            task = app.execute("comodor.beginTask", {"goal": f"task {number + 1}"})
            app.execute(
                "comodor.endTask",
                {
                    "taskId": task["taskId"],
                    "success": rng.random() < 0.7 + 0.25 * progress,
                    "steps": max(2, round(rng.gauss(13 - 7 * progress, 1.6))),
                    "approvals": max(0, round(rng.gauss(2.5 - 2 * progress, 0.7))),
                    "tokens": max(500, round(rng.gauss(9000 - 4000 * progress, 900))),
                },
            )
    finally:
        app.close()


def render_svg(target: Path) -> None:
    """The history, on a fresh brain, through ``comodor-lsp progress --svg target``."""
    with tempfile.TemporaryDirectory(prefix="comodor-chart-") as scratch:
        home, workspace = Path(scratch) / "home", Path(scratch) / "workspace"
        home.mkdir()
        workspace.mkdir()
        previous = os.environ.get("COMODOR_HOME")
        os.environ["COMODOR_HOME"] = str(home)
        try:
            run_history(workspace)
        finally:
            if previous is None:
                os.environ.pop("COMODOR_HOME", None)
            else:
                os.environ["COMODOR_HOME"] = previous
        command = ["progress", "--workspace", str(workspace), "--svg", str(target)]
        subprocess.run(
            [sys.executable, "-m", "comodor_lsp", *command],
            env={**os.environ, "COMODOR_HOME": str(home)},
            check=True,
            stdout=subprocess.DEVNULL,
        )


def screenshot(svg: str, target: Path, scale: float = 2) -> None:
    """``svg`` as Chromium draws it on its own (an image, no page around it), as a PNG."""
    import base64
    import re

    from playwright.sync_api import sync_playwright

    found = re.search(r'viewBox="0 0 (\d+) (\d+)"', svg)
    if found is None:
        raise ValueError("the SVG has no viewBox")
    width, height = map(int, found.groups())
    data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            page = browser.new_page(
                viewport={"width": width, "height": height}, device_scale_factor=scale
            )
            page.set_content(
                '<html><body style="margin:0;background:#000">'
                f'<img src="data:image/svg+xml;base64,{data}"></body></html>'
            )
            page.screenshot(path=str(target))
        finally:
            browser.close()


def main() -> int:
    DOCS.mkdir(exist_ok=True)
    svg = DOCS / "progress-chart.svg"
    render_svg(svg)
    print(f"wrote {svg.relative_to(ROOT)}")
    try:
        screenshot(svg.read_text(encoding="utf-8"), DOCS / "progress-chart.png")
    except ImportError:
        print("no PNG: Playwright is missing (scripts/install-vscode-e2e.sh installs it)")
        return 0
    print(f"wrote {(DOCS / 'progress-chart.png').relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
