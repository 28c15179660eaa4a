"""Doctor's checks for a terminal: one line each, the columns aligned, colour if wanted."""

from __future__ import annotations

from collections.abc import Sequence

from ..doctor import Check

LABELS = {"ok": "ok", "warn": "warn", "fail": "FAIL"}
COLOURS = {"ok": "32", "warn": "33", "fail": "31"}
"""SGR codes: green, yellow, red."""


def render_checks(checks: Sequence[Check], *, colour: bool = False) -> str:
    """``status name detail`` lines, padded so every detail starts in the same column."""
    status_width = max(len(label) for label in LABELS.values())
    name_width = max((len(check.name) for check in checks), default=0)
    lines = []
    for check in checks:
        label = LABELS[check.status].ljust(status_width)
        if colour:
            label = f"\x1b[{COLOURS[check.status]}m{label}\x1b[0m"
        lines.append(f"{label} {check.name.ljust(name_width)} {check.detail}")
    return "\n".join(lines)
