"""Evidence that the assistant is getting better, or worse, or that nobody can tell yet.

"Gets better over time" is a claim every tool makes and few support. Every
finished task records its steps, the approvals it asked for, the corrections
and undos that followed, the tool errors, the tokens and whether it succeeded.
Comparing the first stretch of tasks with the latest one turns that into a
verdict, under rules that keep the verdict honest:

* There is no fixed count of tasks: the tests decide. Below the smallest history
  whose halves *could* reach significance (:func:`~comodor.brain.progress.contrast.smallest_design`:
  8 tasks with one varying measure, 10 with a few) nothing is tested and the answer is
  "not enough tasks yet" with how many more tasks could settle it. From there on a
  steady fall (20 → 5 steps over 8 tasks) is reported as soon as the exact test says so.
* Each series compares its first :func:`window_size` tasks with its last as a
  :class:`~comodor.brain.progress.contrast.Contrast`: counts with the Mann–Whitney U
  test, rates (success) with Fisher's exact test and in percentage points, so
  0% → 100% is a change.
* Every test of the result (each series, and each holdout comparison) is
  corrected together with Holm's method at α = 3%: the *whole* dashboard claims
  a change from noise less than one time in twenty, on any fair sample and not
  only on average (``bench/progress_honesty.py`` measures it; at α = 5% the true
  rate was 3–4%, and one row of 200 noise histories printed up to 7%). The
  family is chosen by Tarone's rule: tests whose most extreme possible outcome
  could not survive the correction are left out of it (they could never be
  claimed anyway), so small histories are not diluted by them.
  A change inside the flat band, or stated as a percentage of a tiny base, is
  never a claim.
* Why the bound holds, and what it does not cover. Every test is a permutation
  test of its own two groups, valid conditional on the pooled values (exact for
  small samples and for sparse counts at any size; a normal approximation only
  for large samples with many distinct values, where it is accurate), and
  Tarone's family depends on those pooled values alone, so the Bonferroni
  inequality behind Holm bounds the chance of any false claim by α. Both
  directions are spent from the same α: each test is two-sided and a claim also
  needs the means to move the way the ranks do. The one leak found was the
  normal approximation on sparse counts in unbalanced groups (the holdout's 40
  tasks against 160), now exact. Holm spends most of α when the measures vary
  independently, so on noise the rate sits a little under α; a benchmark row of
  200 histories is ±3 points by sampling alone, hence α = 3% for a 5% promise. The bound
  is for one look at a history; a user who opens the dashboard after every task
  looks many times, and over 200 noise tasks looked at every 5 tasks from the
  40th, 40% of histories showed some claim at some look: the correction does
  not cover repeated looks.
* The headline names the most significant change in either direction, and
  every significant regression besides it.
* Cancelled tasks are left out; series that are zero throughout are dropped.
  Tasks held out from memory (:mod:`comodor.brain.progress.holdout`) are compared with
  the others instead of being mixed into the trend.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from ..models import Episode
from .contrast import ALPHA, Contrast, smallest_design, trend_change
from .holdout import Holdout, compare_memory
from .significance import holm

SPARK = "▁▂▃▄▅▆▇█"
SPARK_ASCII = ".:-=+*#%"
FIRST_TESTABLE = smallest_design(1)
"""With fewer tasks no test of a trend could reach α, whatever the tasks show (8 at α = 3%)."""
MAX_WINDOW = 50
"""A long history compares its first 50 tasks with its latest 50, not half with half, so a
recent regression is not drowned in months of older tasks."""

PRIORITY = ("steps", "corrections", "success", "succeeded", "approvals", "retries", "tokens")
"""Order among equally significant changes: what a user feels first."""


def window_size(count: int) -> int:
    """Tasks in the early window and in the late one: half each, at most :data:`MAX_WINDOW`.

    Halves use every task, which is what gives a test of 30 tasks any power: a
    change half-way through is found twice as often as with the outer thirds, and
    a steady drift about as often (``bench/progress_honesty.py``).
    """
    if count < FIRST_TESTABLE:
        return 0
    return min(count // 2, MAX_WINDOW)


@attrs.define
class Series:
    """One measured quantity, one value per task, oldest first, and its early/late contrast."""

    key: str
    label: str
    values: list[float] = attrs.field(factory=list)
    lower_is_better: bool = True
    rate: bool = False
    contrast: Contrast = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        size = self.window
        early, late = (self.values[:size], self.values[-size:]) if size else ([], [])
        self.contrast = Contrast(
            list(early), list(late), lower_is_better=self.lower_is_better, rate=self.rate
        )

    @property
    def window(self) -> int:
        return window_size(len(self.values))

    def means(self) -> tuple[float, float]:
        """Means of the early and the late window (0, 0 without enough tasks)."""
        if not self.window:
            return 0.0, 0.0
        return self.contrast.before_mean, self.contrast.after_mean

    @property
    def change(self) -> float:
        """Percent change from the early window to the late one (0 from a zero base)."""
        early, late = self.means()
        if early <= 0:
            return 0.0
        return (late - early) / early * 100.0

    @property
    def significant(self) -> bool:
        return self.contrast.significant

    @property
    def direction(self) -> str | None:
        return self.contrast.direction

    @property
    def improving(self) -> bool | None:
        """True or False for a significant change; None when nothing may be claimed."""
        direction = self.direction
        return None if direction is None else direction == "better"

    def claim(self) -> str:
        """``Steps per task up 190% — worse``: what the headline says about this series."""
        return f"{self.label} {trend_change(self.contrast)}"

    def verdict(self) -> str:
        """The verdict without the label (clients show it next to the label)."""
        return self.contrast.verdict(trend_change(self.contrast))

    def sparkline(self, width: int = 24, ascii_only: bool = False) -> str:
        return sparkline(self.values, width, ascii_only)


def sparkline(values: Sequence[float], width: int = 24, ascii_only: bool = False) -> str:
    """The values as one line of block glyphs (or ASCII), averaged into ``width`` buckets."""
    glyphs = SPARK_ASCII if ascii_only else SPARK
    if not values:
        return ""
    points = _bucket(values, width)
    low, high = min(points), max(points)
    if high - low < 1e-9:
        return glyphs[len(glyphs) // 2] * len(points)
    span = high - low
    return "".join(
        glyphs[min(len(glyphs) - 1, int((value - low) / span * len(glyphs)))] for value in points
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
    """Ended, not cancelled tasks, with memory or without."""
    trend_tasks: int = 0
    """The tasks the series are drawn from: those that had memory."""
    series: list[Series] = attrs.field(factory=list)
    success_rate: float = 0.0
    early_success_rate: float = 0.0
    rules_active: int = 0
    lessons: int = 0
    holdout: Holdout | None = None
    tests: int = 0
    """How many tests the correction covered (the family of the whole result)."""
    run: int = 0
    """How many tests were run; those beyond ``tests`` could not have reached α."""
    settles_at: int = FIRST_TESTABLE
    """The smallest history at which a test of this result's varying measures could settle it."""
    claimable: bool = False
    """Some trend series is in the correction's family: its test could be significant."""

    @property
    def enough_data(self) -> bool:
        """Whether a test could already tell: past the smallest design, or a test in the family."""
        return self.claimable or self.trend_tasks >= self.settles_at

    @property
    def window(self) -> int:
        return window_size(self.trend_tasks)

    def get(self, key: str) -> Series | None:
        return next((series for series in self.series if series.key == key), None)

    def significant(self) -> list[Series]:
        """Significant series, most significant first; regressions first among equals."""
        found = [series for series in self.series if series.significant]
        return sorted(
            found,
            key=lambda s: (
                s.contrast.p_value or 1.0,
                s.direction != "worse",
                PRIORITY.index(s.key) if s.key in PRIORITY else len(PRIORITY),
            ),
        )

    def headline(self) -> str:
        """One sentence a user could screenshot: the strongest change, every regression, or none."""
        if not self.enough_data:
            count = self.trend_tasks
            with_memory = " with memory" if self.holdout is not None else ""
            more = self.settles_at - count
            return (
                f"Not enough tasks yet: {count} task{'s' if count != 1 else ''}{with_memory} "
                f"recorded, {more} more could settle it."
            )
        found = self.significant()
        if not found:
            return "No measurable change yet. The numbers below are the honest ones."
        lead, *rest = found
        claims = [lead.claim()] + [s.claim() for s in rest if s.direction == "worse"]
        window = self.window
        return f"{'; '.join(claims)} (first {window} tasks vs last {window})."

    def method(self) -> str:
        """How the verdicts were reached, in one line for the footer of a dashboard."""
        if not self.enough_data:
            return (
                f"A trend compares the first half of the tasks with the second; below "
                f"{self.settles_at} tasks no exact test of it could reach α = {ALPHA:.0%}."
            )
        window = self.window
        left_out = self.run - self.tests
        could_not = (
            f" ({left_out} more could not have reached it and were left out)" if left_out else ""
        )
        return (
            f"First {window} tasks vs last {window}: Mann–Whitney U test for counts, Fisher's "
            f"exact test for rates; Holm-corrected across {self.tests} "
            f"test{'s' if self.tests != 1 else ''} at α = {ALPHA:.0%}{could_not}."
        )


