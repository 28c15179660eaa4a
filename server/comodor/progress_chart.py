"""The progress dashboard as pictures that stand alone: one SVG per series, a page of them.

One renderer for every door: ``comodor-lsp progress --svg/--html`` writes what it
returns, and ``comodor.progressChart`` sends the same SVGs to the VS Code view,
so a chart looks the same in a browser, an image viewer, a README and the editor.

It draws the wire's ``comodor.progress`` result (the camelCase JSON every client
gets), and adds no judgement of its own: every verdict and headline is the
server's words. Each chart has task numbers on the x-axis, a y-axis from zero
with ticks and the measure's unit, the early and late windows the verdict
compares shaded with their means, and the verdict written on it.

Standing alone means nothing comes from outside the file: explicit colours on a
white background (no CSS, no theme variables), generic font families, a
``viewBox``. Text is data, never markup: every string passes :func:`text`
(escaped, control characters dropped), and the output has no script, no link
and no external reference, so a teammate's or a model's words cannot act.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any
from xml.sax.saxutils import escape

__all__ = ["comparison_svg", "page_html", "progress_svg", "series_svg", "text"]

WIDTH = 640
HEIGHT = 300
LEFT, RIGHT, TOP, BOTTOM = 72, 24, 84, 56
"""Margins of a series chart's plot: room for y ticks, window labels, x ticks and "task"."""
FONT = "font-family=\"'DejaVu Sans', Arial, Helvetica, sans-serif\""
INK, MUTED, GRID, AXIS = "#1f2328", "#57606a", "#e4e7eb", "#8c959f"
COLOURS = {"better": "#1a7f37", "worse": "#cf222e", None: "#0969da"}
"""The series' line: green for a significant improvement, red for a regression, else blue."""
EARLY_FILL, LATE_FILL = "#ddeaf8", "#fbe9d0"
UNITS = {
    "steps": "steps",
    "corrections": "corrections + undos",
    "approvals": "approvals",
    "retries": "tool errors",
    "tokens": "tokens",
}
"""What one task's value counts, for the y-axis (rates are "% of tasks")."""
WRAP = 84
"""Characters of 13 px sans-serif that fit across a 640-wide picture."""

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff\ufffe\uffff]")


def text(value: object) -> str:
    """``value`` as XML character data or an attribute value: escaped, nothing that can act."""
    return escape(_NOT_XML.sub("", str(value)), {'"': "&quot;", "'": "&#39;"})


def _fmt(value: float) -> str:
    """A coordinate: at most one decimal, no trailing ``.0``."""
    rounded = round(value, 1)
    return str(int(rounded)) if rounded == int(rounded) else f"{rounded:.1f}"


def _count(value: float) -> str:
    """A tick label or a mean: ``0``, ``0.25``, ``5.33``, ``12``, ``15,000``."""
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    if abs(value) >= 10:
        return f"{value:.0f}"
    return f"{value:.2f}".rstrip("0").rstrip(".")


def nice_step(span: float, ticks: int = 5) -> float:
    """A round step (1, 2, 2.5 or 5 × 10ⁿ) that covers ``span`` in about ``ticks`` steps."""
    if span <= 0:
        return 1.0
    raw = span / ticks
    power = 10.0 ** math.floor(math.log10(raw))
    return next(float(m * power) for m in (1, 2, 2.5, 5, 10) if m * power >= raw)


def y_ticks(values: Sequence[float], rate: bool) -> list[float]:
    """Ticks from zero to a round number at or above the largest value."""
    if rate:
        return [0.0, 0.25, 0.5, 0.75, 1.0]
    high = max((v for v in values if math.isfinite(v)), default=0.0)
    step = max(1.0, nice_step(high, 4))  # counts are whole: 0.25 corrections means nothing
    if step == 2.5:
        step = 2.0  # 2.5 steps is not a count either
    top = max(step, math.ceil(high / step - 1e-9) * step)
    return [i * step for i in range(round(top / step) + 1)]


