"""Progress charts stand alone: axes from zero, task numbers, windows, the verdict, safe text."""

from __future__ import annotations

import copy
import importlib.util
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import attrs
import pytest
from comodor_lsp.app import ComodorApp
from comodor_lsp.progress_chart import (
    COLOURS,
    EARLY_FILL,
    LATE_FILL,
    comparison_svg,
    page_html,
    progress_svg,
    series_svg,
    x_ticks,
    y_ticks,
)

ROOT = Path(__file__).resolve().parents[1]
SVG = "{http://www.w3.org/2000/svg}"


def history(workspace: Path, tasks: int) -> dict[str, Any]:
    """``tasks`` real tasks through the protocol's commands: slow at first, then quick."""
    app = ComodorApp(workspace)
    try:
        for number in range(tasks):
            task = app.execute("comodor.beginTask", {"goal": f"task {number}"})
            steps = 12 + number % 4 if number < tasks // 2 else 5 + number % 3
            app.execute(
                "comodor.endTask",
                {"taskId": task["taskId"], "success": number % 7 != 3, "steps": steps},
            )
        result: dict[str, Any] = app.execute("comodor.progress", {})
        return result
    finally:
        app.close()


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)  # well-formed XML, or this raises
    assert root.tag == f"{SVG}svg"
    return root


def texts(root: ET.Element) -> list[str]:
    return ["".join(node.itertext()) for node in root.iter(f"{SVG}text")]


def assert_stands_alone(svg: str) -> None:
    """Nothing from outside the file: no CSS, no theme variables, no links, no scripts."""
    root = parse(svg)
    assert re.fullmatch(r"0 0 \d+ \d+", root.get("viewBox", ""))
    first = root.find(f"{SVG}rect")
    assert first is not None and first.get("fill") == "#ffffff"
    for pattern in ("var(", "<style", "style=", "class=", "href", "url(", "<script", "<image"):
        assert pattern not in svg, pattern
    assert all("sans-serif" in (node.get("font-family") or "") for node in root.iter(f"{SVG}text"))


@pytest.mark.parametrize("tasks", [0, 1, 2, 24])
def test_every_history_draws_a_standalone_picture(workspace: Path, tasks: int) -> None:
    result = history(workspace, tasks)
    whole = progress_svg(result)
    assert_stands_alone(whole)
    words = texts(parse(whole))
    assert f"Comodor progress: {tasks} task{'s' if tasks != 1 else ''}" in words
    assert result["method"][:40] in " ".join(words)
    if tasks == 0:
        assert result["series"] == [] and "No tasks recorded yet." in words
        assert "Not enough tasks yet: 0 tasks recorded," in " ".join(words)
    for series in result["series"]:
        chart = series_svg(series)
        assert_stands_alone(chart)
        labels = texts(parse(chart))
        assert series["label"] in labels and series["verdict"] in labels
        assert "task" in labels
        assert ("% of tasks" if series["rate"] else f"{series['key']} per task") in labels


def test_the_axes_carry_every_task_number_and_ticks_from_zero(workspace: Path) -> None:
    result = history(workspace, 24)
    steps = next(s for s in result["series"] if s["key"] == "steps")
    labels = texts(parse(series_svg(steps)))
    assert x_ticks(24) == [1, 5, 10, 15, 20, 24]
    position = labels.index("1")
    assert labels[position : position + 6] == ["1", "5", "10", "15", "20", "24"]
    assert y_ticks(steps["values"], rate=False) == [0, 5, 10, 15]  # steps go up to 15
    assert [label for label in labels if label in {"0", "5", "10", "15"}][:4] == [
        "0",
        "5",
        "10",
        "15",
    ]
    success = next(s for s in result["series"] if s["key"] == "succeeded")
    assert {"0%", "25%", "50%", "75%", "100%"} <= set(texts(parse(series_svg(success))))
    # a short history labels every task; a long one keeps the first and the last
    assert x_ticks(1) == [1] and x_ticks(2) == [1, 2] and x_ticks(12) == list(range(1, 13))
    assert x_ticks(100)[0] == 1 and x_ticks(100)[-1] == 100 and len(x_ticks(100)) <= 12
    assert y_ticks([0, 0], rate=False) == [0, 1] and y_ticks([1, 0], rate=False) == [0, 1]
    assert y_ticks([9000, 12345], rate=False) == [0, 5000, 10000, 15000]


def test_the_windows_the_verdict_compares_are_shaded_with_their_means(workspace: Path) -> None:
    result = history(workspace, 24)
    steps = next(s for s in result["series"] if s["key"] == "steps")
    assert steps["direction"] == "better" and steps["window"] == 12
    root = parse(series_svg(steps))
    fills = [rect.get("fill") for rect in root.iter(f"{SVG}rect")]
    assert fills.count(EARLY_FILL) == 1 and fills.count(LATE_FILL) == 1
    labels = texts(root)
    assert f"first 12 tasks, mean {steps['early']:.0f}" in labels
    assert any(label.startswith("last 12 tasks, mean ") for label in labels)
    dashed = [line for line in root.iter(f"{SVG}line") if line.get("stroke-dasharray")]
    assert len(dashed) == 2
    assert steps["verdict"].startswith("down ") and "— better" in steps["verdict"]
    # the verdict is drawn in the improvement's green, as is the series
    assert root.findall(f".//{SVG}circle")[0].get("fill") == "#1a7f37"
    # no windows before there are enough tasks to compare
    few = dict(steps, values=steps["values"][:3], window=0, verdict="not enough tasks yet")
    few_root = parse(series_svg(few))
    assert EARLY_FILL not in [rect.get("fill") for rect in few_root.iter(f"{SVG}rect")]
    assert "not enough tasks yet" in texts(few_root)
    # a value that is not a number is left out, and then no window is drawn rather than a
    # wrong one (the server's windows count every task)
    broken = dict(steps, values=[*steps["values"][:-1], float("nan")])
    broken_root = parse(series_svg(broken))
    assert EARLY_FILL not in [rect.get("fill") for rect in broken_root.iter(f"{SVG}rect")]
    assert len(broken_root.findall(f".//{SVG}circle")) == 23