def _series(episodes: Sequence[Episode]) -> list[Series]:
    candidates = [
        Series("steps", "Steps per task", [float(e.steps) for e in episodes]),
        Series(
            "corrections",
            "Corrections per task",
            [float(e.corrections + e.undos) for e in episodes],
        ),
        Series("approvals", "Approvals asked", [float(e.approvals) for e in episodes]),
        Series("retries", "Tool errors per task", [float(e.retries) for e in episodes]),
        Series("tokens", "Tokens per task", [float(e.tokens) for e in episodes]),
        Series(
            "success",
            "First-try success",
            [1.0 if e.success and e.corrections == 0 and e.undos == 0 else 0.0 for e in episodes],
            lower_is_better=False,
            rate=True,
        ),
        Series(
            "succeeded",
            "Task success",
            [1.0 if e.success else 0.0 for e in episodes],
            lower_is_better=False,
            rate=True,
        ),
    ]
    return [series for series in candidates if any(series.values)]


def correct(contrasts: Sequence[Contrast]) -> tuple[list[Contrast], int]:
    """Run every test, then Holm across the family Tarone's rule picks; (family, tests run).

    Tarone's rule: the family is the tests whose most extreme possible outcome could
    pass α / K, for the smallest K that is at least their number. Which tests those
    are depends only on each test's pooled values and group sizes, never on the
    outcome, so Holm within the family still bounds the chance of any false claim
    by α. A test left out gets its Bonferroni p-value over every test run, which
    is then at least α: it is reported, never claimed.
    """
    tested = [contrast for contrast in contrasts if contrast.run() is not None]
    bests = [contrast.attainable for contrast in tested]
    limit = 1
    while sum(best < ALPHA / limit for best in bests) > limit:
        limit += 1
    family = [c for c, best in zip(tested, bests, strict=True) if best < ALPHA / limit]
    adjusted = holm([contrast.raw.p_value for contrast in family if contrast.raw is not None])
    for contrast, p_value in zip(family, adjusted, strict=True):
        contrast.decide(p_value)
    chosen = {id(contrast) for contrast in family}
    for contrast in tested:
        if id(contrast) not in chosen and contrast.raw is not None:
            contrast.decide(min(1.0, contrast.raw.p_value * len(tested)))
    return family, len(tested)


