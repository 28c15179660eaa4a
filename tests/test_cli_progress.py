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


def test_svg_and_html_files_hold_the_same_verdicts_and_stand_alone(
    workspace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import xml.etree.ElementTree as ET

    expected = _seed_a_regression(workspace)
    svg, html = tmp_path / "out" / "progress.svg", tmp_path / "out" / "progress.html"
    svg.parent.mkdir()
    svg.write_text("an older chart")  # replaced whole
    argv = ["progress", "--workspace", str(workspace), "--svg", str(svg), "--html", str(html)]
    assert cli.main(argv) == 0
    printed = capsys.readouterr()
    assert printed.out.splitlines() == [f"wrote {svg}", f"wrote {html}"] and printed.err == ""
    root = ET.fromstring(svg.read_text(encoding="utf-8"))
    drawn = " ".join("".join(node.itertext()) for node in root.iter())
    steps = next(s for s in expected["series"] if s["key"] == "steps")  # type: ignore[attr-defined]
    assert steps["verdict"] in drawn and "task" in drawn and "steps per task" in drawn
    page = html.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and str(expected["headline"]) in page
    assert "var(" not in page and "<script" not in page
    assert sorted(path.name for path in svg.parent.iterdir()) == ["progress.html", "progress.svg"]


@pytest.mark.parametrize(
    ("target", "said"),
    [
        ("missing/chart.svg", "the folder {base}/missing does not exist"),
        (".", "{base} is a folder"),
        ("a-file/chart.svg", "the folder {base}/a-file does not exist"),
        ("", "the chart's file name is empty"),
    ],
)
def test_a_chart_path_that_cannot_be_written_is_one_line_exit_1_and_nothing_written(
    workspace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], target: str, said: str
) -> None:
    base = tmp_path / "charts"
    base.mkdir()
    (base / "a-file").write_text("not a folder")
    home = Path(os.environ["COMODOR_HOME"])
    before = sorted(p.name for p in base.rglob("*")), sorted(p.name for p in home.rglob("*"))
    raw = str(base / target) if target else ""
    for flag in ("--svg", "--html"):
        assert cli.main(["progress", "--workspace", str(workspace), flag, raw]) == 1
        printed = capsys.readouterr()
        assert printed.out == ""
        assert printed.err.count("\n") == 1 and "Traceback" not in printed.err
        assert printed.err.startswith(f"comodor-lsp: {flag}: {said.format(base=base)}")
        after = sorted(p.name for p in base.rglob("*")), sorted(p.name for p in home.rglob("*"))
        assert after == before  # no chart, no temporary file, not even a brain opened


def test_a_file_name_the_system_refuses_is_said_before_anything_runs(
    workspace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = tmp_path / "charts"
    base.mkdir()
    too_long = base / ("x" * 300 + ".svg")  # the folder is fine; the name is not
    assert cli.main(["progress", "--workspace", str(workspace), "--svg", str(too_long)]) == 1
    printed = capsys.readouterr()
    assert printed.out == "" and printed.err.count("\n") == 1
    assert printed.err == f"comodor-lsp: --svg: cannot use {too_long}: File name too long; " + (
        "choose another path\n"
    )
    assert list(base.iterdir()) == []
