"""Evidence that the assistant is actually getting better.

"Gets better over time" is a claim every tool makes and few support. Every
finished task records its steps, the approvals it asked for, the corrections
and undos that followed, the tool errors and the tokens. Comparing the first
stretch of tasks with the most recent one turns that into a number, under rules
that keep the number honest:

* Fewer than :data:`MIN_FOR_TREND` tasks is not a trend; the answer is "not yet".
* A change inside ±5% is flat, not a direction.
* A count metric may only headline a claim if it started from a meaningful base
  (a fall from 0.4 tool errors a task to 0 is a real 100%, and means little).
* Cancelled tasks are left out; series that are zero throughout are dropped.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import attrs

from comodor.brain.models import Episode

SPARK = "▁▂▃▄▅▆▇█"
SPARK_ASCII = ".:-=+*#%"
MIN_FOR_TREND = 6
FLAT_BAND_PERCENT = 5.0
MEANINGFUL_BASE = 1.0
WINDOW_FRACTION = 0.3


@attrs.define
class Series:
    """One measured quantity, one value per task, oldest first."""

    key: str
    label: str
    values: list[float] = attrs.field(factory=list)
    lower_is_better: bool = True

    def window(self) -> tuple[float, float]:
        """Means of the earliest and the latest slices (0, 0 without enough tasks)."""
        if len(self.values) < MIN_FOR_TREND:
            return 0.0, 0.0
        size = max(2, int(len(self.values) * WINDOW_FRACTION))
        early, late = self.values[:size], self.values[-size:]
        return sum(early) / len(early), sum(late) / len(late)

    @property
    def change(self) -> float:
        """Percent change from the early window to the late one."""
        early, late = self.window()
        if early <= 0:
            return 0.0
        return (late - early) / early * 100.0

    @property
    def improving(self) -> bool | None:
        """True or False, or None when there is not enough evidence or the change is flat."""
        if len(self.values) < MIN_FOR_TREND:
            return None
        delta = self.change
        if abs(delta) < FLAT_BAND_PERCENT:
            return None
        return delta < 0 if self.lower_is_better else delta > 0

    def sparkline(self, width: int = 24, ascii_only: bool = False) -> str:
        glyphs = SPARK_ASCII if ascii_only else SPARK
        if not self.values:
            return ""
        points = _bucket(self.values, width)
        low, high = min(points), max(points)
        if high - low < 1e-9:
            return glyphs[len(glyphs) // 2] * len(points)
        span = high - low
        return "".join(
            glyphs[min(len(glyphs) - 1, int((value - low) / span * len(glyphs)))]
            for value in points
        )


def _bucket(values: Sequence[float], width: int) -> list[float]:
    """Average ``values`` into at most ``width`` buckets."""
    if len(values) <= width:
        return list(values)
    size = len(values) / width
    buckets: list[float] = []
    for index in range(width):
        start = int(index * size)
        end = max(start + 1, int((index + 1) * size))
        chunk = values[start:end]
        buckets.append(sum(chunk) / len(chunk))
    return buckets


@attrs.define
class Progress:
    """Everything the progress dashboard shows."""

    episodes: int = 0
    series: list[Series] = attrs.field(factory=list)
    success_rate: float = 0.0
    early_success_rate: float = 0.0
    rules_active: int = 0
    lessons: int = 0
    corrections_total: int = 0
    since: float = 0.0
    days: float = 0.0

    @property
    def enough_data(self) -> bool:
        return self.episodes >= MIN_FOR_TREND

    def get(self, key: str) -> Series | None:
        return next((series for series in self.series if series.key == key), None)

    def headline(self) -> str:
        """One sentence a user could screenshot, or an honest "not yet"."""
        if not self.enough_data:
            remaining = MIN_FOR_TREND - self.episodes
            plural = "s" if self.episodes != 1 else ""
            return (
                f"{self.episodes} task{plural} recorded — {remaining} more before a trend "
                "means anything."
            )
        for key in ("steps", "corrections", "tokens", "approvals", "retries", "success"):
            series = self.get(key)
            if series is None or series.improving is not True:
                continue
            early, _ = series.window()
            if key != "success" and early < MEANINGFUL_BASE:
                continue
            direction = "down" if series.lower_is_better else "up"
            return (
                f"{series.label} {direction} {abs(series.change):.0f}% since the first tasks "
                "in this project."
            )
        return "No measurable change yet. The numbers below are the honest ones."


def analyse(
    episodes: Sequence[Episode], lessons: int = 0, rules_active: int = 0, now: float | None = None
) -> Progress:
    """Turn ended episodes (oldest first) into the dashboard's series."""
    usable = [
        episode for episode in episodes if episode.stopped != "cancelled" and not episode.open
    ]
    progress = Progress(episodes=len(usable), lessons=lessons, rules_active=rules_active)
    if not usable:
        return progress
    now = time.time() if now is None else now
    progress.since = usable[0].started_at
    progress.days = max(0.0, (now - progress.since) / 86_400.0)
    progress.corrections_total = sum(episode.corrections for episode in usable)
    successes = [1.0 if episode.success else 0.0 for episode in usable]
    progress.success_rate = sum(successes) / len(successes)
    early = successes[: max(2, int(len(successes) * WINDOW_FRACTION))]
    progress.early_success_rate = sum(early) / len(early)
    first_try = [
        1.0 if episode.success and episode.corrections == 0 and episode.undos == 0 else 0.0
        for episode in usable
    ]
    candidates = [
        Series("steps", "Steps per task", [float(e.steps) for e in usable]),
        Series(
            "corrections", "Corrections per task", [float(e.corrections + e.undos) for e in usable]
        ),
        Series("approvals", "Approvals asked", [float(e.approvals) for e in usable]),
        Series("retries", "Tool errors per task", [float(e.retries) for e in usable]),
        Series("tokens", "Tokens per task", [float(e.tokens) for e in usable]),
        Series("success", "First-try success", first_try, lower_is_better=False),
    ]
    progress.series = [series for series in candidates if any(series.values)]
    return progress
