"""Rules and lessons for a terminal: aligned tables, dates a person reads, no escapes.

Presentation only: every row comes from the protocol result an editor gets
(``comodor.rules``, ``comodor.lessons``), and a lesson reads as the one renderer
words it (:func:`comodor.brain.lessons.markdown.instruction`). Text in the brain
may come from anyone (a lesson in a cloned repository, a teammate's rule), so
control characters are removed before anything is printed: an escape sequence in
a lesson must not move the cursor, retitle the window or hide the line after it.
"""

from __future__ import annotations

import re
import time
import unicodedata
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from ..brain.lessons.markdown import instruction

_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""C0 and C1 controls (ESC, CSI, BEL…; tabs and newlines are folded apart) and the
bidirectional marks that can make a line display differently from what it says."""

DIM, GREEN, CYAN, YELLOW = "2", "32", "36", "33"


def safe(text: object) -> str:
    """``text`` on one line with every control character gone."""
    return " ".join(_UNSAFE.sub(" ", str(text)).split())


def width(text: str) -> int:
    """Columns ``text`` takes on a terminal: wide (CJK) characters two, combining marks none."""
    return sum(
        0 if unicodedata.combining(char) else 2 if unicodedata.east_asian_width(char) in "WF" else 1
        for char in text
    )


def when(epoch: float, now: float | None = None) -> str:
    """A time as a person says it: "just now", "3 hours ago", "yesterday", "2026-11-30"."""
    if not epoch:
        return "never"
    now = time.time() if now is None else now
    seconds = max(0.0, now - epoch)
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        minutes = int(seconds // 60)
        return f"{minutes} minute{'s' if minutes != 1 else ''} ago"
    if seconds < 86_400:
        hours = int(seconds // 3600)
        return f"{hours} hour{'s' if hours != 1 else ''} ago"
    days = int(seconds // 86_400)
    if days == 1:
        return "yesterday"
    if days < 7:
        return f"{days} days ago"
    return datetime.fromtimestamp(epoch).strftime("%Y-%m-%d")


def _table(header: Sequence[str], rows: Sequence[Sequence[tuple[str, str]]], colour: bool) -> str:
    """Columns padded to their widest cell; the last column is never padded.

    Each cell is ``(text, sgr)``; colour wraps the padded text, so it never
    shifts a column.
    """
    widths = [width(name) for name in header]
    for row in rows:
        for index, (text, _) in enumerate(row):
            widths[index] = max(widths[index], width(text))
    last = len(header) - 1

    def render(cells: Sequence[tuple[str, str]]) -> str:
        out = []
        for index, (text, sgr) in enumerate(cells):
            cell = text if index == last else text + " " * (widths[index] - width(text))
            out.append(f"\x1b[{sgr}m{cell}\x1b[0m" if colour and sgr else cell)
        return "  ".join(out).rstrip()

    heading = [(name, "1") for name in header]
    return "\n".join([render(heading), *(render(row) for row in rows)])


def rule_status(rule: dict[str, Any]) -> tuple[str, str]:
    """Pinned / confident / not confident yet, and off when disabled, with its colour."""
    words = ["pinned"] if rule.get("pinned") else []
    words.append("confident" if rule.get("confident") else "not confident yet")
    if not rule.get("active", True):
        words.append("off")
    if rule.get("team"):
        words.append("team")
    sgr = CYAN if rule.get("pinned") else GREEN if rule.get("confident") else DIM
    return ", ".join(words), sgr


def render_rules(result: dict[str, Any], *, colour: bool = False, every: bool = False) -> str:
    """The house rules as a table: id, statement, evidence, status."""
    rules = result.get("rules") or []
    if not rules:
        return (
            "No house rules yet."
            if every
            else "No confident house rules yet (--all shows the rest)."
        )
    rows = [
        [
            (str(rule["id"]), ""),
            (safe(rule.get("statement", "")), ""),
            (safe(rule.get("evidence") or rule.get("detail") or ""), DIM),
            rule_status(rule),
        ]
        for rule in rules
    ]
    return _table(["ID", "RULE", "EVIDENCE", "STATUS"], rows, colour)


def render_lessons(
    result: dict[str, Any], *, colour: bool = False, now: float | None = None
) -> str:
    """The lessons as a table: id, trust, last used, the lesson in words (last: it is long)."""
    lessons = result.get("lessons") or []
    if not lessons:
        return 'No lessons yet. Teach one: comodor-lsp teach "When testing: use pytest -q"'
    rows = []
    for lesson in lessons:
        trust = f"{float(lesson.get('confidence', 0.0)):.0%}"
        if lesson.get("pinned"):
            trust += " pinned"
        rows.append(
            [
                (str(lesson["id"]), ""),
                (trust, CYAN if lesson.get("pinned") else ""),
                (when(float(lesson.get("lastUsed") or 0.0), now), DIM),
                (safe(instruction(lesson.get("trigger", ""), lesson.get("guidance", ""))), ""),
            ]
        )
    return _table(["ID", "TRUST", "LAST USED", "LESSON"], rows, colour)


def render_lesson(lesson: dict[str, Any]) -> str:
    """One lesson in words, for ``teach``'s answer."""
    return safe(instruction(lesson.get("trigger", ""), lesson.get("guidance", "")))
