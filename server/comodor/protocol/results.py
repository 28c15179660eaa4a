"""The results of every command, and the objects in them, as the client receives them.

``LessonObject`` and ``RuleObject`` are the protocol's *views* of the brain's
records: same field names, fewer fields (no storage details), and the numbers a
user reads (effective confidence, rounded strength). They are built from the
records by name (:func:`comodor.protocol.convert.view_of`), never copied field by
field.
"""

from __future__ import annotations

from typing import Any

import attrs

from ..brain.models import LESSON_KINDS, RULE_CATEGORIES, RULE_SOURCES, Stats
from .fields import enum_only

# -- objects ------------------------------------------------------------------ #


@attrs.frozen
class LessonObject:
    """A lesson as clients see it; ``confidence`` is the effective one (trust × decay)."""

    id: int
    kind: str = attrs.field(metadata=enum_only(LESSON_KINDS))
    scope: str
    trigger: str
    guidance: str
    confidence: float
    uses: int
    wins: int
    losses: int
    pinned: bool
    source: str
    created_at: float
    updated_at: float
    last_used: float


@attrs.frozen
class RuleObject:
    """A house rule as clients see it."""

    id: int
    key: str
    value: str
    category: str = attrs.field(metadata=enum_only(RULE_CATEGORIES))
    statement: str
    detail: str
    scope: str
    language: str | None
    support: float
    against: float
    strength: float
    confident: bool
    pinned: bool
    active: bool
    source: str = attrs.field(metadata=enum_only(RULE_SOURCES))
    created_at: float
    updated_at: float
    evidence: str
    """Added to the spec's fields: the evidence in words, e.g. ``3 corrections · 100% agree``."""
    team: bool = False
    """Added to the spec: only a teammate's committed ``house-rules.md`` stands behind it."""
    contested: bool = False
    """Added to the spec: the user's corrections disagree and no value leads clearly (a tie,
    or a lead of one correction); shown, never enforced (no diagnostic, not in a playbook)."""
    opposition: str = ""
    """Added to the spec: for a contested rule, the evidence against ``value`` in words,
    e.g. ``2 corrections for single``; empty otherwise."""


DIRECTIONS = ("better", "worse", None)
UNITS = ("percent", "points")


@attrs.frozen
class SeriesObject:
    """One progress series: its values, and the verdict of early against late tasks."""

    key: str
    label: str
    values: list[float]
    change: float
    improving: bool | None
    sparkline: str
    direction: str | None = attrs.field(metadata=enum_only(DIRECTIONS))
    """Added in 1.1: ``better`` or ``worse`` for a significant change, else null."""
    significant: bool
    p_value: float | None
    """Corrected for every test of the result (Holm); null when there were too few tasks."""
    effect: float | None
    """Percentage points for rates, percent change for counts (null from a zero base)."""
    unit: str = attrs.field(metadata=enum_only(UNITS))
    """``points`` (rates) or ``percent`` (counts): what ``effect`` is in."""
    rate: bool
    """Values are outcomes (1 = yes), compared as a share of tasks."""
    lower_is_better: bool
    window: int
    """Tasks in the early window (the first ``window`` values) and in the late one (the last)."""
    early: float
    """Mean of the early window (a share from 0 to 1 for rates)."""
    late: float
    verdict: str
    """The verdict in words, e.g. ``down 40% — better (p = 0.003)``; every client shows this."""


@attrs.frozen
class ComparisonObject:
    """One measure, tasks with memory against tasks held out from it."""

    key: str
    label: str
    with_memory: float
    """Mean over tasks with memory (a share from 0 to 1 for rates)."""
    without_memory: float
    effect: float | None
    """With memory relative to without: points for rates, percent for counts."""
    unit: str = attrs.field(metadata=enum_only(UNITS))
    rate: bool
    lower_is_better: bool
    significant: bool
    direction: str | None = attrs.field(metadata=enum_only(DIRECTIONS))
    """``better`` when memory is significantly better on this measure, ``worse``, or null."""
    p_value: float | None
    verdict: str


@attrs.frozen
class HoldoutObject:
    """Added in 1.1: what the memory-off holdout (``learning.holdoutRate``) shows."""

    with_memory: int
    without_memory: int
    enough_data: bool
    helps: bool | None
    """True when memory is significantly better on some measure and worse on none."""
    verdict: str
    comparisons: list[ComparisonObject]


# -- results -------------------------------------------------------------------- #


@attrs.frozen
class LessonResult:
    lesson: LessonObject


@attrs.frozen
class RuleResult:
    rule: RuleObject


@attrs.frozen
class RemovedResult:
    removed: bool


@attrs.frozen
class OkResult:
    ok: bool


@attrs.frozen
class LessonsResult:
    lessons: list[LessonObject]


@attrs.frozen
class RulesResult:
    rules: list[RuleObject]


@attrs.frozen
class PlaybookResult:
    text: str
    lessons: list[LessonObject]
    rules: list[RuleObject]
    prefetched: bool
    tokens: int


@attrs.frozen
class BeginTaskResult:
    task_id: int
    text: str
    lessons: list[LessonObject]
    rules: list[RuleObject]
    prefetched: bool
    holdout: bool
    """Added in 1.1: this task is held out from memory (empty playbook), see holdoutRate."""


@attrs.frozen
class EndTaskResult:
    episode_id: int


@attrs.frozen
class FeedbackResult:
    credited: int


@attrs.frozen
class UndoResult:
    undone: int


@attrs.frozen
class PathResult:
    path: str


@attrs.frozen
class ProgressResult:
    episodes: int
    headline: str
    enough_data: bool
    success_rate: float
    early_success_rate: float
    lessons: int
    rules_active: int
    series: list[SeriesObject]
    holdout: HoldoutObject | None
    """Added in 1.1: tasks with and without memory compared; null when none was held out."""
    method: str
    """Added in 1.1: how the verdicts were reached (windows, tests, correction), in words."""


@attrs.frozen
class ChartObject:
    """Added to the spec: one series or comparison drawn as a standalone SVG (white, no CSS)."""

    key: str
    """The series' (or the holdout comparison's) ``key``."""
    svg: str


@attrs.frozen
class ProgressChartResult:
    """Added to the spec: ``comodor.progress`` and the same result drawn, by the one renderer.

    ``svg`` is the whole dashboard as one picture (what ``comodor-lsp progress --svg``
    writes); ``charts`` one picture per series and ``comparisons`` one per holdout
    measure (keyed as in ``progress.holdout.comparisons``), for a client that lays out
    its own page.
    """

    progress: ProgressResult
    svg: str
    charts: list[ChartObject]
    comparisons: list[ChartObject]


@attrs.frozen
class StatsResult(Stats):
    """The brain's :class:`~comodor.brain.models.Stats`, plus what the host knows."""

    watching: str = "off"
    """Added to the spec: the workspace watcher's state (native, polling, starting, off)."""


@attrs.frozen
class ToolResult:
    """What an agent tool answered: text for the model, the command's result as data."""

    is_error: bool
    text: str
    data: dict[str, Any] | None = None


@attrs.frozen
class MergeObject:
    """One restatement folded into another lesson: ``merged`` is gone, ``kept`` holds it."""

    kept: int
    merged: int


@attrs.frozen
class ConsolidateResult:
    removed: int
    merged: int = 0
    """Added to the spec: restatements folded into another lesson (see ``merges``)."""
    merges: list[MergeObject] = attrs.field(factory=list)