def test_untrusted_text_is_drawn_as_text_and_never_acts(workspace: Path) -> None:
    result = history(workspace, 24)
    evil = (
        '<script>alert(1)</script><a href="javascript:alert(2)">x</a>'
        "]]><!-- & \"quotes\" 'too' \x01\x1b\ud800 <image href='http://evil/x.png'/>"
    )
    poisoned = copy.deepcopy(result)
    poisoned["headline"] = poisoned["method"] = evil
    for series in poisoned["series"]:
        series["label"] = series["verdict"] = evil
    for svg in [progress_svg(poisoned), *(series_svg(s) for s in poisoned["series"])]:
        root = parse(svg)
        tags = {node.tag for node in root.iter()}
        assert not tags & {f"{SVG}script", f"{SVG}a", f"{SVG}image", f"{SVG}foreignObject"}
        assert all(not name.endswith("href") for node in root.iter() for name in node.attrib)
        assert "<script" not in svg and "\x01" not in svg
        drawn = " ".join(texts(root))
        assert "<script>alert(1)</script>" in drawn and "&" in drawn  # shown as typed
    page = page_html(poisoned)
    assert "<script" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_the_memory_holdout_is_drawn_as_bars_from_zero_beside_the_series(
    workspace: Path,
) -> None:
    app = ComodorApp(workspace)
    try:
        app.engine.configure(attrs.evolve(app.engine.settings, holdout_rate=0.5))
        for number in range(30):
            task = app.execute("comodor.beginTask", {"goal": f"fix the parser, part {number}"})
            steps = 9 + number % 3 if task["holdout"] else 3 + number % 2
            app.execute(
                "comodor.endTask", {"taskId": task["taskId"], "success": True, "steps": steps}
            )
        result: dict[str, Any] = app.execute("comodor.progress", {})
        drawn = app.execute("comodor.progressChart", {})
    finally:
        app.close()
    comparisons = result["holdout"]["comparisons"]
    steps = next(c for c in comparisons if c["key"] == "steps")
    assert steps["direction"] == "better" and steps["significant"]
    chart = comparison_svg(steps)
    assert_stands_alone(chart)
    root = parse(chart)
    labels = texts(root)
    assert {"with memory", "without", steps["label"], steps["verdict"], "steps per task"} <= set(
        labels
    )
    ticks = y_ticks([steps["withMemory"], steps["withoutMemory"]], rate=False)
    assert ticks[0] == 0 and ticks[-1] >= steps["withoutMemory"] > ticks[-2]
    start = labels.index("0")
    assert labels[start : start + len(ticks)] == [f"{tick:g}" for tick in ticks]
    bars = [rect for rect in root.iter(f"{SVG}rect") if rect.get("height") == "18"]
    assert [bar.get("fill") for bar in bars] == [COLOURS["better"], "#8c959f"]
    assert float(bars[0].get("width", 0)) < float(bars[1].get("width", 0))  # fewer steps
    whole = progress_svg(result)
    assert_stands_alone(whole)
    assert "With memory vs without" in texts(parse(whole))
    assert chart.split(">", 1)[1] in whole  # the same picture, placed below the series
    assert comparison_svg(steps) in page_html(result)
    assert [c["key"] for c in drawn["comparisons"]] == [c["key"] for c in comparisons]
    assert drawn["comparisons"][0]["svg"] == comparison_svg(comparisons[0])


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attributes: dict[str, str] = {}
        self.policy = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        values = {name: value or "" for name, value in attrs}
        self.attributes.update(values)
        if values.get("http-equiv") == "Content-Security-Policy":
            self.policy = values["content"]


def test_the_html_page_is_self_contained_with_one_inline_svg_per_series(workspace: Path) -> None:
    result = history(workspace, 24)
    page = page_html(result)
    parsed = _Page()
    parsed.feed(page)
    assert parsed.tags.count("svg") == len(result["series"]) >= 2
    assert "script" not in parsed.tags and "link" not in parsed.tags
    assert not {"src", "href"} & set(parsed.attributes)
    assert parsed.policy.startswith("default-src 'none'; style-src 'unsafe-inline'")
    assert "var(" not in page and result["headline"] in page
    for series in result["series"]:
        assert series_svg(series) in page


def test_the_readme_picture_is_what_the_script_renders_from_real_tasks(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location(
        "render_progress_chart", ROOT / "scripts" / "render_progress_chart.py"
    )
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    target = tmp_path / "chart.svg"
    script.render_svg(target)
    committed = (ROOT / "docs" / "progress-chart.svg").read_text(encoding="utf-8")
    assert target.read_text(encoding="utf-8") == committed, (
        "docs/progress-chart.svg is stale: run .venv/bin/python scripts/render_progress_chart.py"
    )
    assert "Comodor progress: 24 tasks" in committed
    assert "docs/progress-chart.png" in (ROOT / "README.md").read_text(encoding="utf-8")