def analyse(episodes: Sequence[Episode], lessons: int = 0, rules_active: int = 0) -> Progress:
    """Turn ended episodes (oldest first) into the dashboard's series, verdicts and holdout."""
    usable = [
        episode for episode in episodes if episode.stopped != "cancelled" and not episode.open
    ]
    memory = [episode for episode in usable if not episode.holdout]
    held_out = [episode for episode in usable if episode.holdout]
    progress = Progress(
        episodes=len(usable), trend_tasks=len(memory), lessons=lessons, rules_active=rules_active
    )
    if not usable:
        return progress
    if memory:
        successes = [1.0 if episode.success else 0.0 for episode in memory]
        progress.success_rate = sum(successes) / len(successes)
        early = successes[: progress.window or max(1, len(successes) // 2)]
        progress.early_success_rate = sum(early) / len(early)
    progress.series = _series(memory)
    contrasts = [series.contrast for series in progress.series]
    if held_out:
        progress.holdout = compare_memory(memory, held_out)
        contrasts += [comparison.contrast for comparison in progress.holdout.comparisons]
    family, progress.run = correct(contrasts)
    progress.tests = len(family)
    chosen = {id(contrast) for contrast in family}
    progress.claimable = any(id(series.contrast) in chosen for series in progress.series)
    varying = sum(1 for series in progress.series if len(set(series.values)) > 1)
    progress.settles_at = smallest_design(varying)
    return progress