def x_ticks(count: int) -> list[int]:
    """Task numbers to label: the first, round numbers between, and the last."""
    if count <= 0:
        return []
    if count <= 12:
        return list(range(1, count + 1))
    step = int(nice_step(count, 6))
    ticks = [1] + [n for n in range(step, count, step) if count - n >= step / 2]
    return [*ticks, count]


def _unit(series: Mapping[str, Any]) -> str:
    if series.get("rate"):
        return "% of tasks"
    return f"{UNITS.get(str(series.get('key')), 'count')} per task"


def _wrap(words: str, width: int = WRAP) -> list[str]:
    lines: list[str] = []
    for word in str(words).split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines


def _label(
    x: float, y: float, words: str, *, size: int = 12, fill: str = MUTED, **extra: str
) -> str:
    attrs = "".join(f' {name.replace("_", "-")}="{text(value)}"' for name, value in extra.items())
    return (
        f'<text x="{_fmt(x)}" y="{_fmt(y)}" font-size="{size}" fill="{fill}" {FONT}{attrs}>'
        f"{text(words)}</text>"
    )


def series_svg(series: Mapping[str, Any]) -> str:
    """One series as a standalone SVG: axes from zero, windows, means, the verdict."""
    raw = list(series.get("values") or [])
    values = [float(v) for v in raw if isinstance(v, int | float) and math.isfinite(v)]
    rate = bool(series.get("rate"))
    count = len(values)
    label = str(series.get("label", ""))
    verdict = str(series.get("verdict", ""))
    direction = series.get("direction") if series.get("significant") else None
    colour = COLOURS.get(direction, COLOURS[None])
    ticks = y_ticks(values, rate)
    top_value = ticks[-1]
    plot_w = WIDTH - LEFT - RIGHT
    bottom = HEIGHT - BOTTOM

    def x(task: float) -> float:  # task 1 is the first band's centre
        return LEFT + (task - 0.5) * plot_w / max(count, 1)

    def y(value: float) -> float:
        return bottom - value / top_value * (bottom - TOP)

    parts = [
        f'<rect x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>',
        _label(16, 26, label, size=16, fill=INK, font_weight="bold"),
        _label(16, 48, verdict, size=13, fill=COLOURS[direction] if direction else MUTED),
    ]
    shading: list[str] = []
    means: list[str] = []
    window = int(series.get("window") or 0)
    if window and 2 * window <= count == len(raw):  # a dropped value would shift the windows
        for first, name, fill, mean in (
            (1, "first", EARLY_FILL, series.get("early")),
            (count - window + 1, "last", LATE_FILL, series.get("late")),
        ):
            x1, x2 = x(first - 0.5), x(first + window - 0.5)
            shading.append(
                f'<rect x="{_fmt(x1)}" y="{TOP}" width="{_fmt(x2 - x1)}" '
                f'height="{bottom - TOP}" fill="{fill}"/>'
            )
            words = f"{name} {window} tasks"
            if isinstance(mean, int | float) and math.isfinite(mean):
                shown = f"{mean:.0%}" if rate else _count(float(mean))
                words += f", mean {shown}"
                means.append(
                    f'<line x1="{_fmt(x1)}" y1="{_fmt(y(mean))}" x2="{_fmt(x2)}" '
                    f'y2="{_fmt(y(mean))}" stroke="{INK}" stroke-width="1.5" '
                    'stroke-dasharray="6 4"/>'
                )
            shading.append(_label((x1 + x2) / 2, TOP - 12, words, size=11, text_anchor="middle"))
    parts += shading
    for tick in ticks:
        parts.append(
            f'<line x1="{LEFT}" y1="{_fmt(y(tick))}" x2="{WIDTH - RIGHT}" y2="{_fmt(y(tick))}" '
            f'stroke="{GRID if tick else AXIS}" stroke-width="1"/>'
        )
        shown = f"{tick:.0%}" if rate else _count(tick)
        parts.append(_label(LEFT - 8, y(tick) + 4, shown, size=11, text_anchor="end"))
    parts += means
    for task in x_ticks(count):
        parts.append(
            f'<line x1="{_fmt(x(task))}" y1="{bottom}" x2="{_fmt(x(task))}" y2="{bottom + 5}" '
            f'stroke="{AXIS}" stroke-width="1"/>'
        )
        parts.append(_label(x(task), bottom + 19, str(task), size=11, text_anchor="middle"))
    parts.append(
        f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{bottom}" stroke="{AXIS}" stroke-width="1"/>'
    )
    parts.append(_label(LEFT + plot_w / 2, HEIGHT - 12, "task", size=12, text_anchor="middle"))
    middle = (TOP + bottom) / 2
    parts.append(
        _label(
            20,
            middle,
            _unit(series),
            size=12,
            text_anchor="middle",
            transform=f"rotate(-90 20 {_fmt(middle)})",
        )
    )
    points = [(x(i + 1), y(v)) for i, v in enumerate(values)]
    if len(points) > 1 and not rate:
        line = " ".join(f"{_fmt(a)},{_fmt(b)}" for a, b in points)
        parts.append(
            f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-width="2.5" '
            'stroke-linejoin="round"/>'
        )
    radius = 4 if count <= 60 else 2.5
    parts += [
        f'<circle cx="{_fmt(a)}" cy="{_fmt(b)}" r="{radius}" fill="{colour}"/>' for a, b in points
    ]
    if not values:
        parts.append(
            _label(LEFT + plot_w / 2, middle, "no tasks yet", size=13, text_anchor="middle")
        )
    summary = f"{label}: {verdict}. Values per task: {', '.join(_count(v) for v in values)}."
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}" role="img" aria-label="{text(summary)}">'
        f"<title>{text(summary)}</title>{''.join(parts)}</svg>"
    )


