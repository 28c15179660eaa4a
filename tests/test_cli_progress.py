"""``comodor-lsp progress``: the editor's verdicts in a terminal, sparklines, ASCII fallback."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from comodor_lsp import cli
from comodor_lsp.app import ComodorApp
from comodor_lsp.cli.progress_text import can_print_unicode

ROOT = Path(__file__).resolve().parents[1]


def _seed_a_regression(workspace: Path) -> dict[str, object]:
    """Twelve quick tasks, then twelve slow ones; returns what an editor would be told."""
    app = ComodorApp(workspace)
    try:
        for number in range(24):
            task = app.execute("comodor.beginTask", {"goal": f"task {number}"})
            steps = 4 + number % 3 if number < 12 else 12 + number % 4
            app.execute(
                "comodor.endTask", {"taskId": task["taskId"], "success": True, "steps": steps}
            )
        result: dict[str, object] = app.execute("comodor.progress", {})
        return result
    finally:
        app.close()


def test_the_terminal_shows_the_same_verdicts_as_the_editor(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = _seed_a_regression(workspace)
    assert cli.main(["progress", "--workspace", str(workspace)]) == 0
    printed = capsys.readouterr().out
    assert expected["headline"] in printed
    assert str(expected["headline"]).startswith("Steps per task up ")
    steps = next(s for s in expected["series"] if s["key"] == "steps")  # type: ignore[attr-defined]
    row = next(line for line in printed.splitlines() if line.startswith("! Steps per task "))
    assert steps["sparkline"] in row and row.endswith(steps["verdict"])
    assert "Holm-corrected" in printed
    assert cli.main(["progress", "--workspace", str(workspace), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == expected


def test_ascii_is_forced_by_the_flag_and_chosen_for_a_terminal_that_is_not_utf8(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _seed_a_regression(workspace)
    assert cli.main(["progress", "--workspace", str(workspace), "--ascii"]) == 0
    printed = capsys.readouterr().out
    assert printed.isascii() and "up " in printed and "- worse" in printed
    assert not can_print_unicode(io.TextIOWrapper(io.BytesIO(), encoding="ascii"))
    assert can_print_unicode(io.TextIOWrapper(io.BytesIO(), encoding="utf-8"))
    env = {**os.environ, "PYTHONIOENCODING": "ascii", "PYTHONPATH": str(ROOT / "server")}
    done = subprocess.run(
        [sys.executable, "-m", "comodor_lsp", "progress", "--workspace", str(workspace)],
        capture_output=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.isascii() and b"Steps per task up " in done.stdout


def test_an_empty_project_says_not_yet(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["progress", "--workspace", str(workspace)]) == 0
    printed = capsys.readouterr().out
    assert "Not enough tasks yet: 0 tasks recorded" in printed
    assert "No tasks recorded yet." in printed
