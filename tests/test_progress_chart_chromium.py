"""The progress charts as a browser draws them: headless Chromium, the picture looked at.

The webview once drew its chart with theme variables, which outside VS Code meant a
black rectangle. Here the SVG is shown on a black page with nothing else, exactly
as an image viewer or a README would show the file, and the pixels must say
"a white chart with the series drawn in its colour", not "blank" or "black".
"""

from __future__ import annotations

import importlib.util
import io
from pathlib import Path

import numpy
import pytest
from comodor_lsp.progress_chart import COLOURS, page_html, progress_svg, series_svg

from .test_progress_chart import history

pytest.importorskip("playwright.sync_api", reason="scripts/install-vscode-e2e.sh installs it")
Image = pytest.importorskip("PIL.Image")

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow


def _script() -> object:
    spec = importlib.util.spec_from_file_location(
        "render_progress_chart", ROOT / "scripts" / "render_progress_chart.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if not Path(module.CHROMIUM).exists():
        pytest.fail(f"{module.CHROMIUM} is missing: run scripts/install-vscode-e2e.sh")
    return module


def _shares(png: Path, colour: str) -> tuple[float, float, float]:
    """Shares of light (white or a window's pale shade), near-black and ``colour`` pixels."""
    image = Image.open(io.BytesIO(png.read_bytes())).convert("RGB")
    pixels = numpy.asarray(image, dtype=numpy.int32).reshape(-1, 3)
    target = numpy.array([int(colour[i : i + 2], 16) for i in (1, 3, 5)])
    light = numpy.mean(pixels.min(axis=1) >= 200)
    black = numpy.mean(pixels.max(axis=1) <= 40)
    near = numpy.mean(numpy.abs(pixels - target).sum(axis=1) < 60)
    return float(light), float(black), float(near)


def test_chromium_draws_the_charts_white_with_the_series_in_its_colour(
    workspace: Path, tmp_path: Path
) -> None:
    script = _script()
    result = history(workspace, 24)
    steps = next(s for s in result["series"] if s["key"] == "steps")
    assert steps["direction"] == "better"
    for name, svg in (("whole", progress_svg(result)), ("steps", series_svg(steps))):
        png = tmp_path / f"{name}.png"
        script.screenshot(svg, png, scale=1)  # type: ignore[attr-defined]
        light, black, green = _shares(png, COLOURS["better"])
        assert light > 0.8, f"{name}: only {light:.0%} light: not drawn standing alone"
        assert black < 0.05, f"{name}: {black:.0%} black"
        assert green > 0.002, f"{name}: the improving series is not drawn in green"


def test_chromium_draws_the_html_page_on_white(workspace: Path, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    script = _script()
    page_file = tmp_path / "progress.html"
    page_file.write_text(page_html(history(workspace, 24)), encoding="utf-8")
    png = tmp_path / "page.png"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=script.CHROMIUM,  # type: ignore[attr-defined]
            headless=True,
            args=["--no-sandbox", "--disable-gpu"],
        )
        try:
            page = browser.new_page(viewport={"width": 720, "height": 900})
            page.goto(page_file.as_uri())
            assert page.locator("svg").count() >= 2
            page.screenshot(path=str(png))
        finally:
            browser.close()
    light, black, green = _shares(png, COLOURS["better"])
    assert light > 0.8 and black < 0.05 and green > 0.001