def _title(result: Mapping[str, Any]) -> str:
    count = int(result.get("episodes") or 0)
    return f"Comodor progress: {count} task{'s' if count != 1 else ''}"


BAR_HEIGHT = 150
"""A holdout comparison: two bars (with memory, without) on an axis from zero."""


def comparison_svg(comparison: Mapping[str, Any]) -> str:
    """One holdout measure as a standalone SVG: with memory against without, from zero."""
    rate = bool(comparison.get("rate"))
    label = str(comparison.get("label", ""))
    verdict = str(comparison.get("verdict", ""))
    direction = comparison.get("direction") if comparison.get("significant") else None
    arms = []
    for name, field in (("with memory", "withMemory"), ("without", "withoutMemory")):
        value = comparison.get(field)
        number = float(value) if isinstance(value, int | float) and math.isfinite(value) else 0.0
        arms.append((name, max(0.0, number)))
    ticks = y_ticks([value for _, value in arms], rate)
    left, right, top = 110, WIDTH - RIGHT - 60, 62

    def x(value: float) -> float:
        return left + value / ticks[-1] * (right - left)

    parts = [
        f'<rect x="0" y="0" width="{WIDTH}" height="{BAR_HEIGHT}" fill="#ffffff"/>',
        _label(16, 24, label, size=15, fill=INK, font_weight="bold"),
        _label(16, 44, verdict, size=13, fill=COLOURS[direction] if direction else MUTED),
    ]
    bottom = top + 2 * 26
    for tick in ticks:
        parts.append(
            f'<line x1="{_fmt(x(tick))}" y1="{top - 4}" x2="{_fmt(x(tick))}" y2="{bottom}" '
            f'stroke="{GRID if tick else AXIS}" stroke-width="1"/>'
        )
        shown = f"{tick:.0%}" if rate else _count(tick)
        parts.append(_label(x(tick), bottom + 16, shown, size=11, text_anchor="middle"))
    unit = "% of tasks" if rate else _unit(comparison)
    parts.append(_label((left + right) / 2, bottom + 34, unit, size=12, text_anchor="middle"))
    for row, (name, value) in enumerate(arms):
        y = top + row * 26
        fill = COLOURS.get(direction, COLOURS[None]) if row == 0 else AXIS
        shown = f"{value:.0%}" if rate else _count(value)
        parts += [
            _label(left - 8, y + 13, name, size=12, text_anchor="end"),
            f'<rect x="{left}" y="{y}" width="{_fmt(max(1.0, x(value) - left))}" height="18" '
            f'fill="{fill}"/>',
            _label(max(x(value), left + 1) + 6, y + 13, shown, size=12, fill=INK),
        ]
    summary = f"{label}: " + ", ".join(f"{name} {value:g}" for name, value in arms)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {BAR_HEIGHT}" '
        f'width="{WIDTH}" height="{BAR_HEIGHT}" role="img" '
        f'aria-label="{text(summary + ". " + verdict)}">'
        f"<title>{text(summary + '. ' + verdict)}</title>{''.join(parts)}</svg>"
    )


