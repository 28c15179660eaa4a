"""``comodor-lsp progress``: the ``comodor.progress`` result as text for a terminal.

Presentation only. Every verdict, number and sentence comes from the result the
server returns to every client (the VS Code view draws the same result as
charts); this module lays it out, one line per series with a sparkline, and
falls back to plain ASCII when the terminal cannot print Unicode (a Windows
console on a legacy code page, ``LANG=C`` over ssh, output piped into a file
read by tools that expect ASCII).
"""

from __future__ import annotations

from typing import Any, TextIO

from ..brain.progress.contrast import number
from ..brain.progress.evidence import sparkline

_ASCII = str.maketrans(
    {
        "—": "-",
        "–": "-",
        "−": "-",
        "→": "->",
        "α": "alpha",
        "·": "|",
        "…": "...",
        "≥": ">=",
        "≤": "<=",
    }
)
SPARK_WIDTH = 24


def can_print_unicode(stream: TextIO) -> bool:
    """Whether ``stream`` can encode the glyphs of a sparkline and the verdicts' dashes."""
    encoding = getattr(stream, "encoding", None) or "ascii"
    try:
        "▁█—→−α".encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def plain_ascii(text: str) -> str:
    """``text`` in ASCII: dashes, arrows and dots spelled out, anything else a ``?``."""
    return text.translate(_ASCII).encode("ascii", "replace").decode("ascii")


def _measure(comparison: dict[str, Any]) -> str:
    def show(value: float) -> str:
        return f"{value:.0%}" if comparison["rate"] else number(value)

    return f"{show(comparison['withMemory'])} with · {show(comparison['withoutMemory'])} without"


def render_progress(result: dict[str, Any], *, ascii_only: bool = False) -> str:
    """The dashboard as lines of text: headline, one row per series, the holdout, the method."""
    series = result.get("series") or []
    holdout = result.get("holdout")
    count = result.get("episodes", 0)
    title = f"Comodor progress: {count} task{'s' if count != 1 else ''}"
    if holdout:
        title += f" ({holdout['withMemory']} with memory, {holdout['withoutMemory']} without)"
    lines = [title, result.get("headline", ""), ""]
    width = max((len(s["label"]) for s in series), default=0)
    for item in series:
        values = item.get("values") or []
        line = sparkline(values, SPARK_WIDTH, ascii_only) if ascii_only else item["sparkline"]
        marker = {"better": "+", "worse": "!"}.get(item.get("direction") or "", " ")
        lines.append(f"{marker} {item['label']:<{width}}  {line:<{SPARK_WIDTH}}  {item['verdict']}")
    if not series:
        lines.append("  No tasks recorded yet.")
    if holdout:
        lines += ["", f"Memory: {holdout['verdict']}"]
        measures = [_measure(c) for c in holdout["comparisons"]]
        column = max((len(m) for m in measures), default=0)
        labels = max((len(c["label"]) for c in holdout["comparisons"]), default=0)
        for comparison, measure in zip(holdout["comparisons"], measures, strict=True):
            marker = {"better": "+", "worse": "!"}.get(comparison.get("direction") or "", " ")
            lines.append(
                f"{marker} {comparison['label']:<{labels}}  {measure:<{column}}  "
                f"{comparison['verdict']}"
            )
    if result.get("method"):
        lines += ["", result["method"]]
    text = "\n".join(lines)
    if ascii_only:
        text = plain_ascii(text)
    return text