def _comparisons(result: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    holdout = result.get("holdout")
    return list(holdout.get("comparisons") or []) if holdout else []


def progress_svg(result: Mapping[str, Any]) -> str:
    """The whole dashboard as one standalone SVG: headline, series, holdout, method."""
    parts: list[str] = []
    y = 32.0
    parts.append(_label(16, y, _title(result), size=18, fill=INK, font_weight="bold"))
    for line in _wrap(str(result.get("headline", ""))):
        y += 22
        parts.append(_label(16, y, line, size=14, fill=INK))
    y += 16
    series = result.get("series") or []
    for item in series:
        inner = series_svg(item).replace("<svg ", f'<svg x="0" y="{_fmt(y)}" ', 1)
        parts.append(inner)
        y += HEIGHT + 8
    if not series:
        y += 14
        parts.append(_label(16, y, "No tasks recorded yet.", size=13))
        y += 8
    holdout = result.get("holdout")
    if holdout:
        y += 24
        parts.append(_label(16, y, "With memory vs without", size=16, fill=INK, font_weight="bold"))
        for line in _wrap(str(holdout.get("verdict", ""))):
            y += 20
            parts.append(_label(16, y, line, size=13, fill=INK))
        y += 10
        for comparison in _comparisons(result):
            inner = comparison_svg(comparison).replace("<svg ", f'<svg x="0" y="{_fmt(y)}" ', 1)
            parts.append(inner)
            y += BAR_HEIGHT
    for line in _wrap(str(result.get("method", ""))):
        y += 18
        parts.append(_label(16, y, line, size=12))
    height = math.ceil(y + 20)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
        f'width="{WIDTH}" height="{height}" role="img" aria-label="{text(_title(result))}">'
        f"<title>{text(_title(result))}</title>"
        f'<rect x="0" y="0" width="{WIDTH}" height="{height}" fill="#ffffff"/>'
        f"{''.join(parts)}</svg>"
    )


_PAGE_STYLE = (
    "body{margin:0;padding:24px;background:#ffffff;color:#1f2328;"
    "font-family:'DejaVu Sans',Arial,Helvetica,sans-serif;font-size:14px}"
    "h1{font-size:20px;margin:0 0 8px}h2{font-size:16px;margin:20px 0 4px}"
    "p{margin:4px 0;max-width:640px}"
    ".muted{color:#57606a}figure{margin:16px 0}svg{max-width:100%;height:auto}"
)
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
"""The page loads nothing and runs nothing: its only style is the inline one above."""


def page_html(result: Mapping[str, Any]) -> str:
    """A self-contained HTML page: the dashboard's words and one inline SVG per series."""
    series = result.get("series") or []
    figures = "".join(f"<figure>{series_svg(item)}</figure>" for item in series)
    if not series:
        figures = '<p class="muted">No tasks recorded yet.</p>'
    stats = (
        f"{int(result.get('lessons') or 0)} lessons, "
        f"{int(result.get('rulesActive') or 0)} active house rules."
    )
    holdout = result.get("holdout")
    footer = ""
    if holdout:
        footer = (
            f"<h2>With memory vs without</h2><p>{text(holdout.get('verdict', ''))}</p>"
            + "".join(f"<figure>{comparison_svg(c)}</figure>" for c in _comparisons(result))
        )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{text(CSP)}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{text(_title(result))}</title><style>{_PAGE_STYLE}</style></head>"
        f"<body><h1>{text(_title(result))}</h1>"
        f"<p>{text(result.get('headline', ''))}</p>"
        f'<p class="muted">{text(stats)}</p>'
        f"{figures}{footer}"
        f'<p class="muted">{text(result.get("method", ""))}</p>'
        "</body></html>\n"
    )
